//! What the MCP Canvas window does beyond drawing, without a window and without Tauri: the
//! canvas and dashboard state and applying a call's outcome to it ([`App`], `dashboards.rs`),
//! layout persistence (`layout.rs`), running calls and their cancel tokens (`calls.rs`), the
//! `artifact:` scheme's responder over `http` types (`artifact_scheme.rs`), and one queue of
//! questions to the user — confirmations, forms, URLs, sampling approvals (`questions.rs`,
//! `elicitation.rs`, `sampling.rs`), and the MCP Apps on the canvas with their `mcp-app:` scheme
//! (`apps.rs`).
//! Whatever the window must hear is an [`AppEvent`] sent through the [`Window`] trait, which the
//! desktop shell implements over Tauri and tests implement with a recorder.

mod app;
pub mod apps;
pub mod artifact_scheme;
pub mod bindings;
pub mod calls;
pub mod dashboards;
pub mod elicitation;
pub mod layout;
pub mod offers;
pub mod questions;
pub mod sampling;
pub mod window;

pub use app::{App, Frontends, HostState, LOG_TAIL_BYTES};
pub use window::{event_decls, AppEvent, EmitError, EventDecl, SaveDialog, Window, WindowSlot};
