//! The team's audit trail in the real window (Xvfb, WebDriver): Ada's and Bo's calls, and Bo's
//! sampling exchange, made on their own machines, are listed in Cy's Files → Team audit with who
//! made them; Ada's call about the chart she keeps private is not; the member filter narrows the
//! list; opening the exchange shows its transcript. Real PostgreSQL and moto, as in
//! `team_store.rs`; the model is the scripted provider.

use std::{ffi::OsString, process::Command};

use mcp_canvas_e2e::{
    binary,
    scripted_provider::{text_answer, ScriptedProvider},
    team::{join, member, member_env, Postgres, S3Server},
    webdriver::{screenshot, until, wait_for, with_app_env},
};
use serde_json::{json, Value};
use thirtyfour::prelude::*;

fn with_demo(dir: &std::path::Path) {
    std::fs::write(dir.join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
}

fn call(dir: &std::path::Path, tool: &str, args: Value) -> Value {
    let run = member(dir, &["call", "demo", tool, "--args", &args.to_string(), "--json"], b"");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

async fn drive(driver: WebDriver) {
    wait_for(&driver, "button.open-files").await.click().await.unwrap();
    wait_for(&driver, ".browser-scope").await;
    until(&driver, "team_audit", "const b = [...document.querySelectorAll('.browser-scope button')].find(b => b.textContent.trim() === 'Team audit'); if (b && b.getAttribute('aria-pressed') !== 'true') b.click(); return !!b && b.getAttribute('aria-pressed') === 'true';").await;
    let rows = until(&driver, "team_audit", "const r = [...document.querySelectorAll('tr[data-team-audit]')]; return r.length >= 4 && r.map(t => [t.dataset.member, t.querySelector('.row-what summary').textContent, t.querySelector('.row-outcome').textContent]);").await;
    let rows: Vec<(String, String, String)> = serde_json::from_value(rows).unwrap();
    let what: Vec<(&str, &str)> = rows.iter().map(|(m, w, _)| (m.as_str(), w.split(" · ").next().unwrap())).collect();
    assert!(what.contains(&("ada", "demo / render_chart")) && what.contains(&("bo", "demo / summarize_numbers")) && what.contains(&("bo", "demo")) && what.contains(&("bo", "demo / sample_text")), "{rows:?}");
    assert_eq!(rows.iter().filter(|(m, _, _)| m == "ada").count(), 1, "Ada's call about her private chart is not listed: {rows:?}");
    let text = driver.execute("return document.querySelector('.artifact-browser').textContent;", vec![]).await.unwrap().json().as_str().unwrap().to_owned();
    assert!(!text.contains("acquisition plan"), "{text}");

    // Bo's sampling exchange opens on its transcript.
    driver.execute("const r = [...document.querySelectorAll('tr[data-team-audit=sampling]')][0]; r.querySelector('.row-what details').open = true; r.querySelector('.sampling-log-entry details').open = true;", vec![]).await.unwrap();
    until(&driver, "team_audit", "const r = document.querySelector('tr[data-team-audit=sampling]'); return r && r.textContent.includes('Three short words.') && r.textContent.includes('You are a concise assistant.');").await;
    // And Ada's call on its redacted arguments.
    driver.execute("const r = [...document.querySelectorAll('tr[data-team-audit=call]')].find(t => t.dataset.member === 'ada'); r.querySelector('.row-what details').open = true;", vec![]).await.unwrap();
    until(&driver, "team_audit", "const r = [...document.querySelectorAll('tr[data-team-audit=call]')].find(t => t.dataset.member === 'ada'); return r && r.querySelector('pre') && r.querySelector('pre').textContent.includes('token=[redacted]');").await;
    screenshot(&driver, "team_audit.png").await;

    // Only Bo's.
    driver.execute("const s = document.querySelector('select[aria-label=Member]'); s.value = 'bo'; s.dispatchEvent(new Event('change', {bubbles: true}));", vec![]).await.unwrap();
    until(&driver, "team_audit", "const r = [...document.querySelectorAll('tr[data-team-audit]')]; return r.length === 3 && r.every(t => t.dataset.member === 'bo');").await;
    // Only sampling.
    driver.execute("const s = document.querySelector('select[aria-label=What]'); s.value = 'sampling'; s.dispatchEvent(new Event('change', {bubbles: true}));", vec![]).await.unwrap();
    until(&driver, "team_audit", "const r = [...document.querySelectorAll('tr[data-team-audit]')]; return r.length === 1 && r[0].dataset.teamAudit === 'sampling';").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn every_members_calls_and_sampling_are_in_the_team_audit_view_but_not_a_private_files() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let (ada, bo, cy) = (join(&s3, &pg, "ada"), join(&s3, &pg, "bo"), join(&s3, &pg, "cy"));
    for dir in [&ada, &bo, &cy] {
        with_demo(dir.path());
    }
    let (ada_dir, bo_dir) = (ada.path().to_owned(), bo.path().to_owned());
    let provider = ScriptedProvider::start([text_answer("Three short words.")]).await;
    let settings = std::fs::read_to_string(bo.path().join("settings.toml")).unwrap();
    std::fs::write(bo.path().join("settings.toml"), format!("{settings}\n{}", provider.settings("always"))).unwrap();
    tokio::task::spawn_blocking(move || {
        call(&ada_dir, "render_chart", json!({"values": [3, 5, 2], "title": "Q3 https://dash.example/x?token=tok-secret-42"}));
        let private = call(&ada_dir, "render_chart", json!({"values": [9, 8, 7], "title": "acquisition plan"}));
        assert_eq!(member(&ada_dir, &["store", "private", private["artifacts"][0]["id"].as_str().unwrap()], b"").code, 0);
        call(&bo_dir, "summarize_numbers", json!({"values": [2, 4, 9]}));
        let mut command = Command::new(binary("mcp-canvas-cli"));
        command.arg("--data-dir").arg(&bo_dir).args(["--sampling", "always", "call", "demo", "sample_text"]).env_remove("MCP_CANVAS_DATA_DIR");
        for (k, v) in member_env() {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    })
    .await
    .unwrap();
    let env: Vec<(&str, OsString)> = member_env().into_iter().map(|(k, v)| (k, OsString::from(v))).collect();
    with_app_env(&binary("mcp-canvas"), cy.path(), &env, move |driver, _| drive(driver)).await;
}
