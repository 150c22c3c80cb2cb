//! Questions asked of the main window and answered by a command carrying the same id: the
//! mechanism behind the elicitation dialog (`elicitation.rs`) and the confirmation dialog
//! (`confirmation.rs`).
//!
//! A question goes out as an event whose payload names its id; the answer comes back through
//! [`WindowQuestions::answer`] and reaches the waiting asker over a oneshot channel. A question
//! left unanswered for [`UNANSWERED`], or whose asker stopped waiting, is closed: the window is
//! told with the closed event (payload: the id).

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Mutex, OnceLock,
    },
    time::Duration,
};

use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager};
use tokio::sync::oneshot;

/// How long a question may stay unanswered before it is given up.
pub const UNANSWERED: Duration = Duration::from_secs(10 * 60);
/// The window questions are asked in.
const WINDOW: &str = "main";

/// The open questions of one kind, with answers of type `A`.
pub struct WindowQuestions<A> {
    app: OnceLock<AppHandle>,
    pending: Mutex<HashMap<String, oneshot::Sender<A>>>,
    next: AtomicU64,
    /// Prefix of the ids (`e1`, `c1`...), so ids of different kinds never look alike.
    prefix: &'static str,
    /// The event that tells the window a question is no longer open.
    closed_event: &'static str,
}

/// How asking the window ended.
pub enum Asked<A> {
    /// The user answered.
    Answered(A),
    /// Could not ask (no window, the event could not be sent) or the question was dropped: why.
    Unavailable(String),
    /// Nobody answered within [`UNANSWERED`].
    TimedOut,
}

/// Removes a question from the open ones however asking ends (answer, timeout, asker dropped).
struct Open<'a, A> {
    questions: &'a WindowQuestions<A>,
    id: String,
}

impl<A> Drop for Open<'_, A> {
    fn drop(&mut self) {
        // Still open: nobody answered (timed out, or the asker stopped waiting), so the window closes it.
        let unanswered = self.questions.lock().remove(&self.id).is_some();
        if unanswered && let Some(app) = self.questions.app.get() {
            let _ = app.emit_to(WINDOW, self.questions.closed_event, &self.id);
        }
    }
}

impl<A> WindowQuestions<A> {
    /// No window yet; ids start with `prefix`, closed questions are announced as `closed_event`.
    pub fn new(prefix: &'static str, closed_event: &'static str) -> Self {
        Self { app: OnceLock::new(), pending: Mutex::default(), next: AtomicU64::new(0), prefix, closed_event }
    }

    /// Connects to the window once the app is built; until then questions are unavailable.
    pub fn attach(&self, app: AppHandle) {
        let _ = self.app.set(app);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<A>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Delivers the window's answer to the question `id`.
    pub fn answer(&self, id: &str, answer: A) -> Result<(), String> {
        let sender = self.lock().remove(id).ok_or_else(|| format!("the question {id} is no longer open (answered already, timed out, or no longer needed)"))?;
        sender.send(answer).map_err(|_| format!("the question {id} is no longer open (no longer needed)"))
    }

    /// Emits `event` with the prompt `prompt(id)` to the main window and waits for the answer.
    pub async fn ask<P: Serialize + Clone>(&self, event: &str, prompt: impl FnOnce(String) -> P) -> Asked<A> {
        let Some(app) = self.app.get() else {
            return Asked::Unavailable("the MCP Canvas window was not ready to ask the user".to_owned());
        };
        if app.get_webview_window(WINDOW).is_none() {
            return Asked::Unavailable("the MCP Canvas window is not open to ask the user".to_owned());
        }
        let id = format!("{}{}", self.prefix, self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(id.clone(), sender);
        let _open = Open { questions: self, id: id.clone() };
        if let Err(e) = app.emit_to(WINDOW, event, prompt(id)) {
            return Asked::Unavailable(format!("the question could not be shown in the window ({e})"));
        }
        match tokio::time::timeout(UNANSWERED, receiver).await {
            Ok(Ok(answer)) => Asked::Answered(answer),
            Ok(Err(_)) => Asked::Unavailable("the question was dropped before the user answered".to_owned()),
            Err(_) => Asked::TimedOut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn without_a_window_nothing_is_asked_and_no_answer_is_taken() {
        let questions = WindowQuestions::<bool>::new("t", "test-closed");
        let asked = questions.ask("test-request", |id| id).await;
        assert!(matches!(asked, Asked::Unavailable(reason) if reason.contains("not ready")));
        assert!(questions.lock().is_empty(), "nothing stays open");
        let refused = questions.answer("t1", true).unwrap_err();
        assert!(refused.contains("no longer open"), "{refused}");
    }
}
