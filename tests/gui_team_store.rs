//! The team store in the real window (Xvfb, WebDriver): Ada's PDF and Bo's chart, stored on their
//! own machines (data dirs) through the demo server, are listed in Cy's artifact browser under
//! "Team" with who made them; the member filter narrows the list; opening Ada's PDF fetches it
//! from the bucket and shows its first page in the canvas. Settings → Storage shows the team
//! store. Real PostgreSQL and moto, as in `team_store.rs`.

use std::ffi::OsString;

use mcp_canvas_e2e::{
    binary,
    team::{join, member, member_env, Postgres, S3Server},
    webdriver::{press, screenshot, until, wait_for, wait_for_focus, with_app_env},
};
use serde_json::{json, Value};
use thirtyfour::prelude::*;

fn with_demo(dir: &std::path::Path) {
    std::fs::write(dir.join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
}

fn call(dir: &std::path::Path, tool: &str, args: Value) -> String {
    let run = member(dir, &["call", "demo", tool, "--args", &args.to_string(), "--json"], b"");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    outcome["artifacts"][0]["name"].as_str().unwrap().to_owned()
}

async fn drive(driver: WebDriver, pdf: String, chart: String) {
    wait_for(&driver, "button.open-files").await.click().await.unwrap();
    wait_for(&driver, ".browser-scope").await;
    let status = until(&driver, "team_store", "const s = document.querySelector('.team-status'); return s && s.textContent;").await;
    assert!(status.as_str().unwrap().contains("Team “t” as cy"), "{status}");
    driver.execute("[...document.querySelectorAll('.browser-scope button')].find(b => b.textContent.trim() === 'Team').click();", vec![]).await.unwrap();
    let rows = until(&driver, "team_store", "const r = [...document.querySelectorAll('tr[data-team-artifact]')]; return r.length >= 2 && r.map(t => [t.querySelector('.card-name').textContent, t.querySelector('.row-member').textContent]);").await;
    let rows: Vec<(String, String)> = serde_json::from_value(rows).unwrap();
    assert!(rows.contains(&(pdf.clone(), "ada".into())) && rows.contains(&(chart.clone(), "bo".into())), "{rows:?}");
    screenshot(&driver, "team_browser.png").await;

    // Only Bo's.
    driver.execute("const s = document.querySelector('select[aria-label=Member]'); s.value = 'bo'; s.dispatchEvent(new Event('change', {bubbles: true}));", vec![]).await.unwrap();
    until(&driver, "team_store", "const r = [...document.querySelectorAll('tr[data-team-artifact] .row-member')]; return r.length > 0 && r.every(m => m.textContent === 'bo');").await;
    driver.execute("const s = document.querySelector('select[aria-label=Member]'); s.value = ''; s.dispatchEvent(new Event('change', {bubbles: true}));", vec![]).await.unwrap();
    until(&driver, "team_store", "return [...document.querySelectorAll('tr[data-team-artifact] .row-member')].some(m => m.textContent === 'ada');").await;
    // Not Cy's: no privacy switch on teammates' files.
    let switches = driver.find_all(By::Css("tr[data-team-artifact] button[aria-pressed]")).await.unwrap().len();
    assert_eq!(switches, 0, "only a file's own member may make it private");

    // Ada's PDF opens: fetched from the bucket into Cy's cache, its first page painted.
    let opened = format!("[...document.querySelectorAll('tr[data-team-artifact]')].find(t => t.querySelector('.card-name').textContent === {pdf:?}).querySelector('.item-actions button').click(); return true;");
    driver.execute(&opened, vec![]).await.unwrap();
    driver.execute("document.querySelector('button.browser-close')?.click();", vec![]).await.unwrap();
    until(&driver, "team_store", "const i = document.querySelector('section.pane.active img.pdf-page'); return i && i.complete && i.naturalWidth > 0;").await;
    let tab = wait_for(&driver, ".tab.active .tab-label").await.prop("textContent").await.unwrap();
    assert_eq!(tab.as_deref(), Some(pdf.as_str()));
    screenshot(&driver, "team_pdf_opened.png").await;

    // Settings → Storage shows the team store and its state.
    wait_for(&driver, "button.open-settings").await.click().await.unwrap();
    let team_field = wait_for(&driver, "input[name='store.team']").await.value().await.unwrap();
    assert_eq!(team_field.as_deref(), Some("t"));
    let password = wait_for(&driver, "input[name='store.password']").await.value().await.unwrap();
    assert_eq!(password.as_deref(), Some(""), "the password is never shown");
    until(&driver, "team_store", "const s = document.querySelector('.store-status'); return s && s.textContent.includes('everything uploaded');").await;
    driver.execute("document.querySelector('.store-settings').scrollIntoView();", vec![]).await.unwrap();
    screenshot(&driver, "settings_storage.png").await;
    // Team retention, which the app runs by itself: set here, saved to settings.toml.
    wait_for(&driver, "input[name='store.retention_days']").await.send_keys("90").await.unwrap();
    wait_for(&driver, ".store-settings button[type=submit]").await.click().await.unwrap();
    until(&driver, "team_store", "const s = document.querySelector('.store-settings [role=status]'); return s && s.textContent.startsWith('Saved.');").await;
    driver.execute("document.querySelector('button.settings-close')?.click();", vec![]).await.unwrap();

    // Ctrl+K, Team: Ada's PDF found by a word on its pages, with who made it; Enter opens it there.
    press(&driver, Key::Control + "k").await;
    wait_for(&driver, "[role=dialog][aria-label='Search artifacts']").await;
    until(&driver, "team_search", "const b = [...document.querySelectorAll('.search-scope button')].find(b => b.textContent.trim() === 'Team'); if (b && b.getAttribute('aria-pressed') !== 'true') b.click(); return !!b && b.getAttribute('aria-pressed') === 'true';").await;
    wait_for_focus(&driver, "input.search-input").await;
    press(&driver, "region ").await;
    let found = until(&driver, "team_search", "const g = document.querySelector('.search-group'); return g && [g.querySelector('.search-file-name').textContent, g.querySelector('.search-member').textContent, g.querySelector('.search-place').textContent];").await;
    let found: Vec<String> = serde_json::from_value(found).unwrap();
    assert_eq!(found[0], pdf);
    assert_eq!(found[1], "ada");
    assert!(found[2].starts_with("page "), "{found:?}");
    screenshot(&driver, "team_search.png").await;
    press(&driver, Key::Enter).await;
    until(&driver, "team_search", "const i = document.querySelector('section.pane.active img.pdf-page'); return !document.querySelector('[role=dialog][aria-label=\"Search artifacts\"]') && i && i.complete && i.naturalWidth > 0;").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn a_teammates_files_are_listed_by_member_and_open_in_the_canvas() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let (ada, bo, cy) = (join(&s3, &pg, "ada"), join(&s3, &pg, "bo"), join(&s3, &pg, "cy"));
    for dir in [&ada, &bo, &cy] {
        with_demo(dir.path());
    }
    let pdf = call(ada.path(), "get_view_as_pdf", json!({"pages": 3}));
    let chart = call(bo.path(), "render_chart", json!({"values": [3, 5, 2], "title": "Bo's chart"}));
    let env: Vec<(&str, OsString)> = member_env().into_iter().map(|(k, v)| (k, OsString::from(v))).collect();
    with_app_env(&binary("mcp-canvas"), cy.path(), &env, move |driver, _| drive(driver, pdf, chart)).await;
    let settings = std::fs::read_to_string(cy.path().join("settings.toml")).unwrap();
    assert!(settings.contains("retention_days = 90"), "{settings}");
    // Cy opened it: it is in Cy's cache now, and was never queued to upload again.
    let status: Value = serde_json::from_str(&member(cy.path(), &["store", "status", "--json"], b"").stdout).unwrap();
    assert_eq!(status["backlog"]["count"], 0, "{status}");
}
