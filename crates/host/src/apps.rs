//! MCP Apps (extension `io.modelcontextprotocol/ui`, spec 2026-01-26): which tools declare a
//! view (`_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`), who may call
//! a tool (`_meta.ui.visibility`), the view's `ui://` resource read once per connection, and the
//! Content-Security-Policy built from what the resource declares (`_meta.ui.csp`) — the spec's
//! restrictive default when it declares nothing, never an undeclared origin.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use base64::Engine as _;
use rmcp::model::ResourceContents;
use serde_json::Value;

use crate::{Host, HostError};

/// The extension's id (advertised by the client in both protocol eras) and an App's MIME type.
use mcp_canvas_client::handler::APPS_MIME as APP_MIME;
/// The largest view we load (the example servers' single-file views are ~0.2–2 MB).
pub const MAX_VIEW_BYTES: usize = 16 * 1024 * 1024;

use mcp_canvas_wire::apps::{AppView, ToolUi};

/// Views read per server, valid while the connection they were read over lives.
#[derive(Default)]
pub(crate) struct ViewCache {
    views: Mutex<HashMap<(String, String), (std::sync::Weak<mcp_canvas_client::ServerConnection>, Arc<AppView>)>>,
}

impl Host {
    /// The view `uri` of `server` (`resources/read`; text or base64 blob), read once per
    /// connection. Refused with the reason when it is not a `ui://` URI, not
    /// `text/html;profile=mcp-app`, not UTF-8, or larger than [`MAX_VIEW_BYTES`].
    pub async fn app_view(&self, server: &str, uri: &str) -> Result<Arc<AppView>, HostError> {
        let connection = self.connection(server).await?;
        let key = (server.to_owned(), uri.to_owned());
        if let Some((read_over, view)) = self.views.views.lock().unwrap().get(&key) {
            // Valid while the connection it was read over lives (a reconnect reads it again).
            if read_over.upgrade().is_some_and(|c| Arc::ptr_eq(&c, &connection)) {
                return Ok(view.clone());
            }
        }
        let broken = |reason: String| HostError::AppView { server: server.to_owned(), uri: uri.to_owned(), reason };
        if !uri.starts_with("ui://") {
            return Err(broken("an App's view must be a ui:// resource".to_owned()));
        }
        let read = self.read_resource_contents(server, uri).await?;
        let Some(contents) = read.contents.into_iter().next() else {
            return Err(broken("the server returned no contents".to_owned()));
        };
        let (mime, bytes, meta) = match contents {
            ResourceContents::TextResourceContents { mime_type, text, meta, .. } => (mime_type, text.into_bytes(), meta),
            ResourceContents::BlobResourceContents { mime_type, blob, meta, .. } => {
                let bytes = base64::engine::general_purpose::STANDARD.decode(blob.as_bytes()).map_err(|e| broken(format!("its blob is not valid base64: {e}")))?;
                (mime_type, bytes, meta)
            }
            _ => return Err(broken("its contents are neither text nor a blob".to_owned())),
        };
        let mime = mime.unwrap_or_default();
        if mime.split(';').next().map(str::trim) != Some("text/html") || !mime.replace(' ', "").contains("profile=mcp-app") {
            return Err(broken(format!("its MIME type is `{mime}`, not `{APP_MIME}`")));
        }
        if bytes.len() > MAX_VIEW_BYTES {
            return Err(broken(format!("it is {} bytes, over the {MAX_VIEW_BYTES}-byte limit for a view", bytes.len())));
        }
        let html = String::from_utf8(bytes).map_err(|_| broken("its HTML is not UTF-8".to_owned()))?;
        // The content's `_meta.ui` wins; without one, the listing's entry for the same URI (the
        // spec lets a server declare it in either place). A server that does not list its views
        // (they MAY be unlisted) has none there.
        let ui = match meta.as_ref().and_then(|m| m.get("ui")).cloned() {
            Some(ui) => ui,
            None => self.listed_ui(server, uri).await.unwrap_or(Value::Null),
        };
        let csp = ui.get("csp").and_then(|c| serde_json::from_value(c.clone()).ok()).unwrap_or_default();
        let view = Arc::new(AppView {
            server: server.to_owned(),
            uri: uri.to_owned(),
            html,
            csp,
            permissions: ui.get("permissions").cloned().unwrap_or(Value::Null),
            prefers_border: ui.get("prefersBorder").and_then(Value::as_bool),
        });
        self.views.views.lock().unwrap().insert(key, (Arc::downgrade(&connection), view.clone()));
        Ok(view)
    }

    /// `_meta.ui` of `uri` as `resources/list` gives it, when the server lists it.
    async fn listed_ui(&self, server: &str, uri: &str) -> Option<Value> {
        let (resources, _) = self.resource_definitions(server).await.ok()??;
        let listed = resources.into_iter().find(|r| r.uri == uri)?;
        listed.meta.as_ref()?.get("ui").cloned()
    }

    /// `ui/download-file` from an App of `server`: each embedded resource stored under the name
    /// its URI gives (sanitized by the contract: `../../.bashrc` becomes `bashrc`), each
    /// `resource_link` read from the App's own server first (an `artifact://localhost/<id>` link
    /// is one of our own artifacts, opened as it is, when this data dir has it). Stored and summarized like a tool result,
    /// audited as `app:download-file`.
    pub async fn store_app_download(&self, server: &str, app_id: &str, contents: &[Value]) -> Result<mcp_canvas_contract::ToolOutcome, HostError> {
        let mut blocks = Vec::new();
        let mut own = Vec::new();
        for item in contents {
            match item.get("type").and_then(Value::as_str) {
                Some("resource") => blocks.push(item.clone()),
                Some("resource_link") => {
                    let uri = item.get("uri").and_then(Value::as_str).unwrap_or_default();
                    // One of ours, when this data dir has it; else the App's server serves it
                    // (our proxy does: its artifacts are `artifact://localhost/<id>` too).
                    // Only an artifact of this App's own server: an App cannot reach another
                    // server's files by naming their ids.
                    let ours = match uri.strip_prefix("artifact://localhost/") {
                        Some(id) => {
                            let (store, id) = (self.store().clone(), id.to_owned());
                            tokio::task::spawn_blocking(move || store.get(&id).ok()).await?
                        }
                        None => None,
                    };
                    if let Some(record) = ours.filter(|r| r.server == server) {
                        own.push(record);
                        continue;
                    }
                    let read = self.read_resource_contents(server, uri).await?;
                    let link_name = item.get("name").and_then(Value::as_str);
                    for mut content in serde_json::to_value(&read.contents).unwrap_or(Value::Null).as_array().cloned().into_iter().flatten() {
                        // The link's name (`data.csv`) over a URI that has none (`artifact://localhost/demo_5b49…`).
                        if let (Some(name), Value::Object(map)) = (link_name, &mut content) {
                            map.entry("name").or_insert_with(|| Value::String(name.to_owned()));
                        }
                        blocks.push(serde_json::json!({ "type": "resource", "resource": content }));
                    }
                }
                other => {
                    return Err(HostError::AppRefused { server: server.to_owned(), tool: "ui/download-file".to_owned(), reason: format!("a download's contents are embedded resources or resource links, not `{}`", other.unwrap_or("untyped")) });
                }
            }
        }
        let call_id = crate::ids::fresh("download");
        let mut outcome = self.store_result(server, "ui/download-file", serde_json::json!({ "content": blocks }), None, &call_id).await?;
        for record in own {
            outcome.artifacts.push(crate::pipeline::outcome_artifact(&record, "artifact".to_owned()));
        }
        // Beside the App, never in place of it.
        outcome.display.mode = mcp_canvas_contract::CanvasMode::Append;
        let names: Vec<&str> = outcome.artifacts.iter().map(|a| a.name.as_str()).collect();
        self.audit_app(server, app_id, "download-file", serde_json::json!({ "files": names }), "ok", None);
        Ok(outcome)
    }

    /// What a tool the App's view exposes answered (ext-apps: the host's `tools/call` to the view;
    /// the view's own tools, not its server's), stored like a result of the App's server under the
    /// pseudo tool `view:<name>`, shown beside the App, and audited as `app:view-tool` with the
    /// arguments it was called with. The view is not trusted more than a server: its answer goes
    /// through the same contract (binaries stored, HTML never run, sizes bounded).
    pub async fn store_view_tool_result(&self, server: &str, app_id: &str, tool: &str, arguments: Value, result: Value) -> Result<mcp_canvas_wire::CallOutcome, HostError> {
        let call_id = crate::ids::fresh("view");
        let pseudo = format!("view:{tool}");
        let audited = serde_json::json!({ "tool": tool, "arguments": arguments, "call_id": call_id });
        match self.store_result(server, &pseudo, result, None, &call_id).await {
            Ok(mut outcome) => {
                let label = if outcome.error.is_some() { "tool_error" } else { "ok" };
                self.audit_app(server, app_id, "view-tool", audited, label, outcome.error.as_ref().map(|e| e.message.clone()));
                outcome.display.mode = mcp_canvas_contract::CanvasMode::Append;
                Ok(mcp_canvas_wire::CallOutcome { call_id, server: server.to_owned(), tool: pseudo, outcome })
            }
            Err(e) => {
                self.audit_app(server, app_id, "view-tool", audited, "refused", Some(e.to_string()));
                Err(e)
            }
        }
    }

    /// Records what an App did through us (`app:<action>`: `open-link`, `read-resource`,
    /// `message`, `model-context`, …) in the audit log with the local identity; secrets in
    /// `arguments` are redacted. Tool calls an App makes are audited by the call itself.
    pub fn audit_app(&self, server: &str, app_id: &str, action: &str, arguments: Value, outcome: &str, detail: Option<String>) {
        let mut arguments = match arguments {
            Value::Object(map) => map,
            other => serde_json::Map::from_iter([("value".to_owned(), other)]),
        };
        arguments.insert("app_id".to_owned(), Value::String(app_id.to_owned()));
        let record = mcp_canvas_store::AuditRecord {
            call_id: crate::ids::fresh("app"),
            session_id: self.session_id().to_owned(),
            server: server.to_owned(),
            tool: format!("app:{action}"),
            arguments: crate::audit::redact(&Value::Object(arguments)),
            identity: Some(format!("{} (app)", self.settings().identity.username)),
            started_ms: Self::now_ms(),
            duration_ms: 0,
            outcome: outcome.to_owned(),
            detail: detail.map(|d| crate::audit::redact_text(&d)),
            artifact_ids: Vec::new(),
            result_text: None,
        };
        // SQLite may wait for another process's write lock: never on the caller's thread (a
        // window command, an async worker).
        crate::audit::in_background(self, record);
    }

    /// The tools of `server` that declare a view or a visibility, with what they declare.
    pub async fn tool_uis(&self, server: &str) -> Result<Vec<(String, ToolUi)>, HostError> {
        let tools = self.connection(server).await?.tools().await?;
        Ok(tools.iter().filter_map(|t| ToolUi::of(t).map(|ui| (t.name.to_string(), ui))).collect())
    }
}
