//! Search in the real window (Xvfb, WebDriver): files the demo returned earlier (through the CLI,
//! on the same data dir) are indexed by the app in the background; Ctrl+K opens the palette, a
//! word typed shows hits as it is typed, grouped by file, with the word marked in each snippet
//! and where it is; choosing the hit on page 3 opens the PDF in the canvas at page 3.

use mcp_canvas_e2e::{
    binary, cli,
    webdriver::{press, screenshot, until, wait_for, wait_for_focus, with_app},
};
use serde_json::json;
use thirtyfour::prelude::*;

async fn drive(driver: WebDriver) {
    wait_for(&driver, "[data-server=\"demo\"]").await;
    // Ctrl+K from wherever the focus is.
    wait_for(&driver, "body").await;
    press(&driver, Key::Control + "k").await;
    wait_for(&driver, "[role=dialog][aria-label='Search artifacts']").await;
    wait_for_focus(&driver, "input.search-input").await;
    // Typed as a person would: results come while typing (the last word is a prefix).
    press(&driver, "indir").await;
    let places = until(
        &driver,
        "search_palette",
        "const h = [...document.querySelectorAll('.search-hit')]; return h.length >= 2 && h.map(e => e.querySelector('.search-place').textContent);",
    )
    .await;
    let places: Vec<String> = serde_json::from_value(places).unwrap();
    // The word is on pages 2 and 3 of the demo's workbook, not on page 1.
    assert_eq!(places, vec!["page 2", "page 3"]);
    let file = until(&driver, "search_palette", "const f = document.querySelector('.search-group .search-file-name'); return f && f.textContent;").await;
    assert_eq!(file, json!("Sales Dashboard.pdf"));
    let marked = until(&driver, "search_palette", "const m = [...document.querySelectorAll('.search-hit mark')].map(m => m.textContent.toLowerCase()); return m.length && m;").await;
    assert!(marked.as_array().unwrap().iter().all(|m| m.as_str().unwrap().starts_with("indir")), "{marked}");
    screenshot(&driver, "search_palette.png").await;

    // The hit on page 3, chosen with the keyboard: the palette closes, the PDF opens at page 3.
    let index = until(&driver, "search_palette", "const h = [...document.querySelectorAll('.search-hit')]; const i = h.findIndex(e => e.querySelector('.search-place').textContent === 'page 3'); return i >= 0 ? String(h[i].dataset.index) : null;").await;
    let index: usize = index.as_str().unwrap().parse().unwrap();
    for _ in 0..index {
        press(&driver, Key::Down).await;
    }
    press(&driver, Key::Enter).await;
    until(&driver, "search_opened", "return !document.querySelector('[role=dialog][aria-label=\"Search artifacts\"]');").await;
    let shown = until(&driver, "search_opened", "const n = document.querySelector('section.pane.active .pdf-page-number'); const i = document.querySelector('section.pane.active img.pdf-page'); return n && i && i.complete && i.naturalWidth > 0 && n.textContent.includes('3 of 3') && n.textContent;").await;
    assert!(shown.as_str().unwrap().contains("Page 3 of 3"), "{shown}");
    let tab = wait_for(&driver, ".tab.active .tab-label").await.prop("textContent").await.unwrap();
    assert_eq!(tab.as_deref(), Some("Sales Dashboard.pdf"));
    screenshot(&driver, "search_opened_at_page.png").await;

    // Again, then Escape: closed, nothing opened.
    press(&driver, Key::Control + "k").await;
    wait_for_focus(&driver, "input.search-input").await;
    press(&driver, Key::Escape).await;
    until(&driver, "search_closed", "return !document.querySelector('[role=dialog][aria-label=\"Search artifacts\"]');").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn ctrl_k_finds_a_word_and_opens_the_pdf_at_its_page() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    // Stored before the app starts, by another process on the same data dir: the app's indexer
    // finds them (nothing indexed them yet: a call does not index).
    for (tool, args) in [("download_workbook", "{}"), ("make_report", r#"{"rows": 12}"#)] {
        let run = cli(dir.path(), &["call", "demo", tool, "--args", args]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    with_app(&binary("mcp-canvas"), dir.path(), |driver, _| drive(driver)).await;
}
