//! The window's WebKit, set for a tool window rather than a browser (Linux, WebKitGTK): the
//! "document viewer" cache model (WebKit keeps no back/forward pages and small memory caches —
//! the canvas is one page that never navigates away) and no page cache. Measured by
//! `scripts/bench-startup.sh` (idle memory of every process).

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
                // Not turned off: GL compositing (~80 MB of the web process under Xvfb). Without
                // it, WebDriver could no longer take a screenshot of a window showing an MCP App
                // (tests/gui_apps.rs); until that is understood the default stays.
            }
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = app;
}
