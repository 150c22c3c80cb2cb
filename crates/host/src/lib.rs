//! The MCP host: which servers exist, how to reach them, and what happens when a tool is called.
//!
//! [`Host`] is what the desktop app and the CLI both drive. It reads the server config from the
//! data dir, connects to servers through rmcp on first use, and runs each call through the
//! pipeline in [`pipeline`]: find the tool → call it with a timeout → normalize the result
//! (`mcp-canvas-contract`) → store the binaries (`mcp-canvas-store`) → summarize.
//! Nothing here knows about Tauri or windows.
#![deny(missing_docs)]

/// The dashboard origin allowlist (`mcp_canvas_config::allowlist`), and auditing dashboard events.
pub mod allowlist {
    pub use crate::audit::{audit_dashboard, DashboardEvent};
    pub use mcp_canvas_config::allowlist::*;
}
pub mod apps;
/// Artifacts leaving the store as files (`mcp_canvas_files`): the file server and opened copies.
pub use mcp_canvas_files::{artifact_files, file_server};
/// The link between the desktop app and the proxy on one data dir (`mcp_canvas_app_link`).
pub use mcp_canvas_app_link as app_link;
mod arguments;
pub mod completion;
pub(crate) mod audit;
pub use mcp_canvas_config::{data_dir, servers as config, import as config_import, settings, settings_edit};
pub use mcp_canvas_client::{elicitation, health, oauth, opener};
/// Sampling (`mcp_canvas_sampling`): types, providers, policy, the sampler.
pub use mcp_canvas_sampling as sampling_core;
mod error;
mod housekeeping;
mod host;
mod ids;
mod pipeline;
mod tasks;
pub mod team_sync;
/// The team store's types (`[store] backend = "team"`).
pub use mcp_canvas_team as team;
/// Facts about stored artifacts for their summary lines (`mcp_canvas_ingest::probe`).
pub use mcp_canvas_ingest::probe;
mod protocol;
/// The protocol log's types (`mcp_canvas_trace`).
pub use mcp_canvas_trace as trace;
pub mod prompts;
pub mod resources;
pub mod sampling;
pub mod signin;
pub mod skills;
/// The wire types and the app commands' typed error (`mcp_canvas_wire`).
pub use mcp_canvas_wire as wire;

pub use error::{CommandError, ErrorKind, HostError};
pub use host::{Host, HostOptions};
pub use mcp_canvas_client::{validation::needs_confirmation, ChangedList, ClientError, ResourceWatch, ServerChange, ServerMessage};
pub use pipeline::{AppCall, CallControl, CallDetail, CallOptions, CallProgress, CancellationToken, ProgressFn};
