//! The window comes back at the size the user left it (tauri-plugin-window-state; saved shortly
//! after a resize, so a crash or a kill loses nothing), in a real window under Xvfb. Ignored by
//! plain `cargo test`; `scripts/test.sh` runs it with the GUI test.

use std::{path::PathBuf, time::{Duration, Instant}};

use mcp_canvas_e2e::{
    binary,
    webdriver::{wait_for, with_app, WAIT},
};

/// Where the plugin keeps the state (the app's config dir, from `identifier`).
fn state_file() -> PathBuf {
    PathBuf::from(std::env::var("HOME").unwrap()).join(".config/dev.mcpcanvas.app/.window-state.json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn the_window_reopens_at_the_size_it_was_left() {
    let data_dir = tempfile::tempdir().unwrap();
    let app = binary("mcp-canvas");
    with_app(&app, data_dir.path(), |driver, _| async move {
        wait_for(&driver, ".app").await;
        driver.set_window_rect(40, 30, 1111, 777).await.unwrap();
        // Saved once the window has been still for a moment; the session then ends the app
        // without a clean exit, like a crash would.
        let deadline = Instant::now() + WAIT;
        while !std::fs::read_to_string(state_file()).unwrap_or_default().contains("\"width\": 1111") {
            assert!(Instant::now() < deadline, "the window state was saved: {:?}", std::fs::read_to_string(state_file()));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    with_app(&app, data_dir.path(), |driver, _| async move {
        wait_for(&driver, ".app").await;
        let rect = driver.get_window_rect().await.unwrap();
        assert_eq!((rect.width, rect.height), (1111, 777), "restored at the size it was left");
        // Leave the default size for whoever runs the app next on this machine.
        driver.set_window_rect(0, 0, 1280, 800).await.unwrap();
        let deadline = Instant::now() + WAIT;
        while !std::fs::read_to_string(state_file()).unwrap_or_default().contains("\"width\": 1280") && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
}
