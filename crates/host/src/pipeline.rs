//! The tool-call pipeline: find the tool → call with a timeout → normalize → store → summarize.

use mcp_canvas_contract::{normalize_tool_result, summarize, RawToolResult, StoredArtifactRef};
use mcp_canvas_store::{NewArtifact, Persistence};
use rmcp::model::CallToolRequestParams;
use serde_json::Value;

use crate::{connection::ServerConnection, error::HostError, host::Host, wire::CallOutcome};

pub(crate) async fn call(
    host: &Host,
    connection: &ServerConnection,
    tool: &str,
    arguments: Value,
    call_id: String,
) -> Result<CallOutcome, HostError> {
    let server = connection.name.as_str();
    if !connection.tools.iter().any(|t| t.name == tool) {
        return Err(HostError::UnknownTool {
            server: server.to_owned(),
            tool: tool.to_owned(),
            available: connection.tools.iter().map(|t| t.name.to_string()).collect(),
        });
    }
    let Value::Object(arguments) = arguments else {
        return Err(HostError::InvalidArguments {
            server: server.to_owned(),
            tool: tool.to_owned(),
            reason: "must be a JSON object".to_owned(),
        });
    };

    let request = connection.peer.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments));
    let result = match tokio::time::timeout(host.call_timeout, request).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => return Err(connection.request_error(&format!("calling tool `{tool}`"), e.to_string())),
        Err(_) => {
            return Err(HostError::Timeout { server: server.to_owned(), tool: tool.to_owned(), seconds: host.call_timeout.as_secs() })
        }
    };
    let raw = serde_json::to_value(&result).expect("a CallToolResult serializes");
    let normalized = normalize_tool_result(RawToolResult { server, tool, result: &raw })?;

    let now_ms = Host::now_ms();
    let mut artifacts = Vec::with_capacity(normalized.binaries.len());
    for binary in &normalized.binaries {
        let new = NewArtifact {
            name: &binary.name,
            mime: &binary.mime,
            server,
            tool,
            call_id: &call_id,
            session_id: host.session_id(),
            description: None,
            persistence: Persistence::Session,
            now_ms,
        };
        let record = host
            .store()
            .put(new, binary.bytes.as_slice())
            .map_err(|source| HostError::Store { server: server.to_owned(), tool: tool.to_owned(), source })?;
        artifacts.push(record);
    }
    let refs: Vec<StoredArtifactRef> = artifacts
        .iter()
        .map(|a| StoredArtifactRef { id: a.id.clone(), name: a.name.clone(), mime: a.mime.clone(), size: a.size })
        .collect();
    let summary = summarize(&normalized, &refs);
    Ok(CallOutcome {
        call_id,
        server: server.to_owned(),
        tool: tool.to_owned(),
        error: normalized.is_error.then(|| format!("tool `{tool}` on server `{server}` reported an error")),
        summary,
        artifacts,
        warnings: normalized.warnings,
    })
}
