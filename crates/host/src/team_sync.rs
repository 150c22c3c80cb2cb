//! With `[store] backend = "team"`: draining this data dir's outbox into the team's bucket and
//! catalog, off the call path. A call that stored artifacts kicks a drain ([`TeamSync::kick`]);
//! drains are coalesced like housekeeping's (one running, one waiting). Front ends that live long
//! (the app, the proxy) also start [`TeamSync::keep_trying`], which retries a backlog every
//! [`RETRY`] while the bucket or catalog is away. A one-shot CLI command waits for its drain at
//! shutdown, for at most [`SHUTDOWN_WAIT`]; what is left stays queued for the next process.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use mcp_canvas_team::TeamStore;

use crate::{Host, HostError};

/// How often a long-running front end retries a backlog.
pub const RETRY: Duration = Duration::from_secs(15);

/// How long a one-shot command waits for its uploads before exiting.
pub const SHUTDOWN_WAIT: Duration = Duration::from_secs(60);

pub(crate) struct TeamSync {
    team: Arc<TeamStore>,
    state: Arc<Mutex<State>>,
    worker: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

#[derive(Default)]
struct State {
    running: bool,
    again: bool,
    /// Why the last drain stopped early, when it did.
    last_error: Option<String>,
}

impl TeamSync {
    pub fn new(team: Arc<TeamStore>) -> Self {
        Self { team, state: Arc::default(), worker: Mutex::new(None) }
    }

    pub fn team(&self) -> &Arc<TeamStore> {
        &self.team
    }

    /// Drain soon, in the background.
    pub fn kick(&self) {
        {
            let mut state = self.state.lock().unwrap();
            if state.running {
                state.again = true;
                return;
            }
            state.running = true;
        }
        let (team, state) = (self.team.clone(), self.state.clone());
        let work = async move {
            loop {
                let report = team.sync(crate::host::Host::now_ms()).await;
                state.lock().unwrap().last_error = report.error.clone();
                if let Some(error) = &report.error {
                    tracing::warn!("team store: {error}");
                } else if let Err(e) = team.index_text(Arc::new(crate::search::Extractor), crate::host::Host::now_ms()).await {
                    tracing::warn!("team store: writing artifacts' text for the team's search: {e}");
                }
                let mut state = state.lock().unwrap();
                if !std::mem::take(&mut state.again) {
                    state.running = false;
                    return;
                }
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => *self.worker.lock().unwrap() = Some(runtime.spawn(work)),
            Err(_) => self.state.lock().unwrap().running = false,
        }
    }

    /// Waits for the running drain, at most `limit`. When this process drained and something
    /// stays queued (the bucket or catalog refused or is away, or `limit` passed), says so: what
    /// it is waiting for, and that the next command or `store sync` sends it.
    pub async fn flush(&self, limit: Duration) -> Option<String> {
        let worker = self.worker.lock().unwrap().take()?;
        let next = "they stay queued here and go up with the next command, or now with `mcp-canvas-cli store sync`";
        if tokio::time::timeout(limit, worker).await.is_err() {
            let waiting = self.team.backlog().await.map(|b| b.count).unwrap_or(0);
            return Some(format!("team store: still uploading after {} s; {waiting} artifacts not sent yet: {next}", limit.as_secs()));
        }
        let error = self.state.lock().unwrap().last_error.clone()?;
        let waiting = self.team.backlog().await.map(|b| b.count).unwrap_or(0);
        (waiting > 0).then(|| format!("team store: {error}\n{waiting} artifacts not sent to the team store: {next}"))
    }

    /// Runs team retention ([`mcp_canvas_team::TeamStore::retention`] with `[store]
    /// retention_days`) every [`mcp_canvas_team::RETENTION_EVERY`], the first a minute after
    /// start, for as long as the runtime runs. Every member's app and proxy do; the catalog's
    /// advisory lock lets one process of the team at a time run it (the others skip that round).
    /// `MCP_CANVAS_TEAM_RETENTION_EVERY_SECS` sets both waits (tests).
    pub fn keep_retention(self: &Arc<Self>) {
        let every = std::env::var("MCP_CANVAS_TEAM_RETENTION_EVERY_SECS").ok().and_then(|v| v.parse().ok()).map(Duration::from_secs);
        let (first, then) = every.map_or((Duration::from_secs(60), mcp_canvas_team::RETENTION_EVERY), |e| (e, e));
        let this = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut wait = first;
            loop {
                tokio::time::sleep(wait).await;
                wait = then;
                let Some(team) = this.upgrade().map(|this| this.team.clone()) else { return };
                match team.retention(team.retention_days(), crate::host::Host::now_ms()).await {
                    Ok(Some(report)) => {
                        tracing::info!("team retention: {report}");
                        for warning in &report.warnings {
                            tracing::warn!("team retention: {warning}");
                        }
                    }
                    Ok(None) => tracing::debug!("team retention: another process of the team is running it"),
                    Err(e) => tracing::warn!("team retention: {e}"),
                }
            }
        });
    }

    /// Retries a backlog every [`RETRY`] for as long as the runtime runs.
    pub fn keep_trying(self: &Arc<Self>) {
        let this = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(RETRY).await;
                let Some(this) = this.upgrade() else { return };
                if this.team.backlog().await.is_ok_and(|b| b.count > 0 || b.records > 0) {
                    this.kick();
                }
            }
        });
    }
}

/// The team store as the front ends reach it.
impl Host {
    /// The team store, with `[store] backend = "team"`.
    pub fn team(&self) -> Result<&Arc<mcp_canvas_team::TeamStore>, HostError> {
        self.housekeeping.team().map(|sync| sync.team()).ok_or(HostError::NoTeamStore)
    }

    /// Drains the outbox now, then writes the text of this member's team artifacts the team's
    /// search lacks; returns what the drain did (`store sync`).
    pub async fn team_sync_now(&self) -> Result<mcp_canvas_team::SyncReport, HostError> {
        let team = self.team()?;
        let mut report = team.sync(Host::now_ms()).await;
        if report.error.is_none() {
            if let Err(e) = team.index_text(Arc::new(crate::search::Extractor), Host::now_ms()).await {
                report.error = Some(format!("writing artifacts' text for the team's search: {e}"));
            }
        }
        Ok(report)
    }

    /// The team's audit trail this member may see: every member's calls and sampling
    /// exchanges, newest first (a call naming a teammate's private artifact is not there).
    pub async fn team_audit(&self, query: &mcp_canvas_team::TeamAuditQuery) -> Result<Vec<mcp_canvas_team::TeamLogEntry>, HostError> {
        Ok(self.team()?.audit(query).await?)
    }

    /// The members, servers and tools in the team's audit trail this member may see.
    pub async fn team_audit_sources(&self) -> Result<Vec<mcp_canvas_team::TeamAuditSource>, HostError> {
        Ok(self.team()?.audit_sources().await?)
    }

    /// Full-text search over the team's artifacts this member may see (their text is written
    /// by the members who hold them, after each drain).
    pub async fn team_search(&self, query: &mcp_canvas_store::SearchQuery) -> Result<Vec<mcp_canvas_store::SearchHit>, HostError> {
        Ok(self.team()?.search(query).await?)
    }

    /// Long-running front ends (the app, the proxy): drain what is queued now, retry a backlog
    /// while the team store is away, and run team retention now and then
    /// ([`TeamSync::keep_retention`]). Does nothing with a local store.
    pub fn keep_team_store_in_sync(&self) {
        if let Some(sync) = self.housekeeping.team() {
            sync.kick();
            sync.keep_trying();
            sync.keep_retention();
        }
    }

    /// A teammate's PDF this data dir does not have, opened for reading by ranges so its first
    /// pages show at once (the window's `artifact:` views read it through
    /// [`Self::team_remote_opened`]); the whole file is fetched into the cache in the background,
    /// checked against its SHA-256, and read from there once it is. `None`: nothing to do that
    /// way (no team store, the file is here, or it is not a PDF): [`Self::ensure_local`] it.
    pub async fn open_by_ranges(&self, id: &str) -> Result<Option<mcp_canvas_store::ArtifactRecord>, HostError> {
        // Opened again while its fetch runs (or after it failed: its pages still read by ranges,
        // and what needs the whole file fetches it): no second fetch.
        if let Some(file) = self.team_remote_opened(id) {
            return Ok(Some(file.record().clone()));
        }
        let Some(file) = self.team_remote_pdf(id).await? else { return Ok(None) };
        let Some(sync) = self.housekeeping.team() else { return Ok(None) };
        let team = sync.team().clone();
        let record = file.record().clone();
        let id = record.id.clone();
        tokio::spawn(async move {
            match team.open(&id, Host::now_ms()).await {
                Ok(_) => team.forget_remote(&id),
                Err(e) => tracing::warn!("team store: fetching {id} into the cache (its pages are read by ranges meanwhile): {e}"),
            }
        });
        Ok(Some(record))
    }

    /// A teammate's PDF this data dir does not have, opened for reading by ranges (nothing is
    /// fetched whole: `preview` renders a page of it that way). `None`: no team store, the file
    /// is here, or it is not a PDF.
    pub async fn team_remote_pdf(&self, id: &str) -> Result<Option<std::sync::Arc<mcp_canvas_team::RemoteFile>>, HostError> {
        let Some(sync) = self.housekeeping.team() else { return Ok(None) };
        let (store, key) = (self.store().clone(), id.to_owned());
        match tokio::task::spawn_blocking(move || store.get(&key)).await? {
            Ok(_) => return Ok(None),
            Err(mcp_canvas_store::StoreError::NotFound(_)) => {}
            Err(source) => return Err(HostError::Storage { context: "the artifact store".into(), source }),
        }
        let file = sync.team().remote(id).await?;
        Ok((file.record().mime == "application/pdf").then_some(file))
    }

    /// A teammate's file [`Self::open_by_ranges`] opened, while it is not in the local cache.
    pub fn team_remote_opened(&self, id: &str) -> Option<std::sync::Arc<mcp_canvas_team::RemoteFile>> {
        self.housekeeping.team()?.team().remote_opened(id)
    }

    /// The artifact `id` in the local store: as it is, or fetched from the team store into the
    /// cache when this data dir does not have it (a teammate's, or evicted here).
    pub async fn ensure_local(&self, id: &str) -> Result<mcp_canvas_store::ArtifactRecord, HostError> {
        match self.housekeeping.team() {
            Some(sync) => Ok(sync.team().open(id, Host::now_ms()).await?),
            None => {
                let (store, id) = (self.store().clone(), id.to_owned());
                tokio::task::spawn_blocking(move || store.get(&id)).await?.map_err(|source| HostError::Storage { context: "the artifact store".into(), source })
            }
        }
    }
}
