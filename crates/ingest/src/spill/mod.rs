//! What to keep spilled and what to put back (`resolve.rs`), over the store's spill
//! ([`mcp_canvas_store::spill`]: the `Scanner` that takes long base64 runs out of a message
//! while it is read, and the [`Spills`](mcp_canvas_store::spill::Spills) it gives back, which the client's transports keep for a
//! `tools/call` until its call takes them). `tests.rs` runs every contract fixture whole and
//! spilled.

mod resolve;

pub use resolve::{prepare, restore_outcome};

#[cfg(test)]
mod tests;
