//! Serves the app link (`mcp_canvas_host::app_link`) for the app's data dir: the proxy on the same
//! data dir asks the user and shows its calls through this window (`App`'s `AppRequests`).

use std::sync::Arc;

use mcp_canvas_app::App;

/// Serves until the returned task is aborted. `None` (with the reason printed) when it cannot,
/// e.g. another window already serves this data dir: the app works on without it.
#[cfg(unix)]
pub fn serve(app: &Arc<App>) -> Option<tokio::task::JoinHandle<()>> {
    let data_dir = app.shared_host()?.data_dir().to_owned();
    let requests: Arc<dyn mcp_canvas_host::app_link::AppRequests> = app.clone();
    // `serve` spawns its accept loop on the runtime it is called in: Tauri's.
    let served = tauri::async_runtime::block_on(async move { mcp_canvas_host::app_link::serve(&data_dir, requests).await });
    match served {
        Ok(task) => Some(task),
        Err(reason) => {
            eprintln!("mcp-canvas: the proxy cannot reach this window: {reason}");
            None
        }
    }
}

/// No app link off Unix (the proxy then asks nobody and shows nothing).
#[cfg(not(unix))]
pub fn serve(_app: &Arc<App>) -> Option<tokio::task::JoinHandle<()>> {
    None
}
