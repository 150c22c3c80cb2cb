//! A file going from one tool's result into the next tool in the real window (Xvfb, WebDriver):
//! the demo's chart, then `describe_image`, whose `image` argument (SEP-2356 `x-mcp-file`) is a
//! file field; the chart is chosen from the stored files, its chip shows name, type and size, and
//! the call describes the picture. A CSV table chosen for the image field is refused in the
//! window before anything is sent.
//!
//! Drops, through the UI's own handlers (WebDriver has no native drag and drop): a canvas tab
//! dragged onto the field (a `DragEvent` with a `DataTransfer`, dispatched on the tab and then on
//! the field); an artifact browser row dragged onto a tool in the sidebar, held there until the
//! tool opens, then onto its field, and one dropped on a tool itself (it opens with the file in
//! its field); and a file dropped from the desktop, delivered as Tauri's
//! webview delivers its `tauri://drag-*` events (the same listener table and dispatch function
//! the backend's `emit_js` calls), so the real `artifact_import_paths` command stores the file.
//! Each time the chip shows the file's name, type and size, and the call sends that very file
//! (the tool's answer, and the audit row naming its id).

use std::path::Path;

use mcp_canvas_e2e::{
    binary, cli, target_dir,
    webdriver::{arguments_mode, call_with, newest_result_after, result_count, screenshot, until, wait_for, with_app},
};
use serde_json::{json, Value};
use thirtyfour::prelude::*;

async fn drive(driver: WebDriver) {
    // A chart from one call...
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await.click().await.unwrap();
    let said = call_with(&driver, r#"{"values": [4, 9, 2, 7]}"#).await;
    assert!(said.contains("render_chart.png"), "{said}");

    // ...into the next: describe_image's argument is a file field, not a text box.
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="describe_image"]"#).await.click().await.unwrap();
    arguments_mode(&driver, "form").await;
    wait_for(&driver, ".file-field").await;
    let text_boxes = driver.find_all(By::Css(".file-field input[type=text], .file-field textarea")).await.unwrap().len();
    assert_eq!(text_boxes, 0);
    wait_for(&driver, "button.file-stored").await.click().await.unwrap();
    let picked = until(&driver, "file_field", "const b = [...document.querySelectorAll('button.stored-pick')].find(b => b.textContent.includes('render_chart.png') && !b.disabled); if (b) b.click(); return !!b;").await;
    assert_eq!(picked, json!(true));
    let chip = until(&driver, "file_field", "const c = document.querySelector('.file-chip'); return c && [c.querySelector('.file-chip-name').textContent, c.querySelector('.file-chip-meta').textContent];").await;
    assert_eq!(chip[0], "render_chart.png");
    assert!(chip[1].as_str().unwrap().contains("image/png"), "{chip}");
    screenshot(&driver, "file_field.png").await;
    let before = mcp_canvas_e2e::webdriver::result_count(&driver).await;
    wait_for(&driver, "button.call-button").await.click().await.unwrap();
    let described = mcp_canvas_e2e::webdriver::newest_result_after(&driver, before).await;
    assert!(described.contains("PNG image, 480×300 px"), "{described}");
    screenshot(&driver, "file_into_tool.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn a_chart_goes_from_one_tool_into_the_next_through_a_file_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    with_app(&binary("mcp-canvas"), dir.path(), |driver, _| drive(driver)).await;
}

/// JS: `window.__drag` = one `DataTransfer` and `fire(element, type)` dispatching a `DragEvent`
/// carrying it (bubbling, cancelable), which returns whether a handler took it
/// (`preventDefault`), as the browser's own drag would.
const DRAG: &str = "window.__drag = window.__drag || { data: new DataTransfer(), \
     fire(el, type) { return !el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: this.data })); } };";

/// JS: `emit(event, payload)` delivers a Tauri event to this webview's listeners of it exactly as
/// the backend's `Webview::emit_js` does for `emit_to_webview` (Tauri 2.12: the listeners the
/// page registered in `__internal_unstable_listeners_object_id__`, targeted at this webview or
/// at any — Tauri defines them as non-enumerable properties —, through
/// `__internal_unstable_listeners_function_id__`); returns how many entries it went to. An
/// entry stays in that table after its listener is removed, its callback unregistered, so
/// it does nothing: only live listeners hear it, as when the backend (which knows which are live)
/// emits.
const TAURI_EMIT: &str = "const emit = (event, payload) => { \
     const listeners = (window.__internal_unstable_listeners_object_id__ || {})[event] || {}; \
     const ids = Object.getOwnPropertyNames(listeners).filter((id) => { const t = listeners[id].target; return t.kind === 'Any' || (['Webview', 'WebviewWindow'].includes(t.kind) && t.label === 'main'); }).map(Number); \
     window.__internal_unstable_listeners_function_id__({ event, payload }, ids); return ids.length; };";

/// The chip of the file field `field`: [name, meta, artifact id], once it shows a stored file.
async fn chip(driver: &WebDriver, what: &str, field: &str) -> Value {
    until(
        driver,
        what,
        &format!(
            "const c = document.querySelector('.file-field[data-file-field=\"{field}\"] .file-chip[data-artifact]'); \
             const meta = c && c.querySelector('.file-chip-meta').textContent; \
             return c && !/Looking it up/.test(meta) && [c.querySelector('.file-chip-name').textContent, meta, c.dataset.artifact];"
        ),
    )
    .await
}

/// `formatBytes` (ui/src/browser/filters.ts) for the sizes here.
fn size_text(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let kb = bytes as f64 / 1024.0;
    let text = format!("{kb:.1}");
    format!("{} KB", text.strip_suffix(".0").unwrap_or(&text))
}

/// The stored record of `id` (`artifacts show --json`).
fn stored(data_dir: &Path, id: &str) -> Value {
    let shown = cli(data_dir, &["artifacts", "show", id, "--json"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    serde_json::from_str(&shown.stdout).unwrap()
}

/// The detail of the newest audit row of `tool` that went to the server.
fn sent_detail(data_dir: &Path, tool: &str) -> String {
    let audit = cli(data_dir, &["audit", "--json"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    let rows: Value = serde_json::from_str(&audit.stdout).unwrap();
    let row = rows.as_array().unwrap().iter().find(|r| r["tool"] == tool && r["outcome"] == "ok").unwrap_or_else(|| panic!("no {tool} call in {rows}"));
    row["detail"].as_str().unwrap_or_default().to_owned()
}

/// Calls the selected tool with what its form holds; the result's text.
async fn call_form(driver: &WebDriver) -> String {
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button:not([disabled])").await.click().await.unwrap();
    newest_result_after(driver, before).await
}

async fn open_tool(driver: &WebDriver, tool: &str) {
    wait_for(driver, &format!(r#"[data-server="demo"] button[data-tool="{tool}"]"#)).await.click().await.unwrap();
    arguments_mode(driver, "form").await;
}

async fn drops(driver: WebDriver, data_dir: &Path) {
    // A chart, open in a canvas tab.
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await.click().await.unwrap();
    let said = call_with(&driver, r#"{"values": [5, 1, 8, 3, 6]}"#).await;
    assert!(said.contains("render_chart.png"), "{said}");

    // 1. The canvas tab dragged onto describe_image's field.
    open_tool(&driver, "describe_image").await;
    wait_for(&driver, r#".file-field[data-file-field="image"]"#).await;
    let dragged = driver
        .execute(
            &format!(
                "{DRAG} window.__drag.data = new DataTransfer(); \
                 const tab = [...document.querySelectorAll('.tab[draggable=true]')].find(t => t.textContent.includes('render_chart.png')); \
                 const hint = document.querySelector('.file-field[data-file-field=\"image\"] .file-field-hint'); \
                 window.__drag.fire(tab, 'dragstart'); \
                 return {{ types: [...window.__drag.data.types], id: window.__drag.data.getData('application/x-mcp-canvas-artifact'), \
                          text: window.__drag.data.getData('text/plain'), enter: window.__drag.fire(hint, 'dragenter'), over: window.__drag.fire(hint, 'dragover') }};"
            ),
            vec![],
        )
        .await
        .unwrap()
        .json()
        .clone();
    let chart_id = dragged["id"].as_str().unwrap_or_else(|| panic!("the tab's dragstart set no artifact id: {dragged}")).to_owned();
    assert!(chart_id.starts_with("demo_"), "{dragged}");
    assert_eq!(dragged["text"], format!("artifact:{chart_id}"));
    assert_eq!((&dragged["enter"], &dragged["over"]), (&json!(true), &json!(true)), "the field does not take the drag: {dragged}");
    until(&driver, "drop_over", r#"return !!document.querySelector('.file-field[data-file-field="image"].drop-over');"#).await;
    screenshot(&driver, "file_field_tab_over.png").await;
    let taken = driver
        .execute(&format!("{DRAG} const tab = [...document.querySelectorAll('.tab[draggable=true]')].find(t => t.textContent.includes('render_chart.png')); \
             const took = window.__drag.fire(document.querySelector('.file-field[data-file-field=\"image\"] .file-field-hint'), 'drop'); window.__drag.fire(tab, 'dragend'); return took;"), vec![])
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(taken, json!(true), "the field did not take the drop");
    let shown = chip(&driver, "tab_chip", "image").await;
    let record = stored(data_dir, &chart_id);
    assert_eq!(shown, json!(["render_chart.png", format!("image/png · {}", size_text(record["size"].as_u64().unwrap())), chart_id]));
    screenshot(&driver, "file_field_tab_dropped.png").await;
    let described = call_form(&driver).await;
    assert!(described.contains("'render_chart.png', PNG image, 480×300 px"), "{described}");
    let detail = sent_detail(data_dir, "describe_image");
    assert!(detail.contains(&chart_id) && detail.contains(record["sha256"].as_str().unwrap()), "the call did not send the dropped chart {chart_id}: {detail}");

    // 2. A row of the artifact browser: the browser takes the tool panel's column, so the row is
    // held over describe_image in the sidebar until the tool opens, then dropped on its field.
    wait_for(&driver, "button.open-files").await.click().await.unwrap();
    wait_for(&driver, ".artifact-browser").await;
    until(&driver, "list_layout", r#"const b = [...document.querySelectorAll('.browser-layout button')].find(b => b.textContent.trim() === 'List'); if (b) b.click(); return !!document.querySelector('.artifact-browser tr[data-artifact][draggable=true]');"#).await;
    let row_drag = driver
        .execute(
            &format!(
                "{DRAG} window.__drag.data = new DataTransfer(); \
                 const row = document.querySelector('.artifact-browser tr[data-artifact=\"' + arguments[0] + '\"]'); \
                 window.__drag.row = row; window.__drag.fire(row, 'dragstart'); \
                 const tool = document.querySelector('[data-server=\"demo\"] button[data-tool=\"describe_image\"] .tool-title'); \
                 return {{ id: window.__drag.data.getData('application/x-mcp-canvas-artifact'), enter: window.__drag.fire(tool, 'dragenter'), over: window.__drag.fire(tool, 'dragover') }};"
            ),
            vec![json!(chart_id)],
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(row_drag, json!({ "id": chart_id, "enter": true, "over": true }), "the sidebar tool does not take the row's drag");
    until(&driver, "spring_armed", r#"return !!document.querySelector('button[data-tool="describe_image"].drop-armed');"#).await;
    // Before the wait ends (a screenshot at once may show the frame before): the tool marked
    // while the row is held over it; only a picture, nothing is asserted on it.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let _ = driver.screenshot(&target_dir().parent().unwrap().join("gui-screenshots/file_tool_armed.png")).await;
    // Held there: the tool opens (the browser gives way), and the drag goes on to its field.
    let opened = until(&driver, "spring_open", &format!("{DRAG} const f = document.querySelector('.tool-panel .file-field[data-file-field=\"image\"]'); \
         if (!f || document.querySelector('.artifact-browser')) {{ const t = document.querySelector('[data-server=\"demo\"] button[data-tool=\"describe_image\"] .tool-title'); window.__drag.fire(t, 'dragover'); return false; }} \
         window.__drag.fire(document.querySelector('[data-server=\"demo\"] button[data-tool=\"describe_image\"]'), 'dragleave'); return {{ chips: f.querySelectorAll('.file-chip').length }};")).await;
    assert_eq!(opened, json!({ "chips": 0 }), "describe_image opened with a file already in its field");
    let taken = driver
        .execute(&format!("{DRAG} const hint = document.querySelector('.file-field[data-file-field=\"image\"] .file-field-hint'); \
             window.__drag.fire(hint, 'dragenter'); window.__drag.fire(hint, 'dragover'); const took = window.__drag.fire(hint, 'drop'); window.__drag.fire(window.__drag.row, 'dragend'); return took;"), vec![])
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(taken, json!(true), "the field did not take the row's drop");

    assert_eq!(chip(&driver, "row_chip", "image").await[2], json!(chart_id));
    // Dropped on a tool itself: the tool opens with the file in its (first) file field.
    wait_for(&driver, "button.open-files").await.click().await.unwrap();
    until(&driver, "list_layout", r#"const b = [...document.querySelectorAll('.browser-layout button')].find(b => b.textContent.trim() === 'List'); if (b) b.click(); return !!document.querySelector('.artifact-browser tr[data-artifact][draggable=true]');"#).await;
    let dropped_on_tool = driver
        .execute(
            &format!(
                "{DRAG} window.__drag.data = new DataTransfer(); \
                 const row = document.querySelector('.artifact-browser tr[data-artifact=\"' + arguments[0] + '\"]'); window.__drag.fire(row, 'dragstart'); \
                 const tool = document.querySelector('[data-server=\"demo\"] button[data-tool=\"compare_files\"]'); \
                 window.__drag.fire(tool, 'dragenter'); window.__drag.fire(tool, 'dragover'); const took = window.__drag.fire(tool, 'drop'); window.__drag.fire(row, 'dragend'); return took;"
            ),
            vec![json!(chart_id)],
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(dropped_on_tool, json!(true), "compare_files in the sidebar did not take the drop");
    assert_eq!(chip(&driver, "tool_drop_chip", "files").await[2], json!(chart_id));
    let browser_open = driver.execute("return !!document.querySelector('.artifact-browser');", vec![]).await.unwrap().json().clone();
    assert_eq!(browser_open, json!(false));

    // 3. A file from the desktop, onto summarize_csv's field.
    let local = data_dir.parent().unwrap().join("q3 numbers.csv");
    std::fs::write(&local, "name,total\nacme,12\nglobex,30\n").unwrap();
    open_tool(&driver, "summarize_csv").await;
    wait_for(&driver, r#".file-field[data-file-field="table"]"#).await;
    // The field listens once it is shown (the webview module loads on first use).
    let point = until(
        &driver,
        "drop_listener",
        &format!(
            "{TAURI_EMIT} const f = document.querySelector('.file-field[data-file-field=\"table\"]'); const r = f.getBoundingClientRect(); const ratio = window.devicePixelRatio || 1; \
             const position = {{ x: (r.left + r.width / 2) * ratio, y: (r.top + r.height / 2) * ratio }}; \
             return emit('tauri://drag-enter', {{ paths: [{path}], position }}) > 0 && position;",
            path = json!(local.display().to_string())
        ),
    )
    .await;
    let over = driver
        .execute(&format!("{TAURI_EMIT} emit('tauri://drag-over', {{ position: arguments[0] }}); return true;"), vec![point.clone()])
        .await
        .unwrap();
    assert_eq!(over.json(), &json!(true));
    until(&driver, "desktop_hover", r#"return document.querySelector('.file-field[data-file-field="table"]').hasAttribute('data-drop-hover');"#).await;
    screenshot(&driver, "file_field_desktop_over.png").await;
    let heard = driver
        .execute(&format!("{TAURI_EMIT} return emit('tauri://drag-drop', {{ paths: [arguments[0]], position: arguments[1] }});"), vec![json!(local.display().to_string()), point])
        .await
        .unwrap()
        .json()
        .clone();
    assert!(heard.as_u64().unwrap() >= 1, "no drop listener: {heard}");
    let shown = chip(&driver, "desktop_chip", "table").await;
    let local_id = shown[2].as_str().unwrap().to_owned();
    let record = stored(data_dir, &local_id);
    assert_eq!(record["name"], "q3 numbers.csv", "{record}");
    assert_eq!(record["size"], 29, "{record}");
    assert_eq!(shown, json!(["q3 numbers.csv", format!("{} · 29 B", record["mime"].as_str().unwrap()), local_id]));
    assert!(record["mime"].as_str().unwrap().starts_with("text/csv"), "{record}");
    let hovering = driver.execute("return !!document.querySelector('[data-drop-hover]');", vec![]).await.unwrap().json().clone();
    assert_eq!(hovering, json!(false), "the hover mark outlives the drop");
    screenshot(&driver, "file_field_desktop_dropped.png").await;
    let summary = call_form(&driver).await;
    assert!(summary.contains("| total | 42 |"), "{summary}");
    let detail = sent_detail(data_dir, "summarize_csv");
    assert!(detail.contains(&local_id) && detail.contains("q3 numbers.csv"), "the call did not send the dropped file {local_id}: {detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn canvas_tabs_browser_rows_and_desktop_files_dropped_on_file_fields() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    std::fs::create_dir(&data_dir).unwrap();
    std::fs::write(data_dir.join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    with_app(&binary("mcp-canvas"), &data_dir, |driver, data_dir| async move { drops(driver, &data_dir).await }).await;
}
