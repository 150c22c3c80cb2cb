//! [`ExchangeRecord`]: how one sampling request ended, as the transcript keeps it (every request
//! ends in exactly one, answered or not), and [`Transcript`], where records go.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    exchange::SampleExchange,
    message::{SamplingRequest, SamplingResult},
    provider::Usage,
    sampler::SamplingError,
};

/// How a request ended, as the transcript records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Decision {
    /// Answered without asking (policy `always`).
    Automatic,
    /// The user approved it as it was.
    Approved,
    /// The user approved it after editing the request or picking another model.
    Edited,
    /// The user edited the completion before it was returned.
    ResponseEdited,
    /// The user rejected the request or the completion.
    Rejected,
    /// Refused by policy or limits, nobody asked.
    Refused,
    /// The provider failed.
    Failed,
}

/// One exchange as the transcript keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ExchangeRecord {
    /// Row id, once stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub id: Option<i64>,
    /// The server that asked.
    pub server: String,
    /// When it arrived, ms since the Unix epoch.
    #[ts(type = "number")]
    pub at_ms: u64,
    /// How it ended.
    pub decision: Decision,
    /// The request as the server sent it.
    pub request: SamplingRequest,
    /// The request as it went to the model, when the user (or the caps) changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub edited_request: Option<SamplingRequest>,
    /// The result returned to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub response: Option<SamplingResult>,
    /// The exchange for history (2 or 3 messages, `parsed` for structured output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub exchange: Option<SampleExchange>,
    /// The provider's name.
    #[serde(default)]
    pub provider: String,
    /// The model used.
    #[serde(default)]
    pub model: String,
    /// Time spent in the provider, ms.
    #[ts(type = "number")]
    pub latency_ms: u64,
    /// Tokens used (both rounds when there was a repair round).
    pub usage: Usage,
    /// Whether it went through the provider's structured mode.
    pub structured: bool,
    /// The error the server got, when it got one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}

impl ExchangeRecord {
    /// The record of `server`'s `request`, arriving now; `Refused` until known otherwise.
    pub fn new(server: &str, request: SamplingRequest) -> Self {
        let at_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        Self {
            id: None,
            server: server.to_owned(),
            at_ms,
            decision: Decision::Refused,
            request,
            edited_request: None,
            response: None,
            exchange: None,
            provider: String::new(),
            model: String::new(),
            latency_ms: 0,
            usage: Usage::default(),
            structured: false,
            error: None,
        }
    }

    /// The record of a request nobody answered: refused, with the reason the server got.
    pub fn refused(server: &str, request: SamplingRequest, error: impl Into<String>) -> Self {
        Self { error: Some(error.into()), ..Self::new(server, request) }
    }

    /// Completes it with the outcome: the result and its exchange (of the request as it went to
    /// the model), or the error.
    pub fn finish(&mut self, outcome: &Result<SamplingResult, SamplingError>) {
        match outcome {
            Ok(result) => {
                self.exchange = Some(SampleExchange::of(self.edited_request.as_ref().unwrap_or(&self.request), result));
                self.response = Some(result.clone());
            }
            Err(e) => self.error = Some(e.message.clone()),
        }
    }
}

/// Where exchanges are kept (the store's catalog).
pub trait Transcript: Send + Sync {
    /// Keeps one exchange; a failure to keep it is logged by the implementation, never fatal.
    fn record(&self, record: &ExchangeRecord);
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Block, Role, StopReason};

    #[test]
    fn a_record_starts_refused_and_finishes_with_the_outcome() {
        let request = SamplingRequest::user("hi", 5);
        let mut answered = ExchangeRecord::new("srv", request.clone());
        assert_eq!((answered.decision, answered.server.as_str(), answered.response.is_none()), (Decision::Refused, "srv", true));
        assert!(answered.at_ms > 0);
        let result = SamplingResult { model: "m".into(), stop_reason: Some(StopReason::EndTurn), role: Role::Assistant, content: vec![Block::text("hello")] };
        answered.finish(&Ok(result.clone()));
        assert_eq!(answered.response.as_ref(), Some(&result));
        assert_eq!(answered.exchange.as_ref().map(|e| e.messages.len()), Some(2));
        let refused = ExchangeRecord::refused("srv", request, "nobody answers");
        assert_eq!((refused.decision, refused.error.as_deref(), refused.exchange.is_none()), (Decision::Refused, Some("nobody answers"), true));
    }
}
