//! The shapes a result is normalized into: [`Normalized`] (binaries still pending) and the final
//! [`ToolOutcome`] (sent to the UI, printed by `--json`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::payload::Payload;

/// Who a piece of content is for (MCP `annotations.audience`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, Default)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Audience {
    /// No audience given: both.
    #[default]
    Both,
    /// Only the user: shown in the canvas, never in the model summary.
    User,
    /// Only the model: in the summary, not shown in the canvas by default.
    Assistant,
}

/// How the canvas should lay out a call's artifacts (see docs/result-shapes.md, "The display
/// block").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, Default)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum CanvasMode {
    /// Replace the previous call's tabs in the active pane.
    #[default]
    Replace,
    /// Add tabs.
    Append,
    /// Open in a new pane beside the current one.
    Split,
}

/// Which viewer shows an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Viewer {
    /// Raster or SVG image (SVG only ever as an image).
    Image,
    /// PDF pages.
    Pdf,
    /// Sanitized HTML, never executed.
    Html,
    /// Rendered markdown.
    Markdown,
    /// Source code / plain text with highlighting.
    Code,
    /// JSON tree.
    Json,
    /// Table.
    Csv,
    /// Plain text.
    Text,
    /// Audio player.
    Audio,
    /// No viewer shows the type: the file's facts, "Save as…" and "Open with the system
    /// application". Only for artifacts the user opens (the artifact browser); a result never
    /// opens a tab in it ([`viewer_for`](crate::viewer_for) says `None`).
    File,
}

/// A text part of the result, as the user reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct OutcomeText {
    /// The text (markdown contract markers removed).
    pub text: String,
    /// Declared MIME type (`text/markdown`, `text/plain`, ...), if any.
    pub mime: Option<String>,
    /// Who it is for.
    pub audience: Audience,
    /// `annotations.priority`, if given.
    pub priority: Option<f64>,
    /// Where it came from (`content[0]`).
    pub source: String,
}

/// Canvas layout intent for one result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, Default)]
#[ts(export)]
pub struct DisplayIntent {
    /// Open the canvas (asked for, or something showable arrived).
    pub open_canvas: bool,
    /// Artifact id to show first.
    pub primary: Option<String>,
    /// Layout mode.
    pub mode: CanvasMode,
    /// Viewer hint for the primary artifact, when valid.
    pub viewer: Option<Viewer>,
}

/// How long a dashboard tab lives (see docs/result-shapes.md, "Live dashboards (the canvas
/// envelope)").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum DashboardPersistence {
    /// Closed when its call's tabs are replaced.
    Ephemeral,
    /// Until the session ends.
    Session,
    /// Restored after restart until closed.
    Pinned,
}

/// A validated (not yet trusted: the origin allowlist decides later) `canvas` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct DashboardEnvelope {
    /// Tab key.
    pub id: String,
    /// Parsed, absolute http(s) URL.
    pub url: String,
    /// Lifetime.
    pub persistence: DashboardPersistence,
    /// Tab title.
    pub title: Option<String>,
    /// Capability token, passed as given; never logged.
    pub token: Option<String>,
    /// Layout mode.
    pub mode: CanvasMode,
}

/// One choice offered by a `needsInput:v1` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct NeedsInputOption {
    /// Label to show.
    pub label: String,
    /// Value to send.
    pub value: String,
    /// Longer text.
    pub description: Option<String>,
    /// The field it fills.
    pub field: Option<String>,
}

/// The tool needs more input before it can answer (`needsInput:v1`; see docs/result-shapes.md,
/// "Kind payloads").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct NeedsInput {
    /// The prompt.
    pub message: String,
    /// Fields that need values.
    pub fields: Vec<String>,
    /// Why.
    pub reason: Option<String>,
    /// Suggested values per field.
    pub suggestions: BTreeMap<String, Vec<String>>,
    /// Choices.
    pub options: Vec<NeedsInputOption>,
}

/// A tool-reported error (`isError: true`, or a `toolError:v1` payload).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolErrorInfo {
    /// `NETWORK_ERROR`, `NOT_FOUND`, ... or `TOOL_ERROR` for a bare `isError`.
    pub code: String,
    /// What went wrong.
    pub message: String,
    /// Whether retrying may help, when the tool said.
    pub retryable: Option<bool>,
    /// Extra details the tool gave.
    #[ts(type = "Record<string, unknown> | null")]
    pub details: Option<Value>,
}

/// An artifact as the outcome describes it (after storage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct OutcomeArtifact {
    /// `<namespace>_<sha256[..12]>`.
    pub id: String,
    /// Sanitized file name, unique within the result.
    pub name: String,
    /// MIME type after checking the bytes.
    pub mime: String,
    /// Size in bytes.
    #[ts(type = "number")]
    pub size: u64,
    /// Hex sha256.
    pub sha256: String,
    /// Human label from the server.
    pub description: Option<String>,
    /// Viewer to use, if it can be shown.
    pub viewer: Option<Viewer>,
    /// Where it came from: `content[1]`, `structuredContent.artifacts[0]`, `text:content[0].content`.
    pub source: String,
    /// Who it is for.
    pub audience: Audience,
    /// PDF page count, when known.
    pub pages: Option<u32>,
    /// Image width in pixels, when known.
    pub width: Option<u32>,
    /// Image height in pixels, when known.
    pub height: Option<u32>,
}

/// The normalized result of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolOutcome {
    /// Model-safe summary: bounded, deterministic, never base64.
    pub summary: String,
    /// User-facing structured data (the v2 `results`, a `kind` payload, or the JSON result with
    /// binaries replaced by artifact references).
    #[ts(type = "unknown")]
    pub results: Option<Value>,
    /// User-facing text parts (markdown, plain text), in order.
    pub texts: Vec<OutcomeText>,
    /// Stored artifacts, in result order.
    pub artifacts: Vec<OutcomeArtifact>,
    /// Canvas intent.
    pub display: DisplayIntent,
    /// Dashboard envelope, when the result carried one.
    pub dashboard: Option<DashboardEnvelope>,
    /// The tool asks for more input.
    pub needs_input: Option<NeedsInput>,
    /// The tool reported an error.
    pub error: Option<ToolErrorInfo>,
    /// The result's `kind` discriminator (`patternSearchResults:v1`), if any.
    pub kind: Option<String>,
    /// Parts that could not be read or were adjusted; nothing is dropped silently.
    pub warnings: Vec<String>,
    /// `meta_data` (only when ≤ the configured size).
    #[ts(type = "unknown")]
    pub meta: Option<Value>,
}

/// A binary found in the result, waiting to be stored.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingArtifact {
    /// Sanitized, unique file name.
    pub name: String,
    /// MIME type after checking the bytes.
    pub mime: String,
    /// The bytes.
    pub payload: Payload,
    /// Where it came from.
    pub source: String,
    /// Human label.
    pub description: Option<String>,
    /// Viewer hint given by the server (`artifacts[].viewer`), when valid.
    pub viewer_hint: Option<Viewer>,
    /// Who it is for.
    pub audience: Audience,
    /// A summary template from a per-tool rule.
    pub summary_template: Option<String>,
    /// Words for the template: `content_type` and sibling fields.
    pub template_vars: BTreeMap<String, String>,
    /// Text safety-net artifacts: head and tail preview for the summary, and cut size.
    pub preview: Option<(String, String, usize)>,
    /// The bytes turned out to be SVG or HTML although declared as something else: shown as
    /// source code, never as an image or a document.
    pub shown_as_source: bool,
}

/// What the host reports back for each pending artifact, in the same order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoredArtifact {
    /// Artifact id.
    pub id: String,
    /// Hex sha256.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// Page count (PDF), when a probe knew it.
    pub pages: Option<u32>,
    /// Pixel width, when a probe knew it.
    pub width: Option<u32>,
    /// Pixel height, when a probe knew it.
    pub height: Option<u32>,
}

/// A result after normalization, before its binaries are stored.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Normalized {
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// User-facing text parts.
    pub texts: Vec<OutcomeText>,
    /// Binaries to store.
    pub pending: Vec<PendingArtifact>,
    /// Structured user-facing data; may contain `⟦artifact:N⟧` placeholders.
    pub results: Option<Value>,
    /// Display hints as the server gave them.
    pub display_open: Option<bool>,
    /// `display.primary_file`.
    pub primary_file: Option<String>,
    /// Layout mode.
    pub mode: CanvasMode,
    /// `display.viewer_hint`, when valid.
    pub viewer_hint: Option<Viewer>,
    /// Dashboard envelope.
    pub dashboard: Option<DashboardEnvelope>,
    /// needsInput payload.
    pub needs_input: Option<NeedsInput>,
    /// Error.
    pub error: Option<ToolErrorInfo>,
    /// `kind` discriminator.
    pub kind: Option<String>,
    /// Warnings so far.
    pub warnings: Vec<String>,
    /// `meta_data`.
    pub meta: Option<Value>,
    /// When `results` was too long to inline: the pending artifact holding it.
    pub results_artifact: Option<usize>,
    /// Who the structured result is for (the canonical JSON block's audience): a user-only result
    /// is kept for the user but left out of the model's summary.
    pub results_audience: Audience,
}
