//! Content-addressed blob files: temp file, fsync, rename, fsync the directory.

use std::{
    fs::{self, File},
    io::{self, Read, Write},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use sha2::{Digest, Sha256};

use crate::error::{io, StoreError};

/// Bytes read and hashed per step; the store never holds more than this of a payload.
const CHUNK: usize = 256 * 1024;

pub(crate) struct BlobDir {
    blobs: PathBuf,
    tmp: PathBuf,
}

pub(crate) struct WrittenBlob {
    pub sha256: String,
    pub size: u64,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl BlobDir {
    pub fn open(root: &Path) -> Result<Self, StoreError> {
        let blobs = root.join("blobs");
        let tmp = root.join("tmp");
        for dir in [&blobs, &tmp] {
            fs::create_dir_all(dir).map_err(io("creating", dir))?;
        }
        Ok(Self { blobs, tmp })
    }

    pub fn path_for(&self, sha256: &str) -> PathBuf {
        self.blobs.join(&sha256[0..2]).join(&sha256[2..4]).join(sha256)
    }

    /// Streams `reader` to a temp file while hashing, then moves it into place durably.
    pub fn write(&self, mut reader: impl Read) -> Result<WrittenBlob, StoreError> {
        let temp_path = self.tmp.join(format!(
            "{}-{}.part",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut file = File::create(&temp_path).map_err(io("creating", &temp_path))?;
            let mut hasher = Sha256::new();
            let mut buffer = vec![0u8; CHUNK];
            let mut size = 0u64;
            loop {
                let n = match reader.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(StoreError::Io { action: "reading payload for", path: temp_path.clone(), source: e }),
                };
                hasher.update(&buffer[..n]);
                file.write_all(&buffer[..n]).map_err(io("writing", &temp_path))?;
                size += n as u64;
            }
            file.sync_all().map_err(io("syncing", &temp_path))?;
            let sha256 = hex(&hasher.finalize());
            let final_path = self.path_for(&sha256);
            if final_path.exists() {
                fs::remove_file(&temp_path).map_err(io("removing", &temp_path))?;
            } else {
                let parent = final_path.parent().expect("blob path has a parent");
                fs::create_dir_all(parent).map_err(io("creating", parent))?;
                fs::rename(&temp_path, &final_path).map_err(io("renaming into", &final_path))?;
                File::open(parent).and_then(|d| d.sync_all()).map_err(io("syncing", parent))?;
            }
            Ok(WrittenBlob { sha256, size })
        })();
        if result.is_err() {
            let _ = fs::remove_file(&temp_path);
        }
        result
    }

    pub fn read(&self, sha256: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.path_for(sha256);
        fs::read(&path).map_err(io("reading", &path))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
