//! The Sampler against a scripted provider server on 127.0.0.1 that records every request and
//! answers from a script: exact wire per provider, the `__schema__` structured path with its
//! repair round, the naive path, policy (always / never / ask with approve, edit, reject,
//! review), caps, rate limits, oversized requests, images to a text-only provider, provider
//! errors and timeouts — and the API key nowhere but its header.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use mcp_canvas_sampling::{
    provider::BoxFuture,
    sampler::{Approval, ApprovalRequest, Decision, ExchangeRecord, NoCall, Review, ReviewRequest},
    Approver, Block, Sampler, SamplingRequest, SamplingSettings, StopReason, Transcript,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One recorded request: path, headers (lower-case), JSON body.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: String,
    body: Value,
}

/// Answers: (status, body) in order; `None` never answers.
type Script = Arc<Mutex<VecDeque<Option<(u16, Value)>>>>;

async fn scripted(script: Script, seen: Arc<Mutex<Vec<Seen>>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            let (script, seen) = (script.clone(), seen.clone());
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                let mut chunk = [0u8; 8192];
                loop {
                    let Ok(n) = stream.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buffer.extend_from_slice(&chunk[..n]);
                    let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                    let head = String::from_utf8_lossy(&buffer[..end]).to_string();
                    let length: usize = head.to_lowercase().lines().find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse().unwrap())).unwrap_or(0);
                    if buffer.len() < end + 4 + length {
                        continue;
                    }
                    let body: Value = serde_json::from_slice(&buffer[end + 4..end + 4 + length]).unwrap();
                    buffer.drain(..end + 4 + length);
                    let path = head.split_whitespace().nth(1).unwrap().to_owned();
                    seen.lock().unwrap().push(Seen { path, headers: head.to_lowercase(), body });
                    let next = script.lock().unwrap().pop_front().expect("a scripted answer for every request");
                    let Some((status, answer)) = next else {
                        std::future::pending::<()>().await;
                        return;
                    };
                    let text = answer.to_string();
                    let reply = format!("HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}", text.len());
                    if stream.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[derive(Default)]
struct Kept(Mutex<Vec<ExchangeRecord>>);
impl Transcript for Kept {
    fn record(&self, record: &ExchangeRecord) {
        self.0.lock().unwrap().push(record.clone());
    }
}

#[derive(Default)]
struct Scripted {
    approvals: Mutex<VecDeque<Approval>>,
    reviews: Mutex<VecDeque<Review>>,
    shown: Mutex<Vec<ApprovalRequest>>,
}
impl Approver for Scripted {
    fn approve<'a>(&'a self, ask: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        self.shown.lock().unwrap().push(ask.clone());
        let next = self.approvals.lock().unwrap().pop_front().unwrap();
        Box::pin(async move { next })
    }
    fn review<'a>(&'a self, _review: &'a ReviewRequest) -> BoxFuture<'a, Review> {
        let next = self.reviews.lock().unwrap().pop_front().unwrap();
        Box::pin(async move { next })
    }
}

struct Rig {
    sampler: Sampler,
    script: Script,
    seen: Arc<Mutex<Vec<Seen>>>,
    kept: Arc<Kept>,
    approver: Arc<Scripted>,
}

/// A sampler whose one provider (`kind`, extra provider keys) is the scripted server.
async fn rig(kind: &str, policy: &str, extra: Value) -> Rig {
    let script: Script = Arc::default();
    let seen = Arc::default();
    let base = scripted(script.clone(), Arc::clone(&seen)).await;
    let base_url = if kind == "openai" { format!("{base}/v1") } else { base };
    let mut provider = json!({"name": "p", "kind": kind, "base_url": base_url, "models": ["model-a", "model-b"], "max_tokens": 100});
    provider.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let settings: SamplingSettings = serde_json::from_value(json!({"policy": policy, "requests_per_minute": 3, "max_request_bytes": 10000, "providers": [provider]})).unwrap();
    let kept = Arc::new(Kept::default());
    let approver = Arc::new(Scripted::default());
    Rig { sampler: Sampler::new(settings, approver.clone(), kept.clone()), script, seen, kept, approver }
}

impl Rig {
    fn answer(&self, status: u16, body: Value) {
        self.script.lock().unwrap().push_back(Some((status, body)));
    }
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
    fn records(&self) -> Vec<ExchangeRecord> {
        self.kept.0.lock().unwrap().clone()
    }
}

fn openai_text(text: &str) -> Value {
    json!({"model": "model-a", "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 3}})
}

fn schema_request() -> SamplingRequest {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "a city"}}],
        "maxTokens": 50,
        "tools": [{"name": "__schema__", "description": "Respond with structured data matching this schema.",
                   "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}, "population": {"type": "integer", "minimum": 0}}, "required": ["name", "population"]}}],
        "toolChoice": {"mode": "required"}
    }))
    .unwrap()
}

#[tokio::test]
async fn openai_wire_key_only_in_its_header_and_model_hints() {
    unsafe { std::env::set_var("MCP_CANVAS_TEST_OPENAI_KEY", "sk-test-secret") };
    let rig = rig("openai", "always", json!({"api_key_env": "MCP_CANVAS_TEST_OPENAI_KEY"})).await;
    rig.answer(200, openai_text("hello"));
    let mut request = SamplingRequest::user("hi", 500);
    request.system_prompt = Some("sys".into());
    request.model_preferences = Some(serde_json::from_value(json!({"hints": [{"name": "model-b"}]})).unwrap());
    let result = rig.sampler.create_message("srv", request, &NoCall).await.unwrap();
    assert_eq!((result.content.clone(), result.stop_reason), (vec![Block::text("hello")], Some(StopReason::EndTurn)));
    let seen = rig.seen();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert!(seen[0].headers.contains("authorization: bearer sk-test-secret"));
    assert_eq!(seen[0].body, json!({"model": "model-b", "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}], "max_tokens": 100}));
    let record = &rig.records()[0];
    assert_eq!((record.decision, record.model.as_str(), record.usage.output_tokens), (Decision::Automatic, "model-b", 3));
    assert!(!serde_json::to_string(record).unwrap().contains("sk-test-secret"), "the key is not in the transcript");
}

#[tokio::test]
async fn schema_goes_through_the_structured_mode_with_one_repair_round() {
    let rig = rig("openai", "always", json!({"structured": "json_object_schema"})).await;
    rig.answer(200, openai_text(r#"{"name": "Oslo"}"#));
    rig.answer(200, openai_text(r#"{"name": "Oslo", "population": 700000}"#));
    let result = rig.sampler.create_message("srv", schema_request(), &NoCall).await.unwrap();
    let wire = serde_json::to_value(&result).unwrap();
    assert_eq!(wire["stopReason"], "toolUse");
    assert_eq!(wire["content"]["type"], "tool_use");
    assert_eq!(wire["content"]["name"], "__schema__");
    assert_eq!(wire["content"]["input"], json!({"name": "Oslo", "population": 700000}));
    let seen = rig.seen();
    assert_eq!(seen.len(), 2, "one repair round");
    assert_eq!(seen[0].body["response_format"]["type"], "json_object");
    assert!(seen[0].body.get("tools").is_none(), "the schema travels in response_format, not as a tool");
    let repair = seen[1].body["messages"].as_array().unwrap();
    assert!(repair.last().unwrap()["content"].as_str().unwrap().contains("population"), "{repair:?}");
    let record = &rig.records()[0];
    assert!(record.structured);
    assert_eq!(record.usage.output_tokens, 6, "both rounds counted");
    let exchange = record.exchange.as_ref().unwrap();
    assert_eq!(exchange.messages.len(), 3);
    assert_eq!(exchange.parsed.as_ref().unwrap()["population"], 700000);
}

#[tokio::test]
async fn schema_failing_twice_is_an_error_naming_the_problems() {
    let rig = rig("openai", "always", json!({})).await;
    rig.answer(200, openai_text("not json"));
    rig.answer(200, openai_text(r#"{"name": 5, "population": -1}"#));
    let err = rig.sampler.create_message("srv", schema_request(), &NoCall).await.unwrap_err();
    assert!(err.message.contains("after one repair round") && err.message.contains("/population"), "{}", err.message);
    assert_eq!(rig.seen().len(), 2);
    assert_eq!(rig.seen()[0].body["response_format"]["type"], "json_schema");
    assert_eq!(rig.records()[0].decision, Decision::Failed);
}

#[tokio::test]
async fn schema_beside_another_tool_or_without_a_structured_mode_is_a_normal_tool() {
    for (extra, tools) in [(json!({"structured": "none"}), 1), (json!({}), 2)] {
        let rig = rig("openai", "always", extra).await;
        let call = json!({"model": "m", "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "__schema__", "arguments": "{\"name\":\"X\",\"population\":1}"}}]}, "finish_reason": "tool_calls"}]});
        rig.answer(200, call);
        let mut request = schema_request();
        if tools == 2 {
            let mut other = request.tools[0].clone();
            other.name = "search".into();
            request.tools.push(other);
        }
        let result = rig.sampler.create_message("srv", request, &NoCall).await.unwrap();
        let body = &rig.seen()[0].body;
        assert_eq!(body["tools"].as_array().unwrap().len(), tools);
        assert!(body.get("response_format").is_none());
        assert_eq!(body["tool_choice"], "required");
        assert!(matches!(&result.content[0], Block::ToolUse { id, name, .. } if id == "c9" && name == "__schema__"));
        assert_eq!(result.stop_reason, Some(StopReason::ToolUse));
        assert!(!rig.records()[0].structured);
    }
}

#[tokio::test]
async fn anthropic_and_ollama_wire() {
    let rig = rig("anthropic", "always", json!({})).await;
    rig.answer(200, json!({"model": "model-a", "content": [{"type": "tool_use", "id": "t1", "name": "__schema__", "input": {"name": "Oslo", "population": 1}}], "stop_reason": "tool_use", "usage": {"input_tokens": 4, "output_tokens": 2}}));
    let result = rig.sampler.create_message("srv", schema_request(), &NoCall).await.unwrap();
    assert!(matches!(&result.content[0], Block::ToolUse { name, input, .. } if name == "__schema__" && input["name"] == "Oslo"));
    let seen = rig.seen();
    assert_eq!(seen[0].path, "/v1/messages");
    assert!(seen[0].headers.contains("anthropic-version: 2023-06-01"));
    assert_eq!(seen[0].body["tool_choice"], json!({"type": "tool", "name": "__schema__"}));

    let ollama = self::rig("ollama", "always", json!({})).await;
    ollama.answer(200, json!({"model": "model-a", "message": {"role": "assistant", "content": "{\"name\":\"Bergen\",\"population\":2}"}, "done_reason": "stop", "prompt_eval_count": 3, "eval_count": 2}));
    ollama.sampler.create_message("srv", schema_request(), &NoCall).await.unwrap();
    let seen = ollama.seen();
    assert_eq!(seen[0].path, "/api/chat");
    assert_eq!(seen[0].body["format"]["required"], json!(["name", "population"]));
    assert_eq!(seen[0].body["stream"], false);
}

#[tokio::test]
async fn ask_approve_edit_review_and_reject() {
    let rig = rig("openai", "ask", json!({})).await;
    // Rejected: no provider request, error -1 with the reason.
    rig.approver.approvals.lock().unwrap().push_back(Approval::Reject { reason: "not now".into() });
    let err = rig.sampler.create_message("srv", SamplingRequest::user("hi", 500), &NoCall).await.unwrap_err();
    assert_eq!(err.code, -1);
    assert!(err.message.contains("not now"));
    assert!(rig.seen().is_empty());
    let shown = rig.approver.shown.lock().unwrap()[0].clone();
    assert_eq!(shown.request.max_tokens, 100, "the cap is applied before the user sees it");
    assert!(shown.notes.iter().any(|n| n.contains("capped")));

    // Edited request and another model; the completion edited in review.
    let mut edited = shown.request.clone();
    edited.messages[0].content = vec![Block::text("edited prompt")];
    rig.approver.approvals.lock().unwrap().push_back(Approval::Approve { request: Some(edited), model: Some("model-b".into()), review: true });
    let mut replaced: mcp_canvas_sampling::SamplingResult = serde_json::from_value(json!({"model": "model-b", "role": "assistant", "content": {"type": "text", "text": "the user's words"}})).unwrap();
    replaced.stop_reason = Some(StopReason::EndTurn);
    rig.approver.reviews.lock().unwrap().push_back(Review::Send { result: Some(replaced.clone()) });
    rig.answer(200, openai_text("model words"));
    let result = rig.sampler.create_message("srv", SamplingRequest::user("hi", 500), &NoCall).await.unwrap();
    assert_eq!(result, replaced);
    assert_eq!(rig.seen()[0].body["messages"][0]["content"], "edited prompt");
    assert_eq!(rig.seen()[0].body["model"], "model-b");
    let records = rig.records();
    assert_eq!(records.iter().map(|r| r.decision).collect::<Vec<_>>(), [Decision::Rejected, Decision::ResponseEdited]);
    assert_eq!(records[1].edited_request.as_ref().unwrap().messages[0].text(), "edited prompt");
}

#[tokio::test]
async fn never_rate_limits_size_and_images_are_refused_with_reasons() {
    let never = rig("openai", "never", json!({})).await;
    assert!(never.sampler.capability("srv").is_none(), "not advertised under never");
    let err = never.sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await.unwrap_err();
    assert!(err.message.contains("`never`"), "{}", err.message);

    let rig = rig("openai", "always", json!({})).await;
    assert_eq!(rig.sampler.capability("srv").map(|c| c.tools), Some(true));
    for _ in 0..3 {
        rig.answer(200, openai_text("ok"));
        rig.sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await.unwrap();
    }
    let err = rig.sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await.unwrap_err();
    assert!(err.message.contains("more than 3 completions in a minute"), "{}", err.message);
    rig.answer(200, openai_text("ok"));
    rig.sampler.create_message("other", SamplingRequest::user("hi", 5), &NoCall).await.expect("the limit is per server");

    let err = rig.sampler.create_message("big", SamplingRequest::user("x".repeat(20_000), 5), &NoCall).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("max_request_bytes"), "{}", err.message);
    let mut image = SamplingRequest::user("look", 5);
    image.messages[0].content.push(Block::Image { data: "AAAA".into(), mime_type: "image/png".into() });
    let err = rig.sampler.create_message("img", image, &NoCall).await.unwrap_err();
    assert!(err.message.contains("vision"), "{}", err.message);
    assert_eq!(rig.seen().len(), 4, "refusals reach no provider");
}

#[tokio::test]
async fn provider_errors_and_timeouts_name_the_provider_and_status() {
    unsafe { std::env::set_var("MCP_CANVAS_TEST_KEY_2", "sk-never-shown") };
    let rig = rig("openai", "always", json!({"timeout_seconds": 1, "api_key_env": "MCP_CANVAS_TEST_KEY_2"})).await;
    rig.answer(401, json!({"error": {"message": "Incorrect API key provided", "type": "auth"}}));
    let err = rig.sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await.unwrap_err();
    assert!(err.message.contains("p answered HTTP 401: Incorrect API key provided"), "{}", err.message);
    assert!(!err.message.contains("sk-never-shown"));
    rig.script.lock().unwrap().push_back(None);
    let err = rig.sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await.unwrap_err();
    assert!(err.message.contains("p did not answer within 1 s"), "{}", err.message);
    assert!(rig.records().iter().all(|r| r.decision == Decision::Failed && !serde_json::to_string(r).unwrap().contains("sk-never-shown")));

    let settings: SamplingSettings = serde_json::from_value(json!({"policy": "always", "providers": [{"name": "gone", "kind": "openai", "base_url": "http://127.0.0.1:9/v1", "models": ["m"]}]})).unwrap();
    let sampler = Sampler::new(settings, Arc::new(Scripted::default()), Arc::new(Kept::default()));
    let err = sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await.unwrap_err();
    assert!(err.message.contains("gone could not be reached at http://127.0.0.1:9/v1/chat/completions"), "{}", err.message);

    let empty = Sampler::new(SamplingSettings::default(), Arc::new(Scripted::default()), Arc::new(Kept::default()));
    let err = empty.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await;
    // Default policy is ask: the scripted approver would be asked only with a provider.
    assert!(err.unwrap_err().message.contains("no LLM provider is configured"));
}

#[tokio::test]
async fn openai_native_schema_is_strict_only_when_openai_would_accept_it() {
    let rig = rig("openai", "always", json!({})).await;
    let city = r#"{"name": "Oslo", "population": 1}"#;
    rig.answer(200, openai_text(city));
    rig.answer(200, openai_text(city));
    // Every object closed and every property required: OpenAI takes it strict.
    let mut closed = schema_request();
    closed.tools[0].input_schema.insert("additionalProperties".into(), json!(false));
    rig.sampler.create_message("srv", closed.clone(), &NoCall).await.unwrap();
    // additionalProperties not false: strict would be a 400 from OpenAI; our own check still holds.
    rig.sampler.create_message("srv", schema_request(), &NoCall).await.unwrap();
    let seen = rig.seen();
    let format = |i: usize| seen[i].body["response_format"]["json_schema"].clone();
    assert_eq!((format(0)["strict"].clone(), format(0)["schema"].clone()), (json!(true), Value::Object(closed.tools[0].input_schema.clone())));
    assert_eq!((format(1)["strict"].clone(), format(1)["schema"].clone()), (json!(false), Value::Object(schema_request().tools[0].input_schema.clone())));
}

fn approve() -> Approval {
    Approval::Approve { request: None, model: None, review: false }
}

#[tokio::test]
async fn what_the_provider_cannot_take_is_refused_before_the_user_is_asked() {
    let mut image = SamplingRequest::user("look", 20);
    image.messages[0].content.push(Block::Image { data: "AAAA".into(), mime_type: "image/png".into() });
    // An image inside a tool result is an image too.
    let in_result: SamplingRequest = serde_json::from_value(json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "chart it"}},
            {"role": "assistant", "content": {"type": "tool_use", "id": "c1", "name": "chart", "input": {}}},
            {"role": "user", "content": {"type": "tool_result", "toolUseId": "c1", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}}
        ],
        "maxTokens": 20
    }))
    .unwrap();
    let text_only = rig("openai", "ask", json!({})).await;
    for request in [image, in_result] {
        text_only.approver.approvals.lock().unwrap().push_back(approve());
        let err = text_only.sampler.create_message("srv", request, &NoCall).await.unwrap_err();
        assert!(err.message.contains("provider `p`") && err.message.contains("set vision = true"), "{}", err.message);
    }
    assert_eq!(text_only.approver.shown.lock().unwrap().len(), 0, "the user never approves what is then refused");
    assert!(text_only.seen().is_empty());
    assert!(text_only.records().iter().all(|r| r.decision == Decision::Refused && r.provider == "p"));

    let no_tools = rig("openai", "ask", json!({"tools": false})).await;
    no_tools.approver.approvals.lock().unwrap().push_back(approve());
    let mut request = SamplingRequest::user("search", 20);
    request.tools = vec![serde_json::from_value(json!({"name": "search", "inputSchema": {"type": "object"}})).unwrap()];
    let err = no_tools.sampler.create_message("srv", request, &NoCall).await.unwrap_err();
    assert!(err.message.contains("provider `p`") && err.message.contains("set tools = true"), "{}", err.message);
    assert_eq!(no_tools.approver.shown.lock().unwrap().len(), 0, "the user never approves what is then refused");
    assert!(no_tools.seen().is_empty());
}

#[tokio::test]
async fn ollama_says_it_cannot_force_a_tool_call() {
    let rig = rig("ollama", "ask", json!({})).await;
    rig.approver.approvals.lock().unwrap().push_back(approve());
    rig.answer(200, json!({"model": "model-a", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}, "done_reason": "stop"}));
    let mut request = SamplingRequest::user("weather in Oslo?", 20);
    request.tools = vec![serde_json::from_value(json!({"name": "get_weather", "inputSchema": {"type": "object"}})).unwrap()];
    request.tool_choice = Some(serde_json::from_value(json!({"mode": "required"})).unwrap());
    let result = rig.sampler.create_message("srv", request, &NoCall).await.unwrap();
    assert_eq!(result.stop_reason, Some(StopReason::ToolUse));
    let notes = rig.approver.shown.lock().unwrap()[0].notes.clone();
    assert!(notes.iter().any(|n| n.contains("Ollama") && n.contains("required")), "{notes:?}");
    let body = &rig.seen()[0].body;
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(body["messages"][0]["content"].as_str().unwrap().contains("call one of the provided tools"), "{body}");
}

#[tokio::test]
async fn an_oversized_provider_answer_is_an_error_naming_the_provider() {
    let rig = rig("openai", "always", json!({})).await;
    let mut huge = openai_text("hello");
    huge["padding"] = json!("x".repeat(17 << 20));
    rig.answer(200, huge);
    let err = rig.sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall).await.unwrap_err();
    assert!(err.message.contains("p sent an answer") && err.message.contains("16 MiB"), "{}", err.message);
    assert_eq!(rig.records()[0].decision, Decision::Failed);
}

/// Building a provider reads its API key from the OS keyring (a D-Bus round trip): that happens
/// on the blocking pool, never on the async worker answering the server. Here the factory waits
/// until another task on the same single-threaded runtime has run after it started; built on
/// the worker, that task could not run, and the factory would give up after its deadline.
#[test]
fn a_provider_is_built_while_the_async_worker_runs_other_tasks() {
    use std::sync::{atomic::{AtomicBool, Ordering}, mpsc};
    use mcp_canvas_sampling::keys::KeyError;
    let settings: SamplingSettings = serde_json::from_value(json!({"policy": "always", "providers": [
        {"name": "p", "kind": "openai", "base_url": "http://127.0.0.1:9/v1", "models": ["model-a"]}
    ]}))
    .unwrap();
    let started = Arc::new(AtomicBool::new(false));
    let (ran, other_task_ran) = mpsc::channel::<()>();
    let other_task_ran = Mutex::new(other_task_ran);
    let factory_started = started.clone();
    let kept = Arc::new(Kept::default());
    let sampler = Sampler::new(settings, Arc::new(Scripted::default()), kept.clone()).with_factory(Box::new(move |config| {
        factory_started.store(true, Ordering::SeqCst);
        let reason = match other_task_ran.lock().unwrap().recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(()) => "built while another task ran",
            Err(_) => "no other task ran while it was built",
        };
        Err(KeyError::Keyring { provider: config.name.clone(), reason: reason.to_owned() })
    }));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let answer = runtime.block_on(async {
        let other = async {
            while !started.load(Ordering::SeqCst) {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            let _ = ran.send(());
        };
        tokio::join!(sampler.create_message("srv", SamplingRequest::user("hi", 5), &NoCall), other).0
    });
    let err = answer.unwrap_err();
    assert!(err.message.contains("built while another task ran"), "{}", err.message);
    assert_eq!(kept.0.lock().unwrap().len(), 1, "the exchange is in the transcript when the answer goes back");
}
