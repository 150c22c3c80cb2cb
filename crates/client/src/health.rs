//! Each server's health: whether it runs, how often it failed in a row, and how long the next
//! start waits. A server that exits is started again by the next use; one that keeps failing
//! waits longer each time (1, 2, 4, … 30 s), so a crash loop neither spins nor floods its log.
//! A server that stayed up for a minute before exiting counts as recovered: it restarts at once.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The longest wait before a start.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Up this long, a server that then exits starts again at once (it had recovered).
const RECOVERED_AFTER: Duration = Duration::from_secs(60);

/// Where a server stands, as the window shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ServerState {
    /// Not used yet in this run (servers start on first use).
    NotStarted,
    /// Connected.
    Running,
    /// It was running and its connection closed (the process exited or crashed); the next use
    /// starts it again.
    Exited,
    /// The last start failed.
    Failed,
    /// The user stopped it; the next use starts it again.
    Stopped,
}

/// A server's status (the app's server list, `mcp-canvas-cli servers status`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ServerStatus {
    /// The server's configured name.
    pub server: String,
    /// Where it stands.
    pub state: ServerState,
    /// Failures in a row (exits and failed starts) since it last ran for a while.
    pub failures: u32,
    /// The last failure, in words.
    pub last_error: Option<String>,
    /// Seconds the next start will wait (0 when it starts at once).
    pub next_start_wait_s: u32,
    /// Its log file (stderr and MCP log messages).
    pub log: String,
}

/// What the host remembers about one server between connections.
#[derive(Debug, Default)]
pub struct Health {
    failures: u32,
    last_failure: Option<Instant>,
    last_error: Option<String>,
    connected_at: Option<Instant>,
    started_once: bool,
    stopped: bool,
}

impl Health {
    /// How long a start must still wait at `now`.
    pub fn wait(&self, now: Instant) -> Duration {
        let Some(at) = self.last_failure else { return Duration::ZERO };
        backoff(self.failures).saturating_sub(now.saturating_duration_since(at))
    }

    /// The connection was found closed (the server exited).
    pub fn lost(&mut self, now: Instant, reason: &str) {
        let recovered = self.connected_at.is_some_and(|at| now.saturating_duration_since(at) >= RECOVERED_AFTER);
        self.failures = if recovered { 1 } else { self.failures + 1 };
        self.last_failure = Some(now);
        self.last_error = Some(reason.to_owned());
        self.connected_at = None;
    }

    /// A start failed.
    pub fn failed(&mut self, now: Instant, reason: &str) {
        self.failures += 1;
        self.last_failure = Some(now);
        self.last_error = Some(reason.to_owned());
        self.connected_at = None;
        self.started_once = true;
    }

    /// A start succeeded.
    pub fn connected(&mut self, now: Instant) {
        self.connected_at = Some(now);
        self.stopped = false;
        self.started_once = true;
    }

    /// The user stopped it.
    pub fn stopped(&mut self) {
        self.stopped = true;
        self.connected_at = None;
    }

    /// Forget the failures (the user restarted it).
    pub fn reset(&mut self) {
        self.failures = 0;
        self.last_failure = None;
    }

    /// The status, given whether a live connection exists (`Some(true)`), a closed one
    /// (`Some(false)`) or none.
    pub fn status(&self, server: &str, live: Option<bool>, log: String, now: Instant) -> ServerStatus {
        let state = match live {
            Some(true) => ServerState::Running,
            Some(false) => ServerState::Exited,
            None if self.stopped => ServerState::Stopped,
            None if self.last_error.is_some() && self.connected_at.is_none() && self.started_once => ServerState::Failed,
            None => ServerState::NotStarted,
        };
        ServerStatus {
            server: server.to_owned(),
            state,
            failures: self.failures,
            last_error: self.last_error.clone(),
            next_start_wait_s: self.wait(now).as_secs_f64().ceil() as u32,
            log,
        }
    }
}

/// The wait before the start after `failures` failures in a row: none for the first restart,
/// then 1, 2, 4, 8, 16, 30, 30 … seconds.
pub(crate) fn backoff(failures: u32) -> Duration {
    match failures {
        0 | 1 => Duration::ZERO,
        n => Duration::from_secs(1u64 << (n - 2).min(5)).min(MAX_BACKOFF),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_a_ceiling() {
        let waits: Vec<u64> = (0..9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(waits, [0, 0, 1, 2, 4, 8, 16, 30, 30]);
    }

    #[test]
    fn a_crash_loop_waits_longer_and_a_recovered_server_starts_at_once() {
        let t0 = Instant::now();
        let mut health = Health::default();
        health.connected(t0);
        health.lost(t0 + Duration::from_secs(1), "exited");
        assert_eq!(health.wait(t0 + Duration::from_secs(1)), Duration::ZERO, "the first restart is immediate");
        health.failed(t0 + Duration::from_secs(2), "handshake failed");
        assert_eq!(health.wait(t0 + Duration::from_secs(2)), Duration::from_secs(1));
        assert_eq!(health.wait(t0 + Duration::from_millis(2500)), Duration::from_millis(500));
        health.failed(t0 + Duration::from_secs(4), "handshake failed");
        assert_eq!(health.wait(t0 + Duration::from_secs(4)), Duration::from_secs(2));
        let status = health.status("s", None, "log".into(), t0 + Duration::from_secs(4));
        assert_eq!((status.state, status.failures, status.next_start_wait_s), (ServerState::Failed, 3, 2));
        assert_eq!(status.last_error.as_deref(), Some("handshake failed"));

        // Up for a while, then an exit: counted as the first failure again.
        health.connected(t0 + Duration::from_secs(10));
        health.lost(t0 + Duration::from_secs(100), "exited");
        assert_eq!(health.wait(t0 + Duration::from_secs(100)), Duration::ZERO);
        assert_eq!(health.status("s", Some(false), "log".into(), t0).state, ServerState::Exited);
        health.reset();
        assert_eq!(health.wait(t0 + Duration::from_secs(100)), Duration::ZERO);
        health.stopped();
        assert_eq!(health.status("s", None, "log".into(), t0).state, ServerState::Stopped);
        health.connected(t0);
        assert_eq!(health.status("s", Some(true), "log".into(), t0).state, ServerState::Running);
        assert_eq!(Health::default().status("s", None, "log".into(), t0).state, ServerState::NotStarted);
    }
}
