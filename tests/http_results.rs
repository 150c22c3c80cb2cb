//! Large tool results over Streamable HTTP from a real server: FastMCP from PyPI
//! (`tests/fastmcp/big_results_server.py`), answering a call with a ~24 MB PNG as an image block
//! — as one `application/json` body and as an SSE stream, the two ways the transport allows.
//! Either way the CLI stores the image whole (its SHA-256 is the one the server computed), once
//! though FastMCP sends it twice (the block, and the list again in `structuredContent`), and the
//! summary the model gets carries none of it.

use mcp_canvas_e2e::{cli, fastmcp::HttpServer};
use serde_json::{json, Value};

/// Calls `picture` of the server answering in `mode` and checks what was stored.
fn a_large_picture_is_stored_whole(mode: &str) {
    let server = HttpServer::script("big_results_server.py", &[mode]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "big": { "type": "http", "url": server.url } } }).to_string()).unwrap();
    let run = cli(dir.path(), &["call", "big", "picture", "--args", r#"{"megabytes": 24}"#, "--json"]);
    assert_eq!(run.code, 0, "{mode}: {}\n{}", run.stdout, run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).expect("--json prints the outcome");
    assert!(outcome["error"].is_null(), "{mode}: {outcome}");
    let summary = outcome["summary"].as_str().unwrap();
    let (sha, size) = summary
        .split_whitespace()
        .skip_while(|w| *w != "sha256")
        .skip(1)
        .take(3)
        .collect::<Vec<_>>()
        .split_first()
        .map(|(sha, rest)| (sha.to_string(), rest[1].trim_end_matches(|c: char| !c.is_ascii_digit()).parse::<u64>().unwrap()))
        .unwrap_or_else(|| panic!("{mode}: the server's text (sha256 … size …) is in the summary: {summary}"));
    assert!(size > 16 << 20, "the picture is larger than rmcp's default 16 MiB limit for a JSON body: {size}");
    // FastMCP sends the picture twice (the image block, and again in `structuredContent`): one
    // artifact.
    let artifacts = outcome["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 1, "{mode}: {outcome}");
    assert_eq!(artifacts[0]["sha256"], sha, "{mode}: the stored image is the server's, byte for byte");
    assert_eq!(artifacts[0]["size"], size, "{mode}");
    assert_eq!(artifacts[0]["mime"], "image/png", "{mode}: {}", artifacts[0]);
    assert_eq!(summary.matches("Stored PNG image").count(), 1, "{mode}: listed once: {summary}");
    assert!(summary.len() < 4096, "{mode}: the summary carries no image data ({} bytes)", summary.len());
}

#[test]
fn a_picture_larger_than_16_mib_answered_as_one_json_body_is_stored_whole() {
    a_large_picture_is_stored_whole("json");
}

#[test]
fn a_picture_larger_than_16_mib_answered_as_an_event_stream_is_stored_whole() {
    a_large_picture_is_stored_whole("sse");
}
