//! The team's bucket: blobs stored under `<prefix>/blobs/<sha[0..2]>/<sha256>`, written
//! create-only with a SHA-256 checksum the server checks, read back as a stream.
//!
//! A blob up to [`PART`] goes up in one `PutObject` with `If-None-Match: *`. A larger one is
//! streamed from the local blob file as a multipart upload of [`PART`]-sized parts (each with its
//! own checksum) to a staging key, then copied create-only onto its final key
//! (`UploadPartCopy` + `CompleteMultipartUpload` with `If-None-Match: *`), because S3 accepts
//! the condition on completing an upload but object_store completes a streamed upload
//! unconditionally. Either way the bytes are hashed while they are read, and nothing lands under
//! a hash it does not have.

use std::{path::Path, sync::Arc, time::Duration};

use futures_util::StreamExt;
use object_store::{
    aws::{AmazonS3, AmazonS3Builder, S3ConditionalPut, S3CopyIfNotExists},
    path::Path as Key,
    ClientOptions, Error as OsError, ObjectStore, RetryConfig, ObjectStoreExt, PutMode, PutOptions, PutPayload, WriteMultipart,
};
use sha2::{Digest, Sha256};
use tokio::io::AsyncReadExt;

use crate::error::TeamError;

/// Blobs up to this size go up in one request; larger ones in parts of this size.
pub const PART: usize = 8 << 20;

/// Connecting to the bucket.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A small request's answer (the probe, HEAD, DELETE), each of at most two tries.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// A download's wait for its answer, and then for each next byte.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest blob the team store takes (S3's largest object).
pub const MAX_BLOB: u64 = 5 << 40;

/// S3's most parts in one multipart upload.
const MAX_PARTS: u64 = 10_000;

/// The part size of a streamed upload of `size` bytes: [`PART`], or larger when [`PART`]-sized
/// parts would be more than S3's 10,000 (above 78 GiB), in whole MiB.
pub fn part_size(size: u64) -> usize {
    let needed = size.div_ceil(MAX_PARTS).div_ceil(1 << 20) << 20;
    (needed as usize).max(PART)
}

/// `MCP_CANVAS_TEAM_COPY_PART_BYTES`: the largest part of the create-only placement copy
/// (default S3's limit, 5 GiB; a staged blob larger than this is copied in ranged parts). Tests
/// lower it so a few MiB exercise what a 6 GiB file does.
fn copy_part_bytes() -> u64 {
    std::env::var("MCP_CANVAS_TEAM_COPY_PART_BYTES").ok().and_then(|v| v.parse().ok()).filter(|n| *n >= 1 << 20).unwrap_or(crate::multipart::MAX_COPY_PART)
}

/// Where the bucket is, as `[store]` says.
#[derive(Debug, Clone)]
pub struct BucketSettings {
    /// `s3://bucket[/prefix]`.
    pub url: String,
    /// An S3-compatible endpoint; AWS when `None`.
    pub endpoint: Option<String>,
    /// The region.
    pub region: Option<String>,
}

/// The team's bucket.
#[derive(Clone)]
pub struct Bucket {
    store: Arc<AmazonS3>,
    /// The same bucket for small requests, with short timeouts.
    quick: Arc<AmazonS3>,
    /// The same bucket for downloads: no total limit, a limit between bytes.
    reads: Arc<AmazonS3>,
    /// Requests object_store does not make (ranged part copies, unfinished uploads).
    raw: crate::multipart::Raw,
    /// A staged blob larger than this is placed in ranged part copies.
    copy_part: u64,
    prefix: String,
    url: String,
}

/// What [`Bucket::upload`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uploaded {
    /// The bytes went up.
    Sent,
    /// The bucket had them already (a teammate's identical bytes, or an earlier attempt).
    AlreadyThere,
}

impl Bucket {
    /// A client for the bucket; credentials from the AWS environment (`AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, or `AWS_PROFILE` / `~/.aws/credentials`).
    /// Nothing is sent until the first request.
    pub fn new(settings: &BucketSettings) -> Result<Self, TeamError> {
        let rest = settings.url.strip_prefix("s3://").ok_or_else(|| TeamError::Settings(format!("s3_url `{}` is not s3://bucket[/prefix]", settings.url)))?;
        let (name, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let prefix = prefix.trim_matches('/').to_owned();
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(name)
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            .with_copy_if_not_exists(S3CopyIfNotExists::Multipart)
            .with_checksum_algorithm(object_store::aws::Checksum::SHA256);
        if let Some((key, secret, token)) = crate::credentials::from_profile() {
            builder = builder.with_access_key_id(key).with_secret_access_key(secret);
            if let Some(token) = token {
                builder = builder.with_token(token);
            }
        }
        let region = settings.region.clone().or_else(|| std::env::var("AWS_REGION").ok()).or_else(|| std::env::var("AWS_DEFAULT_REGION").ok()).unwrap_or_else(|| "us-east-1".into());
        builder = builder.with_region(&region);
        // Set again in each client's options below, which replace the builder's.
        let allow_http = settings.endpoint.as_deref().is_some_and(|e| e.starts_with("http://"));
        if let Some(endpoint) = &settings.endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        let url = format!("s3://{name}{}{prefix}", if prefix.is_empty() { "" } else { "/" });
        let build = |builder: AmazonS3Builder| builder.build().map_err(|e| TeamError::Bucket { bucket: url.clone(), what: e.to_string(), remedy: String::new() });
        // Bytes up: a slow part is not cut short. A bucket that is away fails fast (the outbox retries).
        let retry = RetryConfig { max_retries: 3, retry_timeout: Duration::from_secs(30), ..Default::default() };
        let bulk = ClientOptions::new().with_allow_http(allow_http).with_connect_timeout(CONNECT_TIMEOUT).with_timeout(Duration::from_secs(600));
        let store = Arc::new(build(builder.clone().with_client_options(bulk.clone()).with_retry(retry.clone()))?);
        let raw = crate::multipart::Raw::new(store.clone(), &bulk, &region, settings.endpoint.as_deref(), name).map_err(|e| TeamError::Bucket { bucket: url.clone(), what: e.to_string(), remedy: String::new() })?;
        // Bytes down: however long the whole file takes, but no answer or no byte for
        // [`READ_TIMEOUT`] gives up (a stalled or silent server).
        let streaming = ClientOptions::new().with_allow_http(allow_http).with_connect_timeout(CONNECT_TIMEOUT).with_timeout_disabled().with_read_timeout(READ_TIMEOUT);
        let reads = build(builder.clone().with_client_options(streaming).with_retry(retry))?;
        // Requests without a body to speak of (the probe, HEAD, DELETE): a server that accepts
        // the connection and never answers is given up on within seconds.
        let short = ClientOptions::new().with_allow_http(allow_http).with_connect_timeout(CONNECT_TIMEOUT).with_timeout(ANSWER_TIMEOUT);
        let quick = build(builder.with_client_options(short).with_retry(RetryConfig { max_retries: 1, retry_timeout: ANSWER_TIMEOUT, ..Default::default() }))?;
        Ok(Self { store, quick: Arc::new(quick), reads: Arc::new(reads), raw, copy_part: copy_part_bytes(), prefix, url })
    }

    /// `s3://bucket/prefix`, for messages.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn key(&self, rest: &str) -> Key {
        if self.prefix.is_empty() {
            Key::from(rest)
        } else {
            Key::from(format!("{}/{rest}", self.prefix))
        }
    }

    /// Where the blob with this sha256 lives in the bucket.
    pub fn blob_key(&self, sha256: &str) -> Key {
        self.key(&format!("blobs/{}/{sha256}", sha256.get(..2).unwrap_or("xx")))
    }

    pub(crate) fn error(&self, e: OsError) -> TeamError {
        // object_store's message stops at "error sending request"; the cause is in its sources.
        let mut what = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            let text = cause.to_string();
            if !what.contains(&text) {
                what.push_str(": ");
                what.push_str(&text);
            }
            source = cause.source();
        }
        let remedy = remedy_for(&what, &e);
        TeamError::Bucket { bucket: self.url.clone(), what: without_body_secrets(&what), remedy }
    }

    /// Checks that the bucket exists, the credentials work, and create-only writes are enforced
    /// (a probe object written twice with `If-None-Match: *` must be refused the second time).
    pub async fn check(&self) -> Result<(), TeamError> {
        let probe = self.key(&format!("probes/{}", random_hex()));
        let create = || PutOptions { mode: PutMode::Create, ..Default::default() };
        self.quick.put_opts(&probe, PutPayload::from_static(b"mcp-canvas probe"), create()).await.map_err(|e| self.error(e))?;
        let second = self.quick.put_opts(&probe, PutPayload::from_static(b"mcp-canvas probe"), create()).await;
        let _ = self.quick.delete(&probe).await;
        match second {
            Err(OsError::AlreadyExists { .. }) => Ok(()),
            Err(e) => Err(self.error(e)),
            Ok(_) => Err(TeamError::Bucket {
                bucket: self.url.clone(),
                what: "it overwrote an object written with `If-None-Match: *`".into(),
                remedy: "; this server ignores conditional writes, which the team store needs (AWS S3, R2 and MinIO enforce them): use one that does".into(),
            }),
        }
    }

    /// The size of the blob in the bucket, `None` when it is not there.
    pub async fn size_of(&self, sha256: &str) -> Result<Option<u64>, TeamError> {
        match self.quick.head(&self.blob_key(sha256)).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(OsError::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Uploads the file at `path` as the blob `sha256` (`size` bytes), create-only. The file is
    /// hashed as it is read: bytes that do not hash to `sha256` are never completed in the bucket.
    /// Up to [`MAX_BLOB`]; a blob over 5 GiB (S3's limit for one `UploadPartCopy`) is placed in
    /// ranged part copies.
    pub async fn upload(&self, id: &str, sha256: &str, size: u64, path: &Path) -> Result<Uploaded, TeamError> {
        if size > MAX_BLOB {
            return Err(TeamError::TooLarge { id: id.into(), size });
        }
        match self.size_of(sha256).await? {
            Some(found) if found == size => return Ok(Uploaded::AlreadyThere),
            Some(found) => {
                return Err(TeamError::Mismatch { id: id.into(), reason: format!("the bucket's {} holds {found} bytes, not {size}: delete that object (it was not written by MCP Canvas)", self.blob_key(sha256)) })
            }
            None => {}
        }
        let mut file = tokio::fs::File::open(path).await.map_err(|e| TeamError::Local(mcp_canvas_store::StoreError::Io { action: "opening", path: path.to_owned(), source: e }))?;
        let key = self.blob_key(sha256);
        let result = if size as usize <= PART {
            let mut bytes = Vec::with_capacity(size as usize);
            file.read_to_end(&mut bytes).await.map_err(|e| local_io(path, e))?;
            check_hash(id, sha256, &Sha256::digest(&bytes))?;
            self.store.put_opts(&key, PutPayload::from(bytes), PutOptions { mode: PutMode::Create, ..Default::default() }).await.map(|_| ())
        } else {
            // The start time in the key: retention's age for it, whatever time the server reports.
            let staging = self.key(&format!("uploads/{sha256}.{}.{}", wall_clock_ms(), random_hex()));
            let upload = self.store.put_multipart(&staging).await.map_err(|e| self.error(e))?;
            let mut writer = WriteMultipart::new_with_chunk_size(upload, part_size(size));
            let mut hasher = Sha256::new();
            let mut buffer = vec![0u8; 1 << 20];
            let read = async {
                loop {
                    let n = file.read(&mut buffer).await.map_err(|e| local_io(path, e))?;
                    if n == 0 {
                        break;
                    }
                    hasher.update(&buffer[..n]);
                    // At most two parts in flight: memory stays at a few parts whatever the size.
                    writer.wait_for_capacity(2).await.map_err(|e| self.error(e))?;
                    writer.write(&buffer[..n]);
                }
                check_hash(id, sha256, &hasher.finalize())
            }
            .await;
            if let Err(e) = read {
                let _ = writer.abort().await;
                return Err(e);
            }
            writer.finish().await.map_err(|e| self.error(e))?;
            let copied = if size > self.copy_part {
                // Over one copy's limit: ranged part copies (object_store copies in one part).
                match self.raw.copy_in_parts(&staging, &key, size, self.copy_part).await {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(OsError::AlreadyExists { path: key.to_string(), source: "the blob was placed by another upload".into() }),
                    Err(what) => {
                        let _ = self.store.delete(&staging).await;
                        return Err(TeamError::Bucket { bucket: self.url.clone(), remedy: remedy_for(&what, &OsError::Generic { store: "S3", source: what.clone().into() }), what });
                    }
                }
            } else {
                self.store.copy_if_not_exists(&staging, &key).await
            };
            let _ = self.store.delete(&staging).await;
            copied
        };
        match result {
            Ok(()) => Ok(Uploaded::Sent),
            Err(OsError::AlreadyExists { .. }) => Ok(Uploaded::AlreadyThere),
            Err(e) => Err(self.error(e)),
        }
    }

    /// The blob's bytes as a stream of chunks.
    pub async fn download(&self, sha256: &str) -> Result<impl futures_util::Stream<Item = Result<bytes::Bytes, TeamError>> + use<>, TeamError> {
        let result = self.reads.get(&self.blob_key(sha256)).await.map_err(|e| self.error(e))?;
        let this = self.clone();
        Ok(result.into_stream().map(move |chunk| chunk.map_err(|e| this.error(e))))
    }

    /// Bytes `range` of the blob (one ranged GET).
    pub async fn range(&self, sha256: &str, range: std::ops::Range<u64>) -> Result<bytes::Bytes, TeamError> {
        self.reads.get_range(&self.blob_key(sha256), range).await.map_err(|e| self.error(e))
    }

    /// Aborts the unfinished multipart uploads under the prefix started before `cutoff_ms`
    /// (what an interrupted upload leaves; many S3 servers have no lifecycle rules). Returns how
    /// many.
    pub async fn abort_unfinished(&self, cutoff_ms: i64) -> Result<u32, TeamError> {
        let prefix = if self.prefix.is_empty() { String::new() } else { format!("{}/", self.prefix) };
        let failed = |what: String| TeamError::Bucket { bucket: self.url.clone(), remedy: remedy_for(&what, &OsError::Generic { store: "S3", source: what.clone().into() }), what };
        let mut aborted = 0;
        for upload in self.raw.unfinished(&prefix).await.map_err(failed)? {
            if started_ms(&upload.key).or(upload.initiated_ms).is_some_and(|at| at < cutoff_ms) {
                self.raw.abort(&upload.key, &upload.upload_id).await.map_err(failed)?;
                aborted += 1;
            }
        }
        Ok(aborted)
    }

    /// Deletes staging copies (`<prefix>/uploads/`) last written before `cutoff_ms`: a process
    /// killed between placing a blob and deleting its staging copy leaves one. Returns how many.
    pub async fn delete_stale_staging(&self, cutoff_ms: i64) -> Result<u32, TeamError> {
        let staging = self.key("uploads");
        let mut listed = self.quick.list(Some(&staging));
        let mut stale = Vec::new();
        while let Some(meta) = listed.next().await {
            let meta = meta.map_err(|e| self.error(e))?;
            if started_ms(meta.location.as_ref()).unwrap_or(meta.last_modified.timestamp_millis()) < cutoff_ms {
                stale.push(meta.location);
            }
        }
        for key in &stale {
            match self.quick.delete(key).await {
                Ok(()) | Err(OsError::NotFound { .. }) => {}
                Err(e) => return Err(self.error(e)),
            }
        }
        Ok(stale.len() as u32)
    }

    /// Deletes the blob (retention, for blobs no artifact references).
    pub async fn delete(&self, sha256: &str) -> Result<(), TeamError> {
        match self.quick.delete(&self.blob_key(sha256)).await {
            Ok(()) | Err(OsError::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(e)),
        }
    }
}

/// An S3 error as object_store prints it carries the server's XML body, which for some errors
/// holds the access key id, the string that was signed or a session token: only its `Code` and
/// `Message` are kept.
fn without_body_secrets(what: &str) -> String {
    let Some(start) = what.find("<?xml").or_else(|| what.find("<Error>")) else { return what.to_owned() };
    let element = |name: &str| {
        let open = format!("<{name}>");
        let from = what[start..].find(&open)? + start + open.len();
        let to = what[from..].find(&format!("</{name}>"))? + from;
        Some(what[from..to].to_owned())
    };
    let mut kept = what[..start].trim_end().to_owned();
    if let Some(code) = element("Code") {
        kept.push_str(&format!(" {code}"));
    }
    if let Some(message) = element("Message") {
        kept.push_str(&format!(": {message}"));
    }
    kept
}

fn check_hash(id: &str, sha256: &str, digest: &[u8]) -> Result<(), TeamError> {
    let found: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    if found == sha256 {
        Ok(())
    } else {
        Err(TeamError::Mismatch { id: id.into(), reason: format!("its local blob hashes to {found}, not {sha256}: run `mcp-canvas-cli artifacts verify`; nothing was uploaded") })
    }
}

fn local_io(path: &Path, source: std::io::Error) -> TeamError {
    TeamError::Local(mcp_canvas_store::StoreError::Io { action: "reading", path: path.to_owned(), source })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_staging_keys_start_time_is_read_from_it() {
        let sha = "a".repeat(64);
        assert_eq!(super::started_ms(&format!("canvas/uploads/{sha}.1700000000000.ab12")), Some(1_700_000_000_000));
        assert_eq!(super::started_ms(&format!("canvas/uploads/{sha}.ab12")), None, "a key from before start times were written");
        assert_eq!(super::started_ms(&format!("canvas/blobs/aa/{sha}")), None);
    }

    #[test]
    fn an_error_body_keeps_its_code_and_message_and_drops_the_rest() {
        let what = "Client error with status 403 Forbidden: <?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message><AWSAccessKeyId>AKIAEXAMPLE123</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256 secret-ish</StringToSign></Error>";
        let kept = super::without_body_secrets(what);
        assert_eq!(kept, "Client error with status 403 Forbidden: SignatureDoesNotMatch: The request signature we calculated does not match");
        assert!(!kept.contains("AKIA") && !kept.contains("StringToSign"));
        let token = "status 400: <Error><Code>ExpiredToken</Code><Message>expired</Message><Token-0>FwoGZXIvYXdzE-session-token</Token-0></Error>";
        assert!(!super::without_body_secrets(token).contains("FwoG"));
        assert_eq!(super::without_body_secrets("connection refused"), "connection refused");
    }
}

/// When the upload to a staging key (`uploads/<sha256>.<start ms>.<random>`) started, from the
/// key itself: some servers report no real start time for an unfinished upload (moto answers a
/// fixed date), and a member's clock is what its uploads' age is counted by. `None` for other keys.
fn started_ms(key: &str) -> Option<i64> {
    let name = key.rsplit('/').next()?;
    let mut parts = name.split('.');
    let (sha, at, random) = (parts.next()?, parts.next()?, parts.next()?);
    (sha.len() == 64 && !random.is_empty() && parts.next().is_none()).then(|| at.parse().ok()).flatten()
}

fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

pub(crate) fn random_hex() -> String {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn remedy_for(what: &str, e: &OsError) -> String {
    let remedy = if what.contains("NoSuchBucket") {
        "check s3_url's bucket name (and s3_endpoint / s3_region)"
    } else if what.contains("InvalidAccessKeyId") || what.contains("SignatureDoesNotMatch") || matches!(e, OsError::Unauthenticated { .. }) {
        "check the credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE)"
    } else if what.contains("AccessDenied") || matches!(e, OsError::PermissionDenied { .. }) {
        "the credentials lack permission: they need s3:GetObject, s3:PutObject, s3:DeleteObject and s3:ListBucket on the prefix"
    } else if matches!(e, OsError::NotImplemented { .. }) || what.contains("NotImplemented") {
        "this server does not support conditional writes (If-None-Match), which the team store needs"
    } else if what.contains("BadDigest") || what.contains("XAmzContentSHA256Mismatch") || what.contains("checksum") {
        "the server received bytes other than were sent (a damaged connection?); it will be retried"
    } else if what.to_ascii_lowercase().contains("connect") || what.contains("timed out") || what.contains("error sending request") || what.contains("timeout") {
        "the bucket cannot be reached; calls keep storing here and uploads resume when it is back"
    } else {
        return String::new();
    };
    format!("; {remedy}")
}
