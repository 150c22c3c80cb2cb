//! The Settings panel's commands: the settings in effect (`settings.toml`, the file the CLI also
//! reads) and changing one key; the window's theme follows `appearance.theme`.

use mcp_canvas_host::{
    settings::{Settings, Theme},
    settings_edit::SettingsView,
};
use tauri::{AppHandle, Manager, State};

use crate::HostState;

/// The settings in effect.
#[tauri::command]
pub fn settings_view(host: State<'_, HostState>) -> Result<SettingsView, String> {
    let host = host.inner().as_ref().map_err(Clone::clone)?;
    Ok(SettingsView::new(&host.settings(), host.data_dir()))
}

/// Changes `key` (`section.name`) to `value`, or back to its default when `value` is null, and
/// applies it (the theme at once; the rest from the next use).
#[tauri::command]
pub fn settings_set(app: AppHandle, host: State<'_, HostState>, key: String, value: Option<String>) -> Result<SettingsView, String> {
    let host = host.inner().as_ref().map_err(Clone::clone)?;
    let settings = host.set_setting(&key, value.as_deref()).map_err(|e| e.to_string())?;
    apply_theme(&app, &settings);
    Ok(SettingsView::new(&settings, host.data_dir()))
}

/// Gives the main window the theme the settings ask for (the webview's `prefers-color-scheme`
/// follows it, so the UI's dark styles apply without a theme class of its own).
pub fn apply_theme(app: &AppHandle, settings: &Settings) {
    let theme = match settings.appearance.theme {
        Theme::System => None,
        Theme::Light => Some(tauri::Theme::Light),
        Theme::Dark => Some(tauri::Theme::Dark),
    };
    if let Some(window) = app.get_webview_window("main") {
        if let Err(e) = window.set_theme(theme) {
            eprintln!("mcp-canvas: cannot set the window theme: {e}");
        }
    }
}
