//! The normalized shape every tool result is turned into.

use serde_json::Value;

/// A tool result after normalization: what to show, what to store, what went wrong.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NormalizedResult {
    /// Text parts in the order the server sent them.
    pub texts: Vec<ResultText>,
    /// Decoded binaries to be stored as artifacts; never shown to the model.
    pub binaries: Vec<ExtractedBinary>,
    /// `structuredContent`, when present.
    pub structured: Option<Value>,
    /// The server flagged the result as an error (`isError: true`).
    pub is_error: bool,
    /// Parts that could not be read; each says which part and why. Nothing else is dropped.
    pub warnings: Vec<String>,
}

/// One piece of text from the result.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultText {
    /// The text itself.
    pub text: String,
    /// Its declared MIME type (`text/markdown`, `application/json`, ...), if any.
    pub mime: Option<String>,
}

/// Bytes taken out of a result, with what is known about them.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractedBinary {
    /// A file name: the one the server gave, or one derived from the block and MIME type.
    pub name: String,
    /// The MIME type the server declared.
    pub mime: String,
    /// The decoded bytes.
    pub bytes: Vec<u8>,
    /// Where in the result it was found, e.g. `content[1]`.
    pub source: String,
}
