//! What the user does to the canvas. Each intent is a method, and [`CanvasIntent`] is the same
//! set as one wire type, so the UI sends one message shape and the shell needs one command.
//! An unknown id is a [`CanvasError`] and leaves the canvas unchanged.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    canvas::Canvas,
    error::CanvasError,
    ids::{PaneId, TabId},
    tab::{ArtifactTab, CanvasTab, Focus, FocusPlace, OpenedBy, TabContent},
};

/// A user intent, as the UI sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "intent", rename_all = "snake_case")]
#[ts(export)]
pub enum CanvasIntent {
    /// Show a tab (and focus its pane).
    ActivateTab {
        /// The tab.
        tab: TabId,
    },
    /// Close a tab; a pane other than the first closes with its last tab.
    CloseTab {
        /// The tab.
        tab: TabId,
    },
    /// Move a tab to a pane (the same pane: reorder), at `index` or at the end.
    MoveTab {
        /// The tab.
        tab: TabId,
        /// Destination pane.
        pane: PaneId,
        /// Position in the destination, clamped; `None`: at the end.
        index: Option<usize>,
    },
    /// Move a tab into a new pane right of its pane.
    SplitTab {
        /// The tab.
        tab: TabId,
    },
    /// Close a pane with its tabs (the only pane is emptied instead).
    ClosePane {
        /// The pane.
        pane: PaneId,
    },
    /// Give a pane focus.
    FocusPane {
        /// The pane.
        pane: PaneId,
    },
    /// Next tab in the focused pane, wrapping.
    NextTab,
    /// Previous tab in the focused pane, wrapping.
    PreviousTab,
    /// Pin a tab: `replace` never closes it.
    PinTab {
        /// The tab.
        tab: TabId,
    },
    /// Unpin a tab.
    UnpinTab {
        /// The tab.
        tab: TabId,
    },
    /// Float an App's tab in picture-in-picture (the App asked for `pip` and it was granted):
    /// any other floating tab lands back in its pane.
    FloatTab {
        /// The tab; it must show an App.
        tab: TabId,
    },
    /// Put a floating App back in its tab.
    UnfloatTab {
        /// The tab.
        tab: TabId,
    },
    /// Open an artifact the user picked (from a result, the artifact list...) in the focused pane.
    OpenArtifact {
        /// What to show.
        artifact: ArtifactTab,
    },
}

impl Canvas {
    /// Applies a user intent.
    pub fn apply_intent(&mut self, intent: CanvasIntent) -> Result<(), CanvasError> {
        match intent {
            CanvasIntent::ActivateTab { tab } => self.activate_tab(tab),
            CanvasIntent::CloseTab { tab } => self.close_tab(tab),
            CanvasIntent::MoveTab { tab, pane, index } => self.move_tab(tab, pane, index),
            CanvasIntent::SplitTab { tab } => self.split_tab(tab).map(drop),
            CanvasIntent::ClosePane { pane } => self.close_pane(pane),
            CanvasIntent::FocusPane { pane } => self.focus_pane(pane),
            CanvasIntent::NextTab => {
                self.next_tab();
                Ok(())
            }
            CanvasIntent::PreviousTab => {
                self.previous_tab();
                Ok(())
            }
            CanvasIntent::PinTab { tab } => self.set_pinned(tab, true),
            CanvasIntent::UnpinTab { tab } => self.set_pinned(tab, false),
            CanvasIntent::FloatTab { tab } => self.set_floating(tab, true),
            CanvasIntent::UnfloatTab { tab } => self.set_floating(tab, false),
            CanvasIntent::OpenArtifact { artifact } => {
                self.open_artifact(artifact);
                Ok(())
            }
        }
    }

    /// Shows `tab` in its pane and gives that pane focus.
    pub fn activate_tab(&mut self, tab: TabId) -> Result<(), CanvasError> {
        let (p, _) = self.locate(tab)?;
        self.panes[p].active_tab = Some(tab);
        self.active_pane = self.panes[p].id;
        Ok(())
    }

    /// Closes `tab`. If it was active, its right neighbour (else its left one) is shown. A pane
    /// other than the first one closes with its last tab, and its left neighbour gets focus if
    /// it had it.
    pub fn close_tab(&mut self, tab: TabId) -> Result<(), CanvasError> {
        let (p, t) = self.locate(tab)?;
        self.panes[p].remove_at(t);
        self.drop_pane_if_empty(p);
        Ok(())
    }

    /// Moves `tab` to `pane` at `index` (clamped; `None`: the end), shows it there and gives
    /// `pane` focus. Within its own pane this reorders. Moved to another pane the tab becomes the
    /// user's (no call's `replace` closes it), and if that pane already shows the same artifact,
    /// the two merge into the existing tab. A pane other than the first closes when its last tab
    /// leaves.
    pub fn move_tab(&mut self, tab: TabId, pane: PaneId, index: Option<usize>) -> Result<(), CanvasError> {
        let (from, t) = self.locate(tab)?;
        let to = self.pane_index(pane)?;
        if from == to {
            let tabs = &mut self.panes[from].tabs;
            let moved = tabs.remove(t);
            let at = index.unwrap_or(tabs.len()).min(tabs.len());
            tabs.insert(at, moved);
            self.panes[from].active_tab = Some(tab);
        } else {
            let mut moved = self.panes[from].remove_at(t);
            moved.opened_by = OpenedBy::User;
            let dest = &mut self.panes[to];
            let shown = match moved.artifact_id().and_then(|a| dest.artifact_position(a)) {
                Some(existing) => {
                    let existing = &mut dest.tabs[existing];
                    existing.pinned |= moved.pinned;
                    existing.opened_by = OpenedBy::User;
                    existing.id
                }
                None => {
                    let id = moved.id;
                    dest.insert_at(index.unwrap_or(dest.tabs.len()), moved);
                    id
                }
            };
            dest.active_tab = Some(shown);
        }
        self.active_pane = pane;
        self.drop_pane_if_empty(from);
        Ok(())
    }

    /// Moves `tab` into a new pane right of its pane; returns the new pane, which gets focus.
    pub fn split_tab(&mut self, tab: TabId) -> Result<PaneId, CanvasError> {
        let (from, _) = self.locate(tab)?;
        let new = self.insert_pane_after(from);
        let new_id = self.panes[new].id;
        self.move_tab(tab, new_id, None)?;
        Ok(new_id)
    }

    /// Closes `pane` and its tabs (pinned ones too: closing is explicit). The only pane is
    /// emptied instead. If it had focus, the pane to its left gets it (the next one when it was
    /// the first).
    pub fn close_pane(&mut self, pane: PaneId) -> Result<(), CanvasError> {
        let p = self.pane_index(pane)?;
        if self.panes.len() == 1 {
            let only = &mut self.panes[0];
            only.tabs.clear();
            only.active_tab = None;
            only.last_call = None;
        } else {
            self.remove_pane_at(p);
        }
        Ok(())
    }

    /// Gives `pane` focus.
    pub fn focus_pane(&mut self, pane: PaneId) -> Result<(), CanvasError> {
        self.pane_index(pane)?;
        self.active_pane = pane;
        Ok(())
    }

    /// Shows the next tab of the focused pane (after the last: the first). `None` when the pane
    /// has no tabs.
    pub fn next_tab(&mut self) -> Option<TabId> {
        self.step_tab(1)
    }

    /// Shows the previous tab of the focused pane (before the first: the last). `None` when the
    /// pane has no tabs.
    pub fn previous_tab(&mut self) -> Option<TabId> {
        self.step_tab(-1)
    }

    fn step_tab(&mut self, step: isize) -> Option<TabId> {
        let p = self.active_pane_index();
        let pane = &mut self.panes[p];
        let count = pane.tabs.len();
        if count == 0 {
            return None;
        }
        let current = pane.active_index().unwrap_or(0);
        let next = (current as isize + step).rem_euclid(count as isize) as usize;
        let id = pane.tabs[next].id;
        pane.active_tab = Some(id);
        Some(id)
    }

    /// Pins `tab`: no `replace` closes it.
    pub fn pin_tab(&mut self, tab: TabId) -> Result<(), CanvasError> {
        self.set_pinned(tab, true)
    }

    /// Unpins `tab`.
    pub fn unpin_tab(&mut self, tab: TabId) -> Result<(), CanvasError> {
        self.set_pinned(tab, false)
    }

    /// Pins or unpins `tab`.
    pub fn set_pinned(&mut self, tab: TabId, pinned: bool) -> Result<(), CanvasError> {
        let (p, t) = self.locate(tab)?;
        self.panes[p].tabs[t].pinned = pinned;
        Ok(())
    }

    /// Floats `tab` (an App's) in picture-in-picture, or puts it back. Floating one puts any
    /// other floating tab back: at most one floats. Only an App floats.
    pub fn set_floating(&mut self, tab: TabId, floating: bool) -> Result<(), CanvasError> {
        let (p, t) = self.locate(tab)?;
        if floating {
            if self.panes[p].tabs[t].app().is_none() {
                return Err(CanvasError::NotAnApp(tab));
            }
            for other in self.panes.iter_mut().flat_map(|pane| pane.tabs.iter_mut()) {
                other.floating = false;
            }
        }
        self.panes[p].tabs[t].floating = floating;
        Ok(())
    }

    /// Closes every tab showing artifact `artifact_id` (it was deleted from the store), in every
    /// pane, as [`close_tab`](Self::close_tab) would one by one; returns the closed tabs.
    pub fn close_artifact(&mut self, artifact_id: &str) -> Vec<TabId> {
        let tabs: Vec<TabId> = self.panes.iter().flat_map(|p| &p.tabs).filter(|t| t.artifact_id() == Some(artifact_id)).map(|t| t.id).collect();
        for &tab in &tabs {
            // Each tab was found just above; closing one never removes another.
            let _ = self.close_tab(tab);
        }
        tabs
    }

    /// Opens an artifact the user picked in the focused pane, after its tabs, and shows it; if
    /// the pane already shows it, that tab is shown. Either way the tab is the user's: no call's
    /// `replace` closes it.
    pub fn open_artifact(&mut self, artifact: ArtifactTab) -> TabId {
        self.open_artifact_at(artifact, None)
    }

    /// [`Self::open_artifact`], its viewer sent to `at` (a search hit's page, row or line); with
    /// `None`, a tab already open keeps the place it had.
    pub fn open_artifact_at(&mut self, artifact: ArtifactTab, at: Option<(FocusPlace, u64)>) -> TabId {
        let focus = at.map(|(place, position)| {
            self.focus_requests += 1;
            Focus { place, position, request: self.focus_requests }
        });
        let p = self.active_pane_index();
        let id = match self.panes[p].artifact_position(&artifact.artifact_id) {
            Some(t) => {
                let tab = &mut self.panes[p].tabs[t];
                tab.content = TabContent::Artifact(artifact);
                tab.relabel();
                tab.opened_by = OpenedBy::User;
                if focus.is_some() {
                    tab.focus = focus;
                }
                tab.id
            }
            None => {
                let mut tab = CanvasTab::new(self.fresh_tab_id(), TabContent::Artifact(artifact), OpenedBy::User);
                tab.focus = focus;
                let id = tab.id;
                let end = self.panes[p].tabs.len();
                self.panes[p].insert_at(end, tab);
                id
            }
        };
        self.panes[p].active_tab = Some(id);
        id
    }
}
