//! Errors of reaching a server. Each names the server and, when it wrote any, quotes its last
//! stderr line and where its full log is.

use std::path::PathBuf;

/// Why a request failed, kept as data so a front end can act on it (restart a server that is
/// gone, point at the arguments a server refused) without reading the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestCause {
    /// The connection closed or could not carry the request: the server is gone.
    Lost,
    /// The server answered with a JSON-RPC error of this code (`-32602`: invalid params).
    Refused {
        /// The JSON-RPC error code.
        code: i32,
    },
    /// Anything else: an answer that could not be read or was not the one asked for, a bound of
    /// ours (pages, rounds), a server that does not offer what was asked.
    Other,
}

impl RequestCause {
    /// The cause of an rmcp request failure.
    pub fn of(error: &rmcp::ServiceError) -> Self {
        match error {
            rmcp::ServiceError::McpError(data) => Self::Refused { code: data.code.0 },
            rmcp::ServiceError::TransportClosed => Self::Lost,
            // Also an HTTP error status on a live connection: `failed_request` tells them apart.
            _ => Self::Other,
        }
    }
}

/// A server could not be started, did not complete the handshake, or failed a request.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server's entry in servers.json is unusable.
    #[error(transparent)]
    Config(#[from] mcp_canvas_config::ConfigError),
    /// The server's program could not be started.
    #[error("server `{server}`: cannot start `{command}`: {reason}. Check its `command` in {config}")]
    Spawn {
        /// Server name.
        server: String,
        /// The program we tried to run.
        command: String,
        /// The OS error.
        reason: String,
        /// The config file.
        config: PathBuf,
    },
    /// The server started but the MCP handshake did not complete.
    #[error("server `{server}` did not complete the MCP handshake: {reason}{}", stderr_hint(.stderr_tail, .log))]
    Handshake {
        /// Server name.
        server: String,
        /// Why the handshake failed.
        reason: String,
        /// The last lines the server wrote to stderr.
        stderr_tail: Vec<String>,
        /// The server's log file.
        log: PathBuf,
    },
    /// The server failed the request (protocol error, unreadable answer, connection lost).
    #[error("server `{server}`, {what}: {reason}{}", stderr_hint(.stderr_tail, .log))]
    Request {
        /// Server name.
        server: String,
        /// What we asked for (`listing tools`, `calling tool x`).
        what: String,
        /// The error.
        reason: String,
        /// Why, as a front end acts on it: the connection was lost, the server refused the
        /// request with a JSON-RPC error, or anything else.
        cause: RequestCause,
        /// The last lines the server wrote to stderr.
        stderr_tail: Vec<String>,
        /// The server's log file.
        log: PathBuf,
    },
    /// The server wants a signed-in user (HTTP 401), or more permission than the token carries
    /// (403 `insufficient_scope`).
    #[error("server `{server}` {}: sign in with the Sign in button on the server in MCP Canvas, or run `mcp-canvas-cli servers login {server}`", if *.more_scope { "needs more permission than you granted it" } else { "asks you to sign in (OAuth)" })]
    SignInRequired {
        /// Server name.
        server: String,
        /// The server's `WWW-Authenticate` header (no secret: it is what the server sends anyone).
        challenge: String,
        /// 403 `insufficient_scope` rather than 401.
        more_scope: bool,
    },
    /// Signing in did not finish.
    #[error("signing in to server `{server}` did not finish: {reason}. Try again with Sign in (or `mcp-canvas-cli servers login {server}`)")]
    SignIn {
        /// Server name.
        server: String,
        /// Why (never a token).
        reason: String,
    },
}

fn stderr_hint(tail: &[String], log: &std::path::Path) -> String {
    match tail.last() {
        Some(last) => format!(" (its last stderr line: \"{last}\"; full log: {})", log.display()),
        None => format!(" (it wrote nothing to stderr; log: {})", log.display()),
    }
}
