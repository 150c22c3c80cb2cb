//! Errors of the artifact store.

use std::path::PathBuf;

/// What can go wrong in the store; every variant names the file or artifact involved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file-system operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What we were doing (`writing`, `renaming`, ...).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The SQLite catalog failed.
    #[error("artifact catalog: {0}")]
    Catalog(#[from] rusqlite::Error),
    /// The catalog's schema is newer than this build understands.
    #[error("artifact catalog schema version {found} is newer than this build's {supported}; update MCP Canvas")]
    SchemaTooNew {
        /// Version found in the file.
        found: i64,
        /// Highest version this build knows.
        supported: i64,
    },
    /// No artifact with that id.
    #[error("no artifact with id `{0}`")]
    NotFound(String),
    /// The search index cannot be read (it is emptied and built again by the indexer).
    #[error("the search index is damaged ({0}); it is built again when the indexer next starts, or now with `mcp-canvas-cli artifacts reindex`")]
    SearchDamaged(String),
    /// Catalog and blob disagree.
    #[error("artifact `{id}` is damaged: {reason}")]
    Corrupt {
        /// The artifact id.
        id: String,
        /// What disagrees.
        reason: String,
    },
}

pub(crate) fn io<'a>(action: &'static str, path: &'a std::path::Path) -> impl FnOnce(std::io::Error) -> StoreError + 'a {
    move |source| StoreError::Io { action, path: path.to_owned(), source }
}
