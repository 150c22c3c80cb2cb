//! Catalog records: what is known about one stored artifact.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How long an artifact is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Persistence {
    /// Removed when its session is cleared.
    Session,
    /// Kept until the user unpins or deletes it.
    Pinned,
}

impl Persistence {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Persistence::Session => "session",
            Persistence::Pinned => "pinned",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "session" => Some(Persistence::Session),
            "pinned" => Some(Persistence::Pinned),
            _ => None,
        }
    }
}

/// One artifact as the catalog describes it. Sent to the UI and printed by the CLI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ArtifactRecord {
    /// `<namespace>_<sha256 prefix>`; what the model and the user refer to.
    pub id: String,
    /// Hex sha256 of the bytes.
    pub sha256: String,
    /// File name.
    pub name: String,
    /// MIME type.
    pub mime: String,
    /// Size in bytes.
    #[ts(type = "number")]
    pub size: u64,
    /// Server that produced it.
    pub server: String,
    /// Tool that produced it.
    pub tool: String,
    /// The call that produced it.
    pub call_id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// Creation time, milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub created_at_ms: i64,
    /// Last time it was stored again, shown or exported, milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub last_used_at_ms: i64,
    /// Session-scoped or pinned.
    pub persistence: Persistence,
    /// Short human label, when the server gave one.
    pub description: Option<String>,
}

/// What the caller knows about an artifact before it is stored.
#[derive(Debug, Clone)]
pub struct NewArtifact<'a> {
    /// File name.
    pub name: &'a str,
    /// MIME type.
    pub mime: &'a str,
    /// Server name (also the id namespace).
    pub server: &'a str,
    /// Tool name.
    pub tool: &'a str,
    /// Call id.
    pub call_id: &'a str,
    /// Session id.
    pub session_id: &'a str,
    /// Short human label.
    pub description: Option<&'a str>,
    /// Session-scoped or pinned.
    pub persistence: Persistence,
    /// Now, milliseconds since the Unix epoch.
    pub now_ms: i64,
}
