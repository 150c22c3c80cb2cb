//! The MCP host: which servers exist, how to reach them, and what happens when a tool is called.
//!
//! [`Host`] is what the desktop app and the CLI both drive. It reads the server config from the
//! data dir, connects to servers through rmcp on first use, and runs each call through the
//! pipeline in [`pipeline`]: find the tool → call it with a timeout → normalize the result
//! (`mcp-canvas-contract`) → store the binaries (`mcp-canvas-store`) → summarize.
//! Beside it, what the host serves to other local processes: capability URLs for tools
//! ([`file_server`]), the verified copies the desktop opens ([`artifact_files`]) and the
//! app ↔ proxy socket ([`app_link`]).
//! Nothing here knows about Tauri or windows. Callers import the types of the crates beneath
//! (`mcp-canvas-wire`, `-client`, `-config`, …) from those crates.
#![deny(missing_docs)]

pub mod app_link;
pub mod apps;
pub mod artifact_files;
mod arguments;
pub mod audit;
pub mod completion;
pub mod error;
pub mod file_server;
pub mod files_in;
mod housekeeping;
mod host;
mod ids;
mod pipeline;
pub mod prompts;
mod protocol;
pub mod resources;
pub mod sampling;
pub mod search;
pub mod signin;
pub mod skills;
mod tasks;
pub mod team_sync;

pub use error::HostError;
pub use host::{Host, HostOptions};
pub use pipeline::{CallControl, CallDetail, CallOptions};
