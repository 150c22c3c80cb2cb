//! `mcp-canvas-cli` against the real `mcp-canvas-demo` over stdio, with a real SQLite catalog.

use std::{path::Path, process::Command};

use mcp_canvas_e2e::{binary, cli, demo_images_raw};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn write_servers(data_dir: &Path, servers: Value) {
    std::fs::write(data_dir.join("servers.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
}

#[test]
fn stored_chart_is_exactly_the_png_the_server_sent() {
    let dir = tempfile::tempdir().unwrap();
    let args = json!({"values": [3, 8, 5, 12], "title": "Quarterly"});
    let run = cli(dir.path(), &["call", "demo", "render_chart", "--json", "--args", &args.to_string()]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);

    let outcome: Value = serde_json::from_str(&run.stdout).expect("--json prints one JSON object");
    assert_eq!(outcome["error"], Value::Null);
    let artifacts = outcome["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 1, "{outcome}");
    let artifact = &artifacts[0];
    assert_eq!(artifact["mime"], "image/png");
    assert_eq!(artifact["name"], "render_chart.png");

    let sha = artifact["sha256"].as_str().unwrap();
    let blob = dir.path().join("artifacts/blobs").join(&sha[..2]).join(&sha[2..4]).join(sha);
    let stored = std::fs::read(&blob).unwrap_or_else(|e| panic!("blob {}: {e}", blob.display()));
    assert_eq!(format!("{:x}", Sha256::digest(&stored)), sha, "blob is addressed by its sha256");
    assert_eq!(artifact["size"], stored.len());
    assert_eq!(artifact["id"], format!("demo_{}", &sha[..12]));

    let sent = demo_images_raw("render_chart", args);
    assert_eq!(sent.len(), 1);
    assert!(stored == sent[0], "stored bytes differ from the PNG the server sent");
    let decoded = image::load_from_memory_with_format(&stored, image::ImageFormat::Png).expect("a valid PNG");
    assert_eq!((decoded.width(), decoded.height()), (480, 300));

    let summary = outcome["summary"].as_str().unwrap();
    assert!(summary.contains("Quarterly: 4 bars, highest 12."), "{summary}");
    assert!(summary.contains(artifact["id"].as_str().unwrap()), "{summary}");
}

#[test]
fn plain_output_is_a_short_summary_without_base64() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["call", "demo", "render_chart", "--args", r#"{"values": [1, 2, 3]}"#]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert!(run.stdout.len() < 300, "summary is {} bytes: {}", run.stdout.len(), run.stdout);
    assert!(run.stdout.contains("Stored PNG image 'render_chart.png'"), "{}", run.stdout);
    let longest_base64_run = run
        .stdout
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(longest_base64_run < 40, "summary carries a {longest_base64_run}-char base64-like run: {}", run.stdout);
}

#[test]
fn text_tool_prints_its_text_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["call", "demo", "summarize_numbers", "--json", "--args", r#"{"values": [2, 4, 9]}"#]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(outcome["summary"], "count 3, min 2, max 9, mean 5.000");
    assert_eq!(outcome["artifacts"], json!([]));
}

#[test]
fn data_dir_comes_from_the_environment_too() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(binary("mcp-canvas-cli"))
        .args(["call", "demo", "render_chart", "--json"])
        .env("MCP_CANVAS_DATA_DIR", dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    let sha = outcome["artifacts"][0]["sha256"].as_str().unwrap();
    assert!(dir.path().join("artifacts/blobs").join(&sha[..2]).join(&sha[2..4]).join(sha).is_file());
    assert!(dir.path().join("servers.json").is_file(), "first run writes the server config");
    assert!(dir.path().join("catalog.sqlite").is_file());
}

#[test]
fn tool_reported_error_exits_2_with_the_tools_message() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["call", "demo", "summarize_numbers", "--args", r#"{"values": []}"#]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.contains("`values` is empty"), "{}", run.stdout);
}

/// Each bad input gives exit code 1 and one line on stderr naming the server or tool.
#[test]
fn bad_input_gives_one_actionable_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    write_servers(
        data,
        json!({
            "demo": {"command": "mcp-canvas-demo"},
            "ghost": {"command": "/nonexistent/mcp-server"},
            "quitter": {"command": "sh", "args": ["-c", "echo 'config file missing' >&2; exit 3"]},
        }),
    );
    let cases: &[(&[&str], &[&str])] = &[
        (&["call", "ghost", "anything"], &["server `ghost`: cannot start `/nonexistent/mcp-server`", "servers.json"]),
        (&["call", "quitter", "anything"], &["server `quitter` did not complete the MCP handshake", "config file missing"]),
        (&["call", "demo", "no_such_tool"], &["server `demo` has no tool `no_such_tool`", "render_chart"]),
        (&["call", "demo", "render_chart", "--args", "{values: [1]}"], &["arguments for `demo`/`render_chart` are not valid JSON"]),
        (&["call", "demo", "render_chart", "--args", "[1]"], &["must be a JSON object"]),
        (&["call", "nobody", "x"], &["no server named `nobody`", "configured: demo, ghost, quitter"]),
    ];
    for (args, expected) in cases {
        let run = cli(data, args);
        assert_eq!(run.code, 1, "{args:?}: stdout {} stderr {}", run.stdout, run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: want one line, got: {}", run.stderr);
        for needle in *expected {
            assert!(run.stderr.contains(needle), "{args:?}: `{needle}` not in: {}", run.stderr);
        }
    }
    let run = cli(data, &["call", "ghost", "anything", "--json"]);
    let outcome: Value = serde_json::from_str(&run.stdout).expect("--json failures are JSON too");
    assert_eq!(outcome["error"]["code"], "CALL_FAILED");
    assert!(outcome["error"]["message"].as_str().unwrap().contains("cannot start"));
}

#[test]
fn arguments_are_checked_against_the_input_schema_before_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["call", "demo", "render_chart", "--args", r#"{"values": [1, "two"]}"#]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("do not match its input schema") && run.stderr.contains("values[1]"), "{}", run.stderr);
}

#[test]
fn tools_that_change_data_need_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    // No TTY here: without --yes the call is refused, and nothing reached the tool.
    let run = cli(dir.path(), &["call", "demo", "purge_cache"]);
    assert_eq!(run.code, 1, "{} {}", run.stdout, run.stderr);
    assert!(run.stderr.contains("needs confirmation") && run.stderr.contains("--yes"), "{}", run.stderr);
    let run = cli(dir.path(), &["call", "demo", "purge_cache", "--yes"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
}

#[test]
fn username_is_the_local_identity_whatever_the_arguments_say() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.toml"), "[identity]\nusername = \"ada\"\n").unwrap();
    let run = cli(dir.path(), &["call", "demo", "whoami", "--json", "--args", r#"{"username": "admin"}"#]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    let said = outcome["summary"].as_str().unwrap();
    assert!(said.contains("ada") && !said.contains("admin"), "{said}");
}

/// 000 §4 end to end: a file name of this session becomes a capability URL the tool downloads.
#[test]
fn file_names_reach_tools_as_capability_urls() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["call", "demo", "render_chart", "--json", "--args", r#"{"values": [5, 1, 4]}"#]);
    let chart: Value = serde_json::from_str(&run.stdout).unwrap();
    let sha = chart["artifacts"][0]["sha256"].as_str().unwrap().to_owned();
    let run = cli(dir.path(), &["call", "demo", "summarize_file", "--json", "--args", r#"{"filename": "render_chart.png"}"#]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    let said = outcome["summary"].as_str().unwrap();
    assert!(said.contains(&sha), "the tool downloaded exactly the stored bytes: {said}");
    assert!(!said.contains("token="), "no capability token reaches the model: {said}");
    let run = cli(dir.path(), &["call", "demo", "summarize_file", "--json", "--args", r#"{"filename": "not-in-this-session.png"}"#]);
    assert_eq!(run.code, 2, "an unknown name is passed through unchanged and the tool says it cannot fetch it: {}", run.stdout);
}

#[test]
fn every_call_is_audited_with_secrets_redacted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.toml"), "[identity]\nusername = \"ada\"\n").unwrap();
    cli(dir.path(), &["call", "demo", "render_chart", "--args", r#"{"values": [1, 2]}"#]);
    cli(dir.path(), &["call", "demo", "summarize_numbers", "--args", r#"{"values": []}"#]);
    cli(dir.path(), &["call", "demo", "purge_cache"]);
    cli(dir.path(), &["call", "demo", "whoami", "--args", r#"{"username": "admin"}"#]);
    cli(dir.path(), &["call", "demo", "render_chart", "--args", r#"{"values": "x"}"#]);
    let run = cli(dir.path(), &["audit", "--json"]);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let rows = log.as_array().unwrap();
    let outcomes: Vec<&str> = rows.iter().map(|r| r["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, ["refused", "ok", "refused", "tool_error", "ok"], "newest first");
    assert_eq!(rows[1]["identity"], "ada");
    assert_eq!(rows[1]["arguments"]["username"], "ada", "what was sent, not what was asked");
    assert_eq!(rows[4]["artifact_ids"].as_array().unwrap().len(), 1);
    assert!(rows[4]["duration_ms"].as_i64().unwrap() >= 0);

    // Capability URLs are audited without their token.
    cli(dir.path(), &["call", "demo", "summarize_file", "--args", r#"{"filename": "render_chart.png"}"#]);
    let run = cli(dir.path(), &["audit", "--json", "--limit", "1"]);
    let last: Value = serde_json::from_str(&run.stdout).unwrap();
    let sent = last[0]["arguments"]["filename"].as_str().unwrap();
    assert!(sent.starts_with("http://127.0.0.1:") && sent.ends_with("token=[redacted]"), "{sent}");
}

#[test]
fn pdf_summaries_give_the_page_count() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["call", "demo", "download_workbook", "--json", "--args", r#"{"pages": 4}"#]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(outcome["artifacts"][0]["pages"], 4, "pdfium counted the pages (needs .deps/pdfium: scripts/setup.sh)");
    assert!(outcome["summary"].as_str().unwrap().contains("4 pages"), "{}", outcome["summary"]);
}

#[test]
fn sanitize_and_preview_write_what_the_canvas_shows() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("hostile.html");
    std::fs::write(&html, r#"<h1 onmouseover="steal()">Report</h1><script>alert(1)</script><img src="https://evil.example/x.png"><a href="javascript:go()">go</a>"#).unwrap();
    let run = cli(dir.path(), &["sanitize", html.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.stdout.to_ascii_lowercase();
    assert!(out.contains("report") && !out.contains("<script") && !out.contains("onmouseover") && !out.contains("javascript:") && !out.contains("evil.example"), "{}", run.stdout);

    let run = cli(dir.path(), &["call", "demo", "download_workbook", "--json", "--args", r#"{"pages": 2}"#]);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    let id = outcome["artifacts"][0]["id"].as_str().unwrap();
    let png = dir.path().join("page2.png");
    let run = cli(dir.path(), &["preview", id, "--page", "2", "--width", "400", "--out", png.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = image::load_from_memory(&std::fs::read(&png).unwrap()).unwrap();
    assert_eq!(page.width(), 400);
    assert!(page.height() > 400, "a portrait page");
    let run = cli(dir.path(), &["preview", id, "--page", "9", "--out", png.to_str().unwrap()]);
    assert_eq!(run.code, 1, "page 9 of 2: {}", run.stdout);
}

#[test]
fn servers_check_starts_each_server_and_says_which_failed() {
    let dir = tempfile::tempdir().unwrap();
    write_servers(dir.path(), json!({
        "demo": {"command": binary("mcp-canvas-demo")},
        "broken": {"command": "definitely-not-an-installed-program"},
    }));
    let run = cli(dir.path(), &["servers", "check"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.lines().any(|l| l.starts_with("demo\trunning\t") && l.ends_with("tool(s)")), "{}", run.stdout);
    assert!(run.stdout.contains("broken\tfailed\t") && run.stdout.contains("definitely-not-an-installed-program"), "{}", run.stdout);
    assert!(run.stdout.contains("logs/broken.log"), "{}", run.stdout);
    let json: Value = serde_json::from_str(&cli(dir.path(), &["servers", "check", "--json"]).stdout).unwrap();
    let broken = json.as_array().unwrap().iter().find(|e| e["status"]["server"] == "broken").unwrap();
    assert_eq!((broken["status"]["state"].as_str(), broken["tools"].is_null()), (Some("failed"), true), "{broken}");
}

#[test]
fn settings_are_shown_and_changed_in_the_file_the_app_reads() {
    let dir = tempfile::tempdir().unwrap();
    let set = cli(dir.path(), &["settings", "set", "identity.username", "ada"]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    // The identity now reaches tools that take `username`.
    let whoami = cli(dir.path(), &["call", "demo", "whoami", "--json"]);
    assert!(whoami.stdout.contains("ada"), "{}", whoami.stdout);
    let refused = cli(dir.path(), &["settings", "set", "appearance.theme", "purple"]);
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("settings ") && refused.stderr.contains("system, light or dark"), "{}", refused.stderr);
    let shown: Value = serde_json::from_str(&cli(dir.path(), &["settings", "show", "--json"]).stdout).unwrap();
    assert_eq!((shown["username"].as_str(), shown["theme"].as_str()), (Some("ada"), Some("system")));
    assert_eq!(cli(dir.path(), &["settings", "unset", "identity.username"]).code, 0);
    let shown: Value = serde_json::from_str(&cli(dir.path(), &["settings", "show", "--json"]).stdout).unwrap();
    assert_ne!(shown["username"], "ada");
}
