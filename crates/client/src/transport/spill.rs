//! The hook through which a message's long base64 runs are taken out while it is read
//! ([`LineTransport`](super::stdio::LineTransport)); the host implements it (mcp-canvas-host
//! `spill`), this crate only carries what it gives back.
//!
//! Only the answer to a `tools/call` may keep its runs spilled: they wait in the connection's
//! [`SpillTable`] until the pipeline that made the call takes them by nonce. Every other message
//! is put back whole before rmcp hands it on.

use std::{
    any::Any,
    collections::{HashSet, VecDeque},
    sync::{Arc, Mutex},
};

use rmcp::model::RequestId;
use serde_json::Value;

/// Starts a pass over one message.
pub trait MessageSpill: Send + Sync {
    /// A new pass.
    fn start(&self) -> Box<dyn SpillingMessage>;
}

/// One message being read.
pub trait SpillingMessage: Send {
    /// The next bytes of the message.
    fn feed(&mut self, bytes: &[u8]) -> std::io::Result<()>;
    /// The message with its long runs replaced, and the runs (`None` when nothing was spilled).
    fn finish(self: Box<Self>) -> std::io::Result<(Vec<u8>, Option<Box<dyn SpilledRuns>>)>;
}

/// The runs spilled from one message.
pub trait SpilledRuns: Send {
    /// Their message's nonce (what its markers carry).
    fn nonce(&self) -> u64;
    /// Puts every run back into `value`.
    fn restore(self: Box<Self>, value: &mut Value) -> std::io::Result<()>;
    /// For the host to take its own type back.
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send>;
}

/// Runs of `tools/call` answers, until their calls take them. Bounded: an answer nobody takes
/// (its call was cancelled) is dropped, and with it its temp files, after [`Self::KEPT`] newer ones.
#[derive(Clone, Default)]
pub struct SpillTable {
    waiting: Arc<Mutex<VecDeque<Box<dyn SpilledRuns>>>>,
    /// Ids of `tools/call` requests sent and not yet answered.
    calls: Arc<Mutex<HashSet<RequestId>>>,
}

impl SpillTable {
    const KEPT: usize = 4;

    /// Whether any runs wait (most calls: none, and nothing to look for).
    pub fn is_empty(&self) -> bool {
        self.waiting.lock().unwrap().is_empty()
    }

    /// The runs of the message with `nonce`.
    pub fn take(&self, nonce: u64) -> Option<Box<dyn SpilledRuns>> {
        let mut waiting = self.waiting.lock().unwrap();
        let at = waiting.iter().position(|runs| runs.nonce() == nonce)?;
        waiting.remove(at)
    }

    pub(crate) fn call_sent(&self, id: RequestId) {
        self.calls.lock().unwrap().insert(id);
    }

    /// Whether `id` answers a `tools/call` (forgotten once asked).
    pub(crate) fn answers_call(&self, id: &RequestId) -> bool {
        self.calls.lock().unwrap().remove(id)
    }

    pub(crate) fn keep(&self, runs: Box<dyn SpilledRuns>) {
        let mut waiting = self.waiting.lock().unwrap();
        waiting.push_back(runs);
        while waiting.len() > Self::KEPT {
            waiting.pop_front();
        }
    }
}
