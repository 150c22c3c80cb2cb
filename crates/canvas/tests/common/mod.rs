//! Shared by the rule tests and the property tests: compact outcomes, a one-line rendering of
//! the canvas, and the invariants every state must keep.
#![allow(dead_code)]

use std::collections::HashSet;

use mcp_canvas_canvas::{Canvas, CanvasView, OpenedBy, TabContent};
use mcp_canvas_contract::{Audience, CanvasMode, DashboardEnvelope, DashboardPersistence, DisplayIntent, OutcomeArtifact, ToolOutcome, Viewer};

/// An artifact from a token: `a` (PNG image), `a#` (no viewer), `a~` (assistant only), `a+`
/// (user only).
pub fn artifact(token: &str) -> OutcomeArtifact {
    let id = token.trim_end_matches(['#', '~', '+']);
    let (viewer, mime) = if token.ends_with('#') { (None, "application/zip") } else { (Some(Viewer::Image), "image/png") };
    let audience = match token.chars().last() {
        Some('~') => Audience::Assistant,
        Some('+') => Audience::User,
        _ => Audience::Both,
    };
    OutcomeArtifact {
        id: id.to_owned(),
        name: format!("{id}.file"),
        mime: mime.to_owned(),
        size: 1,
        sha256: String::new(),
        description: None,
        viewer,
        source: "test".into(),
        audience,
        pages: None,
        width: None,
        height: None,
    }
}

/// An outcome from artifact tokens (see [`artifact`]), opening the canvas, mode `replace`.
pub fn outcome(artifacts: &str) -> ToolOutcome {
    ToolOutcome {
        summary: String::new(),
        results: None,
        texts: Vec::new(),
        artifacts: artifacts.split_whitespace().map(artifact).collect(),
        display: DisplayIntent { open_canvas: true, primary: None, mode: CanvasMode::Replace, viewer: None },
        dashboard: None,
        needs_input: None,
        error: None,
        kind: None,
        warnings: Vec::new(),
        meta: None,
    }
}

pub fn dashboard(id: &str, persistence: DashboardPersistence, mode: CanvasMode) -> DashboardEnvelope {
    DashboardEnvelope {
        id: id.to_owned(),
        url: format!("https://dash.example/{id}"),
        persistence,
        title: Some(format!("Dashboard {id}")),
        token: Some(format!("token-{id}")),
        mode,
    }
}

pub fn mode(word: &str) -> CanvasMode {
    match word {
        "replace" => CanvasMode::Replace,
        "append" => CanvasMode::Append,
        "split" => CanvasMode::Split,
        other => panic!("unknown mode {other}"),
    }
}

pub fn persistence(word: &str) -> DashboardPersistence {
    match word {
        "ephemeral" => DashboardPersistence::Ephemeral,
        "session" => DashboardPersistence::Session,
        "pinned" => DashboardPersistence::Pinned,
        other => panic!("unknown persistence {other}"),
    }
}

/// The canvas on one line: panes left to right separated by ` | `, the focused one marked `>`;
/// artifact tabs by id, dashboards as `d:<id>`; `*` the pane's active tab, `^` pinned.
/// `>[b* a] | [d:x*]`.
pub fn render(canvas: &Canvas) -> String {
    render_view(&canvas.view())
}

pub fn render_view(view: &CanvasView) -> String {
    view.panes
        .iter()
        .map(|pane| {
            let tabs: Vec<String> = pane
                .tabs
                .iter()
                .map(|tab| {
                    let mut s = match &tab.content {
                        TabContent::Artifact(a) => a.artifact_id.clone(),
                        TabContent::Dashboard(d) => format!("d:{}", d.dashboard_id),
                        TabContent::App(a) => format!("app:{}", a.app_id),
                    };
                    if pane.active_tab == Some(tab.id) {
                        s.push('*');
                    }
                    if tab.pinned {
                        s.push('^');
                    }
                    s
                })
                .collect();
            let focus = if pane.id == view.active_pane { ">" } else { "" };
            format!("{focus}[{}]", tabs.join(" "))
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Every invariant the crate promises; the reason for the first one broken.
pub fn check_invariants(canvas: &Canvas) -> Result<(), String> {
    let view = canvas.view();
    if view.panes.is_empty() {
        return Err("no panes".into());
    }
    if !view.panes.iter().any(|p| p.id == view.active_pane) {
        return Err(format!("active pane {:?} is not on the canvas", view.active_pane));
    }
    let mut pane_ids = HashSet::new();
    let mut tab_ids = HashSet::new();
    let mut dashboards = HashSet::new();
    for (index, pane) in view.panes.iter().enumerate() {
        if !pane_ids.insert(pane.id) {
            return Err(format!("pane id {:?} twice", pane.id));
        }
        if index > 0 && pane.tabs.is_empty() {
            return Err(format!("pane {index} (not the first) is empty"));
        }
        match pane.active_tab {
            None if !pane.tabs.is_empty() => return Err(format!("pane {index} has tabs but no active tab")),
            Some(id) if !pane.tabs.iter().any(|t| t.id == id) => return Err(format!("pane {index}'s active tab {id:?} is not in it")),
            _ => {}
        }
        let mut artifacts = HashSet::new();
        for tab in &pane.tabs {
            if !tab_ids.insert(tab.id) {
                return Err(format!("tab id {:?} twice", tab.id));
            }
            match &tab.content {
                TabContent::Artifact(a) => {
                    if !artifacts.insert(a.artifact_id.clone()) {
                        return Err(format!("artifact {} twice in pane {index}", a.artifact_id));
                    }
                }
                TabContent::Dashboard(d) => {
                    if !dashboards.insert(d.dashboard_id.clone()) {
                        return Err(format!("dashboard {} twice on the canvas", d.dashboard_id));
                    }
                }
                TabContent::App(a) => {
                    if !dashboards.insert(format!("app:{}", a.app_id)) {
                        return Err(format!("App {} twice on the canvas", a.app_id));
                    }
                }
            }
        }
    }
    let floating: Vec<_> = view.panes.iter().flat_map(|p| &p.tabs).filter(|t| t.floating).collect();
    if floating.len() > 1 || floating.iter().any(|t| t.app().is_none()) {
        return Err(format!("floating tabs {:?}: at most one, and only an App", floating.iter().map(|t| t.id).collect::<Vec<_>>()));
    }
    if canvas.tab_count() != tab_ids.len() {
        return Err("tab_count disagrees with the panes".into());
    }
    if canvas.active_pane().id != view.active_pane {
        return Err("active_pane() disagrees with the view".into());
    }
    Ok(())
}

pub fn is_user_tab(canvas: &Canvas, id: mcp_canvas_canvas::TabId) -> bool {
    canvas.tab(id).is_some_and(|t| t.opened_by == OpenedBy::User)
}
