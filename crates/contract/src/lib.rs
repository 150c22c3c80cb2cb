//! The tool-result contract: a raw `CallToolResult` in, a normalized outcome out.
//!
//! This crate does no I/O and knows nothing of MCP transports, storage or windows. It decides what
//! a result *is* — text the model and the user read, binaries that must be stored instead of shown
//! to the model, structured data, a request for more input, an error, a dashboard — and, once the
//! host has stored the binaries, writes the short model-safe summary that stands in for them.
//!
//! Two steps, so that storage (I/O) stays outside:
//! 1. [`Normalizer::normalize`] detects the result's shape and runs the extraction layers in
//!    order (custom transformers → per-tool rules → MCP binary blocks → base64 detection → size
//!    safety net; see docs/result-shapes.md, "The layers, in order"), giving a [`Normalized`]
//!    whose binaries are [`PendingArtifact`]s.
//! 2. The host streams each pending artifact's [`Payload`] into its store and calls
//!    [`Normalized::finish`] with what it stored, giving the [`ToolOutcome`] (summary included).
//!
//! Shapes understood (see `shapes.rs`): MCP content blocks with annotations; `structuredContent`;
//! JSON text blocks (canonical over `structuredContent`; see docs/result-shapes.md, "Which
//! payload is canonical"); the v2 contract (`results`, `meta_data`, `artifacts`, `display`,
//! `canvas`) and its legacy arrays; `kind`-discriminated payloads (`needsInput:v1`,
//! `toolError:v1`); markdown with contract markers; plain JSON with base64 or `data:` URLs in
//! fields at any depth.
#![deny(missing_docs)]

mod base64_runs;
mod base64_scan;
mod blocks;
mod canvas_intent;
mod config;
mod finish;
mod kinds;
mod media_type;
mod names;
mod normalize;
mod outcome;
mod payload;
mod rules;
mod shapes;
mod sniff;
mod summary;
mod transformer;
mod walk;

pub use base64_runs::{is_base64_char, longest_base64_run, map_base64_runs};
pub use canvas_intent::viewer_for;
pub use media_type::{media_type_or_octet_stream, parse_media_type, MediaTypeError, MAX_MEDIA_TYPE_LEN, OCTET_STREAM};
pub use names::extension_for;
pub use config::{ExtractionConfig, FieldRule, ToolRule};
pub use normalize::Normalizer;
pub use outcome::{
    Audience, CanvasMode, DashboardEnvelope, DashboardPersistence, DisplayIntent, NeedsInput, NeedsInputOption, Normalized,
    OutcomeArtifact, OutcomeText, PendingArtifact, StoredArtifact, ToolErrorInfo, ToolOutcome, Viewer,
};
pub use payload::Payload;
pub use summary::{human_size, kind_label};
pub use transformer::{ExtractionSink, OutputTransformer, Transformed};

use serde_json::Value;

/// What a tool call returned, with the names needed to interpret it.
#[derive(Debug, Clone)]
pub struct RawToolResult<'a> {
    /// The configured name of the server that answered.
    pub server: &'a str,
    /// The tool's name as the server lists it.
    pub tool: &'a str,
    /// The `CallToolResult` exactly as received, as JSON. Taken by value: large strings are moved
    /// into artifacts, not copied.
    pub result: Value,
    /// The tool's declared `outputSchema`, if any.
    pub output_schema: Option<&'a Value>,
}

/// A result that cannot be interpreted at all. Bad *parts* of a result are never errors: they
/// become warnings on the outcome and the rest is kept.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ContractError {
    /// The result is not a JSON object.
    #[error("tool `{tool}` on server `{server}` returned {found} instead of a result object")]
    NotAnObject {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// The JSON type that came instead.
        found: &'static str,
    },
    /// `content` is present but not an array.
    #[error("tool `{tool}` on server `{server}` returned `content` that is not an array")]
    ContentNotArray {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
    },
    /// The per-tool rules file is invalid.
    #[error("extraction rules: {0}")]
    Rules(String),
}

/// Normalizes with the default configuration and no transformers.
pub fn normalize_tool_result(raw: RawToolResult<'_>) -> Result<Normalized, ContractError> {
    Normalizer::new(&ExtractionConfig::default()).normalize(raw)
}

/// How the contract reads `text` as base64: `None` when it is not whole base64 (either alphabet,
/// padding optional), else whether its decoded head is confidently a binary or document — what
/// makes a base64 JSON field or text block an artifact. Only the first 32 KiB of characters
/// decide the second part.
pub fn base64_verdict(text: &str) -> Option<bool> {
    base64_scan::check_base64(text)?;
    Some(base64_scan::identify_base64(text).is_some())
}

/// "a string", "an object", ... for messages about JSON values of the wrong type.
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The media type of a local file named `name` whose first bytes are `head`: what the bytes say
/// when they say it confidently, else what the name says, else `application/octet-stream`.
pub fn media_type_for_file(name: &str, head: &[u8]) -> String {
    sniff::reconcile(names::mime_for_name(name), head).0
}
