//! Types that cross to the UI and out of `mcp-canvas-cli --json`. TypeScript declarations are
//! generated from these (ts-rs) into `ui/src/wire/`; `scripts/check-wire-types.sh` fails on drift.

use mcp_canvas_contract::ToolOutcome;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// A configured server as the UI lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ServerView {
    /// The name it is configured under.
    pub name: String,
    /// `stdio` or `http`, or `invalid` when the entry cannot be used.
    pub transport: String,
    /// The command line or URL.
    pub target: String,
    /// Why the entry cannot be used, when it cannot.
    pub problem: Option<String>,
}

/// A tool as the UI lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolView {
    /// Its name on the server.
    pub name: String,
    /// Human title, when it has one.
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
    /// `readOnlyHint` annotation.
    pub read_only: Option<bool>,
    /// `destructiveHint` annotation.
    pub destructive: Option<bool>,
}

/// The result of one tool call: which call it was, and the normalized outcome (summary,
/// artifacts, display intent, needs_input, error, warnings, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CallOutcome {
    /// Id of this call.
    pub call_id: String,
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// What the call returned, normalized.
    #[serde(flatten)]
    #[ts(flatten)]
    pub outcome: ToolOutcome,
}
