//! The window's WebKit, set for a tool window rather than a browser (Linux, WebKitGTK): the
//! "document viewer" cache model (WebKit keeps no back/forward pages and small memory caches —
//! the canvas is one page that never navigates away), no page cache, and no GL compositing
//! (unless `MCP_CANVAS_GPU=1`). Measured by `scripts/bench-startup.sh` (idle memory of every
//! process): the web process 270 → 190 MB, all processes 516 → 432 MB.

/// Applies the settings to the main window's webview.
pub fn tune(app: &tauri::App) {
    #[cfg(target_os = "linux")]
    if let Some(window) = tauri::Manager::get_webview_window(app, "main") {
        let _ = window.with_webview(|webview| {
            use webkit2gtk::{SettingsExt as _, WebContextExt as _, WebViewExt};
            let view = webview.inner();
            if let Some(context) = view.context() {
                context.set_cache_model(webkit2gtk::CacheModel::DocumentViewer);
            }
            if let Some(settings) = WebViewExt::settings(&view) {
                settings.set_enable_page_cache(false);
                // Compositing through GL costs ~80 MB in the web process (all of it under Xvfb,
                // where GL is software), and the canvas draws documents and images, not 3D.
                // `MCP_CANVAS_GPU=1` gives it back to WebKit's default.
                if std::env::var_os("MCP_CANVAS_GPU").is_none() {
                    settings.set_hardware_acceleration_policy(webkit2gtk::HardwareAccelerationPolicy::Never);
                }
            }
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = app;
}
