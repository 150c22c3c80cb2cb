//! How bytes reach a server and come back: stdio (our own line transport, which answers an
//! unreadable message instead of dropping it) and the server's stderr. Streamable HTTP is rmcp's
//! reqwest transport, configured in [`crate::connection`], with the answers to `tools/call` read
//! through the spill (`http_spill.rs`). Either way each message is recorded in the server's protocol
//! log on its way (`traced.rs`). A server with DPoP gets its proofs from `dpop.rs`, around the
//! HTTP client.

pub mod dpop;
pub mod http_spill;
pub mod stderr;
pub mod spill;
pub mod stdio;
pub mod traced;
