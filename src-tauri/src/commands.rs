//! The commands the UI may invoke. Each is declared in `build.rs` and granted in
//! `capabilities/main.json`; bodies only translate between IPC and `Host`.

use mcp_canvas_host::{
    wire::{CallOutcome, ServerView, ToolView},
    CallOptions, Host,
};
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
#[tauri::command]
pub async fn call_tool(state: State<'_, HostState>, server: String, tool: String, arguments: String, confirmed: bool) -> Result<CallOutcome, String> {
    let host = host(&state)?;
    let arguments = Host::parse_arguments(&server, &tool, &arguments).map_err(|e| e.to_string())?;
    host.call_tool_with(&server, &tool, arguments, CallOptions { confirmed }).await.map_err(|e| e.to_string())
}
