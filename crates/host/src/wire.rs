//! Types that cross to the UI and out of `mcp-canvas-cli --json`. TypeScript declarations are
//! generated from these (ts-rs) into `ui/src/wire/`; `scripts/check-wire-types.sh` fails on drift.

use mcp_canvas_store::ArtifactRecord;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// A configured server as the UI lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ServerView {
    /// The name it is configured under.
    pub name: String,
    /// The program that runs it.
    pub command: String,
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

/// The result of one tool call as the host presents it: a model-safe summary and the stored
/// artifacts. `error` is set when the call failed or the tool reported an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CallOutcome {
    /// Id of this call.
    pub call_id: String,
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// Short text for the model and the user; never contains binaries.
    pub summary: String,
    /// Stored artifacts, in the order the result carried them.
    pub artifacts: Vec<ArtifactRecord>,
    /// Parts of the result that could not be read.
    pub warnings: Vec<String>,
    /// What went wrong, when something did.
    pub error: Option<String>,
}
