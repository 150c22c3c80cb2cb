//! Errors of reaching a server. Each names the server and, when it wrote any, quotes its last
//! stderr line and where its full log is.

use std::path::PathBuf;

/// Why a request failed, kept as data so a front end can act on it (restart a server that is
/// gone, point at the arguments a server refused) without reading the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestCause {
    /// The connection closed or could not carry the request: the server is gone.
    Lost,
    /// The server refused the request's arguments ([`RequestCause::refused`]): a JSON-RPC
    /// "invalid params" (`-32602`), or an "internal error" (`-32603`) whose message says that the
    /// arguments are wrong — servers whose validation throws often answer that way.
    BadArguments {
        /// The JSON-RPC error code.
        code: i32,
    },
    /// The server answered with another JSON-RPC error of this code.
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
            rmcp::ServiceError::McpError(data) => Self::refused(data.code.0, &data.message),
            rmcp::ServiceError::TransportClosed => Self::Lost,
            // Also an HTTP error status on a live connection: `failed_request` tells them apart.
            _ => Self::Other,
        }
    }

    /// The cause of a JSON-RPC error with `code` and `message` (a request's answer, a failed
    /// task's error): [`RequestCause::BadArguments`] for `-32602` always, and for `-32603` when
    /// [`says_arguments_are_wrong`] of its message; [`RequestCause::Refused`] otherwise.
    pub fn refused(code: i32, message: &str) -> Self {
        match code {
            -32602 => Self::BadArguments { code },
            -32603 if says_arguments_are_wrong(message) => Self::BadArguments { code },
            _ => Self::Refused { code },
        }
    }
}

/// Whether an error message says that a request's arguments are wrong — conservative, so an
/// internal error is not sent back to the form for nothing: it must name the arguments (an
/// argument, a parameter or `params`, input validation or the input schema) *and* say what is
/// wrong with them (invalid, failed validation, missing, required, must, expected, unknown,
/// unexpected, not allowed, malformed, does not match). "Argument list too long" (an OS error)
/// or "cannot read properties of undefined (reading 'params')" (a server's bug) are not.
pub fn says_arguments_are_wrong(message: &str) -> bool {
    let message = message.to_lowercase();
    const NAMES: [&str; 4] = ["argument", "param", "input validation", "input schema"];
    const FAULTS: [&str; 14] =
        ["invalid", "validation", "validate", "missing", "required", "must ", "expected", "unknown", "unexpected", "not allowed", "malformed", "does not match", "doesn't match", "not of type"];
    NAMES.iter().any(|n| message.contains(n)) && FAULTS.iter().any(|f| message.contains(f))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_params_always_refuse_the_arguments_an_internal_error_only_when_it_says_so() {
        let cause = |code, message: &str| RequestCause::refused(code, message);
        // -32602 whatever it says (MCP also answers an unknown tool or prompt with it).
        assert_eq!(cause(-32602, "Unknown tool: nope"), RequestCause::BadArguments { code: -32602 });
        // -32603 when its message says the arguments are wrong, as validating servers answer.
        for message in [
            "Invalid arguments for tool add_numbers: Expected number, received string",
            "1 validation error for add_numbersArguments\nb\n  Field required",
            "Input validation error: 'a' is a required property",
            "Parameter 'count' must be a positive integer",
            "invalid params: missing field `values`",
            "MCP error -32603: Invalid ARGUMENTS",
        ] {
            assert_eq!(cause(-32603, message), RequestCause::BadArguments { code: -32603 }, "{message}");
        }
        // Not when it names no argument, or names one without saying it is wrong.
        for message in [
            "Internal error",
            "invalid API key",
            "Argument list too long",
            "TypeError: Cannot read properties of undefined (reading 'params')",
            "database connection refused",
            "",
        ] {
            assert_eq!(cause(-32603, message), RequestCause::Refused { code: -32603 }, "{message}");
        }
        // Other codes never, however the message reads.
        assert_eq!(cause(-32601, "invalid arguments"), RequestCause::Refused { code: -32601 });
        assert_eq!(cause(-32000, "Invalid arguments"), RequestCause::Refused { code: -32000 });
    }

    #[test]
    fn an_rmcp_error_is_judged_by_its_message_not_its_data() {
        let error = |code: i32, message: &str, data: Option<serde_json::Value>| rmcp::ServiceError::McpError(rmcp::model::ErrorData::new(rmcp::model::ErrorCode(code), message.to_owned(), data));
        assert_eq!(RequestCause::of(&error(-32603, "Invalid arguments: `n` must be a number", None)), RequestCause::BadArguments { code: -32603 });
        // A stack trace in `data` that mentions arguments does not make a crash a bad argument.
        let stack = serde_json::json!({ "stack": "at validate(arguments) ... invalid" });
        assert_eq!(RequestCause::of(&error(-32603, "Internal error", Some(stack))), RequestCause::Refused { code: -32603 });
        assert_eq!(RequestCause::of(&rmcp::ServiceError::TransportClosed), RequestCause::Lost);
    }
}
