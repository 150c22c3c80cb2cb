//! A server's "my tools changed" reaches the front ends in both protocol eras: before
//! 2026-07-28 as a plain `notifications/tools/list_changed`, since as a notification on the
//! `subscriptions/listen` stream the host opens for the lists the server says change. The demo's
//! `announce_tools_changed` sends it and says how many subscriptions it reached.

use std::time::Duration;

use mcp_canvas_e2e::binary;
use mcp_canvas_host::{ChangedList, Host, HostOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_list_changes_arrive_in_both_eras() {
    for (protocol, said) in [(None, "to 1 subscription(s)"), (Some("2025-11-25"), "to this client")] {
        let dir = tempfile::tempdir().unwrap();
        let mut entry = json!({ "command": binary("mcp-canvas-demo") });
        if let Some(protocol) = protocol {
            entry["protocol_version"] = json!(protocol);
        }
        std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": entry } }).to_string()).unwrap();
        let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap();
        let mut changes = host.changes();
        host.tools("demo").await.unwrap();
        // The listen stream is opened in the background as the connection is made; the demo
        // counts the subscriptions it reached, so ask until it has one (2026-07-28).
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let done = host.call_tool("demo", "announce_tools_changed", json!({})).await.unwrap();
            let text = done.outcome.texts.iter().map(|t| t.text.as_str()).collect::<String>();
            if text.contains(said) {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{protocol:?}: {text}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let change = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let change = changes.recv().await.unwrap();
                if change.server == "demo" {
                    return change;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{protocol:?}: no tools/list_changed reached the front end"));
        assert_eq!(change.list, ChangedList::Tools, "{protocol:?}");
        // The tools are listed again on next use, and still there.
        assert!(host.tools("demo").await.unwrap().iter().any(|t| t.name == "announce_tools_changed"));
        host.shutdown().await;
    }
}
