//! Properties over random sequences of tool results and user intents (ids drawn from small pools
//! so duplicates, re-shown artifacts, repeated dashboards and stale ids are common):
//! 1. nothing panics, and after every step the invariants hold (≥ 1 pane, the active pane and
//!    every pane's active tab exist, no artifact twice in a pane, no dashboard twice on the
//!    canvas, unique ids, only the first pane may be empty);
//! 2. an intent fails exactly when it names a tab or pane that is not there, with the matching
//!    error, and then changes nothing;
//! 3. a result never closes a pinned tab, a user's tab or a lasting (session/pinned) dashboard;
//! 4. after a result that shows something, the focused tab is the primary artifact (the
//!    `display.primary` one when showable, else the first showable), else the dashboard; every
//!    showable artifact is open in the focused pane; the dashboard is open exactly once;
//! 5. in a pane of n tabs, n × next and next-then-previous come back to the same tab;
//! 6. a read the user asked for closes nothing and shows every showable artifact it has; a
//!    watched resource read again closes only unpinned tabs of the read before it.

mod common;

use common::{check_invariants, dashboard, outcome, render};
use mcp_canvas_canvas::{ArtifactTab, Canvas, CanvasError, CanvasIntent, OpenedBy, PaneId, TabContent, TabId};
use mcp_canvas_contract::{Audience, CanvasMode, DashboardPersistence, ToolOutcome, Viewer};
use proptest::prelude::*;

const ARTIFACT_IDS: &[&str] = &["a", "b", "c", "d", "e", "f"];
const DASHBOARD_IDS: &[&str] = &["x", "y", "z"];

#[derive(Debug, Clone)]
enum Op {
    Apply(Box<ToolOutcome>),
    Intent { kind: u8, tab: usize, pane: usize, index: Option<usize>, stale: bool },
    Read(Box<ToolOutcome>),
    Reread(Box<ToolOutcome>, Vec<String>),
}

fn modes() -> impl Strategy<Value = CanvasMode> {
    prop_oneof![Just(CanvasMode::Replace), Just(CanvasMode::Append), Just(CanvasMode::Split)]
}

fn outcomes() -> impl Strategy<Value = ToolOutcome> {
    let artifact = (0..ARTIFACT_IDS.len(), 0..5u8).prop_map(|(id, kind)| {
        let mut a = common::artifact(ARTIFACT_IDS[id]);
        match kind {
            0 => a.viewer = None,
            1 => a.audience = Audience::Assistant,
            2 => a.audience = Audience::User,
            _ => {}
        }
        a
    });
    let persistence = prop_oneof![Just(DashboardPersistence::Ephemeral), Just(DashboardPersistence::Session), Just(DashboardPersistence::Pinned)];
    let envelope = (0..DASHBOARD_IDS.len(), persistence, modes(), any::<bool>()).prop_map(|(id, persistence, mode, token)| {
        let mut d = dashboard(DASHBOARD_IDS[id], persistence, mode);
        if !token {
            d.token = None;
        }
        d
    });
    (
        prop::collection::vec(artifact, 0..5),
        prop::option::weighted(0.6, 0..ARTIFACT_IDS.len() + 1),
        modes(),
        any::<bool>(),
        prop::bool::weighted(0.9),
        prop::option::weighted(0.3, envelope),
    )
        .prop_map(|(artifacts, primary, mode, hint, open, dashboard)| {
            let mut result = outcome("");
            result.artifacts = artifacts;
            // One past the pool: a primary naming nothing.
            result.display.primary = primary.map(|p| ARTIFACT_IDS.get(p).copied().unwrap_or("nothing").to_owned());
            result.display.mode = mode;
            result.display.viewer = hint.then_some(Viewer::Code);
            result.display.open_canvas = open;
            result.dashboard = dashboard;
            result
        })
}

fn ops() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => outcomes().prop_map(|o| Op::Apply(Box::new(o))),
        3 => (0..14u8, any::<usize>(), any::<usize>(), prop::option::of(0..8usize), prop::bool::weighted(0.2))
            .prop_map(|(kind, tab, pane, index, stale)| Op::Intent { kind, tab, pane, index, stale }),
        1 => outcomes().prop_map(|o| Op::Read(Box::new(o))),
        1 => (outcomes(), prop::collection::vec(0..ARTIFACT_IDS.len(), 0..3))
            .prop_map(|(o, previous)| Op::Reread(Box::new(o), previous.into_iter().map(|i| ARTIFACT_IDS[i].to_owned()).collect())),
    ]
}

fn all_tabs(canvas: &Canvas) -> Vec<TabId> {
    canvas.panes().iter().flat_map(|p| &p.tabs).map(|t| t.id).collect()
}

/// An intent on a live tab/pane, or (`stale`) on any small id, which may be gone or never was.
fn intent(canvas: &Canvas, kind: u8, tab: usize, pane: usize, index: Option<usize>, stale: bool) -> CanvasIntent {
    let tabs = all_tabs(canvas);
    let tab = if stale || tabs.is_empty() { TabId((tab % 40) as u64) } else { tabs[tab % tabs.len()] };
    let panes = canvas.panes();
    let pane = if stale { PaneId((pane % 40) as u64) } else { panes[pane % panes.len()].id };
    match kind {
        0 => CanvasIntent::ActivateTab { tab },
        1 => CanvasIntent::CloseTab { tab },
        2 => CanvasIntent::MoveTab { tab, pane, index },
        3 => CanvasIntent::SplitTab { tab },
        4 => CanvasIntent::ClosePane { pane },
        5 => CanvasIntent::FocusPane { pane },
        6 => CanvasIntent::NextTab,
        7 => CanvasIntent::PreviousTab,
        8 => CanvasIntent::PinTab { tab },
        9 => CanvasIntent::UnpinTab { tab },
        10 => CanvasIntent::FloatTab { tab },
        11 => CanvasIntent::UnfloatTab { tab },
        _ => {
            let id = ARTIFACT_IDS[index.unwrap_or(0) % ARTIFACT_IDS.len()];
            CanvasIntent::OpenArtifact {
                artifact: ArtifactTab { artifact_id: id.into(), name: format!("{id}.file"), mime: "image/png".into(), viewer: Viewer::Image },
            }
        }
    }
}

fn named_ids(intent: &CanvasIntent) -> (Option<TabId>, Option<PaneId>) {
    match intent {
        CanvasIntent::ActivateTab { tab }
        | CanvasIntent::CloseTab { tab }
        | CanvasIntent::SplitTab { tab }
        | CanvasIntent::PinTab { tab }
        | CanvasIntent::UnpinTab { tab }
        | CanvasIntent::FloatTab { tab }
        | CanvasIntent::UnfloatTab { tab } => (Some(*tab), None),
        CanvasIntent::MoveTab { tab, pane, .. } => (Some(*tab), Some(*pane)),
        CanvasIntent::ClosePane { pane } | CanvasIntent::FocusPane { pane } => (None, Some(*pane)),
        CanvasIntent::NextTab | CanvasIntent::PreviousTab | CanvasIntent::OpenArtifact { .. } => (None, None),
    }
}

fn check_apply(before: &Canvas, canvas: &Canvas, result: &ToolOutcome, report: &mcp_canvas_canvas::AppliedOutcome) -> Result<(), TestCaseError> {
    // 3. Nothing lasting was closed.
    for closed in &report.closed {
        let tab = before.tab(*closed).expect("closed tabs existed");
        prop_assert!(!tab.pinned, "closed pinned tab {closed:?}");
        prop_assert!(tab.opened_by != OpenedBy::User, "closed a user's tab {closed:?}");
        if let TabContent::Dashboard(d) = &tab.content {
            prop_assert_eq!(d.persistence, DashboardPersistence::Ephemeral, "closed a lasting dashboard");
        }
        prop_assert!(canvas.tab(*closed).is_none());
    }
    for tab in all_tabs(before) {
        prop_assert!(canvas.tab(tab).is_some() || report.closed.contains(&tab), "{tab:?} vanished without being reported");
    }
    // 4. Focus and content.
    let showable: Vec<&str> = result.artifacts.iter().filter(|a| a.viewer.is_some() && a.audience != Audience::Assistant).map(|a| a.id.as_str()).collect();
    if !result.display.open_canvas || (showable.is_empty() && result.dashboard.is_none()) {
        prop_assert_eq!(canvas.view(), before.view(), "nothing to show changed the canvas");
        return Ok(());
    }
    let primary = result.display.primary.as_deref().filter(|p| showable.contains(p)).or(showable.first().copied());
    let active = canvas.active_tab().expect("something was shown");
    prop_assert_eq!(Some(active.id), report.active_tab);
    match primary {
        Some(primary) => {
            prop_assert_eq!(active.artifact_id(), Some(primary));
            if result.display.primary.as_deref() == Some(primary) && result.display.viewer.is_some() {
                prop_assert!(matches!(&active.content, TabContent::Artifact(a) if Some(a.viewer) == result.display.viewer));
            }
            for id in &showable {
                prop_assert!(canvas.active_pane().tabs.iter().any(|t| t.artifact_id() == Some(id)), "{id} not open in the focused pane");
            }
        }
        None => prop_assert_eq!(active.dashboard_id(), result.dashboard.as_ref().map(|d| d.id.as_str())),
    }
    if let Some(envelope) = &result.dashboard {
        let open = canvas.panes().iter().flat_map(|p| &p.tabs).filter(|t| t.dashboard_id() == Some(envelope.id.as_str())).collect::<Vec<_>>();
        prop_assert_eq!(open.len(), 1);
        prop_assert!(matches!(&open[0].content, TabContent::Dashboard(d) if d.url == envelope.url && d.token == envelope.token && d.title == envelope.title));
    }
    Ok(())
}

proptest! {
    // 512 cases by default; `PROPTEST_CASES=N` for a longer run.
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(512), ..ProptestConfig::default() })]

    #[test]
    fn random_results_and_intents_keep_the_invariants(ops in prop::collection::vec(ops(), 1..60)) {
        let mut canvas = Canvas::new();
        for (step, op) in ops.iter().enumerate() {
            let before = canvas.clone();
            match op {
                // Call ids come from a pool of five: a call id seen before must be safe too.
                Op::Apply(result) => {
                    let report = canvas.apply_outcome(&format!("call-{}", step % 5), result);
                    check_apply(&before, &canvas, result, &report)?;
                }
                Op::Read(result) | Op::Reread(result, _) => {
                    let (report, previous) = match op {
                        Op::Reread(_, previous) => (canvas.refresh_read(&format!("read-{step}"), result, previous), previous.clone()),
                        _ => (canvas.open_requested(&format!("read-{step}"), result), Vec::new()),
                    };
                    for closed in &report.closed {
                        let tab = before.tab(*closed).expect("closed tabs existed");
                        prop_assert!(!tab.pinned && tab.artifact_id().is_some_and(|id| previous.iter().any(|p| p == id)), "a read closed {closed:?}");
                        prop_assert!(canvas.tab(*closed).is_none());
                    }
                    for tab in all_tabs(&before) {
                        prop_assert!(canvas.tab(tab).is_some() || report.closed.contains(&tab), "{tab:?} vanished without being reported");
                    }
                    if result.display.open_canvas {
                        for a in result.artifacts.iter().filter(|a| a.viewer.is_some() && a.audience != Audience::Assistant) {
                            prop_assert!(canvas.panes().iter().flat_map(|p| &p.tabs).any(|t| t.artifact_id() == Some(a.id.as_str())), "{} not shown", a.id);
                        }
                    } else {
                        prop_assert_eq!(canvas.view(), before.view(), "a read asking for no canvas changed it");
                    }
                }
                Op::Intent { kind, tab, pane, index, stale } => {
                    let intent = intent(&canvas, *kind, *tab, *pane, *index, *stale);
                    let (tab, pane) = named_ids(&intent);
                    let tab_known = tab.is_none_or(|t| before.tab(t).is_some());
                    let pane_known = pane.is_none_or(|p| before.panes().iter().any(|x| x.id == p));
                    match canvas.apply_intent(intent.clone()) {
                        Ok(()) => prop_assert!(tab_known && pane_known, "{intent:?} succeeded on an unknown id"),
                        // Only an App floats (these outcomes open none).
                        Err(CanvasError::NotAnApp(t)) => {
                            prop_assert!(matches!(intent, CanvasIntent::FloatTab { .. }) && before.tab(t).is_some_and(|t| t.app().is_none()), "{intent:?}");
                            prop_assert_eq!(canvas.view(), before.view(), "a failed intent changed the canvas");
                        }
                        Err(error) => {
                            let expected = if !tab_known { CanvasError::UnknownTab(tab.unwrap()) } else { CanvasError::UnknownPane(pane.unwrap()) };
                            prop_assert!(!(tab_known && pane_known), "{intent:?} failed on known ids: {error}");
                            prop_assert_eq!(&error, &expected);
                            prop_assert_eq!(canvas.view(), before.view(), "a failed intent changed the canvas");
                        }
                    }
                }
            }
            if let Err(broken) = check_invariants(&canvas) {
                return Err(TestCaseError::fail(format!("step {step} ({op:?}): {broken}\n  before: {}\n  after:  {}", render(&before), render(&canvas))));
            }
        }
    }

    #[test]
    fn next_and_previous_wrap(count in 1..30usize, start in 0..30usize) {
        let mut canvas = Canvas::new();
        let ids: String = (0..count).map(|i| format!("t{i} ")).collect();
        let mut result = outcome(&ids);
        result.display.mode = CanvasMode::Append;
        let opened = canvas.apply_outcome("c", &result).opened;
        canvas.activate_tab(opened[start % count]).unwrap();
        let first = canvas.active_tab().unwrap().id;
        for _ in 0..count {
            canvas.next_tab();
        }
        prop_assert_eq!(canvas.active_tab().unwrap().id, first);
        canvas.next_tab();
        canvas.previous_tab();
        prop_assert_eq!(canvas.active_tab().unwrap().id, first);
        for _ in 0..count {
            canvas.previous_tab();
        }
        prop_assert_eq!(canvas.active_tab().unwrap().id, first);
        prop_assert_eq!(canvas.previous_tab(), Some(opened[(start % count + count - 1) % count]));
    }
}
