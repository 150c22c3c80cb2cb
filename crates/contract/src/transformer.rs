//! The escape hatch for embedders (the custom-transformer layer; see docs/result-shapes.md, "The
//! layers, in order"): code that knows a particular server's results better than any rule can.
//!
//! A transformer sees the raw result first. It may rewrite the JSON in place and hand binaries to
//! the [`ExtractionSink`], which returns a placeholder to put where the bytes were; the placeholder
//! becomes an artifact reference in the outcome. Returning [`Transformed::Done`] skips the
//! per-tool rules and base64 detection; MCP binary blocks and the size safety net still run.
//!
//! ```
//! use mcp_canvas_contract::{ExtractionSink, OutputTransformer, Payload, Transformed};
//! use serde_json::Value;
//!
//! struct ReportServer;
//! impl OutputTransformer for ReportServer {
//!     fn applies_to(&self, server: &str, _tool: &str) -> bool { server == "reports" }
//!     fn transform(&self, result: &mut Value, sink: &mut ExtractionSink<'_, '_>) -> Result<Transformed, String> {
//!         if let Some(Value::String(hex)) = result.pointer_mut("/structuredContent/pdf_hex") {
//!             let bytes: Vec<u8> = (0..hex.len() / 2)
//!                 .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|e| e.to_string()))
//!                 .collect::<Result<_, _>>()?;
//!             *hex = sink.add_artifact(Some("report.pdf"), Some("application/pdf"), Payload::Bytes(bytes), None);
//!         }
//!         Ok(Transformed::Continue)
//!     }
//! }
//! ```

use serde_json::Value;

use crate::{normalize::Extractor, payload::Payload};

/// What a transformer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transformed {
    /// Keep going with the other layers.
    Continue,
    /// The transformer handled extraction: skip per-tool rules and base64 detection.
    Done,
}

/// Custom extraction for results a rule cannot describe.
pub trait OutputTransformer: Send + Sync {
    /// Whether this transformer handles `tool` on `server`.
    fn applies_to(&self, server: &str, tool: &str) -> bool;
    /// Rewrites `result` (the whole raw `CallToolResult` JSON) in place. An `Err` becomes a
    /// warning; the result is then processed as if the transformer did not exist.
    fn transform(&self, result: &mut Value, sink: &mut ExtractionSink<'_, '_>) -> Result<Transformed, String>;
}

/// Where a transformer hands over binaries.
pub struct ExtractionSink<'s, 'c> {
    pub(crate) extractor: &'s mut Extractor<'c>,
}

impl ExtractionSink<'_, '_> {
    /// Queues bytes as an artifact and returns the placeholder to leave in their place.
    /// The MIME type is checked against the bytes like any other.
    pub fn add_artifact(&mut self, name: Option<&str>, mime: Option<&str>, payload: Payload, description: Option<&str>) -> String {
        let source = "transformer".to_owned();
        let index = self.extractor.add(payload, mime, name, source, description.map(str::to_owned), Default::default());
        crate::finish::placeholder(index)
    }

    /// Records a warning on the outcome.
    pub fn warn(&mut self, message: impl Into<String>) {
        self.extractor.warnings.push(message.into());
    }
}
