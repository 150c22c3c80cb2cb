//! A server's "my tools changed" reaches the front ends in both protocol eras: before
//! 2026-07-28 as a plain `notifications/tools/list_changed`, since as a notification on the
//! `subscriptions/listen` stream the host opens for the lists the server says change. The demo's
//! `announce_tools_changed` sends it and says how many subscriptions it reached.
//!
//! Watching one resource, likewise: `subscriptions/listen` naming the URI (2026-07-28) or
//! `resources/subscribe` (before) — the demo's scratch note changed by `write_note`, and
//! server-everything's subscription updates; through the host and through `mcc read --watch`.

use std::time::Duration;

use mcp_canvas_e2e::binary;
use mcp_canvas_client::ChangedList;
use mcp_canvas_host::{Host, HostOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_list_changes_arrive_in_both_eras() {
    for (protocol, said) in [(None, "to 1 subscription(s)"), (Some("2025-11-25"), "to this client")] {
        let (_dir, host) = demo_host(protocol);
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

fn demo_host(protocol: Option<&str>) -> (tempfile::TempDir, Host) {
    let dir = tempfile::tempdir().unwrap();
    let mut entry = json!({ "command": binary("mcp-canvas-demo") });
    if let Some(protocol) = protocol {
        entry["protocol_version"] = json!(protocol);
    }
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": entry } }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap();
    (dir, host)
}

async fn note_text(host: &Host) -> String {
    let read = host.read_resource("demo", "demo://notes/scratch").await.unwrap();
    let sha = &read.outcome.artifacts[0].sha256;
    String::from_utf8(std::fs::read(host.store().blob_path(sha)).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_resource_says_when_it_changed_in_both_eras() {
    for protocol in [None, Some("2025-11-25")] {
        let (_dir, host) = demo_host(protocol);
        let mut watch = host.watch_resource("demo", "demo://notes/scratch").await.unwrap_or_else(|e| panic!("{protocol:?}: {e}"));
        assert!(note_text(&host).await.contains("Nothing written yet"));
        let wrote = host.call_tool("demo", "write_note", json!({"text": "# Tides\n\nHigh water at 06:12."})).await.unwrap();
        let said = wrote.outcome.texts.iter().map(|t| t.text.as_str()).collect::<String>();
        assert!(said.contains("told 1 watcher(s)"), "{protocol:?}: {said}");
        tokio::time::timeout(Duration::from_secs(30), watch.changed()).await.unwrap_or_else(|_| panic!("{protocol:?}: no update arrived")).expect("the watch is open");
        assert!(note_text(&host).await.contains("High water at 06:12."), "{protocol:?}");
        // Not watched any more: the server is told (2025: resources/unsubscribe; 2026: the
        // listen stream is cancelled), and the next write reaches nobody.
        drop(watch);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let wrote = host.call_tool("demo", "write_note", json!({"text": "again"})).await.unwrap();
            let said = wrote.outcome.texts.iter().map(|t| t.text.as_str()).collect::<String>();
            if said.contains("told 0 watcher(s)") {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{protocol:?}: still watched after the watch ended: {said}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // A resource the server does not let anyone watch: a clear error naming it.
        let err = host.watch_resource("demo", "demo://guide.md").await.err().expect("refused");
        assert!(err.to_string().contains("demo://guide.md"), "{protocol:?}: {err}");
        host.shutdown().await;
    }
}

/// server-everything (2025-11-25): `resources/subscribe`, then `toggle-subscriber-updates` sends
/// an update for each subscribed resource at once and every 5 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_resource_updates_reach_a_watch() {
    let (node, script) = mcp_canvas_e2e::npm::everything();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "everything": {"command": node, "args": [script, "stdio"]} } }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap();
    let uri = host.resources("everything").await.unwrap().resources[0].uri.clone();
    let mut watch = host.watch_resource("everything", &uri).await.unwrap();
    let on = host.call_tool("everything", "toggle-subscriber-updates", json!({})).await.unwrap();
    assert!(format!("{:?}", on.outcome).contains("Started"), "{:?}", on.outcome);
    tokio::time::timeout(Duration::from_secs(30), watch.changed()).await.expect("an update within 30 s").expect("the watch is open");
    host.call_tool("everything", "toggle-subscriber-updates", json!({})).await.unwrap();
    host.shutdown().await;
}

/// `mcc read SERVER URI --watch --changes 1 --json`: the first read, then the read after another
/// client changed the note (the demo over HTTP: one note for all its sessions).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_watches_a_resource() {
    use tokio::io::AsyncBufReadExt as _;
    let (_demo, url) = mcp_canvas_e2e::spawn_demo_http().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "url": url } } }).to_string()).unwrap();
    let mut watcher = tokio::process::Command::new(binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["read", "demo", "demo://notes/scratch", "--watch", "--changes", "1", "--json"])
        .env_remove("MCP_CANVAS_DATA_DIR")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(watcher.stdout.take().unwrap()).lines();
    let first: serde_json::Value = serde_json::from_str(&tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await.expect("the first read").unwrap().expect("a line")).unwrap();
    // Another client (its own data dir) writes the note.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("servers.json"), json!({ "mcpServers": { "demo": { "url": url } } }).to_string()).unwrap();
    let writer = Host::open(HostOptions { data_dir: other.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap();
    let wrote = writer.call_tool("demo", "write_note", json!({"text": "Written by another client."})).await.unwrap();
    assert!(format!("{:?}", wrote.outcome).contains("told 1 watcher(s)"), "{:?}", wrote.outcome);
    let second: serde_json::Value = serde_json::from_str(&tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await.expect("the read after the change").unwrap().expect("a line")).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(60), watcher.wait()).await.expect("exits after one change").unwrap();
    assert!(status.success(), "{status:?}");
    let blob = |read: &serde_json::Value| {
        let sha = read["artifacts"][0]["sha256"].as_str().unwrap().to_owned();
        String::from_utf8(std::fs::read(dir.path().join("artifacts/blobs").join(&sha[..2]).join(&sha[2..4]).join(&sha)).unwrap()).unwrap()
    };
    assert!(blob(&first).contains("Nothing written yet"), "{first}");
    assert_eq!(blob(&second), "Written by another client.");
    writer.shutdown().await;
}

/// A server with an open `subscriptions/listen` stream exits by itself when the host shuts down:
/// the host cancels the stream first (a server, like the demo, that waits for its open requests
/// before exiting would otherwise sit until it is killed 2 s later, and every one-shot CLI
/// command would take 2 s longer). The host writes in the server's log when it had to kill it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutting_down_ends_the_listen_stream_so_the_server_exits_by_itself() {
    let (dir, host) = demo_host(None);
    host.tools("demo").await.unwrap();
    // Wait until the demo holds the listen stream.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let done = host.call_tool("demo", "announce_tools_changed", json!({})).await.unwrap();
        if format!("{:?}", done.outcome).contains("to 1 subscription(s)") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the listen stream never opened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    host.shutdown().await;
    let log = host.server_log_tail("demo", 1 << 20).unwrap();
    assert!(!log.contains("killed"), "the demo had to be killed: {log}");
    drop(dir);
}
