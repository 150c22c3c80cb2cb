//! Errors of reaching a server. Each names the server and, when it wrote any, quotes its last
//! stderr line and where its full log is.

use std::path::PathBuf;

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
