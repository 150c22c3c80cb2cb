//! The app's side of the app link (`mcp_canvas_host::app_link`): other MCP Canvas processes on
//! the same data dir — the proxy — ask the user through this window and show their calls in its
//! canvas.
//!
//! Forms and open-URL questions go to the same dialog as the window's own calls
//! (`DialogElicitation`); confirmations of tools that may change data to the confirmation dialog
//! (`DialogConfirmation`); a finished call is applied to the canvas state exactly like one made
//! in the window, then announced with a `proxied-call` event (its `CallOutcome`) so the window
//! draws the new canvas.

use std::sync::{Arc, OnceLock};

use mcp_canvas_host::{
    app_link::AppRequests,
    elicitation::{BoxFuture, ElicitationHandler, FormAnswer, FormRequest, UrlAnswer, UrlRequest},
    wire::CallOutcome,
};
use serde_json::{Map, Value};
use tauri::{AppHandle, Emitter, Manager};

use crate::{
    commands::{self, CanvasState},
    confirmation::DialogConfirmation,
    dashboards::Dashboards,
    elicitation::DialogElicitation,
    HostState,
};

/// The event carrying a proxied call's `CallOutcome` to the main window, after it was applied to
/// the canvas state.
pub const PROXIED_CALL_EVENT: &str = "proxied-call";
const WINDOW: &str = "main";

/// Answers the app link's requests with this window.
pub struct WindowRequests {
    app: OnceLock<AppHandle>,
    elicitation: Arc<DialogElicitation>,
    confirmation: Arc<DialogConfirmation>,
}

impl WindowRequests {
    /// Asks through these dialogs; nothing is shown until [`WindowRequests::attach`].
    pub fn new(elicitation: Arc<DialogElicitation>, confirmation: Arc<DialogConfirmation>) -> Self {
        Self { app: OnceLock::new(), elicitation, confirmation }
    }

    /// Connects to the window once the app is built.
    pub fn attach(&self, app: AppHandle) {
        let _ = self.app.set(app);
    }
}

impl AppRequests for WindowRequests {
    fn confirm<'a>(&'a self, server: &'a str, tool: &'a str, arguments: &'a Map<String, Value>, on_behalf_of: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(self.confirmation.confirm(server, tool, arguments, on_behalf_of))
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        self.elicitation.form(request)
    }

    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        self.elicitation.url(request)
    }

    fn show(&self, call: CallOutcome) {
        let Some(app) = self.app.get() else { return };
        let Ok(host) = app.state::<HostState>().inner().clone() else { return };
        commands::apply_to_canvas(&host, &app.state::<CanvasState>(), &app.state::<Dashboards>(), &call);
        if let Err(e) = app.emit_to(WINDOW, PROXIED_CALL_EVENT, &call) {
            eprintln!("mcp-canvas: the proxied call {} could not be shown in the window: {e}", call.call_id);
        }
    }
}

/// Serves the app link for `host`'s data dir until the returned task is aborted. `None` (with
/// the reason printed) when it cannot, e.g. another window already serves this data dir: the
/// app works on without it.
#[cfg(unix)]
pub fn serve(host: &mcp_canvas_host::Host, requests: Arc<WindowRequests>) -> Option<tokio::task::JoinHandle<()>> {
    let data_dir = host.data_dir().to_owned();
    // `serve` spawns its accept loop on the runtime it is called in: Tauri's.
    let served = tauri::async_runtime::block_on(async move { mcp_canvas_host::app_link::serve(&data_dir, requests).await });
    match served {
        Ok(task) => Some(task),
        Err(reason) => {
            eprintln!("mcp-canvas: the proxy cannot reach this window: {reason}");
            None
        }
    }
}

/// No app link off Unix (the proxy then asks nobody and shows nothing).
#[cfg(not(unix))]
pub fn serve(_host: &mcp_canvas_host::Host, _requests: Arc<WindowRequests>) -> Option<tokio::task::JoinHandle<()>> {
    None
}
