//! The commands the UI may invoke. Each is declared in `build.rs` and granted in
//! `capabilities/main.json`; bodies only translate between IPC and `Host`.

use mcp_canvas_host::{
    wire::{CallOutcome, ServerView, ToolView},
    CallOptions, Host,
};
use mcp_canvas_canvas::{Canvas, CanvasIntent, CanvasView};
use tauri::State;

use crate::HostState;

fn host(state: &HostState) -> Result<&Host, String> {
    state.as_deref().map_err(|reason| format!("MCP Canvas could not open its data directory: {reason}"))
}

#[tauri::command]
pub async fn list_servers(state: State<'_, HostState>) -> Result<Vec<ServerView>, String> {
    Ok(host(&state)?.servers())
}

#[tauri::command]
pub async fn list_tools(state: State<'_, HostState>, server: String) -> Result<Vec<ToolView>, String> {
    host(&state)?.tools(&server).await.map_err(|e| e.to_string())
}

/// `arguments` is the JSON text the user typed; it is parsed here so the error names the tool.
/// `confirmed`: the user saw the exact arguments and agreed to run a tool that may change data.
/// The outcome is applied to the canvas state (see `canvas_view`) before it is returned.
#[tauri::command]
pub async fn call_tool(
    state: State<'_, HostState>,
    canvas: State<'_, CanvasState>,
    server: String,
    tool: String,
    arguments: String,
    confirmed: bool,
) -> Result<CallOutcome, String> {
    let host = host(&state)?;
    let arguments = Host::parse_arguments(&server, &tool, &arguments).map_err(|e| e.to_string())?;
    let outcome = host.call_tool_with(&server, &tool, arguments, CallOptions { confirmed }).await.map_err(|e| e.to_string())?;
    canvas.lock().apply_outcome(&outcome.call_id, &outcome.outcome);
    Ok(outcome)
}

/// The canvas (panes, tabs) as the UI draws it.
#[tauri::command]
pub fn canvas_view(canvas: State<'_, CanvasState>) -> CanvasView {
    canvas.lock().view()
}

/// A user intent on the canvas (activate, close, move, split, pin...); returns the new view.
#[tauri::command]
pub fn canvas_intent(canvas: State<'_, CanvasState>, intent: CanvasIntent) -> Result<CanvasView, String> {
    let mut canvas = canvas.lock();
    canvas.apply_intent(intent).map_err(|e| e.to_string())?;
    Ok(canvas.view())
}

/// The canvas state of the main window; every rule lives in `mcp-canvas-canvas`.
#[derive(Default)]
pub struct CanvasState(std::sync::Mutex<Canvas>);

impl CanvasState {
    fn lock(&self) -> std::sync::MutexGuard<'_, Canvas> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
