//! `Host` (the library both front ends drive) against real child processes.

use std::{sync::Arc, time::Duration};

use mcp_canvas_e2e::{binary, spawn_demo_http};
use mcp_canvas_host::{Host, HostOptions};
use serde_json::json;

fn host_with(servers: serde_json::Value) -> (tempfile::TempDir, Arc<Host>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(30), session: None }).unwrap();
    (dir, Arc::new(host))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_does_not_block_the_others() {
    let demo = binary("mcp-canvas-demo");
    let (_dir, host) = host_with(json!({
        "demo": {"command": demo},
        "silent": {"command": "sleep", "args": ["600"]},
    }));
    let silent = tokio::spawn({
        let host = host.clone();
        async move { host.tools("silent").await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let outcome = host.call_tool("demo", "render_chart", json!({"values": [1, 2]})).await.unwrap();
    assert_eq!(outcome.outcome.artifacts.len(), 1);
    assert!(!silent.is_finished(), "the silent server's handshake should still be pending");
    silent.abort();
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_serves_many_calls_and_artifacts_share_a_session() {
    let (_dir, host) = host_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    let first = host.call_tool("demo", "render_chart", json!({"values": [1]})).await.unwrap();
    let second = host.call_tool("demo", "render_chart", json!({"values": [2, 3]})).await.unwrap();
    assert_ne!(first.call_id, second.call_id);
    assert_ne!(first.outcome.artifacts[0].id, second.outcome.artifacts[0].id, "different charts, different ids");
    let stored = host.store().list_session(host.session_id()).unwrap();
    assert_eq!(stored.len(), 2);
    host.shutdown().await;
}

/// A server configured with `type: http` is reached over Streamable HTTP (the demo's `--http`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_servers_are_called_like_stdio_ones() {
    let (_server, url) = spawn_demo_http().await;
    let (_dir, host) = host_with(json!({ "remote": {"type": "http", "url": url, "headers": {"X-Test": "1"}} }));
    assert_eq!(host.servers().await.unwrap()[0].transport, "http");
    let outcome = host.call_tool("remote", "render_chart", json!({"values": [4, 2]})).await.unwrap().outcome;
    assert_eq!(outcome.artifacts.len(), 1);
    assert_eq!(outcome.artifacts[0].mime, "image/png");
    assert_eq!((outcome.artifacts[0].width, outcome.artifacts[0].height), (Some(480), Some(300)));
    host.shutdown().await;

    let (_dir, host) = host_with(json!({ "down": {"type": "http", "url": "http://127.0.0.1:9/mcp"} }));
    let err = host.tools("down").await.unwrap_err().to_string();
    assert!(err.contains("server `down`") && err.contains("http://127.0.0.1:9/mcp"), "{err}");
}

/// Answers with long base64 runs are read through the spill (stdio): each call's outcome equals
/// the outcome of the same answer, read off the wire by hand, normalized whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_answer_stored_while_it_arrives_gives_the_outcome_of_the_whole_answer() {
    let (_dir, host) = host_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }));
    let mut wire = mcp_canvas_e2e::RawDemo::start();
    let cases = [
        ("big_output", json!({"kind": "binary", "size": 700_000, "format": "pdf"})),
        ("big_output", json!({"kind": "binary", "size": 300_001, "format": "png", "seed": 5})),
        ("big_output", json!({"kind": "text", "size": 200_000})),
        ("render_chart", json!({"values": [1, 2, 3]})),
    ];
    for (tool, arguments) in cases {
        let called = host.call_tool("demo", tool, arguments.clone()).await.unwrap();
        let answer = wire.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let whole = host.normalize_raw("demo", tool, answer["result"].clone()).unwrap();
        assert_eq!(serde_json::to_value(&called.outcome).unwrap(), serde_json::to_value(&whole.outcome).unwrap(), "{tool} {arguments}");
        assert!(!called.outcome.artifacts.is_empty() || tool == "big_output", "{tool}");
    }
    let temp = std::fs::read_dir(_dir.path().join("artifacts/tmp")).unwrap().count();
    assert_eq!(temp, 0, "no spill file stays");
    host.shutdown().await;
}
