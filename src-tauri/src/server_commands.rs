//! The servers sidebar: each server's status, restarting one, the end of its log, and its
//! `list_changed` notifications passed on to the window (`server-changed`) so the window re-lists
//! its tools. Like `commands.rs`, each command is declared in `build.rs` and granted in
//! `capabilities/main.json`; bodies only translate between IPC and `Host`.

use mcp_canvas_host::{health::ServerStatus, wire::ServerChangedEvent, Host};
use tauri::{AppHandle, Emitter, State};
use tokio::sync::broadcast::error::RecvError;

use crate::HostState;

/// The event carrying a `ServerChangedEvent` to the main window.
pub const CHANGED_EVENT: &str = "server-changed";
const WINDOW: &str = "main";
/// How much of a server's log the window shows.
pub const LOG_TAIL_BYTES: u64 = 64 * 1024;

fn host(state: &HostState) -> Result<&Host, String> {
    state.as_deref().map_err(|reason| format!("MCP Canvas could not open its data directory: {reason}"))
}

/// Refuses a name that is not a configured server (the window only ever sends configured ones).
fn configured(host: &Host, server: &str) -> Result<(), String> {
    if host.servers().iter().any(|s| s.name == server) {
        Ok(())
    } else {
        Err(format!("there is no server named `{server}` in servers.json"))
    }
}

/// Where each configured server stands: running, exited, failed or not started, with its
/// failures in a row, the last error and the wait before its next start.
#[tauri::command]
pub async fn server_statuses(state: State<'_, HostState>) -> Result<Vec<ServerStatus>, String> {
    Ok(host(&state)?.server_statuses().await)
}

/// Stops `server` (when it runs) and starts it again, forgetting earlier failures. Resolves once
/// it runs again; an error says why it could not start.
#[tauri::command]
pub async fn restart_server(state: State<'_, HostState>, server: String) -> Result<(), String> {
    let host = host(&state)?;
    configured(host, &server)?;
    host.restart(&server).await.map_err(|e| e.to_string())
}

/// Stops `server` now; its next use starts it again.
#[tauri::command]
pub async fn stop_server(state: State<'_, HostState>, server: String) -> Result<(), String> {
    let host = host(&state)?;
    configured(host, &server)?;
    host.stop(&server).await;
    Ok(())
}

/// Sets `server`'s own call timeout in servers.json (`null`: back to the default); calls sent from
/// now on use it.
#[tauri::command]
pub fn set_server_timeout(state: State<'_, HostState>, server: String, seconds: Option<f64>) -> Result<(), String> {
    let host = host(&state)?;
    configured(host, &server)?;
    host.set_server_timeout(&server, seconds).map_err(|e| e.to_string())
}

/// The end of `server`'s log (its stderr and MCP log messages), at most [`LOG_TAIL_BYTES`],
/// starting at a line boundary; empty when it wrote nothing yet.
#[tauri::command]
pub async fn server_log(state: State<'_, HostState>, server: String) -> Result<String, String> {
    let host = host(&state)?;
    configured(host, &server)?;
    host.server_log_tail(&server, LOG_TAIL_BYTES).map_err(|e| e.to_string())
}

/// Passes every `list_changed` of every server on to the window as a `server-changed` event,
/// until the host is dropped. Missed announcements (the window was too slow) become a tools
/// change for every server, so nothing stays stale.
pub fn forward_changes(host: &Host, app: AppHandle) {
    let mut changes = host.changes();
    let servers: Vec<String> = host.servers().into_iter().map(|s| s.name).collect();
    tauri::async_runtime::spawn(async move {
        loop {
            let events: Vec<ServerChangedEvent> = match changes.recv().await {
                Ok(change) => vec![change.into()],
                Err(RecvError::Lagged(_)) => {
                    servers.iter().map(|server| ServerChangedEvent { server: server.clone(), list: mcp_canvas_host::ChangedList::Tools }).collect()
                }
                Err(RecvError::Closed) => return,
            };
            for event in events {
                if let Err(e) = app.emit_to(WINDOW, CHANGED_EVENT, &event) {
                    eprintln!("mcp-canvas: could not tell the window that {}'s list changed: {e}", event.server);
                }
            }
        }
    });
}
