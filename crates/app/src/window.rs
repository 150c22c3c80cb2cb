//! What the app needs from its window, as a trait: the desktop shell implements it over Tauri's
//! `AppHandle`; tests implement it with a recorder. Everything the window hears is an
//! [`AppEvent`]; the list below is the only place an event name is written (the TypeScript
//! bindings are generated from it).

use std::{
    path::PathBuf,
    sync::{Arc, OnceLock},
};

use mcp_canvas_canvas::CanvasView;
use mcp_canvas_config::settings::Theme;
use mcp_canvas_wire::{CallOutcome, CallProgressEvent, ConfirmPrompt, ElicitationPrompt};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::bindings::TsType;

/// One event the window hears: its name and payload type, for the TypeScript bindings.
#[derive(Debug, Clone)]
pub struct EventDecl {
    /// The event name the window listens to (`call-progress`).
    pub name: &'static str,
    /// The Rust variant (`CallProgress`).
    pub variant: &'static str,
    /// Its doc comment, one line each.
    pub docs: &'static [&'static str],
    /// The payload's TypeScript type.
    pub payload: TsType,
}

macro_rules! app_events {
    ($( $(#[doc = $doc:literal])* $variant:ident($payload:ty) = $name:literal; )*) => {
        /// Something the main window hears. Serialized as its payload alone; [`AppEvent::name`]
        /// is the event name.
        #[derive(Debug, Clone, Serialize)]
        #[serde(untagged)]
        #[allow(clippy::large_enum_variant)] // made once, moved once, serialized
        pub enum AppEvent {
            $( $(#[doc = $doc])* $variant($payload), )*
        }

        impl AppEvent {
            /// The event name the window listens to.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => $name, )*
                }
            }
        }

        /// Every event, in declaration order (for the generated TypeScript).
        pub fn event_decls() -> Vec<EventDecl> {
            vec![$( EventDecl { name: $name, variant: stringify!($variant), docs: &[$($doc),*], payload: TsType::of::<$payload>() }, )*]
        }
    };
}

app_events! {
    /// A server's question to the user (a form, or a URL to open); answered by `answer_elicitation`.
    ElicitationRequest(ElicitationPrompt) = "elicitation-request";
    /// An elicitation question is no longer open (timed out, its call ended); payload: its id.
    ElicitationClosed(String) = "elicitation-closed";
    /// The proxy asks whether a tool that may change data may run; answered by `answer_confirmation`.
    ConfirmRequest(ConfirmPrompt) = "confirm-request";
    /// A confirmation is no longer open; payload: its id.
    ConfirmClosed(String) = "confirm-closed";
    /// A server's sampling request, to approve, edit or reject; answered by `answer_sampling`.
    SamplingRequest(SamplingPrompt) = "sampling-request";
    /// A completion to review before it is returned; answered by `answer_sampling_review`.
    SamplingReview(SamplingReviewPrompt) = "sampling-review";
    /// A sampling question is no longer open; payload: its id.
    SamplingClosed(String) = "sampling-closed";
    /// A running call's progress report (its `call_token` is the window's token for the call).
    CallProgress(CallProgressEvent) = "call-progress";
    /// A server's tools, resources or prompts changed: re-list them.
    ServerChanged(ServerChangedEvent) = "server-changed";
    /// A call the proxy made, after it was applied to the canvas (the canvas itself comes as `canvas-changed`).
    ProxiedCall(CallOutcome) = "proxied-call";
    /// The call of an MCP App that opened as it started ended: its result, or why there is none.
    AppToolResult(crate::apps::AppToolResultEvent) = "app-tool-result";
    /// A sign-in to a server waits for the browser (the authorization page it was handed).
    SignInStarted(mcp_canvas_wire::SignInStartedEvent) = "sign-in-started";
    /// A watched resource was read again, could not be, or its watch ended.
    ResourceWatch(crate::offers::ResourceWatchEvent) = "resource-watch";
    /// The canvas changed (a call's outcome, a user intent, an artifact opened or deleted): the
    /// only way canvas state reaches the window after its first `canvas_view`.
    CanvasChanged(CanvasView) = "canvas-changed";
}

/// A native "Save as…" dialog the app asks the window to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveDialog {
    /// The dialog's title.
    pub title: String,
    /// The suggested file name.
    pub file_name: String,
    /// The file's extension, offered as the filter, when it has one.
    pub extension: Option<String>,
}

/// Why an event did not reach the window (it is not attached, or the webview refused it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EmitError(pub String);

/// What the app asks of its window.
pub trait Window: Send + Sync {
    /// Sends `event` to the main window; `Err` with why it could not.
    fn emit(&self, event: AppEvent) -> Result<(), EmitError>;
    /// Whether the main window is open to ask the user something.
    fn is_open(&self) -> bool {
        true
    }
    /// Gives the window this theme (`System`: follow the desktop).
    fn set_theme(&self, _theme: Theme) {}
    /// Shows a native save dialog and waits for it (called off the main thread); `None` when the
    /// user cancelled or there is no dialog.
    fn choose_save_path(&self, _dialog: SaveDialog) -> Option<PathBuf> {
        None
    }
    /// Shows a native open dialog for one or several files and waits for it (off the main
    /// thread); empty when the user cancelled or there is no dialog.
    fn choose_open_paths(&self, _title: String, _multiple: bool) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// The window, once the shell has built it; shared by everything that talks to it.
#[derive(Clone, Default)]
pub struct WindowSlot(Arc<OnceLock<Arc<dyn Window>>>);

impl WindowSlot {
    /// Connects the window (once; later calls are ignored).
    pub fn attach(&self, window: Arc<dyn Window>) {
        let _ = self.0.set(window);
    }

    /// The window, when attached.
    pub fn get(&self) -> Option<&Arc<dyn Window>> {
        self.0.get()
    }

    /// Sends `event` when a window is attached.
    pub fn emit(&self, event: AppEvent) -> Result<(), EmitError> {
        match self.get() {
            Some(window) => window.emit(event),
            None => Err(EmitError("the MCP Canvas window is not ready".to_owned())),
        }
    }

    /// Sends `event`, printing why when it cannot be sent.
    pub fn emit_or_log(&self, event: AppEvent) {
        let name = event.name();
        if let Err(e) = self.emit(event) {
            eprintln!("mcp-canvas: could not send {name} to the window: {e}");
        }
    }
}

/// A server's sampling request as the window shows it (the app's `sampling-request` event); the
/// window answers with `answer_sampling` for the same `id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SamplingPrompt {
    /// Which question this is (echoed in the answer).
    pub id: String,
    /// What is asked, with the provider and model that would answer.
    #[serde(flatten)]
    pub request: mcp_canvas_sampling::sampler::ApprovalRequest,
}

/// A completion to review before it is returned (the app's `sampling-review` event); answered
/// with `answer_sampling_review`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SamplingReviewPrompt {
    /// Which question this is.
    pub id: String,
    /// The request as sent and the completion as it would be returned.
    #[serde(flatten)]
    pub review: mcp_canvas_sampling::sampler::ReviewRequest,
}

/// A server said one of its lists changed (`notifications/{tools,resources,prompts}/list_changed`),
/// as the desktop window hears it (the app's `server-changed` event): re-list that server's tools
/// (or resources, prompts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ServerChangedEvent {
    /// The server's configured name.
    pub server: String,
    /// Which list changed.
    pub list: mcp_canvas_client::ChangedList,
}

impl From<mcp_canvas_client::ServerChange> for ServerChangedEvent {
    fn from(change: mcp_canvas_client::ServerChange) -> Self {
        Self { server: change.server, list: change.list }
    }
}
