//! Elicitation, progress, cancellation and timeouts through our own host and CLI, against the
//! real demo server: form answers from a file (valid, invalid, none), URL consent, the
//! 2026-07-28 `input_required` path, progress reaching the caller, Ctrl-C and the per-server
//! timeout, and what the audit log records.

use std::{
    collections::VecDeque,
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    path::Path,
    process::{Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use mcp_canvas_e2e::{binary, cli, Run};
use mcp_canvas_elicitation::{BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_host::{CallControl, CallOptions, Host, HostError, HostOptions};
use mcp_canvas_client::CallProgress;
use tokio_util::sync::CancellationToken;
use serde_json::{json, Value};

/// A data dir whose servers.json runs the demo with these extra entry keys.
fn data_dir(extra: Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut entry = json!({ "command": binary("mcp-canvas-demo") });
    entry.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": entry } }).to_string()).unwrap();
    dir
}

/// A host whose default call timeout is only a hang guard: no test here relies on it firing (the
/// ones about timeouts set the server's `timeout_seconds`), and a busy machine never reaches it.
fn open_host(dir: &Path) -> Host {
    Host::open(HostOptions { data_dir: dir.to_owned(), call_timeout: Duration::from_secs(600), session: None }).unwrap()
}

fn write_answers(dir: &Path, answers: Value) -> String {
    let path = dir.join("answers.json");
    std::fs::write(&path, answers.to_string()).unwrap();
    path.display().to_string()
}

fn outcome_json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", run.stdout, run.stderr))
}

/// The audit log as the CLI prints it, newest first.
fn audit(dir: &Path) -> Vec<Value> {
    let run = cli(dir, &["audit", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str::<Value>(&run.stdout).unwrap().as_array().unwrap().clone()
}

/// Answers forms from a list and URLs with one answer; records what it was asked.
#[derive(Default)]
struct TestHandler {
    forms: Mutex<VecDeque<FormAnswer>>,
    url: Option<UrlAnswer>,
    /// After accepting a URL, "visit" the demo's linking page and press its button.
    confirm_link: bool,
    /// How long the "user" takes to answer a form.
    think: Duration,
    asked_forms: Mutex<Vec<FormRequest>>,
    asked_urls: Mutex<Vec<UrlRequest>>,
}

impl ElicitationHandler for TestHandler {
    fn modes(&self) -> ElicitationModes {
        ElicitationModes::ALL
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        self.asked_forms.lock().unwrap().push(request.clone());
        let answer = self.forms.lock().unwrap().pop_front().unwrap_or(FormAnswer::Decline("the test has no more answers".into()));
        Box::pin(async move {
            tokio::time::sleep(self.think).await;
            answer
        })
    }

    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        self.asked_urls.lock().unwrap().push(request.clone());
        let answer = self.url.clone().unwrap_or(UrlAnswer::Decline("the test declines".into()));
        if answer == UrlAnswer::Accept && self.confirm_link {
            let confirm = request.url.replacen("/link?", "/link/confirm?", 1);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                assert_eq!(post(&confirm), 200, "confirming the link");
            });
        }
        Box::pin(std::future::ready(answer))
    }
}

/// POSTs to a 127.0.0.1 URL; the status code.
fn post(url: &str) -> u16 {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(authority).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(stream, "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status line")
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

// ---------------------------------------------------------------------------------------------
// Form mode through the CLI
// ---------------------------------------------------------------------------------------------

#[test]
fn form_answers_from_a_file_reach_the_tool() {
    let dir = data_dir(json!({}));
    let answers = write_answers(dir.path(), json!({"theme": "dark", "font_size": 17, "notifications": false, "display_name": "Ada"}));
    let run = cli(dir.path(), &["call", "demo", "ask_preferences", "--answers", &answers, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome = outcome_json(&run);
    let prefs = &outcome["results"]["preferences"];
    assert_eq!((prefs["theme"].as_str(), prefs["font_size"].as_f64(), prefs["notifications"].as_bool()), (Some("dark"), Some(17.0), Some(false)));
    assert_eq!(prefs["display_name"], "Ada");
    assert!(outcome["summary"].as_str().unwrap().contains("Ada"), "{outcome}");
    assert!(run.stderr.contains("answers file"), "the user sees the question was answered: {}", run.stderr);

    // The scripted form: answers in order.
    let answers = write_answers(dir.path(), json!({"form": [{"theme": "system", "font_size": 9}]}));
    let run = cli(dir.path(), &["call", "demo", "ask_preferences", "--answers", &answers]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("theme system, font size 9"), "{}", run.stdout);
}

#[test]
fn answers_outside_the_schema_are_declined_with_the_problem_named() {
    let dir = data_dir(json!({}));
    let answers = write_answers(dir.path(), json!({"theme": "neon", "font_size": 99}));
    let run = cli(dir.path(), &["call", "demo", "ask_preferences", "--answers", &answers, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome = outcome_json(&run);
    // The invalid answer never reached the tool: it heard a decline.
    assert_eq!(outcome["results"]["action"], "decline", "{outcome}");
    assert!(outcome["summary"].as_str().unwrap().contains("declined"), "{outcome}");
    // Why is in the outcome's warnings and on stderr, naming both fields.
    let warnings = outcome["warnings"].to_string();
    for needle in ["does not match the form's schema", "theme", "neon", "font_size"] {
        assert!(warnings.contains(needle), "`{needle}` not in {warnings}");
        assert!(run.stderr.contains(needle), "`{needle}` not on stderr: {}", run.stderr);
    }
}

#[test]
fn without_a_terminal_or_answers_the_form_is_declined_with_a_reason() {
    let dir = data_dir(json!({}));
    // `cli` runs with stdin closed: not a terminal.
    let run = cli(dir.path(), &["call", "demo", "ask_preferences", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome = outcome_json(&run);
    assert_eq!(outcome["results"]["action"], "decline", "{outcome}");
    assert!(outcome["summary"].as_str().unwrap().contains("declined"));
    assert!(run.stderr.contains("no terminal") && run.stderr.contains("--answers"), "{}", run.stderr);
    assert!(outcome["warnings"].to_string().contains("no terminal"), "{outcome}");

    // A broken answers file stops the call before anything runs.
    let answers = write_answers(dir.path(), json!({"url": "maybe"}));
    let run = cli(dir.path(), &["call", "demo", "ask_preferences", "--answers", &answers]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("answers file") && run.stderr.contains("`url`"), "{}", run.stderr);
}

// ---------------------------------------------------------------------------------------------
// URL mode
// ---------------------------------------------------------------------------------------------

#[test]
fn a_declined_url_is_reported_never_silently() {
    let dir = data_dir(json!({}));
    let answers = write_answers(dir.path(), json!({"url": "decline"}));
    let run = cli(dir.path(), &["call", "demo", "link_account", "--yes", "--answers", &answers, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome = outcome_json(&run);
    assert_eq!(outcome["results"]["outcome"], "declined", "{outcome}");
    assert!(outcome["summary"].as_str().unwrap().contains("declined"));
    // The user saw the full URL and its domain, and that it was declined.
    assert!(run.stderr.contains("http://127.0.0.1:") && run.stderr.contains("/link?token=") && run.stderr.contains("domain 127.0.0.1"), "{}", run.stderr);
    assert!(run.stderr.contains("declined, not opened"), "{}", run.stderr);
    // The note for the model names the domain, never the token-carrying URL.
    let warnings = outcome["warnings"].to_string();
    assert!(warnings.contains("declined to open the page on 127.0.0.1") && !warnings.contains("token="), "{warnings}");

    // An answers file without a URL answer declines too, saying so.
    let answers = write_answers(dir.path(), json!({"theme": "dark", "font_size": 12}));
    let run = cli(dir.path(), &["call", "demo", "link_account", "--yes", "--answers", &answers]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("declined"), "{}", run.stdout);
    assert!(run.stderr.contains("no \"url\" answer"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_url_shows_url_and_domain_and_the_account_links() {
    let dir = data_dir(json!({}));
    let handler = Arc::new(TestHandler { url: Some(UrlAnswer::Accept), confirm_link: true, ..Default::default() });
    let host = open_host(dir.path()).with_elicitation(handler.clone());
    let outcome = host.call_tool_with("demo", "link_account", json!({"wait_seconds": 120}), CallOptions { confirmed: true, ..CallOptions::default() }).await.unwrap().outcome;
    assert_eq!(outcome.results.as_ref().unwrap()["outcome"], "linked", "{}", outcome.summary);
    let asked = handler.asked_urls.lock().unwrap().pop().expect("the handler was asked");
    assert!(asked.url.starts_with("http://127.0.0.1:") && asked.url.contains("/link?token="), "{}", asked.url);
    assert_eq!(asked.domain, "127.0.0.1");
    assert!(asked.elicitation_id.starts_with("link-"), "{}", asked.elicitation_id);
    assert!(asked.warnings.is_empty(), "{:?}", asked.warnings);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_handler_nothing_is_advertised() {
    let dir = data_dir(json!({}));
    let host = open_host(dir.path());
    let outcome = host.call_tool("demo", "ask_preferences", json!({})).await.unwrap().outcome;
    let error = outcome.error.expect("the demo refuses: no elicitation capability");
    assert!(error.message.contains("did not advertise form elicitation"), "{}", error.message);
    host.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 2026-07-28: elicitation inside an `input_required` result
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_required_rounds_reach_the_same_handler_and_checks() {
    let dir = data_dir(json!({"protocol_version": "2026-07-28"}));
    let handler = Arc::new(TestHandler {
        forms: Mutex::new(VecDeque::from([FormAnswer::Accept(object(json!({"theme": "light", "font_size": 9}))), FormAnswer::Accept(object(json!({"theme": "neon"})))])),
        ..Default::default()
    });
    let host = open_host(dir.path()).with_elicitation(handler.clone());
    let outcome = host.call_tool("demo", "ask_preferences", json!({})).await.unwrap().outcome;
    let results = outcome.results.as_ref().unwrap_or_else(|| panic!("no results: {}", outcome.summary));
    assert_eq!(results["preferences"]["theme"], "light", "{}", outcome.summary);
    assert_eq!(results["preferences"]["display_name"], "Canvas user");
    assert_eq!(handler.asked_forms.lock().unwrap().len(), 1);

    // The schema check applies on this path too.
    let outcome = host.call_tool("demo", "ask_preferences", json!({})).await.unwrap().outcome;
    assert_eq!(outcome.results.as_ref().unwrap()["action"], "decline", "{}", outcome.summary);
    assert!(outcome.warnings.iter().any(|w| w.contains("theme") && w.contains("does not match")), "{:?}", outcome.warnings);
    host.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// Progress, cancellation, timeouts
// ---------------------------------------------------------------------------------------------

fn counting() -> (Arc<Mutex<Vec<(Instant, CallProgress)>>>, CallControl) {
    let seen: Arc<Mutex<Vec<(Instant, CallProgress)>>> = Arc::default();
    let sink = seen.clone();
    let control = CallControl { progress: Some(Arc::new(move |p: &CallProgress| sink.lock().unwrap().push((Instant::now(), p.clone())))), ..Default::default() };
    (seen, control)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_caller_and_cancel_stops_the_call() {
    let dir = data_dir(json!({}));
    let host = open_host(dir.path());

    // A short job: every step reported, the last one complete.
    let (seen, control) = counting();
    let done = host.call_tool_controlled("demo", "slow_job", json!({"seconds": 1}), CallOptions::default(), control).await.unwrap();
    assert_eq!(done.outcome.results.as_ref().unwrap()["completed"], true);
    let reports: Vec<CallProgress> = seen.lock().unwrap().iter().map(|(_, p)| p.clone()).collect();
    // Four steps reported; the last may still be in flight when the result arrives.
    assert!(reports.len() >= 2, "progress reports: {reports:?}");
    assert!(reports.windows(2).all(|w| w[0].progress < w[1].progress), "{reports:?}");
    for report in &reports {
        assert_eq!(report.total, Some(4.0));
        assert_eq!(report.message.as_deref(), Some(format!("step {} of 4", report.progress).as_str()));
    }

    // A long one, cancelled after two reports: it ends at once with `Cancelled`.
    let (seen, mut control) = counting();
    let cancel = CancellationToken::new();
    control.cancel = Some(cancel.clone());
    let call = tokio::spawn({
        let host = Arc::new(host);
        let call_host = host.clone();
        async move { (call_host.call_tool_controlled("demo", "slow_job", json!({"seconds": 30}), CallOptions::default(), control).await, host) }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while seen.lock().unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "no progress from the long job");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancelled_at = Instant::now();
    cancel.cancel();
    let (result, host) = call.await.unwrap();
    eprintln!("the call returned {:?} after the cancel", cancelled_at.elapsed());
    // Ended by the cancel itself, while the 30 s job was still running: not by the job finishing
    // (that is an Ok result after all 120 steps) nor by the call timeout (`Timeout`, 600 s away).
    let reported_when_returned = seen.lock().unwrap().len();
    let error = result.unwrap_err();
    assert!(matches!(error, HostError::Cancelled { .. }), "{error}");
    assert!(reported_when_returned < 120, "the call returned only after the job had run all its steps: {reported_when_returned}");
    assert!(error.to_string().contains("`slow_job`") && error.to_string().contains("`demo`") && error.to_string().contains("notifications/cancelled"), "{error}");

    // The server stopped (it logs after how many steps; no progress reached the caller beyond
    // that step), is still usable, and logged the cancellation.
    let log_path = dir.path().join("logs").join("demo.log");
    let deadline = Instant::now() + Duration::from_secs(60);
    let stopped_after = loop {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        if let Some(steps) = log.split("slow_job cancelled after ").nth(1).and_then(|rest| rest.split(' ').next()).and_then(|n| n.parse::<u32>().ok()) {
            break steps;
        }
        assert!(Instant::now() < deadline, "the server saw notifications/cancelled: {log}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(stopped_after < 120, "the server stopped after {stopped_after} of 120 steps");
    let furthest = seen.lock().unwrap().iter().map(|(_, p)| p.progress).fold(0.0, f64::max);
    assert!(furthest <= f64::from(stopped_after), "progress kept coming after the cancel: step {furthest}, but the server stopped after {stopped_after}");
    let me = host.call_tool("demo", "whoami", json!({"username": "after-cancel"})).await.unwrap();
    assert!(me.outcome.error.is_none(), "{:?}", me.outcome.error);

    let outcomes: Vec<_> = audit(dir.path()).into_iter().filter(|r| r["tool"] == "slow_job").map(|r| r["outcome"].as_str().unwrap().to_owned()).collect();
    assert_eq!(outcomes, ["cancelled", "ok"], "newest first");
    host.shutdown().await;
}

#[test]
fn ctrl_c_cancels_a_cli_call_and_exits_130() {
    let dir = data_dir(json!({}));
    let mut child = Command::new(binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["call", "demo", "slow_job", "--args", r#"{"seconds": 30}"#])
        .env_remove("MCP_CANVAS_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Progress lines on stderr (not a terminal: a line at most each second) say it is running.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("progress: ") {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the CLI exited early: {seen}");
        seen.push_str(&line);
    }
    assert!(seen.contains("step 1 of 120") || seen.contains("/120"), "{seen}");
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let interrupted = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        // A hang guard only: an interrupt the CLI ignored lets the 30 s job finish (exit 0, outcome
        // ok), which the assertions below reject.
        assert!(interrupted.elapsed() < Duration::from_secs(60), "the CLI did not stop after Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert_eq!(code, Some(130), "{seen}{rest}");
    assert!(rest.contains("interrupted (Ctrl-C)") && rest.contains("`slow_job`") && rest.contains("notifications/cancelled"), "{rest}");
    let last = &audit(dir.path())[0];
    assert_eq!((last["tool"].as_str(), last["outcome"].as_str()), (Some("slow_job"), Some("cancelled")), "{last}");
    // The server was told, rather than killed by the terminal's SIGINT.
    let log = std::fs::read_to_string(dir.path().join("logs").join("demo.log")).unwrap();
    assert!(log.contains("slow_job cancelled after"), "{log}");
}

#[test]
fn the_per_server_timeout_is_honored_and_timeout_wins_over_it() {
    // 5 s: the limit also bounds the server's `tools/list` when it connects, which a busy machine
    // must not miss.
    let dir = data_dir(json!({"timeout_seconds": 5}));
    let started = Instant::now();
    let run = cli(dir.path(), &["call", "demo", "slow_job", "--args", r#"{"seconds": 30}"#]);
    eprintln!("the timed-out call took {:?}", started.elapsed());
    // The 30 s job was cut short: a job that ran to the end exits 0 with its result; only the
    // timeout gives exit 1 with this message and a `timeout` in the audit log.
    assert_eq!(run.code, 1, "{} {}", run.stdout, run.stderr);
    assert!(run.stderr.contains("server `demo` did not answer `slow_job` within 5 s") && run.stderr.contains("timeout_seconds"), "{}", run.stderr);
    assert_eq!(audit(dir.path())[0]["outcome"], "timeout");

    let run = cli(dir.path(), &["call", "demo", "slow_job", "--args", r#"{"seconds": 6}"#, "--timeout", "600"]);
    assert_eq!(run.code, 0, "--timeout wins over timeout_seconds: {}", run.stderr);
    assert!(run.stdout.contains("finished all 24 steps"), "{}", run.stdout);

    // A bad value is a config error naming the server.
    let dir = data_dir(json!({"timeout_seconds": "soon"}));
    let run = cli(dir.path(), &["call", "demo", "whoami"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("server `demo`") && run.stderr.contains("timeout_seconds"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_spent_answering_the_server_does_not_count_against_the_timeout() {
    // The user thinks longer than the whole limit; the server's own work (and its `tools/list`
    // when it connects, which the same limit bounds) stays well within it even on a busy machine.
    let dir = data_dir(json!({"timeout_seconds": 5}));
    let handler = Arc::new(TestHandler {
        forms: Mutex::new(VecDeque::from([FormAnswer::Accept(object(json!({"theme": "dark", "font_size": 12})))])),
        think: Duration::from_secs(6),
        ..Default::default()
    });
    let host = open_host(dir.path()).with_elicitation(handler);
    let outcome = host.call_tool("demo", "ask_preferences", json!({})).await.unwrap().outcome;
    assert_eq!(outcome.results.as_ref().unwrap()["preferences"]["theme"], "dark", "{}", outcome.summary);
    host.shutdown().await;
}
