//! The canvas layout between runs: `canvas.json` in the data dir, written within seconds of a
//! change (so a crash or a kill loses little) and when the app closes, read at start (tabs of artifacts deleted since are left out; see
//! `mcp_canvas_canvas::SavedLayout`). A missing or unreadable file gives an empty canvas.

use std::path::{Path, PathBuf};

use mcp_canvas_canvas::{Canvas, SavedLayout};
use mcp_canvas_host::Host;

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("canvas.json")
}

/// The canvas as it was left, or an empty one.
pub fn load(host: Option<&Host>) -> Canvas {
    let Some(host) = host else { return Canvas::new() };
    let saved: SavedLayout = match std::fs::read(path(host.data_dir())) {
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(saved) => saved,
            Err(e) => {
                eprintln!("mcp-canvas: the saved canvas layout could not be read ({e}); starting with an empty canvas");
                return Canvas::new();
            }
        },
        Err(_) => return Canvas::new(),
    };
    Canvas::restore_layout(&saved, |id| host.store().get(id).is_ok())
}

/// Writes the layout (atomically: a temp file renamed over the old one).
pub fn save(host: &Host, layout: &SavedLayout) {
    let target = path(host.data_dir());
    let temp = target.with_extension("json.tmp");
    let text = serde_json::to_vec_pretty(layout).expect("layouts serialize");
    if let Err(e) = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, &target)) {
        eprintln!("mcp-canvas: cannot save the canvas layout to {}: {e}", target.display());
    }
}

/// Saves `app`'s layout every few seconds when it changed, for as long as the app runs.
pub fn keep_saved(app: std::sync::Arc<crate::App>) {
    std::thread::spawn(move || {
        let mut last = None;
        loop {
            std::thread::sleep(std::time::Duration::from_secs(2));
            let Ok(host) = app.host() else { return };
            // Only the layout is taken under the lock; the file is written outside it.
            let layout = app.canvas().layout();
            if last.as_ref() != Some(&layout) {
                save(host, &layout);
                last = Some(layout);
            }
        }
    });
}
