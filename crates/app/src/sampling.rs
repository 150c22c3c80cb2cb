//! Servers' sampling requests approved, edited or rejected by the user in the window, through
//! [`Questions`]: the request first (`sampling-request`), then, when asked for, the completion
//! (`sampling-review`). The sampler does the checks and keeps the transcript; this only turns a
//! request into a [`Question`] and the answer back. No window, or no answer in time, rejects with
//! the reason.

use std::sync::Arc;

use mcp_canvas_sampling::{provider::BoxFuture, sampler::{Approval, ApprovalRequest, Review, ReviewRequest}, Approver};

use crate::questions::{Answer, Asked, Question, Questions};

/// The sampling approver the app installs in its host.
pub struct DialogSampling {
    questions: Arc<Questions>,
}

impl DialogSampling {
    /// Asks through `questions`.
    pub fn new(questions: Arc<Questions>) -> Self {
        Self { questions }
    }
}

fn unanswered(asked: Asked) -> String {
    match asked {
        Asked::Answered(_) => "the answer did not fit the question".to_owned(),
        Asked::Unavailable(reason) => reason,
        Asked::TimedOut => "nobody answered in the MCP Canvas window in time".to_owned(),
    }
}

impl Approver for DialogSampling {
    fn approve<'a>(&'a self, ask: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        Box::pin(async move {
            match self.questions.ask(Question::Sampling(ask.clone())).await {
                Asked::Answered(Answer::Sampling(approval)) => approval,
                other => Approval::Reject { reason: unanswered(other) },
            }
        })
    }

    fn review<'a>(&'a self, review: &'a ReviewRequest) -> BoxFuture<'a, Review> {
        Box::pin(async move {
            match self.questions.ask(Question::SamplingReview(review.clone())).await {
                Asked::Answered(Answer::SamplingReview(answer)) => answer,
                other => Review::Reject { reason: unanswered(other) },
            }
        })
    }
}
