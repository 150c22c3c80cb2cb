//! The app's [`mcp_canvas_app::Window`] over Tauri: events to the main window, whether it is open,
//! its theme (WebKitGTK's `prefers-color-scheme` follows it, so the CSS needs no theme class) and
//! native "Save as…" dialogs (tauri-plugin-dialog, opened from Rust: the window holds no dialog
//! permission and never names a path).

use std::path::PathBuf;

use mcp_canvas_app::{AppEvent, EmitError, SaveDialog};
use mcp_canvas_config::settings::Theme;
use tauri::{AppHandle, Emitter, Manager};
use tauri_plugin_dialog::DialogExt;

/// The window everything is shown in.
pub const MAIN: &str = "main";

/// The main window of the running app.
pub struct TauriWindow(pub AppHandle);

impl mcp_canvas_app::Window for TauriWindow {
    fn emit(&self, event: AppEvent) -> Result<(), EmitError> {
        self.0.emit_to(MAIN, event.name(), &event).map_err(|e| EmitError(e.to_string()))
    }

    fn is_open(&self) -> bool {
        self.0.get_webview_window(MAIN).is_some()
    }

    fn set_theme(&self, theme: Theme) {
        let theme = match theme {
            Theme::System => None,
            Theme::Light => Some(tauri::Theme::Light),
            Theme::Dark => Some(tauri::Theme::Dark),
        };
        if let Some(window) = self.0.get_webview_window(MAIN)
            && let Err(e) = window.set_theme(theme)
        {
            eprintln!("mcp-canvas: cannot set the window theme: {e}");
        }
    }

    fn choose_save_path(&self, dialog: SaveDialog) -> Option<PathBuf> {
        let mut builder = self.0.dialog().file().set_title(dialog.title).set_file_name(dialog.file_name);
        if let Some(extension) = &dialog.extension {
            builder = builder.add_filter(extension.to_ascii_uppercase(), &[extension.as_str()]);
        }
        let chosen = builder.blocking_save_file()?;
        match chosen.into_path() {
            Ok(path) => Some(path),
            Err(e) => {
                eprintln!("mcp-canvas: the save dialog gave no file path: {e}");
                None
            }
        }
    }

    fn choose_open_paths(&self, title: String, multiple: bool) -> Vec<PathBuf> {
        let builder = self.0.dialog().file().set_title(title);
        let chosen = if multiple { builder.blocking_pick_files().unwrap_or_default() } else { builder.blocking_pick_file().into_iter().collect() };
        chosen.into_iter().filter_map(|file| file.into_path().ok()).collect()
    }
}
