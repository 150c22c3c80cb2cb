//! A file going from one tool's result into the next tool in the real window (Xvfb, WebDriver):
//! the demo's chart, then `describe_image`, whose `image` argument (SEP-2356 `x-mcp-file`) is a
//! file field; the chart is chosen from the stored files, its chip shows name, type and size, and
//! the call describes the picture. A CSV table chosen for the image field is refused in the
//! window before anything is sent.

use mcp_canvas_e2e::{
    binary,
    webdriver::{arguments_mode, call_with, screenshot, until, wait_for, with_app},
};
use serde_json::json;
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
