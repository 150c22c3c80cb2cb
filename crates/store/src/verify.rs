//! `verify`: re-hash every blob and compare with the catalog.

use std::{collections::HashMap, path::PathBuf};

use serde::Serialize;

use crate::{
    blobs::{self, BlobDir},
    error::StoreError,
};

/// What `verify` found. Clean when every list is empty.
#[derive(Debug, Default, Serialize, PartialEq)]
pub struct VerifyReport {
    /// Artifacts checked.
    pub checked: usize,
    /// Artifact ids whose blob is missing.
    pub missing: Vec<String>,
    /// Artifact ids whose blob does not hash to its sha256.
    pub corrupt: Vec<String>,
    /// Blob files no artifact references (removed by `gc`).
    pub orphaned: Vec<PathBuf>,
    /// Temp files left by writers that are gone (removed by `gc`).
    pub abandoned_temp_files: Vec<PathBuf>,
}

impl VerifyReport {
    /// Nothing wrong.
    pub fn is_clean(&self) -> bool {
        self.missing.is_empty() && self.corrupt.is_empty() && self.orphaned.is_empty() && self.abandoned_temp_files.is_empty()
    }
}

/// `in_use`: every sha256 a row or a writer's reservation references (a blob a writer is placing
/// right now is not an orphan).
pub(crate) fn run(blobs: &BlobDir, files: Vec<(String, PathBuf)>, records: &[(String, String)], in_use: &std::collections::HashSet<String>) -> Result<VerifyReport, StoreError> {
    let mut report = VerifyReport { checked: records.len(), ..Default::default() };
    let files: HashMap<String, PathBuf> = files.into_iter().collect();
    let mut hashed: HashMap<&str, bool> = HashMap::new();
    for (id, sha) in records {
        match files.get(sha) {
            None => report.missing.push(id.clone()),
            Some(path) => {
                let ok = match hashed.get(sha.as_str()) {
                    Some(ok) => *ok,
                    None => {
                        let ok = blobs::hash_file(path)? == *sha;
                        hashed.insert(sha, ok);
                        ok
                    }
                };
                if !ok {
                    report.corrupt.push(id.clone());
                }
            }
        }
    }
    report.orphaned = files.iter().filter(|(sha, _)| !in_use.contains(sha.as_str())).map(|(_, p)| p.clone()).collect();
    report.orphaned.sort();
    report.abandoned_temp_files = blobs.temp_files()?.into_iter().filter(|(_, abandoned)| *abandoned).map(|(p, _)| p).collect();
    Ok(report)
}
