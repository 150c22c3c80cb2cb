//! Files going into tools, end to end with the real demo server's file tools (SEP-2356
//! `x-mcp-file`): a chart from one call described by the next (`--file image=ID`), a file from the
//! disk stored and sent, a list of files, refusals before anything is sent (a type the tool does
//! not accept, a file over its `maxSize`, a reference that does not exist), the audit row keeping
//! the reference, not the bytes; and through the proxy, a model's reference to what it was given
//! sent, anything else refused by name, paths only from the folders `proxy.toml` lists.

use std::{path::Path, process::Stdio};

use mcp_canvas_e2e::{binary, cli};
use rmcp::{model::CallToolRequestParams, service::RunningService, transport::TokioChildProcess, RoleClient, ServiceExt as _};
use serde_json::{json, Value};

fn demo_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    dir
}

fn call_json(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["call"];
    all.extend_from_slice(args);
    all.push("--json");
    let run = cli(dir, &all);
    let value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    (run.code, value, run.stderr)
}

fn first_artifact(outcome: &Value) -> String {
    outcome["artifacts"][0]["id"].as_str().unwrap_or_else(|| panic!("no artifact in {outcome}")).to_owned()
}

#[test]
fn a_result_goes_into_the_next_tool_by_reference_and_refusals_come_before_sending() {
    let dir = demo_dir();
    let (code, chart, _) = call_json(dir.path(), &["demo", "render_chart", "--args", r#"{"values": [3, 8, 5]}"#]);
    assert_eq!(code, 0);
    let chart = first_artifact(&chart);

    // The chart, by each form of reference a result shows.
    for reference in [chart.clone(), format!("artifact:{chart}"), format!("artifact://localhost/{chart}")] {
        let (code, described, stderr) = call_json(dir.path(), &["demo", "describe_image", "--file", &format!("image={reference}")]);
        assert_eq!(code, 0, "{stderr}");
        let summary = described["summary"].as_str().unwrap();
        assert!(summary.contains("PNG image, 480×300 px"), "{summary}");
        assert!(summary.contains("'render_chart.png'"), "the name travels in the data URI: {summary}");
    }

    // The report's table into summarize_csv; a file from the disk; a list of three.
    let (_, report, _) = call_json(dir.path(), &["demo", "make_report", "--args", r#"{"rows": 4}"#]);
    let csv = report["artifacts"].as_array().unwrap().iter().find(|a| a["name"] == "data.csv").unwrap()["id"].as_str().unwrap().to_owned();
    let (code, summary, stderr) = call_json(dir.path(), &["demo", "summarize_csv", "--file", &format!("table={csv}")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(summary["summary"].as_str().unwrap().contains("4 rows, 6 columns"), "{summary}");
    let local = dir.path().join("numbers.csv");
    std::fs::write(&local, "name,total\nacme,12\nglobex,30\n").unwrap();
    let (code, summary, stderr) = call_json(dir.path(), &["demo", "summarize_csv", "--file", &format!("table={}", local.display())]);
    assert_eq!(code, 0, "{stderr}");
    assert!(summary["summary"].as_str().unwrap().contains("| total | 42 |"), "{summary}");
    assert!(stderr.contains("stored") && stderr.contains("local_"), "{stderr}");
    let files = ["--file", &format!("files={csv}")];
    let (code, compared, stderr) = call_json(dir.path(), &["demo", "compare_files", files[0], files[1], "--file", &format!("files={}", local.display()), "--file", &format!("files={csv}")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(compared["summary"].as_str().unwrap().contains("2 distinct contents among 3 files"), "{compared}");

    // Refused before sending, naming the argument and why.
    let refused = |args: &[&str], wanted: &str| {
        let (code, outcome, stderr) = call_json(dir.path(), args);
        assert_eq!(code, 1, "{args:?}: {outcome}");
        assert!(stderr.contains(wanted), "{args:?}: {stderr}");
    };
    refused(&["demo", "summarize_csv", "--file", &format!("table={chart}")], "is image/png, and the tool accepts text/csv, .csv");
    refused(&["demo", "describe_image", "--file", "image=demo_000000000000"], "no stored file `demo_000000000000`");
    refused(&["demo", "describe_image", "--file", "picture=x.png"], "declares no file argument `picture` (its file arguments: image)");
    refused(&["demo", "describe_image", "--args", r#"{"image": "/etc/passwd"}"#], "is not a file reference");
    let big = dir.path().join("big.bin");
    std::fs::write(&big, vec![7u8; 11 * 1024 * 1024]).unwrap();
    refused(&["demo", "compare_files", "--file", &format!("files={}", big.display()), "--file", &format!("files={csv}")], "the file is 11.0 MB and the tool takes at most 10.0 MB");

    // The audit keeps the reference and what was sent, never the bytes.
    let audit = cli(dir.path(), &["audit", "--json"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    assert!(!audit.stdout.contains("base64,"), "a data URI in the audit log");
    let rows: Value = serde_json::from_str(&audit.stdout).unwrap();
    let described = rows.as_array().unwrap().iter().find(|r| r["tool"] == "describe_image" && r["outcome"] == "ok").unwrap();
    assert!(described["arguments"]["image"].as_str().unwrap().ends_with(&chart), "{described}");
    let sent = described["detail"].as_str().unwrap();
    assert!(sent.contains(&chart) && sent.contains("render_chart.png") && sent.contains("sha256 ") && sent.contains("inline as a data URI"), "{sent}");
}

async fn proxy_client(dir: &Path) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    ().serve(transport).await.expect("MCP handshake with the proxy")
}

async fn call(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> Value {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    serde_json::to_value(client.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)).await.unwrap()).unwrap()
}

fn text(result: &Value) -> String {
    result["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n")
}

/// The id after "Reference:" in a result's text, as a model reads it.
fn reference_in(result: &Value) -> String {
    let said = text(result);
    let at = said.find("Reference: ").unwrap_or_else(|| panic!("no reference in {said}"));
    said[at + "Reference: ".len()..].split(|c: char| c.is_whitespace() || c == ')').next().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_sends_what_it_was_given_by_reference_and_nothing_else() {
    let dir = demo_dir();
    // Stored by the person, never shown to a model.
    let (_, private, _) = call_json(dir.path(), &["demo", "render_chart", "--args", r#"{"values": [1, 1, 1]}"#]);
    let private = first_artifact(&private);

    std::fs::write(dir.path().join("proxy.toml"), "image_max_bytes = 0\n").unwrap();
    let client = proxy_client(dir.path()).await;
    let tools = client.list_all_tools().await.unwrap();
    let describe = tools.iter().find(|t| t.name == "demo__describe_image").unwrap();
    let image = &describe.input_schema["properties"]["image"];
    assert_eq!(image["type"], "string");
    assert!(image.get("x-mcp-file").is_none() && image.get("format").is_none(), "the model sees a reference, not a data URI: {image}");
    assert!(image["description"].as_str().unwrap().contains("by reference"), "{image}");

    // What the model was given goes into the next tool by its reference.
    let chart = call(&client, "demo__render_chart", json!({ "values": [2, 9, 4] })).await;
    let reference = reference_in(&chart);
    let described = call(&client, "demo__describe_image", json!({ "image": reference })).await;
    assert_ne!(described["isError"], true, "{described}");
    assert!(text(&described).contains("PNG image, 480×300 px"), "{described}");
    assert!(!described.to_string().contains("base64,"), "the model never sees the bytes");

    // What it was not given: refused by name, before anything is sent.
    let refused = call(&client, "demo__describe_image", json!({ "image": private })).await;
    assert_eq!(refused["isError"], true);
    assert!(text(&refused).contains("is not a file this AI host was given"), "{refused}");
    // Until the person lets models use it; and no longer once taken back.
    assert_eq!(cli(dir.path(), &["artifacts", "share-with-models", &private]).code, 0);
    let allowed = call(&client, "demo__describe_image", json!({ "image": private })).await;
    assert_ne!(allowed["isError"], true, "{allowed}");
    assert_eq!(cli(dir.path(), &["artifacts", "unshare-with-models", &private]).code, 0);
    let refused = call(&client, "demo__describe_image", json!({ "image": private })).await;
    assert_eq!(refused["isError"], true, "{refused}");
    // A path, with no folders listed: refused.
    let outside = dir.path().join("numbers.csv");
    std::fs::write(&outside, "a,b\n1,2\n").unwrap();
    let refused = call(&client, "demo__summarize_csv", json!({ "table": outside.display().to_string() })).await;
    assert_eq!(refused["isError"], true);
    assert!(text(&refused).contains("not a file reference"), "{refused}");
    client.cancel().await.unwrap();

    // With a folder listed: a file in it is sent; `..` out of it is not.
    let folder = dir.path().join("shared");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("q3.csv"), "name,total\nacme,5\n").unwrap();
    std::fs::write(dir.path().join("proxy.toml"), format!("image_max_bytes = 0\nfile_folders = [{:?}]\n", folder.display().to_string())).unwrap();
    let client = proxy_client(dir.path()).await;
    let summed = call(&client, "demo__summarize_csv", json!({ "table": folder.join("q3.csv").display().to_string() })).await;
    assert_ne!(summed["isError"], true, "{summed}");
    assert!(text(&summed).contains("1 rows, 2 columns"), "{summed}");
    let escaped = call(&client, "demo__summarize_csv", json!({ "table": folder.join("../numbers.csv").display().to_string() })).await;
    assert_eq!(escaped["isError"], true);
    assert!(text(&escaped).contains("file_folders"), "{escaped}");
    client.cancel().await.unwrap();
}

#[test]
fn the_client_says_it_takes_file_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let stub = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/stub_server.py");
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "stub": { "command": "python3", "args": [stub] } } }).to_string()).unwrap();
    let (code, outcome, stderr) = call_json(dir.path(), &["stub", "client_capabilities"]);
    assert_eq!(code, 0, "{stderr}");
    let declared: Value = serde_json::from_str(outcome["summary"].as_str().unwrap()).unwrap();
    assert_eq!(declared["experimental"]["fileInputs"], json!({}), "{declared}");
    assert_eq!(declared["experimental"]["files"], json!({ "upload": true, "download": true, "transports": ["https"] }), "{declared}");
}

const TRANSFER_SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/file_transfer_server.py");

fn transfer_dir(flags: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![TRANSFER_SERVER.to_owned()];
    args.extend(flags.iter().map(|f| f.to_string()));
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "files": { "command": "python3", "args": args } } }).to_string()).unwrap();
    dir
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_file_over_the_inline_cap_goes_out_of_band_to_the_servers_upload_url() {
    let dir = transfer_dir(&[]);
    // 17 MB: over the 16 MB sent inline; `checksum` allows both modes, so it is uploaded.
    let big: Vec<u8> = (0..17u32 * 1024 * 1024).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    let path = dir.path().join("big.bin");
    std::fs::write(&path, &big).unwrap();
    let (code, outcome, stderr) = call_json(dir.path(), &["files", "checksum", "--file", &format!("file={}", path.display())]);
    assert_eq!(code, 0, "{stderr}");
    let summary = outcome["summary"].as_str().unwrap();
    assert!(summary.contains(&sha256_hex(&big)) && summary.contains("via upload"), "{summary}");
    assert!(outcome["warnings"].to_string().contains("out of band (files/authorizeUpload)"), "{outcome}");

    // A small file to a tool that takes only uploads: uploaded too; inline where only inline.
    let small = dir.path().join("q3.csv");
    std::fs::write(&small, "name,total\nacme,12\n").unwrap();
    let (code, outcome, stderr) = call_json(dir.path(), &["files", "upload_only", "--file", &format!("file={}", small.display())]);
    assert_eq!(code, 0, "{stderr}");
    assert!(outcome["summary"].as_str().unwrap().contains("via upload"), "{outcome}");
    let (code, outcome, _) = call_json(dir.path(), &["files", "inline_only", "--file", &format!("file={}", small.display())]);
    assert_eq!(code, 0);
    assert!(outcome["summary"].as_str().unwrap().contains("via inline"), "{outcome}");
    // Over an inline-only tool's maxSize: refused before anything is sent.
    let (code, _, stderr) = call_json(dir.path(), &["files", "inline_only", "--file", &format!("file={}", path.display())]);
    assert_eq!(code, 1);
    assert!(stderr.contains("the tool takes at most 1.0 MB"), "{stderr}");

    // Damaged on disk after it was stored: the server checks the digest we announced, and says no.
    let listed: Value = serde_json::from_str(&cli(dir.path(), &["artifacts", "list", "--json", "--name", "q3.csv"]).stdout).unwrap();
    let sha = listed["items"][0]["sha256"].as_str().unwrap().to_owned();
    let blob = dir.path().join("artifacts/blobs").join(&sha[..2]).join(&sha[2..4]).join(&sha);
    std::fs::write(&blob, "name,total\nacme,99\n").unwrap();
    let (code, _, stderr) = call_json(dir.path(), &["files", "upload_only", "--file", &format!("file={}", listed["items"][0]["id"].as_str().unwrap())]);
    assert_eq!(code, 1);
    assert!(stderr.contains("do not match their digest"), "{stderr}");
}

#[test]
fn multipart_uploads_work_and_upload_urls_are_checked_before_sending() {
    let small = |dir: &Path| {
        let path = dir.join("q3.csv");
        std::fs::write(&path, "name,total\nacme,12\n").unwrap();
        format!("file={}", path.display())
    };
    let dir = transfer_dir(&["--multipart"]);
    let (code, outcome, stderr) = call_json(dir.path(), &["files", "upload_only", "--file", &small(dir.path())]);
    assert_eq!(code, 0, "{stderr}");
    assert!(outcome["summary"].as_str().unwrap().contains(&sha256_hex(b"name,total\nacme,12\n")), "{outcome}");

    for (prefix, wanted) in [("http://10.0.0.1:9", "plain http"), ("https://169.254.169.254", "private or local address range")] {
        let dir = transfer_dir(&["--upload-url", prefix]);
        let (code, _, stderr) = call_json(dir.path(), &["files", "upload_only", "--file", &small(dir.path())]);
        assert_eq!(code, 1, "{prefix}");
        assert!(stderr.contains(wanted), "{prefix}: {stderr}");
    }
}

#[test]
fn a_file_a_tool_offers_is_fetched_checked_against_its_digest_and_stored() {
    let dir = transfer_dir(&[]);
    let (code, outcome, stderr) = call_json(dir.path(), &["files", "make_file", "--args", r#"{"text": "quarterly figures\n", "name": "q3.txt"}"#]);
    assert_eq!(code, 0, "{stderr}");
    let artifact = outcome["artifacts"].as_array().unwrap().iter().find(|a| a["name"] == "q3.txt").unwrap_or_else(|| panic!("not stored: {outcome}"));
    assert_eq!(artifact["sha256"], sha256_hex(b"quarterly figures\n"));
    assert!(outcome["summary"].as_str().unwrap().contains(&format!("Reference: {}", artifact["id"].as_str().unwrap())), "{outcome}");
    let exported = dir.path().join("out.txt");
    assert_eq!(cli(dir.path(), &["artifacts", "export", artifact["id"].as_str().unwrap(), exported.to_str().unwrap()]).code, 0);
    assert_eq!(std::fs::read(&exported).unwrap(), b"quarterly figures\n");

    // A file whose bytes do not match the digest it was offered with: not stored, and said.
    let dir = transfer_dir(&["--bad-digest"]);
    let (code, outcome, _) = call_json(dir.path(), &["files", "make_file", "--args", r#"{"text": "x", "name": "bad.txt"}"#]);
    assert_eq!(code, 0);
    assert!(outcome["artifacts"].as_array().unwrap().iter().all(|a| a["name"] != "bad.txt"), "{outcome}");
    assert!(outcome["warnings"].to_string().contains("does not match its sha-256 digest; not stored"), "{outcome}");
    assert!(!cli(dir.path(), &["artifacts", "list"]).stdout.contains("bad.txt"));
}

#[test]
fn the_inline_cap_is_a_setting() {
    let dir = transfer_dir(&[]);
    std::fs::write(dir.path().join("settings.toml"), "[files]\ninline_max_bytes = 1000\n").unwrap();
    let path = dir.path().join("two-kb.txt");
    std::fs::write(&path, "x".repeat(2000)).unwrap();
    let file = format!("file={}", path.display());
    let (code, outcome, stderr) = call_json(dir.path(), &["files", "checksum", "--file", &file]);
    assert_eq!(code, 0, "{stderr}");
    assert!(outcome["summary"].as_str().unwrap().contains("via upload"), "2 KB is over the 1000 bytes sent inline: {outcome}");
    let (code, _, stderr) = call_json(dir.path(), &["files", "inline_only", "--file", &file]);
    assert_eq!(code, 1);
    assert!(stderr.contains("over the 1000 bytes MCP Canvas sends inline (settings.toml [files] inline_max_bytes)"), "{stderr}");
}
