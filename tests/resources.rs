//! MCP resources through `Host` and `mcp-canvas-cli`: listing (every page), reading into the
//! artifact store byte for byte, resource links offered by a tool result, embedded blobs, MIME
//! types checked against the bytes, and servers that get resources wrong
//! (`fault_servers/stub_server.py`).

use std::{sync::Arc, time::Duration};

use base64::Engine as _;
use mcp_canvas_e2e::{binary, cli, RawDemo};
use mcp_canvas_wire::offers::resource_links;
use mcp_canvas_host::{Host, HostOptions};
use serde_json::{json, Value};
use sha2::Digest as _;

const STUB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/stub_server.py");

fn host_with(servers: Value) -> (tempfile::TempDir, Arc<Host>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(120), session: None }).unwrap();
    (dir, Arc::new(host))
}

fn demo_host() -> (tempfile::TempDir, Arc<Host>) {
    host_with(json!({ "demo": {"command": binary("mcp-canvas-demo")} }))
}

/// What the demo sends for `resources/read`, decoded: (bytes, declared MIME type).
fn raw_read(demo: &mut RawDemo, uri: &str) -> (Vec<u8>, String) {
    let response = demo.request("resources/read", json!({ "uri": uri }));
    let contents = response["result"]["contents"].as_array().unwrap_or_else(|| panic!("{response}"));
    assert_eq!(contents.len(), 1, "{response}");
    let content = &contents[0];
    let bytes = match (content["text"].as_str(), content["blob"].as_str()) {
        (Some(text), _) => text.as_bytes().to_vec(),
        (None, Some(blob)) => base64::engine::general_purpose::STANDARD.decode(blob).unwrap(),
        _ => panic!("no text or blob: {content}"),
    };
    (bytes, content["mimeType"].as_str().unwrap_or_default().to_owned())
}

fn stored_bytes(host: &Host, sha256: &str) -> Vec<u8> {
    let bytes = std::fs::read(host.store().blob_path(sha256)).unwrap();
    assert_eq!(hex(&sha2::Sha256::digest(&bytes)), sha256);
    bytes
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The longest run of base64-alphabet characters: the model-facing summary must carry none.
fn longest_base64_run(text: &str) -> usize {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '=')).map(str::len).max().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_lists_its_resources_and_its_template() {
    let (_dir, host) = demo_host();
    let list = host.resources("demo").await.unwrap();
    assert!(list.supported);
    let uris: Vec<&str> = list.resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["demo://guide.md", "demo://chart.png", "demo://sample.pdf", "demo://notes/scratch"]);
    let chart = &list.resources[1];
    assert_eq!((chart.name.as_str(), chart.mime.as_deref(), chart.title.as_deref()), ("chart.png", Some("image/png"), Some("Bar chart")));
    assert!(chart.size.is_some_and(|s| s > 1000));
    assert_eq!(list.templates.len(), 1);
    assert_eq!(list.templates[0].uri_template, "demo://chart/{values}");
    assert_eq!(list.templates[0].mime.as_deref(), Some("image/png"));
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_stores_text_and_blobs_byte_for_byte() {
    let (_dir, host) = demo_host();
    let mut raw = RawDemo::start();
    let cases = [
        ("demo://guide.md", "guide.md", "text/markdown"),
        ("demo://chart.png", "chart.png", "image/png"),
        ("demo://sample.pdf", "sample.pdf", "application/pdf"),
        // A template filled in: its last segment names the file, with its MIME type's extension.
        ("demo://chart/3,1,4,1,5", "chart-3,1,4,1,5.png", "image/png"),
    ];
    let mut ids = Vec::new();
    for (uri, name, mime) in cases {
        let read = host.read_resource("demo", uri).await.unwrap_or_else(|e| panic!("{uri}: {e}"));
        assert_eq!((read.server.as_str(), read.uri.as_str()), ("demo", uri));
        let outcome = &read.outcome;
        assert!(outcome.warnings.is_empty(), "{uri}: {:?}", outcome.warnings);
        assert_eq!(outcome.artifacts.len(), 1, "{uri}: {outcome:#?}");
        let artifact = &outcome.artifacts[0];
        assert_eq!((artifact.name.as_str(), artifact.mime.as_str()), (name, mime), "{uri}");
        let (sent, declared) = raw_read(&mut raw, uri);
        assert_eq!(declared, mime);
        assert!(stored_bytes(&host, &artifact.sha256) == sent, "{uri}: stored bytes differ from what the server sent");
        assert_eq!(artifact.size, sent.len() as u64);
        assert!(artifact.id.starts_with("demo_"), "{}", artifact.id);
        // The summary is what a model may see: a reference, never the bytes.
        assert!(outcome.summary.contains(&format!("Reference: {}", artifact.id)), "{}", outcome.summary);
        assert!(longest_base64_run(&outcome.summary) < 40, "{}", outcome.summary);
        if mime == "image/png" {
            assert_eq!((artifact.width, artifact.height), (Some(480), Some(300)), "{uri}");
        }
        ids.push(artifact.id.clone());
    }
    assert!(host.store().get(&ids[0]).is_ok());
    let in_session: Vec<String> = host.store().list_session(host.session_id()).unwrap().into_iter().map(|r| r.id).collect();
    for id in &ids {
        assert!(in_session.contains(id), "{id} is linked to the session");
    }
    // Reads are audited like calls.
    let audit = host.store().audit_log(10).unwrap();
    assert_eq!(audit.iter().filter(|r| r.tool == "resources/read" && r.outcome == "ok").count(), 4);
    assert!(audit.iter().any(|r| r.arguments == json!({"uri": "demo://chart.png"})));
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_links_in_a_result_are_offered_and_become_artifacts_when_read() {
    let (_dir, host) = demo_host();
    let outcome = host.call_tool("demo", "list_files", json!({})).await.unwrap().outcome;
    assert!(outcome.artifacts.is_empty(), "links are not read until asked: {outcome:#?}");
    let links = resource_links(&outcome);
    let uris: Vec<&str> = links.iter().map(|l| l.uri.as_str()).collect();
    assert_eq!(uris, ["demo://guide.md", "demo://chart.png", "demo://sample.pdf", "demo://chart/3,1,4,1,5,9"], "{outcome:#?}");
    assert_eq!(links[1].name, "chart.png");
    assert!(links[1].description.as_deref().is_some_and(|d| d.contains("bar chart")), "{links:?}");
    assert!(links.iter().all(|l| l.source.starts_with("content[")));

    let mut raw = RawDemo::start();
    for link in &links {
        let read = host.read_resource("demo", &link.uri).await.unwrap();
        assert_eq!(read.outcome.artifacts.len(), 1, "{}", link.uri);
        let (sent, _) = raw_read(&mut raw, &link.uri);
        assert!(stored_bytes(&host, &read.outcome.artifacts[0].sha256) == sent, "{}", link.uri);
    }
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_bad_uris_are_errors_naming_the_server_and_uri() {
    let (_dir, host) = demo_host();
    for (uri, says) in [("demo://nope", "no resource `demo://nope`"), ("demo://chart/1,x", "`x` is not a number")] {
        let message = host.read_resource("demo", uri).await.unwrap_err().to_string();
        assert!(message.contains("server `demo`") && message.contains(&format!("reading resource `{uri}`")) && message.contains(says), "{message}");
    }
    let message = host.read_resource("nobody", "demo://guide.md").await.unwrap_err().to_string();
    assert!(message.contains("no server named `nobody`"), "{message}");
    assert_eq!(host.store().audit_log(10).unwrap().iter().filter(|r| r.outcome != "ok").count(), 3);
    // The connection is fine afterwards.
    assert_eq!(host.read_resource("demo", "demo://guide.md").await.unwrap().outcome.artifacts.len(), 1);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_mime_checks_several_contents_and_empty_reads() {
    let (_dir, host) = host_with(json!({ "stub": {"command": "python3", "args": [STUB]} }));
    let list = host.resources("stub").await.unwrap();
    let uris: Vec<&str> = list.resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["stub://page1/a.txt", "stub://liar.png", "stub://multi", "stub://empty"], "both pages are listed");
    assert!(list.templates.is_empty(), "templates/list unknown to the server means no templates");

    // Declared image/png, but the bytes are HTML: the sniffed type wins, with a warning.
    let liar = host.read_resource("stub", "stub://liar.png").await.unwrap().outcome;
    assert_eq!(liar.artifacts.len(), 1);
    assert_eq!(liar.artifacts[0].mime, "text/html", "{liar:#?}");
    assert!(liar.warnings.iter().any(|w| w.contains("image/png")), "{:?}", liar.warnings);
    assert_eq!((liar.artifacts[0].width, liar.artifacts[0].height), (None, None));

    let multi = host.read_resource("stub", "stub://multi").await.unwrap().outcome;
    let names: Vec<(&str, &str)> = multi.artifacts.iter().map(|a| (a.name.as_str(), a.mime.as_str())).collect();
    assert_eq!(names, [("readme.md", "text/markdown"), ("pixel.png", "image/png")]);

    let empty = host.read_resource("stub", "stub://empty").await.unwrap().outcome;
    assert!(empty.artifacts.is_empty());
    assert!(empty.warnings.iter().any(|w| w.contains("no contents")), "{:?}", empty.warnings);

    let text = host.read_resource("stub", "stub://page1/a.txt").await.unwrap().outcome;
    assert_eq!(stored_bytes(&host, &text.artifacts[0].sha256), b"alpha");
    host.shutdown().await;
}

/// Embedded `resource` blocks in a tool result (blob and text) become artifacts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_resources_in_a_result_become_artifacts() {
    let (_dir, host) = host_with(json!({ "stub": {"command": "python3", "args": [STUB]} }));
    let outcome = host.call_tool("stub", "embedded_blob", json!({})).await.unwrap().outcome;
    let names: Vec<(&str, &str)> = outcome.artifacts.iter().map(|a| (a.name.as_str(), a.mime.as_str())).collect();
    assert_eq!(names, [("tile.png", "image/png"), ("notes.txt", "text/plain")], "{outcome:#?}");
    assert_eq!((outcome.artifacts[0].width, outcome.artifacts[0].height), (Some(3), Some(2)));
    assert_eq!(stored_bytes(&host, &outcome.artifacts[1].sha256), b"embedded notes");
    assert!(longest_base64_run(&outcome.summary) < 40, "{}", outcome.summary);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_without_resources_or_with_endless_pages() {
    let (_dir, host) = host_with(json!({
        "plain": {"command": "python3", "args": [STUB, "--no-resources"]},
        "loop": {"command": "python3", "args": [STUB, "--cursor-loop"]},
    }));
    let list = host.resources("plain").await.unwrap();
    assert!(!list.supported && list.resources.is_empty() && list.templates.is_empty());
    let message = host.read_resource("plain", "stub://page1/a.txt").await.unwrap_err().to_string();
    assert!(message.contains("server `plain`") && message.contains("does not offer resources"), "{message}");

    let message = host.resources("loop").await.unwrap_err().to_string();
    assert!(message.contains("server `loop`") && message.contains("listing resources") && message.contains("repeated the page cursor"), "{message}");
    host.shutdown().await;
}

#[test]
fn the_cli_lists_and_reads_resources() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["resources", "demo"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("demo://sample.pdf") && run.stdout.contains("demo://chart/{values}"), "{}", run.stdout);

    let run = cli(dir.path(), &["resources", "demo", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let list: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(list["resources"].as_array().unwrap().len(), 4);
    assert_eq!(list["templates"][0]["uri_template"], "demo://chart/{values}");

    let run = cli(dir.path(), &["read", "demo", "demo://chart.png"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("Stored PNG image 'chart.png'"), "{}", run.stdout);
    assert!(run.stdout.len() < 300 && longest_base64_run(&run.stdout) < 40, "{}", run.stdout);

    let run = cli(dir.path(), &["read", "demo", "demo://sample.pdf", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let read: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(read["uri"], "demo://sample.pdf");
    assert_eq!(read["artifacts"][0]["mime"], "application/pdf");
    let id = read["artifacts"][0]["id"].as_str().unwrap();
    let listed = cli(dir.path(), &["artifacts", "list"]);
    assert!(listed.stdout.contains(id), "{}", listed.stdout);

    // A call that returns resource links says how to read them (on stderr; stdout is the summary).
    let run = cli(dir.path(), &["call", "demo", "list_files"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("4 resource link(s); read one with: mcp-canvas-cli read demo 'demo://guide.md'"), "{}", run.stderr);

    let run = cli(dir.path(), &["read", "demo", "demo://nope", "--json"]);
    assert_eq!(run.code, 1);
    let failed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(failed["error"]["message"].as_str().unwrap().contains("demo://nope"), "{failed}");
}
