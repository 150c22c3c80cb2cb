//! Servers' elicitation requests answered with dialogs in the window.
//!
//! The host does the checks (schema validation, URL inspection, reasons for declines); this only
//! carries the question to the window (`elicitation-request` event, an `ElicitationPrompt`) and
//! waits for the `answer_elicitation` command with the same id. A question left unanswered for
//! [`UNANSWERED`] is cancelled (and the window told to close it, `elicitation-closed`).
//!
//! A URL is opened in the system browser only after the user chose "Open in browser", with the
//! platform's opener (`xdg-open` on Linux, `open` on macOS, the URL handler on Windows); no crate.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Mutex, OnceLock,
    },
    time::Duration,
};

use mcp_canvas_host::{
    elicitation::{form_fields, BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest},
    wire::{ElicitationAnswer, ElicitationChoice, ElicitationPrompt},
};
use tauri::{AppHandle, Emitter};
use tokio::sync::oneshot;

/// The event carrying an `ElicitationPrompt` to the main window.
pub const REQUEST_EVENT: &str = "elicitation-request";
/// The event telling the window a question is no longer open (timed out, call ended); payload: its id.
pub const CLOSED_EVENT: &str = "elicitation-closed";
/// How long a question may stay unanswered before it is cancelled.
pub const UNANSWERED: Duration = Duration::from_secs(10 * 60);
const WINDOW: &str = "main";

/// The dialog handler: one per app, shared by the host (asks) and the command (answers).
#[derive(Default)]
pub struct DialogElicitation {
    app: OnceLock<AppHandle>,
    pending: Mutex<HashMap<String, oneshot::Sender<ElicitationAnswer>>>,
    next: AtomicU64,
}

/// How asking the window ended.
enum Asked {
    Answered(ElicitationAnswer),
    /// Could not ask (no window yet, the event could not be sent): decline with this reason.
    Unavailable(String),
    TimedOut,
}

/// Removes a question from the open ones however asking ends (answer, timeout, call dropped).
struct Open<'a> {
    handler: &'a DialogElicitation,
    id: String,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        // Still open: nobody answered (timed out, or the call ended), so the window closes it.
        let unanswered = self.handler.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.id).is_some();
        if unanswered && let Some(app) = self.handler.app.get() {
            let _ = app.emit_to(WINDOW, CLOSED_EVENT, &self.id);
        }
    }
}

impl DialogElicitation {
    /// Connects to the window once the app is built; until then requests are declined.
    pub fn attach(&self, app: AppHandle) {
        let _ = self.app.set(app);
    }

    /// Delivers the window's answer to the question `id`.
    pub fn answer(&self, id: &str, answer: ElicitationAnswer) -> Result<(), String> {
        let sender = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
            .ok_or_else(|| format!("the question {id} is no longer open (answered already, timed out, or its call ended)"))?;
        sender.send(answer).map_err(|_| format!("the question {id} is no longer open (its call ended)"))
    }

    async fn ask(&self, prompt: impl FnOnce(String) -> ElicitationPrompt) -> Asked {
        let Some(app) = self.app.get() else {
            return Asked::Unavailable("the MCP Canvas window was not ready to ask the user".to_owned());
        };
        let id = format!("e{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (sender, receiver) = oneshot::channel();
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), sender);
        let _open = Open { handler: self, id: id.clone() };
        if let Err(e) = app.emit_to(WINDOW, REQUEST_EVENT, prompt(id)) {
            return Asked::Unavailable(format!("the question could not be shown in the window ({e})"));
        }
        match tokio::time::timeout(UNANSWERED, receiver).await {
            Ok(Ok(answer)) => Asked::Answered(answer),
            Ok(Err(_)) => Asked::Unavailable("the question was dropped before the user answered".to_owned()),
            Err(_) => Asked::TimedOut,
        }
    }
}

impl ElicitationHandler for DialogElicitation {
    fn modes(&self) -> ElicitationModes {
        ElicitationModes::ALL
    }

    /// A person fills the dialog: an answer the schema refuses is asked again, problems shown.
    fn reask_invalid(&self) -> bool {
        true
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(async move {
            let asked = self
                .ask(|id| ElicitationPrompt::Form {
                    id,
                    server: request.server.clone(),
                    message: request.message.clone(),
                    fields: form_fields(&request.schema),
                    attempt: request.attempt,
                    problems: request.problems.clone(),
                })
                .await;
            match asked {
                Asked::Answered(ElicitationAnswer { action: ElicitationChoice::Accept, content }) => FormAnswer::Accept(content.unwrap_or_default()),
                Asked::Answered(ElicitationAnswer { action: ElicitationChoice::Decline, .. }) => FormAnswer::Decline("the user declined in the dialog".to_owned()),
                Asked::Answered(ElicitationAnswer { action: ElicitationChoice::Cancel, .. }) => FormAnswer::Cancel,
                Asked::Unavailable(reason) => FormAnswer::Decline(reason),
                Asked::TimedOut => FormAnswer::Cancel,
            }
        })
    }

    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(async move {
            let asked = self
                .ask(|id| ElicitationPrompt::Url {
                    id,
                    server: request.server.clone(),
                    message: request.message.clone(),
                    url: request.url.clone(),
                    domain: request.domain.clone(),
                    warnings: request.warnings.clone(),
                })
                .await;
            match asked {
                // Only now, after the user clicked "Open in browser".
                Asked::Answered(ElicitationAnswer { action: ElicitationChoice::Accept, .. }) => match open_in_browser(&request.url) {
                    Ok(()) => UrlAnswer::Accept,
                    Err(e) => UrlAnswer::Decline(format!("the user agreed, but the system browser could not be started ({e})")),
                },
                Asked::Answered(ElicitationAnswer { action: ElicitationChoice::Decline, .. }) => UrlAnswer::Decline("the user chose not to open the page".to_owned()),
                Asked::Answered(ElicitationAnswer { action: ElicitationChoice::Cancel, .. }) => UrlAnswer::Cancel,
                Asked::Unavailable(reason) => UrlAnswer::Decline(reason),
                Asked::TimedOut => UrlAnswer::Cancel,
            }
        })
    }
}

/// Hands the URL to the platform's opener (no shell; the URL is one argument).
fn open_in_browser(url: &str) -> std::io::Result<()> {
    use std::process::{Command, Stdio};
    #[cfg(target_os = "macos")]
    let mut command = Command::new("open");
    #[cfg(target_os = "windows")]
    let mut command = {
        let mut c = Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler");
        c
    };
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    let mut command = Command::new("xdg-open");
    let mut child = command.arg(url).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    // Reap it without blocking the answer (some openers wait for the browser).
    std::thread::spawn(move || child.wait());
    Ok(())
}
