//! The canvas: panes of tabs, and the rules that decide where a tool result appears.
//!
//! The window only draws a [`CanvasView`] and sends back what the user did ([`CanvasIntent`]);
//! every rule lives here, so it is tested without a window and the same in every front end. No
//! I/O, no clock, no Tauri: [`Canvas`] is plain data changed by two kinds of events.
//!
//! - **A tool result** ([`Canvas::apply_outcome`]; see docs/result-shapes.md, "Canvas intent").
//!   Nothing happens unless `display.open_canvas`. Artifacts with a viewer that are not for the
//!   assistant only open as tabs, the `display.primary` one first (and active, with the
//!   `display.viewer` hint), then the others in result order; the rest stay listed in the outcome
//!   ([`NotOpened`]). The layout mode decides where: `replace` closes, in the active pane, the tabs
//!   the pane's previous call opened (pinned tabs, tabs the user opened or moved there, and session
//!   or pinned dashboards stay), `append` adds to the active pane, `split` opens a new pane to the
//!   right of it. An artifact already open in the target pane is focused, not opened twice. A
//!   dashboard (`canvas` envelope) is one tab keyed by its `id` across the whole canvas: the same
//!   `id` again updates that tab wherever it is.
//! - **A read the user asked for** ([`Canvas::open_requested`]: a resource or a `resource_link`
//!   opened, a prompt filled in, a skill's file): what it shows opens in new tabs of the focused
//!   pane, or the tab already showing the same artifact is shown; nothing is replaced. A watched
//!   resource read again ([`Canvas::refresh_read`]) takes the tabs of the read before it.
//! - **A user intent** ([`CanvasIntent`], or the methods of the same names): activate, close,
//!   move, split or pin a tab, close or focus a pane, next/previous tab, open an artifact. An
//!   unknown tab or pane id is a [`CanvasError`], never a panic — the view the UI acted on may be
//!   older than the state.
//!
//! Invariants kept by every operation (checked by `tests/properties.rs`): at least one pane; the
//! active pane exists; a pane's active tab is one of its tabs, and it has one exactly when it has
//! tabs; within a pane no artifact is open twice; a dashboard id is open at most once on the
//! whole canvas; tab and pane ids are never reused. Only the first pane may be empty: closing or
//! moving away the last tab of any other pane removes that pane.
//!
//! Dashboards with `persistence: pinned` are what the app saves and restores across restarts
//! ([`Canvas::pinned_dashboards`], [`Canvas::restore_pinned`]). Their capability token is left
//! out of [`PinnedDashboard`] on purpose: tokens are short-lived and must not be written to disk,
//! and the tool sends a fresh one with the same `id`. The token *is* part of [`DashboardTab`]'s
//! serialized form (the UI needs it to load the iframe) but never of its `Debug` output.
#![deny(missing_docs)]

mod apply;
mod canvas;
mod error;
mod ids;
mod intent;
mod layout;
mod open;
mod tab;

pub use apply::{AppliedOutcome, NotOpened, NotOpenedReason, opening_order};
pub use canvas::{Canvas, CanvasPane, CanvasView};
pub use error::CanvasError;
pub use ids::{PaneId, TabId};
pub use intent::CanvasIntent;
pub use layout::{SavedLayout, SavedPane, SavedTab};
pub use tab::{AppTab, ArtifactTab, CanvasTab, DashboardTab, Focus, FocusPlace, OpenedBy, PinnedDashboard, TabContent};
