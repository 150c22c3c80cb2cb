//! Canvas intent (see docs/result-shapes.md, "Canvas intent"): which viewer shows a MIME type, the
//! `display` block, and the `canvas` dashboard envelope — validated here, trusted nowhere (the
//! origin allowlist decides).

use serde_json::Value;

use crate::{
    names::mime_for_name,
    outcome::{CanvasMode, DashboardEnvelope, DashboardPersistence, Viewer},
};

/// The viewer for an artifact, by MIME type, else by file extension. `None`: not showable.
pub fn viewer_for(mime: &str, name: &str) -> Option<Viewer> {
    let by_mime = |mime: &str| -> Option<Viewer> {
        Some(match mime {
            m if m.starts_with("image/") => Viewer::Image,
            "application/pdf" => Viewer::Pdf,
            "text/html" | "application/xhtml+xml" => Viewer::Html,
            "text/markdown" | "text/x-markdown" => Viewer::Markdown,
            "application/json" | "application/x-ndjson" => Viewer::Json,
            m if m.ends_with("+json") => Viewer::Json,
            "text/csv" | "text/tab-separated-values" => Viewer::Csv,
            m if m.starts_with("audio/") => Viewer::Audio,
            "text/plain" => Viewer::Text,
            "application/javascript" | "application/xml" | "application/toml" | "application/x-sh" => Viewer::Code,
            m if m.starts_with("text/x-") || m == "text/javascript" || m == "text/css" || m == "text/xml" => Viewer::Code,
            m if m.starts_with("text/") => Viewer::Text,
            _ => return None,
        })
    };
    by_mime(mime).or_else(|| {
        let from_name = mime_for_name(name)?;
        // A name never turns bytes we could not identify into something rendered as a document.
        matches!(mime, "application/octet-stream" | "").then(|| by_mime(from_name)).flatten().filter(|v| !matches!(v, Viewer::Html | Viewer::Image | Viewer::Pdf))
    })
}

/// Parses a viewer hint; `auto` and absent mean no hint.
pub(crate) fn parse_viewer(value: Option<&Value>, what: &str, warnings: &mut Vec<String>) -> Option<Viewer> {
    let hint = value?.as_str()?;
    let viewer = match hint.to_ascii_lowercase().as_str() {
        "auto" | "" => return None,
        "image" => Viewer::Image,
        "pdf" => Viewer::Pdf,
        "html" => Viewer::Html,
        "markdown" | "md" => Viewer::Markdown,
        "code" => Viewer::Code,
        "json" => Viewer::Json,
        "csv" | "table" => Viewer::Csv,
        "text" => Viewer::Text,
        "audio" => Viewer::Audio,
        _ => {
            warnings.push(format!("{what} `{hint}` is not a known viewer; ignored"));
            return None;
        }
    };
    Some(viewer)
}

/// Parses a layout mode; anything unknown is `replace` with a warning.
pub(crate) fn parse_mode(value: Option<&Value>, what: &str, warnings: &mut Vec<String>) -> CanvasMode {
    match value.and_then(Value::as_str) {
        None => CanvasMode::Replace,
        Some(m) => match m.to_ascii_lowercase().as_str() {
            "replace" => CanvasMode::Replace,
            "append" => CanvasMode::Append,
            "split" => CanvasMode::Split,
            _ => {
                warnings.push(format!("{what} `{m}` is not replace|append|split; using replace"));
                CanvasMode::Replace
            }
        },
    }
}

/// Validates a `canvas` envelope. Invalid envelopes are dropped with a warning saying why.
pub(crate) fn parse_dashboard(value: &Value, warnings: &mut Vec<String>) -> Option<DashboardEnvelope> {
    let refuse = |warnings: &mut Vec<String>, why: &str| {
        warnings.push(format!("canvas envelope ignored: {why}"));
        None
    };
    let Some(map) = value.as_object() else { return refuse(warnings, "not an object") };
    if map.get("open").and_then(Value::as_bool) == Some(false) {
        return None;
    }
    if let Some(kind) = map.get("type").and_then(Value::as_str) {
        if kind != "iframe" {
            return refuse(warnings, &format!("type `{kind}` is not `iframe`"));
        }
    }
    let id = match map.get("id").and_then(Value::as_str).map(str::trim) {
        Some(id) if !id.is_empty() && id.chars().count() <= 200 && !id.chars().any(char::is_control) => id.to_owned(),
        _ => return refuse(warnings, "`id` must be a non-empty string of at most 200 characters"),
    };
    let Some(raw_url) = map.get("url").and_then(Value::as_str) else { return refuse(warnings, "no `url`") };
    let url = match url::Url::parse(raw_url) {
        Ok(url) => url,
        Err(e) => return refuse(warnings, &format!("`url` is not a valid absolute URL ({e})")),
    };
    if !matches!(url.scheme(), "http" | "https") {
        return refuse(warnings, &format!("`url` scheme `{}` is not http or https", url.scheme()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return refuse(warnings, "`url` carries credentials (userinfo)");
    }
    let persistence = match map.get("persistence").and_then(Value::as_str) {
        None | Some("session") => DashboardPersistence::Session,
        Some("ephemeral") => DashboardPersistence::Ephemeral,
        Some("pinned") => DashboardPersistence::Pinned,
        Some(other) => {
            warnings.push(format!("canvas persistence `{other}` is not session|ephemeral|pinned; using session"));
            DashboardPersistence::Session
        }
    };
    Some(DashboardEnvelope {
        id,
        url: url.to_string(),
        persistence,
        title: map.get("title").and_then(Value::as_str).map(|t| t.chars().take(200).collect()),
        token: map.get("token").and_then(Value::as_str).map(str::to_owned),
        mode: parse_mode(map.get("mode"), "canvas mode", warnings),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn viewers() {
        assert_eq!(viewer_for("image/svg+xml", "x"), Some(Viewer::Image));
        assert_eq!(viewer_for("application/octet-stream", "notes.md"), Some(Viewer::Markdown));
        assert_eq!(viewer_for("application/octet-stream", "page.html"), None, "never HTML by name alone");
        assert_eq!(viewer_for("application/zip", "a.zip"), None);
        assert_eq!(viewer_for("audio/x-wav", "a.wav"), Some(Viewer::Audio));
    }

    #[test]
    fn dashboard_envelopes_are_validated() {
        let mut warnings = Vec::new();
        let ok = parse_dashboard(&json!({"open": true, "id": "m-1", "url": "https://mcp.example.com/dash?s=1", "persistence": "pinned", "mode": "split", "token": "t"}), &mut warnings).unwrap();
        assert_eq!((ok.persistence, ok.mode, ok.token.as_deref()), (DashboardPersistence::Pinned, CanvasMode::Split, Some("t")));
        for bad in [
            json!({"id": "x", "url": "javascript:alert(1)"}),
            json!({"id": "x", "url": "https://user:pw@evil.com/"}),
            json!({"id": "", "url": "https://a.com"}),
            json!({"id": "x", "url": "/relative"}),
            json!({"id": "x", "url": "https://a.com", "type": "webview"}),
        ] {
            assert!(parse_dashboard(&bad, &mut warnings).is_none(), "{bad}");
        }
        assert_eq!(warnings.len(), 5, "{warnings:?}");
    }
}
