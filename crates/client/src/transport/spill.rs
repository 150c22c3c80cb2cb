//! Where a message's long base64 runs wait once the store's [`Scanner`](mcp_canvas_store::spill::Scanner)
//! took them out while it was read ([`LineTransport`](super::stdio::LineTransport), the
//! Streamable HTTP reader): the [`Spills`] are the store's type, used here as they are.
//!
//! Only the answer to a `tools/call` may keep its runs spilled: they wait in the connection's
//! [`SpillTable`] until the pipeline that made the call takes them by nonce. Every other message
//! is put back whole before rmcp hands it on.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
};

use mcp_canvas_store::spill::Spills;

use rmcp::model::RequestId;
use serde_json::Value;

/// Why a spilled message could not be made ready for rmcp.
pub(crate) enum Unsettled {
    /// What is left of it is not JSON.
    NotJson(serde_json::Error),
    /// Its runs could not be read back.
    Unrestorable(mcp_canvas_store::StoreError),
}

impl From<Unsettled> for std::io::Error {
    fn from(unsettled: Unsettled) -> Self {
        match unsettled {
            Unsettled::NotJson(e) => std::io::Error::new(std::io::ErrorKind::InvalidData, format!("the server's message is not JSON: {e}")),
            Unsettled::Unrestorable(e) => std::io::Error::other(format!("its large parts could not be read back: {e}")),
        }
    }
}

/// Runs of `tools/call` answers, by request id, until their calls take them. A call that ends
/// without its answer (cancelled, timed out, abandoned) forgets its id, so a late answer is put
/// back (and dropped by rmcp) instead of waiting here.
#[derive(Clone, Default)]
pub struct SpillTable {
    waiting: Arc<Mutex<HashMap<RequestId, Spills>>>,
    /// Ids of `tools/call` requests sent and not yet answered.
    calls: Arc<Mutex<HashSet<RequestId>>>,
    /// Why the answer to a request could not be stored (its large parts could not be written or
    /// read back): taken by the call with its error, so the failure keeps its kind (storage).
    failures: Arc<Mutex<HashMap<RequestId, mcp_canvas_store::StoreError>>>,
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
    pub fn take(&self, id: &RequestId) -> Option<Spills> {
        self.calls.lock().unwrap().remove(id);
        self.waiting.lock().unwrap().remove(id)
    }

    /// The call with request `id` ended without taking its answer: drops what it would have got.
    pub fn forget(&self, id: &RequestId) {
        self.calls.lock().unwrap().remove(id);
        self.waiting.lock().unwrap().remove(id);
        self.failures.lock().unwrap().remove(id);
    }

    /// The answer to request `id` could not be stored: `error` says why. Kept only for a call
    /// still waiting (nobody would take it otherwise).
    pub(crate) fn failed(&self, id: &RequestId, error: mcp_canvas_store::StoreError) {
        if self.calls.lock().unwrap().contains(id) {
            self.failures.lock().unwrap().insert(id.clone(), error);
        }
    }

    /// Why the answer to request `id` could not be stored, if that is why it failed.
    pub fn take_failure(&self, id: &RequestId) -> Option<mcp_canvas_store::StoreError> {
        self.failures.lock().unwrap().remove(id)
    }

    pub(crate) fn call_sent(&self, id: RequestId) {
        self.calls.lock().unwrap().insert(id);
    }

    /// The message `compact`, whose long runs are `runs`, ready to be parsed: the final answer to
    /// a `tools/call` still waiting stays compact, its runs kept here for the call to take; any
    /// other message — a request from the server, a notification, an `input_required` round or
    /// a task — gets its runs back.
    pub(crate) fn settle(&self, compact: &[u8], runs: Spills) -> Result<Value, Unsettled> {
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
                let mut runs = runs;
                runs.restore_value(&mut value).map_err(Unsettled::Unrestorable)?;
            }
        }
        Ok(value)
    }
}

/// For the transports' tests: a store to spill into, and a run long enough to be spilled.
#[cfg(test)]
pub(crate) mod testing {
    use std::sync::Arc;

    use mcp_canvas_store::ArtifactStore;

    /// A store in a temp dir (kept while the dir lives).
    pub(crate) fn store() -> (tempfile::TempDir, Arc<ArtifactStore>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::open(dir.path()).unwrap());
        (dir, store)
    }

    /// A base64 run the scanner spills (longer than its threshold), the same every time.
    pub(crate) fn big() -> String {
        "QUJD".repeat(mcp_canvas_store::spill::THRESHOLD / 4 + 1024)
    }

    /// Whether `text` holds a spilled run's marker in place of the run.
    pub(crate) fn spilled(text: &str) -> bool {
        text.contains(mcp_canvas_store::spill::TAG) && !text.contains(&big())
    }
}
