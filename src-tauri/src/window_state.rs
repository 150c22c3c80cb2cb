//! The window's size and place, saved shortly after the user moves or resizes it (not only on a
//! clean exit, so a crash or a kill loses nothing) and restored at start by
//! `tauri-plugin-window-state`.

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::Duration,
};

use tauri::{AppHandle, WindowEvent};
use tauri_plugin_window_state::{AppHandleExt, StateFlags};

/// How long the window must stay still before its state is written.
const SETTLE: Duration = Duration::from_millis(400);

/// Saves after moves and resizes, once they settle.
#[derive(Default, Clone)]
pub struct SaveOnChange {
    generation: Arc<AtomicU64>,
}

impl SaveOnChange {
    /// Call from the window event handler.
    pub fn on_event(&self, app: &AppHandle, event: &WindowEvent) {
        if !matches!(event, WindowEvent::Resized(_) | WindowEvent::Moved(_)) {
            return;
        }
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let counter = self.generation.clone();
        let app = app.clone();
        std::thread::spawn(move || {
            std::thread::sleep(SETTLE);
            if counter.load(Ordering::SeqCst) == generation {
                if let Err(e) = app.save_window_state(StateFlags::all()) {
                    eprintln!("mcp-canvas: cannot save the window's size and place: {e}");
                }
            }
        });
    }
}
