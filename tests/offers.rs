//! What a server offers besides tools, through `Host` and `mcp-canvas-cli` against the real demo
//! server: argument completion (and a server whose suggestions take 30 s: the form gets a note
//! within the bound, not a hang), a prompt's messages stored as a transcript with its image beside
//! it, skills listed without reading anything and read only when they verify, and `--trace FILE`
//! (both directions, secrets redacted, the chart's base64 a note naming its artifact).

use std::{collections::HashMap, sync::Arc, time::Duration};

use mcp_canvas_e2e::{binary, cli};
use mcp_canvas_wire::{offers::CompletionTarget, CommandError, ErrorKind};
use mcp_canvas_host::{completion::COMPLETION_TIMEOUT, Host, HostOptions};
use serde_json::{json, Map, Value};

fn demo_host() -> (tempfile::TempDir, Arc<Host>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(120), session: None }).unwrap();
    (dir, Arc::new(host))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_suggests_and_a_hanging_one_is_bounded() {
    let (_dir, host) = demo_host();
    let template = CompletionTarget::ResourceTemplate { uri_template: "demo://chart/{values}".into() };
    let s = host.complete("demo", &template, "values", "2,", HashMap::new()).await.unwrap();
    assert_eq!(s.values, vec!["2,7,1,8,2,8"]);
    assert_eq!(s.note, None);
    let slow = CompletionTarget::Prompt { name: "slow_suggestions".into() };
    // The server answers after 30 s; the note is the host's own timeout (no wall-clock budget here:
    // that the note says 3 s is what shows the form did not wait for the server).
    let s = host.complete("demo", &slow, "topic", "a", HashMap::new()).await.unwrap();
    assert!(s.values.is_empty(), "{s:?}");
    assert!(s.note.as_deref().unwrap().contains(&format!("did not suggest anything within {} s", COMPLETION_TIMEOUT.as_secs())), "{s:?}");
    // The connection is still usable afterwards.
    let s = host.complete("demo", &CompletionTarget::Prompt { name: "describe_chart".into() }, "audience", "s", HashMap::new()).await.unwrap();
    assert_eq!(s.values, vec!["student"]);
    // An unknown server is an error of its kind, not an empty list.
    let e = host.complete("nope", &template, "values", "", HashMap::new()).await.unwrap_err();
    assert_eq!(CommandError::from(e).kind, ErrorKind::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_is_stored_as_its_transcript_and_attachments() {
    let (_dir, host) = demo_host();
    let prompts = host.prompts("demo").await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "describe_chart" && p.arguments.iter().any(|a| a.name == "values" && a.required)), "{prompts:?}");
    let mut args = Map::new();
    args.insert("values".into(), json!("4,2"));
    let read = host.read_prompt("demo", "describe_chart", args).await.unwrap();
    assert_eq!(read.messages, 3);
    let names: Vec<&str> = read.outcome.artifacts.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["describe_chart.md", "describe_chart-1.png"], "transcript first, then the image named after the prompt");
    assert!(read.markdown.contains("Describe this bar chart of 4,2 for an analyst"), "{}", read.markdown);
    let json: Value = serde_json::from_str(&read.json).unwrap();
    assert_eq!(json[1]["content"]["artifact"], json!(read.outcome.artifacts[1].id), "the image is its artifact in the JSON: {json}");
    assert!(!read.json.contains("iVBOR") && !read.outcome.summary.contains("iVBOR"), "no base64 for the window or the model");
    // A missing required argument is refused by name before anything is sent.
    let e = host.read_prompt("demo", "describe_chart", Map::new()).await.unwrap_err();
    assert!(e.to_string().contains("values"), "{e}");
    assert_eq!(e.kind(), ErrorKind::BadArguments);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_listed_without_reading_and_read_only_when_they_verify() {
    let (dir, host) = demo_host();
    let list = host.skills("demo").await.unwrap();
    assert!(list.supported);
    let names: Vec<&str> = list.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["read-a-chart", "tampered-example"]);
    let store = host.store().clone();
    assert_eq!(store.query(&Default::default()).unwrap().total, 0, "listing reads nothing");
    let read = host.read_skill("demo", "read-a-chart", None).await.unwrap();
    assert!(read.verified.iter().any(|v| v == "frontmatter as listed"), "{:?}", read.verified);
    let palette = host.read_skill("demo", "read-a-chart", Some("skill://read-a-chart/references/palette.md")).await.unwrap();
    assert_eq!(palette.outcome.artifacts[0].name, "palette.md");
    let e = host.read_skill("demo", "read-a-chart", Some("skill://read-a-chart/../../etc/passwd")).await.unwrap_err();
    assert!(e.to_string().contains("is not in the skill's manifest"), "{e}");
    let e = host.read_skill("demo", "tampered-example", None).await.unwrap_err();
    assert!(e.to_string().contains("the manifest says 35"), "{e}");
    assert_eq!(e.kind(), ErrorKind::Refused);
    assert_eq!(store.query(&Default::default()).unwrap().total, 2, "only what verified is stored");
    drop(host);
    let audit = cli(dir.path(), &["audit", "--json"]);
    assert!(audit.stdout.contains("skills/read") && audit.stdout.contains("refused"), "{}", audit.stdout);
}

#[test]
fn trace_writes_both_directions_redacted_with_base64_as_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    let trace = dir.path().join("trace.jsonl");
    let run = cli(dir.path(), &["--trace", trace.to_str().unwrap(), "call", "demo", "render_chart", "--args", r#"{"values": [1, 2, 3], "title": "token=abc"}"#, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    let id = outcome["artifacts"][0]["id"].as_str().unwrap();
    let lines: Vec<Value> = std::fs::read_to_string(&trace).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.iter().any(|l| l["direction"] == "sent") && lines.iter().any(|l| l["direction"] == "received"));
    let answer = lines.iter().find(|l| l["method"] == "tools/call" && l["kind"] == "response").expect("the call's answer");
    let text = answer["text"].as_str().unwrap();
    assert!(text.contains(&format!("→ artifact {id}")), "{text}");
    assert!(!text.contains("iVBOR"), "{text}");
    assert!(answer["latency_ms"].as_u64().is_some());
    assert!(answer["bytes"].as_u64().unwrap() > text.len() as u64, "the size is the message's, not the note's");
    let request = lines.iter().find(|l| l["method"] == "tools/call" && l["kind"] == "request").unwrap();
    assert_eq!(request["call"], answer["call"]);
    let all = std::fs::read_to_string(&trace).unwrap();
    assert!(request["text"].as_str().unwrap().contains("token=[redacted]"), "{}", request["text"]);
    assert!(!all.contains("token=abc"), "a secret-looking value never reaches the trace file");
    // A trace file that cannot be written is a clear error, and nothing runs.
    let bad = cli(dir.path(), &["--trace", "/proc/nope/trace.jsonl", "servers", "list"]);
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.contains("cannot write the trace file /proc/nope/trace.jsonl"), "{}", bad.stderr);
}
