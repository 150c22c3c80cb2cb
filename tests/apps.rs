//! MCP Apps without a window: what the host reads from real App servers (the npm example
//! `server-basic-vanillajs` and our hostile one), who may call what, the CLI's `apps` check, and
//! the proxy passing views up while keeping app-only tools from the model.

use std::{path::Path, process::Stdio, time::Duration};

use mcp_canvas_e2e::{binary, cli, npm::apps_example};
use mcp_canvas_wire::apps::Visibility;
use mcp_canvas_host::{CallControl, CallOptions, Host, HostError, HostOptions};
use rmcp::{model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt as _};
use serde_json::{json, Value};

fn hostile(extra: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fault_servers/hostile_app.py");
    let mut args = vec![json!(script), json!("4100"), json!("4101")];
    args.extend(extra.iter().map(|a| json!(a)));
    json!({ "command": "python3", "args": args })
}

fn data_dir(servers: Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
    dir
}

fn host(dir: &Path) -> Host {
    Host::open(HostOptions { data_dir: dir.to_owned(), call_timeout: Duration::from_secs(600), session: None }).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_visibility_and_what_an_app_is_sent() {
    let dir = data_dir(json!({ "vanilla": apps_example("basic-vanillajs"), "hostile": hostile(&[]) }));
    let host = host(dir.path());

    // The example's tool names its view (nested and flat keys); the view is its HTML, checked.
    let tools = host.tools("vanilla").await.unwrap();
    let get_time = tools.iter().find(|t| t.name == "get-time").unwrap();
    let ui = get_time.ui.as_ref().expect("get-time declares a view");
    assert_eq!(ui.resource_uri.as_deref(), Some("ui://get-time/mcp-app.html"));
    assert_eq!(ui.visibility, [Visibility::Model, Visibility::App]);
    let view = host.app_view("vanilla", "ui://get-time/mcp-app.html").await.unwrap();
    assert!(view.html.contains("get-time-btn"), "the example's own view");
    assert!(view.csp.header().contains("connect-src 'none'"), "no declaration: the restrictive default");

    // A call of a tool with a view carries what its App is sent: the arguments and the result.
    let detail = host.call_tool_detailed("vanilla", "get-time", json!({}), CallOptions::default(), CallControl::default()).await.unwrap();
    let app = detail.app.expect("an App call");
    assert_eq!(app.resource_uri.as_deref(), Some("ui://get-time/mcp-app.html"));
    assert!(app.result["structuredContent"]["time"].is_string(), "{}", app.result);

    // Declared origins make it into the CSP; visibility decides who may call.
    let view = host.app_view("hostile", "ui://hostile/view.html").await.unwrap();
    assert!(view.csp.header().contains("connect-src http://127.0.0.1:4100;"), "{}", view.csp.header());
    let from_app = CallOptions { from_app: true, ..CallOptions::default() };
    let allowed = host.call_tool_detailed("hostile", "app_only", json!({}), from_app, CallControl::default()).await.unwrap();
    assert_eq!(allowed.app.unwrap().result["structuredContent"]["secret"], "for apps");
    match host.call_tool_detailed("hostile", "model_only", json!({}), from_app, CallControl::default()).await {
        Err(HostError::AppRefused { tool, .. }) => assert_eq!(tool, "model_only"),
        other => panic!("an App called a model-only tool: {other:?}"),
    }
    // The model (and the user) may still call it.
    host.call_tool_detailed("hostile", "model_only", json!({}), CallOptions::default(), CallControl::default()).await.unwrap();
    host.shutdown().await;
}

#[test]
fn the_cli_checks_each_view_and_names_a_broken_one() {
    let dir = data_dir(json!({ "vanilla": apps_example("basic-vanillajs"), "broken": hostile(&["--wrong-mime"]) }));
    let good = cli(dir.path(), &["apps", "vanilla", "--json"]);
    assert_eq!(good.code, 0, "{}{}", good.stdout, good.stderr);
    let listed: Vec<Value> = serde_json::from_str(&good.stdout).unwrap();
    assert_eq!(listed.len(), 1, "{}", good.stdout);
    assert_eq!(listed[0]["tool"], "get-time");
    assert!(listed[0]["bytes"].as_u64().unwrap() > 10_000 && listed[0]["csp"].as_str().unwrap().contains("default-src 'none'"), "{}", good.stdout);

    let broken = cli(dir.path(), &["apps", "broken"]);
    assert_eq!(broken.code, 1, "{}{}", broken.stdout, broken.stderr);
    assert!(broken.stdout.contains("show") && broken.stdout.contains("BROKEN") && broken.stdout.contains("text/html;profile=mcp-app"), "{}", broken.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_passes_views_up_and_keeps_app_only_tools_from_the_model() {
    let dir = data_dir(json!({ "hostile": hostile(&[]) }));
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir.path()).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    let client = ().serve(transport).await.expect("MCP handshake with the proxy");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(names.contains(&"hostile__show") && names.contains(&"hostile__model_only"), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with("app_only")), "an app-only tool reached the model: {names:?}");
    let show = tools.iter().find(|t| t.name == "hostile__show").unwrap();
    assert_eq!(show.meta.as_ref().unwrap()["ui"]["resourceUri"], "ui://hostile/view.html", "the view passes up");
    // The AI host reads the view without listing resources first.
    let read = client.read_resource(rmcp::model::ReadResourceRequestParams::new("ui://hostile/view.html")).await.unwrap();
    let read = serde_json::to_value(read).unwrap();
    assert_eq!(read["contents"][0]["mimeType"], "text/html;profile=mcp-app", "{read}");
    // Asked anyway, the app-only tool is refused.
    let refused = client.call_tool(CallToolRequestParams::new("hostile__app_only")).await;
    let refused = serde_json::to_value(refused.map_err(|e| e.to_string())).unwrap();
    assert!(refused.to_string().contains("for its App only"), "{refused}");
    client.cancel().await.unwrap();
}
