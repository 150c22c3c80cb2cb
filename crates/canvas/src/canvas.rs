//! The canvas state ([`Canvas`]), its panes, the snapshot the UI draws ([`CanvasView`]), and the
//! low-level moves every rule is built from (find, insert, remove a tab; drop an empty pane).

use mcp_canvas_contract::DashboardPersistence;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    error::CanvasError,
    ids::{PaneId, TabId},
    tab::{CanvasTab, DashboardTab, OpenedBy, PinnedDashboard, TabContent},
};

/// One pane: tabs ordered left to right, one of them active when there are any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CanvasPane {
    /// Unique on this canvas, never reused.
    pub id: PaneId,
    /// Tabs, left to right.
    pub tabs: Vec<CanvasTab>,
    /// The tab shown; `None` exactly when there are no tabs.
    pub active_tab: Option<TabId>,
    /// The last call whose result was shown in this pane: `replace` closes what it opened here.
    pub last_call: Option<String>,
}

/// What the UI draws: the panes left to right and which one has focus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CanvasView {
    /// Panes, left to right; never empty.
    pub panes: Vec<CanvasPane>,
    /// The pane with focus: tool results land here, next/previous move within it.
    pub active_pane: PaneId,
}

/// The canvas state. Starts with one empty pane; see the crate docs for the rules.
#[derive(Debug, Clone)]
pub struct Canvas {
    pub(crate) panes: Vec<CanvasPane>,
    pub(crate) active_pane: PaneId,
    next_id: u64,
    /// Counts focus requests ([`crate::tab::Focus::request`]).
    pub(crate) focus_requests: u64,
}

impl Default for Canvas {
    fn default() -> Self {
        Self::new()
    }
}

impl CanvasPane {
    fn new(id: PaneId) -> Self {
        Self { id, tabs: Vec::new(), active_tab: None, last_call: None }
    }

    /// The active tab.
    pub fn active(&self) -> Option<&CanvasTab> {
        let id = self.active_tab?;
        self.tabs.iter().find(|t| t.id == id)
    }

    pub(crate) fn active_index(&self) -> Option<usize> {
        let id = self.active_tab?;
        self.tabs.iter().position(|t| t.id == id)
    }

    pub(crate) fn artifact_position(&self, artifact_id: &str) -> Option<usize> {
        self.tabs.iter().position(|t| t.artifact_id() == Some(artifact_id))
    }

    /// Removes the tab at `index`; if it was active, its right neighbour (else its left one)
    /// becomes active.
    pub(crate) fn remove_at(&mut self, index: usize) -> CanvasTab {
        let tab = self.tabs.remove(index);
        if self.active_tab == Some(tab.id) {
            self.active_tab = self.tabs.get(index).or_else(|| index.checked_sub(1).and_then(|i| self.tabs.get(i))).map(|t| t.id);
        }
        tab
    }

    /// Inserts at `index` (clamped to the end).
    pub(crate) fn insert_at(&mut self, index: usize, tab: CanvasTab) {
        let index = index.min(self.tabs.len());
        if self.active_tab.is_none() {
            self.active_tab = Some(tab.id);
        }
        self.tabs.insert(index, tab);
    }
}

impl Canvas {
    /// An empty canvas: one pane, no tabs.
    pub fn new() -> Self {
        Self { panes: vec![CanvasPane::new(PaneId(0))], active_pane: PaneId(0), next_id: 1, focus_requests: 0 }
    }

    /// A snapshot for the UI.
    pub fn view(&self) -> CanvasView {
        CanvasView { panes: self.panes.clone(), active_pane: self.active_pane }
    }

    /// Panes, left to right (never empty).
    pub fn panes(&self) -> &[CanvasPane] {
        &self.panes
    }

    /// The pane with focus.
    pub fn active_pane(&self) -> &CanvasPane {
        &self.panes[self.active_pane_index()]
    }

    /// The active pane's active tab.
    pub fn active_tab(&self) -> Option<&CanvasTab> {
        self.active_pane().active()
    }

    /// A tab by id, wherever it is.
    pub fn tab(&self, id: TabId) -> Option<&CanvasTab> {
        self.locate(id).ok().map(|(p, t)| &self.panes[p].tabs[t])
    }

    /// How many tabs are open in all panes.
    pub fn tab_count(&self) -> usize {
        self.panes.iter().map(|p| p.tabs.len()).sum()
    }

    /// Dashboards with `persistence: pinned`, left to right, for the app to save (without
    /// tokens) and hand back to [`Canvas::restore_pinned`] after a restart.
    pub fn pinned_dashboards(&self) -> Vec<PinnedDashboard> {
        self.panes
            .iter()
            .flat_map(|p| &p.tabs)
            .filter_map(|t| match &t.content {
                TabContent::Dashboard(d) if d.persistence == DashboardPersistence::Pinned => {
                    Some(PinnedDashboard { dashboard_id: d.dashboard_id.clone(), url: d.url.clone(), title: d.title.clone() })
                }
                _ => None,
            })
            .collect()
    }

    /// Reopens saved pinned dashboards in the active pane, after its tabs, as the user's (no call
    /// replaces them). A dashboard id already open is updated in place (its token kept). The
    /// active tab and pane do not change, unless the pane was empty: then the first one restored
    /// becomes active. Returns the tabs, in the order given (duplicates in `saved` count once).
    pub fn restore_pinned(&mut self, saved: &[PinnedDashboard]) -> Vec<TabId> {
        let mut tabs = Vec::new();
        for pinned in saved {
            let id = if let Some((p, t)) = self.find_dashboard(&pinned.dashboard_id) {
                let tab = &mut self.panes[p].tabs[t];
                if let TabContent::Dashboard(d) = &mut tab.content {
                    d.url.clone_from(&pinned.url);
                    d.title.clone_from(&pinned.title);
                    d.persistence = DashboardPersistence::Pinned;
                }
                tab.relabel();
                tab.id
            } else {
                let content = TabContent::Dashboard(DashboardTab {
                    dashboard_id: pinned.dashboard_id.clone(),
                    url: pinned.url.clone(),
                    title: pinned.title.clone(),
                    persistence: DashboardPersistence::Pinned,
                    token: None,
                });
                let tab = CanvasTab::new(self.fresh_tab_id(), content, OpenedBy::User);
                let id = tab.id;
                let pane = self.active_pane_index();
                let end = self.panes[pane].tabs.len();
                self.panes[pane].insert_at(end, tab);
                id
            };
            if !tabs.contains(&id) {
                tabs.push(id);
            }
        }
        tabs
    }

    // ------------------------------------------------------------------------------- internals

    pub(crate) fn fresh_tab_id(&mut self) -> TabId {
        self.next_id += 1;
        TabId(self.next_id - 1)
    }

    pub(crate) fn fresh_pane_id(&mut self) -> PaneId {
        self.next_id += 1;
        PaneId(self.next_id - 1)
    }

    pub(crate) fn active_pane_index(&self) -> usize {
        self.panes.iter().position(|p| p.id == self.active_pane).expect("the active pane is always on the canvas")
    }

    pub(crate) fn pane_index(&self, id: PaneId) -> Result<usize, CanvasError> {
        self.panes.iter().position(|p| p.id == id).ok_or(CanvasError::UnknownPane(id))
    }

    /// (pane index, tab index) of a tab.
    pub(crate) fn locate(&self, id: TabId) -> Result<(usize, usize), CanvasError> {
        self.panes.iter().enumerate().find_map(|(p, pane)| pane.tabs.iter().position(|t| t.id == id).map(|t| (p, t))).ok_or(CanvasError::UnknownTab(id))
    }

    pub(crate) fn find_dashboard(&self, dashboard_id: &str) -> Option<(usize, usize)> {
        self.panes.iter().enumerate().find_map(|(p, pane)| pane.tabs.iter().position(|t| t.dashboard_id() == Some(dashboard_id)).map(|t| (p, t)))
    }

    /// Inserts a new empty pane right of `index`; returns its index.
    pub(crate) fn insert_pane_after(&mut self, index: usize) -> usize {
        let id = self.fresh_pane_id();
        self.panes.insert(index + 1, CanvasPane::new(id));
        index + 1
    }

    /// Removes the pane at `index` if it is empty and not the first one. When it had focus, the
    /// pane to its left gets it.
    pub(crate) fn drop_pane_if_empty(&mut self, index: usize) {
        if index > 0 && self.panes[index].tabs.is_empty() {
            self.remove_pane_at(index);
        }
    }

    /// Removes the pane at `index` (there must be another one). When it had focus, the pane to
    /// its left gets it (the new first pane when it was the first).
    pub(crate) fn remove_pane_at(&mut self, index: usize) {
        debug_assert!(self.panes.len() > 1);
        let removed = self.panes.remove(index);
        if removed.id == self.active_pane {
            self.active_pane = self.panes[index.saturating_sub(1)].id;
        }
    }
}
