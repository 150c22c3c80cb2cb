//! [`CommandError`]: what every app command returns on failure — a kind the window acts on and
//! the message to show.

/// What kind of failure an error is, for a front end to act on: the window offers Sign in for
/// `sign_in`, Restart for `server_down`, points at the form for `bad_arguments`, and offers to
/// report `bug`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ErrorKind {
    /// The server wants the user to sign in (OAuth), or signing in failed.
    SignIn,
    /// The server could not be started or reached, or did not complete the handshake.
    ServerDown,
    /// The server answered this request with an error.
    ServerError,
    /// The arguments are wrong (not JSON, not the schema, a required one missing).
    BadArguments,
    /// A name that does not exist: server, tool, provider, artifact, tab.
    NotFound,
    /// The tool may change data and needs the user's confirmation first.
    NeedsConfirmation,
    /// The server did not answer in time.
    Timeout,
    /// The user cancelled.
    Cancelled,
    /// Refused by a rule: an App's request, a policy, a damaged or oversized file.
    Refused,
    /// A config or settings file is invalid, or the data directory cannot be used.
    Config,
    /// The artifact store or the team store failed.
    Storage,
    /// None of the above: MCP Canvas's own fault, worth reporting.
    Bug,
}

/// An error as the window's commands return it: its kind and the message to show.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS, thiserror::Error)]
#[error("{message}")]
#[ts(export)]
pub struct CommandError {
    /// What kind of failure, to act on.
    pub kind: ErrorKind,
    /// What happened and what to do, naming the server and tool involved.
    pub message: String,
}

impl CommandError {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }

    /// MCP Canvas's own fault (a task that panicked, a state that cannot be).
    pub fn bug(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Bug, message.to_string())
    }
}
