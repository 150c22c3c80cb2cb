//! The team's audit trail against real parts (PostgreSQL, moto, the demo server, real
//! `mcp-canvas-cli` processes as members): every member's calls and sampling exchanges reach the
//! team catalog off the call path, through the same outbox as artifacts, exactly once, redacted;
//! a call naming a member's private artifact is seen by that member only.

use std::{path::Path, process::Command};

use mcp_canvas_e2e::{
    binary,
    scripted_provider::{text_answer, ScriptedProvider},
    team::{join, member, member_env, Postgres, S3Server},
    Run,
};
use serde_json::Value;

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr))
}

/// `call demo TOOL --args ARGS --json` as a member; the outcome.
fn call(dir: &Path, tool: &str, args: &str) -> Value {
    let run = member(dir, &["call", "demo", tool, "--args", args, "--json"], b"");
    assert_eq!(run.code, 0, "{tool}: {}{}", run.stdout, run.stderr);
    json_of(&run)
}

/// `audit --team --json ARGS...` as a member: the rows.
fn team_audit(dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["audit", "--team", "--json"];
    all.extend_from_slice(args);
    let run = member(dir, &all, b"");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    json_of(&run).as_array().unwrap().clone()
}

fn tools_of(rows: &[Value]) -> Vec<(String, String)> {
    rows.iter().map(|r| (r["member"].as_str().unwrap().to_owned(), r["tool"].as_str().unwrap_or("(sampling)").to_owned())).collect()
}

#[test]
fn every_members_calls_reach_the_team_and_a_call_about_a_private_artifact_stays_with_its_member() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let (ada, bo) = (join(&s3, &pg, "ada"), join(&s3, &pg, "bo"));

    // Ada's chart, with a URL token in its arguments (redacted as the local log does).
    let shared = call(ada.path(), "render_chart", r#"{"values": [1, 2, 3], "title": "Q3 https://dash.example/x?token=tok-secret-42"}"#);
    let shared_id = shared["artifacts"][0]["id"].as_str().unwrap().to_owned();
    // Another chart, which she then keeps to herself.
    let private = call(ada.path(), "render_chart", r#"{"values": [9, 8, 7], "title": "acquisition plan"}"#);
    let private_id = private["artifacts"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(member(ada.path(), &["store", "private", &private_id], b"").code, 0);
    // Bo's call stores nothing.
    call(bo.path(), "summarize_numbers", r#"{"values": [2, 4, 9]}"#);
    // Each process wrote its rows before exiting: nothing waits.
    let status = json_of(&member(ada.path(), &["store", "status", "--json"], b""));
    assert_eq!((status["backlog"]["count"].clone(), status["backlog"]["records"].clone()), (0.into(), 0.into()), "{status}");
    assert_eq!(pg.admin("SELECT COUNT(*) FROM audit"), "3");

    // Bo sees Ada's shared call (who, server, tool, redacted arguments, artifact, outcome, time)
    // and his own, not the one about her private chart.
    let seen = team_audit(bo.path(), &[]);
    assert_eq!(tools_of(&seen), [("bo".into(), "summarize_numbers".into()), ("ada".into(), "render_chart".into())], "{seen:#?}");
    let hers = &seen[1];
    assert_eq!((hers["server"].as_str(), hers["outcome"].as_str(), hers["kind"].as_str()), (Some("demo"), Some("ok"), Some("call")));
    assert_eq!(hers["artifact_ids"], serde_json::json!([shared_id]));
    assert_eq!(hers["call"]["arguments"]["title"], "Q3 https://dash.example/x?token=[redacted]");
    assert!(hers["at_ms"].as_i64().unwrap() > 1_700_000_000_000);
    let everything = serde_json::to_string(&seen).unwrap();
    assert!(!everything.contains("tok-secret-42") && !everything.contains(&private_id) && !everything.contains("acquisition plan"), "{everything}");
    // Filtering by her name does not find it either.
    assert_eq!(team_audit(bo.path(), &["--member", "ada"]).len(), 1);

    // Ada sees all three; sharing it again shows the call to Bo.
    assert_eq!(team_audit(ada.path(), &[]).len(), 3);
    assert_eq!(member(ada.path(), &["store", "share", &private_id], b"").code, 0);
    assert!(serde_json::to_string(&team_audit(bo.path(), &[])).unwrap().contains("acquisition plan"));
    assert_eq!(member(ada.path(), &["store", "private", &private_id], b"").code, 0);

    // The filters: member, server, tool, outcome, since, kind.
    assert_eq!(tools_of(&team_audit(bo.path(), &["--member", "bo"])), [("bo".into(), "summarize_numbers".into())]);
    assert_eq!(team_audit(bo.path(), &["--tool", "render_chart"]).len(), 1);
    assert_eq!(team_audit(bo.path(), &["--server", "demo", "--outcome", "ok", "--since", "1h"]).len(), 2);
    assert_eq!(team_audit(bo.path(), &["--server", "other"]).len(), 0);
    assert_eq!(team_audit(bo.path(), &["--since", "2999-01-01"]).len(), 0);
    assert_eq!(team_audit(bo.path(), &["--kind", "sampling"]).len(), 0);
    // The text form names the member.
    let text = member(bo.path(), &["audit", "--team"], b"");
    assert!(text.code == 0 && text.stdout.lines().any(|l| l.contains("\tada\tdemo/render_chart\tok")), "{}", text.stdout);
    // The local log has the same filters (and only this machine's calls).
    let local = member(ada.path(), &["audit", "--json", "--tool", "render_chart", "--since", "1d"], b"");
    assert_eq!(json_of(&local).as_array().unwrap().len(), 2);
    // Her private chart leaves the team catalog (retention takes every artifact here): the call
    // about it stays hidden from Bo, and stays hers.
    let gc = member(ada.path(), &["store", "gc", "--max-age-days", "0"], b"");
    assert_eq!(gc.code, 0, "{}{}", gc.stdout, gc.stderr);
    assert_eq!(pg.admin(&format!("SELECT COUNT(*) FROM artifacts WHERE id = '{private_id}'")), "0");
    assert!(!serde_json::to_string(&team_audit(bo.path(), &[])).unwrap().contains("acquisition plan"));
    assert!(serde_json::to_string(&team_audit(ada.path(), &[])).unwrap().contains("acquisition plan"));
    // Bad input names what to fix.
    let bad = member(bo.path(), &["audit", "--team", "--since", "yesterday"], b"");
    assert!(bad.code != 0 && bad.stderr.contains("use e.g. 30m, 12h, 7d or 2026-11-01"), "{}", bad.stderr);
}

#[test]
fn a_call_made_while_the_catalog_is_down_reaches_the_team_once_when_it_is_back() {
    let (s3, mut pg) = (S3Server::start(), Postgres::start());
    let ada = join(&s3, &pg, "ada");
    call(ada.path(), "summarize_numbers", r#"{"values": [1]}"#); // creates the schema
    pg.stop();
    // The call answers, stored here and queued.
    let outcome = call(ada.path(), "summarize_numbers", r#"{"values": [7, 7]}"#);
    assert!(outcome["error"].is_null(), "{outcome}");
    let status = member(ada.path(), &["store", "status", "--json"], b"");
    assert_eq!(status.code, 1);
    let status = json_of(&status);
    assert_eq!(status["backlog"]["records"], 1, "{status}");
    assert!(status["backlog"]["last_error"].as_str().is_some_and(|e| e.contains("team catalog postgres://canvas@127.0.0.1")), "{status}");
    let text = member(ada.path(), &["store", "status"], b"").stdout;
    assert!(text.contains("pending  1 audit rows and sampling exchanges"), "{text}");

    pg.restart();
    // A copy of this data dir as it is now: what a drain killed after the catalog's commit, before
    // the local queue heard of it, leaves behind.
    let before = tempfile::tempdir().unwrap();
    copy_catalog(ada.path(), before.path());
    let sync = json_of(&member(ada.path(), &["store", "sync", "--json"], b""));
    assert_eq!(sync["logged"], 1, "{sync}");
    assert_eq!(json_of(&member(ada.path(), &["store", "sync", "--json"], b""))["logged"], 0);
    copy_catalog(before.path(), ada.path());
    let again = json_of(&member(ada.path(), &["store", "sync", "--json"], b""));
    assert_eq!((again["logged"].clone(), again["error"].clone()), (1.into(), Value::Null), "the retried row is acknowledged: {again}");
    // Exactly once.
    assert_eq!(pg.admin("SELECT COUNT(*) FROM audit WHERE record->'arguments' = '{\"values\": [7, 7]}'::jsonb"), "1");
    assert_eq!(pg.admin("SELECT COUNT(*) FROM audit"), "2");
    let rows = team_audit(ada.path(), &["--tool", "summarize_numbers"]);
    assert_eq!(rows.len(), 2);
}

fn copy_catalog(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("catalog.sqlite") {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
    // A WAL left from the copy's source must not be replayed onto the other file.
    for stale in ["catalog.sqlite-wal", "catalog.sqlite-shm"] {
        if !from.join(stale).exists() {
            let _ = std::fs::remove_file(to.join(stale));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sampling_exchange_reaches_the_team_with_its_transcript_and_never_the_api_key() {
    const KEY: &str = "sk-team-audit-5e1c9";
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let (ada, bo) = (join(&s3, &pg, "ada"), join(&s3, &pg, "bo"));
    let provider = ScriptedProvider::start([text_answer("Three short words.")]).await;
    let settings = std::fs::read_to_string(ada.path().join("settings.toml")).unwrap();
    std::fs::write(ada.path().join("settings.toml"), format!("{settings}\n{}api_key_env = \"TEAM_AUDIT_LLM_KEY\"\n", provider.settings("always"))).unwrap();

    let dir = ada.path().to_owned();
    let run = tokio::task::spawn_blocking(move || {
        let mut command = Command::new(binary("mcp-canvas-cli"));
        command.arg("--data-dir").arg(&dir).args(["--sampling", "always", "call", "demo", "sample_text", "--json"]).env_remove("MCP_CANVAS_DATA_DIR").env_remove("PGPASSWORD");
        for (k, v) in member_env() {
            command.env(k, v);
        }
        command.env("TEAM_AUDIT_LLM_KEY", KEY).output().unwrap()
    })
    .await
    .unwrap();
    assert!(run.status.success(), "{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert_eq!(provider.seen().len(), 1, "the provider was asked");

    let bo_dir = bo.path().to_owned();
    let rows = tokio::task::spawn_blocking(move || team_audit(&bo_dir, &["--kind", "sampling"])).await.unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let row = &rows[0];
    assert_eq!((row["member"].as_str(), row["server"].as_str(), row["kind"].as_str()), (Some("ada"), Some("demo"), Some("sampling")));
    // The reviewable transcript: what was asked and what the model answered.
    let exchange = &row["exchange"];
    assert_eq!(exchange["provider"], "scripted");
    assert_eq!(exchange["request"]["systemPrompt"], "You are a concise assistant.");
    assert!(exchange.to_string().contains("Three short words."), "{exchange}");
    let everything = format!("{rows:?}{}", pg.admin("SELECT string_agg(exchange::text, '') FROM sampling_exchanges"));
    assert!(!everything.contains(KEY), "no API key in the team catalog");
    // The call that sampled is there too.
    let bo_dir = bo.path().to_owned();
    let calls = tokio::task::spawn_blocking(move || team_audit(&bo_dir, &["--kind", "calls", "--tool", "sample_text"])).await.unwrap();
    assert_eq!(calls.len(), 1, "{calls:#?}");
}

/// A call through the proxy (an AI host's) reaches the team's audit trail while the proxy runs:
/// its row is written after the answer, in a batch, and the batch kicks the drain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_through_the_proxy_reaches_the_team_while_the_proxy_runs() {
    use rmcp::{model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt as _};
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let ada = join(&s3, &pg, "ada");
    std::fs::write(ada.path().join("servers.json"), serde_json::json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    assert_eq!(member(ada.path(), &["store", "status"], b"").code, 0, "the catalog's schema is there");
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(ada.path()).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR").env_remove("PGPASSWORD");
    for (k, v) in member_env() {
        command.env(k, v);
    }
    let (transport, _) = TokioChildProcess::builder(command).stderr(std::process::Stdio::null()).spawn().unwrap();
    let client = ().serve(transport).await.expect("MCP handshake with the proxy");
    let serde_json::Value::Object(arguments) = serde_json::json!({"values": [3, 4, 5]}) else { unreachable!() };
    let result = client.call_tool(CallToolRequestParams::new("demo__summarize_numbers").with_arguments(arguments)).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    // Only a guard against a hang: the row comes after the answer, off the call path.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while pg.admin("SELECT COUNT(*) FROM audit WHERE tool = 'summarize_numbers' AND member = 'ada'") != "1" {
        assert!(std::time::Instant::now() < deadline, "the proxied call never reached the team's audit trail");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    client.cancel().await.unwrap();
    assert_eq!(pg.admin("SELECT record->'arguments'->>'values' FROM audit WHERE tool = 'summarize_numbers'"), "[3, 4, 5]");
}
