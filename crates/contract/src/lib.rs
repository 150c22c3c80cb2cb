//! The tool-result contract: raw `CallToolResult` JSON in, a normalized outcome out.
//!
//! This crate does no I/O and knows nothing of MCP transports, storage or windows. It decides what
//! a result *is*: text the model and the user read, binaries that must be stored instead of shown
//! to the model, structured data, and whether the call failed. The host stores the binaries and
//! then asks [`summarize`] for the short, model-safe text that stands in for them.
//!
//! Today it understands MCP content blocks (`text`, `image`, `audio`, embedded `resource`,
//! `resource_link`), `structuredContent` and `isError`. Every other shape the specs define is
//! widened in here, behind the same entry point, [`normalize_tool_result`].
#![deny(missing_docs)]

mod content_blocks;
mod outcome;
mod summary;

pub use outcome::{ExtractedBinary, NormalizedResult, ResultText};
pub use summary::{summarize, StoredArtifactRef};

use serde_json::Value;

/// What a tool call returned, with the names needed to interpret it.
#[derive(Debug, Clone, Copy)]
pub struct RawToolResult<'a> {
    /// The configured name of the server that answered.
    pub server: &'a str,
    /// The tool's name as the server lists it.
    pub tool: &'a str,
    /// The `CallToolResult` exactly as received, as JSON.
    pub result: &'a Value,
}

/// A result that cannot be interpreted at all (not an object, `content` not an array).
///
/// Individual bad parts (a block with invalid base64, an unknown block type) are not errors: they
/// become warnings on the [`NormalizedResult`] and the rest of the result is kept.
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
}

/// Normalizes one tool result. See the crate docs for the shapes it understands.
pub fn normalize_tool_result(raw: RawToolResult<'_>) -> Result<NormalizedResult, ContractError> {
    let Some(object) = raw.result.as_object() else {
        return Err(ContractError::NotAnObject {
            server: raw.server.to_owned(),
            tool: raw.tool.to_owned(),
            found: json_type_name(raw.result),
        });
    };
    let mut normalized = NormalizedResult {
        is_error: object.get("isError").and_then(Value::as_bool).unwrap_or(false),
        structured: object.get("structuredContent").cloned(),
        ..NormalizedResult::default()
    };
    match object.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::Array(blocks)) => content_blocks::read_blocks(blocks, raw.tool, &mut normalized),
        Some(_) => {
            return Err(ContractError::ContentNotArray {
                server: raw.server.to_owned(),
                tool: raw.tool.to_owned(),
            })
        }
    }
    Ok(normalized)
}

fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
