//! The rmcp side of MCP Canvas: how the host reaches a server and what it does with what the
//! server sends. Laid out like rmcp itself:
//!
//! - [`transport`]: stdio (our line transport: an unreadable message still answers its request,
//!   with the reason) and the server's stderr; Streamable HTTP is rmcp's.
//! - [`handler`]: [`CanvasClient`], our `rmcp::ClientHandler` — one module per server→client
//!   request kind ([`elicitation`]; sampling goes beside it), [`handler::progress`] routing, and
//!   [`handler::messages`] (log messages, list changes).
//! - [`connection`]: one live connection (spawn or connect, handshake, tools, shutdown).
//! - [`call_context`]: what belongs to one call and travels with it (its notes, its time waiting
//!   for the user), never shared between calls.
//! - [`watch`]: watching one resource for changes (`subscriptions/listen` or `resources/subscribe`).
//! - [`health`]: failures in a row and the wait before the next start.
//! - [`oauth`]: signing in to HTTP servers (rmcp's OAuth 2.1 flow; our token store, loopback
//!   redirect and browser); [`opener`]: the platform's opener.
//! - [`trace`]: the protocol view's record of every message both ways.
//!
//! The questions' types and their JSON Schema checks are `mcp-canvas-elicitation`'s. Knows
//! nothing of the store or windows (of the contract only its base64-run finder, for the trace):
//! the host (`mcp-canvas-host`) drives it.
#![deny(missing_docs)]

pub mod call_context;
pub mod connection;
mod error;
pub mod handler;
pub mod health;
pub mod transport;
pub mod oauth;
pub mod opener;
pub mod trace;
pub mod watch;

pub use call_context::{CallContext, InFlight};
pub use connection::{ServerConnection, SpawnContext, MAX_MESSAGE_BYTES};
pub use error::{ClientError, RequestCause};
pub use watch::ResourceWatch;
pub use handler::{elicitation, CallProgress, CanvasClient, ChangedList, ProgressFn, ServerChange, ServerMessage, ServerMessages};
