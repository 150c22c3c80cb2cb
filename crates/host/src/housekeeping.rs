//! Work off the call path: keeping the store within its quota and age limit, and (for the
//! proxy) writing calls' audit rows after their answers went out ([`AuditRows`]).
//!
//! A call that stored artifacts asks for a run ([`Housekeeping::after_store`]); runs are
//! coalesced (at most one running and one waiting, however many calls finish meanwhile) and
//! happen on a blocking thread. A run evicts by the catalog and deletes only the evicted blobs;
//! walking the whole blob directory (`ArtifactStore::gc`) is left to the app's start and
//! `mcp-canvas-cli artifacts gc`. [`Housekeeping::flush`] waits for a pending run (the CLI's
//! one-shot commands call it through `Host::shutdown`).

use std::sync::{Arc, Mutex, RwLock};

use mcp_canvas_store::ArtifactStore;

use mcp_canvas_config::settings::Settings;

pub(crate) struct Housekeeping {
    store: Arc<ArtifactStore>,
    settings: Arc<RwLock<Arc<Settings>>>,
    state: Arc<Mutex<State>>,
    /// The worker, while one runs.
    worker: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Uploads to the team store, when `[store] backend = "team"`.
    team: Option<Arc<crate::team_sync::TeamSync>>,
    /// Audit rows written without waiting (dashboards, apps), by one writer in order.
    background_audit: BackgroundAudit,
    /// The search indexer, woken after each store (when it runs in this process).
    search: Mutex<Option<Arc<crate::search::Search>>>,
}

#[derive(Default)]
struct State {
    /// A worker is running (it runs again before stopping when `again` is set).
    running: bool,
    /// Artifacts were stored after the worker's current run began.
    again: bool,
}

impl Housekeeping {
    pub fn new(store: Arc<ArtifactStore>, settings: Arc<RwLock<Arc<Settings>>>) -> Self {
        let background_audit = BackgroundAudit::new(store.clone());
        Self { store, settings, state: Arc::default(), worker: Mutex::new(None), team: None, background_audit, search: Mutex::new(None) }
    }

    /// Also drains the team outbox after each store.
    pub fn with_team(mut self, team: Arc<crate::team_sync::TeamSync>) -> Self {
        self.team = Some(team);
        self
    }

    pub fn team(&self) -> Option<&Arc<crate::team_sync::TeamSync>> {
        self.team.as_ref()
    }

    /// Wakes `search`'s indexer after each store.
    pub fn set_search(&self, search: Arc<crate::search::Search>) {
        *self.search.lock().unwrap() = Some(search);
    }

    /// The writer of audit rows nobody waits for ([`crate::audit::in_background`]).
    pub fn background_audit(&self) -> &BackgroundAudit {
        &self.background_audit
    }

    /// An audit row (and maybe sampling exchanges) was written: with a team store, drain soon,
    /// in the background (they reach the team's audit trail off the call path).
    pub fn after_log(&self) {
        if let Some(team) = &self.team {
            team.kick();
        }
    }

    /// Artifacts were stored: apply the limits soon, in the background. At most one worker runs;
    /// a request while it runs makes it run once more, so none is lost and none piles up.
    pub fn after_store(&self) {
        if let Some(team) = &self.team {
            team.kick();
        }
        if let Some(search) = self.search.lock().unwrap().as_ref() {
            search.wake();
        }
        {
            let mut state = self.state.lock().unwrap();
            if state.running {
                state.again = true;
                return;
            }
            state.running = true;
        }
        let (store, settings, state) = (self.store.clone(), self.settings.clone(), self.state.clone());
        let work = move || loop {
            let limits = limits(&settings.read().unwrap());
            if let Err(e) = store.enforce(&limits, crate::host::Host::now_ms()) {
                tracing::warn!("applying the artifact quota failed: {e}");
            }
            let mut state = state.lock().unwrap();
            if !std::mem::take(&mut state.again) {
                state.running = false;
                return;
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => *self.worker.lock().unwrap() = Some(runtime.spawn_blocking(work)),
            Err(_) => work(),
        }
    }

    /// Waits until no worker runs and the background audit rows queued so far are written (and
    /// the team drain, at most [`crate::team_sync::SHUTDOWN_WAIT`]); says what stays queued for
    /// the team store, if anything does.
    pub async fn flush(&self) -> Option<String> {
        let worker = self.worker.lock().unwrap().take();
        if let Some(worker) = worker {
            let _ = worker.await;
        }
        self.background_audit.flush().await;
        if let Some(team) = &self.team {
            // Rows written without a kick (the proxy's batches, dashboards, sampling) go too; a
            // command that queued nothing contacts nothing.
            if team.team().backlog().await.is_ok_and(|b| b.records > 0) {
                team.kick();
            }
            return team.flush(crate::team_sync::SHUTDOWN_WAIT).await;
        }
        None
    }
}

/// The local store's limits: `[artifacts]`, except that with a team store the quota is the
/// cache's (`[store] cache_quota_bytes`; queued uploads are never evicted whatever it says).
pub(crate) fn limits(settings: &Settings) -> mcp_canvas_store::Limits {
    let mut limits = settings.artifacts.clone();
    if settings.store.backend == mcp_canvas_config::settings::StoreBackend::Team {
        limits.quota_bytes = settings.store.cache_quota_bytes;
    }
    limits
}

/// Audit rows written after the call answered, [`BATCH`] later and together (the proxy: an AI
/// host waits for each answer, and a row costs a SQLite write with the write lock another process
/// may hold — one transaction for the rows of calls that come within [`BATCH`] of each other
/// instead of one per call, and one blocking thread woken per batch instead of per call).
/// Written in the order they came, on a blocking thread.
/// [`AuditRows::flush`] writes what is queued at once and waits for it (`Host::shutdown`). Not
/// used where a front end reads the log right after its own call (the app, the CLI's `call`).
#[derive(Default)]
pub(crate) struct AuditRows {
    queue: Arc<Mutex<RowQueue>>,
    /// Cuts the worker's wait short.
    hurry: Arc<tokio::sync::Notify>,
    worker: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// With a team store: kicked after each batch (its rows go to the team's audit trail).
    team: Option<Arc<crate::team_sync::TeamSync>>,
    /// Batches written (each one transaction), for the tests to see the batching.
    #[cfg(test)]
    batches: Arc<std::sync::atomic::AtomicUsize>,
}

/// How long queued rows wait for more before they are written.
pub(crate) const BATCH: std::time::Duration = std::time::Duration::from_millis(20);

#[derive(Default)]
struct RowQueue {
    rows: Vec<mcp_canvas_store::AuditRecord>,
    running: bool,
}

impl AuditRows {
    /// Rows kicking `team`'s drain after each batch (with a team store).
    pub fn new(team: Option<Arc<crate::team_sync::TeamSync>>) -> Self {
        Self { team, ..Default::default() }
    }

    /// Queues `record`; a worker writes it [`BATCH`] later (with the rows queued meanwhile).
    pub fn push(&self, store: &Arc<ArtifactStore>, record: mcp_canvas_store::AuditRecord) {
        {
            let mut queue = self.queue.lock().unwrap();
            queue.rows.push(record);
            if queue.running {
                return;
            }
            queue.running = true;
        }
        let (store, queue, hurry, team) = (store.clone(), self.queue.clone(), self.hurry.clone(), self.team.clone());
        // The rows queued so far, or `None` (and no longer running) when there are none.
        let take = move || {
            let mut queue = queue.lock().unwrap();
            let rows = std::mem::take(&mut queue.rows);
            queue.running = !rows.is_empty();
            queue.running.then_some(rows)
        };
        #[cfg(test)]
        let batches = self.batches.clone();
        let write = move |rows: Vec<mcp_canvas_store::AuditRecord>| {
            #[cfg(test)]
            batches.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            write_rows(&store, &rows);
            if let Some(team) = &team {
                team.kick();
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let worker = runtime.spawn(async move {
                    tokio::select! {
                        () = tokio::time::sleep(BATCH) => {}
                        () = hurry.notified() => {}
                    }
                    // Rows queued while a batch is written go next, without waiting again.
                    while let Some(rows) = take() {
                        let write = write.clone();
                        // Should writing panic, those rows are lost but the queue goes on.
                        let _ = tokio::task::spawn_blocking(move || write(rows)).await;
                    }
                });
                // A finished worker's handle; nothing to wait for.
                drop(self.worker.lock().unwrap().replace(worker));
            }
            Err(_) => {
                while let Some(rows) = take() {
                    write(rows);
                }
            }
        }
    }

    /// Writes every queued row now and waits until they are written.
    pub async fn flush(&self) {
        loop {
            let worker = self.worker.lock().unwrap().take();
            match worker {
                Some(worker) => {
                    // Wakes a worker waiting out its batch (no permit is left for a later one;
                    // a worker not waiting yet writes after its batch as usual).
                    self.hurry.notify_waiters();
                    let _ = worker.await;
                }
                None if !self.queue.lock().unwrap().running => return,
                // A worker is being started by `push` right now.
                None => tokio::task::yield_now().await,
            }
        }
    }
}

/// Writes `rows` in one transaction; should that fail (it was rolled back), each row on its own,
/// so one bad row loses only itself.
fn write_rows(store: &ArtifactStore, rows: &[mcp_canvas_store::AuditRecord]) {
    if store.audit_all(rows).is_err() {
        for row in rows {
            if let Err(e) = store.audit(row) {
                tracing::warn!("writing the audit row of call {} failed: {e}", row.call_id);
            }
        }
    }
}

/// Audit rows nobody waits for (dashboard events from the window's thread, apps' actions): sent
/// over a channel to one writer thread, which writes them in the order they were sent (the rows
/// that came meanwhile in one transaction). Callable from any thread, with or without a runtime.
/// [`BackgroundAudit::flush`] waits until the rows sent before it are written
/// (`Host::shutdown`, through [`Housekeeping::flush`]). The thread starts with the first row and
/// ends when this is dropped, after writing what it was sent.
pub(crate) struct BackgroundAudit {
    store: Arc<ArtifactStore>,
    sender: Mutex<Option<std::sync::mpsc::Sender<AuditJob>>>,
}

enum AuditJob {
    Row(mcp_canvas_store::AuditRecord),
    /// Answered once the rows sent before it are written.
    Flush(tokio::sync::oneshot::Sender<()>),
}

impl BackgroundAudit {
    pub fn new(store: Arc<ArtifactStore>) -> Self {
        Self { store, sender: Mutex::new(None) }
    }

    /// Queues `record` for the writer; never waits for SQLite.
    pub fn push(&self, record: mcp_canvas_store::AuditRecord) {
        let mut sender = self.sender.lock().unwrap();
        let mut job = AuditJob::Row(record);
        if let Some(tx) = sender.as_ref() {
            match tx.send(job) {
                Ok(()) => return,
                // The writer is gone (it panicked): a new one takes over.
                Err(std::sync::mpsc::SendError(back)) => job = back,
            }
        }
        let tx = self.start_writer();
        let _ = tx.send(job);
        *sender = Some(tx);
    }

    fn start_writer(&self) -> std::sync::mpsc::Sender<AuditJob> {
        let (tx, rx) = std::sync::mpsc::channel::<AuditJob>();
        let store = self.store.clone();
        let run = move || {
            while let Ok(first) = rx.recv() {
                let (mut rows, mut flushes) = (Vec::new(), Vec::new());
                let mut job = Some(first);
                while let Some(next) = job.take() {
                    match next {
                        AuditJob::Row(row) => rows.push(row),
                        AuditJob::Flush(done) => flushes.push(done),
                    }
                    job = rx.try_recv().ok();
                }
                if !rows.is_empty() {
                    write_rows(&store, &rows);
                }
                for done in flushes {
                    let _ = done.send(());
                }
            }
        };
        if let Err(e) = std::thread::Builder::new().name("audit-writer".into()).spawn(run) {
            tracing::error!("cannot start the audit writer: {e}; background audit rows are lost");
        }
        tx
    }

    /// Waits until every row queued before this call is written.
    pub async fn flush(&self) {
        let (done, written) = tokio::sync::oneshot::channel();
        let sent = self.sender.lock().unwrap().as_ref().is_some_and(|tx| tx.send(AuditJob::Flush(done)).is_ok());
        if sent {
            let _ = written.await;
        }
    }
}

#[cfg(test)]
mod background_audit {
    use super::*;

    fn record(n: usize) -> mcp_canvas_store::AuditRecord {
        mcp_canvas_store::AuditRecord {
            call_id: format!("row-{n}"),
            session_id: "s".into(),
            server: "mcp-canvas".into(),
            tool: "dashboard:open".into(),
            arguments: serde_json::json!({}),
            identity: None,
            started_ms: 0,
            duration_ms: 0,
            outcome: "ok".into(),
            detail: None,
            artifact_ids: Vec::new(),
            result_text: None,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rows_sent_from_a_thread_without_a_runtime_are_all_written_in_order_by_flush() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        let housekeeping = Arc::new(Housekeeping::new(store.clone(), Arc::new(RwLock::new(Arc::new(Settings::default())))));
        let sender = housekeeping.clone();
        // The window's thread: no runtime.
        std::thread::spawn(move || {
            assert!(tokio::runtime::Handle::try_current().is_err());
            for n in 0..300 {
                sender.background_audit().push(record(n));
            }
        })
        .join()
        .unwrap();
        // What `Host::shutdown` waits for.
        housekeeping.flush().await;
        let log = store.audit_log(1000).unwrap();
        assert_eq!(log.len(), 300, "every row is written");
        // Newest first: the rows were written in the order they were sent (same timestamps, so
        // the log's order is the insertion order).
        let ids: Vec<String> = log.iter().rev().map(|r| r.call_id.clone()).collect();
        let sent: Vec<String> = (0..300).map(|n| format!("row-{n}")).collect();
        assert_eq!(ids, sent);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn flush_with_nothing_sent_returns_and_rows_after_a_flush_are_written_by_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        let audit = BackgroundAudit::new(store.clone());
        audit.flush().await;
        audit.push(record(0));
        audit.flush().await;
        assert_eq!(store.audit_log(10).unwrap().len(), 1);
        audit.push(record(1));
        audit.push(record(2));
        audit.flush().await;
        let log = store.audit_log(10).unwrap();
        assert_eq!(log.iter().map(|r| r.call_id.as_str()).collect::<Vec<_>>(), ["row-2", "row-1", "row-0"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stores_meanwhile_run_the_worker_again_and_flush_waits_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        let mut settings = Settings::default();
        settings.artifacts.quota_bytes = 1000;
        let housekeeping = Housekeeping::new(store.clone(), Arc::new(RwLock::new(Arc::new(settings))));
        for i in 0..20u8 {
            let new = mcp_canvas_store::NewArtifact {
                name: "a.bin",
                mime: "application/octet-stream",
                server: "s",
                tool: "t",
                call_id: "c",
                session_id: "x",
                description: None,
                persistence: mcp_canvas_store::Persistence::Session,
                now_ms: i64::from(i),
            };
            store.put(new, &[i; 400][..]).unwrap();
            housekeeping.after_store();
        }
        housekeeping.flush().await;
        assert!(!housekeeping.state.lock().unwrap().running, "no worker left running after flush");
        assert!(store.total_bytes().unwrap() <= 1000, "the quota was applied after the last store: {} bytes", store.total_bytes().unwrap());
        assert!(store.verify().unwrap().is_clean(), "evicted blobs are gone with their rows");
    }
}

#[cfg(test)]
mod audit_rows {
    use super::*;

    fn record(n: usize) -> mcp_canvas_store::AuditRecord {
        mcp_canvas_store::AuditRecord {
            call_id: format!("call-{n}"),
            session_id: "s".into(),
            server: "demo".into(),
            tool: "echo".into(),
            arguments: serde_json::json!({}),
            identity: None,
            started_ms: n as i64,
            duration_ms: 1,
            outcome: "ok".into(),
            detail: None,
            artifact_ids: Vec::new(),
            result_text: None,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn queued_rows_are_all_written_in_order_by_the_time_flush_returns() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        let rows = AuditRows::default();
        for n in 0..200 {
            rows.push(&store, record(n));
        }
        rows.flush().await;
        let log = store.audit_log(500).unwrap();
        assert_eq!(log.len(), 200);
        // Newest first.
        assert_eq!(log.first().unwrap().call_id, "call-199");
        assert_eq!(log.last().unwrap().call_id, "call-0");
    }

    /// One thread: the worker cannot run between the pushes, so all of them are one batch.
    #[tokio::test(flavor = "current_thread")]
    async fn rows_pushed_together_are_written_in_one_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        let rows = AuditRows::default();
        for n in 0..100 {
            rows.push(&store, record(n));
        }
        rows.flush().await;
        assert_eq!(store.audit_log(500).unwrap().len(), 100);
        assert_eq!(rows.batches.load(std::sync::atomic::Ordering::SeqCst), 1, "one batch, one transaction");
        rows.push(&store, record(100));
        rows.flush().await;
        assert_eq!(rows.batches.load(std::sync::atomic::Ordering::SeqCst), 2, "a later row is a batch of its own");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rows_are_written_without_a_flush_and_later_ones_start_a_new_batch() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        let rows = AuditRows::default();
        let written = |n: usize| {
            let store = store.clone();
            async move {
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
                while store.audit_log(500).unwrap().len() < n {
                    assert!(std::time::Instant::now() < deadline, "{n} row(s) written without a flush");
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                }
            }
        };
        rows.push(&store, record(0));
        written(1).await;
        // The first worker is done: the next row starts another.
        while rows.queue.lock().unwrap().running {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        for n in 1..50 {
            rows.push(&store, record(n));
        }
        written(50).await;
        assert_eq!(store.audit_log(1).unwrap()[0].call_id, "call-49");
    }
}
