//! Errors of the host. Each message names the server and tool involved and says what to do.

use std::path::PathBuf;

use mcp_canvas_wire::{CommandError, ErrorKind};

/// What can go wrong between "call this tool" and a stored, summarized result.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The data dir could not be determined or prepared.
    #[error("data directory: {0}")]
    DataDir(String),
    /// The team store (`[store] backend = "team"`) refused or could not be reached.
    #[error(transparent)]
    Team(#[from] mcp_canvas_team::TeamError),
    /// A team store command was asked for with `backend = "local"`.
    #[error("this data dir has no team store: set [store] backend = \"team\" with s3_url, catalog_url and team in settings.toml (docs/team-store.md)")]
    NoTeamStore,
    /// A result handed in from outside a connection (a file, stdin) could not be read or is not
    /// JSON; the message names where it came from.
    #[error("{0}")]
    Input(String),
    /// A config file (`servers.json`, `settings.toml`, `extraction.toml`) is unreadable or
    /// invalid, or a change to it was refused.
    #[error(transparent)]
    Config(#[from] mcp_canvas_config::ConfigError),
    /// No server by that name in the config.
    #[error("no server named `{name}` in {config}; configured: {}", list_or_none(.configured))]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// Names that exist.
        configured: Vec<String>,
        /// The config file.
        config: PathBuf,
    },
    /// The server could not be started or reached, or failed the request.
    #[error(transparent)]
    Server(#[from] mcp_canvas_client::ClientError),
    /// The server lists no tool by that name.
    #[error("server `{server}` has no tool `{tool}`; available: {}", list_or_none(.available))]
    UnknownTool {
        /// Server name.
        server: String,
        /// Tool asked for.
        tool: String,
        /// Tools the server lists.
        available: Vec<String>,
    },
    /// The arguments are not a JSON object.
    #[error("arguments for `{server}`/`{tool}` {reason}; pass a JSON object such as '{{\"values\": [1, 2]}}'")]
    InvalidArguments {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A file argument cannot be sent: not a reference, not stored, not the caller's to send,
    /// a type or a size the tool does not take.
    #[error("`{server}`/`{tool}`: {reason}")]
    FileRefused {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// Which argument and why, with the remedy.
        reason: String,
    },
    /// The arguments do not satisfy the tool's `inputSchema`.
    #[error("arguments for `{server}`/`{tool}` do not match its input schema: {}", .problems.join("; "))]
    ArgumentsRejected {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// One line per problem, naming the field.
        problems: Vec<String>,
    },
    /// An MCP App's view could not be loaded.
    #[error("the App view `{uri}` of server `{server}` cannot be shown: {reason}; the server's author can check it with `mcp-canvas-cli apps {server}`")]
    AppView {
        /// Server name.
        server: String,
        /// The `ui://` URI.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A skill's file did not match the server's listing (size, digest, frontmatter), is not in
    /// its manifest, or the skill is over the limits: nothing of it is shown or stored.
    #[error("skill `{skill}` of server `{server}` was not loaded: {reason}. Nothing of it was shown; the server's author can compare its skills/list entry with the files it serves")]
    SkillRefused {
        /// Server name.
        server: String,
        /// The skill (its name or SKILL.md URI).
        skill: String,
        /// What did not match.
        reason: String,
    },
    /// An MCP App asked for a tool it may not call.
    #[error("an App of server `{server}` may not call tool `{tool}`: {reason}")]
    AppRefused {
        /// Server name.
        server: String,
        /// Tool asked for.
        tool: String,
        /// Why.
        reason: String,
    },
    /// The tool may change or delete data and the user has not confirmed.
    #[error("tool `{tool}` on server `{server}` may change or delete data and needs confirmation (CLI: add --yes)")]
    NeedsConfirmation {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
    },
    /// The server did not answer in time (time spent waiting for the user to answer the
    /// server's questions does not count).
    #[error("server `{server}` did not answer `{tool}` within {seconds} s; the call was cancelled (if the tool is just slow, raise --timeout, or `timeout_seconds` for this server in servers.json)")]
    Timeout {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// The limit.
        seconds: u64,
    },
    /// The caller cancelled the call; the server was sent `notifications/cancelled`.
    #[error("the call to `{tool}` on server `{server}` was cancelled{}; the server was told to stop (notifications/cancelled)", .reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default())]
    Cancelled {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// Who or what cancelled it (`Ctrl-C`, ...).
        reason: Option<String>,
    },
    /// No sampling provider by that name in `[sampling]`.
    #[error("there is no sampling provider named `{name}`; configured: {} (add it in Settings → Sampling or [[sampling.providers]] in settings.toml)", list_or_none(.configured))]
    UnknownProvider {
        /// The name asked for.
        name: String,
        /// Names that exist.
        configured: Vec<String>,
    },
    /// A provider's API key could not be stored in or removed from the OS keyring.
    #[error(transparent)]
    Key(#[from] mcp_canvas_sampling::keys::KeyError),
    /// The result could not be interpreted.
    #[error(transparent)]
    Contract(#[from] mcp_canvas_contract::ContractError),
    /// Storing (or reading back) what a result holds failed: a full disk, a damaged blob.
    #[error("{context}: {source}")]
    Storage {
        /// What was being stored, naming the server and tool.
        context: String,
        /// The store's error, kept whole.
        source: mcp_canvas_store::StoreError,
    },
    /// MCP Canvas's own fault: a step that panicked or a state that cannot be.
    #[error("{0} (a bug in MCP Canvas: please report it)")]
    Bug(String),
    /// Storing an artifact failed.
    #[error("storing an artifact from `{server}`/`{tool}`: {source}")]
    Store {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// The store's error.
        source: mcp_canvas_store::StoreError,
    },
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    }
}

impl HostError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::DataDir(_) | Self::Config(_) | Self::Input(_) => ErrorKind::Config,
            Self::Team(e) => team_kind(e),
            Self::NoTeamStore => ErrorKind::Config,
            Self::UnknownServer { .. } | Self::UnknownTool { .. } | Self::UnknownProvider { .. } => ErrorKind::NotFound,
            Self::Server(e) => client_kind(e),
            Self::InvalidArguments { .. } | Self::ArgumentsRejected { .. } | Self::FileRefused { .. } => ErrorKind::BadArguments,
            Self::AppView { .. } | Self::AppRefused { .. } | Self::SkillRefused { .. } => ErrorKind::Refused,
            Self::NeedsConfirmation { .. } => ErrorKind::NeedsConfirmation,
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::Cancelled { .. } => ErrorKind::Cancelled,
            Self::Key(_) => ErrorKind::Config,
            Self::Contract(_) => ErrorKind::ServerError,
            Self::Store { source, .. } | Self::Storage { source, .. } => store_kind(source),
            Self::Bug(_) => ErrorKind::Bug,
        }
    }
}

impl From<mcp_canvas_ingest::IngestError> for HostError {
    fn from(error: mcp_canvas_ingest::IngestError) -> Self {
        use mcp_canvas_ingest::IngestError;
        match error {
            IngestError::Store { context, source } => Self::Storage { context, source },
            IngestError::Panicked(context) => Self::Bug(context),
            IngestError::Input(message) => Self::Input(message),
            IngestError::Contract(error) => Self::Contract(error),
        }
    }
}

/// Work moved off an async worker (`spawn_blocking`) that did not finish: it panicked (or the
/// runtime is shutting down). MCP Canvas's own fault, never the user's.
impl From<tokio::task::JoinError> for HostError {
    fn from(e: tokio::task::JoinError) -> Self {
        Self::Bug(format!("a background task of MCP Canvas failed: {e}"))
    }
}

impl From<mcp_canvas_store::StoreError> for HostError {
    fn from(source: mcp_canvas_store::StoreError) -> Self {
        Self::Storage { context: "the artifact store".to_owned(), source }
    }
}

/// The kind of a server connection's failure.
pub fn client_kind(e: &mcp_canvas_client::ClientError) -> ErrorKind {
    use mcp_canvas_client::{ClientError as C, RequestCause};
    match e {
        C::Config(_) => ErrorKind::Config,
        C::Spawn { .. } | C::Handshake { .. } => ErrorKind::ServerDown,
        C::Request { cause: RequestCause::Lost, .. } => ErrorKind::ServerDown,
        // The server refused the arguments: JSON-RPC "invalid params" (MCP also answers an
        // unknown tool or prompt name with it; the form is still where to look), or an internal
        // error whose message says the arguments are wrong (`RequestCause::refused`).
        C::Request { cause: RequestCause::BadArguments { .. } | RequestCause::Refused { code: -32602 }, .. } => ErrorKind::BadArguments,
        C::Request { .. } => ErrorKind::ServerError,
        C::SignInRequired { .. } | C::SignIn { .. } => ErrorKind::SignIn,
    }
}

/// The kind of an artifact store failure.
pub fn store_kind(e: &mcp_canvas_store::StoreError) -> ErrorKind {
    match e {
        mcp_canvas_store::StoreError::NotFound(_) => ErrorKind::NotFound,
        _ => ErrorKind::Storage,
    }
}

/// The kind of a team store failure.
pub fn team_kind(e: &mcp_canvas_team::TeamError) -> ErrorKind {
    use mcp_canvas_team::TeamError as T;
    match e {
        T::Settings(_) | T::Keyring(_) | T::SchemaTooNew { .. } | T::SchemaTooOld { .. } => ErrorKind::Config,
        T::NotFound(_) => ErrorKind::NotFound,
        T::Mismatch { .. } | T::TooLarge { .. } => ErrorKind::Refused,
        T::Local(e) => store_kind(e),
        T::Bug(_) => ErrorKind::Bug,
        _ => ErrorKind::Storage,
    }
}

/// A lower crate's error as a [`CommandError`], its kind decided here (the wire crate knows no
/// lower crate): `.map_err(command_error)` for a store, team, config, connection or key error.
pub fn command_error(e: impl Into<HostError>) -> CommandError {
    CommandError::from(e.into())
}

/// A background task that did not finish: a panic is a [`ErrorKind::Bug`].
pub fn join_error(e: tokio::task::JoinError) -> CommandError {
    CommandError::bug(format!("a background task of MCP Canvas failed: {e}"))
}

impl From<HostError> for CommandError {
    fn from(e: HostError) -> Self {
        Self::new(e.kind(), e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_has_the_kind_the_window_acts_on() {
        let e = HostError::UnknownServer { name: "x".into(), configured: vec![], config: "servers.json".into() };
        assert_eq!(CommandError::from(e).kind, ErrorKind::NotFound);
        let e = HostError::Server(mcp_canvas_client::ClientError::SignInRequired { server: "s".into(), challenge: String::new(), more_scope: false });
        let command = CommandError::from(e);
        assert_eq!(command.kind, ErrorKind::SignIn);
        assert!(command.message.contains("sign in"), "{}", command.message);
        let e = HostError::Server(mcp_canvas_client::ClientError::Handshake { server: "s".into(), reason: "exited".into(), stderr_tail: vec![], log: "l".into() });
        assert_eq!(CommandError::from(e).kind, ErrorKind::ServerDown);
        let e = HostError::InvalidArguments { server: "s".into(), tool: "t".into(), reason: "are not JSON".into() };
        assert_eq!(CommandError::from(e).kind, ErrorKind::BadArguments);
        // A server's refusal: invalid params, or an internal error that says the arguments are
        // wrong, is "Fix the arguments"; any other internal error is the server's.
        let refused = |code: i32, message: &str| {
            let cause = mcp_canvas_client::RequestCause::refused(code, message);
            let e = mcp_canvas_client::ClientError::Request { server: "s".into(), what: "calling tool t".into(), reason: message.into(), cause, stderr_tail: vec![], log: "l".into() };
            CommandError::from(HostError::Server(e)).kind
        };
        assert_eq!(refused(-32602, "Invalid params"), ErrorKind::BadArguments);
        assert_eq!(refused(-32603, "Invalid arguments: `values` must be an array"), ErrorKind::BadArguments);
        assert_eq!(refused(-32603, "Internal error: the database is down"), ErrorKind::ServerError);
        assert_eq!(command_error(mcp_canvas_store::StoreError::NotFound("a".into())).kind, ErrorKind::NotFound);
        assert_eq!(serde_json::to_value(CommandError::new(ErrorKind::ServerDown, "m")).unwrap(), serde_json::json!({ "kind": "server_down", "message": "m" }));
    }
}
