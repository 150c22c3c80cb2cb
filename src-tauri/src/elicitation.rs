//! Servers' elicitation requests answered with dialogs in the window.
//!
//! The host does the checks (schema validation, URL inspection, reasons for declines); this only
//! carries the question to the window (`elicitation-request` event, an `ElicitationPrompt`) and
//! waits for the `answer_elicitation` command with the same id. A question left unanswered for
//! [`crate::window_questions::UNANSWERED`] is cancelled (and the window told to close it,
//! `elicitation-closed`).
//!
//! A URL is opened in the system browser only after the user chose "Open in browser", with the
//! platform's opener (`xdg-open` on Linux, `open` on macOS, the URL handler on Windows); no crate.

use mcp_canvas_host::{
    elicitation::{form_fields, BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest},
    wire::{ElicitationAnswer, ElicitationChoice, ElicitationPrompt},
};
use tauri::AppHandle;

use crate::window_questions::{Asked, WindowQuestions};

/// The event carrying an `ElicitationPrompt` to the main window.
pub const REQUEST_EVENT: &str = "elicitation-request";
/// The event telling the window a question is no longer open (timed out, call ended); payload: its id.
pub const CLOSED_EVENT: &str = "elicitation-closed";

/// The dialog handler: one per app, shared by the host and the app link (ask) and the command (answers).
pub struct DialogElicitation {
    questions: WindowQuestions<ElicitationAnswer>,
}

impl Default for DialogElicitation {
    fn default() -> Self {
        Self { questions: WindowQuestions::new("e", CLOSED_EVENT) }
    }
}

impl DialogElicitation {
    /// Connects to the window once the app is built; until then requests are declined.
    pub fn attach(&self, app: AppHandle) {
        self.questions.attach(app);
    }

    /// Delivers the window's answer to the question `id`.
    pub fn answer(&self, id: &str, answer: ElicitationAnswer) -> Result<(), String> {
        self.questions.answer(id, answer)
    }

    async fn ask(&self, prompt: impl FnOnce(String) -> ElicitationPrompt) -> Asked<ElicitationAnswer> {
        self.questions.ask(REQUEST_EVENT, prompt).await
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
                    requested_schema: request.schema.clone(),
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
