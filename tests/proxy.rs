//! Proxy mode end to end: `mcp-canvas-cli proxy` in front of `mcp-canvas-demo` and the official
//! reference server, driven by clients no one here wrote.
//!
//! - The official TypeScript SDK client (`tests/proxy_client/scenario.mjs`, under the Node 22 and
//!   the SDK `scripts/setup.sh --tests` installs) over stdio and over Streamable HTTP: namespaced
//!   tools with their annotations, `download_workbook` as a summary plus a resource link whose
//!   bytes are the PDF the server sent (and a result ≥ 100× smaller than the raw one), the tiny
//!   image passed through, progress and elicitation forwarded, prompts, errors of both kinds.
//! - rmcp's client: misbehaving downstream servers become tool errors within the timeout and the
//!   proxy stays up; two servers with the same tool name are both reachable; the inline policy;
//!   a downstream server's sampling request answered by an AI host that declared sampling, and
//!   refused with the reason by one that did not (no app running).
//! - Raw lines: garbage from the AI host gets JSON-RPC errors, not a crash.

use std::{
    io::{BufRead as _, BufReader, Write as _},
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use base64::Engine as _;
use mcp_canvas_e2e::{
    binary, cli, demo_result_raw,
    npm::{everything, node22, npm_dir, tiny_image_bytes},
};
use mcp_canvas_sampling::{sampler::Decision, SamplingError, SamplingRequest, SamplingResult};
use rmcp::{
    model::{CallToolRequestParams, CallToolResult},
    service::RunningService,
    transport::TokioChildProcess,
    RoleClient, ServiceExt as _,
};
use serde_json::{json, Value};
use sha2::Digest as _;

const SCENARIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/proxy_client/scenario.mjs");
const STUB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/stub_server.py");
const FILES_SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/files_server.py");

fn data_dir_with(servers: Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
    dir
}

fn demo_and_everything() -> tempfile::TempDir {
    let (node, script) = everything();
    data_dir_with(json!({
        "demo": {"command": binary("mcp-canvas-demo")},
        "everything": {"command": node, "args": [script]},
    }))
}

/// Runs the SDK scenario with these arguments after the node_modules dir; its JSON report.
fn run_scenario(args: &[&str]) -> Value {
    let output = Command::new(node22())
        .arg(SCENARIO)
        .arg(npm_dir())
        .args(args)
        .env_remove("MCP_CANVAS_DATA_DIR")
        .stderr(Stdio::piped())
        .output()
        .expect("node runs the scenario");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the SDK scenario failed: {stderr}");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("the scenario's report is JSON ({e}): {}\n{stderr}", String::from_utf8_lossy(&output.stdout)))
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The longest run of base64 characters in any text of a result (images' `data` aside).
fn longest_base64_run_outside_images(result: &Value) -> usize {
    let mut longest = 0;
    let mut walk = vec![result];
    while let Some(value) = walk.pop() {
        match value {
            Value::Object(map) if map.get("type") == Some(&json!("image")) => {}
            Value::Object(map) => walk.extend(map.values()),
            Value::Array(items) => walk.extend(items),
            Value::String(text) => {
                let mut current = 0;
                for c in text.chars() {
                    current = if c.is_ascii_alphanumeric() || "+/=_-".contains(c) { current + 1 } else { 0 };
                    longest = longest.max(current);
                }
            }
            _ => {}
        }
    }
    longest
}

fn content_of_type<'a>(result: &'a Value, kind: &str) -> Vec<&'a Value> {
    result["content"].as_array().unwrap().iter().filter(|c| c["type"] == kind).collect()
}

/// Everything the scenario saw, checked (the same for stdio and HTTP).
fn check_report(report: &Value) {
    assert_eq!(report["server"]["name"], "mcp-canvas-proxy");
    for list in ["tools", "resources", "prompts"] {
        assert_eq!(report["capabilities"][list]["listChanged"], true, "{list} changes are announced");
    }

    // Namespaced tools keep their titles and annotations.
    let tools = report["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name} is listed: {tools:?}"));
    assert_eq!(tool("demo__annotated")["title"], "Annotated content");
    assert_eq!(tool("demo__annotated")["annotations"]["readOnlyHint"], true);
    tool("everything__echo");
    tool("everything__get-tiny-image");
    // Every forwarded tool is namespaced; MCP Canvas's own search tool is not (so it shadows none).
    assert!(tools.iter().all(|t| t["name"].as_str().unwrap().split_once("__").is_some() || t["name"] == "search_artifacts"), "every tool is namespaced");
    assert_eq!(tool("search_artifacts")["annotations"]["readOnlyHint"], true);

    // The RFC 003 incident: the summary and a link; the link's bytes are the PDF the server sent.
    let raw = demo_result_raw("download_workbook", json!({"pages": 50}));
    let inner: Value = serde_json::from_str(raw["content"][0]["text"].as_str().unwrap()).unwrap();
    let pdf = base64::engine::general_purpose::STANDARD.decode(inner["content"].as_str().unwrap()).unwrap();
    let workbook = &report["workbook"];
    let links = content_of_type(&workbook["result"], "resource_link");
    assert_eq!(links.len(), 1, "{workbook}");
    assert_eq!((links[0]["mimeType"].as_str(), links[0]["size"].as_u64()), (Some("application/pdf"), Some(pdf.len() as u64)));
    assert!(links[0]["uri"].as_str().unwrap().starts_with("artifact://localhost/demo_"), "{}", links[0]);
    assert_eq!(workbook["read"]["sha256"], sha256_hex(&pdf), "resources/read returns exactly the PDF the server produced");
    assert_eq!(workbook["read"]["mimeType"], "application/pdf");
    let raw_bytes = serde_json::to_vec(&raw).unwrap().len() as u64;
    let proxied_bytes = workbook["bytes"].as_u64().unwrap();
    assert!(raw_bytes >= 100 * proxied_bytes, "upstream result {proxied_bytes} B is not 100× smaller than the raw {raw_bytes} B");
    assert!(content_of_type(&workbook["result"], "text")[0]["text"].as_str().unwrap().contains("50 pages"), "{workbook}");
    assert!(longest_base64_run_outside_images(&workbook["result"]) <= 256);

    // Models can see images: the tiny one passes through, byte for byte, next to its link.
    let images = content_of_type(&report["tinyImage"], "image");
    assert_eq!(images.len(), 1, "{}", report["tinyImage"]);
    assert_eq!(base64::engine::general_purpose::STANDARD.decode(images[0]["data"].as_str().unwrap()).unwrap(), tiny_image_bytes());
    assert_eq!(content_of_type(&report["tinyImage"], "resource_link").len(), 1);

    // Progress reached the client with its own token; the result arrived.
    let progress = report["longRunning"]["progress"].as_array().unwrap();
    assert!(progress.len() >= 2, "progress forwarded: {progress:?}");
    assert!(progress.windows(2).all(|w| w[0]["progress"].as_f64() < w[1]["progress"].as_f64()), "{progress:?}");
    assert!(report["longRunning"]["result"]["content"][0]["text"].as_str().unwrap().contains("Long running operation completed"));

    // Small, valid structured content is forwarded as is.
    assert_eq!(report["structured"]["structuredContent"]["conditions"].is_string(), true, "{}", report["structured"]);

    // The downstream server's question reached this client, and its answer went back.
    assert_eq!(report["elicitationsAsked"].as_array().unwrap().len(), 1, "{}", report["elicitationsAsked"]);
    let elicited = report["elicitation"]["ok"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(elicited.contains("Ada Lovelace"), "{}", report["elicitation"]);

    // Prompts, namespaced.
    let prompts: Vec<&str> = report["prompts"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert!(prompts.contains(&"everything__simple-prompt"), "{prompts:?}");
    assert!(report["prompt"]["ok"]["messages"][0]["content"]["text"].as_str().unwrap().contains("simple prompt"), "{}", report["prompt"]);

    // A tool error stays a tool error (readable by the model); an unknown tool is a protocol error.
    assert_eq!(report["toolError"]["isError"], true);
    assert!(report["toolError"]["content"][0]["text"].as_str().unwrap().contains("values"), "{}", report["toolError"]);
    assert_eq!(report["unknownTool"]["error"]["code"], -32602, "{}", report["unknownTool"]);
    assert_eq!(report["missingArtifact"]["error"]["code"], -32002, "{}", report["missingArtifact"]);
    assert!(report["missingArtifact"]["error"]["message"].as_str().unwrap().contains("not in the MCP Canvas store"));

    // Downstream resources are listed as they are.
    let resources: Vec<&str> = report["resources"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    assert!(resources.contains(&"demo://guide.md"), "{resources:?}");
}

#[test]
fn official_sdk_client_through_the_stdio_proxy() {
    let dir = demo_and_everything();
    let cli = binary("mcp-canvas-cli");
    let report = run_scenario(&["stdio", cli.to_str().unwrap(), dir.path().to_str().unwrap()]);
    check_report(&report);
    // The calls went through the host pipeline: audited, artifacts in the proxy's session.
    let audit = mcp_canvas_e2e::cli(dir.path(), &["audit", "--json"]);
    let records: Value = serde_json::from_str(&audit.stdout).unwrap();
    let tools: Vec<&str> = records.as_array().unwrap().iter().map(|r| r["tool"].as_str().unwrap()).collect();
    for tool in ["download_workbook", "get-tiny-image", "trigger-long-running-operation", "render_chart"] {
        assert!(tools.contains(&tool), "{tool} audited: {tools:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_sdk_client_through_the_http_proxy() {
    let dir = demo_and_everything();
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir.path()).args(["proxy", "--http", "0"]).env_remove("MCP_CANVAS_DATA_DIR");
    let (_proxy, url) = mcp_canvas_e2e::spawn_printing_url(command, "http://127.0.0.1:").await;
    assert!(url.ends_with("/mcp"), "{url}");
    let authority = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let report = tokio::task::spawn_blocking(move || run_scenario(&["http", &url])).await.unwrap();
    check_report(&report);

    // No browser page may drive it (any Origin is refused), nor a rebound DNS name (Host).
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let status = |extra_headers: &str, host: &str| {
        use std::io::Read as _;
        let mut stream = std::net::TcpStream::connect(&authority).unwrap();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{extra_headers}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{initialize}",
            initialize.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        let _ = stream.take(4096).read_to_string(&mut response);
        response.split_whitespace().nth(1).unwrap_or_default().to_owned()
    };
    assert_eq!(status("", &authority), "200", "a local client without Origin is served");
    assert_eq!(status("Origin: https://evil.example\r\n", &authority), "403", "a browser page is refused");
    assert_eq!(status("", "evil.example"), "403", "a rebound DNS name is refused");
}

/// rmcp's client in front of `mcp-canvas-cli proxy` on `dir`.
async fn rmcp_client(dir: &Path) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    ().serve(transport).await.expect("MCP handshake with the proxy")
}

async fn call(client: &rmcp::Peer<RoleClient>, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    client.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    content_of_type(&value, "text").iter().map(|t| t["text"].as_str().unwrap().to_owned()).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downstream_faults_become_tool_errors_and_the_proxy_stays_up() {
    // Only `hang` has a short limit (it also bounds its `tools/list` when it connects, so not too
    // short for a busy machine); the others keep the proxy's default, so a crash noticed only by
    // a timeout would show as the wrong error.
    let dir = data_dir_with(json!({
        "a": {"command": "python3", "args": [STUB]},
        "b": {"command": "python3", "args": [STUB]},
        "hang": {"command": "python3", "args": [STUB], "timeout_seconds": 5},
        "demo": {"command": binary("mcp-canvas-demo")},
    }));
    let client = rmcp_client(dir.path()).await;
    let names: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    assert!(names.contains(&"a__echo".to_owned()) && names.contains(&"b__echo".to_owned()), "{names:?}");

    // Same tool name on two servers: both reachable, each answering for itself.
    for server in ["a", "b"] {
        let result = call(&client, &format!("{server}__echo"), json!({"text": format!("hello {server}")})).await;
        assert_ne!(result.is_error, Some(true), "{result:?}");
        assert!(text(&result).contains(&format!("hello {server}")), "{}", text(&result));
    }

    // A server that hangs: a clear tool error from its timeout, not a hung AI host (the guard
    // only catches a proxy that never answers).
    let started = Instant::now();
    let hung = tokio::time::timeout(Duration::from_secs(120), call(&client, "hang__never_answer", json!({}))).await.expect("the proxy left the AI host hanging");
    eprintln!("the hung call ended after {:?}", started.elapsed());
    assert_eq!(hung.is_error, Some(true));
    assert!(text(&hung).contains("within 5 s"), "{}", text(&hung));

    // A server that crashes mid-call: a tool error naming it, noticed from the crash (not by
    // running into a timeout); the others are unaffected.
    let crashed = call(&client, "b__exit_mid_call", json!({})).await;
    assert_eq!(crashed.is_error, Some(true));
    assert!(text(&crashed).contains("`b`"), "{}", text(&crashed));
    assert!(!text(&crashed).contains("did not answer"), "the crash was only noticed by the timeout: {}", text(&crashed));
    let chart = call(&client, "demo__render_chart", json!({"values": [1, 2, 3]})).await;
    assert_ne!(chart.is_error, Some(true), "{chart:?}");
    // ...and the crashed one is started again for the next call.
    let again = call(&client, "b__echo", json!({"text": "back"})).await;
    assert!(text(&again).contains("back"), "{}", text(&again));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inline_policy_decides_what_images_reach_the_model() {
    let dir = data_dir_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    let client = rmcp_client(dir.path()).await;
    let chart = serde_json::to_value(call(&client, "demo__render_chart", json!({"values": [3, 1, 2]})).await).unwrap();
    assert_eq!(content_of_type(&chart, "image").len(), 1, "a small chart passes through by default: {chart}");
    client.cancel().await.unwrap();

    std::fs::write(dir.path().join("proxy.toml"), "[[rule]]\nserver = \"demo\"\ntool = \"render_*\"\nimage_max_bytes = 0\n").unwrap();
    let client = rmcp_client(dir.path()).await;
    let chart = serde_json::to_value(call(&client, "demo__render_chart", json!({"values": [3, 1, 2]})).await).unwrap();
    assert_eq!(content_of_type(&chart, "image").len(), 0, "the rule keeps charts as links only: {chart}");
    assert_eq!(content_of_type(&chart, "resource_link").len(), 1);
    assert!(longest_base64_run_outside_images(&chart) <= 256);
    client.cancel().await.unwrap();

    // A policy file with a typo is refused with the reason, not half-applied.
    std::fs::write(dir.path().join("proxy.toml"), "image_max_byte = 0\n").unwrap();
    let run = cli(dir.path(), &["proxy"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("proxy.toml") && run.stderr.contains("image_max_byte"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_user_only_file_no_image_bomb_and_no_declared_type_as_given_reach_the_model() {
    let dir = data_dir_with(json!({ "files": {"command": "python3", "args": [FILES_SERVER]} }));
    let client = rmcp_client(dir.path()).await;
    let peer = client.peer().clone();
    let give = |kind: &'static str| {
        let peer = peer.clone();
        async move { serde_json::to_value(call(&peer, "files__give", json!({ "kind": kind })).await).unwrap() }
    };
    let texts = |result: &Value| content_of_type(result, "text").iter().map(|t| t["text"].as_str().unwrap().to_owned()).collect::<Vec<_>>().join("\n");

    // 100 bytes claiming 40000 × 40000 px: linked, never inlined, and the model is told why.
    let bomb = give("png_bomb").await;
    assert!(content_of_type(&bomb, "image").is_empty(), "an image bomb went inline: {bomb}");
    let links = content_of_type(&bomb, "resource_link");
    assert_eq!(links.len(), 1, "{bomb}");
    let id = links[0]["uri"].as_str().unwrap().rsplit('/').next().unwrap().to_owned();
    let said = texts(&bomb);
    assert!(said.contains("claims 40000×40000 px") && said.contains(&format!("Reference: {id}")), "{said}");

    // For the user only: nothing of it, not even its link; the model hears that much.
    let private = give("user_only_png").await;
    assert!(content_of_type(&private, "image").is_empty() && content_of_type(&private, "resource_link").is_empty(), "{private}");
    let said = texts(&private);
    assert!(said.contains("for the user only (1 file, 1 text)") && !said.contains("no content") && !said.contains("4711"), "{said}");

    // A declared type with CR/LF and a 10 KB one: the link says what the bytes are; the notes
    // quote the declarations escaped and cut.
    let hostile = give("hostile_mime").await;
    let links = content_of_type(&hostile, "resource_link");
    assert_eq!(links[0]["mimeType"], "image/png", "{hostile}");
    assert_eq!(content_of_type(&hostile, "image").len(), 1, "a real small PNG still goes inline: {hostile}");
    let said = texts(&hostile);
    assert!(said.contains("\"image/png\\r\\nX-Injected: 1\" is not a media type") && !said.contains('\r') && !said.contains(&"x".repeat(100)), "{said}");
    client.cancel().await.unwrap();
}

/// `mcp-canvas-cli proxy` on `dir`, its stdin and stdout piped for raw lines.
fn raw_proxy(dir: &std::path::Path, stderr: Stdio) -> std::process::Child {
    Command::new(binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(dir)
        .arg("proxy")
        .env_remove("MCP_CANVAS_DATA_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

#[test]
fn garbage_from_the_ai_host_gets_json_rpc_errors() {
    let dir = data_dir_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    let mut proxy = raw_proxy(dir.path(), Stdio::null());
    let mut stdin = proxy.stdin.take().unwrap();
    let mut replies = BufReader::new(proxy.stdout.take().unwrap());
    let mut next = || {
        let mut line = String::new();
        replies.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("a JSON reply ({e}): {line:?}"))
    };
    writeln!(stdin, "this is not json").unwrap();
    assert_eq!(next()["error"]["code"], -32700);
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":9,"params":{{}}}}"#).unwrap();
    let invalid = next();
    assert_eq!((invalid["id"].clone(), invalid["error"]["code"].clone()), (json!(9), json!(-32600)));
    // Still up: the handshake and a call work after the garbage.
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    assert_eq!(next()["result"]["serverInfo"]["name"], "mcp-canvas-proxy");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"demo__render_chart","arguments":{{"values":[1,2]}}}}}}"#).unwrap();
    let called = next();
    assert_eq!(called["id"], 2, "{called}");
    assert!(called["result"]["content"][0]["text"].as_str().unwrap().contains("PNG"), "{called}");
    drop(stdin);
    let status = proxy.wait().unwrap();
    assert!(status.success(), "the proxy ends cleanly when the AI host closes stdin: {status:?}");
}

/// Garbage as the AI host's only line, then the end of its input: the handshake fails, and the
/// garbage still gets its error reply before the proxy exits.
#[test]
fn garbage_as_the_only_line_before_the_end_of_input_is_answered() {
    let dir = data_dir_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    let mut proxy = raw_proxy(dir.path(), Stdio::piped());
    let mut stdin = proxy.stdin.take().unwrap();
    writeln!(stdin, "this is not json").unwrap();
    drop(stdin);
    let output = proxy.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let reply: Value = serde_json::from_str(stdout.lines().next().unwrap_or_else(|| panic!("a reply; stderr: {}", String::from_utf8_lossy(&output.stderr)))).unwrap();
    assert_eq!(reply["error"]["code"], -32700, "{stdout}");
    assert!(!output.status.success(), "no handshake: the proxy says so and fails");
    assert!(String::from_utf8_lossy(&output.stderr).contains("handshake"), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn print_config_gives_each_ai_host_its_snippet() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["proxy", "--print-config", "claude", "--servers", "demo"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let snippet: Value = serde_json::from_str(&run.stdout).unwrap();
    let entry = &snippet["mcpServers"]["mcp-canvas"];
    assert!(entry["command"].as_str().unwrap().ends_with("mcp-canvas-cli"), "{snippet}");
    assert_eq!(entry["args"], json!(["proxy", "--data-dir", dir.path().to_str().unwrap(), "--servers", "demo"]));
    assert!(run.stderr.contains("claude_desktop_config.json"), "{}", run.stderr);
    let vscode: Value = serde_json::from_str(&cli(dir.path(), &["proxy", "--print-config", "vscode"]).stdout).unwrap();
    assert_eq!(vscode["servers"]["mcp-canvas"]["type"], "stdio");
    let unknown = cli(dir.path(), &["proxy", "--print-config", "emacs"]);
    assert_eq!(unknown.code, 1);
    assert!(unknown.stderr.contains("claude, cursor or vscode"), "{}", unknown.stderr);
}

/// A stand-in for the desktop app on the other end of the app link (the real window is tested
/// in `gui.rs`): decides confirmations, answers forms from their schema, records what it showed.
struct FakeApp {
    allow: std::sync::atomic::AtomicBool,
    shown: std::sync::Mutex<Vec<mcp_canvas_wire::CallOutcome>>,
    forms: std::sync::Mutex<Vec<String>>,
}

impl mcp_canvas_host::app_link::AppRequests for FakeApp {
    fn confirm<'a>(&'a self, _server: &'a str, _tool: &'a str, _arguments: &'a serde_json::Map<String, Value>, _on_behalf_of: &'a str) -> mcp_canvas_elicitation::BoxFuture<'a, bool> {
        Box::pin(async move { self.allow.load(std::sync::atomic::Ordering::SeqCst) })
    }
    fn form<'a>(&'a self, request: &'a mcp_canvas_elicitation::FormRequest) -> mcp_canvas_elicitation::BoxFuture<'a, mcp_canvas_elicitation::FormAnswer> {
        Box::pin(async move {
            self.forms.lock().unwrap().push(request.message.clone());
            let mut answer = serde_json::Map::new();
            let required: Vec<&str> = request.schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
            for (key, property) in request.schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
                if !required.contains(&key.as_str()) {
                    continue;
                }
                let value = match (property.get("enum").and_then(|e| e.get(0)), property["type"].as_str()) {
                    (Some(first), _) => first.clone(),
                    (None, Some("boolean")) => json!(true),
                    (None, Some("number" | "integer")) => property.get("minimum").cloned().unwrap_or(json!(1)),
                    _ => json!("from the app"),
                };
                answer.insert(key.clone(), value);
            }
            mcp_canvas_elicitation::FormAnswer::Accept(answer)
        })
    }
    fn url<'a>(&'a self, _request: &'a mcp_canvas_elicitation::UrlRequest) -> mcp_canvas_elicitation::BoxFuture<'a, mcp_canvas_elicitation::UrlAnswer> {
        Box::pin(async { mcp_canvas_elicitation::UrlAnswer::Decline("not in this test".into()) })
    }
    fn sample<'a>(&'a self, _server: &'a str, _request: SamplingRequest) -> mcp_canvas_elicitation::BoxFuture<'a, Result<SamplingResult, SamplingError>> {
        Box::pin(async { Err(SamplingError::new(-1, "not in this test")) })
    }
    fn show(&self, call: mcp_canvas_wire::CallOutcome, _app: Option<mcp_canvas_wire::AppCall>) {
        self.shown.lock().unwrap().push(call);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_desktop_app_confirms_answers_and_shows_proxied_calls() {
    let dir = data_dir_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    // Without the app, `confirm = "always"` refuses tools that may change data.
    std::fs::write(dir.path().join("proxy.toml"), "confirm = \"always\"\n").unwrap();
    let client = rmcp_client(dir.path()).await;
    let refused = call(&client, "demo__purge_cache", json!({})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("not running"), "{}", text(&refused));
    // ...and a question the AI host cannot answer (this client has no elicitation) is declined
    // with the reason.
    let unanswered = call(&client, "demo__ask_preferences", json!({})).await;
    assert!(text(&unanswered).contains("MCP Canvas app is not running"), "{}", text(&unanswered));

    // With the app: it decides, it answers, it shows what arrives.
    let app = std::sync::Arc::new(FakeApp { allow: false.into(), shown: Default::default(), forms: Default::default() });
    let _serving = mcp_canvas_host::app_link::serve(dir.path(), app.clone()).await.unwrap();
    let declined = call(&client, "demo__purge_cache", json!({})).await;
    assert_eq!(declined.is_error, Some(true));
    assert!(text(&declined).contains("declined"), "{}", text(&declined));
    app.allow.store(true, std::sync::atomic::Ordering::SeqCst);
    let purged = call(&client, "demo__purge_cache", json!({})).await;
    assert_ne!(purged.is_error, Some(true), "{}", text(&purged));

    let answered = call(&client, "demo__ask_preferences", json!({})).await;
    assert_eq!(app.forms.lock().unwrap().len(), 1, "the app was asked");
    assert!(!text(&answered).contains("declined"), "{}", text(&answered));

    let chart = call(&client, "demo__render_chart", json!({"values": [4, 5, 6]})).await;
    let link = serde_json::to_value(&chart).unwrap();
    let uri = content_of_type(&link, "resource_link")[0]["uri"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let shown = app.shown.lock().unwrap().iter().any(|c| c.tool == "render_chart" && c.outcome.artifacts.iter().any(|a| uri.ends_with(&a.id)));
        if shown {
            break;
        }
        assert!(Instant::now() < deadline, "the chart reached the app's canvas");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    client.cancel().await.unwrap();
}

/// Counts the list changes the proxy announces.
#[derive(Default, Clone)]
struct ChangeCounter(std::sync::Arc<std::sync::Mutex<Vec<&'static str>>>);

impl rmcp::ClientHandler for ChangeCounter {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.lock().unwrap().push("tools");
    }
    async fn on_resource_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.lock().unwrap().push("resources");
    }
    async fn on_prompt_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.lock().unwrap().push("prompts");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downstream_list_changes_reach_the_ai_host() {
    let dir = data_dir_with(json!({ "stub": {"command": "python3", "args": [STUB]} }));
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir.path()).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    let counter = ChangeCounter::default();
    let client = counter.clone().serve(transport).await.unwrap();
    client.list_all_tools().await.unwrap();
    let result = client.call_tool(CallToolRequestParams::new("stub__announce_changes")).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while counter.0.lock().unwrap().len() < 3 {
        assert!(Instant::now() < deadline, "changes announced upstream: {:?}", counter.0.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut seen = counter.0.lock().unwrap().clone();
    seen.sort();
    assert_eq!(seen, ["prompts", "resources", "tools"]);
    // The proxy lists the tools again after the change (the stub's list is the same).
    assert!(client.list_all_tools().await.unwrap().iter().any(|t| t.name == "stub__echo"));
    client.cancel().await.unwrap();
}

/// Counts the progress notifications the proxy forwards.
#[derive(Default, Clone)]
struct ProgressCounter(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl rmcp::ClientHandler for ProgressCounter {
    async fn on_progress(&self, _params: rmcp::model::ProgressNotificationParam, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_upstream_cancels_the_downstream_call() {
    use rmcp::model::{CallToolRequest, ClientRequest};
    let dir = data_dir_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir.path()).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    let progress = ProgressCounter::default();
    let client = progress.clone().serve(transport).await.expect("MCP handshake with the proxy");
    let Value::Object(arguments) = json!({"seconds": 30}) else { unreachable!() };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new("demo__slow_job").with_arguments(arguments)));
    let handle = client.send_cancellable_request(request, rmcp::service::PeerRequestOptions::no_options()).await.unwrap();
    // The job is running at the demo server once its progress comes back through the proxy.
    let deadline = Instant::now() + Duration::from_secs(60);
    while progress.0.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no progress from the job through the proxy");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle.cancel(Some("the user changed their mind".into())).await.unwrap();
    // The proxy cancelled its call to the demo server: the audit log says so (a job left running
    // would finish after 30 s as `ok`; the deadline is a hang guard beyond that).
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let audit: Value = serde_json::from_str(&cli(dir.path(), &["audit", "--json"]).stdout).unwrap();
        let row = audit.as_array().unwrap().iter().find(|r| r["tool"] == "slow_job").cloned();
        if let Some(row) = row {
            assert_eq!(row["outcome"], "cancelled", "{row}");
            break;
        }
        assert!(Instant::now() < deadline, "the cancelled call reached the audit log");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The proxy still serves.
    assert!(client.list_all_tools().await.unwrap().iter().any(|t| t.name == "demo__slow_job"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminated_proxy_stops_its_servers() {
    let dir = data_dir_with(json!({ "lingering": {"command": "python3", "args": [STUB, "--linger"]} }));
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir.path()).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    let client = ().serve(transport).await.unwrap();
    let echoed = call(&client, "lingering__echo", json!({"text": "hi"})).await;
    assert!(text(&echoed).contains("hi"));
    // The proxy's one child is the server; find both through /proc.
    let proxy = std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()).find(|pid| {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        cmdline.split(|b| *b == 0).any(|arg| arg == dir.path().as_os_str().as_encoded_bytes())
    });
    let proxy = proxy.expect("the proxy process is found by its data dir");
    let parent_of = |pid: u32| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status.lines().find_map(|l| l.strip_prefix("PPid:")).and_then(|p| p.trim().parse::<u32>().ok())
    };
    let server = std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()).find(|pid| parent_of(*pid) == Some(proxy));
    let server = server.expect("the proxy started the server");
    assert!(Command::new("kill").args(["-TERM", &proxy.to_string()]).status().unwrap().success());
    // Generous for a busy machine, yet short of the minute the lingering server would take to
    // exit by itself.
    let deadline = Instant::now() + Duration::from_secs(45);
    while Path::new(&format!("/proc/{server}")).exists() && !std::fs::read_to_string(format!("/proc/{server}/stat")).unwrap_or_default().contains(") Z ") {
        assert!(Instant::now() < deadline, "the server {server} outlived the terminated proxy");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(client);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_skips_itself_when_an_imported_config_lists_it() {
    let dir = data_dir_with(json!({
        "demo": {"command": binary("mcp-canvas-demo")},
        "mcp-canvas": {"command": binary("mcp-canvas-cli"), "args": ["proxy"]},
    }));
    let client = rmcp_client(dir.path()).await;
    let names: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    assert!(!names.is_empty() && names.iter().all(|n| n.starts_with("demo__") || n == "search_artifacts"), "{names:?}");
    client.cancel().await.unwrap();
    let named = cli(dir.path(), &["proxy", "--servers", "mcp-canvas"]);
    assert_eq!(named.code, 1);
    assert!(named.stderr.contains("cannot be put in front of itself"), "{}", named.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_own_resource_links_pass_through_and_are_readable() {
    let dir = data_dir_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    let client = rmcp_client(dir.path()).await;
    let listed = serde_json::to_value(call(&client, "demo__list_files", json!({})).await).unwrap();
    let links: Vec<&str> = content_of_type(&listed, "resource_link").iter().map(|l| l["uri"].as_str().unwrap()).collect();
    assert!(links.contains(&"demo://guide.md"), "the demo's links arrive as resource_link blocks: {listed}");
    // Read straight away (no resources/list first): the proxy knows which server owns the link.
    let read = client.read_resource(rmcp::model::ReadResourceRequestParams::new("demo://guide.md")).await.unwrap();
    let read = serde_json::to_value(read).unwrap();
    assert!(read["contents"][0]["text"].as_str().unwrap_or_default().contains("demo"), "{read}");
    client.cancel().await.unwrap();
}

/// An AI host that declared `sampling` and answers every request with a canned completion,
/// keeping what it was asked.
#[derive(Default, Clone)]
struct CannedSampling(std::sync::Arc<std::sync::Mutex<Vec<Value>>>);

const CANNED: &str = "Teal, from the AI host's own model.";

impl rmcp::ClientHandler for CannedSampling {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        #[allow(deprecated)]
        {
            capabilities.sampling = Some(rmcp::model::SamplingCapability::default());
        }
        rmcp::model::ClientConfig::new(capabilities, rmcp::model::Implementation::new("canned-ai-host", "1.0"))
    }

    #[allow(deprecated)]
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        self.0.lock().unwrap().push(serde_json::to_value(&params).unwrap());
        let canned = json!({"model": "canned-model", "role": "assistant", "stopReason": "endTurn", "content": {"type": "text", "text": CANNED}});
        Ok(serde_json::from_value(canned).unwrap())
    }
}

/// Servers that sample: (tool, arguments, what the user message says, the system prompt sent).
fn sampling_tools() -> Vec<(&'static str, Value, &'static str, Option<&'static str>)> {
    vec![
        ("demo__sample_text", json!({"prompt": "Name a colour.", "max_tokens": 16}), "Name a colour.", Some("You are a concise assistant.")),
        ("everything__trigger-sampling-request", json!({"prompt": "Name a fruit.", "maxTokens": 16}), "Name a fruit.", Some("You are a helpful test server.")),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downstream_sampling_goes_to_the_ai_host_else_is_refused_with_the_reason() {
    let (node, script) = everything();
    let dir = data_dir_with(json!({
        "demo": {"command": binary("mcp-canvas-demo")},
        // Lists its sampling tool only to a client declaring sampling: the proxy always does.
        "everything": {"command": node, "args": [script, "stdio"]},
    }));

    // (a) The AI host declared sampling: each server's request reaches it, its answer comes back,
    // and the proxy keeps the exchange in its transcript.
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir.path()).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    let ai_host = CannedSampling::default();
    let client = ai_host.clone().serve(transport).await.expect("MCP handshake with the proxy");
    let host = mcp_canvas_host::Host::open(mcp_canvas_host::HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap();
    for (tool, arguments, prompt, system_prompt) in sampling_tools() {
        let server = tool.split("__").next().unwrap();
        let answered = call(&client, tool, arguments).await;
        assert_ne!(answered.is_error, Some(true), "{tool}: {}", text(&answered));
        assert!(text(&answered).contains(CANNED), "{tool}: the AI host's completion reached the tool: {}", text(&answered));
        let asked = ai_host.0.lock().unwrap().pop().unwrap_or_else(|| panic!("{tool}: the AI host was not asked"));
        let request: SamplingRequest = serde_json::from_value(asked.clone()).unwrap();
        assert!(request.messages.iter().any(|m| m.text().contains(prompt)), "{tool}: the server's prompt reached the AI host: {asked}");
        assert_eq!(request.system_prompt.as_deref(), system_prompt, "{tool}: {asked}");

        let log = host.sampling_log(Some(server), 10).unwrap();
        assert_eq!(log.len(), 1, "{tool}: {log:#?}");
        assert_eq!((log[0].decision, log[0].provider.as_str(), log[0].model.as_str()), (Decision::Automatic, "AI host (canned-ai-host)", "canned-model"));
        assert_eq!(log[0].response.as_ref().and_then(|r| r.content[0].as_text()), Some(CANNED));
        assert_eq!(log[0].request, request);
    }
    client.cancel().await.unwrap();

    // (b) An AI host without sampling, and no app: a tool error quoting the refusal.
    let client = rmcp_client(dir.path()).await;
    for (tool, arguments, _, _) in sampling_tools() {
        let server = tool.split("__").next().unwrap();
        let refused = call(&client, tool, arguments).await;
        assert_eq!(refused.is_error, Some(true), "{tool}: {}", text(&refused));
        assert!(text(&refused).contains("did not declare sampling") && text(&refused).contains("MCP Canvas app is not running"), "{tool}: {}", text(&refused));
        let log = host.sampling_log(Some(server), 10).unwrap();
        assert_eq!((log.len(), log[0].decision), (2, Decision::Refused), "{tool}: {log:#?}");
    }
    client.cancel().await.unwrap();

    // (c) `--sampling never`: even an AI host that declared sampling is never asked; the demo's
    // tool says its client offers no sampling (the proxy did not advertise it downstream).
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir.path()).args(["--sampling", "never", "proxy"]).env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    let ai_host = CannedSampling::default();
    let client = ai_host.clone().serve(transport).await.expect("MCP handshake with the proxy");
    let (tool, arguments, _, _) = sampling_tools().remove(0);
    let refused = call(&client, tool, arguments).await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    assert!(ai_host.0.lock().unwrap().is_empty(), "the AI host was asked despite --sampling never");
    client.cancel().await.unwrap();
}
