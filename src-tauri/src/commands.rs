//! The commands the UI may invoke. Each is declared in `build.rs` and granted in
//! `capabilities/main.json`; bodies only translate between IPC and `Host`.

use mcp_canvas_host::{
    allowlist::{AllowlistView, DashboardAccess},
    wire::{CallOutcome, CallProgressEvent, ElicitationAnswer, ServerView, ToolView},
    CallControl, CallOptions, CallProgress, CancellationToken, Host, ProgressFn,
};
use mcp_canvas_canvas::{Canvas, CanvasIntent, CanvasView, TabId};
use tauri::{AppHandle, Emitter, State};

use crate::{confirmation::DialogConfirmation, dashboards::Dashboards, elicitation::DialogElicitation, HostState};

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
/// `call_token`: chosen by the window for this call; while it runs, the server's progress reports
/// are emitted as `call-progress` events (a `CallProgressEvent`) carrying it, and `cancel_call`
/// with it stops the call (which then fails with the host's "cancelled" error).
/// The outcome is applied to the canvas state (see `canvas_view`) before it is returned.
#[tauri::command]
#[allow(clippy::too_many_arguments)]
pub async fn call_tool(
    app: AppHandle,
    state: State<'_, HostState>,
    canvas: State<'_, CanvasState>,
    dashboards: State<'_, Dashboards>,
    calls: State<'_, RunningCalls>,
    server: String,
    tool: String,
    arguments: String,
    confirmed: bool,
    call_token: String,
) -> Result<CallOutcome, String> {
    let host = host(&state)?;
    let arguments = Host::parse_arguments(&server, &tool, &arguments).map_err(|e| e.to_string())?;
    let running = calls.start(&call_token)?;
    let token = call_token.clone();
    let progress: ProgressFn = std::sync::Arc::new(move |p: &CallProgress| {
        let event = CallProgressEvent { call_token: token.clone(), progress: p.progress, total: p.total, message: p.message.clone() };
        let _ = app.emit_to(PROGRESS_WINDOW, PROGRESS_EVENT, event);
    });
    let control = CallControl { cancel: Some(running.cancel.clone()), progress: Some(progress), ..CallControl::default() };
    let outcome = host.call_tool_controlled(&server, &tool, arguments, CallOptions { confirmed }, control).await;
    drop(running);
    let outcome = outcome.map_err(|e| e.to_string())?;
    apply_to_canvas(host, &canvas, &dashboards, &outcome);
    Ok(outcome)
}

/// Applies a call's outcome to the canvas state as its display intent says (the window's own
/// calls, and calls the proxy made, see `app_link.rs`); dashboards it opened, updated or replaced
/// are audited.
pub(crate) fn apply_to_canvas(host: &Host, canvas: &CanvasState, dashboards: &Dashboards, outcome: &CallOutcome) {
    let mut canvas = canvas.lock();
    let cause = format!("replaced by call {} ({}/{})", outcome.call_id, outcome.server, outcome.tool);
    let applied = dashboards.change(Some(host), &mut canvas, &cause, |c| c.apply_outcome(&outcome.call_id, &outcome.outcome));
    dashboards.opened_by_call(host, &canvas, &outcome.server, &outcome.call_id, &applied);
}

/// The canvas (panes, tabs) as the UI draws it.
#[tauri::command]
pub fn canvas_view(canvas: State<'_, CanvasState>) -> CanvasView {
    canvas.lock().view()
}

/// A user intent on the canvas (activate, close, move, split, pin...); returns the new view.
#[tauri::command]
pub fn canvas_intent(
    state: State<'_, HostState>,
    canvas: State<'_, CanvasState>,
    dashboards: State<'_, Dashboards>,
    intent: CanvasIntent,
) -> Result<CanvasView, String> {
    let mut canvas = canvas.lock();
    let cause = format!("closed by the user ({})", intent_name(&intent));
    dashboards.change(state.as_deref().ok(), &mut canvas, &cause, |c| c.apply_intent(intent)).map_err(|e| e.to_string())?;
    Ok(canvas.view())
}

fn intent_name(intent: &CanvasIntent) -> String {
    serde_json::to_value(intent).ok().and_then(|v| v.get("intent").and_then(|i| i.as_str()).map(str::to_owned)).unwrap_or_else(|| "intent".into())
}

/// Whether the dashboard in `tab` may load (its origin is allowlisted), and its iframe URL then.
#[tauri::command]
pub fn dashboard_access(canvas: State<'_, CanvasState>, dashboards: State<'_, Dashboards>, tab: TabId) -> Result<DashboardAccess, String> {
    dashboards.access(&canvas.lock(), tab)
}

/// The dashboard origin allowlist (re-read from settings.toml).
#[tauri::command]
pub fn allowlist_view(dashboards: State<'_, Dashboards>) -> Result<AllowlistView, String> {
    dashboards.view()
}

/// Allows an origin; the user confirmed. `tab`: the dashboard that asked, for the audit log.
#[tauri::command]
pub fn allowlist_add(
    state: State<'_, HostState>,
    canvas: State<'_, CanvasState>,
    dashboards: State<'_, Dashboards>,
    origin: String,
    tab: Option<TabId>,
) -> Result<AllowlistView, String> {
    dashboards.allow(host(&state)?, &canvas.lock(), &origin, tab)
}

/// Stops allowing an origin.
#[tauri::command]
pub fn allowlist_remove(state: State<'_, HostState>, dashboards: State<'_, Dashboards>, origin: String) -> Result<AllowlistView, String> {
    dashboards.disallow(host(&state)?, &origin)
}

/// The user's answer to the elicitation dialog `id` (an `elicitation-request` event). The host
/// validates an accepted form against the server's schema; a URL is opened only on accept.
#[tauri::command]
pub fn answer_elicitation(elicitation: State<'_, std::sync::Arc<DialogElicitation>>, id: String, answer: ElicitationAnswer) -> Result<(), String> {
    elicitation.answer(&id, answer)
}

/// The user's decision on the confirmation dialog `id` (a `confirm-request` event: another
/// process, the proxy, wants to run a tool that may change or delete data).
#[tauri::command]
pub fn answer_confirmation(confirmation: State<'_, std::sync::Arc<DialogConfirmation>>, id: String, confirmed: bool) -> Result<(), String> {
    confirmation.answer(&id, confirmed)
}

/// Cancels the running call the window started with `call_token` (see `call_tool`): the server is
/// told to stop and the call fails with the host's "cancelled" error. A call that already ended is
/// an error.
#[tauri::command]
pub fn cancel_call(calls: State<'_, RunningCalls>, call_token: String) -> Result<(), String> {
    calls.cancel(&call_token)
}

/// The event carrying a `CallProgressEvent` to the main window.
pub const PROGRESS_EVENT: &str = "call-progress";
const PROGRESS_WINDOW: &str = "main";

/// The calls running now, by the window's token, with what cancels each.
#[derive(Default)]
pub struct RunningCalls(std::sync::Mutex<std::collections::HashMap<String, CancellationToken>>);

/// One running call; removed from [`RunningCalls`] when dropped, however the call ends.
pub struct RunningCall<'a> {
    calls: &'a RunningCalls,
    token: String,
    cancel: CancellationToken,
}

impl Drop for RunningCall<'_> {
    fn drop(&mut self) {
        self.calls.lock().remove(&self.token);
    }
}

impl RunningCalls {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, CancellationToken>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn start(&self, token: &str) -> Result<RunningCall<'_>, String> {
        if token.is_empty() {
            return Err("a call needs a non-empty call token".to_owned());
        }
        let cancel = CancellationToken::new();
        let mut running = self.lock();
        if running.contains_key(token) {
            return Err(format!("a call with the token {token} is already running"));
        }
        running.insert(token.to_owned(), cancel.clone());
        Ok(RunningCall { calls: self, token: token.to_owned(), cancel })
    }

    fn cancel(&self, token: &str) -> Result<(), String> {
        let cancel = self.lock().get(token).cloned().ok_or_else(|| format!("no call with the token {token} is running (it ended already)"))?;
        cancel.cancel();
        Ok(())
    }
}

/// The canvas state of the main window; every rule lives in `mcp-canvas-canvas`.
#[derive(Default)]
pub struct CanvasState(std::sync::Mutex<Canvas>);

impl CanvasState {
    /// State starting from `canvas`.
    pub(crate) fn new(canvas: Canvas) -> Self {
        Self(std::sync::Mutex::new(canvas))
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Canvas> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
