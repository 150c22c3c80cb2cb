//! The calls the window started and that are still running, by the window's call token, with
//! what cancels each.

use std::{
    collections::HashMap,
    sync::{Mutex, MutexGuard},
};

use tokio_util::sync::CancellationToken;
use mcp_canvas_wire::{CommandError, ErrorKind};

/// The running calls.
#[derive(Default)]
pub struct RunningCalls(Mutex<HashMap<String, CancellationToken>>);

/// One running call; removed from [`RunningCalls`] when dropped, however the call ends.
pub struct RunningCall<'a> {
    calls: &'a RunningCalls,
    token: String,
    /// Cancels the call (give it to the host's `CallControl`).
    pub cancel: CancellationToken,
}

impl Drop for RunningCall<'_> {
    fn drop(&mut self) {
        self.calls.lock().remove(&self.token);
    }
}

impl RunningCalls {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers a call under `token` (non-empty, not used by another running call).
    pub fn start(&self, token: &str) -> Result<RunningCall<'_>, CommandError> {
        if token.is_empty() {
            return Err(CommandError::bug("a call needs a non-empty call token"));
        }
        let cancel = CancellationToken::new();
        let mut running = self.lock();
        if running.contains_key(token) {
            return Err(CommandError::bug(format!("a call with the token {token} is already running")));
        }
        running.insert(token.to_owned(), cancel.clone());
        Ok(RunningCall { calls: self, token: token.to_owned(), cancel })
    }

    /// Cancels the call running under `token`; one that already ended is an error.
    pub fn cancel(&self, token: &str) -> Result<(), CommandError> {
        let cancel = self.lock().get(token).cloned().ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("no call with the token {token} is running (it ended already)")))?;
        cancel.cancel();
        Ok(())
    }

    /// Whether a call runs under `token`.
    pub fn is_running(&self, token: &str) -> bool {
        self.lock().contains_key(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_cancellable_while_it_runs_and_its_token_is_free_again_after() {
        let calls = RunningCalls::default();
        assert!(calls.start("").is_err());
        let running = calls.start("t1").unwrap();
        assert!(calls.start("t1").err().unwrap().message.contains("already running"));
        calls.cancel("t1").unwrap();
        assert!(running.cancel.is_cancelled());
        drop(running);
        assert!(!calls.is_running("t1"));
        assert!(calls.cancel("t1").unwrap_err().message.contains("ended already"));
        calls.start("t1").unwrap();
    }
}
