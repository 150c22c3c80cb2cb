//! Errors of the team store. Each names what to fix; none carries a credential (the catalog's
//! password is never in a URL we print, and the bucket's keys never reach an error).

use mcp_canvas_store::StoreError;

/// What can go wrong between this machine and the team's bucket or catalog.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    /// `[store]` is incomplete or wrong.
    #[error("team store settings: {0}")]
    Settings(String),
    /// The OS keyring could not keep the catalog's password.
    #[error("OS keyring: {0}; set MCP_CANVAS_CATALOG_PASSWORD instead")]
    Keyring(String),
    /// The bucket refused or could not be reached.
    #[error("team bucket {bucket}: {what}{remedy}")]
    Bucket {
        /// `s3://bucket/prefix`.
        bucket: String,
        /// What failed, in the server's words.
        what: String,
        /// What to do about it (starts with "; " or is empty).
        remedy: String,
    },
    /// The catalog refused or could not be reached.
    #[error("team catalog {catalog}: {what}{remedy}")]
    Catalog {
        /// `postgres://user@host/db` (never with a password).
        catalog: String,
        /// What failed.
        what: String,
        /// What to do about it.
        remedy: String,
    },
    /// The catalog was made by a newer MCP Canvas.
    #[error("team catalog {catalog} is at schema version {found}, newer than this build's {supported}: update MCP Canvas on this machine")]
    SchemaTooNew {
        /// Where.
        catalog: String,
        /// Version found.
        found: i32,
        /// Highest version this build knows.
        supported: i32,
    },
    /// The catalog is at an older schema version: upgrading it is a deliberate step.
    #[error("team catalog {catalog} is at schema version {found}; this build needs {supported}: run `mcp-canvas-cli store upgrade` once (teammates on older builds must update too)")]
    SchemaTooOld {
        /// Where.
        catalog: String,
        /// Version found.
        found: i32,
        /// Version needed.
        supported: i32,
    },
    /// Bytes do not match the hash they are stored under.
    #[error("artifact `{id}`: {reason}")]
    Mismatch {
        /// The artifact.
        id: String,
        /// What disagrees.
        reason: String,
    },
    /// The writer's reservation expired before it registered (a drain longer than a day, a
    /// suspended laptop): the blob may be gone; the artifact is retried from the start.
    #[error("artifact `{id}`: its upload took longer than its reservation; it will be uploaded again")]
    ReservationLost {
        /// The artifact.
        id: String,
    },
    /// Larger than S3's largest object.
    #[error("artifact `{id}` is {size} bytes: the team store takes files up to 5 TiB (S3's largest object); it stays on this machine only")]
    TooLarge {
        /// The artifact.
        id: String,
        /// Its size.
        size: u64,
    },
    /// No such artifact in the team catalog (or it is a teammate's private one).
    #[error("no team artifact with id `{0}`")]
    NotFound(String),
    /// The local store failed.
    #[error(transparent)]
    Local(#[from] StoreError),
    /// Work on the local store or the keyring, moved off the async worker, did not finish (it
    /// panicked): MCP Canvas's own fault.
    #[error("{0} (a bug in MCP Canvas: please report it)")]
    Bug(String),
}

impl From<tokio::task::JoinError> for TeamError {
    fn from(e: tokio::task::JoinError) -> Self {
        Self::Bug(format!("a background task of the team store failed: {e}"))
    }
}
