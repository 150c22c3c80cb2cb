//! What belongs to one call and travels with it: the notes its server's questions left (declines
//! and their reasons, which become the call's warnings) and the time its user spent answering
//! (which its timeout does not count). Never shared between calls: two calls to one server (the
//! proxy makes them) each see only their own.
//!
//! A question reaches the right call exactly on the 2026-07-28 path (it arrives inside the call's
//! own `input_required` result). A server→client `elicitation/create` (2025-11-25 and older) names
//! no call: it is the call's when one call is in flight on that connection; with several, the
//! protocol cannot say whose it is, so it pauses each of their clocks and each gets the note
//! ([`InFlight::asked`]).

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

/// One call's own state.
#[derive(Debug, Default)]
pub struct CallContext {
    notes: Mutex<Vec<String>>,
    wait: UserWait,
}

impl CallContext {
    /// Records what happened to one of the server's questions (reaches the model as a warning).
    pub fn note(&self, note: String) {
        self.notes.lock().unwrap().push(note);
    }

    /// The notes so far, in order.
    pub fn notes(&self) -> Vec<String> {
        self.notes.lock().unwrap().clone()
    }

    /// The user is being asked something for this call until the guard drops.
    pub fn asking(self: &Arc<Self>) -> Asking {
        let mut state = self.wait.0.lock().unwrap();
        if state.open == 0 {
            state.since = Some(Instant::now());
        }
        state.open += 1;
        Asking(self.clone())
    }

    /// All time spent asking the user so far, including a question still open.
    pub fn waited(&self) -> Duration {
        let state = self.wait.0.lock().unwrap();
        state.total + state.since.map(|s| s.elapsed()).unwrap_or_default()
    }

    /// Whether a question is open right now.
    pub fn is_asking(&self) -> bool {
        self.wait.0.lock().unwrap().open > 0
    }
}

/// Time spent waiting for the user.
#[derive(Debug, Default)]
struct UserWait(Mutex<WaitState>);

#[derive(Debug, Default)]
struct WaitState {
    open: usize,
    since: Option<Instant>,
    total: Duration,
}

/// An open question to the user (see [`CallContext::asking`]).
pub struct Asking(Arc<CallContext>);

impl Drop for Asking {
    fn drop(&mut self) {
        let mut state = self.0.wait.0.lock().unwrap();
        state.open -= 1;
        if state.open == 0 {
            if let Some(since) = state.since.take() {
                state.total += since.elapsed();
            }
        }
    }
}

/// The calls in flight on one connection.
#[derive(Debug, Default)]
pub struct InFlight(Mutex<Vec<Arc<CallContext>>>);

/// Keeps a call in [`InFlight`] until dropped.
pub struct Entered {
    calls: Arc<InFlight>,
    call: Arc<CallContext>,
}

impl InFlight {
    /// Registers `call` as in flight until the returned guard drops.
    pub fn enter(self: &Arc<Self>, call: Arc<CallContext>) -> Entered {
        self.0.lock().unwrap().push(call.clone());
        Entered { calls: self.clone(), call }
    }

    /// The calls a server→client question that names none may belong to.
    pub fn asked(&self) -> Vec<Arc<CallContext>> {
        self.0.lock().unwrap().clone()
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.calls.0.lock().unwrap().retain(|c| !Arc::ptr_eq(c, &self.call));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_counts_open_questions_per_call() {
        let call = Arc::new(CallContext::default());
        let other = Arc::new(CallContext::default());
        assert!(!call.is_asking());
        let asking = call.asking();
        std::thread::sleep(Duration::from_millis(20));
        assert!(call.is_asking() && call.waited() >= Duration::from_millis(20));
        assert!(!other.is_asking() && other.waited().is_zero(), "another call's clock runs on");
        drop(asking);
        let total = call.waited();
        std::thread::sleep(Duration::from_millis(10));
        assert_eq!(call.waited(), total);
    }

    #[test]
    fn in_flight_calls_leave_when_done() {
        let calls = Arc::new(InFlight::default());
        let first = Arc::new(CallContext::default());
        let entered = calls.enter(first.clone());
        {
            let _second = calls.enter(Arc::new(CallContext::default()));
            assert_eq!(calls.asked().len(), 2);
        }
        assert!(Arc::ptr_eq(&calls.asked()[0], &first));
        drop(entered);
        assert!(calls.asked().is_empty());
    }
}
