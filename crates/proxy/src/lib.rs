//! Proxy mode: MCP Canvas as one MCP server in front of the user's MCP servers.
//!
//! An AI host (Claude Desktop, Cursor, VS Code, ...) starts `mcp-canvas-cli proxy` as its MCP
//! server. The proxy lists the tools, resources and prompts of the configured servers under
//! namespaced names ([`names`]), runs every call through the same host pipeline as the desktop
//! app (validation, `username`, capability file URLs, confirmation, timeouts, progress,
//! cancellation, audit), and answers with a model-safe result ([`shape`]): the summary, links
//! to the stored artifacts (readable through `resources/read`), small images inline, and
//! structured content within the policy ([`policy`]). When the desktop app runs on the same data
//! dir it confirms destructive tools, answers servers' questions and sampling requests the AI
//! host cannot ([`elicit`], [`sample`]), and shows the artifacts as they arrive
//! (`mcp_canvas_host::app_link`).
#![deny(missing_docs)]

pub mod elicit;
mod files;
pub mod host_config;
pub mod names;
pub mod policy;
pub mod sample;
pub mod search;
mod serve;
mod server;
mod stdio_guard;
pub mod shape;
pub mod viewer;

pub use serve::{serve_http, serve_stdio, ProxyOptions, ServeError};
pub use server::{ProxyServer, ProxyState};

/// A problem worth the user's attention, on stderr (AI hosts keep their MCP servers' stderr in
/// their logs; stdout is the protocol).
pub(crate) fn warn(message: std::fmt::Arguments<'_>) {
    // Not `eprintln!`: a stderr that cannot take the line (closed, full) must not end the proxy.
    let _ = std::io::Write::write_fmt(&mut std::io::stderr().lock(), format_args!("mcp-canvas proxy: {message}\n"));
}
