//! Another process asks the user, through the app link, whether a tool that may change or delete
//! data may run: a `confirm-request` event (a `ConfirmPrompt`) to the window, answered by the
//! `answer_confirmation` command with the same id. No window, or no answer within
//! [`crate::window_questions::UNANSWERED`], means no (and the window is told to close the
//! dialog, `confirm-closed`).

use mcp_canvas_host::wire::ConfirmPrompt;
use serde_json::{Map, Value};
use tauri::AppHandle;

use crate::window_questions::{Asked, WindowQuestions};

/// The event carrying a `ConfirmPrompt` to the main window.
pub const REQUEST_EVENT: &str = "confirm-request";
/// The event telling the window a confirmation is no longer open; payload: its id.
pub const CLOSED_EVENT: &str = "confirm-closed";

/// The confirmation dialogs: one per app, shared by the app link (asks) and the command (answers).
pub struct DialogConfirmation {
    questions: WindowQuestions<bool>,
}

impl Default for DialogConfirmation {
    fn default() -> Self {
        Self { questions: WindowQuestions::new("c", CLOSED_EVENT) }
    }
}

impl DialogConfirmation {
    /// Connects to the window once the app is built; until then every confirmation is refused.
    pub fn attach(&self, app: AppHandle) {
        self.questions.attach(app);
    }

    /// Delivers the user's decision on the confirmation `id`.
    pub fn answer(&self, id: &str, confirmed: bool) -> Result<(), String> {
        self.questions.answer(id, confirmed)
    }

    /// Whether the user lets `on_behalf_of` run `server`'s `tool` with exactly these arguments.
    pub async fn confirm(&self, server: &str, tool: &str, arguments: &Map<String, Value>, on_behalf_of: &str) -> bool {
        let asked = self
            .questions
            .ask(REQUEST_EVENT, |id| ConfirmPrompt {
                id,
                server: server.to_owned(),
                tool: tool.to_owned(),
                arguments: arguments.clone(),
                on_behalf_of: on_behalf_of.to_owned(),
            })
            .await;
        match asked {
            Asked::Answered(confirmed) => confirmed,
            Asked::Unavailable(reason) => {
                eprintln!("mcp-canvas: `{tool}` of `{server}` not confirmed: {reason}");
                false
            }
            Asked::TimedOut => false,
        }
    }
}
