//! MCP Apps as the window sees them: the view a tool declares (`_meta.ui.resourceUri`), who may
//! call it (`_meta.ui.visibility`), a view as read with the Content-Security-Policy built from what
//! it declares (`_meta.ui.csp`) — the spec's restrictive default when it declares nothing, never
//! an undeclared origin — and the frame's `allow` attribute.

use rmcp::model::Tool;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The view a tool declares, and who may call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolUi {
    /// The `ui://` resource to render.
    pub resource_uri: Option<String>,
    /// Who may call the tool: `model`, `app`, or both (the default).
    pub visibility: Vec<Visibility>,
}

/// Who may call a tool (`_meta.ui.visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Visibility {
    /// The model (and the user, through the tool panel) may call it.
    Model,
    /// Apps of the same server may call it.
    App,
}

impl ToolUi {
    /// What `tool` declares, or `None` when it declares neither a view nor a visibility.
    pub fn of(tool: &Tool) -> Option<Self> {
        let meta = tool.meta.as_ref()?;
        let ui = meta.get("ui");
        let resource_uri = ui
            .and_then(|ui| ui.get("resourceUri"))
            .or_else(|| meta.get("ui/resourceUri"))
            .and_then(Value::as_str)
            .filter(|uri| uri.starts_with("ui://"))
            .map(str::to_owned);
        let declared: Option<Vec<Visibility>> = ui.and_then(|ui| ui.get("visibility")).and_then(|v| serde_json::from_value(v.clone()).ok());
        if resource_uri.is_none() && declared.is_none() {
            return None;
        }
        let visibility = declared.filter(|v| !v.is_empty()).unwrap_or_else(|| vec![Visibility::Model, Visibility::App]);
        Some(Self { resource_uri, visibility })
    }

    /// Whether the model (and the proxy's upstream list) sees the tool.
    pub fn model_may_call(ui: Option<&Self>) -> bool {
        ui.is_none_or(|ui| ui.visibility.contains(&Visibility::Model))
    }

    /// Whether an App of the same server may call the tool.
    pub fn app_may_call(ui: Option<&Self>) -> bool {
        ui.is_none_or(|ui| ui.visibility.contains(&Visibility::App))
    }
}

/// A tool's human title: its `title`, else its annotations' `title`.
pub fn tool_title(tool: &Tool) -> Option<String> {
    tool.title.clone().or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()))
}

/// The origins a view may reach (`_meta.ui.csp`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppCsp {
    /// `connect-src`: fetch, XHR, WebSocket.
    #[serde(default)]
    pub connect_domains: Vec<String>,
    /// Scripts, styles, images, fonts, media.
    #[serde(default)]
    pub resource_domains: Vec<String>,
    /// `frame-src`: nested frames.
    #[serde(default)]
    pub frame_domains: Vec<String>,
    /// `base-uri`.
    #[serde(default)]
    pub base_uri_domains: Vec<String>,
}

impl AppCsp {
    /// The `Content-Security-Policy` header for a view. Only well-formed origins
    /// (`https://host[:port]`, `wss://…`, `http(s)://localhost…`, with an optional `*.` label)
    /// are kept; anything else a server declares (a keyword, a path, `*`) is dropped, so nothing
    /// undeclared and nothing wider than an origin ever loads.
    pub fn header(&self) -> String {
        let list = |domains: &[String], fallback: &str| {
            let kept: Vec<&str> = domains.iter().map(String::as_str).filter(|d| is_origin(d)).collect();
            if kept.is_empty() { fallback.to_owned() } else { kept.join(" ") }
        };
        let resources = list(&self.resource_domains, "");
        let with = |base: &str| if resources.is_empty() { base.to_owned() } else { format!("{base} {resources}") };
        [
            "default-src 'none'".to_owned(),
            // Scripts the view carries itself (inline, or as data:/blob: modules and workers, as
            // PDF.js does) reach no network; only declared resource origins add any.
            format!("script-src {}", with("'self' 'unsafe-inline' data: blob:")),
            format!("worker-src {}", with("'self' data: blob:")),
            format!("style-src {}", with("'self' 'unsafe-inline'")),
            format!("img-src {}", with("'self' data: blob:")),
            format!("font-src {}", with("'self' data:")),
            format!("media-src {}", with("'self' data: blob:")),
            format!("connect-src {}", list(&self.connect_domains, "'none'")),
            format!("frame-src {}", list(&self.frame_domains, "'none'")),
            format!("base-uri {}", list(&self.base_uri_domains, "'self'")),
            "form-action 'none'".to_owned(),
            "object-src 'none'".to_owned(),
        ]
        .join("; ")
    }
}

/// `scheme://host[:port]` with scheme http, https, ws or wss, a host of letters, digits, dots and
/// dashes (optionally starting with `*.`), and nothing after it.
fn is_origin(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once("://") else { return false };
    if !matches!(scheme, "http" | "https" | "ws" | "wss") {
        return false;
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    let host = host.strip_prefix("*.").unwrap_or(host);
    !host.is_empty()
        && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()))
}

/// A view as read from its server, with what it declares.
#[derive(Debug, Clone, PartialEq)]
pub struct AppView {
    /// The server.
    pub server: String,
    /// The `ui://` URI.
    pub uri: String,
    /// The HTML.
    pub html: String,
    /// The origins it may reach.
    pub csp: AppCsp,
    /// `_meta.ui.permissions` (camera, microphone, geolocation, clipboardWrite), as sent.
    pub permissions: Value,
    /// `_meta.ui.prefersBorder`.
    pub prefers_border: Option<bool>,
}

impl AppView {
    /// The iframe's `allow` attribute for the permissions the view asked for (only the four the
    /// spec names; anything else is ignored).
    pub fn allow_attribute(&self) -> String {
        const KNOWN: [(&str, &str); 4] = [("camera", "camera"), ("microphone", "microphone"), ("geolocation", "geolocation"), ("clipboardWrite", "clipboard-write")];
        KNOWN.iter().filter(|(key, _)| self.permissions.get(*key).is_some_and(|v| !v.is_null() && v != &Value::Bool(false))).map(|(_, feature)| *feature).collect::<Vec<_>>().join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(meta: Value) -> Tool {
        serde_json::from_value(serde_json::json!({ "name": "t", "inputSchema": { "type": "object" }, "_meta": meta })).unwrap()
    }

    #[test]
    fn reads_the_nested_and_the_deprecated_flat_key_and_visibility() {
        let nested = ToolUi::of(&tool(serde_json::json!({ "ui": { "resourceUri": "ui://a/v.html" } }))).unwrap();
        assert_eq!(nested.resource_uri.as_deref(), Some("ui://a/v.html"));
        assert_eq!(nested.visibility, [Visibility::Model, Visibility::App]);
        let flat = ToolUi::of(&tool(serde_json::json!({ "ui/resourceUri": "ui://b/v.html" }))).unwrap();
        assert_eq!(flat.resource_uri.as_deref(), Some("ui://b/v.html"));
        let app_only = ToolUi::of(&tool(serde_json::json!({ "ui": { "visibility": ["app"] } }))).unwrap();
        assert!(!ToolUi::model_may_call(Some(&app_only)) && ToolUi::app_may_call(Some(&app_only)));
        let model_only = ToolUi::of(&tool(serde_json::json!({ "ui": { "resourceUri": "ui://c", "visibility": ["model"] } }))).unwrap();
        assert!(ToolUi::model_may_call(Some(&model_only)) && !ToolUi::app_may_call(Some(&model_only)));
        assert_eq!(ToolUi::of(&tool(serde_json::json!({ "other": 1 }))), None);
        // Only ui:// URIs name a view.
        assert_eq!(ToolUi::of(&tool(serde_json::json!({ "ui": { "resourceUri": "https://evil/x" } }))), None);
    }

    #[test]
    fn the_csp_is_the_restrictive_default_when_nothing_is_declared() {
        let header = AppCsp::default().header();
        assert!(header.contains("default-src 'none'"), "{header}");
        assert!(header.contains("connect-src 'none'") && header.contains("frame-src 'none'") && header.contains("base-uri 'self'"), "{header}");
        assert!(!header.contains("https:") && !header.contains('*'), "{header}");
    }

    #[test]
    fn the_csp_keeps_declared_origins_and_drops_anything_wider() {
        let csp = AppCsp {
            connect_domains: vec!["https://api.example.com".into(), "wss://live.example.com:8443".into(), "*".into(), "https:".into(), "'unsafe-eval'".into()],
            resource_domains: vec!["https://*.cdn.example".into(), "https://x.test/path".into(), "javascript://x".into()],
            frame_domains: vec!["https://www.youtube.com".into()],
            base_uri_domains: vec![],
        };
        let header = csp.header();
        assert!(header.contains("connect-src https://api.example.com wss://live.example.com:8443;"), "{header}");
        assert!(header.contains("script-src 'self' 'unsafe-inline' data: blob: https://*.cdn.example;"), "{header}");
        assert!(header.contains("frame-src https://www.youtube.com;"), "{header}");
        for dropped in ["'unsafe-eval'", "x.test/path", "javascript:", " * ", " https: "] {
            assert!(!header.contains(dropped), "{dropped} in {header}");
        }
    }

    #[test]
    fn permissions_map_to_the_frames_allow_attribute() {
        let view = AppView {
            server: "s".into(),
            uri: "ui://v".into(),
            html: String::new(),
            csp: AppCsp::default(),
            permissions: serde_json::json!({ "camera": {}, "clipboardWrite": {}, "usb": {}, "microphone": false }),
            prefers_border: None,
        };
        assert_eq!(view.allow_attribute(), "camera; clipboard-write");
    }
}
