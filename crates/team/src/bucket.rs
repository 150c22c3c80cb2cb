//! The team's bucket: blobs stored under `<prefix>/blobs/<sha[0..2]>/<sha256>`, written
//! create-only with a SHA-256 checksum the server checks, read back as a stream.
//!
//! A blob up to [`PART`] goes up in one `PutObject` with `If-None-Match: *`. A larger one is
//! read from the local blob file and sent as a multipart upload straight at its final key: parts
//! of [`part_size`] bytes, a few in flight ([`parts_in_flight`]), each with its own
//! `x-amz-checksum-sha256` (object_store's `MultipartStore::put_part`), the whole file hashed
//! while it is read. Only when that hash is the blob's is the upload completed, create-only
//! (`CompleteMultipartUpload` with `If-None-Match: *`, signed in `multipart.rs`: object_store
//! completes an upload unconditionally); otherwise it is aborted, so nothing lands under a hash
//! it does not have. A completion refused because the object exists (412) means a teammate
//! placed the same bytes first: ours is aborted, [`Uploaded::AlreadyThere`].
//!
//! An interrupted upload leaves an unfinished multipart upload at a blob key; retention
//! ([`Bucket::abort_unfinished`]) aborts it once no reservation of that blob is younger than
//! `abandoned_upload_hours`. Clients before this one staged large blobs under
//! `<prefix>/uploads/<sha256>.<start ms>.<random>` and copied them into place: retention still
//! aborts and deletes what they leave there ([`Bucket::delete_stale_staging`]).

use std::{path::Path, sync::Arc, time::Duration};

use futures_util::StreamExt;
use object_store::{
    aws::{AmazonS3, AmazonS3Builder, S3ConditionalPut},
    multipart::{MultipartStore, PartId},
    path::Path as Key,
    ClientOptions, Error as OsError, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig,
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

/// Parts of a large upload in flight at once (each [`part_size`] bytes in memory, one more
/// being read): `MCP_CANVAS_TEAM_PARTS_IN_FLIGHT` (1 to 32), default 6.
pub fn parts_in_flight() -> usize {
    std::env::var("MCP_CANVAS_TEAM_PARTS_IN_FLIGHT").ok().and_then(|v| v.parse().ok()).filter(|n| (1..=32).contains(n)).unwrap_or(6)
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
    /// Requests object_store does not make (a create-only completion, unfinished uploads).
    raw: crate::multipart::Raw,
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
        Self::open(settings, crate::credentials::from_profile())
    }

    /// [`Self::new`] with the keys of a profile (or given by a test) over the environment's.
    pub(crate) fn open(settings: &BucketSettings, keys: Option<(String, String, Option<String>)>) -> Result<Self, TeamError> {
        let rest = settings.url.strip_prefix("s3://").ok_or_else(|| TeamError::Settings(format!("s3_url `{}` is not s3://bucket[/prefix]", settings.url)))?;
        let (name, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let prefix = prefix.trim_matches('/').to_owned();
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(name)
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            .with_checksum_algorithm(object_store::aws::Checksum::SHA256);
        if let Some((key, secret, token)) = keys {
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
        Ok(Self { store, quick: Arc::new(quick), reads: Arc::new(reads), raw, prefix, url })
    }

    /// The clients underneath, for tests that send what MCP Canvas never would.
    #[cfg(test)]
    pub(crate) fn clients(&self) -> (&AmazonS3, &crate::multipart::Raw) {
        (&self.store, &self.raw)
    }

    /// `s3://bucket/prefix`, for messages.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What every key of this bucket's starts with (`<prefix>/`, or nothing).
    fn key_prefix(&self) -> String {
        if self.prefix.is_empty() { String::new() } else { format!("{}/", self.prefix) }
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
    /// Up to [`MAX_BLOB`].
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
        if size as usize > PART {
            return self.upload_in_parts(id, sha256, size, path).await;
        }
        let mut file = tokio::fs::File::open(path).await.map_err(|e| TeamError::Local(mcp_canvas_store::StoreError::Io { action: "opening", path: path.to_owned(), source: e }))?;
        let mut bytes = Vec::with_capacity(size as usize);
        file.read_to_end(&mut bytes).await.map_err(|e| local_io(path, e))?;
        check_hash(id, sha256, &Sha256::digest(&bytes))?;
        match self.store.put_opts(&self.blob_key(sha256), PutPayload::from(bytes), PutOptions { mode: PutMode::Create, ..Default::default() }).await {
            Ok(_) => Ok(Uploaded::Sent),
            Err(OsError::AlreadyExists { .. }) => Ok(Uploaded::AlreadyThere),
            Err(e) => Err(self.error(e)),
        }
    }

    /// A blob over [`PART`]: a multipart upload at its own key, completed create-only once the
    /// whole file hashed to `sha256`, aborted otherwise (and when the key turns out taken).
    pub(crate) async fn upload_in_parts(&self, id: &str, sha256: &str, size: u64, path: &Path) -> Result<Uploaded, TeamError> {
        let file = std::fs::File::open(path).map_err(|e| TeamError::Local(mcp_canvas_store::StoreError::Io { action: "opening", path: path.to_owned(), source: e }))?;
        let key = self.blob_key(sha256);
        let upload_id = self.store.create_multipart(&key).await.map_err(|e| self.error(e))?;
        let placed = match self.send_parts(id, sha256, size, file, path, &key, &upload_id).await {
            Ok(parts) => self.raw.complete_create_only(&key, &upload_id, &parts).await.map_err(|what| self.raw_error(what)),
            Err(e) => Err(e),
        };
        if !matches!(placed, Ok(true)) {
            let _ = self.store.abort_multipart(&key, &upload_id).await;
        }
        match placed? {
            true => Ok(Uploaded::Sent),
            false => Ok(Uploaded::AlreadyThere),
        }
    }

    /// Reads `file` in parts, hashing it whole, and sends the parts ([`parts_in_flight`] at a
    /// time); their ids in order once every part is in and the hash is `sha256`.
    #[allow(clippy::too_many_arguments)]
    async fn send_parts(&self, id: &str, sha256: &str, size: u64, file: std::fs::File, path: &Path, key: &Key, upload_id: &str) -> Result<Vec<PartId>, TeamError> {
        let part = part_size(size) as u64;
        let count = size.div_ceil(part) as usize;
        let in_flight = parts_in_flight();
        let mut reader = Some((file, Sha256::new()));
        let mut sending = tokio::task::JoinSet::new();
        let mut parts: Vec<Option<PartId>> = vec![None; count];
        let sent = |done: Result<(usize, Result<PartId, OsError>), tokio::task::JoinError>, parts: &mut Vec<Option<PartId>>| -> Result<(), TeamError> {
            let (index, result) = done?;
            parts[index] = Some(result.map_err(|e| self.error(e))?);
            Ok(())
        };
        for index in 0..count {
            while sending.len() >= in_flight {
                if let Some(done) = sending.join_next().await {
                    sent(done, &mut parts)?;
                }
            }
            let len = part.min(size - index as u64 * part) as usize;
            let (mut file, mut hasher) = reader.take().expect("the reader is put back after each part");
            // Reading and hashing block: off the async workers, one part at a time.
            let (file, hasher, bytes) = tokio::task::spawn_blocking(move || {
                let mut bytes = vec![0u8; len];
                std::io::Read::read_exact(&mut file, &mut bytes).map(|()| {
                    hasher.update(&bytes);
                    (file, hasher, bytes)
                })
            })
            .await?
            .map_err(|e| local_io(path, e))?;
            reader = Some((file, hasher));
            let (store, key, upload_id) = (self.store.clone(), key.clone(), upload_id.to_owned());
            // Each part's own checksum is computed in its task: on another core than the reading.
            sending.spawn(async move { (index, store.put_part(&key, &upload_id, index, PutPayload::from(bytes)).await) });
        }
        while let Some(done) = sending.join_next().await {
            sent(done, &mut parts)?;
        }
        let (_, hasher) = reader.take().expect("the reader is put back after each part");
        check_hash(id, sha256, &hasher.finalize())?;
        Ok(parts.into_iter().map(|p| p.expect("every part was sent")).collect())
    }

    fn raw_error(&self, what: String) -> TeamError {
        TeamError::Bucket { bucket: self.url.clone(), remedy: remedy_for(&what, &OsError::Generic { store: "S3", source: what.clone().into() }), what }
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

    /// Aborts the unfinished multipart uploads under the prefix that [`abandoned`] finds
    /// abandoned at `cutoff_ms` (what an interrupted upload leaves; many S3 servers have no
    /// lifecycle rules). `reserved_since` answers which of the blobs being uploaded have a
    /// reservation made at or after `cutoff_ms` (asked after listing: an upload listed was
    /// reserved before it started). Returns how many were aborted, `None` when the server does
    /// not list unfinished uploads (s3s-fs).
    pub async fn abort_unfinished(&self, cutoff_ms: i64, now_ms: i64, reserved_since: impl AsyncFnOnce(Vec<String>) -> Result<std::collections::HashSet<String>, TeamError>) -> Result<Option<u32>, TeamError> {
        let Some(uploads) = self.unfinished().await? else { return Ok(None) };
        let mut blobs: Vec<String> = uploads.iter().filter_map(|u| blob_sha(&u.key)).map(str::to_owned).collect();
        blobs.sort();
        blobs.dedup();
        let reserved = if blobs.is_empty() { Default::default() } else { reserved_since(blobs).await? };
        let mut aborted = 0;
        for upload in &uploads {
            let lately = blob_sha(&upload.key).is_some_and(|sha| reserved.contains(sha));
            if abandoned(upload, cutoff_ms, now_ms, lately) {
                self.raw.abort(&upload.key, &upload.upload_id).await.map_err(|what| self.raw_error(what))?;
                aborted += 1;
            }
        }
        Ok(Some(aborted))
    }

    /// The bucket's unfinished multipart uploads under the prefix (`None`: the server does not
    /// list them).
    pub(crate) async fn unfinished(&self) -> Result<Option<Vec<crate::multipart::Unfinished>>, TeamError> {
        self.raw.unfinished(&self.key_prefix()).await.map_err(|what| self.raw_error(what))
    }

    /// Deletes staging copies (`<prefix>/uploads/`) last written before `cutoff_ms`: an older
    /// client killed between placing a blob and deleting its staging copy leaves one. Returns how
    /// many.
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

/// When an older client's upload to a staging key (`uploads/<sha256>.<start ms>.<random>`)
/// started, from the key itself: some servers report no real start time for an unfinished
/// upload (moto answers a fixed date), and a member's clock is what its uploads' age is counted
/// by. `None` for other keys.
fn started_ms(key: &str) -> Option<i64> {
    let name = key.rsplit('/').next()?;
    let mut parts = name.split('.');
    let (sha, at, random) = (parts.next()?, parts.next()?, parts.next()?);
    (sha.len() == 64 && !random.is_empty() && parts.next().is_none()).then(|| at.parse().ok()).flatten()
}

/// Whether retention at `cutoff_ms` (now minus `abandoned_upload_hours`) aborts this unfinished
/// upload:
///
/// - at a blob key (how uploads go up now): when no reservation of that blob was made at or
///   after the cutoff (`reserved_lately`, by the uploading member's clock: every upload is
///   preceded by one) and the server does not say it started after the cutoff. The server's
///   `Initiated` can only keep an upload, never end one early: moto reports a fixed date in 2010
///   for every upload (so there reservations alone decide), and a date more than an hour ahead
///   of `now_ms` is a server clock gone wrong and is ignored;
/// - at a legacy staging key (`uploads/<sha256>.<start ms>.<random>`, older clients): when the
///   start time in its name is before the cutoff;
/// - anything else: when the server says it started before the cutoff.
pub(crate) fn abandoned(upload: &crate::multipart::Unfinished, cutoff_ms: i64, now_ms: i64, reserved_lately: bool) -> bool {
    if blob_sha(&upload.key).is_some() {
        let started_lately = upload.initiated_ms.is_some_and(|at| at >= cutoff_ms && at <= now_ms + 3_600_000);
        return !reserved_lately && !started_lately;
    }
    started_ms(&upload.key).or(upload.initiated_ms).is_some_and(|at| at < cutoff_ms)
}

/// The sha256 of a blob key (`…/blobs/<sha[0..2]>/<sha256>`), `None` for other keys.
fn blob_sha(key: &str) -> Option<&str> {
    let mut parts = key.rsplit('/');
    let (sha, dir, blobs) = (parts.next()?, parts.next()?, parts.next()?);
    (blobs == "blobs" && sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()) && sha.starts_with(dir) && dir.len() == 2).then_some(sha)
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
    fn an_upload_at_a_blob_key_is_abandoned_when_no_young_reservation_or_start_keeps_it() {
        let sha = "ab".repeat(32);
        let (now, cutoff) = (10 * 3_600_000, 9 * 3_600_000);
        let upload = |key: String, initiated_ms: Option<i64>| crate::multipart::Unfinished { key, upload_id: "u".into(), initiated_ms };
        let at_blob = |initiated| upload(format!("canvas/blobs/ab/{sha}"), initiated);
        // moto's fixed date: reservations decide.
        let moto = Some(1_289_422_113_000);
        assert!(super::abandoned(&at_blob(moto), cutoff, now, false));
        assert!(!super::abandoned(&at_blob(moto), cutoff, now, true), "a young reservation keeps it");
        assert!(super::abandoned(&at_blob(None), cutoff, now, false));
        // A server that says it started after the cutoff keeps it (a member's clock behind).
        assert!(!super::abandoned(&at_blob(Some(cutoff + 1)), cutoff, now, false));
        assert!(super::abandoned(&at_blob(Some(cutoff - 1)), cutoff, now, false));
        assert!(super::abandoned(&at_blob(Some(now + 2 * 3_600_000)), cutoff, now, false), "a server clock far ahead is not believed");
        // Older clients' staging keys: the start time in the name, whatever the server says.
        let staging = |at: i64| upload(format!("canvas/uploads/{sha}.{at}.0123abcd"), moto);
        assert!(super::abandoned(&staging(cutoff - 1), cutoff, now, true));
        assert!(!super::abandoned(&staging(cutoff + 1), cutoff, now, false));
        assert!(!super::abandoned(&upload("canvas/other".into(), Some(cutoff + 1)), cutoff, now, false));
        assert_eq!(super::blob_sha(&format!("canvas/blobs/ab/{sha}")), Some(sha.as_str()));
        assert_eq!(super::blob_sha(&format!("blobs/ab/{sha}")), Some(sha.as_str()));
        assert_eq!(super::blob_sha(&format!("canvas/blobs/cd/{sha}")), None);
        assert_eq!(super::blob_sha(&format!("canvas/uploads/{sha}.1.ab")), None);
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
