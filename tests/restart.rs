//! What comes back when the app starts again, in a real window under Xvfb: the window's size
//! (tauri-plugin-window-state) and the canvas's tabs (`canvas.json`). Both are saved shortly after
//! they change, so the app is ended here without a clean exit, as a crash would end it. Ignored
//! by plain `cargo test`; `scripts/test.sh` runs it with the GUI test.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use mcp_canvas_e2e::{
    binary,
    webdriver::{wait_for, wait_for_script, with_app, WAIT},
};
use serde_json::json;
use thirtyfour::prelude::*;

/// Where the plugin keeps the window state (the app's config dir, from `identifier`).
fn window_state_file() -> PathBuf {
    PathBuf::from(std::env::var("HOME").unwrap()).join(".config/dev.mcpcanvas.app/.window-state.json")
}

async fn wait_for_file(path: &Path, text: &str) {
    let deadline = Instant::now() + WAIT;
    while !std::fs::read_to_string(path).unwrap_or_default().contains(text) {
        assert!(Instant::now() < deadline, "{} never held {text:?}: {:?}", path.display(), std::fs::read_to_string(path));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn call_render_chart(driver: &WebDriver) {
    wait_for(driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await.click().await.unwrap();
    wait_for(driver, r#"button.arguments-mode[data-mode="json"]"#).await.click().await.unwrap();
    let textarea = wait_for(driver, "textarea.arguments").await;
    textarea.clear().await.unwrap();
    textarea.send_keys(r#"{"values": [3, 1, 4, 1, 5], "title": "Kept"}"#).await.unwrap();
    wait_for(driver, "button.call-button").await.click().await.unwrap();
}

const CHART_TAB: &str = "return [...document.querySelectorAll('.tab-label')].some(e => e.textContent === 'render_chart.png') ? 'yes' : null;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn the_window_and_its_tabs_come_back_after_a_restart() {
    let data_dir = tempfile::tempdir().unwrap();
    let app = binary("mcp-canvas");
    with_app(&app, data_dir.path(), |driver, data_dir| async move {
        wait_for(&driver, ".app").await;
        call_render_chart(&driver).await;
        wait_for_script(&driver, CHART_TAB, vec![]).await;
        // Resized once the window is fully up (a resize while it is still being mapped can stall
        // WebKitWebDriver under a bare X server).
        driver.set_window_rect(40, 30, 1111, 777).await.unwrap();
        wait_for_file(&window_state_file(), "\"width\": 1111").await;
        wait_for_file(&data_dir.join("canvas.json"), "render_chart.png").await;
    })
    .await;
    with_app(&app, data_dir.path(), |driver, _| async move {
        wait_for(&driver, ".app").await;
        let rect = driver.get_window_rect().await.unwrap();
        assert_eq!((rect.width, rect.height), (1111, 777), "the window reopened at the size it was left");
        wait_for_script(&driver, CHART_TAB, vec![]).await;
        // The tab shows its image again, from the store.
        let loaded = wait_for_script(&driver, "const i = document.querySelector('.image-viewer img, img.artifact-image, .canvas img'); return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth : null;", vec![]).await;
        assert_eq!(loaded, json!(480), "the chart is drawn again");
    })
    .await;
    // Leave the default size for whoever runs the app next on this machine.
    let _ = std::fs::remove_file(window_state_file());
}
