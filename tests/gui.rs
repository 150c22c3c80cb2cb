//! The desktop app in a real window (Xvfb), driven through WebDriver: tauri-driver in front of
//! WebKitWebDriver, one `thirtyfour` session over one kept-alive connection.
//!
//! Ignored by plain `cargo test` because it needs a display and tauri-driver; `scripts/test.sh`
//! runs it with `xvfb-run -a cargo test -p mcp-canvas-e2e --test window gui:: -- --ignored --test-threads=1` (`tests/window.rs`).

use std::{
    ffi::OsString,
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use mcp_canvas_e2e::{
    binary,
    webdriver::{arguments_mode, call_with, listed_tools, newest_result_after, press, replace_text, result_count, screenshot, set_arguments, wait_for, wait_for_focus, wait_for_script, with_app_env, POLL, WAIT},
};
use serde_json::json;
use thirtyfour::prelude::*;

/// The tab labels of the focused pane, left to right.
async fn active_pane_labels(driver: &WebDriver) -> Vec<String> {
    let labels = driver.execute("return [...document.querySelectorAll('section.pane.active .tab-label')].map(e => e.textContent);", vec![]).await.unwrap().json().clone();
    serde_json::from_value(labels).unwrap()
}

async fn drive(driver: &WebDriver, data_dir: &Path, opened: &Path) {
    // First run: the demo server is configured and its tools are listed.
    wait_for(driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await.click().await.unwrap();

    // Bad input is shown and the app stays up.
    set_arguments(driver, "{values: oops").await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let error = wait_for(driver, ".call-error").await.text().await.unwrap();
    assert!(error.contains("arguments for `demo`/`render_chart` are not valid JSON"), "{error}");

    // A real call: the image arrives through the artifact: scheme and renders.
    set_arguments(driver, r#"{"values": [4, 9, 6, 12, 7, 10], "title": "Weekly signups"}"#).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let image = wait_for(driver, "img.artifact-image").await;
    let natural = wait_for_script(
        driver,
        "const img = arguments[0]; return img.complete && img.naturalWidth > 0 ? [img.naturalWidth, img.naturalHeight, img.currentSrc] : null;",
        vec![image.to_json().unwrap()],
    )
    .await;
    assert_eq!((natural[0].as_u64(), natural[1].as_u64()), (Some(480), Some(300)), "{natural}");
    let src = natural[2].as_str().unwrap();
    assert!(src.starts_with("artifact://localhost/demo_") || src.starts_with("http://artifact.localhost/demo_"), "image not served by the artifact scheme: {src}");

    let summary = wait_for(driver, ".result .summary").await.text().await.unwrap();
    assert!(summary.contains("Weekly signups: 6 bars, highest 12."), "{summary}");
    assert!(summary.contains("Stored PNG image 'render_chart.png'"), "{summary}");
    screenshot(driver, "render_chart.png").await;
    let tab = wait_for(driver, ".tab.active .tab-label").await.prop("textContent").await.unwrap();
    assert_eq!(tab.as_deref(), Some("render_chart.png"));

    // make_report in split mode: a second pane opens beside the first, report.html first.
    wait_for(driver, r#"button[data-tool="make_report"]"#).await.click().await.unwrap();
    set_arguments(driver, r#"{"mode": "split"}"#).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let panes = wait_for_script(driver, "const p = document.querySelectorAll('section.pane'); return p.length >= 2 ? p.length : null;", vec![]).await;
    assert_eq!(panes, json!(2));
    let active = wait_for(driver, "section.pane.active .tab.active .tab-label").await.prop("textContent").await.unwrap();
    assert_eq!(active.as_deref(), Some("report.html"), "the primary file opens first");
    let labels = wait_for_script(driver, "return [...document.querySelectorAll('section.pane.active .tab-label')].map(e => e.textContent);", vec![]).await;
    assert_eq!(labels, json!(["report.html", "chart.png", "data.csv"]));
    // report.html is shown sanitized in a sandboxed frame: no script, no handler survives.
    let frame = wait_for(driver, "section.pane.active iframe.document-frame").await;
    assert_eq!(frame.attr("sandbox").await.unwrap().as_deref(), Some(""), "no allow-scripts, no allow-same-origin");
    let src = frame.attr("src").await.unwrap().unwrap();
    let sanitized = wait_for_script(driver, "return fetch(arguments[0]).then(r => r.text());", vec![json!(src)]).await;
    let sanitized = sanitized.as_str().unwrap().to_ascii_lowercase();
    assert!(sanitized.contains("quarterly") || sanitized.contains("report"), "the report's content is kept");
    assert!(!sanitized.contains("<script") && !sanitized.contains("onclick"), "{sanitized}");
    screenshot(driver, "make_report_split.png").await;
    append_step(driver).await;

    // A PDF opens at page 1, rendered by pdfium; the next page renders on demand.
    wait_for(driver, r#"button[data-tool="download_workbook"]"#).await.click().await.unwrap();
    set_arguments(driver, r#"{"pages": 3}"#).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let page = wait_for(driver, "img.pdf-page").await;
    let size = wait_for_script(driver, "const i = arguments[0]; return i.complete && i.naturalWidth > 0 ? [i.naturalWidth, i.naturalHeight] : null;", vec![page.to_json().unwrap()]).await;
    let (w, h) = (size[0].as_u64().unwrap(), size[1].as_u64().unwrap());
    assert!(w >= 100 && w % 100 == 0 && h > w, "a portrait page rendered at a width step: {size}");
    assert_eq!(wait_for(driver, ".pdf-page-number").await.text().await.unwrap(), "Page 1 of 3");
    wait_for(driver, "button.pdf-next").await.click().await.unwrap();
    wait_for_script(driver, "return document.querySelector('.pdf-page-number').textContent === 'Page 2 of 3';", vec![]).await;
    screenshot(driver, "pdf_viewer.png").await;
    // At fit width the page is whole, also in a narrow split pane (no part cut off at the right).
    let fits = driver
        .execute(
            "const img = document.querySelector('section.pane.active img.pdf-page'); const area = img.closest('.pdf-page-area'); \
             return [img.getBoundingClientRect().right, area.getBoundingClientRect().right, area.scrollWidth - area.clientWidth];",
            vec![],
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert!(fits[0].as_f64().unwrap() <= fits[1].as_f64().unwrap() + 1.0 && fits[2].as_f64().unwrap() <= 1.0, "the page fits its pane: {fits}");

    // needsInput: an empty query asks for one; a suggestion button re-runs the tool with it.
    wait_for(driver, r#"button[data-tool="search_patterns"]"#).await.click().await.unwrap();
    set_arguments(driver, r#"{"q": ""}"#).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let chip = wait_for(driver, ".needs-input .chip").await;
    let chip_text = chip.text().await.unwrap();
    screenshot(driver, "needs_input.png").await;
    chip.click().await.unwrap();
    let rerun = wait_for_script(
        driver,
        "const r = document.querySelectorAll('.history .result'); return r.length >= 2 ? r[0].querySelector('.summary').textContent : null;",
        vec![],
    )
    .await;
    let rerun = rerun.as_str().unwrap();
    assert!(!rerun.contains("needs more input"), "re-run with `{chip_text}` gave: {rerun}");
    let arguments = wait_for(driver, "textarea.arguments").await.prop("value").await.unwrap().unwrap();
    assert!(arguments.contains("\"q\""), "{arguments}");

    // A tool that may delete data asks first, showing the exact arguments. Focus starts on
    // "Don't run"; Escape is "Don't run" too: nothing is called, and focus is back on "Call tool".
    wait_for(driver, r#"button[data-tool="purge_cache"]"#).await.click().await.unwrap();
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let dialog = wait_for(driver, r#".confirm[role="alertdialog"]"#).await.text().await.unwrap();
    assert!(dialog.contains("may change or delete data"), "{dialog}");
    wait_for_focus(driver, ".confirm button.confirm-refuse").await;
    screenshot(driver, "confirm_destructive.png").await;
    press(driver, Key::Escape).await;
    wait_for_script(driver, "return document.querySelectorAll('.confirm').length === 0;", vec![]).await;
    wait_for_focus(driver, "button.call-button").await;
    assert_eq!(result_count(driver).await, before, "Escape ran nothing");
    // Enter on the focused "Call tool" asks again; this time, run it.
    press(driver, Key::Enter).await;
    wait_for_focus(driver, ".confirm button.confirm-refuse").await;
    wait_for(driver, "button.confirm-run").await.click().await.unwrap();
    let summary = wait_for(driver, ".result .summary").await.text().await.unwrap();
    assert!(!summary.is_empty());

    form_step(driver).await;
    search_step(driver).await;
    dashboard_step(driver).await;
    elicitation_step(driver).await;
    url_elicitation_step(driver, opened).await;
    progress_step(driver).await;
    task_step(driver).await;
    proxy_step(driver, data_dir).await;
    history_step(driver).await;
    servers_step(driver).await;
    settings_step(driver, data_dir).await;
    files_step(driver, data_dir).await;
}

/// The arguments form drawn from a tool's inputSchema: defaults filled in, descriptions shown,
/// checked against the schema before anything is sent, the exact JSON to be sent shown below it
/// (and the JSON editor in step with it); then the call runs with those arguments.
/// Files, the artifact browser: every stored artifact with storage used vs quota; search; pin
/// (in the store too); open in the canvas; delete behind a confirmation (gone from the store,
/// its tab closed).
async fn files_step(driver: &WebDriver, data_dir: &Path) {
    let stored = |id: &str| {
        let run = mcp_canvas_e2e::cli(data_dir, &["artifacts", "show", id, "--json"]);
        (run.code == 0).then(|| serde_json::from_str::<serde_json::Value>(&run.stdout).unwrap())
    };
    wait_for(driver, "button.open-files").await.click().await.unwrap();
    wait_for(driver, ".artifact-browser .artifact-card").await;
    let usage = wait_for(driver, ".usage-text").await.text().await.unwrap();
    assert!(usage.contains(" of "), "storage used vs quota: {usage}");

    let search = wait_for(driver, "input.browser-search").await;
    search.send_keys("render_chart").await.unwrap();
    let names = "const n = [...document.querySelectorAll('.artifact-card .card-name')].map(e => e.textContent); \
                 return n.length > 0 && n.every(t => t.includes('render_chart')) ? n : null;";
    wait_for_script(driver, names, vec![]).await;
    let card = wait_for(driver, ".artifact-card").await;
    let id = card.attr("data-artifact").await.unwrap().expect("cards carry their artifact id");
    // textContent: WebDriver's text is only what is visible, and long names are cut with an ellipsis.
    let name = driver.execute("return arguments[0].querySelector('.card-name').textContent;", vec![card.to_json().unwrap()]).await.unwrap().json().as_str().unwrap().to_owned();
    assert!(name.contains("render_chart"), "{name}");

    // Pin: the card says so, and so does the store.
    card.find(By::XPath(".//div[contains(@class,'item-actions')]/button[normalize-space()='Pin']")).await.unwrap().click().await.unwrap();
    wait_for(driver, &format!(r#".artifact-card.pinned[data-artifact="{id}"]"#)).await;
    assert_eq!(stored(&id).expect("still stored")["persistence"], "pinned");

    // Open in the canvas: its tab is the active one.
    wait_for(driver, &format!(r#".artifact-card[data-artifact="{id}"] button.card-open"#)).await.click().await.unwrap();
    let active = format!("return [...document.querySelectorAll('.tab.active .tab-label, .tab[aria-selected=\"true\"] .tab-label')].some(e => e.textContent === {name:?}) ? 'yes' : null;");
    wait_for_script(driver, &active, vec![]).await;
    screenshot(driver, "files.png").await;

    // Delete, confirmed: gone from the browser and the store.
    if driver.find_all(By::Css(".artifact-browser")).await.unwrap().is_empty() {
        wait_for(driver, "button.open-files").await.click().await.unwrap();
    }
    wait_for(driver, &format!(r#".artifact-card[data-artifact="{id}"] button[aria-label="Delete {name}"]"#)).await.click().await.unwrap();
    wait_for(driver, &format!(r#".artifact-card[data-artifact="{id}"] .confirm-delete button.danger-text"#)).await.click().await.unwrap();
    let gone = format!(r#"return document.querySelector('.artifact-card[data-artifact="{id}"]') ? null : 'gone';"#);
    wait_for_script(driver, &gone, vec![]).await;
    assert!(stored(&id).is_none(), "{id} was deleted from the store");
    wait_for(driver, "button.browser-close").await.click().await.unwrap();
}

/// Settings: the theme changes the window's colour scheme at once; the identity is saved in
/// settings.toml, the file the CLI reads; a bad value is refused with Rust's reason.
async fn settings_step(driver: &WebDriver, data_dir: &Path) {
    wait_for(driver, "button.open-settings").await.click().await.unwrap();
    for (theme, dark) in [("dark", true), ("light", false)] {
        let select = thirtyfour::components::SelectElement::new(&wait_for(driver, "select.settings-theme").await).await.unwrap();
        select.select_by_value(theme).await.unwrap();
        let script = format!("return matchMedia('(prefers-color-scheme: dark)').matches === {dark} ? 'yes' : null;");
        wait_for_script(driver, &script, vec![]).await;
        if dark {
            screenshot(driver, "settings_dark.png").await;
        }
    }
    let identity = wait_for(driver, r#"input[data-setting="identity.username"]"#).await;
    replace_text(&identity, "grace").await;
    identity.send_keys(Key::Enter).await.unwrap();
    wait_for(driver, ".settings-saved").await;
    let quota = wait_for(driver, r#"input[data-setting="artifacts.quota_bytes"]"#).await;
    replace_text(&quota, "lots").await;
    quota.send_keys(Key::Enter).await.unwrap();
    let refused = wait_for(driver, ".settings-error").await.text().await.unwrap();
    assert!(refused.contains("whole number"), "{refused}");
    let text = std::fs::read_to_string(data_dir.join("settings.toml")).unwrap();
    assert!(text.contains(r#"username = "grace""#) && text.contains(r#"theme = "light""#) && !text.contains("lots"), "{text}");
    screenshot(driver, "settings.png").await;
    wait_for(driver, "button.settings-close").await.click().await.unwrap();
}

async fn form_step(driver: &WebDriver) {
    wait_for(driver, r#"button[data-tool="make_report"]"#).await.click().await.unwrap();
    arguments_mode(driver, "form").await;
    let title = wait_for(driver, "input#args_title").await;
    assert_eq!(title.prop("value").await.unwrap().as_deref(), Some("Quarterly sales report"), "the default is filled in");
    let form = wait_for(driver, ".args-form").await.text().await.unwrap();
    assert!(form.contains("Title of the report (1 to 120 characters)."), "descriptions are shown: {form}");

    // Out of range: the field says why, and nothing is called.
    let results_before = driver.execute("return document.querySelectorAll('.history .result').length;", vec![]).await.unwrap().json().clone();
    let rows = wait_for(driver, "input#args_rows").await;
    replace_text(&rows, "0").await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let problem = wait_for(driver, "#args_rows__error").await.text().await.unwrap();
    assert!(problem.contains("must be at least 1"), "{problem}");
    screenshot(driver, "form_invalid.png").await;
    let results = driver.execute("return document.querySelectorAll('.history .result').length;", vec![]).await.unwrap().json().clone();
    assert_eq!(results, results_before, "an invalid form is not sent");

    // Fixed and filled in: the JSON to be sent follows the form.
    replace_text(&rows, "3").await;
    replace_text(&title, "Form report").await;
    let preview = wait_for_script(
        driver,
        "const p = document.querySelector('.arguments-preview-text'); return p && p.textContent.includes('\"title\": \"Form report\"') && p.textContent.includes('\"rows\": 3') ? p.textContent : null;",
        vec![],
    )
    .await;
    let sent: serde_json::Value = serde_json::from_str(preview.as_str().unwrap()).expect("the preview is the JSON that is sent");
    assert_eq!(sent["mode"], json!("replace"), "defaults stay: {sent}");
    screenshot(driver, "form_filled.png").await;
    // The JSON editor shows the same arguments.
    arguments_mode(driver, "json").await;
    let text = wait_for(driver, "textarea.arguments").await.prop("value").await.unwrap().unwrap_or_default();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), sent);
    arguments_mode(driver, "form").await;
    assert_eq!(wait_for(driver, "input#args_title").await.prop("value").await.unwrap().as_deref(), Some("Form report"));

    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let labels = wait_for_script(
        driver,
        "const l = [...document.querySelectorAll('section.pane.active .tab-label')].map(e => e.textContent); return l.includes('report.html') ? l : null;",
        vec![],
    )
    .await;
    assert!(labels.to_string().contains("report.html"), "{labels}");
    let summary = wait_for_script(
        driver,
        "const r = document.querySelectorAll('.history .result'); return r.length > arguments[0] ? r[0].querySelector('.summary').textContent : null;",
        vec![results_before.clone()],
    )
    .await;
    assert!(summary.as_str().unwrap().contains("Form report"), "called with the form's title: {summary}");
    // Back to the JSON editor for the steps that type JSON.
    arguments_mode(driver, "json").await;
}

/// The search box filters the tools of every server by name, title or description.
async fn search_step(driver: &WebDriver) {
    let all = listed_tools(driver).await;
    assert!(all.len() > 10, "{all:?}");
    let search = wait_for(driver, "input.tool-search").await;
    search.send_keys("workbook").await.unwrap();
    let shown = wait_for_script(
        driver,
        "const t = [...document.querySelectorAll('.servers button[data-tool]')].map(b => b.dataset.tool); return t.length < arguments[0] ? t : null;",
        vec![json!(all.len())],
    )
    .await;
    let shown: Vec<String> = serde_json::from_value(shown).unwrap();
    assert_eq!(shown, ["download_workbook", "list_workbooks"], "the tools that mention workbooks");
    // Words match anywhere (here: the description), every word must match.
    replace_text(&search, "bar chart png").await;
    let shown = wait_for_script(
        driver,
        "const t = [...document.querySelectorAll('.servers button[data-tool]')].map(b => b.dataset.tool); return t.length && !t.includes('list_workbooks') ? t : null;",
        vec![],
    )
    .await;
    assert_eq!(shown, json!(["render_chart"]));
    replace_text(&search, "no such tool anywhere").await;
    wait_for(driver, ".servers .no-tools").await;
    screenshot(driver, "tool_search.png").await;
    search.send_keys(Key::Escape).await.unwrap();
    wait_for_script(driver, "return document.querySelectorAll('.servers button[data-tool]').length === arguments[0];", vec![json!(all.len())]).await;
}

/// The call history lists this run's calls with their arguments; Re-run calls the same tool
/// again with them.
async fn history_step(driver: &WebDriver) {
    let first = wait_for(driver, r#".call-history .call-record[data-tool="make_report"] summary"#).await;
    let records = driver.execute("return document.querySelectorAll('.call-history .call-record').length;", vec![]).await.unwrap().json().clone();
    assert!(records.as_u64().unwrap() >= 8, "{records}");
    first.click().await.unwrap();
    let record = wait_for(driver, r#".call-history .call-record[data-tool="make_report"] details[open]"#).await;
    let arguments = record.find(By::Css(".call-record-arguments")).await.unwrap().text().await.unwrap();
    assert!(arguments.contains("\"title\": \"Form report\"") && arguments.contains("\"rows\": 3"), "the newest make_report call's exact arguments: {arguments}");
    screenshot(driver, "call_history.png").await;
    let records_before = records.as_u64().unwrap();
    record.find(By::Css("button.call-rerun")).await.unwrap().click().await.unwrap();
    // The tool is selected again and called with the same arguments.
    wait_for(driver, r#".tool-item.active[data-tool="make_report"]"#).await;
    let summary = wait_for_script(driver, "const s = document.querySelector('.history .result .summary'); return s ? s.textContent : null;", vec![]).await;
    assert!(summary.as_str().unwrap().contains("Form report"), "{summary}");
    wait_for_script(driver, "return document.querySelectorAll('.call-history .call-record').length > arguments[0];", vec![json!(records_before)]).await;
    let newest = wait_for_script(
        driver,
        "const r = document.querySelector('.call-history .call-record'); return r && r.dataset.tool === 'make_report' && r.dataset.status === 'ok' ? r.querySelector('.call-record-arguments').textContent : null;",
        vec![],
    )
    .await;
    assert!(newest.as_str().unwrap().contains("\"title\": \"Form report\""), "{newest}");
}

/// Each server shows its state; Restart stops the demo server and starts it again; its log
/// opens with the end of what it wrote (a new "serving" line after the restart).
async fn servers_step(driver: &WebDriver) {
    let demo = r#".server[data-server="demo"]"#;
    wait_for(driver, &format!(r#"{demo}[data-state="running"]"#)).await;
    let words = wait_for(driver, &format!("{demo} .server-state")).await.text().await.unwrap();
    assert_eq!(words, "running");

    let starts_in_log = |text: &str| text.matches("serving on stdio").count();
    wait_for(driver, &format!("{demo} button.server-log")).await.click().await.unwrap();
    let log = wait_for_script(
        driver,
        "const p = document.querySelector('.server-log-dialog .server-log-text'); return p && p.textContent && p.textContent !== 'Loading…' ? p.textContent : null;",
        vec![],
    )
    .await;
    let starts = starts_in_log(log.as_str().unwrap());
    assert!(starts >= 1, "the demo's log: {log}");
    let scrolled = driver
        .execute("const p = document.querySelector('.server-log-text'); return p.scrollHeight <= p.clientHeight + 2 || p.scrollTop + p.clientHeight >= p.scrollHeight - 2;", vec![])
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(scrolled, json!(true), "the log opens at its end");
    screenshot(driver, "server_log.png").await;
    wait_for(driver, "button.server-log-close").await.click().await.unwrap();
    wait_for_script(driver, "return document.querySelectorAll('.server-log-dialog').length === 0;", vec![]).await;

    wait_for(driver, &format!("{demo} button.server-restart")).await.click().await.unwrap();
    // Running again once the restart is through (the button is enabled again).
    wait_for_script(
        driver,
        "const s = document.querySelector(arguments[0]); const b = s && s.querySelector('button.server-restart'); return s && s.dataset.state === 'running' && b && !b.disabled;",
        vec![json!(demo)],
    )
    .await;
    assert_eq!(driver.find_all(By::Css(".server-restart-error")).await.unwrap().len(), 0);
    screenshot(driver, "server_restarted.png").await;
    wait_for(driver, &format!("{demo} button.server-log")).await.click().await.unwrap();
    let log = wait_for_script(
        driver,
        "const p = document.querySelector('.server-log-dialog .server-log-text'); return p && p.textContent.split('serving on stdio').length - 1 > arguments[0] ? p.textContent : null;",
        vec![json!(starts)],
    )
    .await;
    assert!(starts_in_log(log.as_str().unwrap()) > starts, "a new start after Restart: {log}");
    wait_for(driver, "button.server-log-refresh").await.click().await.unwrap();
    wait_for(driver, "button.server-log-close").await.click().await.unwrap();
    // The restarted server answers calls.
    wait_for(driver, r#"button[data-tool="list_workbooks"]"#).await.click().await.unwrap();
    let results_before = driver.execute("return document.querySelectorAll('.history .result').length;", vec![]).await.unwrap().json().clone();
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    wait_for_script(driver, "return document.querySelectorAll('.history .result').length > arguments[0] && !document.querySelector('.history .result.failed');", vec![results_before]).await;
}

/// `mcp-canvas-cli proxy` on the app's data dir, spoken to over stdio as an AI host would.
struct ProxyClient {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
}

impl ProxyClient {
    async fn start(data_dir: &Path) -> Self {
        let mut child = tokio::process::Command::new(binary("mcp-canvas-cli"))
            .arg("--data-dir")
            .arg(data_dir)
            .arg("proxy")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("mcp-canvas-cli proxy starts");
        let stdin = child.stdin.take().unwrap();
        let lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(child.stdout.take().unwrap()));
        let mut proxy = Self { child, stdin, lines };
        proxy.send(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "gui-test", "version": "1"}})).await;
        proxy.response(1).await;
        proxy.write(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        proxy
    }

    async fn write(&mut self, message: serde_json::Value) {
        use tokio::io::AsyncWriteExt as _;
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.expect("the proxy reads its stdin");
        self.stdin.flush().await.unwrap();
    }

    async fn send(&mut self, id: u64, method: &str, params: serde_json::Value) {
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    }

    /// The response to request `id` (notifications and other responses are skipped).
    async fn response(&mut self, id: u64) -> serde_json::Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let line = tokio::time::timeout_at(deadline, self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("the proxy did not answer request {id} within {WAIT:?}"))
                .expect("the proxy's stdout")
                .unwrap_or_else(|| panic!("the proxy exited before answering request {id}"));
            let message: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON from the proxy ({e}): {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// The text parts of a `tools/call` response.
    fn texts(response: &serde_json::Value) -> String {
        response["result"]["content"].as_array().into_iter().flatten().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n")
    }
}

/// An AI host calls through the proxy while the app runs on the same data dir: the call's PDF
/// opens in the app's canvas, and a tool that may delete data is confirmed in the app's window
/// (run once, refused once).
async fn proxy_step(driver: &WebDriver, data_dir: &Path) {
    let mut proxy = ProxyClient::start(data_dir).await;

    proxy.send(2, "tools/call", json!({"name": "demo__download_workbook", "arguments": {"pages": 2}})).await;
    let response = proxy.response(2).await;
    let uri = response["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "resource_link")
        .and_then(|c| c["uri"].as_str())
        .unwrap_or_else(|| panic!("a resource link to the PDF: {response}"))
        .to_owned();
    let id = uri.strip_prefix("artifact://localhost/").unwrap_or_else(|| panic!("{uri}")).to_owned();
    // The app shows it in the active tab, rendered by pdfium, as if the window had made the call.
    let shown = wait_for_script(
        driver,
        "const tab = document.querySelector('section.pane.active .tab.active .tab-label'); \
         const img = document.querySelector('section.pane.active img.pdf-page'); \
         const number = img && img.closest('.pdf-viewer').querySelector('.pdf-page-number'); \
         return img && img.getAttribute('src').includes(arguments[0]) && img.complete && img.naturalWidth > 0 ? [tab.textContent, number.textContent] : null;",
        vec![json!(id)],
    )
    .await;
    assert_eq!(shown, json!(["Sales Dashboard.pdf", "Page 1 of 2"]), "the proxied PDF ({id}) is the active tab");
    screenshot(driver, "proxy_call_in_canvas.png").await;

    // A destructive tool asks in the window first, with who asks and the exact arguments.
    proxy.send(3, "tools/call", json!({"name": "demo__purge_cache", "arguments": {}})).await;
    let dialog = wait_for(driver, ".proxy-confirm").await.text().await.unwrap();
    assert!(dialog.contains("wants to run purge_cache of demo") && dialog.contains("may change or delete data"), "{dialog}");
    screenshot(driver, "proxy_confirm.png").await;
    wait_for(driver, "button.proxy-confirm-run").await.click().await.unwrap();
    let response = proxy.response(3).await;
    assert_ne!(response["result"]["isError"], json!(true), "confirmed, so it ran: {response}");
    wait_for_script(driver, "return document.querySelectorAll('.proxy-confirm').length === 0;", vec![]).await;

    // Refused with the keyboard: focus starts on "Don't run", Tab stays in the dialog, and
    // Escape is "Don't run": the tool does not run and the AI host is told so.
    proxy.send(4, "tools/call", json!({"name": "demo__purge_cache", "arguments": {}})).await;
    let modal = wait_for(driver, r#".proxy-confirm[role="alertdialog"][aria-modal="true"]"#).await;
    assert!(modal.attr("aria-labelledby").await.unwrap().is_some());
    wait_for_focus(driver, ".proxy-confirm button.proxy-confirm-refuse").await;
    press(driver, Key::Tab).await;
    wait_for_focus(driver, ".proxy-confirm button.proxy-confirm-run").await;
    screenshot(driver, "proxy_confirm_keyboard.png").await;
    press(driver, Key::Tab).await;
    wait_for_focus(driver, ".proxy-confirm button.proxy-confirm-refuse").await;
    press(driver, Key::Escape).await;
    let response = proxy.response(4).await;
    assert_eq!(response["result"]["isError"], json!(true), "{response}");
    assert!(ProxyClient::texts(&response).contains("declined"), "{response}");
    wait_for_script(driver, "return document.querySelectorAll('.proxy-confirm').length === 0;", vec![]).await;
    drop(proxy.stdin);
    let _ = tokio::time::timeout(Duration::from_secs(5), proxy.child.wait()).await;
}

/// A long call shows its progress (a bar with the server's message) and can be cancelled: the
/// history then says so and the tool can be called again.
async fn progress_step(driver: &WebDriver) {
    wait_for(driver, r#"button[data-tool="slow_job"]"#).await.click().await.unwrap();
    set_arguments(driver, r#"{"seconds": 20}"#).await;
    let results_before = driver.execute("return document.querySelectorAll('.history .result').length;", vec![]).await.unwrap().json().clone();
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let value = wait_for_script(
        driver,
        "const p = document.querySelector('progress.call-progress-bar'); return p && p.hasAttribute('value') && p.value > 0 ? [p.value, p.max] : null;",
        vec![],
    )
    .await;
    assert_eq!(value[1], json!(80), "20 s in 250 ms steps: {value}");
    let message = wait_for(driver, ".call-progress-message").await.prop("textContent").await.unwrap().unwrap_or_default();
    assert!(message.starts_with("step ") && message.ends_with(" of 80"), "the server's message: {message:?}");
    screenshot(driver, "slow_job_progress.png").await;
    wait_for(driver, "button.call-cancel").await.click().await.unwrap();
    // A hang guard: a job the cancel missed ends as "finished" after 20 s, never "was cancelled".
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = driver
            .execute(
                "const r = document.querySelectorAll('.history .result'); const b = document.querySelector('button.call-button'); \
                 return [r.length, r.length ? r[0].textContent : '', !!b && !b.disabled, document.querySelectorAll('.call-progress').length];",
                vec![],
            )
            .await
            .unwrap()
            .json()
            .clone();
        let newest = state[1].as_str().unwrap_or_default();
        if state[0].as_u64() > results_before.as_u64() && newest.contains("was cancelled") && state[2] == json!(true) && state[3] == json!(0) {
            break;
        }
        assert!(Instant::now() < deadline, "after Cancel, the newest result says cancelled and Call is enabled again: {state}");
        tokio::time::sleep(POLL).await;
    }
}

/// A call the server turns into a task (the demo's `research_report`): it shows as a running
/// call with the task's status message and Cancel; the form the task asks for is a dialog; the
/// answer reaches the task through `tasks/update` and the report is the call's result.
async fn task_step(driver: &WebDriver) {
    wait_for(driver, r#"button[data-tool="research_report"]"#).await.click().await.unwrap();
    set_arguments(driver, r#"{"topic": "tides", "steps": 6, "ask": true}"#).await;
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let message = wait_for_script(
        driver,
        "const m = document.querySelector('.call-progress-message'); return m && m.textContent.startsWith('Step ') ? m.textContent : null;",
        vec![],
    )
    .await;
    assert!(message.as_str().unwrap().ends_with("reading about tides"), "the task's status message: {message}");
    wait_for(driver, "button.call-cancel").await;
    screenshot(driver, "task_running.png").await;
    let dialog = wait_for(driver, ".elicitation-dialog.form").await.text().await.unwrap();
    assert!(dialog.contains("What should the report on tides focus on?"), "{dialog}");
    let focus = wait_for(driver, "input#elicitation_focus").await;
    replace_text(&focus, "harbour safety").await;
    focus.send_keys(Key::Enter).await.unwrap();
    let result = newest_result_after(driver, before).await;
    assert!(result.contains("Report: tides") && result.contains("focused on harbour safety"), "{result}");
}

/// A server asks the user mid-call (form elicitation): the window shows a dialog with the
/// fields, defaults filled in; the accepted answer reaches the tool, and so does a decline.
async fn elicitation_step(driver: &WebDriver) {
    wait_for(driver, r#"button[data-tool="ask_preferences"]"#).await.click().await.unwrap();
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let dialog = wait_for(driver, ".elicitation-dialog.form").await.text().await.unwrap();
    assert!(dialog.contains("How would you like MCP Canvas to look?") && dialog.contains("Font size"), "{dialog}");
    let modal = wait_for(driver, r#".elicitation-dialog.form[role="dialog"][aria-modal="true"]"#).await;
    let title = modal.attr("aria-labelledby").await.unwrap().expect("aria-labelledby");
    assert!(driver.find(By::Id(&title)).await.unwrap().text().await.unwrap().contains("How would you like"), "labelled by its question");
    // Focus moves to the first field (the required theme) once the form is drawn.
    wait_for_focus(driver, "select#elicitation_theme").await;
    let font_size = wait_for(driver, "input#elicitation_font_size").await.prop("value").await.unwrap();
    assert_eq!(font_size.as_deref(), Some("14"), "the default is filled in");
    assert!(dialog.contains("Text size in points (8–32)"), "descriptions are shown: {dialog}");
    // Required fields come first: theme (no default) before the others.
    let order = driver.execute("return [...document.querySelectorAll('.elicitation-form [id^=elicitation_]')].map(e => e.id);", vec![]).await.unwrap().json().clone();
    assert!(order[0].as_str().is_some_and(|id| id.starts_with("elicitation_theme")), "{order}");
    // Accepting without the required theme is refused in the dialog, before anything is sent.
    wait_for(driver, "button.elicitation-accept").await.click().await.unwrap();
    let problem = wait_for(driver, ".elicitation-form .error-detail").await.text().await.unwrap();
    assert!(problem.contains("is required"), "{problem}");
    assert_eq!(driver.find_all(By::Css(".elicitation-dialog.form")).await.unwrap().len(), 1, "still asking");
    // Change the display name, pick a theme (required, no default), accept with Enter in a
    // field (the form has no submit button and several fields: the dialog does it).
    let name = wait_for(driver, "input#elicitation_display_name").await;
    driver.query(By::XPath("//select[@id='elicitation_theme']/option[normalize-space()='dark']")).wait(WAIT, POLL).first().await.unwrap().click().await.unwrap();
    replace_text(&name, "Ada Lovelace").await;
    screenshot(driver, "elicitation_form.png").await;
    name.send_keys(Key::Enter).await.unwrap();
    let summary = wait_for_script(driver, "const s = document.querySelector('.history .result .summary'); return s ? s.textContent : null;", vec![]).await;
    let summary = summary.as_str().unwrap();
    assert!(summary.contains("theme dark") && summary.contains("display name \"Ada Lovelace\""), "{summary}");
    assert_eq!(driver.find_all(By::Css(".elicitation-dialog")).await.unwrap().len(), 0, "the dialog closed");

    // Again, and decline.
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    wait_for(driver, ".elicitation-dialog.form").await;
    wait_for(driver, "button.elicitation-decline").await.click().await.unwrap();
    let summary = wait_for_script(
        driver,
        "const r = document.querySelectorAll('.history .result'); return r.length >= 2 ? r[0].querySelector('.summary').textContent : null;",
        vec![],
    )
    .await;
    assert!(summary.as_str().unwrap().contains("declined"), "{summary}");

    // Once more, with the keyboard only: Tab never leaves the dialog, Escape cancels.
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    wait_for_focus(driver, "select#elicitation_theme").await;
    for _ in 0..12 {
        press(driver, Key::Tab).await;
        wait_for_focus(driver, ".elicitation-dialog.form *").await;
    }
    press(driver, Key::Shift + Key::Tab).await;
    wait_for_focus(driver, ".elicitation-dialog.form *").await;
    press(driver, Key::Escape).await;
    let result = newest_result_after(driver, before).await;
    assert!(result.contains("The user cancelled the preferences form without answering."), "{result}");
    assert_eq!(driver.find_all(By::Css(".elicitation-dialog")).await.unwrap().len(), 0, "Escape closed the dialog");
}

/// A server asks the user to open a page (URL elicitation, the demo's `link_account`): the dialog
/// shows the full URL and its domain, focus starts on Decline, and nothing is opened unless the
/// user chooses "Open in browser". `opened` is where the stand-in for the system opener
/// (`xdg-open`, first on the app's PATH) writes each URL it is given.
async fn url_elicitation_step(driver: &WebDriver, opened: &Path) {
    let opened_urls = || std::fs::read_to_string(opened).unwrap_or_default();
    wait_for(driver, r#"button[data-tool="link_account"]"#).await.click().await.unwrap();
    set_arguments(driver, r#"{"wait_seconds": 30}"#).await;

    // Escape: cancelled; the call says the page was not opened, and the opener never ran.
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let modal = wait_for(driver, r#".elicitation-dialog.url[role="dialog"][aria-modal="true"]"#).await;
    let url = wait_for(driver, ".elicitation-dialog.url .elicitation-full-url").await.text().await.unwrap();
    let domain = wait_for(driver, ".elicitation-dialog.url .elicitation-domain").await.text().await.unwrap();
    assert!(url.starts_with("http://127.0.0.1:") && url.contains("/link?token="), "the full URL, token and all: {url}");
    let host = driver.execute("return new URL(arguments[0]).hostname;", vec![json!(url)]).await.unwrap().json().clone();
    assert_eq!(json!(domain), host, "the domain shown is the URL's host");
    let text = modal.text().await.unwrap();
    assert!(text.contains("link your (pretend) demo account") && text.contains("Nothing is opened unless you choose to"), "{text}");
    let labels = driver.execute("return [...document.querySelectorAll('.elicitation-dialog.url button')].map(b => b.textContent);", vec![]).await.unwrap().json().clone();
    assert_eq!(labels, json!(["Open in browser", "Decline", "Cancel"]));
    wait_for_focus(driver, ".elicitation-dialog.url button.elicitation-decline").await;
    screenshot(driver, "elicitation_url.png").await;
    // Tab goes round the three buttons and stays in the dialog.
    for expected in ["elicitation-cancel", "elicitation-open", "elicitation-decline"] {
        press(driver, Key::Tab).await;
        wait_for_focus(driver, &format!(".elicitation-dialog.url button.{expected}")).await;
    }
    press(driver, Key::Escape).await;
    let result = newest_result_after(driver, before).await;
    assert!(result.contains("Linking was cancelled."), "{result}");
    assert!(result.contains(&format!("the page at {domain} was not opened")), "the call's warning says so: {result}");
    assert_eq!(driver.find_all(By::Css(".elicitation-dialog")).await.unwrap().len(), 0);
    assert_eq!(opened_urls(), "", "Escape opened nothing");

    // Enter on the focused Decline: declined, nothing opened.
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    wait_for_focus(driver, ".elicitation-dialog.url button.elicitation-decline").await;
    press(driver, Key::Enter).await;
    let result = newest_result_after(driver, before).await;
    assert!(result.contains("The user declined to open the linking page."), "{result}");
    assert!(result.contains(&format!("declined to open the page on {domain}")), "{result}");
    assert_eq!(opened_urls(), "", "Decline opened nothing");

    // Shift+Tab to "Open in browser", Enter: the system opener gets exactly the URL shown; the
    // test then plays the user on that page and the call finishes linked.
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    wait_for_focus(driver, ".elicitation-dialog.url button.elicitation-decline").await;
    let url = wait_for(driver, ".elicitation-dialog.url .elicitation-full-url").await.text().await.unwrap();
    assert_eq!(opened_urls(), "", "nothing is opened while the dialog asks");
    press(driver, Key::Shift + Key::Tab).await;
    wait_for_focus(driver, ".elicitation-dialog.url button.elicitation-open").await;
    screenshot(driver, "elicitation_url_open_focused.png").await;
    press(driver, Key::Enter).await;
    let deadline = Instant::now() + WAIT;
    while opened_urls().is_empty() {
        assert!(Instant::now() < deadline, "the system opener was not run within {WAIT:?}");
        tokio::time::sleep(POLL).await;
    }
    assert_eq!(opened_urls(), format!("{url}\n"), "the opener got the full URL, once");
    // What the browser would show, then the user's press of its "Link account" button.
    let page = http("GET", &url);
    assert!(page.starts_with("HTTP/1.1 200") && page.contains("/link/confirm?token="), "{page}");
    let done = http("POST", &url.replacen("/link?", "/link/confirm?", 1));
    assert!(done.starts_with("HTTP/1.1 200") && done.contains("Account linked"), "{done}");
    let result = newest_result_after(driver, before).await;
    assert!(result.contains("The account is linked"), "{result}");
}

/// A plain HTTP/1.1 request with no body to a `http://127.0.0.1:PORT/...` URL; the whole response as text.
fn http(method: &str, url: &str) -> String {
    let rest = url.strip_prefix("http://").unwrap_or_else(|| panic!("{url}"));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// `make_report` in `append` mode: its three files join the tabs the pane already shows. Then
/// `replace` (the default) swaps the previous call's tabs for its own: the count stays.
async fn append_step(driver: &WebDriver) {
    wait_for(driver, r#"button[data-tool="make_report"]"#).await.click().await.unwrap();
    // Different seeds make different files (the same bytes would be shown again, not added).
    let result = call_with(driver, r#"{"mode": "replace", "seed": 101, "title": "Base report"}"#).await;
    assert!(result.contains("Base report"), "{result}");
    let base = active_pane_labels(driver).await;
    assert!(base.iter().any(|l| l == "report.html"), "{base:?}");

    let result = call_with(driver, r#"{"mode": "append", "seed": 102, "title": "Appended report"}"#).await;
    assert!(result.contains("Appended report"), "{result}");
    let appended = active_pane_labels(driver).await;
    assert_eq!(appended.len(), base.len() + 3, "three tabs added: {base:?} → {appended:?}");
    assert_eq!(appended[..base.len()], base[..], "the tabs already there stay, in their order");
    let active = driver
        .execute("return [...document.querySelectorAll('section.pane.active .tab')].findIndex(t => t.classList.contains('active'));", vec![])
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(active, json!(base.len()), "the appended report (the primary file) is the active tab: {appended:?}");
    assert_eq!(driver.find_all(By::Css("section.pane")).await.unwrap().len(), 2, "append opens no pane");
    screenshot(driver, "make_report_append.png").await;

    let result = call_with(driver, r#"{"mode": "replace", "seed": 103, "title": "Replacing report"}"#).await;
    assert!(result.contains("Replacing report"), "{result}");
    let replaced = active_pane_labels(driver).await;
    assert_eq!(replaced.len(), appended.len(), "replace swapped the appended tabs for its own: {appended:?} → {replaced:?}");
    assert_eq!(replaced[..base.len()], base[..], "and left the older ones");
}

/// A live dashboard (000 §3): refused until its origin is allowed (with a confirmation), then
/// loaded in a sandboxed iframe; the same `id` again updates the same tab.
async fn dashboard_step(driver: &WebDriver) {
    const ARGS: &str = r#"{"title": "Live metrics", "persistence": "session", "mode": "replace"}"#;
    wait_for(driver, r#"button[data-tool="open_dashboard"]"#).await.click().await.unwrap();
    set_arguments(driver, ARGS).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();

    // The default allowlist is empty: a clear refusal, with an "Allow <origin>" action.
    let refusal = wait_for(driver, ".dashboard-refusal").await.text().await.unwrap();
    assert!(refusal.contains("Dashboard blocked") && refusal.contains("not on your list of allowed dashboard origins"), "{refusal}");
    let allow = wait_for(driver, "button.dashboard-allow").await;
    let label = allow.text().await.unwrap();
    let origin = label.strip_prefix("Allow ").unwrap_or_else(|| panic!("{label}")).to_owned();
    assert!(origin.starts_with("http://127.0.0.1:") && origin.len() > "http://127.0.0.1:".len(), "{origin}");
    assert!(!refusal.contains("token="), "the refusal shows no token: {refusal}");
    assert_eq!(driver.find_all(By::Css("iframe.dashboard-frame")).await.unwrap().len(), 0, "no frame for a refused origin");
    let active = wait_for(driver, "section.pane.active .tab.active .tab-label").await.prop("textContent").await.unwrap();
    assert_eq!(active.as_deref(), Some("Live metrics"));
    let tabs_before = driver.execute("return document.querySelectorAll('.tab').length;", vec![]).await.unwrap().json().clone();
    screenshot(driver, "dashboard_refused.png").await;

    // Allowing asks first; cancelling changes nothing.
    allow.click().await.unwrap();
    let confirm = wait_for(driver, ".dashboard-confirm").await.text().await.unwrap();
    assert!(confirm.contains(&origin) && confirm.contains("sandboxed"), "{confirm}");
    wait_for(driver, "button.dashboard-allow-cancel").await.click().await.unwrap();
    assert_eq!(driver.find_all(By::Css(".dashboard-confirm")).await.unwrap().len(), 0);
    wait_for(driver, "button.dashboard-allow").await.click().await.unwrap();
    wait_for(driver, ".dashboard-confirm").await;
    screenshot(driver, "dashboard_confirm_allow.png").await;
    wait_for(driver, "button.dashboard-allow-confirm").await.click().await.unwrap();

    // Now the iframe loads from the demo's 127.0.0.1 port, sandboxed with scripts only.
    let frame = wait_for(driver, "iframe.dashboard-frame").await;
    assert_eq!(frame.attr("sandbox").await.unwrap().as_deref(), Some("allow-scripts"), "no same-origin, top navigation, popups or downloads");
    assert_eq!(frame.attr("referrerpolicy").await.unwrap().as_deref(), Some("no-referrer"));
    let src = frame.attr("src").await.unwrap().unwrap();
    let src_origin = driver.execute("return new URL(arguments[0]).origin;", vec![json!(src)]).await.unwrap().json().clone();
    assert_eq!(src_origin, json!(origin), "{src}");
    // Its script runs and polls the demo (the page says "Live · updated ..." once data arrived).
    frame.clone().enter_frame().await.unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        let status = driver.find(By::Id("status")).await.ok();
        let text = match status {
            Some(status) => status.text().await.unwrap_or_default(),
            None => String::new(),
        };
        if text.starts_with("Live") {
            break;
        }
        assert!(Instant::now() < deadline, "the dashboard did not go live within {WAIT:?}: {text:?}");
        tokio::time::sleep(POLL).await;
    }
    let requests = driver.find(By::Id("requests_per_s")).await.unwrap().text().await.unwrap();
    assert!(requests.parse::<f64>().is_ok(), "{requests}");
    driver.enter_default_frame().await.unwrap();
    screenshot(driver, "dashboard_loaded.png").await;

    // The navigation guard: a frame may go only to an allowed origin. Neither the dashboard
    // navigating its own frame nor the page framing another origin (a local server on a port
    // that is not allowed) gets a single request out; WebKit's policy check refuses both first.
    let probe = TcpListener::bind("127.0.0.1:0").unwrap();
    let probe_url = format!("http://127.0.0.1:{}/probe", probe.local_addr().unwrap().port());
    probe.set_nonblocking(true).unwrap();
    let reached = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let server = std::thread::spawn({
        let reached = reached.clone();
        move || {
            let deadline = Instant::now() + Duration::from_secs(8);
            while Instant::now() < deadline {
                match probe.accept() {
                    Ok((mut stream, _)) => {
                        reached.store(true, std::sync::atomic::Ordering::SeqCst);
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 7\r\nConnection: close\r\n\r\nreached");
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        }
    });
    frame.clone().enter_frame().await.unwrap();
    driver.execute("location.href = arguments[0];", vec![json!(probe_url)]).await.unwrap();
    driver.enter_default_frame().await.unwrap();
    driver
        .execute("const f = document.createElement('iframe'); f.id = 'probe-frame'; f.src = arguments[0]; document.body.appendChild(f);", vec![json!(probe_url)])
        .await
        .unwrap();
    server.join().unwrap();
    assert!(!reached.load(std::sync::atomic::Ordering::SeqCst), "a frame reached {probe_url}, which is not allowed");
    wait_for(driver, "#probe-frame").await.enter_frame().await.unwrap();
    let probe_href = driver.execute("return location.href;", vec![]).await.unwrap().json().clone();
    driver.enter_default_frame().await.unwrap();
    assert_ne!(probe_href, json!(probe_url));
    driver.execute("document.getElementById('probe-frame').remove();", vec![]).await.unwrap();
    frame.clone().enter_frame().await.unwrap();
    let dashboard_href = driver.execute("return location.href;", vec![]).await.unwrap().json().clone();
    driver.enter_default_frame().await.unwrap();
    assert_eq!(dashboard_href, json!(src), "the dashboard stayed where it was");

    // The same title again: the same `id`, so the same tab is updated (fresh token), not a new one.
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    let new_src = wait_for_script(
        driver,
        "const f = document.querySelector('iframe.dashboard-frame'); return f && f.getAttribute('src') !== arguments[0] ? f.getAttribute('src') : null;",
        vec![json!(src)],
    )
    .await;
    assert!(new_src.as_str().unwrap().starts_with(&format!("{origin}/dashboard?token=")), "{new_src}");
    let tabs_after = driver.execute("return document.querySelectorAll('.tab').length;", vec![]).await.unwrap().json().clone();
    assert_eq!(tabs_after, tabs_before, "updated in place, no second tab");
    let labels = wait_for_script(driver, "return [...document.querySelectorAll('.tab-label')].filter(e => e.textContent === 'Live metrics').length;", vec![]).await;
    assert_eq!(labels, json!(1));

    // Settings lists the origin that was allowed.
    wait_for(driver, "button.open-settings").await.click().await.unwrap();
    wait_for(driver, &format!(r#".allowlist li[data-origin="{origin}"]"#)).await;
    screenshot(driver, "settings_allowlist.png").await;
    wait_for(driver, "button.settings-close").await.click().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn calling_a_demo_tool_shows_its_image_in_the_canvas() {
    let data_dir = tempfile::tempdir().unwrap();
    // A stand-in for the system opener, first on the app's PATH: it writes down each URL.
    let opener = tempfile::tempdir().unwrap();
    let opened = opener.path().join("opened.txt");
    let script = opener.path().join("xdg-open");
    std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", opened.display())).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(std::iter::once(opener.path().to_owned()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()))).unwrap();
    let env: [(&str, OsString); 1] = [("PATH", path)];
    let opened_in_drive: PathBuf = opened.clone();
    with_app_env(&binary("mcp-canvas"), data_dir.path(), &env, |driver, data_dir| async move { drive(&driver, &data_dir, &opened_in_drive).await }).await;
    assert!(data_dir.path().join("servers.json").is_file(), "the app wrote its first-run config");
    // The dashboard step left its trace in the audit log: opened (refused), allowed, updated —
    // with the local identity, never with the token.
    let audit = mcp_canvas_e2e::cli(data_dir.path(), &["audit", "--json", "--limit", "500"]);
    let records: Vec<serde_json::Value> = serde_json::from_str(&audit.stdout).expect("audit --json");
    let dashboard_events: Vec<_> = records.iter().filter(|r| r["tool"].as_str().is_some_and(|t| t.starts_with("dashboard:"))).collect();
    for (tool, outcome) in [("dashboard:open", "refused"), ("dashboard:allow", "ok"), ("dashboard:update", "ok")] {
        assert!(dashboard_events.iter().any(|r| r["tool"] == tool && r["outcome"] == outcome), "{tool} {outcome} missing: {dashboard_events:?}");
    }
    assert!(dashboard_events.iter().all(|r| r["identity"].as_str().is_some_and(|i| !i.is_empty())), "{dashboard_events:?}");
    for record in &dashboard_events {
        let url = record["arguments"]["url"].as_str().unwrap_or_default();
        assert!(url.ends_with("/dashboard?token=[redacted]"), "the token is redacted: {url}");
    }
}
