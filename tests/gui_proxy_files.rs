//! A model's file reference through the proxy, from a real MCP client: the MCP Inspector's web
//! UI in WebKitGTK (`tests/inspector/drive.py`, npm `@modelcontextprotocol/inspector`) in front
//! of `mcp-canvas-cli proxy` over the demo server, on a fresh data dir. The proxy first returns a
//! chart (so the model was given it); then, in the Inspector's Tools tab, `describe_image`'s
//! `image` argument is a plain text field into which `artifact:ID` is typed — the id read from
//! the chart's "Reference:" as the Inspector shows it — and the answer describes that very file
//! (its name, format and size in pixels; the audit row names its id and sha-256). A chart the
//! person stored but no model was given, typed in by its id, is refused by name in the
//! Inspector's shown result, and nothing is sent. Screenshots:
//! `target/gui-screenshots/proxy_files_<name>.png`.
//!
//! Ignored by plain `cargo test` (needs Xvfb, WebKitWebDriver and the Inspector);
//! `scripts/test.sh` runs it in its GUI step.

use mcp_canvas_e2e::{
    binary, cli,
    inspector::{assert_ok, run_driver},
    target_dir,
};
use serde_json::{json, Value};

#[test]
#[ignore = "needs Xvfb, WebKitWebDriver and the MCP Inspector from npm; scripts/test.sh runs it in its GUI step"]
fn a_model_sends_a_file_it_was_given_by_reference_from_the_mcp_inspector() {
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::write(data_dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    // Stored by the person (the CLI), never returned to a model.
    let stored = cli(data_dir.path(), &["call", "demo", "render_chart", "--args", r#"{"values": [1, 1, 1]}"#, "--json"]);
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    let stored: Value = serde_json::from_str(&stored.stdout).unwrap();
    let private = stored["artifacts"][0]["id"].as_str().unwrap().to_owned();
    std::fs::write(data_dir.path().join("proxy.toml"), "image_max_bytes = 0\n").unwrap();

    let work = tempfile::tempdir().unwrap();
    let calls_file = work.path().join("calls.json");
    let calls = json!([
        { "name": "chart", "tool": "demo__render_chart", "args": {"values": [2, 9, 4, 6]}, "tools_only": true },
        { "name": "described", "tool": "demo__describe_image", "type_args": {"image": "artifact:{ref:chart}"}, "tools_only": true },
        { "name": "refused", "tool": "demo__describe_image", "type_args": {"image": private}, "tools_only": true },
    ]);
    std::fs::write(&calls_file, calls.to_string()).unwrap();
    let out = work.path().join("shots");
    let (result, success) = run_driver(data_dir.path(), &calls_file, &out);
    assert_ok(&result, success);

    let shots = target_dir().parent().unwrap().join("gui-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for name in ["chart", "described", "described_typed", "refused"] {
        let to = shots.join(format!("proxy_files_{name}.png"));
        std::fs::copy(out.join(format!("{name}.png")), &to).unwrap();
        eprintln!("screenshot: {}", to.display());
    }
    let calls = result["calls"].as_array().expect("calls in RESULT");
    let shown = |name: &str| -> (String, Value) {
        let tab = &calls.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no {name} in {result}"))["tools_tab"];
        assert_eq!(tab["call_status"], "ok", "{name}: {tab}");
        (tab["shown"]["text"].as_str().unwrap().to_owned(), tab["typed"].clone())
    };

    // The chart, as the model reads it: a summary with its reference, no bytes.
    let (chart_text, _) = shown("chart");
    let reference = calls[0]["tools_tab"]["reference"].as_str().unwrap_or_else(|| panic!("no reference in {chart_text}")).to_owned();
    assert_ne!(reference, private);
    assert!(chart_text.contains("render_chart.png") && chart_text.contains("480×300 px"), "{chart_text}");

    // Typed into the field as `artifact:ID`: the tool describes that very file.
    let (described, typed) = shown("described");
    assert_eq!(typed, json!({ "image": format!("artifact:{reference}") }));
    assert!(described.contains("'render_chart.png', PNG image, 480×300 px"), "{described}");
    assert!(!described.contains("Tool Error"), "{described}");
    assert!(described.contains(&format!("sent {reference} (render_chart.png")), "the proxy's note names the file it sent: {described}");
    let audit = cli(data_dir.path(), &["audit", "--json"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    let rows: Value = serde_json::from_str(&audit.stdout).unwrap();
    let sent: Vec<&Value> = rows.as_array().unwrap().iter().filter(|r| r["tool"] == "describe_image" && r["outcome"] == "ok").collect();
    assert_eq!(sent.len(), 1, "one describe_image call went to the server: {rows}");
    let detail = sent[0]["detail"].as_str().unwrap();
    let sha256 = stored_sha256(data_dir.path(), &reference);
    assert!(detail.contains(&reference) && detail.contains(&sha256), "the audit row names the file sent ({reference}, sha256 {sha256}): {detail}");

    // A file the model was not given: refused by name, in the result the Inspector shows.
    let (refused, typed) = shown("refused");
    assert_eq!(typed, json!({ "image": private }));
    assert!(refused.contains("Tool Error"), "{refused}");
    assert!(refused.contains(&format!("`{private}` is not a file this AI host was given")), "{refused}");
    assert!(!rows.as_array().unwrap().iter().any(|r| r["tool"] == "describe_image" && r["outcome"] == "ok" && r["detail"].as_str().is_some_and(|d| d.contains(&private))), "the private chart was sent: {rows}");
}

/// The sha-256 the store keeps for artifact `id` (`artifacts show --json`).
fn stored_sha256(data_dir: &std::path::Path, id: &str) -> String {
    let shown = cli(data_dir, &["artifacts", "show", id, "--json"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    let record: Value = serde_json::from_str(&shown.stdout).unwrap();
    record["sha256"].as_str().unwrap_or_else(|| panic!("no sha256 in {record}")).to_owned()
}
