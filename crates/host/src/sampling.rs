//! The host's side of sampling: exchanges kept in the store's catalog ([`StoreTranscript`]), and
//! the approver used when no front end installed one ([`NobodyToAsk`]).

use std::sync::Arc;

use mcp_canvas_sampling::{
    provider::BoxFuture,
    sampler::{Approval, ApprovalRequest, ExchangeRecord, Review, ReviewRequest},
    Approver, Transcript,
};
use mcp_canvas_store::{ArtifactStore, SamplingRow};

/// Keeps exchanges in the catalog (`sampling_exchanges`).
pub(crate) struct StoreTranscript(pub(crate) Arc<ArtifactStore>);

impl Transcript for StoreTranscript {
    fn record(&self, record: &ExchangeRecord) {
        let row = SamplingRow {
            id: 0,
            server: record.server.clone(),
            at_ms: record.at_ms as i64,
            decision: serde_json::to_value(record.decision).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            provider: record.provider.clone(),
            model: record.model.clone(),
            latency_ms: record.latency_ms as i64,
            input_tokens: record.usage.input_tokens as i64,
            output_tokens: record.usage.output_tokens as i64,
            record: serde_json::to_string(record).expect("records serialize"),
        };
        if let Err(e) = self.0.record_sampling(&row) {
            tracing::warn!(server = record.server, "the sampling exchange could not be kept: {e}");
        }
    }
}

/// No front end to ask: a request under policy `ask` is rejected, saying how to answer it.
pub struct NobodyToAsk;

impl Approver for NobodyToAsk {
    fn approve<'a>(&'a self, ask: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        let reason = format!(
            "nobody is there to approve it (sampling policy `ask`); open MCP Canvas, or set [sampling.servers.{}] policy = \"always\" in settings.toml, or pass --sampling always to mcp-canvas-cli",
            ask.server
        );
        Box::pin(async move { Approval::Reject { reason } })
    }

    fn review<'a>(&'a self, _review: &'a ReviewRequest) -> BoxFuture<'a, Review> {
        Box::pin(async { Review::Reject { reason: "nobody is there to review the completion".to_owned() } })
    }
}
