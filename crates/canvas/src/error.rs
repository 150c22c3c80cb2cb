//! What can go wrong with a user intent: it names a tab or pane that is no longer there.

use crate::ids::{PaneId, TabId};

/// A user intent could not be applied; the canvas is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanvasError {
    /// No open tab has this id (closed, replaced, or from another canvas).
    #[error("{0} is not open on the canvas (it was closed or replaced); refresh the canvas view and try again")]
    UnknownTab(TabId),
    /// No pane has this id (closed, or from another canvas).
    #[error("{0} is not on the canvas (it was closed); refresh the canvas view and try again")]
    UnknownPane(PaneId),
    /// Only an MCP App floats in picture-in-picture.
    #[error("{0} does not show an MCP App: only an App floats in picture-in-picture")]
    NotAnApp(TabId),
}
