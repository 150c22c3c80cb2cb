//! What a tab shows (an artifact or a dashboard), who opened it, and the label the strip shows.

use std::fmt;

use mcp_canvas_contract::{DashboardEnvelope, DashboardPersistence, Viewer};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::TabId;

/// One tab in a pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CanvasTab {
    /// Unique on this canvas, never reused.
    pub id: TabId,
    /// What the tab strip shows: the file name, or the dashboard's title (else its host).
    pub label: String,
    /// What the tab shows.
    pub content: TabContent,
    /// Who put it there; decides whether `replace` may close it.
    pub opened_by: OpenedBy,
    /// Pinned by the user: `replace` never closes it.
    pub pinned: bool,
    /// An App floating in picture-in-picture over the canvas (it asked for `pip`): shown whatever
    /// tab is active, and `replace` never closes it. At most one tab floats.
    pub floating: bool,
    /// Where its viewer should go (a search hit: a PDF page, a table row, a text line), if
    /// somewhere.
    #[serde(default)]
    pub focus: Option<Focus>,
}

/// A place inside an artifact for its viewer to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Focus {
    /// Which kind of place.
    pub place: FocusPlace,
    /// The page (from 1), data row (from 1; 0 is a table's header) or line (from 1).
    #[ts(type = "number")]
    pub position: u64,
    /// Increases with every request, so asking for the same place again scrolls there again.
    #[ts(type = "number")]
    pub request: u64,
}

/// Which kind of place a [`Focus`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum FocusPlace {
    /// A PDF page.
    Page,
    /// A table's data row.
    Row,
    /// A text line.
    Line,
}

/// What a tab shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum TabContent {
    /// A stored artifact, loaded from `artifact://localhost/<id>`.
    Artifact(ArtifactTab),
    /// A live dashboard in a sandboxed iframe.
    Dashboard(DashboardTab),
    /// A server's own interactive view (MCP Apps): its `ui://` resource in a sandboxed frame,
    /// bridged to the server.
    App(AppTab),
}

/// An MCP App shown in a tab: the view a tool declared (`_meta.ui.resourceUri`) for one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AppTab {
    /// Unique per App instance: the id of the call that opened it.
    pub app_id: String,
    /// The server that declared the view and that the App may call.
    pub server: String,
    /// The tool whose call opened it.
    pub tool: String,
    /// Its title, when it has one.
    pub tool_title: Option<String>,
    /// The `ui://` resource.
    pub resource_uri: String,
}

/// A stored artifact shown in a tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ArtifactTab {
    /// Artifact id (`<namespace>_<sha256[..12]>`).
    pub artifact_id: String,
    /// File name.
    pub name: String,
    /// MIME type.
    pub mime: String,
    /// The viewer to use (the result's `display.viewer` hint for its primary artifact).
    pub viewer: Viewer,
}

/// A dashboard (a `canvas` envelope; see docs/result-shapes.md, "Live dashboards (the canvas
/// envelope)") shown in a tab. `Debug` never prints the token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct DashboardTab {
    /// The envelope's `id`: one tab per id on the whole canvas.
    pub dashboard_id: String,
    /// Absolute http(s) URL (the origin allowlist decides whether it loads).
    pub url: String,
    /// Title, when the tool gave one.
    pub title: Option<String>,
    /// How long the tab lives.
    pub persistence: DashboardPersistence,
    /// Capability token for the iframe; never logged, never saved by [`PinnedDashboard`].
    pub token: Option<String>,
}

impl fmt::Debug for DashboardTab {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DashboardTab")
            .field("dashboard_id", &self.dashboard_id)
            .field("url", &self.url)
            .field("title", &self.title)
            .field("persistence", &self.persistence)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl DashboardTab {
    pub(crate) fn from_envelope(envelope: &DashboardEnvelope) -> Self {
        Self {
            dashboard_id: envelope.id.clone(),
            url: envelope.url.clone(),
            title: envelope.title.clone(),
            persistence: envelope.persistence,
            token: envelope.token.clone(),
        }
    }
}

/// Who put a tab on the canvas.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum OpenedBy {
    /// A tool result: the call that opened it, or last showed it again.
    Call {
        /// The call's id.
        call_id: String,
    },
    /// The user (opened it, moved it to another pane, or it was restored after a restart).
    User,
}

/// A `persistence: pinned` dashboard as the app saves it to restore it after a restart. Holds no
/// token: capability tokens are short-lived and are never written to disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PinnedDashboard {
    /// The envelope's `id`.
    pub dashboard_id: String,
    /// The iframe URL.
    pub url: String,
    /// Title, when known.
    pub title: Option<String>,
}

impl ArtifactTab {
    /// A tab for a stored artifact the user picked (from the artifact browser): the viewer comes
    /// from its MIME type and name as for a tool result, and a type no viewer shows gets
    /// [`Viewer::File`] (its facts, "Save as…", "Open with the system application").
    pub fn for_stored(artifact_id: &str, name: &str, mime: &str) -> Self {
        let viewer = mcp_canvas_contract::viewer_for(mime, name).unwrap_or(Viewer::File);
        Self { artifact_id: artifact_id.to_owned(), name: name.to_owned(), mime: mime.to_owned(), viewer }
    }
}

impl CanvasTab {
    pub(crate) fn new(id: TabId, content: TabContent, opened_by: OpenedBy) -> Self {
        let mut tab = Self { id, label: String::new(), content, opened_by, pinned: false, floating: false, focus: None };
        tab.relabel();
        tab
    }

    /// The artifact id, when the tab shows an artifact.
    pub fn artifact_id(&self) -> Option<&str> {
        match &self.content {
            TabContent::Artifact(a) => Some(&a.artifact_id),
            TabContent::Dashboard(_) | TabContent::App(_) => None,
        }
    }

    /// The dashboard id, when the tab shows a dashboard.
    pub fn dashboard_id(&self) -> Option<&str> {
        match &self.content {
            TabContent::Dashboard(d) => Some(&d.dashboard_id),
            TabContent::Artifact(_) | TabContent::App(_) => None,
        }
    }

    /// The App instance id, when the tab shows an MCP App.
    pub fn app(&self) -> Option<&AppTab> {
        match &self.content {
            TabContent::App(a) => Some(a),
            TabContent::Artifact(_) | TabContent::Dashboard(_) => None,
        }
    }

    /// Whether `replace` by the pane's next call closes it: opened by `call_id` (the pane's
    /// previous call), not pinned, not floating, and not a session or pinned dashboard.
    pub(crate) fn replaceable_by_successor_of(&self, call_id: &str) -> bool {
        let by_that_call = matches!(&self.opened_by, OpenedBy::Call { call_id: c } if c == call_id);
        let lasting = match &self.content {
            TabContent::Artifact(_) | TabContent::App(_) => false,
            TabContent::Dashboard(d) => d.persistence != DashboardPersistence::Ephemeral,
        };
        by_that_call && !self.pinned && !self.floating && !lasting
    }

    /// A tool result showed this tab again: it now belongs to that call, unless the user owns it.
    pub(crate) fn reshown_by(&mut self, call_id: &str) {
        if let OpenedBy::Call { call_id: c } = &mut self.opened_by {
            call_id.clone_into(c);
        }
    }

    pub(crate) fn relabel(&mut self) {
        self.label = match &self.content {
            TabContent::Artifact(a) => a.name.clone(),
            TabContent::Dashboard(d) => match d.title.as_deref().map(str::trim) {
                Some(title) if !title.is_empty() => title.to_owned(),
                _ => url_host(&d.url).to_owned(),
            },
            TabContent::App(a) => a.tool_title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| a.tool.clone()),
        };
    }
}

/// `https://host:8080/path?q` → `host:8080`; the whole string when it has no `scheme://`.
fn url_host(url: &str) -> &str {
    match url.split_once("://") {
        Some((_, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
            if host.is_empty() { url } else { host }
        }
        None => url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_the_token_but_serde_keeps_it() {
        let tab = DashboardTab {
            dashboard_id: "d".into(),
            url: "https://h/x".into(),
            title: None,
            persistence: DashboardPersistence::Session,
            token: Some("s3cret-capability".into()),
        };
        let debug = format!("{tab:?} {:?}", CanvasTab::new(TabId(1), TabContent::Dashboard(tab.clone()), OpenedBy::User));
        assert!(!debug.contains("s3cret"), "{debug}");
        assert!(debug.contains("<redacted>"));
        assert!(serde_json::to_string(&tab).unwrap().contains("s3cret-capability"));
    }

    #[test]
    fn dashboard_labels_fall_back_to_the_host() {
        for (title, url, label) in [
            (Some("Metrics"), "https://h/x", "Metrics"),
            (Some("  "), "https://tool-host:8443/view?x=1", "tool-host:8443"),
            (None, "http://example.org", "example.org"),
            (None, "not a url", "not a url"),
        ] {
            let content = TabContent::Dashboard(DashboardTab {
                dashboard_id: "d".into(),
                url: url.into(),
                title: title.map(Into::into),
                persistence: DashboardPersistence::Session,
                token: None,
            });
            assert_eq!(CanvasTab::new(TabId(1), content, OpenedBy::User).label, label);
        }
    }
}
