//! Tab and pane ids: numbers handed out by one counter per canvas and never reused, so an intent
//! from an out-of-date view names nothing rather than the wrong thing.

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Identifies one open tab (one placement of an artifact or dashboard) on one canvas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[ts(export, type = "number")]
pub struct TabId(pub u64);

/// Identifies one pane on one canvas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[ts(export, type = "number")]
pub struct PaneId(pub u64);

impl fmt::Display for TabId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tab #{}", self.0)
    }
}

impl fmt::Display for PaneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pane #{}", self.0)
    }
}
