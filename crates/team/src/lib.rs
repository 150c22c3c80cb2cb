//! The team store: artifacts' bytes in an S3-compatible bucket, their catalog in PostgreSQL, and
//! this data dir's local store as the cache in front of both and the outbox behind them.
//!
//! A call's artifact is acknowledged when the local store has it: stored durably here and, in
//! the same SQLite transaction, queued in the outbox (`ArtifactStore::queue_for_team`). Draining
//! the outbox ([`TeamStore::sync`]) is separate from the call, in order, and idempotent:
//!
//! 1. reserve the blob in the catalog (its `blobs` row locked, a reservation added),
//! 2. upload it create-only with a SHA-256 checksum ([`bucket::Bucket::upload`]; skipped when the
//!    bucket has it: identical bytes from two members are one object),
//! 3. register the artifact row (dropping the reservation), then leave the outbox.
//!
//! A process killed anywhere in between leaves the entry queued; the next drain repeats what is
//! needed (the create-only write finds the object, the row insert is an upsert). A registered
//! row always points at a complete object. Queued artifacts are never evicted from the local
//! store; registered ones may be, and are fetched back from the bucket when opened.
//!
//! Retention ([`TeamStore::retention`]) runs under a PostgreSQL advisory lock (one process of the
//! team at a time) and deletes a blob only under its `blobs` row's lock after finding no artifact
//! and no live reservation for it (see `migrations/0001_team_catalog.sql`). A writer killed
//! between reserving and registering leaves a reservation that keeps its blob for a day.
#![deny(missing_docs)]

pub mod audit;
pub mod bucket;
pub mod catalog;
mod connect;
mod credentials;
mod error;
mod fetch;
mod multipart;
mod password;
pub mod ranged;
#[cfg(test)]
mod s3s_tests;
pub mod search;
mod tls;

use std::sync::Arc;

use mcp_canvas_config::settings::{StoreBackend, StoreSettings};
use mcp_canvas_store::{ArtifactRecord, ArtifactStore, OutboxStats};
use serde::Serialize;
use ts_rs::TS;

pub use bucket::{Bucket, BucketSettings, Uploaded};
pub use audit::{TeamAuditQuery, TeamAuditSource, TeamLogEntry, TeamLogKind};
pub use catalog::{Catalog, TeamArtifact, TeamMember, SCHEMA_VERSION};
pub use error::TeamError;
pub use search::{TextReport, TextSource};
pub use ranged::{RangedReader, RemoteFile};
pub use password::{catalog_password, set_catalog_password, PASSWORD_ENV};

/// This data dir's view of the team store.
pub struct TeamStore {
    local: Arc<ArtifactStore>,
    bucket: Bucket,
    catalog_url: String,
    catalog: tokio::sync::Mutex<Option<Arc<Catalog>>>,
    team: String,
    member: String,
    /// One drain at a time in this process (another process's drain is harmless: every step is
    /// idempotent).
    draining: tokio::sync::Mutex<()>,
    /// The bucket was found to enforce create-only writes (checked once, before the first upload).
    checked: tokio::sync::OnceCell<()>,
    /// The last probe of the bucket, for `status` (at most one probe a minute).
    last_probe: std::sync::Mutex<Option<(std::time::Instant, Option<String>)>>,
    /// `[store] retention_days`: what the app's own retention runs expire.
    retention_days: Option<u32>,
    /// `[store] abandoned_upload_hours`, in milliseconds.
    abandoned_after_ms: i64,
    /// Teammates' files opened for reading by ranges lately, newest first ([`Self::remote`]).
    remote: std::sync::Mutex<Vec<Arc<RemoteFile>>>,
}

/// Files kept open for reading by ranges (each with its own block cache).
const REMOTE_FILES: usize = 4;

/// What one [`TeamStore::sync`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct SyncReport {
    /// Blobs sent to the bucket.
    pub uploaded: u32,
    /// Blobs the bucket had already.
    pub already_there: u32,
    /// Artifacts registered in the catalog (and out of the outbox).
    pub registered: u32,
    /// Audit rows and sampling exchanges written to the team's audit trail (and out of the
    /// outbox).
    pub logged: u32,
    /// Why the drain stopped early, when it did.
    pub error: Option<String>,
}

/// What `store status` says.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct TeamStatus {
    /// The team.
    pub team: String,
    /// Who this member is.
    pub member: String,
    /// `s3://bucket/prefix`.
    pub bucket: String,
    /// Why the bucket is not usable (`None`: it is, and enforces create-only writes).
    pub bucket_error: Option<String>,
    /// `postgres://user@host/db`.
    pub catalog: String,
    /// Why the catalog is not usable.
    pub catalog_error: Option<String>,
    /// The catalog's schema version, when connected.
    pub schema_version: Option<i32>,
    /// What this data dir has not uploaded yet.
    pub backlog: OutboxStats,
}

/// What one [`TeamStore::retention`] run removed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct RetentionReport {
    /// Artifacts past the age limit.
    pub expired: Vec<String>,
    /// Blobs deleted from the bucket.
    pub blobs_deleted: u32,
    /// Unfinished multipart uploads aborted (older than `abandoned_upload_hours`).
    pub uploads_aborted: u32,
    /// Staging copies deleted (older than `abandoned_upload_hours`).
    pub staging_deleted: u32,
    /// Blob reservations past their time dropped.
    pub reservations_dropped: u32,
    /// What this run could not do, in words (a server that does not list unfinished uploads).
    pub warnings: Vec<String>,
}

impl std::fmt::Display for RetentionReport {
    /// What the run removed, in one line (its warnings are not in it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "expired {} artifacts, deleted {} blobs; aborted {} unfinished uploads, deleted {} staging copies, dropped {} expired reservations",
            self.expired.len(),
            self.blobs_deleted,
            self.uploads_aborted,
            self.staging_deleted,
            self.reservations_dropped
        )
    }
}

/// How often the app and the proxy run team retention.
pub const RETENTION_EVERY: std::time::Duration = std::time::Duration::from_secs(6 * 3600);

impl TeamStore {
    /// The team store `settings` describe, in front of `local` (which starts queueing new
    /// artifacts). Nothing is contacted yet: a bucket or catalog that is down does not stop
    /// anything.
    pub fn new(settings: &StoreSettings, member: &str, local: Arc<ArtifactStore>) -> Result<Self, TeamError> {
        if settings.backend != StoreBackend::Team {
            return Err(TeamError::Settings("[store] backend is not \"team\"".into()));
        }
        if let Some(problem) = settings.problems().into_iter().next() {
            return Err(TeamError::Settings(problem));
        }
        let bucket = Bucket::new(&BucketSettings {
            url: settings.s3_url.clone().unwrap_or_default(),
            endpoint: settings.s3_endpoint.clone(),
            region: settings.s3_region.clone(),
        })?;
        local.queue_for_team(true);
        Ok(Self {
            local,
            bucket,
            catalog_url: settings.catalog_url.clone().unwrap_or_default(),
            catalog: tokio::sync::Mutex::new(None),
            team: settings.team.clone().unwrap_or_default(),
            member: member.to_owned(),
            draining: tokio::sync::Mutex::new(()),
            checked: tokio::sync::OnceCell::new(),
            last_probe: std::sync::Mutex::new(None),
            remote: std::sync::Mutex::new(Vec::new()),
            retention_days: settings.retention_days,
            abandoned_after_ms: i64::from(settings.abandoned_upload_hours) * 3_600_000,
        })
    }

    /// The team's name.
    pub fn team(&self) -> &str {
        &self.team
    }

    /// Who this member is.
    pub fn member(&self) -> &str {
        &self.member
    }

    /// The bucket.
    pub fn bucket(&self) -> &Bucket {
        &self.bucket
    }

    /// The local store (cache and outbox). Its calls block (SQLite, fsync, the connection's
    /// lock): from async code, through [`Self::with_local`].
    pub fn local(&self) -> &Arc<ArtifactStore> {
        &self.local
    }

    /// Runs `work` on the local store on tokio's blocking pool, never on the caller's async
    /// worker: SQLite may wait for another process's write lock, a write fsyncs.
    pub async fn with_local<T: Send + 'static>(&self, work: impl FnOnce(&ArtifactStore) -> Result<T, mcp_canvas_store::StoreError> + Send + 'static) -> Result<T, TeamError> {
        let local = self.local.clone();
        Ok(tokio::task::spawn_blocking(move || work(&local)).await??)
    }

    /// How far behind the team store this data dir is.
    pub async fn backlog(&self) -> Result<OutboxStats, TeamError> {
        self.with_local(|local| local.team_backlog()).await
    }

    /// The catalog, connecting (again) when needed.
    pub async fn catalog(&self) -> Result<Arc<Catalog>, TeamError> {
        self.catalog_with(false).await
    }

    async fn catalog_with(&self, upgrade: bool) -> Result<Arc<Catalog>, TeamError> {
        let mut slot = self.catalog.lock().await;
        if let Some(catalog) = slot.as_ref() {
            if !catalog.is_closed().await {
                return Ok(catalog.clone());
            }
        }
        // The keyring is a D-Bus round trip: not on the async worker.
        let url = self.catalog_url.clone();
        let password = tokio::task::spawn_blocking(move || catalog_password(&url)).await?;
        let catalog = Arc::new(Catalog::connect(&self.catalog_url, password.as_deref(), upgrade).await?);
        *slot = Some(catalog.clone());
        Ok(catalog)
    }

    /// Brings an older catalog to this build's schema (`store upgrade`).
    pub async fn upgrade(&self) -> Result<i32, TeamError> {
        self.catalog.lock().await.take();
        self.catalog_with(true).await?.schema_version().await
    }

    /// Uploads and registers what the outbox holds, oldest first, then writes the queued audit
    /// rows and sampling exchanges (`audit.rs`). Stops at the first error that
    /// means the bucket or catalog is unreachable (everything stays queued, in order); an error
    /// of one artifact (its local blob damaged, say) is recorded on it and the drain goes on.
    pub async fn sync(&self, now_ms: i64) -> SyncReport {
        let _one = self.draining.lock().await;
        let mut report = SyncReport::default();
        // Entries that failed stay queued for the next drain; this one goes on past them.
        let mut after = 0;
        loop {
            let queued = match self.with_local(move |local| local.team_queue(after, 64)).await {
                // The artifacts are there: then the audit trail (its rows name them).
                Ok(queued) if queued.is_empty() => {
                    self.sync_log(now_ms.max(wall_clock_ms()), &mut report).await;
                    return report;
                }
                Ok(queued) => queued,
                Err(e) => {
                    report.error = Some(e.to_string());
                    return report;
                }
            };
            for entry in queued {
                after = entry.seq;
                // Each entry's own time: a long drain must not start reservations in the past.
                let now_ms = now_ms.max(wall_clock_ms());
                match self.push(&entry.record, now_ms).await {
                    Ok(uploaded) => {
                        match uploaded {
                            Uploaded::Sent => report.uploaded += 1,
                            Uploaded::AlreadyThere => report.already_there += 1,
                        }
                        let seq = entry.seq;
                        if let Err(e) = self.with_local(move |local| local.team_done(seq)).await {
                            report.error = Some(e.to_string());
                            return report;
                        }
                        report.registered += 1;
                    }
                    Err(e) => {
                        let text = e.to_string();
                        let (seq, failure) = (entry.seq, text.clone());
                        let _ = self.with_local(move |local| local.team_failed(seq, &failure)).await;
                        report.error = Some(text);
                        // The bucket or catalog refused or is away: everything waits, in order.
                        if matches!(e, TeamError::Catalog { .. } | TeamError::Bucket { .. } | TeamError::SchemaTooNew { .. } | TeamError::SchemaTooOld { .. }) {
                            return report;
                        }
                    }
                }
            }
        }
    }

    /// Reserve, upload (unless the bucket has it), register.
    async fn push(&self, record: &ArtifactRecord, now_ms: i64) -> Result<Uploaded, TeamError> {
        self.checked.get_or_try_init(|| self.bucket.check()).await?;
        let catalog = self.catalog().await?;
        let token = catalog.reserve(&record.sha256, record.size, now_ms).await?;
        let path = self.local.blob_path(&record.sha256);
        let pushed = async {
            let uploaded = self.bucket.upload(&record.id, &record.sha256, record.size, &path).await?;
            pause_for_tests().await;
            catalog.uploaded(&record.sha256, now_ms).await?;
            catalog.register(&self.team, &self.member, record, self.bucket.url(), &token, now_ms).await?;
            Ok(uploaded)
        }
        .await;
        if pushed.is_err() {
            let _ = catalog.release(&token).await;
        }
        pushed
    }

    /// Queues every local artifact and drains the outbox (`store migrate`): nothing the team
    /// store has is uploaded or registered twice.
    pub async fn migrate(&self, now_ms: i64) -> Result<(usize, SyncReport), TeamError> {
        let queued = self.with_local(move |local| local.queue_all_for_team(now_ms, fetch::CACHE_SESSION)).await?;
        Ok((queued, self.sync(now_ms).await))
    }

    /// What is connected and how far behind this data dir is.
    pub async fn status(&self) -> Result<TeamStatus, TeamError> {
        let (catalog_error, schema_version) = match self.catalog().await {
            Ok(catalog) => (None, catalog.schema_version().await.ok()),
            Err(e) => (Some(e.to_string()), None),
        };
        let cached = self.last_probe.lock().unwrap().clone().filter(|(at, _)| at.elapsed() < std::time::Duration::from_secs(60));
        let bucket_error = match cached {
            Some((_, error)) => error,
            None => {
                let error = self.bucket.check().await.err().map(|e| e.to_string());
                *self.last_probe.lock().unwrap() = Some((std::time::Instant::now(), error.clone()));
                error
            }
        };
        Ok(TeamStatus {
            team: self.team.clone(),
            member: self.member.clone(),
            bucket: self.bucket.url().to_owned(),
            bucket_error,
            catalog: catalog::shown_url(&self.catalog_url),
            catalog_error,
            schema_version,
            backlog: self.backlog().await?,
        })
    }

    /// The team's artifacts this member may see, newest first.
    pub async fn list(&self, member: Option<&str>, limit: i64, offset: i64) -> Result<Vec<TeamArtifact>, TeamError> {
        self.catalog().await?.list(&self.team, &self.member, member, limit, offset).await
    }

    /// The team's members with how many artifacts each (the browser's filter).
    pub async fn members(&self) -> Result<Vec<TeamMember>, TeamError> {
        self.catalog().await?.members(&self.team, &self.member).await
    }

    /// Makes one of my artifacts private, or shares it again.
    pub async fn set_private(&self, id: &str, private: bool) -> Result<(), TeamError> {
        self.catalog().await?.set_private(&self.team, &self.member, id, private).await
    }

    /// The artifact `id` in the local cache: as it is when there, else fetched from the team
    /// store (streamed from the bucket, hashed, and refused if it does not match the catalog).
    pub async fn open(&self, id: &str, now_ms: i64) -> Result<ArtifactRecord, TeamError> {
        let key = id.to_owned();
        match self.with_local(move |local| local.get(&key)).await {
            Ok(record) => return Ok(record),
            Err(TeamError::Local(mcp_canvas_store::StoreError::NotFound(_))) => {}
            Err(e) => return Err(e),
        }
        let catalog = self.catalog().await?;
        let artifact = catalog.get(&self.team, &self.member, id).await?.ok_or_else(|| TeamError::NotFound(id.to_owned()))?;
        let record = fetch::into_cache(&self.bucket, &self.local, &artifact.record, now_ms).await?;
        // Team retention counts from the last use, anyone's.
        let _ = catalog.touch(&self.team, id, now_ms).await;
        Ok(record)
    }

    /// The team artifact `id` opened for reading by ranges from the bucket, without fetching it
    /// whole (`ranged.rs`): a teammate's PDF shows its first pages while [`Self::open`] fetches
    /// and checks the file, or instead of it. The same file opened again shares its blocks.
    pub async fn remote(&self, id: &str) -> Result<Arc<RemoteFile>, TeamError> {
        if let Some(found) = self.remote_opened(id) {
            return Ok(found);
        }
        let catalog = self.catalog().await?;
        let artifact = catalog.get(&self.team, &self.member, id).await?.ok_or_else(|| TeamError::NotFound(id.to_owned()))?;
        let file = RemoteFile::open(self.bucket.clone(), artifact.record).await?;
        let mut remote = self.remote.lock().unwrap_or_else(|p| p.into_inner());
        remote.retain(|f| f.record().id != file.record().id);
        remote.insert(0, file.clone());
        remote.truncate(REMOTE_FILES);
        Ok(file)
    }

    /// A file [`Self::remote`] opened lately, without contacting anything.
    pub fn remote_opened(&self, id: &str) -> Option<Arc<RemoteFile>> {
        self.remote.lock().unwrap_or_else(|p| p.into_inner()).iter().find(|f| f.record().id == id).cloned()
    }

    /// Forgets a file opened by ranges (it is in the local cache now).
    pub fn forget_remote(&self, id: &str) {
        self.remote.lock().unwrap_or_else(|p| p.into_inner()).retain(|f| f.record().id != id);
    }

    /// `[store] retention_days`.
    pub fn retention_days(&self) -> Option<u32> {
        self.retention_days
    }

    /// Applies team retention (unpinned artifacts unused for `max_age_days`, then blobs nothing
    /// references, then what interrupted uploads left older than `[store]
    /// abandoned_upload_hours`: unfinished multipart uploads, staging copies, reservations past
    /// their time), unless another process is running it (`Ok(None)`).
    pub async fn retention(&self, max_age_days: Option<u32>, now_ms: i64) -> Result<Option<RetentionReport>, TeamError> {
        let catalog = self.catalog().await?;
        let bucket = self.bucket.clone();
        let team = self.team.clone();
        let abandoned_before = now_ms - self.abandoned_after_ms;
        catalog
            .with_retention_lock(&self.team, async move |catalog| {
                let mut report = RetentionReport::default();
                if let Some(days) = max_age_days {
                    report.expired = catalog.expire(&team, now_ms - i64::from(days) * 86_400_000).await?;
                }
                report.reservations_dropped = catalog.drop_expired_reservations(now_ms).await? as u32;
                // An interrupted upload sits at its blob's key: abandoned once no reservation of
                // that blob is younger than the cutoff (`bucket::abandoned`).
                let reserved_since = async |blobs: Vec<String>| catalog.reserved_since(&blobs, abandoned_before).await;
                match bucket.abort_unfinished(abandoned_before, now_ms, reserved_since).await? {
                    Some(aborted) => report.uploads_aborted = aborted,
                    None => report.warnings.push(format!(
                        "{} does not list unfinished multipart uploads (ListMultipartUploads): interrupted uploads there are not aborted; give the bucket a lifecycle rule or clean it with the server's own tools",
                        bucket.url()
                    )),
                }
                report.staging_deleted = bucket.delete_stale_staging(abandoned_before).await?;
                for sha in catalog.orphan_candidates(now_ms).await? {
                    let bucket = bucket.clone();
                    let sha_for_delete = sha.clone();
                    if catalog.delete_orphan(&sha, now_ms, async move || bucket.delete(&sha_for_delete).await).await? {
                        report.blobs_deleted += 1;
                    }
                }
                Ok(report)
            })
            .await
    }
}

fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// `MCP_CANVAS_TEAM_TEST_PAUSE_MS`: a pause between the upload and the registration, so the
/// race tests can widen the window retention would need to lose a blob (unset: none).
async fn pause_for_tests() {
    static PAUSE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    if let Some(ms) = *PAUSE.get_or_init(|| std::env::var("MCP_CANVAS_TEAM_TEST_PAUSE_MS").ok().and_then(|v| v.parse().ok())) {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The local store's SQLite work runs on the blocking pool, never on the async worker of the
    /// drain: on a single-threaded runtime, with another connection holding the catalog's write
    /// lock until a task on that same runtime lets go, queueing everything (`store migrate`)
    /// waits for the lock and then succeeds. Done on the worker, it would wait out SQLite's busy
    /// timeout while the task that holds the lock cannot run, and fail ("database is locked").
    #[test]
    fn outbox_writes_wait_for_sqlite_off_the_async_worker() {
        let dir = tempfile::tempdir().unwrap();
        let local = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        let settings = StoreSettings {
            backend: StoreBackend::Team,
            s3_url: Some("s3://bucket/prefix".into()),
            s3_endpoint: Some("http://127.0.0.1:9".into()),
            s3_region: Some("us-east-1".into()),
            catalog_url: Some("postgres://me@127.0.0.1:9/team".into()),
            team: Some("team".into()),
            ..StoreSettings::default()
        };
        let team = TeamStore::new(&settings, "me", local).unwrap();
        let other_process = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
        other_process.execute_batch("BEGIN IMMEDIATE").unwrap();

        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (migrated, ()) = runtime.block_on(async {
            // Nothing is queued: the drain that follows contacts neither bucket nor catalog.
            tokio::join!(team.migrate(1), async { other_process.execute_batch("COMMIT").unwrap() })
        });
        let (queued, report) = migrated.expect("the outbox was written once the other writer let go");
        assert_eq!((queued, report), (0, SyncReport::default()));
    }
}
