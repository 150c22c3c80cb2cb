//! The canvas rules, data-driven: each case is a script of tool results and user intents run on a
//! fresh canvas, and the expected canvas as one line (see `common::render`:
//! `>[b* a] | [d:x*]` — panes left to right, `>` focused pane, `*` active tab, `^` pinned,
//! `d:` dashboards).
//!
//! Script steps, separated by `;`:
//! - `c1: a b# c~ d+ mode=append primary=b viewer=code dash=x:ephemeral:split nocanvas` — tool
//!   call `c1` returning artifacts (`#` no viewer, `~` assistant only, `+` user only), display
//!   options, and a dashboard envelope (`id:persistence[:mode]`, mode `replace` by default);
//! - `open a` — the user opens artifact `a`;
//! - `read r1: a b` — the user opens a read (a resource, a link, a prompt) `r1` showing `a` and
//!   `b` (options as for a call); `reread a,b r2: c` — a watched resource read again as `r2`, its
//!   last read having shown `a` and `b`;
//! - `forget a` — artifact `a` was deleted from the store: every tab showing it closes;
//! - `activate T`, `close T`, `pin T`, `unpin T`, `split T`, `move T -> P [@I]` — on tab `T`
//!   (`a`, `d:x`, or `a@1` for `a` in pane 1);
//! - `closepane P`, `focus P` (pane indexes), `next`, `prev`.

mod common;

use common::{check_invariants, dashboard, mode, outcome, persistence, render};
use mcp_canvas_canvas::{ArtifactTab, Canvas, CanvasError, CanvasIntent, NotOpened, NotOpenedReason, OpenedBy, PaneId, PinnedDashboard, TabContent, TabId};
use mcp_canvas_contract::{CanvasMode, DashboardPersistence, ToolOutcome, Viewer};

fn parse_call(line: &str) -> (String, ToolOutcome) {
    let (call_id, rest) = line.split_once(':').expect("a call step is `id: ...`");
    let mut tokens = Vec::new();
    let mut result = outcome("");
    for word in rest.split_whitespace() {
        match word.split_once('=') {
            Some(("mode", m)) => result.display.mode = mode(m),
            Some(("primary", p)) => result.display.primary = Some(p.to_owned()),
            Some(("viewer", "code")) => result.display.viewer = Some(Viewer::Code),
            Some(("dash", spec)) => {
                let parts: Vec<&str> = spec.split(':').collect();
                result.dashboard = Some(dashboard(parts[0], persistence(parts[1]), parts.get(2).map_or(CanvasMode::Replace, |m| mode(m))));
            }
            Some((key, _)) => panic!("unknown call option {key}"),
            None if word == "nocanvas" => result.display.open_canvas = false,
            None => tokens.push(word),
        }
    }
    result.artifacts = outcome(&tokens.join(" ")).artifacts;
    (call_id.trim().to_owned(), result)
}

/// A tab by key (`a`, `d:x`), optionally in one pane (`a@1`).
fn find(canvas: &Canvas, key: &str) -> TabId {
    let (key, pane) = match key.split_once('@') {
        Some((key, pane)) => (key, Some(pane.parse::<usize>().unwrap())),
        None => (key, None),
    };
    canvas
        .panes()
        .iter()
        .enumerate()
        .filter(|(index, _)| pane.is_none_or(|p| p == *index))
        .flat_map(|(_, p)| &p.tabs)
        .find(|t| match (key.strip_prefix("d:"), key.strip_prefix("app:")) {
            (Some(dashboard), _) => t.dashboard_id() == Some(dashboard),
            (_, Some(app)) => t.app().is_some_and(|a| a.app_id == app),
            _ => t.artifact_id() == Some(key),
        })
        .unwrap_or_else(|| panic!("no tab {key} in {}", common::render(canvas)))
        .id
}

fn pane(canvas: &Canvas, index: &str) -> PaneId {
    canvas.panes()[index.parse::<usize>().unwrap()].id
}

fn run(script: &str) -> Canvas {
    let mut canvas = Canvas::new();
    for step in script.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let words: Vec<&str> = step.split_whitespace().collect();
        let done: Result<(), CanvasError> = match words[..] {
            ["open", id] => {
                let a = common::artifact(id);
                canvas.open_artifact(ArtifactTab { artifact_id: a.id, name: a.name, mime: a.mime, viewer: Viewer::Image });
                Ok(())
            }
            ["read", ..] => {
                let (call_id, result) = parse_call(step.trim_start_matches("read").trim());
                canvas.open_requested(&call_id, &result);
                Ok(())
            }
            ["reread", previous, ..] => {
                let previous: Vec<String> = previous.split(',').map(str::to_owned).collect();
                let rest = step.trim_start_matches("reread").trim().split_once(' ').expect("reread PREVIOUS CALL: ...").1;
                let (call_id, result) = parse_call(rest);
                canvas.refresh_read(&call_id, &result, &previous);
                Ok(())
            }
            ["forget", id] => {
                canvas.close_artifact(id);
                Ok(())
            }
            ["activate", t] => canvas.activate_tab(find(&canvas, t)),
            ["close", t] => canvas.close_tab(find(&canvas, t)),
            ["pin", t] => canvas.pin_tab(find(&canvas, t)),
            ["unpin", t] => canvas.unpin_tab(find(&canvas, t)),
            ["split", t] => canvas.split_tab(find(&canvas, t)).map(drop),
            ["move", t, "->", p] => canvas.move_tab(find(&canvas, t), pane(&canvas, p), None),
            ["move", t, "->", p, at] => canvas.move_tab(find(&canvas, t), pane(&canvas, p), Some(at.trim_start_matches('@').parse().unwrap())),
            ["closepane", p] => canvas.close_pane(pane(&canvas, p)),
            ["focus", p] => canvas.focus_pane(pane(&canvas, p)),
            ["next"] => {
                canvas.next_tab();
                Ok(())
            }
            ["prev"] => {
                canvas.previous_tab();
                Ok(())
            }
            _ => {
                let (call_id, result) = parse_call(step);
                canvas.apply_outcome(&call_id, &result);
                Ok(())
            }
        };
        done.unwrap_or_else(|e| panic!("step `{step}` failed: {e}"));
        check_invariants(&canvas).unwrap_or_else(|e| panic!("after `{step}`: {e} in {}", render(&canvas)));
    }
    canvas
}

fn check(cases: &[(&str, &str, &str)]) {
    let mut failures = Vec::new();
    for (name, script, expected) in cases {
        let got = render(&run(script));
        if got != *expected {
            failures.push(format!("{name}\n    script:   {script}\n    expected: {expected}\n    got:      {got}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn primary_artifact_rule() {
    check(&[
        ("primary given: opens first and active, the rest follow in result order", "c1: a b c primary=b", ">[b* a c]"),
        ("no primary: the first showable one", "c1: a# b c", ">[b* c]"),
        ("primary naming no artifact: the first showable one", "c1: a b primary=zz", ">[a* b]"),
        ("primary naming an artifact without a viewer", "c1: a b# c primary=b", ">[a* c]"),
        ("primary naming an assistant-only artifact", "c1: a~ b primary=a", ">[b*]"),
        ("assistant-only and viewerless artifacts never open", "c1: a~ b# c~", ">[]"),
        ("user-only artifacts open", "c1: a+ b", ">[a* b]"),
        ("an id twice in one result opens once", "c1: a b a primary=a", ">[a* b]"),
        ("an id twice, only its second occurrence showable: still the primary", "c1: c b# b+ primary=b", ">[b* c]"),
        ("open_canvas false: nothing opens", "c1: a b nocanvas", ">[]"),
        ("open_canvas false does not replace either", "c1: a; c2: b nocanvas", ">[a*]"),
        ("nothing showable does not replace the previous result", "c1: a; c2: b#", ">[a*]"),
    ]);
}

#[test]
fn replace_mode() {
    check(&[
        ("replaces the previous call's tabs", "c1: a b; c2: c", ">[c*]"),
        ("only the previous call's: older ones stay", "c1: a; c2: b mode=append; c3: c", ">[a c*]"),
        ("new tabs take the place of the first closed one", "open u1; c1: a b; open u2; c2: c d", ">[u1 c* d u2]"),
        ("pinned tabs stay", "c1: a b; pin a; c2: c", ">[a^ c*]"),
        ("tabs the user opened stay", "open u; c1: a; c2: b", ">[u b*]"),
        ("a tab the user opened again is theirs", "c1: a b; open a; c2: c", ">[a c*]"),
        ("an artifact shown again stays in place, result order kept", "c1: a b; c2: b c", ">[b* c]"),
        ("shown again as primary", "c1: a b; c2: c b primary=b", ">[b* c]"),
        ("only in the active pane, replacing that pane's previous call", "c1: a; c2: b mode=split; focus 0; c3: c", ">[c*] | [b*]"),
        ("a re-shown pinned tab stays pinned", "c1: a; pin a; c2: a b", ">[a*^ b]"),
        ("unpinned after being shown again: replaced", "c1: a; pin a; c2: a b; unpin a; c3: c", ">[c*]"),
        ("a tab moved to another pane stays", "c1: a; c2: b c mode=split; move b -> 0; c3: d", ">[d* b] | [c*]"),
    ]);
}

#[test]
fn append_and_split_modes() {
    check(&[
        ("append adds to the active pane, primary active", "c1: a; c2: b c mode=append primary=c", ">[a c* b]"),
        ("append focuses an artifact already open instead of duplicating it", "c1: a b; c2: b c mode=append", ">[a b* c]"),
        ("append into a fresh canvas", "c1: a mode=append", ">[a*]"),
        ("split opens a new pane right of the active one", "c1: a; c2: b c mode=split", "[a*] | >[b* c]"),
        ("split from the first of two panes inserts between them", "c1: a; c2: b mode=split; focus 0; c3: c mode=split", "[a*] | >[c*] | [b*]"),
        ("split may show an artifact open in another pane", "c1: a; c2: a mode=split", "[a*] | >[a*]"),
        ("split with nothing showable creates no pane", "c1: a; c2: b# mode=split", ">[a*]"),
        ("a split pane's own previous call is replaced next", "c1: a; c2: b mode=split; c3: c", "[a*] | >[c*]"),
    ]);
}

#[test]
fn dashboards() {
    check(&[
        ("a dashboard opens as a tab", "c1: dash=x:session", ">[d:x*]"),
        ("the same id updates the tab instead of opening another", "c1: dash=x:session; c2: dash=x:session", ">[d:x*]"),
        ("the same id updates it in the pane where it is", "c1: dash=x:session; c2: a mode=split; c3: dash=x:session:append", ">[d:x*] | [a*]"),
        ("artifacts first, then the dashboard; primary active", "c1: a dash=x:session", ">[a* d:x]"),
        ("ephemeral dashboards close on replace", "c1: a dash=x:ephemeral; c2: b", ">[b*]"),
        ("session dashboards stay on replace", "c1: a dash=x:session; c2: b", ">[b* d:x]"),
        ("pinned dashboards stay on replace", "c1: a dash=x:pinned; c2: b", ">[b* d:x]"),
        ("a pinned ephemeral dashboard stays", "c1: dash=x:ephemeral; pin d:x; c2: b", ">[d:x^ b*]"),
        ("an ephemeral dashboard sent again survives, the rest is replaced", "c1: a dash=x:ephemeral; c2: dash=x:ephemeral", ">[d:x*]"),
        ("an ephemeral dashboard from an older call stays", "c1: dash=x:ephemeral; c2: a mode=append; c3: b", ">[d:x b*]"),
        ("dashboard split mode opens a new pane", "c1: a; c2: dash=x:session:split", "[a*] | >[d:x*]"),
        ("artifacts and dashboard splitting share one new pane", "c1: a; c2: b mode=split dash=x:session:split", "[a*] | >[b* d:x]"),
        ("artifacts replace, dashboard splits: focus follows the primary", "c1: a; c2: b dash=x:session:split", ">[b*] | [d:x*]"),
        ("a dashboard already open never splits again", "c1: dash=x:session:split; c2: dash=x:session:split", "[] | >[d:x*]"),
    ]);
}

#[test]
fn user_intents() {
    check(&[
        ("closing the active tab shows its right neighbour", "c1: a b c primary=b; close b", ">[a* c]"),
        ("closing the last active tab shows its left neighbour", "c1: a b; activate b; close b", ">[a*]"),
        ("closing an inactive tab keeps the active one", "c1: a b c; close c", ">[a* b]"),
        ("closing the last tab of a non-first pane removes the pane", "c1: a; c2: b mode=split; close b", ">[a*]"),
        ("the first pane stays when its last tab closes", "c1: a; close a", ">[]"),
        ("the first pane stays empty beside others", "c1: a; c2: b mode=split; close a", "[] | >[b*]"),
        ("closing a pane", "c1: a; c2: b mode=split; closepane 1", ">[a*]"),
        ("closing the first pane focuses the next", "c1: a; c2: b mode=split; focus 0; closepane 0", ">[b*]"),
        ("closing an inactive pane keeps the focus", "c1: a; c2: b mode=split; c3: c mode=split; closepane 0", "[b*] | >[c*]"),
        ("closing the only pane empties it, pinned tabs too", "c1: a b; pin a; closepane 0", ">[]"),
        ("moving a tab to another pane shows and focuses it there", "c1: a b; c2: c mode=split; move a -> 1", "[b*] | >[c a*]"),
        ("moving to an index", "c1: a b; c2: c mode=split; move a -> 1 @0", "[b*] | >[a* c]"),
        ("moving the last tab out of a non-first pane removes it", "c1: a; c2: b mode=split; move b -> 0", ">[a b*]"),
        ("moving onto the same artifact merges the two", "c1: a; c2: a b mode=split; move a@1 -> 0", ">[a*] | [b*]"),
        ("moving within a pane reorders", "c1: a b c; move c -> 0 @0", ">[c* a b]"),
        ("an index past the end is the end", "c1: a b c; move a -> 0 @99", ">[b c a*]"),
        ("split a tab into a new pane", "c1: a b; split a", "[b*] | >[a*]"),
        ("splitting the only tab of a non-first pane", "c1: a; c2: b mode=split; split b", "[a*] | >[b*]"),
        ("next wraps after the last tab", "c1: a b c; next; next; next", ">[a* b c]"),
        ("previous wraps before the first tab", "c1: a b c; prev", ">[a b c*]"),
        ("next and previous act in the focused pane", "c1: a b; c2: c d mode=split; focus 0; next", ">[a b*] | [c* d]"),
        ("next on an empty pane does nothing", "next; prev", ">[]"),
        ("activating a tab focuses its pane", "c1: a b; c2: c mode=split; activate b", ">[a b*] | [c*]"),
        ("the user opens an artifact in the focused pane", "c1: a; open z", ">[a z*]"),
        ("opening an artifact already there focuses it", "c1: a b; open a", ">[a* b]"),
    ]);
}

// ----------------------------------------------------------------------- what the report says

#[test]
fn report_lists_what_happened() {
    let mut canvas = Canvas::new();
    let first = canvas.apply_outcome("c1", &outcome("a b# c~ d"));
    assert_eq!(first.opened.len(), 2);
    assert_eq!(first.active_tab, Some(first.opened[0]));
    assert_eq!(
        first.not_opened,
        vec![
            NotOpened { artifact_id: "b".into(), reason: NotOpenedReason::NoViewer },
            NotOpened { artifact_id: "c".into(), reason: NotOpenedReason::AssistantOnly },
        ]
    );
    let twice = Canvas::new().apply_outcome("c0", &outcome("b# b"));
    assert!(twice.not_opened.is_empty(), "b opened, so it is not reported as left out: {twice:?}");

    let mut second = outcome("d e");
    second.display.mode = CanvasMode::Split;
    let split = canvas.apply_outcome("c2", &second);
    assert_eq!(split.new_pane, Some(canvas.active_pane().id));
    assert_eq!(split.opened.len(), 2);
    assert!(split.focused.is_empty() && split.closed.is_empty());

    let replaced = canvas.apply_outcome("c3", &outcome("e f"));
    assert_eq!(replaced.closed, vec![split.opened[0]], "d closed, e shown again");
    assert_eq!(replaced.focused, vec![split.opened[1]]);
    assert_eq!(replaced.active_tab, Some(split.opened[1]));

    let mut hidden = outcome("a b");
    hidden.display.open_canvas = false;
    let before = canvas.view();
    let report = canvas.apply_outcome("c4", &hidden);
    assert_eq!(canvas.view(), before);
    assert!(report.opened.is_empty());
    assert!(report.not_opened.iter().all(|n| n.reason == NotOpenedReason::CanvasNotRequested));
}

#[test]
fn tabs_record_the_call_and_the_viewer_hint_applies_to_the_primary_only() {
    let mut canvas = Canvas::new();
    let mut result = outcome("a b");
    result.display.primary = Some("b".into());
    result.display.viewer = Some(Viewer::Code);
    let report = canvas.apply_outcome("call-1", &result);
    let viewer = |canvas: &Canvas, id| match &canvas.tab(id).unwrap().content {
        TabContent::Artifact(a) => a.viewer,
        TabContent::Dashboard(_) | TabContent::App(_) => panic!("not an artifact"),
    };
    assert_eq!(viewer(&canvas, report.opened[0]), Viewer::Code, "primary b gets the hint");
    assert_eq!(viewer(&canvas, report.opened[1]), Viewer::Image, "a keeps its own viewer");
    let tab = canvas.tab(report.opened[0]).unwrap();
    assert_eq!(tab.opened_by, OpenedBy::Call { call_id: "call-1".into() });
    assert_eq!(tab.label, "b.file");
    match &tab.content {
        TabContent::Artifact(a) => assert_eq!((a.artifact_id.as_str(), a.mime.as_str()), ("b", "image/png")),
        TabContent::Dashboard(_) | TabContent::App(_) => unreachable!(),
    }

    // Shown again by another call without a hint: the artifact's own viewer, the new call.
    let again = canvas.apply_outcome("call-2", &outcome("b"));
    assert_eq!(again.focused, vec![report.opened[0]]);
    assert_eq!(viewer(&canvas, report.opened[0]), Viewer::Image);
    assert_eq!(canvas.tab(report.opened[0]).unwrap().opened_by, OpenedBy::Call { call_id: "call-2".into() });
}

#[test]
fn a_dashboard_id_sent_again_updates_url_title_and_token_in_place() {
    let mut canvas = Canvas::new();
    let mut first = outcome("");
    first.dashboard = Some(dashboard("x", DashboardPersistence::Session, CanvasMode::Append));
    let opened = canvas.apply_outcome("c1", &first).opened[0];

    let mut second = outcome("");
    let mut envelope = dashboard("x", DashboardPersistence::Session, CanvasMode::Split);
    envelope.url = "https://dash.example/x?v=2".into();
    envelope.title = None;
    envelope.token = Some("fresh-token".into());
    second.dashboard = Some(envelope);
    let report = canvas.apply_outcome("c2", &second);
    assert_eq!((report.updated.as_slice(), report.opened.len(), report.new_pane), ([opened].as_slice(), 0, None));
    let tab = canvas.tab(opened).unwrap();
    assert_eq!(tab.label, "dash.example", "no title: the host");
    match &tab.content {
        TabContent::Dashboard(d) => {
            assert_eq!(d.url, "https://dash.example/x?v=2");
            assert_eq!(d.token.as_deref(), Some("fresh-token"));
        }
        TabContent::Artifact(_) | TabContent::App(_) => unreachable!(),
    }
    // The UI needs the token to load the iframe; logs (Debug) never see it.
    let json = serde_json::to_string(&canvas.view()).unwrap();
    assert!(json.contains("fresh-token"));
    assert!(!format!("{canvas:?}").contains("fresh-token"));
}

#[test]
fn pinned_dashboards_are_reported_and_restored_without_tokens() {
    let mut canvas = Canvas::new();
    let mut result = outcome("a");
    result.dashboard = Some(dashboard("p", DashboardPersistence::Pinned, CanvasMode::Append));
    canvas.apply_outcome("c1", &result);
    let mut session = outcome("");
    session.dashboard = Some(dashboard("s", DashboardPersistence::Session, CanvasMode::Append));
    canvas.apply_outcome("c2", &session);

    let saved = canvas.pinned_dashboards();
    assert_eq!(saved, vec![PinnedDashboard { dashboard_id: "p".into(), url: "https://dash.example/p".into(), title: Some("Dashboard p".into()) }]);
    assert!(!serde_json::to_string(&saved).unwrap().contains("token"));

    // After a restart.
    let mut restarted = Canvas::new();
    let restored = restarted.restore_pinned(&saved);
    assert_eq!(restored.len(), 1);
    assert_eq!(render(&restarted), ">[d:p*]");
    let tab = restarted.tab(restored[0]).unwrap();
    assert_eq!(tab.opened_by, OpenedBy::User);
    assert!(matches!(&tab.content, TabContent::Dashboard(d) if d.token.is_none() && d.persistence == DashboardPersistence::Pinned));
    assert_eq!(restarted.pinned_dashboards(), saved);

    // The tool sends the same id again: the restored tab gets the fresh token, no second tab.
    let mut again = outcome("");
    again.dashboard = Some(dashboard("p", DashboardPersistence::Pinned, CanvasMode::Replace));
    let report = restarted.apply_outcome("c9", &again);
    assert_eq!(report.updated, restored);
    assert!(matches!(&restarted.tab(restored[0]).unwrap().content, TabContent::Dashboard(d) if d.token.as_deref() == Some("token-p")));
    // Restoring twice, or an id already open, updates instead of duplicating.
    assert_eq!(restarted.restore_pinned(&[saved[0].clone(), saved[0].clone()]), restored);
    assert_eq!(restarted.tab_count(), 1);
    check_invariants(&restarted).unwrap();
}

// ------------------------------------------------------------------------------------- errors

#[test]
fn intents_on_unknown_ids_are_typed_errors_and_change_nothing() {
    let mut canvas = run("c1: a b; c2: c mode=split");
    let closed = find(&canvas, "b");
    canvas.close_tab(closed).unwrap();
    let gone_pane = canvas.split_tab(find(&canvas, "a")).unwrap();
    canvas.close_pane(gone_pane).unwrap();
    let live_tab = find(&canvas, "c");
    let live_pane = canvas.panes()[0].id;
    let before = canvas.view();

    for tab in [closed, TabId(999)] {
        let intents = [
            CanvasIntent::ActivateTab { tab },
            CanvasIntent::CloseTab { tab },
            CanvasIntent::MoveTab { tab, pane: live_pane, index: None },
            CanvasIntent::SplitTab { tab },
            CanvasIntent::PinTab { tab },
            CanvasIntent::UnpinTab { tab },
        ];
        for intent in intents {
            assert_eq!(canvas.apply_intent(intent.clone()), Err(CanvasError::UnknownTab(tab)), "{intent:?}");
            assert_eq!(canvas.view(), before, "{intent:?} changed the canvas");
        }
    }
    for pane in [gone_pane, PaneId(999)] {
        let intents = [CanvasIntent::ClosePane { pane }, CanvasIntent::FocusPane { pane }, CanvasIntent::MoveTab { tab: live_tab, pane, index: Some(0) }];
        for intent in intents {
            assert_eq!(canvas.apply_intent(intent.clone()), Err(CanvasError::UnknownPane(pane)), "{intent:?}");
            assert_eq!(canvas.view(), before, "{intent:?} changed the canvas");
        }
    }
    // An unknown tab wins over an unknown pane: the tab is what the user acted on.
    assert_eq!(canvas.move_tab(TabId(999), PaneId(999), None), Err(CanvasError::UnknownTab(TabId(999))));
    assert!(canvas.tab(closed).is_none());
    let message = CanvasError::UnknownTab(TabId(7)).to_string();
    assert!(message.contains("tab #7") && message.contains("refresh"), "{message}");
    assert!(CanvasError::UnknownPane(PaneId(3)).to_string().contains("pane #3"));
}

#[test]
fn a_deleted_artifact_closes_everywhere() {
    check(&[
        ("its tab closes, the right neighbour shows", "c1: a b c; activate b; forget b", ">[a c*]"),
        ("in every pane", "c1: a b; split b; open a; forget a", "[] | >[b*]"),
        ("an emptied second pane closes, focus moves left", "c1: a b; split a; forget a", ">[b*]"),
        ("the first pane stays, empty", "open a; forget a", ">[]"),
        ("an unknown artifact changes nothing", "c1: a b; forget zz", ">[a* b]"),
        ("dashboards stay", "c1: a dash=x:ephemeral:append; forget a", ">[d:x*]"),
    ]);
    let mut canvas = Canvas::new();
    canvas.open_artifact(ArtifactTab::for_stored("demo_1", "a.png", "image/png"));
    canvas.open_artifact(ArtifactTab::for_stored("demo_1", "a.png", "image/png"));
    assert_eq!(canvas.close_artifact("demo_1").len(), 1, "open twice is one tab");
    assert_eq!(canvas.tab_count(), 0);
}

#[test]
fn stored_artifacts_get_the_viewer_of_their_type_else_the_file_viewer() {
    let viewer = |mime: &str, name: &str| ArtifactTab::for_stored("demo_1", name, mime).viewer;
    assert_eq!(viewer("image/tiff", "scan.tiff"), Viewer::Image);
    assert_eq!(viewer("application/pdf", "r.pdf"), Viewer::Pdf);
    assert_eq!(viewer("text/csv", "t.csv"), Viewer::Csv);
    assert_eq!(viewer("application/octet-stream", "notes.md"), Viewer::Markdown);
    assert_eq!(viewer("application/zip", "bundle.zip"), Viewer::File);
    assert_eq!(viewer("video/mp4", "clip.mp4"), Viewer::File);
    assert_eq!(viewer("application/octet-stream", "page.html"), Viewer::File, "never HTML by name alone");
    let tab = ArtifactTab::for_stored("demo_1", "bundle.zip", "application/zip");
    assert_eq!((tab.artifact_id.as_str(), tab.name.as_str(), tab.mime.as_str()), ("demo_1", "bundle.zip", "application/zip"));
}

// --------------------------------------------------------------------------------- wire shapes

#[test]
fn intents_and_views_have_the_documented_wire_shape() {
    let intent: CanvasIntent = serde_json::from_str(r#"{"intent":"move_tab","tab":3,"pane":1,"index":null}"#).unwrap();
    assert_eq!(intent, CanvasIntent::MoveTab { tab: TabId(3), pane: PaneId(1), index: None });
    let next: CanvasIntent = serde_json::from_str(r#"{"intent":"next_tab"}"#).unwrap();
    assert_eq!(next, CanvasIntent::NextTab);
    let open: CanvasIntent =
        serde_json::from_str(r#"{"intent":"open_artifact","artifact":{"artifact_id":"demo_1","name":"a.png","mime":"image/png","viewer":"image"}}"#).unwrap();
    let mut canvas = Canvas::new();
    canvas.apply_intent(open).unwrap();

    let view = serde_json::to_value(canvas.view()).unwrap();
    let tab = &view["panes"][0]["tabs"][0];
    assert_eq!(tab["content"]["kind"], "artifact");
    assert_eq!(tab["content"]["artifact_id"], "demo_1");
    assert_eq!(tab["opened_by"]["kind"], "user");
    assert_eq!(view["panes"][0]["active_tab"], tab["id"]);
    assert!(view["active_pane"].is_number());
    let back: mcp_canvas_canvas::CanvasView = serde_json::from_value(view).unwrap();
    assert_eq!(back, canvas.view());
}

fn app_tab(call_id: &str) -> mcp_canvas_canvas::AppTab {
    mcp_canvas_canvas::AppTab { app_id: call_id.into(), server: "s".into(), tool: "get-time".into(), tool_title: Some("Get Time".into()), resource_uri: "ui://s/v.html".into() }
}

#[test]
fn an_app_opens_first_as_its_own_tab_and_follows_the_modes() {
    // Even a result that does not ask for the canvas shows its App, first, then its artifacts.
    let mut canvas = Canvas::new();
    let mut result = outcome("a");
    let applied = canvas.apply_call("c1", &result, Some(&app_tab("c1")));
    assert_eq!(render(&canvas), ">[app:c1* a]");
    assert_eq!(applied.active_tab, Some(find(&canvas, "app:c1")));
    assert_eq!(canvas.tab(find(&canvas, "app:c1")).unwrap().label, "Get Time");
    result.display.open_canvas = false;
    canvas.apply_call("c2", &outcome(""), Some(&app_tab("c2")));
    // replace: the previous call's App and artifact go, unless pinned.
    assert_eq!(render(&canvas), ">[app:c2*]");
    canvas.pin_tab(find(&canvas, "app:c2")).unwrap();
    result.display.mode = mode("replace");
    result.display.open_canvas = true;
    canvas.apply_call("c3", &result, Some(&app_tab("c3")));
    assert_eq!(render(&canvas), ">[app:c2^ app:c3* a]");
    // append keeps both; split opens the App in a new pane.
    result.display.mode = mode("append");
    canvas.apply_call("c4", &result, Some(&app_tab("c4")));
    assert_eq!(render(&canvas), ">[app:c2^ app:c3 a app:c4*]");
    result.display.mode = mode("split");
    canvas.apply_call("c5", &result, Some(&app_tab("c5")));
    assert_eq!(render(&canvas), "[app:c2^ app:c3 a app:c4*] | >[app:c5* a]");
    check_invariants(&canvas).unwrap();
    // Opened as its call starts, the App keeps its place; its result takes no focus from the tab
    // the user went to meanwhile, and `replace` by the next call still treats it as that call's.
    let mut canvas = Canvas::new();
    canvas.apply_call("c1", &outcome("a"), None);
    canvas.open_app("c2", &app_tab("c2"));
    assert_eq!(render(&canvas), ">[app:c2*]");
    canvas.pin_tab(find(&canvas, "app:c2")).unwrap();
    canvas.apply_call("c0", &outcome("b"), None);
    canvas.activate_tab(find(&canvas, "app:c2")).unwrap();
    canvas.open_app("c3", &app_tab("c3"));
    canvas.activate_tab(find(&canvas, "app:c2")).unwrap();
    let mut late = outcome("");
    late.display.open_canvas = false;
    canvas.apply_call("c3", &late, Some(&app_tab("c3")));
    assert_eq!(render(&canvas), ">[app:c2*^ app:c3]");
    check_invariants(&canvas).unwrap();
    // Apps are not in the saved layout: they live as long as their tab.
    let layout = canvas.layout();
    let saved: Vec<Vec<&str>> = layout.panes.iter().map(|p| p.tabs.iter().map(|t| t.artifact.artifact_id.as_str()).collect()).collect();
    assert_eq!(saved, [Vec::<&str>::new()], "two App tabs, nothing saved");
}

#[test]
fn a_floating_app_survives_the_next_calls_replace_and_only_one_floats() {
    let mut canvas = Canvas::new();
    canvas.apply_call("c1", &outcome("a"), Some(&app_tab("c1")));
    let app = find(&canvas, "app:c1");
    canvas.apply_intent(CanvasIntent::FloatTab { tab: app }).unwrap();
    assert!(canvas.tab(app).unwrap().floating);
    // The next call replaces what the previous one opened: the artifact goes, the floating App stays.
    canvas.apply_call("c2", &outcome("b"), None);
    assert_eq!(render(&canvas), ">[app:c1 b*]");
    // Floating a second App puts the first back: at most one floats.
    canvas.apply_call("c3", &outcome(""), Some(&app_tab("c3")));
    let second = find(&canvas, "app:c3");
    canvas.apply_intent(CanvasIntent::FloatTab { tab: second }).unwrap();
    assert!(!canvas.tab(app).unwrap().floating && canvas.tab(second).unwrap().floating);
    // Back in its tab, it is replaceable again.
    canvas.apply_intent(CanvasIntent::UnfloatTab { tab: second }).unwrap();
    canvas.apply_call("c4", &outcome("d"), None);
    assert!(canvas.tab(second).is_none(), "{}", render(&canvas));
    // Only an App floats.
    let artifact = find(&canvas, "d");
    assert_eq!(canvas.apply_intent(CanvasIntent::FloatTab { tab: artifact }), Err(CanvasError::NotAnApp(artifact)));
    check_invariants(&canvas).unwrap();
}

#[test]
fn an_open_the_user_asks_for_opens_a_tab_and_replaces_nothing() {
    check(&[
        ("a read opens beside what a call showed", "c1: a; read r1: b", ">[a b*]"),
        ("each Open a tab of its own", "read r1: a; read r2: b; read r3: c", ">[a b c*]"),
        ("whatever the result's mode says", "c1: a; read r1: b mode=replace; read r2: c mode=split", ">[a b c*]"),
        ("the same artifact again: its tab is shown", "read r1: a; read r2: b; read r3: a", ">[a* b]"),
        ("also in another pane, which takes focus", "c1: a; c2: b mode=split; focus 0; read r1: b", "[a*] | >[b*]"),
        ("a prompt: transcript first and active, attachments after", "c1: x; read r1: t p1 p2", ">[x t* p1 p2]"),
        ("a tool call's replace after it leaves what the user opened", "c1: a; read r1: b; c2: c", ">[c* b]"),
        ("and the call after that still replaces its predecessor", "c1: a; read r1: b; c2: c; c3: d", ">[d* b]"),
        ("a read asking for no canvas opens nothing", "c1: a; read r1: b nocanvas", ">[a*]"),
        ("what has no viewer stays out", "read r1: a#", ">[]"),
    ]);
    // The report: what opened, what was shown again.
    let mut canvas = run("c1: a");
    let report = canvas.open_requested("r1", &outcome("b a"));
    assert_eq!(report.opened, vec![find(&canvas, "b")]);
    assert_eq!(report.focused, vec![find(&canvas, "a")]);
    assert!(report.closed.is_empty());
    assert_eq!(report.active_tab, Some(find(&canvas, "b")));
    assert_eq!(canvas.tab(find(&canvas, "b")).unwrap().opened_by, OpenedBy::Call { call_id: "r1".into() });
    assert_eq!(canvas.panes()[0].last_call.as_deref(), Some("c1"), "a read is no pane's last call");
}

#[test]
fn a_watched_resource_read_again_takes_the_tabs_of_the_read_before() {
    check(&[
        ("in place, not beside", "c1: x; read r1: a; reread a r2: b", ">[x b*]"),
        ("where it is, without taking focus", "read r1: a; c1: x mode=split; reread a r2: b", "[b*] | >[x*]"),
        ("the user's tab elsewhere stays active", "read r1: a; c1: x mode=append; reread a r2: b", ">[b x*]"),
        ("pinned stays pinned", "read r1: a; pin a; reread a r2: b", ">[b*^]"),
        ("unchanged: the same tab", "read r1: a; reread a r2: a", ">[a*]"),
        ("more than before: after it", "read r1: a; c1: x mode=append; activate a; reread a r2: b c", ">[b* c x]"),
        ("fewer: the rest close", "read r1: a b; reread a,b r2: c", ">[c*]"),
        ("its tabs closed: opened again", "read r1: a; close a; c1: x; reread a r2: b", ">[x b*]"),
        ("and again the call's replace leaves it", "read r1: a; reread a r2: b; c1: x; c2: y", ">[b y*]"),
    ]);
    let mut canvas = run("read r1: a");
    let before = find(&canvas, "a");
    let report = canvas.refresh_read("r2", &outcome("b"), &["a".to_owned()]);
    assert_eq!(find(&canvas, "b"), before, "the same tab shows the new read");
    assert_eq!(report.updated, vec![before]);
    assert_eq!(report.active_tab, None, "nothing takes focus");
    assert_eq!(canvas.tab(before).unwrap().label, "b.file");
    assert_eq!(canvas.tab(before).unwrap().opened_by, OpenedBy::Call { call_id: "r2".into() });
}

#[test]
fn an_apps_result_opens_behind_the_app_which_stays_in_front() {
    // A result holding a large JSON document beside its App (opened as the call started): the
    // document goes to a tab behind the App.
    let mut canvas = Canvas::new();
    canvas.open_app("c1", &app_tab("c1"));
    let app = find(&canvas, "app:c1");
    let mut result = outcome("doc");
    result.artifacts[0].viewer = Some(Viewer::Json);
    result.artifacts[0].mime = "application/json".into();
    result.display.primary = Some("doc".into());
    let report = canvas.apply_call("c1", &result, Some(&app_tab("c1")));
    assert_eq!(render(&canvas), ">[app:c1* doc]");
    assert_eq!(canvas.active_tab().map(|t| t.id), Some(app), "the App stays in front");
    assert_eq!(report.opened, vec![find(&canvas, "doc")], "the document did open, behind it");
    // The App opened with its result (the proxy shows a call): the App is active, not the primary.
    let mut canvas = Canvas::new();
    let report = canvas.apply_call("c1", &result, Some(&app_tab("c1")));
    assert_eq!(render(&canvas), ">[app:c1* doc]");
    assert_eq!(report.active_tab, Some(find(&canvas, "app:c1")));
    // The user went to another tab meanwhile: neither the App's result nor its document takes it.
    let mut canvas = Canvas::new();
    canvas.apply_call("c0", &outcome("a"), None);
    canvas.pin_tab(find(&canvas, "a")).unwrap();
    canvas.open_app("c1", &app_tab("c1"));
    canvas.activate_tab(find(&canvas, "a")).unwrap();
    canvas.apply_call("c1", &result, Some(&app_tab("c1")));
    assert_eq!(canvas.active_tab().map(|t| t.artifact_id()), Some(Some("a")), "{}", render(&canvas));
    // In a pane of its own (split), the document is that pane's tab, but the focus stays.
    let mut canvas = Canvas::new();
    canvas.open_app("c1", &app_tab("c1"));
    let mut split = result.clone();
    split.display.mode = mode("split");
    canvas.apply_call("c1", &split, Some(&app_tab("c1")));
    assert_eq!(render(&canvas), ">[app:c1*] | [doc*]");
    // Without an App the primary document is in front as ever.
    let mut canvas = Canvas::new();
    canvas.apply_call("c1", &result, None);
    assert_eq!(render(&canvas), ">[doc*]");
    check_invariants(&canvas).unwrap();
}
