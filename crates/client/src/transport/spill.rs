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

/// Why a spilled message could not be made ready for rmcp.
pub(crate) enum Unsettled {
    /// What is left of it is not JSON.
    NotJson(serde_json::Error),
    /// Its runs could not be read back.
    Unrestorable(std::io::Error),
}

impl From<Unsettled> for std::io::Error {
    fn from(unsettled: Unsettled) -> Self {
        match unsettled {
            Unsettled::NotJson(e) => std::io::Error::new(std::io::ErrorKind::InvalidData, format!("the server's message is not JSON: {e}")),
            Unsettled::Unrestorable(e) => std::io::Error::new(e.kind(), format!("its large parts could not be read back: {e}")),
        }
    }
}

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

    /// Whether no call waits for its answer either.
    #[cfg(test)]
    pub(crate) fn is_idle(&self) -> bool {
        self.is_empty() && self.calls.lock().unwrap().is_empty()
    }

    /// The runs of the answer to request `id`; the call is answered (the pipeline takes them for
    /// every answer, whatever it is).
    pub fn take(&self, id: &RequestId) -> Option<Box<dyn SpilledRuns>> {
        self.calls.lock().unwrap().remove(id);
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

    /// The message `compact`, whose long runs are `runs`, ready to be parsed: the final answer to
    /// a `tools/call` still waiting stays compact, its runs kept here for the call to take; any
    /// other message — a request from the server, a notification, an `input_required` round or
    /// a task — gets its runs back.
    pub(crate) fn settle(&self, compact: &[u8], runs: Box<dyn SpilledRuns>) -> Result<Value, Unsettled> {
        let mut value = serde_json::from_slice::<Value>(compact).map_err(Unsettled::NotJson)?;
        let id = value.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        // 2026-07-28 marks every result (`resultType`): only `complete` is final.
        let final_result = value.get("result").is_some_and(|r| {
            ["inputRequests", "requestState", "task"].iter().all(|k| r.get(k).is_none()) && r.get("resultType").is_none_or(|t| t == "complete")
        });
        // The call is checked and its runs kept under one lock: a `forget` in between would leave
        // them (and their temp files) waiting for nobody.
        let mut calls = self.calls.lock().unwrap();
        match id {
            Some(id) if final_result && value.get("method").is_none() && calls.remove(&id) => {
                self.waiting.lock().unwrap().insert(id, runs);
            }
            _ => {
                drop(calls);
                runs.restore(&mut value).map_err(Unsettled::Unrestorable)?;
            }
        }
        Ok(value)
    }
}

/// For the transports' tests.
#[cfg(test)]
pub(crate) mod swap {
    use super::{MessageSpill, SpilledRuns, SpillingMessage};
    use serde_json::Value;

    /// A spill that stands "XXXX" in for "BIG" (and back), so routing can be seen.
    pub(crate) struct Swap;
    struct SwapLine(Vec<u8>);
    struct SwapRuns;

    impl MessageSpill for Swap {
        fn start(&self) -> Box<dyn SpillingMessage> {
            Box::new(SwapLine(Vec::new()))
        }
    }

    impl SpillingMessage for SwapLine {
        fn feed(&mut self, bytes: &[u8]) -> std::io::Result<()> {
            self.0.extend_from_slice(bytes);
            Ok(())
        }
        fn finish(self: Box<Self>) -> std::io::Result<(Vec<u8>, Option<Box<dyn SpilledRuns>>)> {
            let text = String::from_utf8(self.0).unwrap();
            let spilled = text.contains("BIG");
            Ok((text.replace("BIG", "XXXX").into_bytes(), spilled.then(|| Box::new(SwapRuns) as Box<dyn SpilledRuns>)))
        }
    }

    impl SpilledRuns for SwapRuns {
        fn restore(self: Box<Self>, value: &mut Value) -> std::io::Result<()> {
            *value = serde_json::from_str(&value.to_string().replace("XXXX", "BIG")).unwrap();
            Ok(())
        }
        fn into_any(self: Box<Self>) -> Box<dyn std::any::Any + Send> {
            self
        }
    }
}
