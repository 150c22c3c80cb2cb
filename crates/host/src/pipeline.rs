//! The tool-call pipeline: find the tool → call with a timeout → normalize → store → summarize.
//! `mcp-canvas-cli normalize` enters at [`store_and_finish`] with a result read from a file.

use mcp_canvas_contract::{ExtractionConfig, Normalizer, RawToolResult, StoredArtifact, ToolOutcome};
use mcp_canvas_store::{NewArtifact, Persistence};
use rmcp::model::CallToolRequestParams;
use serde_json::Value;

use crate::{
    arguments::{self, ArgumentContext},
    audit,
    connection::ServerConnection,
    error::HostError,
    file_server::{FileServer, DEFAULT_TOKEN_TTL},
    host::Host,
    probe, validation,
    wire::CallOutcome,
};

/// Choices the caller makes for one call.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallOptions {
    /// The user confirmed a tool that may change or delete data.
    pub confirmed: bool,
}

/// Runs one call and records it in the audit log, whatever happens.
pub(crate) async fn call(host: &Host, connection: &ServerConnection, tool: &str, arguments: Value, options: CallOptions, call_id: String) -> Result<CallOutcome, HostError> {
    let started_ms = Host::now_ms();
    let clock = std::time::Instant::now();
    let mut sent = Sent { arguments: arguments.clone(), identity: None };
    let result = call_unaudited(host, connection, tool, arguments, options, call_id.clone(), &mut sent).await;
    let (outcome, detail, artifact_ids) = match &result {
        Ok(call) => match &call.outcome.error {
            Some(error) => ("tool_error", Some(format!("{}: {}", error.code, error.message)), call.outcome.artifacts.iter().map(|a| a.id.clone()).collect()),
            None => ("ok", None, call.outcome.artifacts.iter().map(|a| a.id.clone()).collect()),
        },
        Err(e) => (audit_outcome(e), Some(e.to_string()), Vec::new()),
    };
    let record = mcp_canvas_store::AuditRecord {
        call_id,
        session_id: host.session_id().to_owned(),
        server: connection.name.clone(),
        tool: tool.to_owned(),
        arguments: audit::redact(&sent.arguments),
        identity: sent.identity,
        started_ms,
        duration_ms: clock.elapsed().as_millis() as i64,
        outcome: outcome.to_owned(),
        detail: detail.map(|d| audit::redact_text(&d)),
        artifact_ids,
    };
    if let Err(e) = host.store().audit(&record) {
        tracing::warn!("writing the audit log failed: {e}");
    }
    result
}

/// What was actually sent, for the audit log.
struct Sent {
    arguments: Value,
    identity: Option<String>,
}

fn audit_outcome(error: &HostError) -> &'static str {
    match error {
        HostError::Timeout { .. } => "timeout",
        HostError::Request { .. } | HostError::Handshake { .. } => "protocol_error",
        HostError::UnknownTool { .. } | HostError::InvalidArguments { .. } | HostError::ArgumentsRejected { .. } | HostError::NeedsConfirmation { .. } => "refused",
        _ => "error",
    }
}

async fn call_unaudited(host: &Host, connection: &ServerConnection, tool: &str, arguments: Value, options: CallOptions, call_id: String, sent: &mut Sent) -> Result<CallOutcome, HostError> {
    let server = connection.name.as_str();
    let Some(definition) = connection.tools.iter().find(|t| t.name == tool) else {
        return Err(HostError::UnknownTool {
            server: server.to_owned(),
            tool: tool.to_owned(),
            available: connection.tools.iter().map(|t| t.name.to_string()).collect(),
        });
    };
    let Value::Object(mut arguments) = arguments else {
        return Err(HostError::InvalidArguments { server: server.to_owned(), tool: tool.to_owned(), reason: "must be a JSON object".to_owned() });
    };
    let schema = &definition.input_schema;
    let problems = validation::problems(schema, &Value::Object(arguments.clone()))
        .map_err(|reason| HostError::InvalidArguments { server: server.to_owned(), tool: tool.to_owned(), reason })?;
    if !problems.is_empty() {
        return Err(HostError::ArgumentsRejected { server: server.to_owned(), tool: tool.to_owned(), problems });
    }
    if validation::needs_confirmation(definition) && !options.confirmed {
        return Err(HostError::NeedsConfirmation { server: server.to_owned(), tool: tool.to_owned() });
    }
    let wants_files = ["filename", "file_names"].iter().any(|k| schema.get("properties").and_then(|p| p.get(*k)).is_some());
    let file_server = if wants_files { Some(host.file_server().await?) } else { None };
    arguments::prepare(schema, &mut arguments, &ArgumentsFromHost { host, file_server });
    sent.arguments = Value::Object(arguments.clone());
    sent.identity = arguments.get("username").and_then(Value::as_str).map(str::to_owned);

    let request = connection.peer.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments));
    let result = match tokio::time::timeout(host.call_timeout, request).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => return Err(connection.request_error(&format!("calling tool `{tool}`"), e.to_string())),
        Err(_) => return Err(HostError::Timeout { server: server.to_owned(), tool: tool.to_owned(), seconds: host.call_timeout.as_secs() }),
    };
    let raw = serde_json::to_value(&result).expect("a CallToolResult serializes");
    drop(result);
    let output_schema = definition.output_schema.as_ref().map(|s| Value::Object((**s).clone()));
    let structured = raw.get("structuredContent").filter(|v| !v.is_null()).cloned();
    let mut outcome = store_and_finish(host, server, tool, raw, output_schema.as_ref(), &call_id)?;
    if let (Some(schema), Some(structured)) = (&definition.output_schema, structured) {
        match validation::problems(schema, &structured) {
            Ok(problems) => outcome.warnings.extend(problems.into_iter().map(|p| format!("structuredContent does not match the tool's outputSchema: {p}"))),
            Err(e) => outcome.warnings.push(format!("outputSchema: {e}")),
        }
    }
    Ok(CallOutcome { call_id, server: server.to_owned(), tool: tool.to_owned(), outcome })
}

struct ArgumentsFromHost<'a> {
    host: &'a Host,
    file_server: Option<&'a FileServer>,
}

impl ArgumentContext for ArgumentsFromHost<'_> {
    fn username(&self) -> &str {
        &self.host.settings().identity.username
    }

    fn file_url(&self, id_or_name: &str) -> Option<String> {
        let server = self.file_server?;
        let record = self.host.store().find_in_session(self.host.session_id(), id_or_name).ok().flatten()?;
        Some(server.grant(&record.id, DEFAULT_TOKEN_TTL))
    }
}

/// Normalizes a raw result, streams its binaries into the store, and builds the outcome.
/// A binary that fails to store becomes a warning; the others are kept.
pub(crate) fn store_and_finish(host: &Host, server: &str, tool: &str, raw: Value, output_schema: Option<&Value>, call_id: &str) -> Result<ToolOutcome, HostError> {
    let config: &ExtractionConfig = host.extraction();
    let normalized = Normalizer::new(config).normalize(RawToolResult { server, tool, result: raw, output_schema })?;
    let now_ms = Host::now_ms();
    let stored: Vec<Result<StoredArtifact, String>> = normalized
        .pending
        .iter()
        .map(|pending| {
            let new = NewArtifact {
                name: &pending.name,
                mime: &pending.mime,
                server,
                tool,
                call_id,
                session_id: host.session_id(),
                description: pending.description.as_deref(),
                persistence: Persistence::Session,
                now_ms,
            };
            let record = host.store().put(new, pending.payload.reader()).map_err(|e| e.to_string())?;
            let facts = probe::probe_all(host.probes(), &host.store().blob_path(&record.sha256), &record.mime);
            Ok(StoredArtifact { id: record.id, sha256: record.sha256, size: record.size, pages: facts.pages, width: facts.width, height: facts.height })
        })
        .collect();
    let outcome = normalized.finish(stored, config);
    // Keep the store within its quota; this call's artifacts were just used, so they go last.
    if let Err(e) = host.store().enforce(&host.settings().artifacts, Host::now_ms()) {
        tracing::warn!("applying the artifact quota failed: {e}");
    }
    Ok(outcome)
}
