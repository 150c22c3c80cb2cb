//! The bucket's own requests against s3s-fs (crates.io, installed into `.deps/s3s-fs` by
//! `scripts/setup.sh --tests`), a server that verifies every request's SigV4 signature and that
//! each body hashes to the SHA-256 the signature states (`x-amz-content-sha256`). moto (the
//! other tests' server) checks neither.
//!
//! What s3s-fs 0.14.1 does not do, so is not tested here: it answers `ListMultipartUploads`
//! with 501 NotImplemented (retention then says it cannot list them), and it ignores an
//! `UploadPart`'s `x-amz-checksum-sha256` (it checks that header on `PutObject` only); a part
//! whose bytes differ from its signed hash is refused.

use std::{
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use base64::Engine as _;
use futures_util::StreamExt;
use object_store::{multipart::MultipartStore, path::Path as Key};
use sha2::{Digest, Sha256};

use crate::{Bucket, BucketSettings, TeamError, Uploaded};

/// s3s-fs on its own port, storing bucket `team` in a temp dir; killed when dropped.
struct S3sFs {
    port: u16,
    root: tempfile::TempDir,
    child: Child,
}

impl S3sFs {
    fn start() -> Self {
        let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.deps/s3s-fs/bin/s3s-fs");
        assert!(bin.is_file(), "s3s-fs is not installed at {}: run `scripts/setup.sh --tests`", bin.display());
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("team")).unwrap();
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut child = Command::new(bin)
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--access-key", "ada-key", "--secret-key", "ada-secret"])
            .arg(root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(child.try_wait().unwrap().is_none(), "s3s-fs exited before listening");
            assert!(Instant::now() < deadline, "s3s-fs did not listen on {port} within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { port, root, child }
    }

    /// A member's client of bucket `team`, prefix `canvas`.
    fn bucket(&self) -> Bucket {
        let settings = BucketSettings { url: "s3://team/canvas".into(), endpoint: Some(format!("http://127.0.0.1:{}", self.port)), region: Some("us-east-1".into()) };
        Bucket::open(&settings, Some(("ada-key".into(), "ada-secret".into(), None))).unwrap()
    }

    /// Where the server keeps an object's bytes.
    fn file(&self, key: &str) -> PathBuf {
        self.root.path().join("team").join(key)
    }

    /// The server's files of uploads not completed or aborted yet.
    fn unfinished_files(&self) -> Vec<String> {
        std::fs::read_dir(self.root.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with(".upload")).collect()
    }
}

impl Drop for S3sFs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `size` bytes no compressor or coincidence helps, written to `dir/name`; their sha256.
fn noise(dir: &Path, name: &str, size: usize, seed: u64) -> (PathBuf, String) {
    let mut bytes = vec![0u8; size];
    let mut x = seed | 1;
    for chunk in bytes.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
    }
    let path = dir.join(name);
    std::fs::write(&path, &bytes).unwrap();
    (path, hex(&Sha256::digest(&bytes)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn downloaded(bucket: &Bucket, sha256: &str) -> Vec<u8> {
    let mut stream = std::pin::pin!(bucket.download(sha256).await.unwrap());
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        bytes.extend_from_slice(&chunk.unwrap());
    }
    bytes
}

/// A blob over one part goes up as a multipart upload at its own key (no staging key, nothing
/// left unfinished), a teammate reads the same bytes, and a second upload of the same blob —
/// even one that does not look first and completes its own parts — is `AlreadyThere`, its
/// upload aborted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_blob_goes_up_at_its_key_and_a_second_upload_of_it_is_already_there() {
    let s3 = S3sFs::start();
    let dir = tempfile::tempdir().unwrap();
    let (path, sha) = noise(dir.path(), "big.bin", (20 << 20) + 5, 7);
    let size = std::fs::metadata(&path).unwrap().len();
    let ada = s3.bucket();
    ada.check().await.expect("s3s-fs enforces create-only writes");
    assert_eq!(ada.upload("a1", &sha, size, &path).await.unwrap(), Uploaded::Sent);
    let key = format!("canvas/blobs/{}/{sha}", &sha[..2]);
    assert_eq!(std::fs::read(s3.file(&key)).unwrap(), std::fs::read(&path).unwrap());
    assert!(!s3.file("canvas/uploads").exists(), "no staging key");
    assert_eq!(s3.unfinished_files(), Vec::<String>::new());

    let bo = s3.bucket();
    assert_eq!(hex(&Sha256::digest(downloaded(&bo, &sha).await)), sha, "a teammate reads the same bytes");
    assert_eq!(bo.upload("b1", &sha, size, &path).await.unwrap(), Uploaded::AlreadyThere);
    // Past the look: the create-only completion itself is refused, and ours is aborted.
    assert_eq!(bo.upload_in_parts("b1", &sha, size, &path).await.unwrap(), Uploaded::AlreadyThere);
    assert_eq!(s3.unfinished_files(), Vec::<String>::new(), "the refused upload was aborted");
    assert_eq!(hex(&Sha256::digest(std::fs::read(s3.file(&key)).unwrap())), sha);
}

/// A local file that does not hash to the blob's sha256 is never completed: nothing at the key,
/// the upload aborted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_does_not_hash_to_its_blob_is_never_completed() {
    let s3 = S3sFs::start();
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = noise(dir.path(), "big.bin", 17 << 20, 11);
    let claimed = "5".repeat(64);
    let error = s3.bucket().upload("a1", &claimed, 17 << 20, &path).await.unwrap_err();
    assert!(matches!(error, TeamError::Mismatch { .. }), "{error}");
    assert!(!s3.file(&format!("canvas/blobs/55/{claimed}")).exists());
    assert_eq!(s3.unfinished_files(), Vec::<String>::new(), "the upload was aborted");
}

/// A part whose bytes are not those its signature states is refused (a damaged connection),
/// its rightly signed twin accepted; an upload is aborted with its parts. s3s-fs does not list
/// unfinished uploads: retention says so (`None`) instead of failing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_part_is_refused_and_an_upload_is_aborted_with_its_parts() {
    let s3 = S3sFs::start();
    let ada = s3.bucket();
    let (store, raw) = ada.clients();
    let key = Key::from(format!("canvas/blobs/ab/{}", "ab".repeat(32)));
    let upload_id = store.create_multipart(&key).await.unwrap();
    let sent = vec![7u8; 5 << 20];
    let mut damaged = sent.clone();
    damaged[4321] ^= 1;
    let digest = Sha256::digest(&sent);
    let checksum = base64::engine::general_purpose::STANDARD.encode(digest);
    let (status, body) = raw.put_part_raw(&key, &upload_id, 1, damaged, checksum.clone(), &digest).await.unwrap();
    assert!(!status.is_success(), "a damaged part was accepted: {status} {body}");
    let (status, body) = raw.put_part_raw(&key, &upload_id, 1, sent, checksum, &digest).await.unwrap();
    assert!(status.is_success(), "{status} {body}");
    assert!(!s3.unfinished_files().is_empty());

    assert_eq!(ada.unfinished().await.unwrap(), None, "s3s-fs 0.14.1 has no ListMultipartUploads");
    let asked = std::sync::atomic::AtomicBool::new(false);
    let aborted = ada.abort_unfinished(i64::MAX, i64::MAX, async |_| {
        asked.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(Default::default())
    });
    assert_eq!(aborted.await.unwrap(), None);
    assert!(!asked.into_inner(), "nothing listed, nothing asked of the catalog");

    raw.abort(key.as_ref(), &upload_id).await.unwrap();
    assert_eq!(s3.unfinished_files(), Vec::<String>::new(), "the upload and its part are gone");
    assert!(!s3.file(key.as_ref()).exists());
}
