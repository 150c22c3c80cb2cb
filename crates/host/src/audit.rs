//! The audit log's rows beyond tool calls, and what keeps secrets out of all of them: values of
//! secret-looking keys and URL tokens are redacted ([`mcp_canvas_config::redact`]) before a row is
//! written.

use mcp_canvas_config::allowlist::redact_url;
pub(crate) use mcp_canvas_config::redact::{redact, redact_text, REDACTED};
use std::sync::Arc;

use mcp_canvas_store::{ArtifactStore, AuditRecord};
use serde_json::json;

use crate::Host;


/// A dashboard event for the audit log. Never holds a token: `url` is redacted by
/// [`audit_dashboard`] with [`redact_url`], and `token` is only used to find and hide it.
#[derive(Debug, Clone, Default)]
pub struct DashboardEvent<'a> {
    /// `open`, `update`, `allow`, `disallow`, `close`, `restore`: logged as tool `dashboard:<action>`.
    pub action: &'a str,
    /// The server whose call opened the dashboard, when known (else `mcp-canvas`).
    pub server: Option<&'a str>,
    /// The call that opened or updated it, when there is one.
    pub call_id: Option<&'a str>,
    /// The envelope's `id`.
    pub dashboard_id: Option<&'a str>,
    /// The dashboard URL (redacted before it is logged).
    pub url: Option<&'a str>,
    /// The token the envelope gave (never logged; hidden wherever it appears in `url`).
    pub token: Option<&'a str>,
    /// The origin concerned.
    pub origin: Option<&'a str>,
    /// `ok`, `refused`, ...
    pub outcome: &'a str,
    /// Anything else worth knowing (why refused, who closed it).
    pub detail: Option<String>,
}

/// Records a dashboard event in the audit log with the local identity (`[identity] username`).
/// Blocking (SQLite may wait for another process's write lock): from the window's thread or an
/// async worker, [`audit_dashboard_in_background`].
pub fn audit_dashboard(host: &Host, event: &DashboardEvent<'_>) -> Result<(), mcp_canvas_store::StoreError> {
    host.store().audit(&dashboard_record(host, event))
}

/// [`audit_dashboard`] without waiting: the row is written on a blocking thread (a failure is
/// logged).
pub fn audit_dashboard_in_background(host: &Host, event: &DashboardEvent<'_>) {
    in_background(host, dashboard_record(host, event));
}

fn dashboard_record(host: &Host, event: &DashboardEvent<'_>) -> mcp_canvas_store::AuditRecord {
    let url = event.url.map(|u| redact_url(u, event.token));
    let mut arguments = serde_json::Map::new();
    if let Some(id) = event.dashboard_id {
        arguments.insert("dashboard_id".into(), json!(id));
    }
    if let Some(origin) = event.origin {
        arguments.insert("origin".into(), json!(origin));
    }
    if let Some(url) = url {
        arguments.insert("url".into(), json!(url));
    }
    let mut detail = event.detail.clone();
    if let (Some(token), Some(d)) = (event.token.filter(|t| t.len() >= 4), detail.as_mut()) {
        *d = d.replace(token, REDACTED);
    }
    AuditRecord {
        call_id: event.call_id.map(str::to_owned).unwrap_or_else(|| crate::ids::fresh("dashboard")),
        session_id: host.session_id().to_owned(),
        server: event.server.unwrap_or("mcp-canvas").to_owned(),
        tool: format!("dashboard:{}", event.action),
        arguments: redact(&serde_json::Value::Object(arguments)),
        identity: Some(host.settings().identity.username.clone()),
        started_ms: Host::now_ms(),
        duration_ms: 0,
        outcome: event.outcome.to_owned(),
        detail,
        artifact_ids: Vec::new(),
        result_text: None,
    }
}

/// Writes `record` on tokio's blocking pool and waits for it (so it is there when the caller
/// answers); a failure is logged, never the caller's.
pub(crate) async fn write(store: Arc<ArtifactStore>, record: AuditRecord) {
    match tokio::task::spawn_blocking(move || store.audit(&record)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("writing the audit log failed: {e}"),
        Err(e) => tracing::error!("writing the audit log failed: {e} (a bug in MCP Canvas)"),
    }
}

/// Writes `record` without waiting for it: queued for the host's one background audit writer
/// (in order, from any thread, runtime or not); `Host::shutdown` waits for what is queued. A
/// failure is logged.
pub(crate) fn in_background(host: &Host, record: AuditRecord) {
    host.housekeeping.background_audit().push(record);
}


/// Records a read the user asked for — a resource, a prompt, a skill's file — as the pseudo tool
/// `tool` (`resources/read`, `prompts/get`, `skills/read`): its redacted arguments, how long it
/// took, and what it stored or why it failed.
pub(crate) async fn audit_read(host: &Host, call_id: &str, server: &str, tool: &str, arguments: &serde_json::Value, started_ms: i64, result: Result<Vec<String>, &crate::HostError>) {
    use crate::HostError;
    use mcp_canvas_client::ClientError;
    let (outcome, detail, artifact_ids) = match result {
        Ok(ids) => ("ok", None, ids),
        Err(e @ HostError::Timeout { .. }) => ("timeout", Some(e.to_string()), Vec::new()),
        Err(e @ HostError::Server(ClientError::Request { .. } | ClientError::Handshake { .. })) => ("protocol_error", Some(e.to_string()), Vec::new()),
        Err(e @ HostError::SkillRefused { .. }) => ("refused", Some(e.to_string()), Vec::new()),
        Err(e) => ("error", Some(e.to_string()), Vec::new()),
    };
    let record = AuditRecord {
        call_id: call_id.to_owned(),
        session_id: host.session_id().to_owned(),
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments: redact(arguments),
        identity: None,
        started_ms,
        duration_ms: Host::now_ms() - started_ms,
        outcome: outcome.to_owned(),
        detail: detail.map(|d| redact_text(&d)),
        artifact_ids,
        result_text: None,
    };
    write(host.store().clone(), record).await;
}
