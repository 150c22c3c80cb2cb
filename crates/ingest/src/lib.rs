//! A raw tool result in, a stored and summarized outcome out ([`Ingest`]): normalize (the
//! contract), stream each binary into the store — or adopt what was spilled while the message
//! was read ([`spill`]) —, ask the [`probe`]s for pages and pixel sizes, finish. The host's call
//! pipeline ends here; so does `mcp-canvas-cli normalize`.
#![deny(missing_docs)]

mod ingest;
pub mod probe;
pub mod spill;

pub use ingest::{now_ms, Ingest};

/// Why a result could not be stored.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The store could not take (or give back) what the result holds: the store's error kept
    /// whole (a full disk stays a storage failure across every hop).
    #[error("{context}: {source}")]
    Store {
        /// What was being stored, naming the server and tool.
        context: String,
        /// The store's error.
        source: mcp_canvas_store::StoreError,
    },
    /// Storing panicked: a bug, never the server's or the user's fault.
    #[error("{0}")]
    Panicked(String),
    /// The message could not be read or is not JSON.
    #[error("{0}")]
    Input(String),
    /// The contract refused the result.
    #[error(transparent)]
    Contract(#[from] mcp_canvas_contract::ContractError),
}
