//! Two calls at once on one server (the proxy makes them): each keeps its own state. A question
//! the user declines for one leaves no warning on the other, and a dialog open for one does not
//! stop the other's timeout.
//!
//! The demo speaks 2026-07-28 here, where a server's question arrives inside its call's own
//! `input_required` result, so whose question it is is known exactly. (A 2025-11-25
//! `elicitation/create` names no call; with several in flight it counts for each of them — see
//! `crates/host/src/call_context.rs`.)

use std::{
    collections::VecDeque,
    path::Path,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use mcp_canvas_e2e::binary;
use mcp_canvas_elicitation::{BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_wire::CallOutcome;
use mcp_canvas_host::{CallControl, CallOptions, Host, HostError, HostOptions};
use serde_json::{json, Value};

fn host(dir: &Path, handler: Arc<HeldThenDeclined>) -> Arc<Host> {
    let entry = json!({ "command": binary("mcp-canvas-demo"), "protocol_version": "2026-07-28" });
    std::fs::write(dir.join("servers.json"), json!({ "mcpServers": { "demo": entry } }).to_string()).unwrap();
    // Far beyond anything here: only the timeout a test sets on purpose may fire.
    let host = Host::open(HostOptions { data_dir: dir.to_owned(), call_timeout: Duration::from_secs(600), session: None }).unwrap();
    Arc::new(host.with_elicitation(handler))
}

/// The first form is held open (the user is "thinking") until released, then accepted; every
/// later form is declined at once.
#[derive(Default)]
struct HeldThenDeclined {
    asked: Mutex<VecDeque<String>>,
    release: tokio::sync::Notify,
    released: AtomicBool,
}

impl HeldThenDeclined {
    async fn wait_until_asked(&self, times: usize) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while self.asked.lock().unwrap().len() < times {
            assert!(Instant::now() < deadline, "the server never asked");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn release(&self) {
        self.released.store(true, Ordering::SeqCst);
        self.release.notify_one();
    }
}

impl ElicitationHandler for HeldThenDeclined {
    fn modes(&self) -> ElicitationModes {
        ElicitationModes::ALL
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        let first = {
            let mut asked = self.asked.lock().unwrap();
            asked.push_back(request.message.clone());
            asked.len() == 1
        };
        Box::pin(async move {
            if !first {
                return FormAnswer::Decline("not now".into());
            }
            if !self.released.load(Ordering::SeqCst) {
                self.release.notified().await;
            }
            let content = json!({"theme": "dark", "font_size": 12});
            FormAnswer::Accept(content.as_object().unwrap().clone())
        })
    }

    fn url<'a>(&'a self, _request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(std::future::ready(UrlAnswer::Decline("no pages here".into())))
    }
}

/// A host whose first call's question is being asked (and held open) right now.
async fn one_call_asking() -> (tempfile::TempDir, Arc<HeldThenDeclined>, Arc<Host>, tokio::task::JoinHandle<Result<CallOutcome, HostError>>) {
    let dir = tempfile::tempdir().unwrap();
    let handler = Arc::new(HeldThenDeclined::default());
    let host = host(dir.path(), handler.clone());
    let held = tokio::spawn({
        let host = host.clone();
        async move { host.call_tool("demo", "ask_preferences", json!({})).await }
    });
    handler.wait_until_asked(1).await;
    (dir, handler, host, held)
}

fn results(outcome: &mcp_canvas_contract::ToolOutcome) -> &Value {
    outcome.results.as_ref().unwrap_or_else(|| panic!("no results: {}", outcome.summary))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decline_in_one_call_leaves_the_other_calls_warnings_alone() {
    let (_dir, handler, host, held) = one_call_asking().await;

    let declined = host.call_tool("demo", "ask_preferences", json!({})).await.unwrap().outcome;
    assert_eq!(results(&declined)["action"], "decline", "{}", declined.summary);
    assert!(declined.warnings.iter().any(|w| w.contains("declined: not now")), "the declined call says so: {:?}", declined.warnings);

    handler.release();
    let accepted = held.await.unwrap().unwrap().outcome;
    assert_eq!(results(&accepted)["preferences"]["theme"], "dark", "{}", accepted.summary);
    assert!(
        !accepted.warnings.iter().any(|w| w.contains("not now")),
        "the other call's decline leaked into this one: {:?}",
        accepted.warnings
    );
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_open_for_one_call_does_not_stop_the_others_timeout() {
    let (_dir, handler, host, held) = one_call_asking().await;

    // 30 s of work with a 1 s limit, while the other call's question stays open. The dialog is
    // released only after this call has ended, so the timeout fired while it was open.
    let control = CallControl { timeout: Some(Duration::from_secs(1)), ..Default::default() };
    let err = host.call_tool_controlled("demo", "slow_job", json!({"seconds": 30}), CallOptions::default(), control).await.unwrap_err();
    assert!(matches!(err, HostError::Timeout { .. }), "{err}");
    assert!(!handler.released.load(Ordering::SeqCst), "the dialog was still open when the other call timed out");

    handler.release();
    let accepted = held.await.unwrap().unwrap().outcome;
    assert_eq!(results(&accepted)["preferences"]["theme"], "dark", "the held call still completes: {}", accepted.summary);
    host.shutdown().await;
}
