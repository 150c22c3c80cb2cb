//! The proxy's MCP App view with our own desktop app as the MCP Apps host: the app is connected
//! to `mcp-canvas-cli proxy` (in front of the demo, on a data dir of its own) as to any server;
//! calling `demo__get_view_as_pdf` through it opens the view in an App tab, which paints page 1
//! from the proxy's app-only tools; `demo__make_report` shows the sanitized report first, the
//! chart and the table one click away. The same PDF called from the demo directly opens in the
//! canvas's own PDF viewer: the two times from the click to page 1 on screen are printed side by
//! side (the benchmark line in docs/performance.md).
//!
//! Ignored by plain `cargo test` (needs a display and tauri-driver); `scripts/test.sh` runs it
//! under `xvfb-run`.

use std::time::Instant;

use mcp_canvas_e2e::{
    binary,
    webdriver::{click_until, newest_result_after, result_count, screenshot, until, wait_for, with_app},
};
use serde_json::json;
use thirtyfour::{error::WebDriverErrorInner, prelude::*};

/// Enters the active App tab's frame (found again if it was replaced meanwhile).
async fn enter_view(driver: &WebDriver) {
    for _ in 0..50 {
        let frame = wait_for(driver, "section.pane.active .app-viewer iframe.app-frame[src]").await;
        if frame.clone().enter_frame().await.is_ok() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the view's frame could not be entered");
}

/// Runs `script` in the active App tab's view until it returns something truthy, for at most a
/// minute. When the frame it runs in goes away (the tab's view replaced by a newer call's: WebKit
/// answers "no such window"), the newest view is entered again and the script goes on there.
async fn until_in_view(driver: &WebDriver, what: &str, script: &str) -> serde_json::Value {
    let deadline = Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match driver.execute(script, vec![]).await {
            Ok(value) => {
                let value = value.json().clone();
                if !(value.is_null() || value == json!(false) || value == json!(0) || value == json!("")) {
                    return value;
                }
            }
            Err(error) if matches!(error.as_inner(), WebDriverErrorInner::NoSuchWindow(_) | WebDriverErrorInner::NoSuchFrame(_) | WebDriverErrorInner::StaleElementReference(_)) => {
                driver.enter_default_frame().await.unwrap();
                enter_view(driver).await;
            }
            Err(other) => panic!("{what}: the script failed: {other:?}"),
        }
        if Instant::now() > deadline {
            driver.enter_default_frame().await.unwrap();
            screenshot(driver, &format!("failed_{what}.png")).await;
            panic!("stayed falsy for a minute: {script}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Calls the selected tool, waits for its result in the history, then enters the App tab's view
/// it opened (not the previous call's view, which may still be on screen for a moment).
async fn call_and_enter_view(driver: &WebDriver) {
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    newest_result_after(driver, before).await;
    enter_view(driver).await;
}

async fn drive(driver: WebDriver) {
    // Baseline: the PDF from the demo directly, in the canvas's own viewer.
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="get_view_as_pdf"]"#).await.click().await.unwrap();
    mcp_canvas_e2e::webdriver::set_arguments(&driver, r#"{"pages": 50}"#).await;
    let started = Instant::now();
    wait_for(&driver, "button.call-button").await.click().await.unwrap();
    until(&driver, "proxy_view_in_app", "const i = document.querySelector('section.pane.active img.pdf-page'); return i && i.complete && i.naturalWidth > 0;").await;
    let canvas_ms = started.elapsed().as_millis();

    // Through the proxy: the same tool, with the proxy's view as its App.
    wait_for(&driver, r#"[data-server="canvas"] button[data-tool="demo__get_view_as_pdf"]"#).await.click().await.unwrap();
    mcp_canvas_e2e::webdriver::set_arguments(&driver, r#"{"pages": 50}"#).await;
    let started = Instant::now();
    call_and_enter_view(&driver).await;
    let painted = until_in_view(&driver, "proxy_view_in_app", "const c = document.querySelector('.pdf canvas.page[data-page=\"1\"]'); return c && c.width > 0 ? [c.width, c.height] : null;").await;
    let view_ms = started.elapsed().as_millis();
    assert!(painted[1].as_u64().unwrap() > painted[0].as_u64().unwrap(), "a portrait page: {painted}");
    // Pixels: a white page with dark text and a coloured chart.
    let ink = until_in_view(
        &driver,
        "proxy_view_in_app",
        "const c = document.querySelector('.pdf canvas.page'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
         let dark = 0; for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] < 300) dark++; return dark > 100 ? dark : null;",
    )
    .await;
    assert!(ink.as_u64().unwrap() > 100);
    let pages = until_in_view(&driver, "proxy_view_in_app", "return document.querySelector('.pdf .toolbar')?.textContent.includes('of 50') || null;").await;
    assert_eq!(pages, json!(true));
    // The next page on demand.
    click_until(&driver, ".pdf .toolbar button[title='Next page']", "document.querySelector('.pdf canvas.page[data-page=\"2\"]')").await;
    driver.enter_parent_frame().await.unwrap();
    screenshot(&driver, "proxy_view_in_app_pdf.png").await;
    eprintln!("first PDF page on screen after the click, 50-page PDF: canvas {canvas_ms} ms, proxy view in the app {view_ms} ms");

    // The report: the primary file first, sanitized, framed with no permissions; the table a click away.
    wait_for(&driver, r#"[data-server="canvas"] button[data-tool="demo__make_report"]"#).await.click().await.unwrap();
    mcp_canvas_e2e::webdriver::set_arguments(&driver, r#"{"rows": 12}"#).await;
    call_and_enter_view(&driver).await;
    let names = until_in_view(&driver, "proxy_view_in_app", "const b = [...document.querySelectorAll('nav.files button.file .name')].map(e => e.textContent); return b.length === 3 ? b : null;").await;
    assert_eq!(names, json!(["report.html", "chart.png", "data.csv"]));
    let frame = until_in_view(&driver, "proxy_view_in_app", "const f = document.querySelector('section.body[data-viewer=\"html\"] iframe.document'); return f ? [f.getAttribute('sandbox'), f.srcdoc] : null;").await;
    assert_eq!(frame[0], "");
    let srcdoc = frame[1].as_str().unwrap().to_ascii_lowercase();
    assert!(srcdoc.contains("<table") && !srcdoc.contains("<script"), "{srcdoc:.300}");
    // (A script's click: WebDriver's clicks inside a frame's frame are not always delivered by WebKit.)
    until_in_view(&driver, "proxy_view_in_app", "const b = document.querySelectorAll('nav.files button.file')[2]; if (!b.classList.contains('current')) b.click(); return document.querySelectorAll('.rows .row[data-row]').length > 0;").await;
    let header = until_in_view(&driver, "proxy_view_in_app", "const h = [...document.querySelectorAll('.row.head .cell')].map(e => e.textContent); return h.length ? h : null;").await;
    assert_eq!(header, json!(["label", "q1", "q2", "q3", "q4", "total"]));
    driver.enter_parent_frame().await.unwrap();
    screenshot(&driver, "proxy_view_in_app_table.png").await;

    // `ui/download-file`: the view's Save asks in our dialog, then the file is stored here and
    // opened in a tab of its own (Save as… and Open with work there as for any artifact).
    enter_view(&driver).await;
    until_in_view(&driver, "proxy_view_download", "const b = [...document.querySelectorAll('button')].find(b => b.textContent === 'Save'); if (b) b.click(); return !!b;").await;
    driver.enter_parent_frame().await.unwrap();
    let asked = until(&driver, "proxy_view_download", "const d = document.querySelector('[role=alertdialog]'); return d && d.textContent;").await;
    assert!(asked.as_str().unwrap().contains("wants to save a file in MCP Canvas: data.csv"), "{asked}");
    until(&driver, "proxy_view_download", "const b = [...document.querySelectorAll('[role=alertdialog] button')].find(b => b.textContent.trim() === 'Save'); if (b) b.click(); return !!b;").await;
    until(&driver, "proxy_view_download", "return [...document.querySelectorAll('section.pane .tab-label')].some(t => t.textContent === 'data.csv');").await;
    let app_still_open = driver.execute("return document.querySelectorAll('section.pane .app-slot iframe.app-frame').length;", vec![]).await.unwrap().json().as_u64().unwrap();
    assert!(app_still_open >= 1, "the saved file opens beside the App, not in its place");
    screenshot(&driver, "proxy_view_in_app_download.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn the_desktop_app_hosts_the_proxys_view() {
    let inner = tempfile::tempdir().unwrap();
    std::fs::write(inner.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    // No image inline for the model: the app would open it in a tab of its own beside the view.
    std::fs::write(inner.path().join("proxy.toml"), "image_max_bytes = 0\n").unwrap();
    let data_dir = tempfile::tempdir().unwrap();
    let servers = json!({ "mcpServers": {
        "demo": { "command": binary("mcp-canvas-demo") },
        "canvas": { "command": binary("mcp-canvas-cli"), "args": ["--data-dir", inner.path(), "proxy"] },
    }});
    std::fs::write(data_dir.path().join("servers.json"), servers.to_string()).unwrap();
    with_app(&binary("mcp-canvas"), data_dir.path(), |driver, _| drive(driver)).await;
}
