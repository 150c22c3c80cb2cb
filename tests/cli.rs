//! `mcp-canvas-cli` against the real `mcp-canvas-demo` over stdio, with a real SQLite catalog.

use std::{
    io::{BufRead, BufReader, Read},
    os::unix::process::ExitStatusExt as _,
    path::Path,
    process::{Command, Stdio},
};

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
fn artifacts_list_shows_every_session_unless_one_is_named() {
    // The app, the proxy and the CLI share a data dir, each in its own session: the CLI lists
    // them all (the global `--session` default once leaked into the listing as a filter).
    let dir = tempfile::tempdir().unwrap();
    let stored = cli(dir.path(), &["--session", "app-like", "call", "demo", "render_chart", "--args", r#"{"values": [3, 1]}"#]);
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    let ids = |args: &[&str]| -> Vec<String> {
        let run = cli(dir.path(), args);
        let page: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {} {}", run.stdout, run.stderr));
        page["items"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_owned()).collect()
    };
    let all = ids(&["artifacts", "list", "--json"]);
    assert_eq!(all.len(), 1, "another session's artifact is listed: {all:?}");
    assert_eq!(ids(&["artifacts", "list", "--json", "--session", "app-like"]), all);
    assert!(ids(&["artifacts", "list", "--json", "--session", "cli"]).is_empty(), "a named session filters");
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

/// Runs `mcp-canvas-cli --data-dir DIR ARGS...` with stdout on a pipe whose reader takes `lines`
/// lines and then closes it, as `| head -n LINES` does (0: closed before the CLI prints anything).
/// Returns the lines read, how the CLI ended, and its stderr.
fn run_with_stdout_closed_after(data_dir: &Path, args: &[&str], lines: usize) -> (Vec<String>, std::process::ExitStatus, String) {
    let mut child = Command::new(binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("MCP_CANVAS_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cli runs");
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut read = Vec::new();
    for _ in 0..lines {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        read.push(line);
    }
    drop(stdout);
    let status = child.wait().unwrap();
    (read, status, stderr.join().unwrap())
}

/// `mcp-canvas-cli tools demo | head -1` used to panic ("failed printing to stdout: Broken
/// pipe", exit 101). A reader that goes away ends the output quietly, for every command that
/// prints: right at the start, after the first line, and in the middle of a long output.
#[test]
fn a_closed_stdout_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    for values in ["[1, 2]", "[3, 8, 5, 12]", "[7]"] {
        let run = cli(data, &["call", "demo", "render_chart", "--args", &format!(r#"{{"values": {values}}}"#)]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    assert_eq!(cli(data, &["allowlist", "add", "http://127.0.0.1:8765"]).code, 0);
    // ~450 KB of sanitized HTML, many lines: far more than a pipe holds, so after the first line
    // the CLI is certainly still writing when the reader goes away.
    let big = data.join("big.html");
    std::fs::write(&big, (0..20_000).map(|i| format!("<p>paragraph {i}</p>\n")).collect::<String>()).unwrap();
    let commands: &[&[&str]] = &[
        &["tools", "demo"],
        &["tools", "demo", "--json"],
        &["artifacts", "list"],
        &["artifacts", "list", "--json"],
        &["audit"],
        &["audit", "--json"],
        &["resources", "demo"],
        &["resources", "demo", "--json"],
        &["prompts", "demo"],
        &["servers", "list"],
        &["servers", "list", "--json"],
        &["servers", "export"],
        &["settings", "show"],
        &["settings", "show", "--json"],
        &["allowlist", "list"],
        &["allowlist", "list", "--json"],
        &["call", "demo", "summarize_numbers", "--json", "--args", r#"{"values": [2, 4]}"#],
        &["sanitize", big.to_str().unwrap()],
    ];
    for args in commands {
        for lines in [0, 1] {
            let (read, status, stderr) = run_with_stdout_closed_after(data, args, lines);
            let context = format!("{args:?} closed after {lines} line(s): {status}, stderr: {stderr}");
            assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe") && !stderr.contains("stack backtrace"), "{context}");
            assert!(status.success() || status.signal() == Some(13), "exit 0 or SIGPIPE, not a panic's 101: {context}");
            assert_eq!(read.len(), lines, "{context}");
            assert!(read.iter().all(|l| !l.trim().is_empty()), "{context}: {read:?}");
        }
    }
}

/// Every listing has `--json`: pretty JSON of the same data as the text (the wire types' field
/// names), parsed here, with the text form unchanged.
#[test]
fn every_listing_prints_json_with_the_data_of_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let json_of = |args: &[&str]| -> Value {
        let run = cli(data, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(run.stdout.contains("\n  "), "{args:?}: pretty-printed: {}", run.stdout);
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", run.stdout))
    };
    let text_of = |args: &[&str]| -> String {
        let run = cli(data, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        run.stdout
    };
    for listing in [&["tools", "demo"][..], &["resources", "demo"], &["prompts", "demo"], &["servers", "list"], &["audit"], &["allowlist", "list"], &["settings", "show"], &["artifacts", "list"]] {
        let help = text_of(&[listing, &["--help"][..]].concat());
        assert!(help.contains("--json"), "{listing:?} --help: {help}");
    }

    // tools: name, title, description, input_schema (the UI's ToolView).
    let tools = json_of(&["tools", "demo", "--json"]);
    let chart = tools.as_array().unwrap().iter().find(|t| t["name"] == "render_chart").unwrap_or_else(|| panic!("{tools}"));
    assert_eq!(chart["input_schema"]["type"], "object", "{chart}");
    assert!(chart["input_schema"]["properties"]["values"].is_object(), "{chart}");
    assert!(chart["description"].is_string(), "{chart}");
    let names: Vec<String> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| match t["title"].as_str() {
            Some(title) => format!("{} — {title}", t["name"].as_str().unwrap()),
            None => t["name"].as_str().unwrap().to_owned(),
        })
        .collect();
    let text = text_of(&["tools", "demo"]);
    let text_names: Vec<&str> = text.lines().filter(|l| !l.starts_with("    ")).collect();
    assert_eq!(text_names, names, "the text lists the same tools: {text}");
    let failed = cli(data, &["tools", "nobody", "--json"]);
    assert_eq!(failed.code, 1);
    let failed: Value = serde_json::from_str(&failed.stdout).expect("a failure is JSON too");
    assert!(failed["error"]["message"].as_str().unwrap().contains("no server named `nobody`"), "{failed}");

    // resources: the demo's sample PDF and its chart template.
    let resources = json_of(&["resources", "demo", "--json"]);
    assert_eq!((resources["server"].as_str(), resources["supported"].as_bool()), (Some("demo"), Some(true)));
    let pdf = resources["resources"].as_array().unwrap().iter().find(|r| r["uri"] == "demo://sample.pdf").unwrap_or_else(|| panic!("{resources}"));
    assert_eq!(pdf["mime"], "application/pdf");
    assert!(resources["templates"].as_array().unwrap().iter().any(|t| t["uri_template"] == "demo://chart/{values}"), "{resources}");
    assert!(text_of(&["resources", "demo"]).contains("  demo://sample.pdf\tapplication/pdf"));

    // prompts: the demo's three, with their arguments; a server that has one lists it too.
    let prompts = json_of_compact(data, &["prompts", "demo", "--json"]);
    let names: Vec<&str> = prompts.as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, vec!["describe_chart", "read_the_guide", "slow_suggestions"], "{prompts}");
    assert_eq!(prompts[0]["arguments"][0], json!({ "name": "values", "description": "Comma-separated numbers, e.g. 3,1,4", "required": true }));
    assert!(text_of(&["prompts", "demo"]).starts_with("3 prompt(s):"));
    let prompter = data.join("prompter.py");
    std::fs::write(&prompter, PROMPT_SERVER).unwrap();
    write_servers(data, json!({
        "demo": {"command": binary("mcp-canvas-demo")},
        "prompter": {"command": "python3", "args": [prompter]},
    }));
    let prompts = json_of(&["prompts", "prompter", "--json"]);
    assert_eq!(prompts[0]["name"], "greet", "{prompts}");
    assert_eq!(prompts[0]["description"], "Say hello to a city");
    assert_eq!(prompts[0]["arguments"], json!([{"name": "city", "description": "Which city", "required": true}]));
    assert!(text_of(&["prompts", "prompter"]).contains("  greet\n      Say hello to a city\n      - city (required): Which city\n"));

    // servers list: name, transport, target, problem (ServerView).
    let servers = json_of(&["servers", "list", "--json"]);
    let demo = servers.as_array().unwrap().iter().find(|s| s["name"] == "demo").unwrap_or_else(|| panic!("{servers}"));
    assert_eq!(demo["transport"], "stdio");
    assert!(demo["target"].as_str().unwrap().contains("mcp-canvas-demo"), "{demo}");
    assert_eq!(demo["problem"], Value::Null);
    assert!(text_of(&["servers", "list"]).lines().any(|l| l == format!("demo\tstdio\t{}", demo["target"].as_str().unwrap())));

    // audit: one row per call.
    cli(data, &["call", "demo", "render_chart", "--args", r#"{"values": [4, 2]}"#]);
    let audit = json_of(&["audit", "--json"]);
    assert_eq!((audit[0]["server"].as_str(), audit[0]["tool"].as_str(), audit[0]["outcome"].as_str()), (Some("demo"), Some("render_chart"), Some("ok")), "{audit}");
    assert_eq!(audit[0]["arguments"]["values"], json!([4, 2]));
    assert!(text_of(&["audit"]).contains("\tdemo/render_chart"));

    // artifacts list: the page of records.
    let artifacts = json_of(&["artifacts", "list", "--json"]);
    assert_eq!(artifacts["items"][0]["name"], "render_chart.png", "{artifacts}");
    assert_eq!(artifacts["total"], 1);

    // allowlist list: origins (normalized), the entries that are not origins, and where they live.
    std::fs::write(data.join("settings.toml"), "[dashboards]\nallowed_origins = [\"not an origin\"]\n").unwrap();
    assert_eq!(cli(data, &["allowlist", "add", "HTTP://LocalHost:80"]).code, 0);
    let allowlist = json_of(&["allowlist", "list", "--json"]);
    assert_eq!(allowlist["origins"], json!(["http://localhost"]), "{allowlist}");
    assert_eq!(allowlist["ignored"][0]["entry"], "not an origin", "{allowlist}");
    assert!(allowlist["ignored"][0]["reason"].is_string());
    assert!(allowlist["settings_path"].as_str().unwrap().ends_with("settings.toml"));
    assert_eq!(text_of(&["allowlist", "list"]), "http://localhost\n");

    // settings show: the settings in effect.
    assert_eq!(cli(data, &["settings", "set", "identity.username", "ada"]).code, 0);
    let settings = json_of(&["settings", "show", "--json"]);
    assert_eq!(settings["username"], "ada", "{settings}");
    assert!(settings["quota_bytes"].as_u64().unwrap() > 0, "{settings}");
    assert!(text_of(&["settings", "show"]).contains("\nidentity.username                 ada\n"));
}

/// `args` run with `--json`, parsed (for output too small to be pretty-printed on several lines).
fn json_of_compact(data_dir: &Path, args: &[&str]) -> Value {
    let run = cli(data_dir, args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", run.stdout))
}

/// An MCP stdio server with one prompt and nothing else (python3, stdlib only).
const PROMPT_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"prompts": {}}, "serverInfo": {"name": "prompter", "version": "1"}}
    elif method == "prompts/list":
        result = {"prompts": [{"name": "greet", "description": "Say hello to a city", "arguments": [{"name": "city", "description": "Which city", "required": True}]}]}
    elif method == "tools/list":
        result = {"tools": []}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not here"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"#;

#[test]
fn sampling_without_a_provider_says_how_to_set_one_up_and_is_kept_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    // The demo speaks 2026-07-28: its LLM request arrives inside the call's `input_required`
    // result, which has no way to answer one request with an error, so the call ends with it.
    let run = cli(dir.path(), &["--sampling", "always", "call", "demo", "sample_text"]);
    assert_eq!(run.code, 1, "the call ends with the refusal: {} {}", run.stdout, run.stderr);
    assert!(run.stderr.contains("no LLM provider is configured") && run.stderr.contains("Settings → Sampling"), "{}", run.stderr);
    let log = cli(dir.path(), &["sampling", "log", "demo", "--json"]);
    let records: Vec<Value> = serde_json::from_str(&log.stdout).unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["decision"], "refused");
    assert!(records[0]["error"].as_str().unwrap().contains("no LLM provider"));
    assert_eq!(records[0]["request"]["systemPrompt"], "You are a concise assistant.");
    let export = cli(dir.path(), &["sampling", "export", "demo"]);
    assert_eq!(serde_json::from_str::<Value>(&export.stdout).unwrap(), serde_json::json!([]), "no exchange was answered");

    // `never`: sampling is not even advertised, so the demo says the client does not sample.
    let run = cli(dir.path(), &["--sampling", "never", "call", "demo", "sample_text"]);
    assert!(run.stdout.contains("needs a client that answers sampling requests"), "{}", run.stdout);
    // Without a terminal and without the flag, policy `ask` (the default) means `never`: nobody
    // could approve, so sampling is not offered at all…
    let run = cli(dir.path(), &["call", "demo", "sample_text"]);
    assert!(run.stdout.contains("needs a client that answers sampling requests"), "{}", run.stdout);
    // …unless settings say otherwise: `always` for the demo is answered (here: no provider yet).
    std::fs::write(dir.path().join("settings.toml"), "[sampling.servers.demo]\npolicy = \"always\"\n").unwrap();
    let run = cli(dir.path(), &["call", "demo", "sample_text"]);
    assert!(run.stderr.contains("no LLM provider is configured"), "{}", run.stderr);
}

/// The same refusal from a server of the older era (`initialize`, pinned here): the LLM request
/// is a request of its own, refused with an error the tool reports.
#[test]
fn a_refused_llm_request_of_the_initialize_era_is_reported_by_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let demo = binary("mcp-canvas-demo");
    let servers = serde_json::json!({ "mcpServers": { "demo": { "command": demo, "protocol_version": "2025-11-25" } } });
    std::fs::write(dir.path().join("servers.json"), servers.to_string()).unwrap();
    let run = cli(dir.path(), &["--sampling", "always", "call", "demo", "sample_text"]);
    assert_eq!(run.code, 2, "the tool reports the refusal: {} {}", run.stdout, run.stderr);
    assert!(run.stdout.contains("no LLM provider is configured") && run.stdout.contains("Settings → Sampling"), "{}", run.stdout);
}

/// `normalize` reads a result file through the spill: a 600 KB PDF in a JSON text block and a
/// PNG in an image block are stored byte for byte, the summary names both, no temp file stays;
/// a file that is not JSON says so, naming the file.
#[test]
fn normalize_stores_large_payloads_from_a_file_byte_for_byte() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let mut pdf = b"%PDF-1.7\n".to_vec();
    let mut state = 7u32;
    pdf.extend((0..600_000).map(|_| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 24) as u8
    }));
    let png = demo_images_raw("render_chart", json!({"values": [1, 2, 3]})).remove(0);
    let mut big_png = png.clone();
    big_png.extend(std::iter::repeat_n(0u8, 100_001)); // trailing bytes: still a PNG by its header
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let meta = json!({"content": b64(&pdf), "name": "Quarterly report"});
    let result = json!({"content": [
        {"type": "text", "text": meta.to_string()},
        {"type": "image", "mimeType": "image/png", "data": b64(&big_png)},
    ]});
    let file = dir.path().join("result.json");
    std::fs::write(&file, result.to_string().replace('/', "\\/")).unwrap();
    let run = cli(dir.path(), &["normalize", "--server", "files", "--tool", "export", file.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    let artifacts = outcome["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 2, "{outcome}");
    for (bytes, name) in [(&pdf, "Quarterly report.pdf"), (&big_png, "export.png")] {
        let artifact = artifacts.iter().find(|a| a["name"] == name).unwrap_or_else(|| panic!("{name} in {outcome}"));
        let sha = artifact["sha256"].as_str().unwrap();
        assert_eq!(sha, format!("{:x}", Sha256::digest(bytes)));
        let blob = dir.path().join("artifacts/blobs").join(&sha[..2]).join(&sha[2..4]).join(sha);
        assert!(std::fs::read(&blob).unwrap() == **bytes, "{name} stored as sent");
    }
    let summary = outcome["summary"].as_str().unwrap();
    assert!(summary.contains("'Quarterly report.pdf' (585.9 KB)") && summary.len() < 1000, "{summary}");
    assert_eq!(std::fs::read_dir(dir.path().join("artifacts/tmp")).unwrap().count(), 0, "no temp file stays");

    std::fs::write(&file, format!("{{\"content\": [{{\"type\": \"text\", \"text\": \"{}\"", b64(&pdf))).unwrap();
    let run = cli(dir.path(), &["normalize", "--server", "files", "--tool", "export", file.to_str().unwrap()]);
    assert_eq!(run.code, 1, "stdout: {}", run.stdout);
    assert!(run.stderr.contains(&format!("{} is not valid JSON", file.display())), "{}", run.stderr);
    assert_eq!(std::fs::read_dir(dir.path().join("artifacts/tmp")).unwrap().count(), 0, "the spilled run of a refused file is removed");
}

/// A one-shot command opens no `subscriptions/listen` stream: a server may wait for an open
/// request before it exits, and every such command then took 2 s more (the demo, killed). What
/// the CLI sends is recorded on the way (`tee`) and read back.
#[test]
fn one_shot_commands_leave_no_listen_request_open() {
    let dir = tempfile::tempdir().unwrap();
    let sent = dir.path().join("sent.jsonl");
    let script = format!("tee {} | exec {}", sent.display(), binary("mcp-canvas-demo").display());
    write_servers(dir.path(), json!({ "demo": {"command": "sh", "args": ["-c", script]} }));
    let run = cli(dir.path(), &["tools", "demo"]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let sent = std::fs::read_to_string(&sent).unwrap();
    assert!(sent.contains("tools/list"), "{sent}");
    assert!(!sent.contains("subscriptions/listen"), "a one-shot command asked for list changes: {sent}");
}
