//! The canvas layout kept between runs ([`SavedLayout`]): the panes, their artifact tabs in order,
//! which tab and pane were active. Dashboards and MCP Apps are not in it (an App lives as long as its
//! tab): pinned ones come back through
//! [`Canvas::restore_pinned`] (without tokens) and the others end with their session.

use serde::{Deserialize, Serialize};

use crate::{
    canvas::{Canvas, CanvasPane},
    tab::{ArtifactTab, CanvasTab, OpenedBy, TabContent},
};

/// What is saved (the app writes it as `canvas.json` in the data dir when it closes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SavedLayout {
    /// Panes, left to right.
    pub panes: Vec<SavedPane>,
    /// Index of the pane with focus.
    pub active_pane: usize,
}

/// One pane of a [`SavedLayout`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SavedPane {
    /// Its artifact tabs, left to right.
    pub tabs: Vec<SavedTab>,
    /// Index of the tab shown.
    pub active: Option<usize>,
}

/// One artifact tab of a [`SavedPane`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedTab {
    /// The artifact it shows.
    pub artifact: ArtifactTab,
    /// Pinned by the user.
    pub pinned: bool,
}

impl Canvas {
    /// The layout to save: artifact tabs only.
    pub fn layout(&self) -> SavedLayout {
        let panes = self
            .panes
            .iter()
            .map(|pane| {
                let tabs: Vec<(usize, SavedTab)> = pane
                    .tabs
                    .iter()
                    .enumerate()
                    .filter_map(|(i, tab)| match &tab.content {
                        TabContent::Artifact(artifact) => Some((i, SavedTab { artifact: artifact.clone(), pinned: tab.pinned })),
                        TabContent::Dashboard(_) | TabContent::App(_) => None,
                    })
                    .collect();
                let active = pane.active_index().and_then(|a| tabs.iter().position(|(i, _)| *i == a));
                SavedPane { tabs: tabs.into_iter().map(|(_, t)| t).collect(), active }
            })
            .collect();
        SavedLayout { panes, active_pane: self.active_pane_index() }
    }

    /// A canvas laid out as `saved`, keeping only the tabs whose artifact `exists` (the rest were
    /// deleted or evicted since) and the panes left with tabs; every tab counts as the user's, so
    /// no call's `replace` closes it. Never fails: a layout that makes no sense gives what it can.
    pub fn restore_layout(saved: &SavedLayout, exists: impl Fn(&str) -> bool) -> Canvas {
        let mut canvas = Canvas::new();
        let first_pane = canvas.panes[0].id;
        let mut panes = Vec::new();
        let mut active_pane = None;
        for (index, saved_pane) in saved.panes.iter().enumerate() {
            let id = if panes.is_empty() { first_pane } else { canvas.fresh_pane_id() };
            let mut pane = CanvasPane { id, tabs: Vec::new(), active_tab: None, last_call: None };
            for (position, saved_tab) in saved_pane.tabs.iter().enumerate() {
                if !exists(&saved_tab.artifact.artifact_id) || pane.artifact_position(&saved_tab.artifact.artifact_id).is_some() {
                    continue;
                }
                let mut tab = CanvasTab::new(canvas.fresh_tab_id(), TabContent::Artifact(saved_tab.artifact.clone()), OpenedBy::User);
                tab.pinned = saved_tab.pinned;
                if saved_pane.active == Some(position) {
                    pane.active_tab = Some(tab.id);
                }
                pane.tabs.push(tab);
            }
            if pane.tabs.is_empty() {
                continue;
            }
            if pane.active_tab.is_none() {
                pane.active_tab = pane.tabs.first().map(|t| t.id);
            }
            if index == saved.active_pane {
                active_pane = Some(pane.id);
            }
            panes.push(pane);
        }
        if !panes.is_empty() {
            canvas.active_pane = active_pane.unwrap_or(panes[0].id);
            canvas.panes = panes;
        }
        canvas
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CanvasIntent;

    fn artifact(id: &str) -> ArtifactTab {
        ArtifactTab { artifact_id: id.into(), name: format!("{id}.png"), mime: "image/png".into(), viewer: mcp_canvas_contract::Viewer::Image }
    }

    fn saved(panes: &[(&[&str], Option<usize>)], active_pane: usize) -> SavedLayout {
        SavedLayout {
            panes: panes.iter().map(|(ids, active)| SavedPane { tabs: ids.iter().map(|id| SavedTab { artifact: artifact(id), pinned: *id == "b" }).collect(), active: *active }).collect(),
            active_pane,
        }
    }

    fn labels(canvas: &Canvas) -> Vec<Vec<String>> {
        canvas.panes().iter().map(|p| p.tabs.iter().map(|t| t.artifact_id().unwrap().to_owned()).collect()).collect()
    }

    #[test]
    fn a_layout_comes_back_without_what_was_deleted_since() {
        let layout = saved(&[(&["a", "b", "c"], Some(2)), (&["gone"], Some(0)), (&["d", "e"], Some(1))], 2);
        let canvas = Canvas::restore_layout(&layout, |id| id != "gone" && id != "c");
        assert_eq!(labels(&canvas), [vec!["a", "b"], vec!["d", "e"]]);
        // The active tab was deleted: the first one shows instead; the active pane is kept.
        assert_eq!(canvas.panes()[0].active().unwrap().artifact_id(), Some("a"));
        assert_eq!(canvas.active_tab().unwrap().artifact_id(), Some("e"));
        assert!(canvas.panes()[0].tabs[1].pinned);
        assert!(canvas.panes().iter().flat_map(|p| &p.tabs).all(|t| t.opened_by == OpenedBy::User));
        // Saving it again gives the same layout it now has.
        let again = Canvas::restore_layout(&canvas.layout(), |_| true);
        assert_eq!(labels(&again), labels(&canvas));
        assert_eq!(again.layout(), canvas.layout());
    }

    #[test]
    fn nothing_left_or_nonsense_gives_a_usable_canvas() {
        for layout in [SavedLayout::default(), saved(&[(&["x"], Some(7))], 9), saved(&[(&[], None), (&["y", "y"], None)], 0)] {
            let mut canvas = Canvas::restore_layout(&layout, |id| id != "x");
            assert!(!canvas.panes().is_empty());
            // Ids stay unique: new tabs and panes can be made, intents work.
            let view = canvas.view();
            let ids: Vec<_> = view.panes.iter().flat_map(|p| p.tabs.iter().map(|t| t.id)).collect();
            let mut unique = ids.clone();
            unique.dedup();
            assert_eq!(ids, unique);
            if let Some(tab) = ids.first() {
                canvas.apply_intent(CanvasIntent::CloseTab { tab: *tab }).unwrap();
            }
        }
    }
}
