//! Sampling: a server asking for an LLM completion (`sampling/createMessage`), as a server→client
//! request (protocol versions up to 2025-11-25) or inside an `input_required` result (2026-07-28).
//! Both end in [`SamplingBridge::answer`], which crosses from rmcp's types to the sampling crate's
//! (one JSON round trip) and lets [`Sampler`] do the rest: policy, the user's approval, the
//! provider, the transcript. The calls the request may belong to have their timeouts paused while
//! the user decides.

#![allow(deprecated)] // sampling is deprecated by SEP-2577; servers still use it

use std::sync::Arc;

use mcp_canvas_sampling::{
    sampler::{Capability, Waiting},
    SamplingRequest, SamplingService,
};
use rmcp::{
    model::{CreateMessageRequestParams, CreateMessageResult, ErrorCode, JsonObject, SamplingCapability},
    ErrorData,
};

use crate::call_context::CallContext;

/// One server's way to the host's [`Sampler`].
#[derive(Clone)]
pub struct SamplingBridge {
    /// The server's configured name.
    pub server: String,
    /// The host's sampler (or the proxy's router).
    pub sampler: Arc<dyn SamplingService>,
}

/// The calls a request belongs to are waiting for the user while a guard lives.
struct CallsWaiting<'a>(&'a [Arc<CallContext>]);

impl Waiting for CallsWaiting<'_> {
    fn begin(&self) -> Box<dyn Send> {
        Box::new(self.0.iter().map(|call| call.asking()).collect::<Vec<_>>())
    }
}

impl SamplingBridge {
    /// The `sampling` client capability for this server, if it is offered.
    pub fn capability(&self) -> Option<SamplingCapability> {
        self.sampler.capability(&self.server).map(|Capability { tools }| {
            let mut capability = SamplingCapability::default();
            capability.tools = tools.then(JsonObject::new);
            capability
        })
    }

    /// Answers one request on behalf of `calls` (the calls it may belong to).
    pub async fn answer(&self, params: CreateMessageRequestParams, calls: &[Arc<CallContext>]) -> Result<CreateMessageResult, ErrorData> {
        let invalid = |e: serde_json::Error| ErrorData::new(ErrorCode::INVALID_PARAMS, format!("MCP Canvas could not read the sampling request: {e}"), None);
        let request: SamplingRequest = serde_json::to_value(params).and_then(serde_json::from_value).map_err(invalid)?;
        match self.sampler.create_message(&self.server, request, &CallsWaiting(calls)).await {
            Ok(result) => {
                let value = serde_json::to_value(&result).expect("results serialize");
                serde_json::from_value(value).map_err(|e| ErrorData::new(ErrorCode::INTERNAL_ERROR, format!("the completion could not be sent: {e}"), None))
            }
            Err(e) => {
                for call in calls {
                    call.note(format!("`{}` asked for an LLM completion, which was not given: {}", self.server, e.message));
                }
                Err(ErrorData::new(ErrorCode(e.code), e.message, None))
            }
        }
    }
}
