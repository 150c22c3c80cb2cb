//! A teammate's file read by ranges: `Read + Seek` over ranged GETs of its blob, in blocks of
//! [`BLOCK`] kept in a small LRU cache shared by every reader of the same file. PDFium opens a
//! PDF through it and reads the trailer, the cross-reference table, the page tree and the page
//! asked for, so a teammate's 100 MB PDF shows its first page after a few hundred kilobytes,
//! while (or instead of) the whole file is fetched into the cache and checked against its
//! SHA-256 (`fetch.rs`). What is read by range is not hash-checked (a part cannot be): the
//! object's size must match the catalog's, and the cached copy is the checked one.

use std::{
    collections::VecDeque,
    io::{Read, Seek, SeekFrom},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use bytes::Bytes;
use mcp_canvas_store::ArtifactRecord;

use crate::{bucket::Bucket, error::TeamError};

/// The size of one ranged GET.
pub const BLOCK: u64 = 256 << 10;

/// Blocks kept per file (16 MiB).
pub const CACHED_BLOCKS: usize = 64;

/// A teammate's file in the bucket, opened for reading by ranges. Cheap to share.
pub struct RemoteFile {
    bucket: Bucket,
    record: ArtifactRecord,
    runtime: tokio::runtime::Handle,
    blocks: Mutex<VecDeque<(u64, Bytes)>>,
    fetched: AtomicU64,
}

impl RemoteFile {
    /// The artifact `record` (its blob in `bucket`), whose object's size was checked against the
    /// catalog's. Readers block on `runtime`: use them off its async workers.
    pub(crate) async fn open(bucket: Bucket, record: ArtifactRecord) -> Result<Arc<Self>, TeamError> {
        match bucket.size_of(&record.sha256).await? {
            Some(size) if size == record.size => {}
            Some(size) => return Err(TeamError::Mismatch { id: record.id.clone(), reason: format!("the bucket's object holds {size} bytes, the catalog says {}", record.size) }),
            None => return Err(TeamError::Mismatch { id: record.id.clone(), reason: format!("the bucket has no object {}", bucket.blob_key(&record.sha256)) }),
        }
        Ok(Arc::new(Self { bucket, record, runtime: tokio::runtime::Handle::current(), blocks: Mutex::new(VecDeque::new()), fetched: AtomicU64::new(0) }))
    }

    /// The artifact.
    pub fn record(&self) -> &ArtifactRecord {
        &self.record
    }

    /// Bytes fetched from the bucket so far by this file's readers.
    pub fn bytes_fetched(&self) -> u64 {
        self.fetched.load(Ordering::Relaxed)
    }

    /// A reader at offset 0 (blocking: not on an async worker).
    pub fn reader(self: &Arc<Self>) -> RangedReader {
        RangedReader { file: self.clone(), position: 0 }
    }

    fn block(&self, index: u64) -> std::io::Result<Bytes> {
        {
            let mut blocks = self.blocks.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(at) = blocks.iter().position(|(i, _)| *i == index) {
                let found = blocks.remove(at).expect("the position was just found");
                blocks.push_front(found.clone());
                return Ok(found.1);
            }
        }
        let start = index * BLOCK;
        let end = (start + BLOCK).min(self.record.size);
        let bytes = self.runtime.block_on(self.bucket.range(&self.record.sha256, start..end)).map_err(std::io::Error::other)?;
        if bytes.len() as u64 != end - start {
            return Err(std::io::Error::other(format!("the bucket answered {} bytes for {start}..{end} of {}", bytes.len(), self.record.id)));
        }
        self.fetched.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        let mut blocks = self.blocks.lock().unwrap_or_else(|p| p.into_inner());
        blocks.push_front((index, bytes.clone()));
        blocks.truncate(CACHED_BLOCKS);
        Ok(bytes)
    }
}

/// `Read + Seek` over a [`RemoteFile`]. Each read blocks on the bucket when its block is not
/// cached.
pub struct RangedReader {
    file: Arc<RemoteFile>,
    position: u64,
}

impl Read for RangedReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.file.record.size;
        if self.position >= size || buf.is_empty() {
            return Ok(0);
        }
        let index = self.position / BLOCK;
        let block = self.file.block(index)?;
        let within = (self.position - index * BLOCK) as usize;
        let n = buf.len().min(block.len() - within);
        buf[..n].copy_from_slice(&block[within..within + n]);
        self.position += n as u64;
        Ok(n)
    }
}

impl Seek for RangedReader {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let size = self.file.record.size as i128;
        let target = match to {
            SeekFrom::Start(n) => n as i128,
            SeekFrom::End(n) => size + n as i128,
            SeekFrom::Current(n) => self.position as i128 + n as i128,
        };
        if target < 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start of the file"));
        }
        self.position = target as u64;
        Ok(self.position)
    }
}
