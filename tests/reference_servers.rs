//! The official reference server `@modelcontextprotocol/server-everything` (pinned in
//! `scripts/setup.sh --tests`, installed into `.deps/npm`) through our `Host`, over stdio and over
//! Streamable HTTP: every tool it lists after initialize (with the capabilities we advertise) is
//! called with valid arguments and its result checked — the tiny image is stored as a PNG with the
//! exact bytes, an embedded Blob resource becomes an artifact, resource links are readable and
//! become artifacts, structured content validates against the output schema, and content
//! annotated for the user only stays out of the model's summary.
//!
//! No network at test time: the installed copy runs under the Node 22 installed next to it. When
//! it is missing the tests fail and say to run `scripts/setup.sh --tests`.

use std::{
    collections::BTreeMap,
    process::Stdio,
    sync::Arc,
    time::{Duration, Instant},
};

use base64::Engine as _;
use mcp_canvas_contract::{Audience, ToolOutcome};
use mcp_canvas_e2e::npm::{everything, tiny_image_bytes};
use mcp_canvas_wire::{offers::resource_links, ToolView};
use mcp_canvas_host::{CallOptions, Host, HostOptions};
use serde_json::{json, Map, Value};
use sha2::Digest as _;

fn host_with(servers: Value) -> (tempfile::TempDir, Arc<Host>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(300), session: None }).unwrap();
    (dir, Arc::new(host))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_stdio() {
    let (node, script) = everything();
    let (_dir, host) = host_with(json!({ "everything": {"command": node, "args": [script, "stdio"]} }));
    exercise(&host, "everything").await;
    host.shutdown().await;
}

/// The same server at an older version the entry asks for (`initialize` at 2025-06-18): the
/// host speaks whatever era and version the server is of.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_stdio_at_an_older_version() {
    let (node, script) = everything();
    let (_dir, host) = host_with(json!({ "everything": {"command": node, "args": [script, "stdio"], "protocol_version": "2025-06-18"} }));
    exercise(&host, "everything").await;
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_streamable_http() {
    let (node, script) = everything();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = tokio::process::Command::new(node)
        .arg(script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = {
        use tokio::io::AsyncBufReadExt as _;
        tokio::io::BufReader::new(server.stderr.take().unwrap()).lines()
    };
    tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("listening on port") {
                return;
            }
            eprintln!("server-everything: {line}");
        }
        panic!("server-everything exited before listening");
    })
    .await
    .expect("server-everything listens within 120 s");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    let url = format!("http://127.0.0.1:{port}/mcp");
    let (_dir, host) = host_with(json!({ "everything": {"type": "http", "url": url} }));
    exercise(&host, "everything").await;
    host.shutdown().await;
    let _ = server.kill().await;
}

/// Calls every listed tool and checks what came back.
async fn exercise(host: &Host, server: &str) {
    let started = Instant::now();
    let tools = host.tools(server).await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    eprintln!("{server}: {} tools: {}", names.len(), names.join(", "));
    for always in ["echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference", "get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource", "toggle-simulated-logging", "toggle-subscriber-updates", "trigger-long-running-operation"] {
        assert!(names.contains(&always), "{always} is always listed: {names:?}");
    }
    let mut checked = BTreeMap::new();
    for tool in &tools {
        let name = tool.name.as_str();
        if let Some(reason) = skip_reason(tool) {
            eprintln!("  skipped {name}: {reason}");
            checked.insert(name.to_owned(), format!("skipped: {reason}"));
            continue;
        }
        let clock = Instant::now();
        check_tool(host, server, tool).await;
        eprintln!("  checked {name} ({:?})", clock.elapsed());
        checked.insert(name.to_owned(), "checked".to_owned());
    }
    assert_eq!(checked.len(), tools.len());
    check_resources(host, server).await;
    eprintln!("{server}: all tools in {:?}", started.elapsed());
}

/// Tools we do not call, and why. Everything else is called.
fn skip_reason(tool: &ToolView) -> Option<&'static str> {
    match tool.name.as_str() {
        "trigger-elicitation-request" | "trigger-elicitation-request-async" | "trigger-url-elicitation" => {
            Some("needs a person to answer an elicitation (covered by the elicitation tests)")
        }
        "trigger-sampling-request" | "trigger-sampling-request-async" => Some("answered by a real model in tests/sampling.rs; here nobody approves"),
        "get-roots-list" => Some("needs the roots capability, which MCP Canvas does not offer"),
        _ => None,
    }
}

async fn call(host: &Host, server: &str, tool: &str, arguments: Value) -> ToolOutcome {
    let outcome = host
        .call_tool_with(server, tool, arguments.clone(), CallOptions { confirmed: true, ..CallOptions::default() })
        .await
        .unwrap_or_else(|e| panic!("{tool} {arguments}: {e}"));
    outcome.outcome
}

fn texts(outcome: &ToolOutcome) -> String {
    outcome.texts.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn stored(host: &Host, sha256: &str) -> Vec<u8> {
    let bytes = std::fs::read(host.store().blob_path(sha256)).unwrap();
    assert_eq!(sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect::<String>(), sha256);
    bytes
}

fn assert_model_safe(outcome: &ToolOutcome) {
    let longest = outcome.summary.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '=')).map(str::len).max().unwrap_or(0);
    assert!(longest < 60, "the summary carries a {longest}-char base64-like run: {}", outcome.summary);
}

async fn check_tool(host: &Host, server: &str, tool: &ToolView) {
    let name = tool.name.as_str();
    match name {
        "echo" => {
            let outcome = call(host, server, name, json!({"message": "hello from MCP Canvas"})).await;
            assert_eq!(texts(&outcome), "Echo: hello from MCP Canvas");
        }
        "get-sum" => {
            let outcome = call(host, server, name, json!({"a": 2, "b": 3.5})).await;
            assert!(texts(&outcome).contains("is 5.5"), "{outcome:#?}");
        }
        "get-env" => {
            let outcome = call(host, server, name, json!({})).await;
            assert!(outcome.error.is_none() && (outcome.results.is_some() || !outcome.texts.is_empty()), "{:?}", outcome.summary);
        }
        "get-tiny-image" => {
            let outcome = call(host, server, name, json!({})).await;
            assert_eq!(outcome.artifacts.len(), 1, "{outcome:#?}");
            let image = &outcome.artifacts[0];
            assert_eq!(image.mime, "image/png");
            assert!(stored(host, &image.sha256) == tiny_image_bytes(), "the stored PNG is exactly the one the server sent");
            assert_eq!((image.width, image.height), (Some(20), Some(20)));
            assert!(texts(&outcome).contains("Here's the image you requested"), "{outcome:#?}");
            assert!(outcome.summary.contains(&image.id));
            assert_model_safe(&outcome);
        }
        "get-annotated-message" => check_annotations(host, server).await,
        "get-structured-content" => {
            let outcome = call(host, server, name, json!({"location": "Chicago"})).await;
            assert!(tool.input_schema["properties"]["location"]["enum"].is_array(), "{}", tool.input_schema);
            assert!(!outcome.warnings.iter().any(|w| w.contains("outputSchema")), "structured content validates: {:?}", outcome.warnings);
            let results = outcome.results.as_ref().unwrap_or_else(|| panic!("structured content is kept: {outcome:#?}"));
            for key in ["temperature", "conditions", "humidity"] {
                assert!(results.get(key).is_some(), "{key} in {results}");
            }
        }
        "get-resource-reference" => {
            for (kind, id) in [("Blob", 2), ("Text", 3)] {
                let outcome = call(host, server, name, json!({"resourceType": kind, "resourceId": id})).await;
                assert_eq!(outcome.artifacts.len(), 1, "{kind}: {outcome:#?}");
                let artifact = &outcome.artifacts[0];
                assert_eq!(artifact.mime, "text/plain");
                let bytes = String::from_utf8(stored(host, &artifact.sha256)).unwrap();
                let expected = if kind == "Blob" { format!("Resource {id}: This is a base64 blob created at") } else { format!("Resource {id}: This is a plaintext resource created at") };
                assert!(bytes.starts_with(&expected), "{kind}: the decoded blob is stored, not base64: {bytes:?}");
                assert_model_safe(&outcome);
            }
        }
        "get-resource-links" => {
            let outcome = call(host, server, name, json!({"count": 4})).await;
            assert!(outcome.artifacts.is_empty(), "links are offered, not read: {outcome:#?}");
            let links = resource_links(&outcome);
            assert_eq!(links.len(), 4, "{outcome:#?}");
            for link in &links {
                let read = host.read_resource(server, &link.uri).await.unwrap_or_else(|e| panic!("{}: {e}", link.uri));
                assert_eq!(read.outcome.artifacts.len(), 1, "{}: {:#?}", link.uri, read.outcome);
                let bytes = String::from_utf8(stored(host, &read.outcome.artifacts[0].sha256)).unwrap();
                assert!(bytes.starts_with("Resource "), "{}: {bytes:?}", link.uri);
                assert_model_safe(&read.outcome);
            }
        }
        "gzip-file-as-resource" => {
            let text = "MCP Canvas ".repeat(50);
            let data = format!("data:text/plain;base64,{}", base64::engine::general_purpose::STANDARD.encode(&text));
            // Embedded: the gzip blob becomes an artifact.
            let outcome = call(host, server, name, json!({"name": "canvas.txt.gz", "data": data, "outputType": "resource"})).await;
            assert_eq!(outcome.artifacts.len(), 1, "{outcome:#?}");
            assert_eq!((outcome.artifacts[0].name.as_str(), outcome.artifacts[0].mime.as_str()), ("canvas.txt.gz", "application/gzip"));
            let gzip = stored(host, &outcome.artifacts[0].sha256);
            assert_eq!(&gzip[..2], b"\x1f\x8b");
            // As a link: readable, and reading it stores the same bytes.
            let outcome = call(host, server, name, json!({"name": "linked.txt.gz", "data": data, "outputType": "resourceLink"})).await;
            let links = resource_links(&outcome);
            assert_eq!(links.len(), 1, "{outcome:#?}");
            let read = host.read_resource(server, &links[0].uri).await.unwrap();
            assert_eq!(read.outcome.artifacts.len(), 1);
            assert_eq!(read.outcome.artifacts[0].name, "linked.txt.gz");
            assert!(stored(host, &read.outcome.artifacts[0].sha256) == gzip, "the same text gzips to the same bytes");
        }
        "toggle-simulated-logging" | "toggle-subscriber-updates" => {
            let on = call(host, server, name, json!({})).await;
            assert!(texts(&on).starts_with("Started"), "{on:#?}");
            let off = call(host, server, name, json!({})).await;
            assert!(texts(&off).starts_with("Stopped"), "{off:#?}");
        }
        "trigger-long-running-operation" => {
            let outcome = call(host, server, name, json!({"duration": 0.4, "steps": 2})).await;
            assert!(texts(&outcome).contains("Long running operation completed"), "{outcome:#?}");
        }
        "simulate-research-query" => {
            // `execution.taskSupport: required`: refused as a plain call, then run as a 2025-11-25
            // task (tests/tasks.rs follows its progress, question and cancel).
            let outcome = call(host, server, name, json!({"topic": "canvas"})).await;
            assert!(texts(&outcome).contains("# Research Report: canvas"), "{outcome:#?}");
        }
        _ => {
            // A tool this test does not know yet (a newer server): call it with arguments made
            // from its schema and require an answer, not a host failure.
            let arguments = arguments_from_schema(&tool.input_schema);
            let outcome = call(host, server, name, arguments).await;
            eprintln!("    {name} (unknown to this test): {}", outcome.summary.chars().take(120).collect::<String>());
        }
    }
}

/// `get-annotated-message`: content for the user only never reaches the model's summary; content
/// for the assistant or both does; the user-only image is stored and marked for the user.
async fn check_annotations(host: &Host, server: &str) {
    let error = call(host, server, "get-annotated-message", json!({"messageType": "error", "includeImage": true})).await;
    assert!(error.summary.contains("Error: Operation failed"), "for both audiences: {}", error.summary);
    assert_eq!(error.artifacts.len(), 1, "{error:#?}");
    assert_eq!(error.artifacts[0].audience, Audience::User);
    assert!(stored(host, &error.artifacts[0].sha256) == tiny_image_bytes());
    assert!(!error.summary.contains(&error.artifacts[0].id), "a user-only image is not mentioned to the model: {}", error.summary);

    let success = call(host, server, "get-annotated-message", json!({"messageType": "success"})).await;
    assert!(!success.summary.contains("Operation completed successfully"), "user-only text stays out of the summary: {}", success.summary);
    let text = success.texts.iter().find(|t| t.text == "Operation completed successfully").expect("still shown to the user");
    assert_eq!(text.audience, Audience::User);
    // rmcp keeps `priority` as an f32: 0.7 comes back as 0.699999988.
    assert!(text.priority.is_some_and(|p| (p - 0.7).abs() < 1e-6), "{:?}", text.priority);

    let debug = call(host, server, "get-annotated-message", json!({"messageType": "debug"})).await;
    assert!(debug.summary.contains("Cache hit ratio"), "assistant-only text is for the model: {}", debug.summary);
    assert_eq!(debug.texts[0].audience, Audience::Assistant);
}

/// Every listed resource reads and becomes artifacts; templates are listed.
async fn check_resources(host: &Host, server: &str) {
    let list = host.resources(server).await.unwrap();
    assert!(list.supported);
    assert!(!list.resources.is_empty() && !list.templates.is_empty(), "{list:#?}");
    for resource in list.resources.iter().take(3) {
        let read = host.read_resource(server, &resource.uri).await.unwrap_or_else(|e| panic!("{}: {e}", resource.uri));
        assert!(!read.outcome.artifacts.is_empty(), "{}: {:#?}", resource.uri, read.outcome);
        assert_model_safe(&read.outcome);
    }
}

/// Arguments from a JSON Schema: every required property, from its default, first enum value,
/// or a simple value of its type.
fn arguments_from_schema(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    for key in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let property = properties.and_then(|p| p.get(key)).cloned().unwrap_or(Value::Null);
        arguments.insert(key.to_owned(), value_for(&property));
    }
    Value::Object(arguments)
}

fn value_for(property: &Value) -> Value {
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    if let Some(first) = property.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string") => json!("canvas"),
        Some("integer") => json!(property.get("minimum").and_then(Value::as_i64).unwrap_or(1)),
        Some("number") => json!(property.get("minimum").and_then(Value::as_f64).unwrap_or(1.0)),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => arguments_from_schema(property),
        _ => Value::Null,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_prompts_are_listed_and_filled_in() {
    let (node, script) = everything();
    let (_dir, host) = host_with(json!({ "everything": {"command": node, "args": [script]} }));
    let prompts = host.prompts("everything").await.unwrap();
    let args_prompt = prompts.iter().find(|p| p.name == "args-prompt").unwrap_or_else(|| panic!("{prompts:?}"));
    assert_eq!(args_prompt.title.as_deref(), Some("Arguments Prompt"));
    let city = args_prompt.arguments.iter().find(|a| a.name == "city").unwrap();
    assert!(city.required && !args_prompt.arguments.iter().find(|a| a.name == "state").unwrap().required);

    let missing = host.get_prompt("everything", "args-prompt", Map::new()).await.unwrap_err().to_string();
    assert!(missing.contains("city"), "the missing argument is named: {missing}");
    let unknown = host.get_prompt("everything", "no-such-prompt", Map::new()).await.unwrap_err().to_string();
    assert!(unknown.contains("args-prompt"), "the known prompts are listed: {unknown}");

    let mut arguments = Map::new();
    arguments.insert("city".into(), json!("Oslo"));
    arguments.insert("state".into(), json!(7));
    let filled = serde_json::to_value(host.get_prompt("everything", "args-prompt", arguments).await.unwrap()).unwrap();
    assert_eq!(filled["messages"][0]["content"]["text"], "What's weather in Oslo, 7?", "{filled}");
    host.shutdown().await;
}
