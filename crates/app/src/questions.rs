//! The questions the app asks the user, as one queue: a question goes to the window as an event
//! carrying its id (`elicitation-request`, `confirm-request`), the answer comes back through
//! [`Questions::answer`] with that id (the `answer_elicitation` / `answer_confirmation` commands)
//! and reaches the waiting asker over a oneshot channel. A question left unanswered for
//! [`UNANSWERED`], or whose asker stopped waiting, is closed, and the window told
//! (`elicitation-closed`, `confirm-closed`, payload: the id).
//!
//! Kinds of question are variants of [`Question`] (with [`QuestionKind`] and their [`Answer`]):
//! confirmations, forms, URLs, sampling approvals and completion reviews (`sampling-request`,
//! `sampling-review`, closed by `sampling-closed`); an app's request to the user would be one more.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Mutex, MutexGuard,
    },
    time::Duration,
};

use mcp_canvas_wire::{CommandError, ConfirmPrompt, ElicitationAnswer, ElicitationPrompt, ErrorKind};
use mcp_canvas_elicitation::{form_fields, FormRequest, UrlRequest};
use mcp_canvas_sampling::sampler::{Approval, ApprovalRequest, Review, ReviewRequest};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::window::{AppEvent, SamplingPrompt, SamplingReviewPrompt, WindowSlot};

/// How long a question may stay unanswered before it is given up.
pub const UNANSWERED: Duration = Duration::from_secs(10 * 60);

/// A question for the user.
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// May another process (the proxy) run a tool that may change or delete data?
    Confirm {
        /// The server whose tool would run.
        server: String,
        /// The tool.
        tool: String,
        /// The exact arguments it would get.
        arguments: Map<String, Value>,
        /// Who asks.
        on_behalf_of: String,
    },
    /// A server's form (form-mode elicitation).
    Form(FormRequest),
    /// A server's page to open (URL-mode elicitation).
    Url(UrlRequest),
    /// A server's sampling request, to approve, edit or reject.
    Sampling(ApprovalRequest),
    /// A completion, to return as it is, edit or reject.
    SamplingReview(ReviewRequest),
}

/// Which kind a question is (what a pending question is, without its content).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QuestionKind {
    Confirm,
    Form,
    Url,
    Sampling,
    SamplingReview,
}

/// The user's answer to a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// To a [`Question::Confirm`]: run it or not.
    Confirm(bool),
    /// To a [`Question::Form`] or [`Question::Url`].
    Elicitation(ElicitationAnswer),
    /// To a [`Question::Sampling`].
    Sampling(Approval),
    /// To a [`Question::SamplingReview`].
    SamplingReview(Review),
}

impl QuestionKind {
    /// Ids of a kind start with this, so ids of different kinds never look alike.
    fn prefix(self) -> &'static str {
        match self {
            Self::Confirm => "c",
            Self::Form | Self::Url => "e",
            Self::Sampling | Self::SamplingReview => "s",
        }
    }

    /// The event telling the window the question `id` is no longer open.
    fn closed(self, id: String) -> AppEvent {
        match self {
            Self::Confirm => AppEvent::ConfirmClosed(id),
            Self::Form | Self::Url => AppEvent::ElicitationClosed(id),
            Self::Sampling | Self::SamplingReview => AppEvent::SamplingClosed(id),
        }
    }

    /// Whether `answer` answers a question of this kind.
    fn accepts(self, answer: &Answer) -> bool {
        matches!(
            (self, answer),
            (Self::Confirm, Answer::Confirm(_))
                | (Self::Form | Self::Url, Answer::Elicitation(_))
                | (Self::Sampling, Answer::Sampling(_))
                | (Self::SamplingReview, Answer::SamplingReview(_))
        )
    }
}

impl Question {
    /// Its kind.
    pub fn kind(&self) -> QuestionKind {
        match self {
            Self::Confirm { .. } => QuestionKind::Confirm,
            Self::Form(_) => QuestionKind::Form,
            Self::Url(_) => QuestionKind::Url,
            Self::Sampling(_) => QuestionKind::Sampling,
            Self::SamplingReview(_) => QuestionKind::SamplingReview,
        }
    }

    /// The event showing it in the window, as question `id`.
    pub fn prompt(&self, id: String) -> AppEvent {
        match self {
            Self::Confirm { server, tool, arguments, on_behalf_of } => AppEvent::ConfirmRequest(ConfirmPrompt {
                id,
                server: server.clone(),
                tool: tool.clone(),
                arguments: arguments.clone(),
                on_behalf_of: on_behalf_of.clone(),
            }),
            Self::Form(request) => AppEvent::ElicitationRequest(ElicitationPrompt::Form {
                id,
                server: request.server.clone(),
                message: request.message.clone(),
                fields: form_fields(&request.schema),
                attempt: request.attempt,
                problems: request.problems.clone(),
                requested_schema: request.schema.clone(),
            }),
            Self::Url(request) => AppEvent::ElicitationRequest(ElicitationPrompt::Url {
                id,
                server: request.server.clone(),
                message: request.message.clone(),
                url: request.url.clone(),
                domain: request.domain.clone(),
                warnings: request.warnings.clone(),
            }),
            Self::Sampling(request) => AppEvent::SamplingRequest(SamplingPrompt { id, request: request.clone() }),
            Self::SamplingReview(review) => AppEvent::SamplingReview(SamplingReviewPrompt { id, review: review.clone() }),
        }
    }
}

/// How asking ended.
#[derive(Debug, PartialEq)]
pub enum Asked {
    /// The user answered.
    Answered(Answer),
    /// Could not ask (no window, the event could not be sent) or the question was dropped: why.
    Unavailable(String),
    /// Nobody answered in time.
    TimedOut,
}

struct Pending {
    kind: QuestionKind,
    sender: oneshot::Sender<Answer>,
}

/// The open questions of the app, of every kind.
pub struct Questions {
    window: WindowSlot,
    pending: Mutex<HashMap<String, Pending>>,
    next: AtomicU64,
    unanswered: Duration,
}

/// Removes a question however asking ends (answer, timeout, asker dropped).
struct Open<'a> {
    questions: &'a Questions,
    id: String,
    kind: QuestionKind,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        // Still open: nobody answered (timed out, or the asker stopped waiting), so the window closes it.
        if self.questions.lock().remove(&self.id).is_some() {
            let _ = self.questions.window.emit(self.kind.closed(self.id.clone()));
        }
    }
}

impl Questions {
    /// Questions asked in `window` (unavailable until a window is attached to it).
    pub fn new(window: WindowSlot) -> Self {
        Self::with_timeout(window, UNANSWERED)
    }

    /// Same, with questions given up after `unanswered`.
    pub fn with_timeout(window: WindowSlot, unanswered: Duration) -> Self {
        Self { window, pending: Mutex::default(), next: AtomicU64::new(0), unanswered }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The open questions: id and kind, ordered by id.
    pub fn pending(&self) -> Vec<(String, QuestionKind)> {
        let mut open: Vec<_> = self.lock().iter().map(|(id, p)| (id.clone(), p.kind)).collect();
        open.sort();
        open
    }

    /// Delivers the user's answer to the question `id`. An unknown id (answered already, timed
    /// out, never asked) or an answer of another kind is an error; the latter keeps the question open.
    pub fn answer(&self, id: &str, answer: Answer) -> Result<(), CommandError> {
        let mut pending = self.lock();
        let kind = pending.get(id).map(|p| p.kind).ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("the question {id} is no longer open (answered already, timed out, or no longer needed)")))?;
        if !kind.accepts(&answer) {
            return Err(CommandError::bug(format!("the question {id} is a {kind:?} question; that answer does not fit it")));
        }
        let open = pending.remove(id).expect("just found");
        drop(pending);
        open.sender.send(answer).map_err(|_| CommandError::new(ErrorKind::NotFound, format!("the question {id} is no longer open (no longer needed)")))
    }

    /// Shows `question` in the window and waits for the answer.
    pub async fn ask(&self, question: Question) -> Asked {
        let Some(window) = self.window.get() else {
            return Asked::Unavailable("the MCP Canvas window was not ready to ask the user".to_owned());
        };
        if !window.is_open() {
            return Asked::Unavailable("the MCP Canvas window is not open to ask the user".to_owned());
        }
        let kind = question.kind();
        let id = format!("{}{}", kind.prefix(), self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(id.clone(), Pending { kind, sender });
        let _open = Open { questions: self, id: id.clone(), kind };
        if let Err(e) = window.emit(question.prompt(id)) {
            return Asked::Unavailable(format!("the question could not be shown in the window ({e})"));
        }
        match tokio::time::timeout(self.unanswered, receiver).await {
            Ok(Ok(answer)) => Asked::Answered(answer),
            Ok(Err(_)) => Asked::Unavailable("the question was dropped before the user answered".to_owned()),
            Err(_) => Asked::TimedOut,
        }
    }

    /// Whether the user lets `on_behalf_of` run `server`'s `tool` with exactly these arguments.
    /// No window, or no answer in time, means no.
    pub async fn confirm(&self, server: &str, tool: &str, arguments: &Map<String, Value>, on_behalf_of: &str) -> bool {
        let question = Question::Confirm { server: server.to_owned(), tool: tool.to_owned(), arguments: arguments.clone(), on_behalf_of: on_behalf_of.to_owned() };
        match self.ask(question).await {
            Asked::Answered(Answer::Confirm(confirmed)) => confirmed,
            Asked::Answered(_) => false,
            Asked::Unavailable(reason) => {
                eprintln!("mcp-canvas: `{tool}` of `{server}` not confirmed: {reason}");
                false
            }
            Asked::TimedOut => false,
        }
    }
}
