//! MCP Apps in the canvas: one instance per App tab (the call that opened it: its arguments and
//! result), the `mcp-app:` scheme that serves each instance's view with the CSP it declared, and
//! what an App may ask of us over its bridge — calls to its own server's tools, reads of its
//! server's resources, links through the user's consent, its model context. The bridge itself
//! (postMessage JSON-RPC) runs in the window, with the ext-apps package's `AppBridge`.
//!
//! - `mcp-app://localhost/<app_id>` (`http://mcp-app.localhost/<app_id>` on Windows) — the view's
//!   HTML, `Content-Security-Policy` from `_meta.ui.csp` (see `mcp_canvas_wire::apps::AppCsp`).
//!   A scheme of its own: the App's origin is neither the window's nor the artifact scheme's, and
//!   the window frames it `sandbox="allow-scripts allow-forms"` (an opaque origin besides).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use http::{header, HeaderValue, Request, Response, StatusCode};
use mcp_canvas_canvas::{AppTab, Canvas};
use mcp_canvas_elicitation::UrlRequest;
use mcp_canvas_wire::{AppCall, CommandError, ErrorKind};
use mcp_canvas_host::Host;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The scheme App views are served on.
pub const SCHEME: &str = "mcp-app";

/// What the window needs to start an App tab's bridge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AppLaunch {
    /// The instance (the call that opened it).
    pub app_id: String,
    /// Its server.
    pub server: String,
    /// The tool whose call opened it.
    pub tool: String,
    /// The `ui://` resource.
    pub resource_uri: String,
    /// The frame's `allow` attribute, from the view's `_meta.ui.permissions`.
    pub allow: String,
    /// `_meta.ui.prefersBorder`.
    pub prefers_border: Option<bool>,
    /// The CSP the view is served with (shown to the user on request).
    pub csp: String,
    /// `ui/notifications/tool-input`: the call's arguments.
    pub arguments: Value,
    /// `ui/notifications/tool-result`: the call's result, as the server sent it; `None` while
    /// the call runs (it comes as an `app-tool-result` event).
    pub result: Option<Value>,
    /// `ui/notifications/tool-cancelled`: why the call ended without a result.
    pub cancelled: Option<String>,
    /// `hostContext.toolInfo.tool`: the definition of the tool whose call opened it.
    pub tool_info: Option<Value>,
    /// The `sampling` capability offered to the view (`{}`, `{"tools": {}}`), or null when the
    /// sampling policy for its server is `never`.
    pub sampling: Option<Value>,
}

/// How an App's call ended, sent to the window as it happens (`app-tool-result`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AppToolResultEvent {
    /// The App.
    pub app_id: String,
    /// The result, as the server sent it.
    pub result: Option<Value>,
    /// Why the call ended without one (cancelled, timed out, refused, failed).
    pub cancelled: Option<String>,
}

struct Instance {
    tab: AppTab,
    arguments: Value,
    result: Option<Value>,
    cancelled: Option<String>,
    /// `ui/update-model-context`: the last one wins.
    model_context: Option<Value>,
}

/// The Apps open on the canvas.
#[derive(Default)]
pub struct AppInstances {
    open: Mutex<HashMap<String, Instance>>,
}

impl AppInstances {
    /// The tab for a call whose tool declares a view, remembering what the App will be sent. An
    /// App opened as its call started gets its result now.
    pub fn opened(&self, server: &str, tool: &str, call_id: &str, call: &AppCall) -> Option<AppTab> {
        let resource_uri = call.resource_uri.clone()?;
        let mut open = self.open.lock().unwrap();
        if let Some(instance) = open.get_mut(call_id) {
            instance.result = Some(call.result.clone());
            return Some(instance.tab.clone());
        }
        let tab = AppTab { app_id: call_id.to_owned(), server: server.to_owned(), tool: tool.to_owned(), tool_title: call.tool_title.clone(), resource_uri };
        let instance = Instance { tab: tab.clone(), arguments: call.arguments.clone(), result: Some(call.result.clone()), cancelled: None, model_context: None };
        open.insert(call_id.to_owned(), instance);
        Some(tab)
    }

    /// An App opened as its call starts: it gets the arguments now, the result when it comes.
    pub fn started(&self, tab: AppTab, arguments: Value) {
        let instance = Instance { tab: tab.clone(), arguments, result: None, cancelled: None, model_context: None };
        self.open.lock().unwrap().insert(tab.app_id.clone(), instance);
    }

    /// The call of an App opened early ended without a result; whether the App is still open.
    pub fn cancelled(&self, app_id: &str, reason: &str) -> bool {
        match self.open.lock().unwrap().get_mut(app_id) {
            Some(instance) => {
                instance.cancelled = Some(reason.to_owned());
                true
            }
            None => false,
        }
    }

    /// Forgets the Apps whose tabs are gone.
    pub fn keep_only_open(&self, canvas: &Canvas) {
        let open: Vec<&str> = canvas.panes().iter().flat_map(|p| &p.tabs).filter_map(|t| t.app()).map(|a| a.app_id.as_str()).collect();
        self.open.lock().unwrap().retain(|id, _| open.contains(&id.as_str()));
    }

    fn tab(&self, app_id: &str) -> Result<AppTab, CommandError> {
        self.open.lock().unwrap().get(app_id).map(|i| i.tab.clone()).ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("no App `{app_id}` is open (its tab was closed)")))
    }

    /// What the window needs to bridge the App; reads (and checks) its view first.
    pub async fn launch(&self, host: &Host, app_id: &str) -> Result<AppLaunch, CommandError> {
        let tab = self.tab(app_id)?;
        let view = host.app_view(&tab.server, &tab.resource_uri).await.map_err(CommandError::from)?;
        let tool_info = host.tool_definitions(&tab.server).await.ok().and_then(|tools| tools.iter().find(|t| t.name == tab.tool).and_then(|t| serde_json::to_value(t).ok()));
        let sampling = host.sampler().capability(&tab.server).map(|c| if c.tools { serde_json::json!({ "tools": {} }) } else { serde_json::json!({}) });
        let open = self.open.lock().unwrap();
        let instance = open.get(app_id).ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("no App `{app_id}` is open (its tab was closed)")))?;
        Ok(AppLaunch {
            app_id: app_id.to_owned(),
            server: tab.server.clone(),
            tool: tab.tool.clone(),
            resource_uri: tab.resource_uri.clone(),
            allow: view.allow_attribute(),
            prefers_border: view.prefers_border,
            csp: view.csp.header(),
            arguments: instance.arguments.clone(),
            result: instance.result.clone(),
            cancelled: instance.cancelled.clone(),
            tool_info,
            sampling,
        })
    }

    /// The server and URI of an open App (for the scheme).
    pub fn view_of(&self, app_id: &str) -> Option<(String, String)> {
        self.open.lock().unwrap().get(app_id).map(|i| (i.tab.server.clone(), i.tab.resource_uri.clone()))
    }

    /// `tools/call` from the App: its own server's tools only, as the pipeline checks
    /// (visibility `app`; arguments against the schema; audited with the local identity). A tool
    /// that may change or delete data is first confirmed by the user (`confirm`).
    pub async fn call_tool<F, Fut>(&self, host: &Host, app_id: &str, tool: &str, arguments: Value, confirm: F) -> Result<Value, CommandError>
    where
        F: FnOnce(String, serde_json::Map<String, Value>) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        use mcp_canvas_host::{CallControl, CallOptions, HostError};
        let tab = self.tab(app_id)?;
        let options = CallOptions { from_app: true, ..CallOptions::default() };
        let detail = match host.call_tool_detailed(&tab.server, tool, arguments.clone(), options, CallControl::default()).await {
            Err(HostError::NeedsConfirmation { .. }) => {
                let map = arguments.as_object().cloned().unwrap_or_default();
                if !confirm(format!("an App of `{}` ({})", tab.server, tab.tool_title.as_deref().unwrap_or(&tab.tool)), map).await {
                    return Err(CommandError::new(ErrorKind::Cancelled, format!("the user did not allow the App to run `{tool}`")));
                }
                host.call_tool_detailed(&tab.server, tool, arguments, CallOptions { confirmed: true, ..options }, CallControl::default()).await
            }
            other => other,
        }
        .map_err(CommandError::from)?;
        Ok(detail.app.map(|a| a.result).unwrap_or(Value::Null))
    }

    /// `resources/read` from the App: its own server's resources, as the server sent them.
    pub async fn read_resource(&self, host: &Host, app_id: &str, uri: &str) -> Result<Value, CommandError> {
        let tab = self.tab(app_id)?;
        let result = host.read_resource_contents(&tab.server, uri).await;
        let outcome = if result.is_ok() { "ok" } else { "error" };
        host.audit_app(&tab.server, app_id, "read-resource", serde_json::json!({ "uri": uri }), outcome, result.as_ref().err().map(ToString::to_string));
        let result = result.map_err(CommandError::from)?;
        serde_json::to_value(result).map_err(CommandError::bug)
    }

    /// `ui/open-link`: an http(s) URL, described for the user's consent dialog; anything else
    /// is refused with the reason (and audited either way).
    pub fn link_request(&self, host: &Host, app_id: &str, url: &str) -> Result<UrlRequest, CommandError> {
        let tab = self.tab(app_id)?;
        match mcp_canvas_elicitation::inspect_url(url) {
            Ok((domain, warnings)) => Ok(UrlRequest {
                server: tab.server.clone(),
                message: format!("The App “{}” of server `{}` wants to open this page in your browser.", tab.tool_title.as_deref().unwrap_or(&tab.tool), tab.server),
                url: url.to_owned(),
                domain,
                elicitation_id: String::new(),
                warnings,
            }),
            Err(reason) => {
                host.audit_app(&tab.server, app_id, "open-link", serde_json::json!({ "url": url }), "refused", Some(reason.0.clone()));
                Err(CommandError::new(ErrorKind::Refused, reason.0))
            }
        }
    }

    /// `ui/update-model-context`: kept, the last one replacing the one before. The first one of
    /// an App is audited; later ones only replace it (an App may update it on every keystroke).
    pub fn set_model_context(&self, host: &Host, app_id: &str, context: Value) -> Result<(), CommandError> {
        let tab = self.tab(app_id)?;
        let first = match self.open.lock().unwrap().get_mut(app_id) {
            Some(instance) => instance.model_context.replace(context).is_none(),
            None => false,
        };
        if first {
            host.audit_app(&tab.server, app_id, "model-context", Value::Null, "ok", None);
        }
        Ok(())
    }

    /// The App's last model context.
    pub fn model_context(&self, app_id: &str) -> Option<Value> {
        self.open.lock().unwrap().get(app_id).and_then(|i| i.model_context.clone())
    }

    /// Anything else the App did that the audit log should hold (`ui/message`, display modes).
    pub fn audit(&self, host: &Host, app_id: &str, action: &str, arguments: Value) -> Result<(), CommandError> {
        let tab = self.tab(app_id)?;
        host.audit_app(&tab.server, app_id, action, arguments, "ok", None);
        Ok(())
    }
}

/// The response to an `mcp-app:` request: the open App's view with its CSP, or a plain error.
pub async fn respond(host: Option<&Host>, apps: &AppInstances, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let Some(host) = host else {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "MCP Canvas could not open its data directory".into());
    };
    let app_id = request.uri().path().trim_matches('/');
    let Some((server, uri)) = apps.view_of(app_id) else {
        return plain(StatusCode::NOT_FOUND, format!("no App `{app_id}` is open"));
    };
    match host.app_view(&server, &uri).await {
        Ok(view) => view_response(&view.csp.header(), view.html.clone()),
        Err(e) => plain(StatusCode::BAD_GATEWAY, e.to_string()),
    }
}

/// A view's HTML under its CSP. Never panics: a policy that cannot be a header (`AppCsp::header`
/// keeps only well-formed origins, so it always can) is a `502`, never the view without its CSP.
fn view_response(csp: &str, html: String) -> Response<Vec<u8>> {
    let Ok(csp) = HeaderValue::from_str(csp) else {
        return plain(StatusCode::BAD_GATEWAY, "the App's content security policy cannot be sent as a header; its view is not shown".into());
    };
    let mut response = Response::new(html.into_bytes());
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn plain(status: StatusCode, text: String) -> Response<Vec<u8>> {
    let mut response = Response::new(text.into_bytes());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("default-src 'none'; sandbox"));
    response
}

/// Holds the instances for the app (shared with the scheme's handler thread).
pub type SharedApps = Arc<AppInstances>;

/// At most this many bytes (decoded) an App may hand over in one `ui/download-file`.
pub const MAX_DOWNLOAD_BYTES: u64 = 256 * 1024 * 1024;

/// One item of a `ui/download-file` as the consent dialog shows it: its URI, the name it
/// would be stored under (its last segment) and its size (an embedded blob's decoded size, a
/// text's bytes; a link's size is the server's to tell).
pub fn describe_download(item: &Value) -> Value {
    let resource = item.get("resource").unwrap_or(item);
    let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
    // A link names itself; an embedded resource is named by its URI's last segment.
    let name = item.get("name").and_then(Value::as_str).unwrap_or_else(|| uri.split(['?', '#']).next().unwrap_or("").rsplit('/').next().unwrap_or(""));
    let bytes = match (resource.get("blob").and_then(Value::as_str), resource.get("text").and_then(Value::as_str)) {
        (Some(blob), _) => Some(blob.len() as u64 / 4 * 3),
        (None, Some(text)) => Some(text.len() as u64),
        _ => item.get("size").and_then(Value::as_u64),
    };
    serde_json::json!({ "uri": uri, "name": name, "bytes": bytes, "kind": item.get("type").cloned().unwrap_or(Value::Null) })
}

#[cfg(test)]
mod view_response_tests {
    use mcp_canvas_wire::apps::AppCsp;

    use super::*;

    #[test]
    fn a_view_is_served_only_with_its_csp_and_a_policy_no_header_can_carry_is_a_502() {
        // What a server declares goes through AppCsp::header, which keeps only origins.
        let hostile = AppCsp { connect_domains: vec!["https://api.example.com\r\nX-Injected: 1".into(), "https://ok.example.com".into()], ..AppCsp::default() };
        let response = view_response(&hostile.header(), "<p>view</p>".into());
        assert_eq!(response.status(), StatusCode::OK);
        let csp = response.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(csp.contains("connect-src https://ok.example.com;") && !csp.contains("api.example.com"), "{csp}");
        assert_eq!(response.body(), b"<p>view</p>");
        // Were a policy ever unfit for a header: no panic, and no view without it.
        let response = view_response("default-src 'none'\r\nX-Injected: 1", "<script>secret()</script>".into());
        assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
        assert!(response.headers().get("x-injected").is_none());
        assert!(!String::from_utf8_lossy(response.body()).contains("secret"));
        assert_eq!(response.headers()[header::CONTENT_SECURITY_POLICY], "default-src 'none'; sandbox");
    }
}
