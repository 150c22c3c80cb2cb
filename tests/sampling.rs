//! Sampling end to end with real parts: a real small model (SmolLM2-135M-Instruct served by
//! llama-cpp-python on 127.0.0.1, installed by `scripts/setup.sh --tests`), real servers that
//! sample (the reference `server-everything`'s `trigger-sampling-request`, our demo's
//! `sample_text` and `sample_structured`), our host in between, and the transcript in the real
//! SQLite catalog. The model is tiny: the tests assert shapes and schema validity, not wording.
//! Exact wire formats per provider, errors and timeouts are in `crates/sampling/tests`.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use mcp_canvas_e2e::{binary, llm::LlmServer, npm::everything};
use mcp_canvas_sampling::{provider::BoxFuture, sampler::{Approval, ApprovalRequest, Decision, ExchangeRecord, Review, ReviewRequest}, Approver, Block};
use mcp_canvas_wire::CallOutcome;
use mcp_canvas_host::{CallOptions, Host, HostOptions};
use serde_json::{json, Value};

fn host_with(servers: Value, settings: &str) -> (tempfile::TempDir, Arc<Host>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
    std::fs::write(dir.path().join("settings.toml"), settings).unwrap();
    // Generous: the model on a busy machine is slow, and a limit here is not what is tested.
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(900), session: None }).unwrap();
    (dir, Arc::new(host))
}

async fn call(host: &Host, server: &str, tool: &str, arguments: Value) -> CallOutcome {
    host.call_tool_with(server, tool, arguments.clone(), CallOptions { confirmed: true, ..CallOptions::default() }).await.unwrap_or_else(|e| panic!("{tool} {arguments}: {e}"))
}

fn texts(call: &CallOutcome) -> String {
    call.outcome.texts.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn only_record(host: &Host, server: &str) -> ExchangeRecord {
    let log = host.sampling_log(Some(server), 10).unwrap();
    assert_eq!(log.len(), 1, "{log:#?}");
    log.into_iter().next().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_samples_through_the_real_model() {
    let llm = LlmServer::start();
    let (node, script) = everything();
    let (_dir, host) = host_with(json!({ "everything": {"command": node, "args": [script, "stdio"]} }), &llm.settings("always"));
    let tools = host.tools("everything").await.unwrap();
    assert!(tools.iter().any(|t| t.name == "trigger-sampling-request"), "listed only when the client declares sampling");

    let outcome = call(&host, "everything", "trigger-sampling-request", json!({"prompt": "Say hello in three words.", "maxTokens": 24})).await;
    assert!(outcome.outcome.error.is_none(), "{:#?}", outcome.outcome);
    let text = texts(&outcome);
    let json_start = text.find('{').unwrap_or_else(|| panic!("no result JSON in {text}"));
    let result: Value = serde_json::from_str(&text[json_start..]).unwrap();
    assert_eq!(result["role"], "assistant");
    assert_eq!(result["content"]["type"], "text", "{result}");
    assert!(!result["content"]["text"].as_str().unwrap().trim().is_empty(), "{result}");
    assert!(["endTurn", "maxTokens", "stopSequence"].contains(&result["stopReason"].as_str().unwrap()), "{result}");

    let record = only_record(&host, "everything");
    assert_eq!(record.decision, Decision::Automatic);
    assert_eq!((record.provider.as_str(), record.model.as_str()), ("local", "smollm2"));
    assert_eq!(record.request.system_prompt.as_deref(), Some("You are a helpful test server."));
    assert_eq!(record.request.max_tokens, 24);
    assert!(record.usage.input_tokens > 0 && record.usage.output_tokens > 0 && record.usage.output_tokens <= 24, "{:?}", record.usage);
    let exchange = record.exchange.unwrap();
    assert_eq!(exchange.messages.len(), 2);
    assert!(exchange.parsed.is_none());
    assert_eq!(Some(&exchange.response), record.response.as_ref().map(|r| r.message()).as_ref());
    host.shutdown().await;
}

/// Both request paths: a server→client request (2025-11-25) and an `input_required` round of the
/// call itself (2026-07-28), each for a plain and a `__schema__` completion.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_samples_text_and_schema_through_the_real_model_in_both_protocol_eras() {
    let llm = LlmServer::start();
    for protocol in ["2025-11-25", "2026-07-28"] {
        demo_samples_text_and_schema(&llm, protocol).await;
    }
}

async fn demo_samples_text_and_schema(llm: &LlmServer, protocol: &str) {
    let (_dir, host) = host_with(json!({ "demo": {"command": binary("mcp-canvas-demo"), "protocol_version": protocol} }), &llm.settings("always"));

    let plain = call(&host, "demo", "sample_text", json!({"prompt": "Name a colour.", "max_tokens": 16})).await;
    assert!(plain.outcome.error.is_none(), "{:#?}", plain.outcome);
    assert!(texts(&plain).contains("smollm2"), "the answer names the model: {}", texts(&plain));
    let path = if protocol == "2026-07-28" { "asked through an input_required round" } else { "asked through a sampling/createMessage request" };
    assert!(texts(&plain).contains(path), "{protocol}: {}", texts(&plain));

    let structured = call(&host, "demo", "sample_structured", json!({"topic": "a small harbour town"})).await;
    assert!(structured.outcome.error.is_none(), "{:#?}", structured.outcome);
    let parsed = structured.outcome.results.clone().expect("the parsed object comes back as structured content");
    assert!(parsed["name"].is_string(), "{parsed}");
    assert!(parsed["population"].as_i64().is_some_and(|p| p >= 0), "{parsed}");

    let log = host.sampling_log(Some("demo"), 10).unwrap();
    assert_eq!(log.len(), 2);
    let (schema, text) = (&log[0], &log[1]);
    assert!(!text.structured && schema.structured);
    assert_eq!(text.exchange.as_ref().unwrap().messages.len(), 2);
    let exchange = schema.exchange.as_ref().unwrap();
    assert_eq!(exchange.messages.len(), 3, "request, tool_use, constructed tool_result");
    let result = schema.response.as_ref().unwrap();
    let [Block::ToolUse { name, input, .. }] = result.content.as_slice() else { panic!("one tool_use block: {result:?}") };
    assert_eq!(name, "__schema__");
    assert_eq!(exchange.parsed.as_ref(), Some(input));
    assert_eq!(&Value::Object(input.clone()), &parsed);
    host.shutdown().await;
}

/// Answers approvals from a script and keeps what it was shown.
#[derive(Default)]
struct Scripted {
    approvals: Mutex<Vec<Approval>>,
    reviews: Mutex<Vec<Review>>,
    shown: Mutex<Vec<ApprovalRequest>>,
    reviewed: Mutex<Vec<ReviewRequest>>,
}

impl Approver for Scripted {
    fn approve<'a>(&'a self, ask: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        self.shown.lock().unwrap().push(ask.clone());
        let next = self.approvals.lock().unwrap().remove(0);
        Box::pin(async move { next })
    }
    fn review<'a>(&'a self, review: &'a ReviewRequest) -> BoxFuture<'a, Review> {
        self.reviewed.lock().unwrap().push(review.clone());
        let next = self.reviews.lock().unwrap().remove(0);
        Box::pin(async move { next })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_edit_review_and_reject_reach_the_server_and_the_transcript() {
    let llm = LlmServer::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": {"command": binary("mcp-canvas-demo")} } }).to_string()).unwrap();
    std::fs::write(dir.path().join("settings.toml"), llm.settings("ask")).unwrap();
    let scripted = Arc::new(Scripted::default());
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(900), session: None }).unwrap().with_sampling(scripted.clone(), None);

    // Edited prompt, and the completion replaced in review: the server gets the user's text.
    let mut edited = None;
    {
        *scripted.approvals.lock().unwrap() = vec![Approval::Approve { request: None, model: None, review: true }];
        *scripted.reviews.lock().unwrap() = vec![Review::Send { result: None }];
    }
    // First pass: learn the request the demo sends, then edit it.
    let first = call(&host, "demo", "sample_text", json!({"prompt": "Name a fruit.", "max_tokens": 500})).await;
    assert!(first.outcome.error.is_none(), "{:#?}", first.outcome);
    let shown = scripted.shown.lock().unwrap()[0].clone();
    assert_eq!(shown.server, "demo");
    assert_eq!(shown.request.max_tokens, 96, "capped by the provider's max_tokens");
    assert!(shown.notes.iter().any(|n| n.contains("capped")), "{:?}", shown.notes);
    if let Some(mut request) = Some(shown.request.clone()) {
        request.messages[0].content = vec![Block::text("Name a vegetable.")];
        edited = Some(request);
    }
    let review = scripted.reviewed.lock().unwrap()[0].clone();
    let mut replaced = review.result.clone();
    replaced.content = vec![Block::text("Edited by the user.")];
    *scripted.approvals.lock().unwrap() = vec![Approval::Approve { request: edited.clone(), model: None, review: true }];
    *scripted.reviews.lock().unwrap() = vec![Review::Send { result: Some(replaced) }];
    let second = call(&host, "demo", "sample_text", json!({"prompt": "Name a fruit."})).await;
    assert!(texts(&second).contains("Edited by the user."), "{}", texts(&second));

    // Rejected: nothing reached the model. The demo speaks 2026-07-28, where the request is a
    // round of the call itself with no way to answer it with an error: the call ends with our
    // reason (tests/cli.rs has the initialize era, where the tool quotes it).
    *scripted.approvals.lock().unwrap() = vec![Approval::Reject { reason: "not now".into() }];
    let error = host.call_tool_with("demo", "sample_text", json!({}), CallOptions { confirmed: true, ..CallOptions::default() }).await.unwrap_err().to_string();
    assert!(error.contains("rejected") && error.contains("not now"), "{error}");

    let log = host.sampling_log(Some("demo"), 10).unwrap();
    let decisions: Vec<Decision> = log.iter().map(|r| r.decision).collect();
    assert_eq!(decisions, [Decision::Rejected, Decision::ResponseEdited, Decision::Approved]);
    assert_eq!(log[1].edited_request.as_ref().unwrap().messages[0].text(), "Name a vegetable.");
    assert_eq!(log[2].usage.output_tokens > 0, true);
    assert!(log[0].response.is_none() && log[0].usage.output_tokens == 0 && log[0].error.as_deref().unwrap().contains("not now"));
    host.shutdown().await;
}

/// The API key goes into the provider's `Authorization` header and nowhere else: not the catalog
/// (transcript, audit rows), not the server's log, not any other file in the data dir.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_key_never_reaches_the_data_dir() {
    const VARIABLE: &str = "MCP_CANVAS_E2E_SAMPLING_KEY";
    const SECRET: &str = "sk-e2e-never-stored-7f3a91c2";
    // SAFETY: the one variable only this test reads, set before anything reads it.
    unsafe { std::env::set_var(VARIABLE, SECRET) };
    let llm = LlmServer::start();
    let settings = llm.settings("always").replace("timeout_seconds = 600\n", &format!("timeout_seconds = 600\napi_key_env = \"{VARIABLE}\"\n"));
    let (dir, host) = host_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }), &settings);
    for (tool, arguments) in [("sample_text", json!({"prompt": "Name a colour.", "max_tokens": 8})), ("sample_structured", json!({}))] {
        let outcome = call(&host, "demo", tool, arguments).await;
        assert!(outcome.outcome.error.is_none(), "{tool}: {:#?}", outcome.outcome);
    }
    assert_eq!(host.sampling_log(Some("demo"), 10).unwrap().len(), 2, "the exchanges were kept");
    host.shutdown().await;

    let mut files = Vec::new();
    let mut dirs = vec![dir.path().to_owned()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { dirs.push(path) } else { files.push(path) }
        }
    }
    assert!(files.iter().any(|f| f.to_string_lossy().contains("catalog")), "the catalog is among the files scanned: {files:?}");
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()), "the key is in {}", file.display());
    }
}
