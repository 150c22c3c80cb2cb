//! MCP Apps in the real window (Xvfb, WebDriver), with the example servers from npm
//! (`@modelcontextprotocol/server-basic-vanillajs`, `scripts/setup.sh --tests`): calling its tool
//! opens its App in a tab, served on the `mcp-app:` scheme in a frame sandboxed to scripts and
//! forms, with the spec's restrictive CSP; the App gets the call's input and result over the
//! bridge, calls the server's tool itself and shows the answer; it stays alive across tab
//! switches; fullscreen and back; closing it tears it down. What it did is in the audit log.
//!
//! Ignored by plain `cargo test` (needs a display and tauri-driver); `scripts/test.sh` runs it
//! under `xvfb-run`.

use mcp_canvas_e2e::{
    binary, cli,
    npm::apps_example,
    webdriver::{click_until, screenshot, wait_for, wait_for_script, with_app},
};
use serde_json::json;
use thirtyfour::prelude::*;

/// The text of `#server-time` inside the App's frame once it is a timestamp (the App fills it
/// from the tool result it is sent, and again when its button calls the tool).
async fn server_time(driver: &WebDriver) -> String {
    wait_for_script(
        driver,
        "const t = document.querySelector('#server-time')?.textContent ?? ''; return /\\d{4}-\\d{2}-\\d{2}T/.test(t) ? t : null;",
        vec![],
    )
    .await
    .as_str()
    .unwrap()
    .to_owned()
}

/// Clicks "Call tool" until a call starts: a click right after the App's frame had the focus is
/// sometimes taken by WebKit to move the focus back, not as a click (seen once in five runs).
async fn call_again(driver: &WebDriver) {
    let before = mcp_canvas_e2e::webdriver::result_count(driver).await;
    for _ in 0..3 {
        wait_for(driver, "button.call-button").await.click().await.unwrap();
        for _ in 0..60 {
            if mcp_canvas_e2e::webdriver::result_count(driver).await > before || !driver.find_all(By::Css("button.call-cancel")).await.unwrap().is_empty() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
    }
    panic!("three clicks on Call tool started no call");
}

/// The server list and tool panel on screen at their default width: their layout is the
/// webview's, kept across runs (another test may have hidden or resized them).
async fn panels_shown(driver: &WebDriver) {
    wait_for(driver, "button.toggle-panels").await;
    driver.execute("localStorage.removeItem('mcp-canvas.panels');", vec![]).await.unwrap();
    driver.refresh().await.unwrap();
    wait_for(driver, ".app:not(.panels-collapsed) button.toggle-panels").await;
}

async fn drive(driver: WebDriver) {
    panels_shown(&driver).await;
    wait_for(&driver, r#"[data-server="vanilla"] button[data-tool="get-time"]"#).await.click().await.unwrap();
    wait_for(&driver, "button.call-button").await.click().await.unwrap();

    // The App's tab: its own scheme, sandboxed (no same-origin), with the CSP it declared (none:
    // the spec's default — no network, no frames).
    let frame = wait_for(&driver, "section.pane.active .app-viewer iframe.app-frame[src]").await;
    let src = frame.attr("src").await.unwrap().unwrap_or_default();
    assert!(src.starts_with("mcp-app://localhost/") || src.starts_with("http://mcp-app.localhost/"), "{src}");
    assert_eq!(frame.attr("sandbox").await.unwrap().as_deref(), Some("allow-scripts allow-forms"));
    let csp = driver.execute("return document.querySelector('section.pane.active iframe.app-frame').dataset.csp;", vec![]).await.unwrap().json().as_str().unwrap_or_default().to_owned();
    assert!(csp.contains("connect-src 'none'") && csp.contains("frame-src 'none'"), "{csp}");
    let label = wait_for(&driver, "section.pane.active .tab.active .tab-label").await.prop("textContent").await.unwrap().unwrap_or_default();
    assert!(label.contains("Get Time"), "{label}");

    // Inside: the result of our call arrived over the bridge; then the App calls the tool itself.
    frame.clone().enter_frame().await.unwrap();
    let first = server_time(&driver).await;
    wait_for_script(
        &driver,
        "const b = document.querySelector('#get-time-btn'); if (!b) return null; b.click(); return true;",
        vec![],
    )
    .await;
    let second = wait_for_script(
        &driver,
        "const t = document.querySelector('#server-time')?.textContent ?? ''; return t !== arguments[0] && /\\d{4}-\\d{2}-\\d{2}T/.test(t) ? t : null;",
        vec![json!(first)],
    )
    .await;
    assert_ne!(second.as_str().unwrap(), first, "the App's own call returned a new time");
    // The App cannot reach the window that frames it, nor read cookies or storage.
    let isolated = driver
        .execute(
            "let parent = 'blocked'; try { parent = String(window.parent.document.title); } catch (e) {} \
             let storage = 'blocked'; try { localStorage.setItem('x', '1'); storage = 'open'; } catch (e) {} \
             return [parent, storage, String(typeof window.__TAURI_INTERNALS__), String(document.domain)];",
            vec![],
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(isolated[0], "blocked", "the App reads the window's document: {isolated}");
    assert_eq!(isolated[1], "blocked", "the App has storage: {isolated}");
    assert_eq!(isolated[2], "undefined", "the App sees Tauri's IPC: {isolated}");
    driver.enter_parent_frame().await.unwrap();
    screenshot(&driver, "app_basic.png").await;

    // Canvas first, in this 1280×800 window: hiding the server list and tool panel gives the App at
    // least 70 % of the width; dragging the tool panel's edge resizes it; both come back.
    let share = |driver: &WebDriver| {
        let driver = driver.clone();
        async move {
            let measured = driver
                .execute("const f = document.querySelector('section.pane.active .app-slot:not([hidden]) iframe').getBoundingClientRect(); return [f.width, window.innerWidth];", vec![])
                .await
                .unwrap()
                .json()
                .clone();
            measured[0].as_f64().unwrap() / measured[1].as_f64().unwrap()
        }
    };
    let before = share(&driver).await;
    wait_for(&driver, "button.toggle-panels").await.click().await.unwrap();
    wait_for(&driver, ".app.panels-collapsed").await;
    let collapsed = share(&driver).await;
    assert!(collapsed >= 0.7, "canvas first: the App gets {collapsed:.2} of the width (before {before:.2})");
    screenshot(&driver, "app_canvas_first.png").await;
    wait_for(&driver, "button.toggle-panels").await.click().await.unwrap();
    let resizer = wait_for(&driver, ".column-resizer").await;
    driver.action_chain().drag_and_drop_element_by_offset(&resizer, -80, 0).perform().await.unwrap();
    let narrower = share(&driver).await;
    assert!(narrower > before, "dragging the tool panel's edge left widens the canvas: {before:.2} → {narrower:.2}");

    // Fullscreen and back (Escape).
    wait_for(&driver, "section.pane.active button.pane-fullscreen").await.click().await.unwrap();
    wait_for(&driver, "section.pane.fullscreen .app-viewer").await;
    let covers = driver
        .execute("const r = document.querySelector('section.pane.fullscreen').getBoundingClientRect(); return [r.width, window.innerWidth];", vec![])
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(covers[0], covers[1], "fullscreen covers the window: {covers}");
    screenshot(&driver, "app_fullscreen.png").await;
    driver.action_chain().send_keys(Key::Escape).perform().await.unwrap();
    wait_for_script(&driver, "return document.querySelector('section.pane.fullscreen') ? null : true;", vec![]).await;

    // Pinned, the App survives the next call's `replace`; the next call opens a second instance,
    // and switching back shows the first one as it was: the same frame, not reloaded.
    let marker = driver
        .execute("const f = document.querySelector('section.pane.active .app-slot:not([hidden]) iframe'); f.dataset.marker = 'first'; return f.dataset.marker;", vec![])
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(marker, "first");
    wait_for(&driver, "section.pane.active button.pane-pin[aria-pressed=\"false\"]").await.click().await.unwrap();
    wait_for(&driver, "section.pane.active .tab.active.pinned").await;
    call_again(&driver).await;
    wait_for_script(&driver, "return document.querySelectorAll('.app-slot').length === 2 ? true : null;", vec![]).await;
    wait_for_script(&driver, "return document.querySelector('.app-slot:not([hidden]) iframe[data-marker=\"first\"]') ? null : true;", vec![]).await;
    click_until(&driver, "section.pane.active .tab.pinned .tab-label", "document.querySelector('.app-slot:not([hidden]) iframe[data-marker=\"first\"]')").await;
    let frame = wait_for(&driver, ".app-slot:not([hidden]) iframe[data-marker=\"first\"]").await;
    frame.enter_frame().await.unwrap();
    assert_eq!(server_time(&driver).await, second.as_str().unwrap(), "the first App kept its state");
    driver.enter_parent_frame().await.unwrap();

    // Closing the tab tears the App down and removes its frame.
    let apps_before = driver.find_all(By::Css(".app-slot")).await.unwrap().len();
    click_until(&driver, "section.pane.active .tab.active .tab-close", &format!("document.querySelectorAll('.app-slot').length === {}", apps_before - 1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn an_apps_view_runs_sandboxed_in_a_tab_and_calls_its_server() {
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::write(data_dir.path().join("servers.json"), json!({ "mcpServers": { "vanilla": apps_example("basic-vanillajs") } }).to_string()).unwrap();
    with_app(&binary("mcp-canvas"), data_dir.path(), |driver, _| drive(driver)).await;
    // The App's own tool call is in the audit log, done as the local user through the App.
    let audit = cli(data_dir.path(), &["audit", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&audit.stdout).expect("audit --json");
    let by_app = rows.iter().filter(|r| r["server"] == "vanilla" && r["tool"] == "get-time" && r["identity"].as_str().is_some_and(|i| i.ends_with("(app)"))).count();
    assert!(by_app >= 1, "the App's own call is audited as the local user through the App: {}", audit.stdout);
    assert!(rows.iter().any(|r| r["tool"] == "app:initialized"), "{}", audit.stdout);
}

/// A local HTTP origin for the hostile App: answers every request (CORS open) and counts them.
fn origin(hits: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> u16 {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    port
}

async fn drive_hostile(driver: WebDriver) {
    panels_shown(&driver).await;
    wait_for(&driver, r#"[data-server="hostile"] button[data-tool="show"]"#).await.click().await.unwrap();
    wait_for(&driver, "button.call-button").await.click().await.unwrap();
    let frame = wait_for(&driver, "section.pane.active .app-viewer iframe.app-frame[src]").await;
    frame.enter_frame().await.unwrap();
    let report = wait_for_script(&driver, "const t = document.querySelector('#report')?.textContent ?? ''; return t.startsWith('{') ? t : null;", vec![]).await;
    driver.enter_parent_frame().await.unwrap();
    let report: serde_json::Value = serde_json::from_str(report.as_str().unwrap()).unwrap();
    eprintln!("hostile App report: {report}");
    assert_eq!(report["initialize"], "ok", "{report}");
    for blocked in ["parent", "top", "cookie", "storage", "undeclared_fetch", "undeclared_img", "artifact", "ipc"] {
        assert_eq!(report[blocked], "blocked", "{blocked}: {report}");
    }
    assert_eq!(report["tauri"], "undefined/undefined", "{report}");
    assert_eq!(report["allowed_fetch"], "open: 200", "the declared origin loads: {report}");
    assert!(report["app_only"].as_str().unwrap().starts_with("ok:") && report["app_only"].as_str().unwrap().contains("for apps"), "{report}");
    for refused in ["model_only", "other_server", "link_javascript", "link_file"] {
        assert!(report[refused].as_str().unwrap().starts_with("error:"), "{refused}: {report}");
    }
    assert!(report["model_only"].as_str().unwrap().contains("model only"), "{report}");
    assert_eq!(report["flood"], 200, "every request of the flood was answered: {report}");
    // After the flood the window still answers at once.
    let search = wait_for(&driver, "input.tool-search").await;
    search.send_keys("app").await.unwrap();
    let value = wait_for_script(&driver, "const v = document.querySelector('input.tool-search').value; return v === 'app' ? v : null;", vec![]).await;
    assert_eq!(value, "app");
    screenshot(&driver, "app_hostile.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn a_hostile_app_reaches_nothing_it_did_not_declare_and_does_not_freeze_the_window() {
    let allowed_hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let undeclared_hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let allowed = origin(allowed_hits.clone());
    let undeclared = origin(undeclared_hits.clone());
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fault_servers/hostile_app.py");
    let data_dir = tempfile::tempdir().unwrap();
    let servers = json!({ "mcpServers": {
        "hostile": { "command": "python3", "args": [script, allowed.to_string(), undeclared.to_string()] },
        "vanilla": apps_example("basic-vanillajs"),
    } });
    std::fs::write(data_dir.path().join("servers.json"), servers.to_string()).unwrap();
    with_app(&binary("mcp-canvas"), data_dir.path(), |driver, _| drive_hostile(driver)).await;
    assert!(allowed_hits.load(std::sync::atomic::Ordering::SeqCst) >= 1, "the declared origin was reached");
    assert_eq!(undeclared_hits.load(std::sync::atomic::Ordering::SeqCst), 0, "the undeclared origin was never reached");
    // The refusals are in the audit log.
    let audit = cli(data_dir.path(), &["audit", "--json", "--limit", "500"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&audit.stdout).expect("audit --json");
    assert!(rows.iter().any(|r| r["server"] == "hostile" && r["tool"] == "model_only" && r["outcome"] == "refused"), "{}", audit.stdout);
    assert!(rows.iter().any(|r| r["server"] == "hostile" && r["tool"] == "app:open-link" && r["outcome"] == "refused"), "{}", audit.stdout);
}

/// A one-page PDF with a line of text (hand-written; PDF.js reads it).
fn tiny_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        "<< /Length 44 >>\nstream\nBT /F1 18 Tf 40 100 Td (Hello, Apps) Tj ET\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes());
    pdf
}

/// Calls `tool` of `server` from the tool panel with `arguments` and enters its App's frame once
/// the frame's text matches `ready` (a JS regular expression).
async fn open_app(driver: &WebDriver, server: &str, tool: &str, arguments: &str, ready: &str) -> String {
    driver.enter_default_frame().await.unwrap();
    wait_for(driver, &format!(r#"[data-server="{server}"] button[data-tool="{tool}"]"#)).await.click().await.unwrap();
    if !arguments.is_empty() {
        mcp_canvas_e2e::webdriver::set_arguments(driver, arguments).await;
    }
    // Clicked until a call starts: on a busy machine a click right after the tool's form appears
    // was seen to start nothing.
    call_again(driver).await;
    let frame = wait_for(driver, &format!(r#"section.pane.active .app-slot:not([hidden]) iframe.app-frame[title$="(App of {server})"][src]"#)).await;
    frame.enter_frame().await.unwrap();
    let text = wait_for_script(driver, "const t = document.body?.innerText ?? ''; return new RegExp(arguments[0]).test(t) ? t : null;", vec![json!(ready)]).await;
    text.as_str().unwrap().to_owned()
}

async fn drive_examples(driver: WebDriver) {
    panels_shown(&driver).await;
    // budget-allocator: its view draws the budget it is sent.
    let budget = open_app(&driver, "budget", "get-budget-data", "", "[Bb]udget").await;
    assert!(budget.to_lowercase().contains("budget"), "{budget}");
    driver.enter_default_frame().await.unwrap();
    screenshot(&driver, "app_budget_allocator.png").await;

    // Its view exposes tools of its own (ext-apps view tools): listed under the App, run in the
    // view from a form drawn from their schema. Setting the total and reading the allocations back
    // goes through the view's own state twice.
    let pane = "section.pane.active";
    wait_for(&driver, &format!("{pane} .view-tools-toggle")).await.click().await.unwrap();
    wait_for(&driver, &format!("{pane} select.view-tool-select option[value='set-total-budget']")).await;
    let select = wait_for(&driver, &format!("{pane} select.view-tool-select")).await;
    driver.execute("Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(arguments[0], 'set-total-budget'); arguments[0].dispatchEvent(new Event('change', { bubbles: true }));", vec![select.to_json().unwrap()]).await.unwrap();
    let amount = wait_for(&driver, &format!("{pane} .view-tools-body input#viewtool_amount")).await;
    amount.clear().await.unwrap();
    amount.send_keys("123456").await.unwrap();
    wait_for(&driver, &format!("{pane} button.view-tool-run")).await.click().await.unwrap();
    let set = wait_for_script(&driver, "const a = document.querySelector(arguments[0]); return a && a.textContent ? a.textContent : null;", vec![json!(format!("{pane} .view-tool-answer"))]).await;
    assert!(set.as_str().unwrap().contains("123,456") || set.as_str().unwrap().contains("123456"), "the view set its total: {set}");
    let select = wait_for(&driver, &format!("{pane} select.view-tool-select")).await;
    driver.execute("Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(arguments[0], 'get-allocations'); arguments[0].dispatchEvent(new Event('change', { bubbles: true }));", vec![select.to_json().unwrap()]).await.unwrap();
    wait_for_script(&driver, "return document.querySelector(arguments[0]) ? null : true;", vec![json!(format!("{pane} .view-tools-body input#viewtool_amount"))]).await;
    wait_for(&driver, &format!("{pane} button.view-tool-run")).await.click().await.unwrap();
    let read = wait_for_script(&driver, "const a = document.querySelector(arguments[0]); return a && a.textContent.includes('totalBudget') ? a.textContent : null;", vec![json!(format!("{pane} .view-tool-answer"))]).await;
    assert!(read.as_str().unwrap().contains("123456"), "the view reads back the total it was given: {read}");
    screenshot(&driver, "app_view_tools.png").await;

    // system-monitor: its view polls the app-only `poll-system-stats` tool by itself.
    open_app(&driver, "monitor", "get-system-info", "", "CPU|Memory|cpu|memory").await;
    driver.enter_default_frame().await.unwrap();
    screenshot(&driver, "app_system_monitor.png").await;

    // pdf: its view reads the document through the app-only chunked `read_pdf_bytes` and draws it.
    let path = std::env::var("APPS_TEST_PDF").unwrap();
    let shown = open_app(&driver, "pdf", "display_pdf", &json!({ "url": path }).to_string(), "Hello, Apps|failed|rror").await;
    assert!(shown.contains("Hello, Apps"), "the page's text layer shows the document: {shown}");
    let drawn = wait_for_script(
        &driver,
        "const c = [...document.querySelectorAll('canvas')].find(c => c.width > 50 && c.height > 50 && c.offsetParent); return c ? [c.width, c.height] : null;",
        vec![],
    )
    .await;
    assert!(drawn[0].as_u64().unwrap() > 50, "{drawn}");
    driver.enter_default_frame().await.unwrap();
    screenshot(&driver, "app_pdf.png").await;

    // Its download button (shown because we offer `downloadFile`) hands the PDF over with
    // `ui/download-file`: asked in our dialog, then stored and opened in a tab beside the App.
    // (A script's click: WebDriver's clicks inside a frame's frame are not always delivered.)
    let frame = wait_for(&driver, r#"section.pane.active .app-slot:not([hidden]) iframe.app-frame[title$="(App of pdf)"][src]"#).await;
    frame.enter_frame().await.unwrap();
    wait_for_script(&driver, "const b = document.getElementById('download-btn'); if (b && b.style.display !== 'none' && !b.disabled) { b.click(); return true; } return null;", vec![]).await;
    driver.enter_default_frame().await.unwrap();
    let asked = wait_for_script(&driver, "const d = document.querySelector('[role=alertdialog]'); return d && d.textContent;", vec![]).await;
    assert!(asked.as_str().unwrap().contains("wants to save a file in MCP Canvas") && asked.as_str().unwrap().contains("document.pdf"), "{asked}");
    wait_for_script(&driver, "const b = [...document.querySelectorAll('[role=alertdialog] button')].find(b => b.textContent.trim() === 'Save'); if (b) b.click(); return b ? true : null;", vec![]).await;
    wait_for_script(&driver, "return [...document.querySelectorAll('section.pane .tab-label')].some(t => t.textContent === 'document.pdf') ? true : null;", vec![]).await;
    // The saved PDF is ours now: drawn by our own viewer (pdfium), beside the App.
    wait_for_script(&driver, "const img = document.querySelector('section.pane.active img.pdf-page'); return img && img.complete && img.naturalWidth > 50 && document.querySelector('section.pane.active .pdf-page-number')?.textContent === 'Page 1 of 1' ? true : null;", vec![]).await;
    let apps_open = driver.execute("return document.querySelectorAll('section.pane .app-slot iframe.app-frame[title$=\"(App of pdf)\"]').length;", vec![]).await.unwrap().json().as_u64().unwrap();
    assert!(apps_open >= 1, "the saved file opens beside the App, not in its place");
    screenshot(&driver, "app_pdf_download.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn the_example_apps_budget_allocator_system_monitor_and_pdf_work() {
    let data_dir = tempfile::tempdir().unwrap();
    let pdf = data_dir.path().join("hello.pdf");
    std::fs::write(&pdf, tiny_pdf()).unwrap();
    let mut pdf_server = apps_example("pdf");
    pdf_server["args"].as_array_mut().unwrap().push(json!(pdf));
    let servers = json!({ "mcpServers": {
        "budget": apps_example("budget-allocator"),
        "monitor": apps_example("system-monitor"),
        "pdf": pdf_server,
    } });
    std::fs::write(data_dir.path().join("servers.json"), servers.to_string()).unwrap();
    // SAFETY: set before the test's own threads read it; nothing else in this process reads it.
    unsafe { std::env::set_var("APPS_TEST_PDF", &pdf) };
    with_app(&binary("mcp-canvas"), data_dir.path(), |driver, _| drive_examples(driver)).await;
    // What the Apps did by themselves is in the audit log, as the local user through the App.
    let audit = cli(data_dir.path(), &["audit", "--json", "--limit", "500"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&audit.stdout).expect("audit --json");
    let by_app = |tool: &str| rows.iter().filter(|r| r["tool"] == tool && r["identity"].as_str().is_some_and(|i| i.ends_with("(app)"))).count();
    assert!(by_app("poll-system-stats") >= 1, "the monitor polled: {}", audit.stdout);
    assert!(by_app("read_pdf_bytes") >= 1, "the PDF view read its bytes: {}", audit.stdout);
    // The view tools the user ran, with their arguments.
    let view_tools: Vec<&serde_json::Value> = rows.iter().filter(|r| r["server"] == "budget" && r["tool"] == "app:view-tool").collect();
    assert!(view_tools.iter().any(|r| r["arguments"]["tool"] == "set-total-budget" && r["arguments"]["arguments"]["amount"] == 123456 && r["outcome"] == "ok"), "{}", audit.stdout);
    assert!(view_tools.iter().any(|r| r["arguments"]["tool"] == "get-allocations"), "{}", audit.stdout);
    assert!(rows.iter().any(|r| r["server"] == "pdf" && r["tool"] == "app:download-file" && r["outcome"] == "ok"), "the PDF's download: {}", audit.stdout);
}

/// The `#events` lines of the App in the active pane (inside its frame), once `condition` holds.
/// The frame found may be replaced before it is entered (the tab re-renders as the call ends, and
/// more so on a busy machine): it is found again until the deadline.
async fn app_events_when(driver: &WebDriver, condition: &str) -> String {
    let script = format!("const e = document.querySelector('#events')?.textContent ?? ''; return ({condition}) ? e : null;");
    let deadline = std::time::Instant::now() + mcp_canvas_e2e::webdriver::WAIT;
    loop {
        driver.enter_default_frame().await.unwrap();
        let frame = wait_for(driver, "section.pane.active .app-slot:not([hidden]) iframe.app-frame[src]").await;
        if frame.enter_frame().await.is_ok() {
            let events = driver.execute(&script, vec![]).await.map(|v| v.json().clone());
            driver.enter_default_frame().await.unwrap();
            if let Ok(serde_json::Value::String(events)) = events {
                return events;
            }
        }
        assert!(std::time::Instant::now() < deadline, "the App's #events did not come to hold {condition} within {:?}", mcp_canvas_e2e::webdriver::WAIT);
        tokio::time::sleep(mcp_canvas_e2e::webdriver::POLL).await;
    }
}

async fn drive_slow(driver: WebDriver) {
    panels_shown(&driver).await;
    // The App opens as its call starts: it has the input while the call still runs, the result after.
    wait_for(&driver, r#"[data-server="hostile"] button[data-tool="slow"]"#).await.click().await.unwrap();
    // (The server answers only after the App, having the input, calls `release`: no timing.)
    mcp_canvas_e2e::webdriver::set_arguments(&driver, r#"{"release_from_app": true}"#).await;
    wait_for(&driver, "button.call-button").await.click().await.unwrap();
    let after = app_events_when(&driver, "e.includes('tool-result')").await;
    assert!(after.find("tool-input").unwrap() < after.find("tool-result").unwrap() && after.contains(r#""done":true"#), "{after}");

    // Cancelled while it runs (nothing releases it): the App hears `tool-cancelled` with the reason.
    mcp_canvas_e2e::webdriver::set_arguments(&driver, r#"{}"#).await;
    wait_for(&driver, "button.call-button").await.click().await.unwrap();
    app_events_when(&driver, "e.includes('tool-input') && !e.includes('tool-result')").await;
    wait_for(&driver, "button.call-cancel").await.click().await.unwrap();
    let cancelled = app_events_when(&driver, "e.includes('tool-cancelled')").await;
    assert!(!cancelled.contains("tool-result") && cancelled.contains("cancel"), "{cancelled}");
    screenshot(&driver, "app_cancelled.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn an_app_gets_its_input_while_the_call_runs_then_the_result_or_the_cancellation() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fault_servers/hostile_app.py");
    let data_dir = tempfile::tempdir().unwrap();
    let servers = json!({ "mcpServers": { "hostile": { "command": "python3", "args": [script, "1", "2"] } } });
    std::fs::write(data_dir.path().join("servers.json"), servers.to_string()).unwrap();
    with_app(&binary("mcp-canvas"), data_dir.path(), |driver, _| drive_slow(driver)).await;
}

/// Runs `script` in the SDK App's frame (in the active pane or floating) until it returns
/// something other than null; back in the window afterwards.
async fn in_sdk_view(driver: &WebDriver, script: &str) -> serde_json::Value {
    driver.enter_default_frame().await.unwrap();
    let frame = wait_for(driver, r#".app-slot:not([hidden]) iframe.app-frame[title$="(App of sdk)"][src]"#).await;
    frame.enter_frame().await.unwrap();
    let value = wait_for_script(driver, script, vec![]).await;
    driver.enter_default_frame().await.unwrap();
    value
}

async fn drive_sdk(driver: WebDriver) {
    panels_shown(&driver).await;
    let text = open_app(&driver, "sdk", "show", "", "connected").await;
    assert!(text.contains("sampling offered: true"), "the policy is `ask`, so sampling is offered: {text}");
    driver.enter_default_frame().await.unwrap();

    // Picture-in-picture: granted (both sides list it), the App floats over the canvas.
    in_sdk_view(&driver, "document.getElementById('pip').click(); return true;").await;
    in_sdk_view(&driver, "const m = document.getElementById('mode').textContent; return m === 'mode: pip' ? m : null;").await;
    wait_for(&driver, ".app-slot.pip:not([hidden]) .pip-bar").await;
    // Another tab in front: the floating App stays on screen, alive.
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await.click().await.unwrap();
    call_again(&driver).await;
    wait_for_script(&driver, "return [...document.querySelectorAll('section.pane .tab-label')].some(t => t.textContent === 'render_chart.png') && document.querySelector('section.pane.active .image-viewer-frame') ? true : null;", vec![]).await;
    wait_for(&driver, ".app-slot.pip:not([hidden]) iframe.app-frame").await;
    screenshot(&driver, "app_pip.png").await;
    // It still answers while floating: asks the model through our dialog (the server's policy is
    // `ask`), a real small model answers, the view gets the text.
    in_sdk_view(&driver, "document.getElementById('ask').click(); return true;").await;
    let dialog = wait_for(&driver, r#".sampling-dialog[role="dialog"]"#).await;
    let asked = dialog.text().await.unwrap();
    assert!(asked.contains("sdk") && asked.contains("Name a fruit."), "the dialog names the server and shows the request: {asked}");
    screenshot(&driver, "app_sampling_request.png").await;
    wait_for(&driver, "button.sampling-approve").await.click().await.unwrap();
    let answer = in_sdk_view(&driver, "const a = document.getElementById('answer').textContent; return a.startsWith('answer: ') || a.startsWith('refused: ') ? a : null;").await;
    assert!(answer.as_str().unwrap().starts_with("answer: ") && answer.as_str().unwrap().len() > "answer: ".len(), "{answer}");
    // Back to its tab: no longer floating, and the App is told.
    wait_for(&driver, ".app-slot.pip .pip-return").await.click().await.unwrap();
    in_sdk_view(&driver, "const m = document.getElementById('mode').textContent; return m === 'mode: inline' ? m : null;").await;
    assert!(driver.find_all(By::Css(".app-slot.pip")).await.unwrap().is_empty(), "no App floats any more");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn an_sdk_app_floats_in_pip_across_tabs_and_asks_the_model_through_our_dialog() {
    let llm = mcp_canvas_e2e::llm::LlmServer::start();
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::write(data_dir.path().join("settings.toml"), llm.settings("ask")).unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fault_servers/sdk_app.py");
    // The SDK our own window uses (ui/package.json pins it; `npm ci` in ui/ installs it).
    let sdk = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js");
    assert!(sdk.is_file(), "{} (npm ci in ui/ installs it)", sdk.display());
    let servers = json!({ "mcpServers": {
        "sdk": { "command": "python3", "args": [script, sdk] },
        "demo": { "command": binary("mcp-canvas-demo") },
    } });
    std::fs::write(data_dir.path().join("servers.json"), servers.to_string()).unwrap();
    with_app(&binary("mcp-canvas"), data_dir.path(), |driver, _| drive_sdk(driver)).await;
    // The exchange is in the server's transcript, like a server's own request.
    let log = cli(data_dir.path(), &["sampling", "log", "sdk", "--json"]);
    let records: Vec<serde_json::Value> = serde_json::from_str(&log.stdout).expect("sampling log --json");
    assert_eq!(records.len(), 1, "{}", log.stdout);
    let audit = cli(data_dir.path(), &["audit", "--json", "--limit", "100"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&audit.stdout).expect("audit --json");
    assert!(rows.iter().any(|r| r["server"] == "sdk" && r["tool"] == "app:sampling" && r["outcome"] == "ok"), "{}", audit.stdout);
    assert!(rows.iter().any(|r| r["server"] == "sdk" && r["tool"] == "app:display-mode"), "{}", audit.stdout);
}
