//! Content-addressed blob files: temp file, fsync, rename, fsync the directory.

use std::{
    fs::{self, File},
    io::{self, Read, Write},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use sha2::{Digest, Sha256};

use crate::error::{io, StoreError};

/// Bytes read and hashed per step; the store holds no more than this of a payload at once.
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

/// `<pid>-<counter>`: unique among this process's writes, and names the writing process (temp
/// file names start with it).
pub(crate) fn unique_token() -> String {
    format!("{}-{}", std::process::id(), TEMP_COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// This process as a writer: `<pid>.<start time in ns>`, so a later process that gets the same
/// pid is a different writer.
pub(crate) fn writer_id() -> &'static str {
    static WRITER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    WRITER.get_or_init(|| {
        let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        format!("{}.{started}", std::process::id())
    })
}

/// A blob reservation's token: `<writer id>-<counter>`, unique across processes and time.
pub(crate) fn reservation_token() -> String {
    format!("{}-{}", writer_id(), TEMP_COUNTER.fetch_add(1, Ordering::Relaxed))
}

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

    fn temp_path(&self) -> PathBuf {
        self.tmp.join(format!("{}.part", unique_token()))
    }

    /// Streams `reader` to a temp file while hashing and makes it durable. Nothing is in the
    /// blob directory yet: [`Self::place`] moves it there once the caller has reserved its hash.
    pub fn write_temp(&self, mut reader: impl Read) -> Result<TempBlob, StoreError> {
        let path = self.temp_path();
        let result = (|| {
            let file = File::create(&path).map_err(io("creating", &path))?;
            let (sha256, size) = copy_hashing(&mut reader, &mut EarlyWriteback { file: &file, written: 0, started: 0 }, &path)?;
            file.sync_all().map_err(io("syncing", &path))?;
            Ok(WrittenBlob { sha256, size })
        })();
        match result {
            Ok(written) => Ok(TempBlob { path, written }),
            Err(e) => {
                let _ = fs::remove_file(&path);
                Err(e)
            }
        }
    }

    /// A new spill file in the temp directory (named like every temp file, so an abandoned one is
    /// removed like them).
    pub fn start_spill(&self) -> Result<SpillFile, StoreError> {
        let path = self.temp_path();
        let file = File::create(&path).map_err(io("creating", &path))?;
        Ok(SpillFile { file: io::BufWriter::with_capacity(CHUNK, file), path, hasher: Sha256::new(), size: 0 })
    }

    /// Appends `tail` to a spill and makes it durable: the same state [`Self::write_temp`] leaves.
    pub fn finish_spill(&self, mut spill: SpillFile, tail: &[u8]) -> Result<TempBlob, StoreError> {
        spill.write(tail)?;
        spill.file.flush().map_err(io("writing", &spill.path))?;
        spill.file.get_ref().sync_all().map_err(io("syncing", &spill.path))?;
        let written = WrittenBlob { sha256: hex(&std::mem::take(&mut spill.hasher).finalize()), size: spill.size };
        let path = std::mem::take(&mut spill.path); // the file is the temp blob's now
        Ok(TempBlob { path, written })
    }

    /// Moves a temp blob into place durably (or drops it when the same bytes are already there).
    /// The caller has reserved its hash, so no gc removes the file between this check and the
    /// row that will reference it.
    pub fn place(&self, temp: &TempBlob) -> Result<(), StoreError> {
        let final_path = self.path_for(&temp.written.sha256);
        if final_path.exists() {
            fs::remove_file(&temp.path).map_err(io("removing", &temp.path))?;
        } else {
            let parent = final_path.parent().expect("blob path has a parent");
            fs::create_dir_all(parent).map_err(io("creating", parent))?;
            fs::rename(&temp.path, &final_path).map_err(io("renaming into", &final_path))?;
            File::open(parent).and_then(|d| d.sync_all()).map_err(io("syncing", parent))?;
        }
        Ok(())
    }

    pub fn read(&self, sha256: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.path_for(sha256);
        fs::read(&path).map_err(io("reading", &path))
    }

    /// Copies a blob to `destination` through a verified temp file beside it.
    pub fn export(&self, id: &str, sha256: &str, destination: &Path) -> Result<(), StoreError> {
        // The copy is renamed over the destination: a device, socket or directory there would be
        // replaced (as root, `/dev/null` became a regular file). Only files are written.
        if let Ok(meta) = fs::metadata(destination) {
            if !meta.is_file() {
                let reason = io::Error::other("not a regular file: give the path of a file to create or replace");
                return Err(StoreError::Io { action: "exporting to", path: destination.to_owned(), source: reason });
            }
        }
        let source = self.path_for(sha256);
        let mut input = File::open(&source).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => StoreError::Corrupt { id: id.to_owned(), reason: "its blob is missing".into() },
            _ => StoreError::Io { action: "opening", path: source.clone(), source: e },
        })?;
        let temp = destination.with_file_name(format!(
            ".{}.mcp-canvas-export-{}",
            destination.file_name().and_then(|n| n.to_str()).unwrap_or("artifact"),
            std::process::id()
        ));
        let result = (|| {
            let mut output = File::create(&temp).map_err(io("creating", &temp))?;
            let (actual, _) = copy_hashing(&mut input, &mut output, &temp)?;
            if actual != sha256 {
                return Err(StoreError::Corrupt { id: id.to_owned(), reason: format!("its blob hashes to {actual}, not {sha256}") });
            }
            output.sync_all().map_err(io("syncing", &temp))?;
            fs::rename(&temp, destination).map_err(io("renaming into", destination))
        })();
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result
    }

    /// Every blob file as (sha256 from its name, path).
    pub fn blob_files(&self) -> Result<Vec<(String, PathBuf)>, StoreError> {
        let mut found = Vec::new();
        for first in read_dir(&self.blobs)? {
            for second in read_dir(&first)? {
                for file in read_dir(&second)? {
                    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("").to_owned();
                    found.push((name, file));
                }
            }
        }
        Ok(found)
    }

    /// Temp files, with whether their writer process is gone.
    pub fn temp_files(&self) -> Result<Vec<(PathBuf, bool)>, StoreError> {
        Ok(read_dir(&self.tmp)?
            .into_iter()
            .map(|path| {
                let pid = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.split('-').next()).and_then(|p| p.parse::<u32>().ok());
                let abandoned = !pid.is_some_and(process_alive);
                (path, abandoned)
            })
            .collect())
    }

    /// Deletes one blob file; one already gone is not an error.
    pub fn remove(&self, path: &Path) -> Result<(), StoreError> {
        match fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(StoreError::Io { action: "removing", path: path.to_owned(), source: e }),
            _ => Ok(()),
        }
    }

    /// Removes temp files whose writer process is gone. Returns how many.
    pub fn remove_abandoned_temp_files(&self) -> Result<usize, StoreError> {
        let mut removed = 0;
        for (path, abandoned) in self.temp_files()? {
            if abandoned {
                self.remove(&path)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

/// A hashed, durable temp file that is not in the blob directory yet.
pub(crate) struct TempBlob {
    path: PathBuf,
    pub written: WrittenBlob,
}

/// A blob still arriving: bytes written to a temp file as they come (a base64 run spilled from a
/// message while it is read), hashed on the way. [`BlobDir::finish_spill`] makes it a
/// [`TempBlob`]; dropped unfinished, the file is removed.
pub struct SpillFile {
    path: PathBuf,
    file: io::BufWriter<File>,
    hasher: Sha256,
    size: u64,
}

impl SpillFile {
    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.hasher.update(bytes);
        self.file.write_all(bytes).map_err(io("writing", &self.path))?;
        self.size += bytes.len() as u64;
        Ok(())
    }

    /// The number of bytes written so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The SHA-256 of what was written so far (to find two spills of the same bytes).
    pub fn digest_so_far(&self) -> [u8; 32] {
        self.hasher.clone().finalize().into()
    }

    /// Everything written so far (to put the bytes back where they came from).
    pub fn read_back(&mut self) -> Result<Vec<u8>, StoreError> {
        self.file.flush().map_err(io("writing", &self.path))?;
        fs::read(&self.path).map_err(io("reading", &self.path))
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl TempBlob {
    /// Removes the temp file (after a failure; [`BlobDir::place`] consumes it otherwise).
    pub fn discard(&self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Whether process `pid` still runs (a writer's temp files stay while it does). Where there is
/// no `/proc` to ask, every process counts as running.
pub(crate) fn process_alive(pid: u32) -> bool {
    pid == std::process::id() || !Path::new("/proc/self").exists() || Path::new(&format!("/proc/{pid}")).exists()
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    match fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.map(|e| e.path()).map_err(io("listing", dir))).collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(StoreError::Io { action: "listing", path: dir.to_owned(), source: e }),
    }
}

/// Copies in chunks, hashing on the way. Returns (hex sha256, bytes copied).
fn copy_hashing(reader: &mut impl Read, writer: &mut impl Write, path: &Path) -> Result<(String, u64), StoreError> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; CHUNK];
    let mut size = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(StoreError::Io { action: "reading the payload for", path: path.to_owned(), source: e }),
        };
        hasher.update(&buffer[..n]);
        writer.write_all(&buffer[..n]).map_err(io("writing", path))?;
        size += n as u64;
    }
    Ok((hex(&hasher.finalize()), size))
}

/// How much is written before its writing to disk is started.
const WRITEBACK: u64 = 32 << 20;

/// A file writer that starts writing each [`WRITEBACK`] bytes to disk as soon as they are
/// written (Linux `sync_file_range`, which does not wait), so a big blob's final fsync waits for
/// its last stretch only and the disk works while the bytes still arrive (a 1 GiB team download:
/// the fsync alone took 3 s after the last byte). The fsync is still what makes it durable.
struct EarlyWriteback<'a> {
    file: &'a File,
    written: u64,
    started: u64,
}

impl Write for EarlyWriteback<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = (&mut &*self.file).write(buf)?;
        self.written += n as u64;
        #[cfg(target_os = "linux")]
        if self.written - self.started >= WRITEBACK {
            use std::os::fd::AsRawFd;
            // SAFETY: the descriptor is open for the borrow's life; a failure only means no head start.
            unsafe { libc::sync_file_range(self.file.as_raw_fd(), self.started as i64, (self.written - self.started) as i64, libc::SYNC_FILE_RANGE_WRITE) };
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Hashes a whole file (for `verify`).
pub(crate) fn hash_file(path: &Path) -> Result<String, StoreError> {
    let mut file = File::open(path).map_err(io("opening", path))?;
    let (sha, _) = copy_hashing(&mut file, &mut io::sink(), path)?;
    Ok(sha)
}

/// Errors when `bytes` do not hash to `sha256`.
pub(crate) fn check(id: &str, sha256: &str, bytes: &[u8]) -> Result<(), StoreError> {
    let actual = hex(&Sha256::digest(bytes));
    if actual != sha256 {
        return Err(StoreError::Corrupt { id: id.to_owned(), reason: format!("its blob hashes to {actual}, not {sha256}") });
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
