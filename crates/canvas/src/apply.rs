//! Placing a tool result on the canvas (see docs/result-shapes.md, "The display block" and "Live
//! dashboards (the canvas envelope)"); the rules are documented on [`Canvas::apply_outcome`].

use mcp_canvas_contract::{Audience, CanvasMode, DashboardEnvelope, OutcomeArtifact, ToolOutcome, Viewer};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    canvas::Canvas,
    ids::{PaneId, TabId},
    tab::{AppTab, ArtifactTab, CanvasTab, DashboardTab, OpenedBy, TabContent},
};

/// What [`Canvas::apply_outcome`] did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AppliedOutcome {
    /// New tabs, in the order they were opened.
    pub opened: Vec<TabId>,
    /// Artifact tabs already open in the target pane, shown again instead of duplicated.
    pub focused: Vec<TabId>,
    /// Dashboard tabs updated in place (same `id`).
    pub updated: Vec<TabId>,
    /// Tabs `replace` closed.
    pub closed: Vec<TabId>,
    /// The pane `split` created.
    pub new_pane: Option<PaneId>,
    /// The tab shown after the call: the primary artifact, else the first one, else the dashboard.
    pub active_tab: Option<TabId>,
    /// Artifacts of the result that did not open as tabs (they stay listed in the outcome).
    pub not_opened: Vec<NotOpened>,
}

/// An artifact left out of the canvas, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct NotOpened {
    /// Artifact id.
    pub artifact_id: String,
    /// Why.
    pub reason: NotOpenedReason,
}

/// Why an artifact did not open as a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum NotOpenedReason {
    /// The result did not ask for the canvas (`display.open_canvas` is false).
    CanvasNotRequested,
    /// No viewer can show its MIME type.
    NoViewer,
    /// Annotated `audience: ["assistant"]`: for the model, not shown by default.
    AssistantOnly,
}

/// Where an item of a call goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The pane that was active when the call arrived.
    Origin,
    /// The pane this call splits off.
    Split,
    /// A dashboard already open: stays in its pane.
    Existing(PaneId),
}

pub(crate) enum Item<'a> {
    Artifact(&'a OutcomeArtifact, Viewer),
    Dashboard(&'a DashboardEnvelope),
    App(&'a AppTab),
}

impl Canvas {
    /// Applies the result of call `call_id`. Nothing happens unless `display.open_canvas`, and a
    /// result with nothing to show leaves the canvas as it was. Otherwise, in four steps:
    /// 1. **What opens**: the showable artifacts (a viewer, not `audience: assistant`), the
    ///    `display.primary` one first when it is showable (in the `display.viewer` viewer when
    ///    given), then the others in result order, each id once; then the dashboard, if any. The
    ///    rest are reported in [`AppliedOutcome::not_opened`].
    /// 2. **Where**: each item goes to the active pane ("origin"), or — `split` — to one new pane
    ///    right of it (one per call, however many items ask for it). A dashboard already open stays
    ///    in its pane and is updated there (url, title, token, persistence). Artifacts use
    ///    `display.mode`, the dashboard its envelope's `mode`. An artifact already open in its
    ///    target pane is shown again there, not opened twice.
    /// 3. **Replace**: when an item with mode `replace` lands in the origin pane, the tabs that the
    ///    origin pane's previous call opened there are closed — except pinned tabs, tabs the user
    ///    opened or moved there, session/pinned dashboards, and whatever this call shows again. New
    ///    tabs take the place of the first closed one.
    /// 4. **Focus**: in every pane that received something, the first item it received becomes the
    ///    active tab and the pane remembers this call; the pane of the call's first item (the
    ///    primary artifact, else the dashboard) gets focus.
    pub fn apply_outcome(&mut self, call_id: &str, outcome: &ToolOutcome) -> AppliedOutcome {
        self.apply_call(call_id, outcome, None)
    }

    /// Opens the App of call `call_id` as the call starts (its view shows the input while the
    /// result is awaited), as `replace` would; [`Self::apply_call`] with the same App later finds
    /// it in place.
    pub fn open_app(&mut self, call_id: &str, app: &AppTab) -> AppliedOutcome {
        self.place(call_id, vec![(Item::App(app), CanvasMode::Replace)], AppliedOutcome::default())
    }

    /// [`Self::apply_outcome`] for the call of a tool that declared an MCP App view: the App opens
    /// first — it is the tool's own view of its result, so it opens even when the result does not
    /// ask for the canvas — in `display.mode`, as a tab of its own (each call is its own App
    /// instance; one already opened for this call is shown again where it is), and `replace`
    /// treats it like an artifact tab. The App stays in front: the result's artifacts and
    /// dashboard open behind it and take focus nowhere (a pane they alone land in, `split`, shows
    /// its first); and when the App opened as its call started, the result takes no focus at all.
    pub fn apply_call(&mut self, call_id: &str, outcome: &ToolOutcome, app: Option<&AppTab>) -> AppliedOutcome {
        let mut report = AppliedOutcome::default();
        let mut items: Vec<(Item<'_>, CanvasMode)> = Vec::new();
        if let Some(app) = app {
            items.push((Item::App(app), outcome.display.mode));
        }
        if outcome.display.open_canvas {
            // 1. What opens, in order.
            let (showable, not_opened) = showable_items(outcome);
            items.extend(showable);
            report.not_opened = not_opened;
            if let Some(envelope) = &outcome.dashboard {
                items.push((Item::Dashboard(envelope), envelope.mode));
            }
        } else {
            report.not_opened =
                outcome.artifacts.iter().map(|a| NotOpened { artifact_id: a.id.clone(), reason: NotOpenedReason::CanvasNotRequested }).collect();
        }
        self.place(call_id, items, report)
    }

    /// Steps 2–4 of [`Self::apply_outcome`] for `items`.
    fn place(&mut self, call_id: &str, items: Vec<(Item<'_>, CanvasMode)>, mut report: AppliedOutcome) -> AppliedOutcome {
        if items.is_empty() {
            return report;
        }

        // 2. Where each goes.
        let origin_id = self.active_pane;
        let has_app = items.iter().any(|(item, _)| matches!(item, Item::App(_)));
        let targets: Vec<Target> = items
            .iter()
            .map(|(item, mode)| match item {
                Item::Dashboard(envelope) => match self.find_dashboard(&envelope.id) {
                    Some((p, _)) => Target::Existing(self.panes[p].id),
                    None if *mode == CanvasMode::Split => Target::Split,
                    None => Target::Origin,
                },
                Item::App(app) if self.find_app(&app.app_id).is_some() => Target::Existing(self.find_app(&app.app_id).expect("just found")),
                Item::Artifact(..) | Item::App(_) if *mode == CanvasMode::Split => Target::Split,
                Item::Artifact(..) | Item::App(_) => Target::Origin,
            })
            .collect();
        let lands_in_origin = |target: Target| target == Target::Origin || target == Target::Existing(origin_id);

        // 3. Replace in the origin pane.
        let origin = self.active_pane_index();
        let mut cursor = self.panes[origin].tabs.len();
        let replace = items.iter().zip(&targets).any(|((_, mode), &target)| *mode == CanvasMode::Replace && lands_in_origin(target));
        if let (true, Some(previous)) = (replace, self.panes[origin].last_call.clone()) {
            let shown_again = |tab: &CanvasTab| {
                items.iter().zip(&targets).any(|((item, _), &target)| match item {
                    Item::Artifact(a, _) => target == Target::Origin && tab.artifact_id() == Some(a.id.as_str()),
                    Item::Dashboard(d) => tab.dashboard_id() == Some(d.id.as_str()),
                    Item::App(a) => tab.app().is_some_and(|t| t.app_id == a.app_id),
                })
            };
            let pane = &mut self.panes[origin];
            let mut first_closed = None;
            let mut index = 0;
            while index < pane.tabs.len() {
                let tab = &pane.tabs[index];
                if tab.replaceable_by_successor_of(&previous) && !shown_again(tab) {
                    first_closed.get_or_insert(index);
                    report.closed.push(pane.remove_at(index).id);
                } else {
                    index += 1;
                }
            }
            cursor = first_closed.unwrap_or(pane.tabs.len());
        }

        let split_pane = targets.contains(&Target::Split).then(|| {
            let index = self.insert_pane_after(origin);
            self.panes[index].id
        });
        report.new_pane = split_pane;

        // Place each item; remember the first tab each pane received.
        let mut firsts: Vec<(PaneId, TabId)> = Vec::new();
        // Panes that got something, for their `last_call`, also when nothing there takes focus.
        let mut touched: Vec<PaneId> = Vec::new();
        for ((item, _), target) in items.iter().zip(targets) {
            let pane_id = match target {
                Target::Origin => origin_id,
                Target::Split => split_pane.expect("created above when any item splits"),
                Target::Existing(id) => id,
            };
            let p = self.pane_index(pane_id).expect("target panes exist");
            // An App opened as its call started takes no focus when its result comes: the user may
            // have moved on meanwhile. Beside an App, the rest of its result never does: the App is
            // the tool's own view of it (a large JSON document must not take its place in front).
            let mut quiet = has_app && !matches!(item, Item::App(_));
            let tab_id = match item {
                Item::Artifact(artifact, viewer) => {
                    let content = ArtifactTab { artifact_id: artifact.id.clone(), name: artifact.name.clone(), mime: artifact.mime.clone(), viewer: *viewer };
                    if let Some(t) = self.panes[p].artifact_position(&artifact.id) {
                        let tab = &mut self.panes[p].tabs[t];
                        tab.content = TabContent::Artifact(content);
                        tab.relabel();
                        tab.reshown_by(call_id);
                        report.focused.push(tab.id);
                        if pane_id == origin_id {
                            // Later new tabs follow it, keeping the result's order.
                            cursor = cursor.max(t + 1);
                        }
                        tab.id
                    } else {
                        let id = self.insert_new(p, pane_id == origin_id, &mut cursor, TabContent::Artifact(content), call_id);
                        report.opened.push(id);
                        id
                    }
                }
                Item::App(app) => {
                    if let Some(t) = self.panes[p].tabs.iter().position(|t| t.app().is_some_and(|a| a.app_id == app.app_id)) {
                        // Opened as its call started: the result arrives for the same App.
                        let tab = &mut self.panes[p].tabs[t];
                        tab.reshown_by(call_id);
                        report.updated.push(tab.id);
                        quiet = true;
                        tab.id
                    } else {
                        let id = self.insert_new(p, pane_id == origin_id, &mut cursor, TabContent::App((*app).clone()), call_id);
                        report.opened.push(id);
                        id
                    }
                }
                Item::Dashboard(envelope) => {
                    if let Some(t) = self.panes[p].tabs.iter().position(|t| t.dashboard_id() == Some(envelope.id.as_str())) {
                        let tab = &mut self.panes[p].tabs[t];
                        tab.content = TabContent::Dashboard(DashboardTab::from_envelope(envelope));
                        tab.relabel();
                        tab.reshown_by(call_id);
                        report.updated.push(tab.id);
                        tab.id
                    } else {
                        let content = TabContent::Dashboard(DashboardTab::from_envelope(envelope));
                        let id = self.insert_new(p, pane_id == origin_id, &mut cursor, content, call_id);
                        report.opened.push(id);
                        id
                    }
                }
            };
            if !touched.contains(&pane_id) {
                touched.push(pane_id);
            }
            if !quiet && !firsts.iter().any(|(pane, _)| *pane == pane_id) {
                firsts.push((pane_id, tab_id));
            }
        }

        // 4. Focus.
        for pane_id in &touched {
            let p = self.pane_index(*pane_id).expect("target panes exist");
            self.panes[p].last_call = Some(call_id.to_owned());
        }
        for (pane_id, tab_id) in &firsts {
            let p = self.pane_index(*pane_id).expect("target panes exist");
            self.panes[p].active_tab = Some(*tab_id);
        }
        if let Some((pane_id, tab_id)) = firsts.first() {
            self.active_pane = *pane_id;
            report.active_tab = Some(*tab_id);
        }
        report
    }
}

impl Canvas {
    /// A new tab of call `call_id` in pane `p`: in the origin pane at `cursor` (which then moves
    /// past it, keeping the result's order), elsewhere at the end.
    fn insert_new(&mut self, p: usize, in_origin: bool, cursor: &mut usize, content: TabContent, call_id: &str) -> TabId {
        let tab = CanvasTab::new(self.fresh_tab_id(), content, OpenedBy::Call { call_id: call_id.to_owned() });
        let id = tab.id;
        let at = if in_origin { *cursor } else { self.panes[p].tabs.len() };
        self.panes[p].insert_at(at, tab);
        if in_origin {
            *cursor = at + 1;
        }
        id
    }

    /// The pane holding the App `app_id`, if one does.
    fn find_app(&self, app_id: &str) -> Option<PaneId> {
        self.panes.iter().find(|p| p.tabs.iter().any(|t| t.app().is_some_and(|a| a.app_id == app_id))).map(|p| p.id)
    }
}

/// The artifacts a result opens, in the order the canvas opens them (the primary file first,
/// each id once), with the viewer each opens in — the same rule [`Canvas::apply_outcome`]
/// follows, for front ends that show a result elsewhere (the proxy's MCP App view).
pub fn opening_order(outcome: &ToolOutcome) -> Vec<(&OutcomeArtifact, Viewer)> {
    showable_items(outcome).0.into_iter().filter_map(|(item, _)| if let Item::Artifact(a, v) = item { Some((a, v)) } else { None }).collect()
}

/// The showable artifacts in opening order (primary first, each id once) with the viewer each
/// opens in, and the ones left out.
pub(crate) fn showable_items(outcome: &ToolOutcome) -> (Vec<(Item<'_>, CanvasMode)>, Vec<NotOpened>) {
    let why_not = |a: &OutcomeArtifact| match (a.viewer, a.audience) {
        (None, _) => Some(NotOpenedReason::NoViewer),
        (Some(_), Audience::Assistant) => Some(NotOpenedReason::AssistantOnly),
        (Some(_), _) => None,
    };
    let mode = outcome.display.mode;
    let mut items: Vec<(Item<'_>, CanvasMode)> = Vec::new();
    let mut not_opened = Vec::new();
    // The same id may come twice (the same bytes in two blocks, annotated differently): any
    // showable occurrence counts.
    let primary = outcome.display.primary.as_deref().and_then(|id| outcome.artifacts.iter().find(|a| a.id == id && why_not(a).is_none()));
    if let Some(primary) = primary {
        let viewer = outcome.display.viewer.or(primary.viewer).expect("showable artifacts have a viewer");
        items.push((Item::Artifact(primary, viewer), mode));
    }
    for artifact in &outcome.artifacts {
        match (why_not(artifact), artifact.viewer) {
            (None, Some(viewer)) => {
                if !items.iter().any(|(item, _)| matches!(item, Item::Artifact(a, _) if a.id == artifact.id)) {
                    items.push((Item::Artifact(artifact, viewer), mode));
                }
            }
            (reason, _) => {
                if !not_opened.iter().any(|n: &NotOpened| n.artifact_id == artifact.id) {
                    not_opened.push(NotOpened { artifact_id: artifact.id.clone(), reason: reason.unwrap_or(NotOpenedReason::NoViewer) });
                }
            }
        }
    }
    not_opened.retain(|n| !items.iter().any(|(item, _)| matches!(item, Item::Artifact(a, _) if a.id == n.artifact_id)));
    (items, not_opened)
}
