//! The artifact browser's commands: every stored artifact across sessions (query, the servers and
//! tools that made them, storage used against the quota), pin/unpin, delete, "Save as…" (a
//! native dialog opened here, the copy written and verified by the store — the window never names
//! a path), open in the canvas (the tab is built here from the catalog record, the viewer chosen by
//! `mcp-canvas-canvas`), and "Open with the system application" (a private, verified copy handed
//! to the platform's opener; `mcp_canvas_host::artifact_files` refuses programs and active content).
//! Each command is declared in `build.rs` and granted in `capabilities/main.json`.

use std::path::{Path, PathBuf};

use mcp_canvas_canvas::{ArtifactTab, CanvasIntent, CanvasView};
use mcp_canvas_host::{artifact_files, Host};
use mcp_canvas_store::{ArtifactPage, ArtifactQuery, ArtifactRecord, ArtifactSource, StorageUsage};
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use crate::{commands::CanvasState, HostState};

fn host(state: &HostState) -> Result<&Host, String> {
    state.as_deref().map_err(|reason| format!("MCP Canvas could not open its data directory: {reason}"))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// One page of stored artifacts, across sessions, filtered and sorted as asked.
#[tauri::command]
pub async fn artifacts_query(state: State<'_, HostState>, query: ArtifactQuery) -> Result<ArtifactPage, String> {
    host(&state)?.store().query(&query).map_err(|e| e.to_string())
}

/// The server/tool pairs that produced stored artifacts, with counts (the browser's filters).
#[tauri::command]
pub async fn artifacts_sources(state: State<'_, HostState>) -> Result<Vec<ArtifactSource>, String> {
    host(&state)?.store().sources().map_err(|e| e.to_string())
}

/// Bytes stored (as the quota counts them) and pinned, against `[artifacts] quota_bytes`.
#[tauri::command]
pub async fn artifacts_usage(state: State<'_, HostState>) -> Result<StorageUsage, String> {
    let host = host(&state)?;
    host.store().usage(host.settings().artifacts.quota_bytes).map_err(|e| e.to_string())
}

/// One artifact's catalog record.
#[tauri::command]
pub async fn artifact_record(state: State<'_, HostState>, id: String) -> Result<ArtifactRecord, String> {
    host(&state)?.store().get(&id).map_err(|e| e.to_string())
}

/// Pins (kept through session clears, the quota and the age limit) or unpins an artifact.
#[tauri::command]
pub async fn artifact_set_pinned(state: State<'_, HostState>, id: String, pinned: bool) -> Result<ArtifactRecord, String> {
    host(&state)?.store().set_pinned(&id, pinned).map_err(|e| e.to_string())
}

/// Deletes an artifact (its blob goes when nothing else shares it); tabs showing it close.
/// Returns the new canvas.
#[tauri::command]
pub async fn artifact_remove(state: State<'_, HostState>, canvas: State<'_, CanvasState>, id: String) -> Result<CanvasView, String> {
    host(&state)?.store().remove(&id).map_err(|e| e.to_string())?;
    let mut canvas = canvas.lock();
    canvas.close_artifact(&id);
    Ok(canvas.view())
}

/// Opens a stored artifact in the focused pane (or shows its tab); returns the new canvas.
#[tauri::command]
pub async fn artifact_open(state: State<'_, HostState>, canvas: State<'_, CanvasState>, id: String) -> Result<CanvasView, String> {
    let store = host(&state)?.store();
    let record = store.get(&id).map_err(|e| e.to_string())?;
    let _ = store.touch(&id, now_ms());
    let mut canvas = canvas.lock();
    canvas.apply_intent(CanvasIntent::OpenArtifact { artifact: ArtifactTab::for_stored(&record.id, &record.name, &record.mime) }).map_err(|e| e.to_string())?;
    Ok(canvas.view())
}

/// "Save as…": asks where with the platform's save dialog, then copies the artifact there
/// (through a temp file beside it, verified against its sha256, renamed). Returns the path, or
/// `None` when the user cancelled.
#[tauri::command]
pub async fn artifact_save_as(app: AppHandle, state: State<'_, HostState>, id: String) -> Result<Option<String>, String> {
    let store = host(&state)?.store().clone();
    let record = store.get(&id).map_err(|e| e.to_string())?;
    let mut dialog = app.dialog().file().set_title(format!("Save {}", record.name)).set_file_name(artifact_files::safe_file_name(&record.name, &record.id));
    if let Some(extension) = Path::new(&record.name).extension().and_then(|e| e.to_str()) {
        dialog = dialog.add_filter(extension.to_ascii_uppercase(), &[extension]);
    }
    // Waits for the user: this runs on the async runtime, never on the main thread.
    let Some(chosen) = dialog.blocking_save_file() else { return Ok(None) };
    let path: PathBuf = chosen.into_path().map_err(|e| format!("the save dialog gave no file path: {e}"))?;
    let destination = path.clone();
    tauri::async_runtime::spawn_blocking(move || store.export(&id, &destination).and_then(|_| store.touch(&id, now_ms())))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    Ok(Some(path.display().to_string()))
}

/// "Open with the system application": a private copy in the data dir (`opened/<id>/<name>`),
/// handed to the platform's opener. Programs and active content (executables, scripts, HTML,
/// SVG…) are refused with the reason.
#[tauri::command]
pub async fn artifact_open_external(state: State<'_, HostState>, id: String) -> Result<String, String> {
    let host = host(&state)?;
    let (store, data_dir) = (host.store().clone(), host.data_dir().to_owned());
    let path = tauri::async_runtime::spawn_blocking(move || artifact_files::copy_for_opening(&store, &data_dir, &id)).await.map_err(|e| e.to_string())??;
    open_with_system(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("no program to open files with was found ({OPENER} is not installed); the copy is at {}", path.display()),
        _ => format!("could not open {}: {e}", path.display()),
    })?;
    Ok(path.display().to_string())
}

#[cfg(target_os = "macos")]
const OPENER: &str = "open";
#[cfg(target_os = "windows")]
const OPENER: &str = "rundll32";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const OPENER: &str = "xdg-open";

/// Hands a file to the platform's opener (no shell; the path is one argument).
fn open_with_system(path: &Path) -> std::io::Result<()> {
    use std::process::{Command, Stdio};
    #[cfg(target_os = "macos")]
    let mut command = Command::new(OPENER);
    #[cfg(target_os = "windows")]
    let mut command = {
        let mut c = Command::new(OPENER);
        c.arg("url.dll,FileProtocolHandler");
        c
    };
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    let mut command = Command::new(OPENER);
    let mut child = command.arg(path).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    // Reap it without blocking (some openers wait for the application).
    std::thread::spawn(move || child.wait());
    Ok(())
}
