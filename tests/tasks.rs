//! Calls the server turns into tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663):
//! the demo's `research_report` answers with a task; the host follows it — status messages as
//! progress, a form it asks for answered through `tasks/update`, `tasks/cancel` when the call is
//! cancelled — in both protocol eras, and the finished task's result is stored like any other.
//!
//! The reference server-everything speaks 2025-11-25's tasks instead (the client asks with
//! `task: {ttl}`, then `tasks/get` and `tasks/result`): its `simulate-research-query` runs only as
//! a task, and is followed the same way — with progress, the question it asks, and Cancel.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use mcp_canvas_e2e::binary;
use mcp_canvas_elicitation::{BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_host::{CallControl, CallOptions, Host, HostError, HostOptions};
use mcp_canvas_client::CallProgress;
use tokio_util::sync::CancellationToken;
use serde_json::{json, Map, Value};

/// Answers every form with a focus, and keeps the questions.
#[derive(Default)]
struct Focus {
    asked: Mutex<Vec<String>>,
}

impl ElicitationHandler for Focus {
    fn modes(&self) -> ElicitationModes {
        ElicitationModes { form: true, url: false }
    }
    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        self.asked.lock().unwrap().push(request.message.clone());
        Box::pin(async { FormAnswer::Accept(Map::from_iter([("focus".to_owned(), json!("harbour safety"))])) })
    }
    fn url<'a>(&'a self, _request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(async { UrlAnswer::Decline("no URLs here".into()) })
    }
}

fn host(protocol: Option<&str>, focus: Arc<Focus>) -> (tempfile::TempDir, Host) {
    let dir = tempfile::tempdir().unwrap();
    let mut entry = json!({ "command": binary("mcp-canvas-demo") });
    if let Some(protocol) = protocol {
        entry["protocol_version"] = json!(protocol);
    }
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": entry } }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(120), session: None }).unwrap().with_elicitation(focus);
    (dir, host)
}

/// server-everything over stdio (a 2025-11-25 server).
fn everything(focus: Arc<Focus>) -> (tempfile::TempDir, Host) {
    let (node, script) = mcp_canvas_e2e::npm::everything();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "everything": {"command": node, "args": [script, "stdio"]} } }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(120), session: None }).unwrap().with_elicitation(focus);
    (dir, host)
}

/// The last audit row is `tool`'s, and it went well.
fn audited_ok(host: &Host, tool: &str) {
    let audit = host.store().audit_log(5).unwrap();
    assert_eq!(audit[0].tool, tool);
    assert_eq!(audit[0].outcome, "ok", "{:?}", audit[0]);
}

/// Controls whose call is cancelled once a progress message satisfying `when` arrived.
fn cancelling_when(when: fn(&[String]) -> bool) -> (Arc<Mutex<Vec<String>>>, CallControl) {
    let cancel = CancellationToken::new();
    let (seen, mut control) = collecting();
    control.cancel = Some(cancel.clone());
    let watcher = seen.clone();
    tokio::spawn(async move {
        while !when(&watcher.lock().unwrap()) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    });
    (seen, control)
}

fn collecting() -> (Arc<Mutex<Vec<String>>>, CallControl) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let control = CallControl { progress: Some(Arc::new(move |p: &CallProgress| sink.lock().unwrap().push(p.message.clone().unwrap_or_default()))), ..CallControl::default() };
    (seen, control)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_followed_to_its_result_with_progress_and_input_in_both_eras() {
    for protocol in [None, Some("2025-11-25")] {
        let focus = Arc::new(Focus::default());
        let (_dir, host) = host(protocol, focus.clone());
        let (seen, control) = collecting();
        let done = host
            .call_tool_controlled("demo", "research_report", json!({ "topic": "tides", "steps": 4, "ask": true }), CallOptions::default(), control)
            .await
            .unwrap_or_else(|e| panic!("{protocol:?}: {e}"));
        let text = done.outcome.texts.iter().map(|t| t.text.as_str()).collect::<String>();
        let stored = done.outcome.artifacts.iter().map(|a| a.mime.as_str()).collect::<Vec<_>>();
        assert!(text.contains("# Report: tides") || !stored.is_empty(), "{protocol:?}: {:#?}", done.outcome);
        assert!(format!("{:?}", done.outcome).contains("focused on harbour safety"), "{protocol:?}: the answer reached the task: {:#?}", done.outcome);
        assert_eq!(focus.asked.lock().unwrap().as_slice(), ["What should the report on tides focus on?"], "{protocol:?}");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.first().map(String::as_str), Some("Starting research on tides"), "{protocol:?}: {seen:?}");
        assert!(seen.iter().any(|m| m.starts_with("Step ") && m.contains(" of 4: reading about tides")), "{protocol:?}: status messages arrive as progress: {seen:?}");
        audited_ok(&host, "research_report");
        host.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_call_cancels_the_task() {
    let (_dir, host) = host(None, Arc::new(Focus::default()));
    let (_seen, control) = cancelling_when(|seen| seen.iter().any(|m| m.starts_with("Step 2 ")));
    let err = host.call_tool_controlled("demo", "research_report", json!({ "topic": "tides", "steps": 50 }), CallOptions::default(), control).await.unwrap_err();
    // Not the task's 20 s of work finishing: that would be a result, not this error.
    assert!(matches!(err, HostError::Cancelled { .. }), "{err}");
    // The server is still there for the next call.
    let (_, control) = collecting();
    let next = host.call_tool_controlled("demo", "research_report", json!({ "topic": "reefs", "steps": 1 }), CallOptions::default(), control).await.unwrap();
    assert!(format!("{:?}", next.outcome).contains("Report: reefs"));
    host.shutdown().await;
}

/// Without the extension (a plain MCP client) the tool says so instead of answering with a task
/// the client could not follow.
#[test]
fn the_demo_refuses_a_task_to_a_client_without_the_extension() {
    let mut demo = mcp_canvas_e2e::RawDemo::start();
    let result: Value = demo.call("research_report", json!({ "topic": "tides" }));
    assert_eq!(result["isError"], true, "{result}");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("runs only as a task"), "{result}");
}

/// A tool that runs only as a task (`execution.taskSupport: "required"`, 2025-11-25): the plain
/// call is refused with -32601, the host asks again for a task and follows it to its report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_task_tool_runs_as_a_2025_task_with_progress_and_a_question() {
    let focus = Arc::new(Focus::default());
    let (_dir, host) = everything(focus.clone());
    let (seen, control) = collecting();
    let done = host
        .call_tool_controlled("everything", "simulate-research-query", json!({ "topic": "tides" }), CallOptions::default(), control)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let text = done.outcome.texts.iter().map(|t| t.text.as_str()).collect::<String>();
    assert!(text.contains("# Research Report: tides"), "{:#?}", done.outcome);
    let seen = seen.lock().unwrap().clone();
    // Status is polled at the server's interval (1 s, as long as a stage): a busy machine may
    // skip one, so what arrives is some of the stages, each once, in order.
    let stages = ["Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."];
    assert!(!seen.is_empty(), "status messages reach progress");
    let order: Vec<usize> = seen.iter().map(|m| stages.iter().position(|s| s == m).unwrap_or_else(|| panic!("unexpected status {m:?}: {seen:?}"))).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    assert!(focus.asked.lock().unwrap().is_empty(), "an unambiguous query asks nothing");

    // Ambiguous: the task asks (an elicitation naming the task, delivered while `tasks/result`
    // waits); the answer is the user's (this handler's) and shapes the report.
    let (seen, control) = collecting();
    let done = host
        .call_tool_controlled("everything", "simulate-research-query", json!({ "topic": "tides", "ambiguous": true }), CallOptions { as_task: true, ..CallOptions::default() }, control)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let asked = focus.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("could have multiple interpretations"), "{asked:?}");
    let text = done.outcome.texts.iter().map(|t| t.text.as_str()).collect::<String>();
    // The handler answers `focus`, not the `interpretation` the form asks for: the server says so.
    assert!(text.contains("Clarification"), "{text}");
    assert!(!seen.lock().unwrap().is_empty(), "status messages reach progress");
    audited_ok(&host, "simulate-research-query");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Cancel ends the call as cancelled (the host sends `tasks/cancel`; server-everything does not
/// let a client see whether it stopped), and the connection stays usable.
async fn cancelling_a_2025_task_ends_the_call_and_keeps_the_connection() {
    let (_dir, host) = everything(Arc::new(Focus::default()));
    // At the first status: the task exists and has seconds of work left. (Polling may skip a
    // later status on a busy machine, so waiting for one in particular could miss it.)
    let (_seen, control) = cancelling_when(|seen| !seen.is_empty());
    let err = host.call_tool_controlled("everything", "simulate-research-query", json!({ "topic": "tides" }), CallOptions::default(), control).await.unwrap_err();
    assert!(matches!(err, HostError::Cancelled { .. }), "{err}");
    // The connection is fine for the next call.
    let (_, control) = collecting();
    let next = host.call_tool_controlled("everything", "echo", json!({ "message": "still here" }), CallOptions::default(), control).await.unwrap();
    assert!(format!("{:?}", next.outcome).contains("still here"));
    host.shutdown().await;
}

/// `mcp-canvas-cli call … --task` asks for the task itself and waits for it, with its status on
/// stderr; the report is the call's output.
#[test]
fn the_cli_waits_for_a_2025_task_with_progress() {
    let (node, script) = mcp_canvas_e2e::npm::everything();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "everything": {"command": node, "args": [script, "stdio"]} } }).to_string()).unwrap();
    let run = mcp_canvas_e2e::cli(dir.path(), &["call", "everything", "simulate-research-query", "--task", "--args", r#"{"topic": "tides"}"#]);
    assert_eq!(run.code, 0, "stdout {} stderr {}", run.stdout, run.stderr);
    assert!(run.stdout.contains("Research Report: tides"), "{}", run.stdout);
    assert!(run.stderr.lines().any(|l| l.starts_with("progress: ") && l.contains("Gathering sources...")), "the first status is shown: {}", run.stderr);
}
