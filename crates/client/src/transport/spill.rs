//! The hook through which a message's long base64 runs are taken out while it is read
//! ([`LineTransport`](super::stdio::LineTransport)); the host implements it (mcp-canvas-host
//! `spill`), this crate only carries what it gives back.
//!
//! Only the answer to a `tools/call` may keep its runs spilled: they wait in the connection's
//! [`SpillTable`] until the pipeline that made the call takes them by nonce. Every other message
//! is put back whole before rmcp hands it on.

use std::{
    any::Any,
    collections::{HashMap, HashSet},
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
    /// Puts every run back into `value`.
    fn restore(self: Box<Self>, value: &mut Value) -> std::io::Result<()>;
    /// For the host to take its own type back.
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send>;
}

/// Runs of `tools/call` answers, by request id, until their calls take them. A call that ends
/// without its answer (cancelled, timed out, abandoned) forgets its id, so a late answer is put
/// back (and dropped by rmcp) instead of waiting here.
#[derive(Clone, Default)]
pub struct SpillTable {
    waiting: Arc<Mutex<HashMap<RequestId, Box<dyn SpilledRuns>>>>,
    /// Ids of `tools/call` requests sent and not yet answered.
    calls: Arc<Mutex<HashSet<RequestId>>>,
}

impl SpillTable {
    /// Whether any runs wait.
    pub fn is_empty(&self) -> bool {
        self.waiting.lock().unwrap().is_empty()
    }

    /// The runs of the answer to request `id`.
    pub fn take(&self, id: &RequestId) -> Option<Box<dyn SpilledRuns>> {
        self.waiting.lock().unwrap().remove(id)
    }

    /// The call with request `id` ended without taking its answer: drops what it would have got.
    pub fn forget(&self, id: &RequestId) {
        self.calls.lock().unwrap().remove(id);
        self.waiting.lock().unwrap().remove(id);
    }

    pub(crate) fn call_sent(&self, id: RequestId) {
        self.calls.lock().unwrap().insert(id);
    }

    /// Whether `id` answers a `tools/call` still waiting (forgotten once asked).
    pub(crate) fn answers_call(&self, id: &RequestId) -> bool {
        self.calls.lock().unwrap().remove(id)
    }

    pub(crate) fn keep(&self, id: RequestId, runs: Box<dyn SpilledRuns>) {
        self.waiting.lock().unwrap().insert(id, runs);
    }
}
