//! What the user configures, read and written safely: which servers exist (`servers.json`, and
//! imports from Claude Desktop, VS Code and Cursor files), `settings.toml` and editing one key of
//! it with its comments kept, where the data dir is, the dashboard origin allowlist, and which
//! values are secrets that must never reach a log.
//!
//! No I/O beyond reading and atomically replacing these files; no MCP, no async. Every error
//! names the file and what is wrong ([`ConfigError`]).
#![deny(missing_docs)]

pub mod allowlist;
pub mod data_dir;
mod error;
pub mod import;
pub mod redact;
pub mod servers;
pub mod settings;
pub mod settings_edit;

pub use error::ConfigError;
