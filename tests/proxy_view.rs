//! The proxy's own MCP App view (`ui://mcp-canvas/files`), without a window: what an AI host
//! that renders MCP Apps is given (the view on every tool without one, the view's app-only tools,
//! a per-call capability beside an unchanged result), what the view can read with it (PDF pages
//! rendered by pdfium, sanitized HTML, table rows, image bytes — only of its own call), and that a
//! host without the UI extension, `--no-viewer` and `proxy.toml` see none of it. Hostile and huge
//! files come from `fault_servers/files_server.py`. The view in a real MCP Apps host (the MCP
//! Inspector in WebKit) is `gui_proxy_view.rs`.

use std::{path::Path, process::Stdio};

use base64::Engine as _;
use mcp_canvas_e2e::{binary, cli};
use rmcp::{
    model::{CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, ReadResourceRequestParams, ResourceContents},
    service::RunningService,
    transport::TokioChildProcess,
    ClientHandler, RoleClient, ServiceExt as _,
};
use serde_json::{json, Value};

const FILES_SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/files_server.py");
const VIEW_URI: &str = "ui://mcp-canvas/files";
const META_KEY: &str = "io.github.mcp-canvas/view";

/// An AI host's client: declares the MCP Apps extension, or not.
#[derive(Clone)]
struct AiHost {
    renders_apps: bool,
}

impl ClientHandler for AiHost {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.renders_apps {
            let mut ui = rmcp::model::JsonObject::new();
            ui.insert("mimeTypes".into(), json!(["text/html;profile=mcp-app"]));
            capabilities.extensions = Some(rmcp::model::ExtensionCapabilities::from([("io.modelcontextprotocol/ui".to_owned(), ui)]));
        }
        ClientConfig::new(capabilities, Implementation::new("test-ai-host", "1"))
    }
}

fn data_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let servers = json!({ "mcpServers": {
        "demo": { "command": binary("mcp-canvas-demo") },
        "files": { "command": "python3", "args": [FILES_SERVER] },
    }});
    std::fs::write(dir.path().join("servers.json"), servers.to_string()).unwrap();
    dir
}

async fn proxy(dir: &Path, renders_apps: bool, extra: &[&str]) -> RunningService<RoleClient, AiHost> {
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir).arg("proxy").args(extra).env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    AiHost { renders_apps }.serve(transport).await.expect("MCP handshake with the proxy")
}

async fn call(client: &rmcp::Peer<RoleClient>, name: &str, arguments: Value) -> Value {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    let result: CallToolResult = client.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::to_value(result).unwrap()
}

fn text(result: &Value) -> String {
    result["content"].as_array().into_iter().flatten().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n")
}

/// The view's capability and files in a result.
fn view(result: &Value) -> (String, Vec<Value>) {
    let meta = &result["_meta"][META_KEY];
    (meta["capability"].as_str().unwrap_or_else(|| panic!("no view capability in {result}")).to_owned(), meta["files"].as_array().unwrap().clone())
}

fn file_named<'a>(files: &'a [Value], name: &str) -> &'a Value {
    files.iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("no {name} in {files:?}"))
}

async fn view_tool(client: &rmcp::Peer<RoleClient>, tool: &str, capability: &str, id: &str, extra: Value) -> Value {
    let mut arguments = json!({ "capability": capability, "id": id });
    arguments.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    call(client, &format!("mcp-canvas.view.{tool}"), arguments).await
}

fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    (u32::from_be_bytes(png[16..20].try_into().unwrap()), u32::from_be_bytes(png[20..24].try_into().unwrap()))
}

fn image_data(result: &Value) -> Vec<u8> {
    let block = result["content"].as_array().unwrap().iter().find(|c| c["type"] == "image").unwrap_or_else(|| panic!("no image in {result}"));
    base64::engine::general_purpose::STANDARD.decode(block["data"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_renders_apps_gets_the_view_while_the_model_gets_what_it_got_before() {
    let dir = data_dir();
    let with_view = proxy(dir.path(), true, &[]).await;
    let without = proxy(dir.path(), false, &[]).await;

    // Tools: ours on every tool without a view; the view's own tools for views only.
    let tools = serde_json::to_value(with_view.list_all_tools().await.unwrap()).unwrap();
    let tools = tools.as_array().unwrap();
    let chart = tools.iter().find(|t| t["name"] == "demo__render_chart").unwrap();
    assert_eq!(chart["_meta"]["ui"]["resourceUri"], VIEW_URI);
    let ours: Vec<&Value> = tools.iter().filter(|t| t["name"].as_str().unwrap().starts_with("mcp-canvas.view.")).collect();
    assert_eq!(ours.len(), 5, "file, page, rows, share, open");
    assert!(ours.iter().all(|t| t["_meta"]["ui"]["visibility"] == json!(["app"])), "never the model's: {ours:?}");
    let plain = serde_json::to_value(without.list_all_tools().await.unwrap()).unwrap();
    assert!(plain.as_array().unwrap().iter().all(|t| t["_meta"]["ui"].is_null() && !t["name"].as_str().unwrap().starts_with("mcp-canvas.")), "{plain}");

    // The view: one document, our MIME type, declaring no origin to load from.
    let read = with_view.read_resource(ReadResourceRequestParams::new(VIEW_URI)).await.unwrap();
    let ResourceContents::TextResourceContents { text: html, mime_type, meta, .. } = &read.contents[0] else { panic!("the view is text") };
    assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    assert!(html.starts_with("<!doctype html>") && html.contains("<script type=\"module\">") && !html.contains("src=\"http"), "one self-contained document");
    assert!(html.len() < 700 * 1024, "the view weighs {} bytes", html.len());
    let csp = &serde_json::to_value(meta).unwrap()["ui"]["csp"];
    assert_eq!((csp["connectDomains"].clone(), csp["resourceDomains"].clone()), (json!([]), json!([])));
    let listed = serde_json::to_value(with_view.list_all_resources().await.unwrap()).unwrap();
    assert!(listed.as_array().unwrap().iter().any(|r| r["uri"] == VIEW_URI), "{listed}");

    // The same call for both hosts: the same content; only the view's host gets `_meta`.
    let report = call(&with_view, "demo__make_report", json!({ "rows": 12 })).await;
    let report_plain = call(&without, "demo__make_report", json!({ "rows": 12 })).await;
    assert_eq!(report["content"], report_plain["content"], "the model's content does not change");
    assert!(report_plain["_meta"].get(META_KEY).is_none());
    let (capability, files) = view(&report);
    let names: Vec<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["report.html", "chart.png", "data.csv"], "the primary file first, as the canvas opens them");
    assert_eq!(files[0]["viewer"], "html");
    assert!(!report["content"].to_string().contains(&capability), "the capability is never in the model's content");

    // Sanitized HTML, never a script.
    let html = view_tool(&with_view, "file", &capability, files[0]["id"].as_str().unwrap(), json!({})).await;
    let document = html["structuredContent"]["html"].as_str().unwrap();
    assert!(document.contains("<table") && !document.to_ascii_lowercase().contains("<script"), "{document:.300}");
    // The chart's bytes are the stored ones.
    let png = view_tool(&with_view, "file", &capability, file_named(&files, "chart.png")["id"].as_str().unwrap(), json!({})).await;
    let id = file_named(&files, "chart.png")["id"].as_str().unwrap().to_owned();
    let exported = dir.path().join("chart.png");
    assert_eq!(cli(dir.path(), &["artifacts", "export", &id, exported.to_str().unwrap()]).code, 0);
    // As an 8-bit RGBA PNG (which the view draws itself), the same pixels.
    let sent = image::load_from_memory(&image_data(&png)).unwrap();
    assert_eq!(sent.color(), image::ColorType::Rgba8);
    assert_eq!(sent.to_rgba8(), image::load_from_memory(&std::fs::read(&exported).unwrap()).unwrap().to_rgba8());
    // The table, a window at a time.
    let rows = view_tool(&with_view, "rows", &capability, file_named(&files, "data.csv")["id"].as_str().unwrap(), json!({ "offset": 10, "limit": 5 })).await;
    let table = &rows["structuredContent"];
    assert_eq!(table["header"], json!(["label", "q1", "q2", "q3", "q4", "total"]));
    assert_eq!((table["totalRows"].as_u64(), table["offset"].as_u64(), table["rows"].as_array().unwrap().len()), (Some(12), Some(10), 2));

    // A 50-page PDF: its page count, then one page at the width the view asks for.
    let pdf = call(&with_view, "demo__get_view_as_pdf", json!({ "pages": 50 })).await;
    let (capability, files) = view(&pdf);
    let id = files[0]["id"].as_str().unwrap();
    let info = view_tool(&with_view, "file", &capability, id, json!({})).await;
    assert_eq!(info["structuredContent"]["pages"], 50, "{info}");
    let page = view_tool(&with_view, "page", &capability, id, json!({ "page": 49, "width": 420 })).await;
    assert_eq!(png_size(&image_data(&page)).0, 420);
    let beyond = view_tool(&with_view, "page", &capability, id, json!({ "page": 50, "width": 420 })).await;
    assert_eq!(beyond["isError"], true, "{beyond}");

    // "Show this to the model" is audited.
    let shared = view_tool(&with_view, "share", &capability, id, json!({ "what": "page 3" })).await;
    assert!(shared["isError"].is_null(), "{shared}");
    with_view.cancel().await.unwrap();
    without.cancel().await.unwrap();
    let audit = cli(dir.path(), &["audit", "--limit", "50"]);
    assert!(audit.stdout.contains("app:show-to-model") && audit.stdout.contains("page 3"), "{}", audit.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capability_opens_only_its_own_calls_files_and_says_when_one_is_gone() {
    let dir = data_dir();
    let client = proxy(dir.path(), true, &[]).await;
    let chart = call(&client, "demo__render_chart", json!({ "values": [3, 8, 5] })).await;
    let report = call(&client, "demo__make_report", json!({})).await;
    let (chart_capability, chart_files) = view(&chart);
    let (_, report_files) = view(&report);
    let report_id = report_files[0]["id"].as_str().unwrap();

    let other = view_tool(&client, "file", &chart_capability, report_id, json!({})).await;
    assert_eq!(other["isError"], true);
    assert!(text(&other).contains("not a file of this call"), "{other}");
    let forged = view_tool(&client, "file", &"0".repeat(64), report_id, json!({})).await;
    assert!(text(&forged).contains("access has ended") || text(&forged).contains("never granted"), "{forged}");
    // A capability of another proxy (another session) opens nothing here.
    let second = proxy(dir.path(), true, &[]).await;
    let elsewhere = view_tool(&second, "file", &chart_capability, chart_files[0]["id"].as_str().unwrap(), json!({})).await;
    assert_eq!(elsewhere["isError"], true, "{elsewhere}");

    // Deleted while the view is open: said so, the proxy stays up.
    let chart_id = chart_files[0]["id"].as_str().unwrap();
    assert_eq!(cli(dir.path(), &["artifacts", "rm", chart_id]).code, 0);
    let gone = view_tool(&client, "file", &chart_capability, chart_id, json!({})).await;
    assert!(text(&gone).contains("no longer in the MCP Canvas store"), "{gone}");
    let still = call(&client, "demo__render_chart", json!({ "values": [1] })).await;
    assert!(still["isError"].is_null());

    // A result with no files carries no capability: its view shows nothing.
    let nothing = call(&client, "files__give", json!({ "kind": "nothing" })).await;
    assert!(nothing["_meta"].get(META_KEY).is_none(), "{nothing}");
    second.cancel().await.unwrap();
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_and_huge_files_get_a_clear_message_and_nothing_runs() {
    let dir = data_dir();
    let client = proxy(dir.path(), true, &[]).await;

    let html = call(&client, "files__give", json!({ "kind": "hostile_html" })).await;
    let (capability, files) = view(&html);
    let document = view_tool(&client, "file", &capability, files[0]["id"].as_str().unwrap(), json!({})).await;
    let sanitized = document["structuredContent"]["html"].as_str().unwrap().to_ascii_lowercase();
    assert!(sanitized.contains("revenue grew"));
    for hostile in ["<script", "onerror", "javascript:", "<iframe", "pwned"] {
        assert!(!sanitized.contains(hostile), "{hostile} survived: {sanitized}");
    }
    assert_eq!(document["structuredContent"]["removed"]["scripts"], 1);

    // An SVG is only ever an image: drawn into pixels by MCP Canvas (its script never run), so
    // the view shows it under a CSP that forbids images too.
    let svg = call(&client, "files__give", json!({ "kind": "svg_script" })).await;
    let (capability, files) = view(&svg);
    assert_eq!(files[0]["viewer"], "image");
    let answer = view_tool(&client, "file", &capability, files[0]["id"].as_str().unwrap(), json!({})).await;
    assert_eq!(answer["content"][0]["mimeType"], "image/png", "{answer}");
    assert_eq!(answer["structuredContent"]["sourceMime"], "image/svg+xml");

    let pdf = call(&client, "files__give", json!({ "kind": "bad_pdf" })).await;
    let (capability, files) = view(&pdf);
    let broken = view_tool(&client, "file", &capability, files[0]["id"].as_str().unwrap(), json!({})).await;
    assert_eq!(broken["isError"], true);
    assert!(text(&broken).contains("broken.pdf") && text(&broken).contains("cannot be shown as a PDF"), "{broken}");

    let wide = call(&client, "files__give", json!({ "kind": "wide_csv" })).await;
    let (capability, files) = view(&wide);
    let rows = view_tool(&client, "rows", &capability, files[0]["id"].as_str().unwrap(), json!({ "offset": 0, "limit": 10 })).await;
    let table = &rows["structuredContent"];
    assert_eq!((table["totalColumns"].as_u64(), table["shownColumns"].as_u64(), table["totalRows"].as_u64()), (Some(1_000_000), Some(200), Some(2)));
    assert_eq!(table["header"].as_array().unwrap().len(), 200);
    assert!(serde_json::to_vec(&rows).unwrap().len() < 64 * 1024, "a window stays small");

    let tall = call(&client, "files__give", json!({ "kind": "tall_csv" })).await;
    let (capability, files) = view(&tall);
    let id = files[0]["id"].as_str().unwrap();
    let last = view_tool(&client, "rows", &capability, id, json!({ "offset": 999_998, "limit": 500 })).await;
    let table = &last["structuredContent"];
    assert_eq!(table["totalRows"], 1_000_000);
    assert_eq!(table["rows"], json!([["999998", (999_998u64 * 999_998).to_string()], ["999999", (999_999u64 * 999_999).to_string()]]));
    let middle = view_tool(&client, "rows", &capability, id, json!({ "offset": 500_123, "limit": 1 })).await;
    assert_eq!(middle["structuredContent"]["rows"][0][0], "500123");
    let beyond = view_tool(&client, "rows", &capability, id, json!({ "offset": 1_000_000, "limit": 5 })).await;
    assert_eq!(beyond["structuredContent"]["rows"], json!([]), "past the end: no rows");
    // 256 records, a whole number of marks: the end is still the end (it gave the header and the
    // first rows again).
    let exact = call(&client, "files__give", json!({ "kind": "exact_csv" })).await;
    let (capability, files) = view(&exact);
    let id = files[0]["id"].as_str().unwrap();
    let last = view_tool(&client, "rows", &capability, id, json!({ "offset": 254, "limit": 10 })).await;
    assert_eq!((last["structuredContent"]["rows"].clone(), last["structuredContent"]["totalRows"].as_u64()), (json!([["254"]]), Some(255)));
    let after = view_tool(&client, "rows", &capability, id, json!({ "offset": 255, "limit": 10 })).await;
    assert_eq!(after["structuredContent"]["rows"], json!([]), "{after}");

    // Nothing of this reached the model: summaries and links only.
    for result in [&html, &svg, &pdf, &wide, &tall] {
        let content = result["content"].to_string();
        assert!(content.len() < 4096 && !content.contains("pwned"), "{content:.500}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_view_is_turned_off_by_flag_and_per_server_in_proxy_toml() {
    let dir = data_dir();
    let off = proxy(dir.path(), true, &["--no-viewer"]).await;
    let tools = serde_json::to_value(off.list_all_tools().await.unwrap()).unwrap();
    assert!(tools.as_array().unwrap().iter().all(|t| t["_meta"]["ui"].is_null()), "{tools}");
    let chart = call(&off, "demo__render_chart", json!({ "values": [1, 2] })).await;
    assert!(chart["_meta"].get(META_KEY).is_none());
    off.cancel().await.unwrap();

    std::fs::write(dir.path().join("proxy.toml"), "[[rule]]\nserver = \"files\"\nviewer = false\n").unwrap();
    let client = proxy(dir.path(), true, &[]).await;
    let tools = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    let find = |name: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
    assert!(find("files__give")["_meta"]["ui"].is_null());
    assert_eq!(find("demo__render_chart")["_meta"]["ui"]["resourceUri"], VIEW_URI);
    let given = call(&client, "files__give", json!({ "kind": "tall_csv" })).await;
    assert!(given["_meta"].get(META_KEY).is_none());
    client.cancel().await.unwrap();

    // Off for every server in proxy.toml: not even the view's own tools are listed.
    std::fs::write(dir.path().join("proxy.toml"), "viewer = false\n").unwrap();
    let client = proxy(dir.path(), true, &[]).await;
    let tools = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    assert!(tools.as_array().unwrap().iter().all(|t| t["_meta"]["ui"].is_null() && !t["name"].as_str().unwrap().starts_with("mcp-canvas.")), "{tools}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_with_a_view_of_its_own_keeps_it_and_its_results_get_no_capability() {
    let dir = tempfile::tempdir().unwrap();
    let servers = json!({ "mcpServers": { "vanilla": mcp_canvas_e2e::npm::apps_example("basic-vanillajs") } });
    std::fs::write(dir.path().join("servers.json"), servers.to_string()).unwrap();
    let client = proxy(dir.path(), true, &[]).await;
    let tools = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    let own = tools.as_array().unwrap().iter().find(|t| t["name"] == "vanilla__get-time").unwrap_or_else(|| panic!("{tools}"));
    assert!(own["_meta"]["ui"]["resourceUri"].as_str().unwrap().starts_with("ui://") && own["_meta"]["ui"]["resourceUri"] != VIEW_URI, "{own}");
    let result = call(&client, "vanilla__get-time", json!({})).await;
    assert!(result["_meta"].get(META_KEY).is_none(), "{result}");
    client.cancel().await.unwrap();
}

/// Our own host speaks 2026-07-28 (no `initialize`): its capabilities come with each request,
/// and the proxy reads them there (it read only `initialize`'s before — our app got no view).
#[test]
fn a_host_declaring_the_extension_per_request_gets_the_view_too() {
    let inner = data_dir();
    let outer = tempfile::tempdir().unwrap();
    let servers = json!({ "mcpServers": { "canvas": { "command": binary("mcp-canvas-cli"), "args": ["--data-dir", inner.path(), "proxy"] } } });
    std::fs::write(outer.path().join("servers.json"), servers.to_string()).unwrap();
    let apps = cli(outer.path(), &["apps", "canvas"]);
    assert_eq!(apps.code, 0, "{}", apps.stderr);
    let chart = apps.stdout.lines().find(|l| l.starts_with("demo__render_chart\t")).unwrap_or_else(|| panic!("{}", apps.stdout));
    assert!(chart.contains(VIEW_URI) && chart.contains("connect-src 'none'"), "{chart}");
}

/// The desktop app's end of the app link, recording what it is asked to show.
#[derive(Default)]
struct ShowRecorder(std::sync::Mutex<Vec<mcp_canvas_wire::CallOutcome>>);

impl mcp_canvas_host::app_link::AppRequests for ShowRecorder {
    fn confirm<'a>(&'a self, _: &'a str, _: &'a str, _: &'a serde_json::Map<String, Value>, _: &'a str) -> mcp_canvas_elicitation::BoxFuture<'a, bool> {
        Box::pin(async { false })
    }
    fn form<'a>(&'a self, _: &'a mcp_canvas_elicitation::FormRequest) -> mcp_canvas_elicitation::BoxFuture<'a, mcp_canvas_elicitation::FormAnswer> {
        Box::pin(async { mcp_canvas_elicitation::FormAnswer::Decline("not in this test".into()) })
    }
    fn url<'a>(&'a self, _: &'a mcp_canvas_elicitation::UrlRequest) -> mcp_canvas_elicitation::BoxFuture<'a, mcp_canvas_elicitation::UrlAnswer> {
        Box::pin(async { mcp_canvas_elicitation::UrlAnswer::Decline("not in this test".into()) })
    }
    fn sample<'a>(&'a self, _: &'a str, _: mcp_canvas_sampling::SamplingRequest) -> mcp_canvas_elicitation::BoxFuture<'a, Result<mcp_canvas_sampling::SamplingResult, mcp_canvas_sampling::SamplingError>> {
        Box::pin(async { Err(mcp_canvas_sampling::SamplingError::new(-1, "not in this test")) })
    }
    fn show(&self, call: mcp_canvas_wire::CallOutcome, _: Option<mcp_canvas_wire::AppCall>) {
        self.0.lock().unwrap().push(call);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_in_mcp_canvas_focuses_the_file_in_the_app_on_the_same_data_dir() {
    let dir = data_dir();
    let client = proxy(dir.path(), true, &[]).await;
    let report = call(&client, "demo__make_report", json!({})).await;
    let (capability, files) = view(&report);
    let chart = file_named(&files, "chart.png")["id"].as_str().unwrap().to_owned();

    let alone = view_tool(&client, "open", &capability, &chart, json!({})).await;
    assert_eq!(alone["isError"], true);
    assert!(text(&alone).contains("MCP Canvas is not running"), "{alone}");

    let app = std::sync::Arc::new(ShowRecorder::default());
    let _serving = mcp_canvas_host::app_link::serve(dir.path(), app.clone()).await.unwrap();
    let opened = view_tool(&client, "open", &capability, &chart, json!({})).await;
    assert!(opened["isError"].is_null(), "{opened}");
    let shown = app.0.lock().unwrap().clone();
    let focused = shown.iter().find(|c| c.outcome.display.primary.as_deref() == Some(chart.as_str())).unwrap_or_else(|| panic!("the app was not asked to show {chart}: {shown:?}"));
    assert!(focused.outcome.display.open_canvas && focused.tool == "make_report");
    client.cancel().await.unwrap();
    let audit = cli(dir.path(), &["audit", "--limit", "20"]);
    assert!(audit.stdout.contains("app:open-in-app"), "{}", audit.stdout);
}
