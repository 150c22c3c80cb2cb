//! Servers' elicitation requests answered by the user in the window, through [`Questions`].
//!
//! The host does the checks (schema validation, URL inspection, reasons for declines); this only
//! turns a request into a [`Question`] and the answer into the host's. A URL is opened in the
//! system browser only after the user chose "Open in browser" (`opener::open`).

use std::sync::Arc;

use mcp_canvas_elicitation::{BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_wire::{ElicitationAnswer, ElicitationChoice};

use mcp_canvas_client::opener;

use crate::{
    questions::{Answer, Asked, Question, Questions},
};

/// The elicitation handler the app installs in its host (and the app link uses).
pub struct DialogElicitation {
    questions: Arc<Questions>,
}

impl DialogElicitation {
    /// Asks through `questions`.
    pub fn new(questions: Arc<Questions>) -> Self {
        Self { questions }
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
            match self.questions.ask(Question::Form(request.clone())).await {
                Asked::Answered(Answer::Elicitation(ElicitationAnswer { action: ElicitationChoice::Accept, content })) => FormAnswer::Accept(content.unwrap_or_default()),
                Asked::Answered(Answer::Elicitation(ElicitationAnswer { action: ElicitationChoice::Decline, .. })) => FormAnswer::Decline("the user declined in the dialog".to_owned()),
                Asked::Answered(Answer::Elicitation(ElicitationAnswer { action: ElicitationChoice::Cancel, .. })) => FormAnswer::Cancel,
                Asked::Answered(_) => FormAnswer::Cancel,
                Asked::Unavailable(reason) => FormAnswer::Decline(reason),
                Asked::TimedOut => FormAnswer::Cancel,
            }
        })
    }

    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(async move {
            let choice = match self.questions.ask(Question::Url(request.clone())).await {
                Asked::Answered(Answer::Elicitation(answer)) => answer.action,
                Asked::Answered(_) | Asked::TimedOut => ElicitationChoice::Cancel,
                Asked::Unavailable(reason) => return UrlAnswer::Decline(reason),
            };
            match choice {
                // Only now, after the user clicked "Open in browser".
                ElicitationChoice::Accept => match opener::open(&request.url) {
                    Ok(()) => UrlAnswer::Accept,
                    Err(e) => UrlAnswer::Decline(format!("the user agreed, but the system browser could not be started ({e})")),
                },
                ElicitationChoice::Decline => UrlAnswer::Decline("the user chose not to open the page".to_owned()),
                ElicitationChoice::Cancel => UrlAnswer::Cancel,
            }
        })
    }
}
