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

use mcp_canvas_team::{SyncReport, TeamStore};

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
    last: Option<SyncReport>,
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
                if let Some(error) = &report.error {
                    tracing::warn!("team store: {error}");
                }
                let mut state = state.lock().unwrap();
                state.last = Some(report);
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

    /// What the last drain did.
    pub fn last(&self) -> Option<SyncReport> {
        self.state.lock().unwrap().last.clone()
    }

    /// Waits for the running drain, at most `limit`.
    pub async fn flush(&self, limit: Duration) {
        let worker = self.worker.lock().unwrap().take();
        if let Some(worker) = worker {
            let _ = tokio::time::timeout(limit, worker).await;
        }
    }

    /// Retries a backlog every [`RETRY`] for as long as the runtime runs.
    pub fn keep_trying(self: &Arc<Self>) {
        let this = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(RETRY).await;
                let Some(this) = this.upgrade() else { return };
                if this.team.local().team_backlog().is_ok_and(|b| b.count > 0) {
                    this.kick();
                }
            }
        });
    }
}
