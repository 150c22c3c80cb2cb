//! The artifact store: content-addressed blobs on disk and a SQLite catalog describing them.
//!
//! Blobs are written to a temporary file, fsynced and renamed into
//! `blobs/<sha[0..2]>/<sha[2..4]>/<sha>`; identical bytes are stored once. The catalog row is
//! inserted only after its blob is durable, so a crash leaves at worst an orphan blob, never a row
//! pointing at missing or half-written bytes. Time is passed in by the caller.
#![deny(missing_docs)]

mod blobs;
mod catalog;
mod error;
mod record;

pub use error::StoreError;
pub use record::{ArtifactRecord, NewArtifact, Persistence};

use std::{
    io::Read,
    path::{Path, PathBuf},
    sync::Mutex,
};

/// A store rooted at one directory (the app's data dir).
pub struct ArtifactStore {
    blobs: blobs::BlobDir,
    catalog: Mutex<rusqlite::Connection>,
}

impl ArtifactStore {
    /// Opens (creating when needed) the store under `data_dir`: `artifacts/` for blobs and
    /// `catalog.sqlite` for the catalog, migrated to the current schema.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let blobs = blobs::BlobDir::open(&data_dir.join("artifacts"))?;
        let catalog = catalog::open(&data_dir.join("catalog.sqlite"))?;
        Ok(Self { blobs, catalog: Mutex::new(catalog) })
    }

    /// Streams `bytes` into the store and records it in the catalog.
    ///
    /// The artifact id is `<namespace>_<first 12 hex digits of sha256>`, the namespace being the
    /// server name reduced to `[a-z0-9-]`. Storing the same bytes from the same server again
    /// returns the existing record (its last-used time refreshed) instead of a duplicate.
    pub fn put(&self, new: NewArtifact<'_>, bytes: impl Read) -> Result<ArtifactRecord, StoreError> {
        let written = self.blobs.write(bytes)?;
        let conn = self.catalog.lock().expect("catalog mutex poisoned");
        catalog::insert_or_touch(&conn, &new, &written.sha256, written.size)
    }

    /// The catalog record of artifact `id`.
    pub fn get(&self, id: &str) -> Result<ArtifactRecord, StoreError> {
        let conn = self.catalog.lock().expect("catalog mutex poisoned");
        catalog::get(&conn, id)
    }

    /// The record and the full bytes of artifact `id`, checked against its sha256 size.
    pub fn read(&self, id: &str) -> Result<(ArtifactRecord, Vec<u8>), StoreError> {
        let record = self.get(id)?;
        let bytes = self.blobs.read(&record.sha256)?;
        if bytes.len() as u64 != record.size {
            return Err(StoreError::Corrupt { id: id.to_owned(), reason: format!("blob has {} bytes, catalog says {}", bytes.len(), record.size) });
        }
        Ok((record, bytes))
    }

    /// Where the blob with this sha256 lives (whether or not it exists).
    pub fn blob_path(&self, sha256: &str) -> PathBuf {
        self.blobs.path_for(sha256)
    }

    /// Artifacts of one session, oldest first.
    pub fn list_session(&self, session_id: &str) -> Result<Vec<ArtifactRecord>, StoreError> {
        let conn = self.catalog.lock().expect("catalog mutex poisoned");
        catalog::list_session(&conn, session_id)
    }
}
