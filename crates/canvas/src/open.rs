//! What the user asked to open from a server — a resource or a `resource_link`, a prompt filled
//! in, a skill's file — and a watched resource read again. Unlike a tool result, neither replaces
//! anything: [`Canvas::open_requested`] opens new tabs (or shows the tab already showing the same
//! artifact), [`Canvas::refresh_read`] shows the new read in the tabs of the one before.

use mcp_canvas_contract::ToolOutcome;

use crate::{
    apply::{showable_items, AppliedOutcome, Item, NotOpened, NotOpenedReason},
    canvas::Canvas,
    ids::TabId,
    tab::{ArtifactTab, CanvasTab, DashboardTab, OpenedBy, TabContent},
};

impl Canvas {
    /// Shows read `call_id`, which the user asked for. Nothing happens unless
    /// `display.open_canvas`; what opens is what [`Canvas::apply_outcome`] would open (the primary
    /// artifact first, then the others, then the dashboard), but nothing is replaced and
    /// `display.mode` is not asked: an artifact a tab already shows — in the focused pane, else in
    /// any — is shown in that tab; a dashboard already open is updated where it is; everything
    /// else opens as a new tab at the end of the focused pane. The first item's tab becomes the
    /// active tab and its pane takes focus.
    ///
    /// The tabs are the read's (`OpenedBy::Call`), but no pane takes the read as its last call:
    /// the next tool result's `replace` closes what the previous tool result opened, never what
    /// the user asked to open.
    pub fn open_requested(&mut self, call_id: &str, outcome: &ToolOutcome) -> AppliedOutcome {
        let mut report = AppliedOutcome::default();
        let Some(items) = self.requested_items(outcome, &mut report) else { return report };
        let mut first = None;
        for item in &items {
            let tab = self.show_requested(call_id, item, &mut report);
            first.get_or_insert(tab);
        }
        if let Some(tab) = first {
            // Shown in a pane it is in (just placed there): activating it cannot fail.
            let _ = self.activate_tab(tab);
            report.active_tab = Some(tab);
        }
        report
    }

    /// Shows read `call_id` of a watched resource, which `previous` (the artifact ids the last
    /// read of it showed) was: the new read takes the tabs of the last one instead of opening
    /// beside them. Each showable artifact a tab already shows (it did not change) is shown there;
    /// each new one takes, in order, the place of a tab showing a `previous` artifact this read no
    /// longer has — same pane, same position, pinned or active as it was —, and what is left opens
    /// after the last one placed. Tabs of `previous` left over close, unless pinned. Nothing takes
    /// focus: the user may be elsewhere. When no tab shows any of it any more (the user closed
    /// them), this is [`Self::open_requested`].
    pub fn refresh_read(&mut self, call_id: &str, outcome: &ToolOutcome, previous: &[String]) -> AppliedOutcome {
        let mut report = AppliedOutcome::default();
        let Some(items) = self.requested_items(outcome, &mut report) else { return report };
        let shows = |id: &str| items.iter().any(|item| matches!(item, Item::Artifact(a, _) if a.id == id));
        let mut stale: Vec<TabId> = self
            .panes
            .iter()
            .flat_map(|p| &p.tabs)
            .filter(|t| t.artifact_id().is_some_and(|id| previous.iter().any(|p| p == id) && !shows(id)))
            .map(|t| t.id)
            .collect();
        let any_open = items.iter().any(|item| match item {
            Item::Artifact(a, _) => self.find_artifact(&a.id).is_some(),
            Item::Dashboard(d) => self.find_dashboard(&d.id).is_some(),
            Item::App(_) => false,
        });
        if stale.is_empty() && !any_open {
            return self.open_requested(call_id, outcome);
        }
        // Where a new tab that takes no old one's place goes: after the last one placed.
        let mut after: Option<TabId> = None;
        for item in &items {
            let placed = match item {
                Item::Artifact(artifact, viewer) => {
                    let content = ArtifactTab { artifact_id: artifact.id.clone(), name: artifact.name.clone(), mime: artifact.mime.clone(), viewer: *viewer };
                    if let Some((p, t)) = self.find_artifact(&artifact.id) {
                        let tab = &mut self.panes[p].tabs[t];
                        tab.content = TabContent::Artifact(content);
                        tab.relabel();
                        tab.reshown_by(call_id);
                        report.focused.push(tab.id);
                        tab.id
                    } else if !stale.is_empty() {
                        let id = stale.remove(0);
                        let (p, t) = self.locate(id).expect("stale tabs are on the canvas");
                        let tab = &mut self.panes[p].tabs[t];
                        tab.content = TabContent::Artifact(content);
                        tab.relabel();
                        tab.opened_by = OpenedBy::Call { call_id: call_id.to_owned() };
                        report.updated.push(id);
                        id
                    } else {
                        let (p, at) = match after.and_then(|id| self.locate(id).ok()) {
                            Some((p, t)) => (p, t + 1),
                            None => (self.active_pane_index(), self.panes[self.active_pane_index()].tabs.len()),
                        };
                        let tab = CanvasTab::new(self.fresh_tab_id(), TabContent::Artifact(content), OpenedBy::Call { call_id: call_id.to_owned() });
                        let id = tab.id;
                        self.panes[p].insert_at(at, tab);
                        report.opened.push(id);
                        id
                    }
                }
                Item::Dashboard(_) | Item::App(_) => self.show_requested(call_id, item, &mut report),
            };
            after = Some(placed);
        }
        for id in stale {
            if self.tab(id).is_some_and(|t| !t.pinned) && self.close_tab(id).is_ok() {
                report.closed.push(id);
            }
        }
        report
    }

    /// What a read shows, in order; `None` (and the report says why) when it asks for no canvas.
    fn requested_items<'a>(&self, outcome: &'a ToolOutcome, report: &mut AppliedOutcome) -> Option<Vec<Item<'a>>> {
        if !outcome.display.open_canvas {
            report.not_opened = outcome.artifacts.iter().map(|a| NotOpened { artifact_id: a.id.clone(), reason: NotOpenedReason::CanvasNotRequested }).collect();
            return None;
        }
        let (showable, not_opened) = showable_items(outcome);
        report.not_opened = not_opened;
        let mut items: Vec<Item<'a>> = showable.into_iter().map(|(item, _)| item).collect();
        items.extend(outcome.dashboard.as_ref().map(Item::Dashboard));
        Some(items)
    }

    /// One item of a read the user asked for, without focus: shown where it is, else a new tab at
    /// the end of the focused pane.
    fn show_requested(&mut self, call_id: &str, item: &Item<'_>, report: &mut AppliedOutcome) -> TabId {
        let existing = match item {
            Item::Artifact(a, _) => self.find_artifact(&a.id),
            Item::Dashboard(d) => self.find_dashboard(&d.id),
            Item::App(a) => self.panes.iter().enumerate().find_map(|(p, pane)| pane.tabs.iter().position(|t| t.app().is_some_and(|x| x.app_id == a.app_id)).map(|t| (p, t))),
        };
        let content = match item {
            Item::Artifact(artifact, viewer) => TabContent::Artifact(ArtifactTab { artifact_id: artifact.id.clone(), name: artifact.name.clone(), mime: artifact.mime.clone(), viewer: *viewer }),
            Item::Dashboard(envelope) => TabContent::Dashboard(DashboardTab::from_envelope(envelope)),
            Item::App(app) => TabContent::App((*app).clone()),
        };
        match existing {
            Some((p, t)) => {
                let tab = &mut self.panes[p].tabs[t];
                tab.content = content;
                tab.relabel();
                tab.reshown_by(call_id);
                if matches!(item, Item::Artifact(..)) {
                    report.focused.push(tab.id);
                } else {
                    report.updated.push(tab.id);
                }
                tab.id
            }
            None => {
                let tab = CanvasTab::new(self.fresh_tab_id(), content, OpenedBy::Call { call_id: call_id.to_owned() });
                let id = tab.id;
                let p = self.active_pane_index();
                let end = self.panes[p].tabs.len();
                self.panes[p].insert_at(end, tab);
                report.opened.push(id);
                id
            }
        }
    }

    /// (pane index, tab index) of a tab showing `artifact_id`: in the focused pane first, else the
    /// first pane from the left that shows it.
    fn find_artifact(&self, artifact_id: &str) -> Option<(usize, usize)> {
        let focused = self.active_pane_index();
        std::iter::once(focused)
            .chain((0..self.panes.len()).filter(|&p| p != focused))
            .find_map(|p| self.panes[p].artifact_position(artifact_id).map(|t| (p, t)))
    }
}
