//! Tasks as 2025-11-25 has them (SEP-1686, "experimental" in that version): the client asks for a
//! task by adding `task: {ttl}` to `tools/call`; the server answers `{task: {taskId, status, …}}`;
//! `tasks/get` tells the status, `tasks/result` waits for the end and returns the tool's result,
//! `tasks/cancel` stops it. A question the task asks (`elicitation/create` naming the task in
//! `_meta`) reaches the client as an ordinary server request while `tasks/result` is open, so it
//! is answered by the connection's handler like any other question of this call.
//!
//! rmcp 3.11 models only SEP-2663 tasks (see the parent module) and drops a tool's
//! `execution.taskSupport`, so this speaks the older flow with custom requests and reads the
//! answers as JSON. A tool that needs a task is found out when the server refuses the plain call
//! with `-32601` — as a JSON-RPC error, or as the TypeScript SDK does for `taskSupport:
//! "required"`, an error result `MCP error -32601: … requires task augmentation` —; the call then
//! goes again as a task (once; if the server will not make a task either, its first answer stands). `mcp-canvas-cli call --task` asks for a task from the start (for tools that
//! support one optionally).

use std::time::Duration;

use rmcp::{
    model::{CallToolResult, ClientRequest, CustomRequest, ErrorCode, JsonObject, ServerResult},
    service::PeerRequestOptions,
};
use serde_json::{json, Value};

use crate::{
    error::HostError,
    pipeline::{CallClock, CallControl},
    tasks::Status,
};
use mcp_canvas_client::ServerConnection;

/// How long the server is asked to keep a task (and its result) around.
const TTL: Duration = Duration::from_secs(30 * 60);
/// A `tasks/get` or `tasks/cancel` that takes longer than this is given up (the call goes on).
const SIDE_REQUEST: Duration = Duration::from_secs(5);

/// Whether the connection speaks a version where the client asks for tasks (2025-11-25 and its
/// initialize-era neighbours; on 2026-07-28 the server decides, see the parent module).
pub(crate) fn client_asks(connection: &ServerConnection) -> bool {
    connection.peer.peer_info().is_some_and(|info| info.protocol_version.has_initialize())
}

/// Whether a refused plain call means "this tool runs only as a task".
pub(crate) fn refused_without_task(connection: &ServerConnection, error: &rmcp::ServiceError) -> bool {
    matches!(error, rmcp::ServiceError::McpError(e) if e.code == ErrorCode::METHOD_NOT_FOUND) && client_asks(connection)
}

/// Whether a tool's error result is the TypeScript SDK's refusal of a task-only tool called
/// without a task: it answers `isError` with `MCP error -32601: Tool … requires task augmentation`
/// instead of a JSON-RPC error.
pub(crate) fn result_says_task_required(connection: &ServerConnection, result: &CallToolResult) -> bool {
    result.is_error == Some(true)
        && result.content.len() == 1
        && result.content[0].as_text().is_some_and(|t| t.text.starts_with("MCP error -32601:") && t.text.contains("task"))
        && client_asks(connection)
}

/// What a task-augmented request was answered with.
enum Created {
    Task(Value),
    /// The server ran the call at once (it may ignore `task`).
    Result(CallToolResult),
}

/// How the plain call went, when asking for a task is the second try: if the server will not make
/// a task either, its first answer is what the user sees.
pub(crate) enum Refused<'a> {
    /// No plain call was made (`--task`).
    Not,
    /// A JSON-RPC error `-32601`.
    Error(&'a rmcp::ServiceError),
    /// An error result saying so (see [`result_says_task_required`]).
    Result(CallToolResult),
}

/// Runs the call as a 2025-11-25 task and waits for its result.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn call(connection: &ServerConnection, tool: &str, arguments: &JsonObject, refused: Refused<'_>, control: &CallControl, clock: &CallClock, what: &str) -> Result<CallToolResult, HostError> {
    let server = connection.name.as_str();
    let cancel = control.cancel.clone().unwrap_or_default();
    let cancelled = || HostError::Cancelled { server: server.to_owned(), tool: tool.to_owned(), reason: None };
    let params = json!({"name": tool, "arguments": arguments, "task": {"ttl": TTL.as_millis() as u64}});
    let answer = tokio::select! {
        answer = request(connection, "tools/call", params) => match (answer, refused) {
            (Ok(answer), _) => answer,
            (Err(_), Refused::Result(result)) => return Ok(result),
            (Err(again), Refused::Error(first)) => {
                let asked = format!("{what} (asked again as a task: {again})");
                return Err(HostError::from(connection.service_error(&asked, first)));
            }
            (Err(e), Refused::Not) => return Err(HostError::from(connection.service_error(what, &e))),
        },
        () = cancel.cancelled() => return Err(cancelled()),
        () = clock.expired() => return Err(HostError::Timeout { server: server.to_owned(), tool: tool.to_owned(), seconds: clock.seconds() }),
    };
    let task = match created(answer) {
        Some(Created::Task(task)) => task,
        Some(Created::Result(result)) => return Ok(result),
        None => return Err(HostError::from(connection.request_error(what, "the server answered the task request with neither a task nor a tool result".to_owned()))),
    };
    let Some(id) = task.get("taskId").and_then(Value::as_str).map(str::to_owned) else {
        return Err(HostError::from(connection.request_error(what, "the server's task has no taskId".to_owned())));
    };
    let mut status = Status::default();
    report(&mut status, &task, control);
    let cancel_task = || async {
        // Cooperative on the server's side; the call ends here either way.
        let _ = tokio::time::timeout(SIDE_REQUEST, request(connection, "tasks/cancel", json!({"taskId": id}))).await;
    };

    // `tasks/result` waits for the end; status is polled beside it for the progress row.
    let result_request = ClientRequest::CustomRequest(CustomRequest::new("tasks/result", Some(json!({"taskId": id}))));
    let handle = connection.peer.send_cancellable_request(result_request, PeerRequestOptions::no_options()).await.map_err(|e| HostError::from(connection.service_error(what, &e)))?;
    let mut result = handle.rx;
    let mut wait = status.interval();
    loop {
        tokio::select! {
            answer = &mut result => {
                let answer = match answer {
                    Ok(Ok(answer)) => answer,
                    Ok(Err(e)) => return Err(HostError::from(connection.service_error(what, &e))),
                    Err(_) => return Err(HostError::from(connection.request_error_because(what, "the connection closed before the task's result arrived".to_owned(), mcp_canvas_client::RequestCause::Lost))),
                };
                return tool_result(answer).map_err(|e| HostError::from(connection.request_error(what, format!("the finished task's result is not a tool result: {e}"))));
            }
            () = tokio::time::sleep(wait) => {
                if let Ok(Ok(task)) = tokio::time::timeout(SIDE_REQUEST, request(connection, "tasks/get", json!({"taskId": id}))).await {
                    let task = serde_json::to_value(&task).unwrap_or_default();
                    report(&mut status, &task, control);
                    wait = status.interval();
                }
            }
            () = cancel.cancelled() => {
                cancel_task().await;
                return Err(cancelled());
            }
            () = clock.expired() => {
                cancel_task().await;
                return Err(HostError::Timeout { server: server.to_owned(), tool: tool.to_owned(), seconds: clock.seconds() });
            }
        }
    }
}

async fn request(connection: &ServerConnection, method: &str, params: Value) -> Result<ServerResult, rmcp::ServiceError> {
    connection.peer.send_request(ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)))).await
}

/// Reads the answer to a task-augmented `tools/call`.
fn created(answer: ServerResult) -> Option<Created> {
    if let ServerResult::CallToolResult(result) = answer {
        return Some(Created::Result(result));
    }
    let mut value = serde_json::to_value(&answer).ok()?;
    match value.get_mut("task") {
        Some(task) if task.is_object() => Some(Created::Task(task.take())),
        _ => serde_json::from_value(value).ok().map(Created::Result),
    }
}

fn tool_result(answer: ServerResult) -> Result<CallToolResult, serde_json::Error> {
    match answer {
        ServerResult::CallToolResult(result) => Ok(result),
        other => serde_json::from_value(serde_json::to_value(&other)?),
    }
}

/// Reports a 2025-11-25 task's JSON status (`pollInterval` is that version's name; rmcp's, when
/// it read the answer as its own task type, is `pollIntervalMs`).
fn report(status: &mut Status, task: &Value, control: &CallControl) {
    let poll_ms = task.get("pollInterval").or_else(|| task.get("pollIntervalMs")).and_then(Value::as_u64);
    status.report(task.get("statusMessage").and_then(Value::as_str), poll_ms, control);
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_canvas_client::CallProgress;
    use std::sync::Arc;

    #[test]
    fn a_task_answer_is_told_from_a_direct_result() {
        let task: ServerResult = serde_json::from_value(json!({"task": {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 1000}})).unwrap();
        match created(task) {
            Some(Created::Task(task)) => {
                assert_eq!(task["taskId"], "t1");
                assert_eq!(task["pollInterval"], 1000);
            }
            _ => panic!("a task"),
        }
        let direct: ServerResult = serde_json::from_value(json!({"content": [{"type": "text", "text": "done"}]})).unwrap();
        assert!(matches!(created(direct), Some(Created::Result(r)) if r.content.len() == 1));
        let neither: ServerResult = serde_json::from_value(json!({"something": 1})).unwrap();
        assert!(created(neither).is_none());
    }

    #[test]
    fn status_messages_become_progress_once_each() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        let control = CallControl { progress: Some(Arc::new(move |p: &CallProgress| sink.lock().unwrap().push((p.progress, p.message.clone())))), ..CallControl::default() };
        let mut status = Status::default();
        report(&mut status, &json!({"status": "working", "statusMessage": "Gathering", "pollInterval": 50}), &control);
        report(&mut status, &json!({"status": "working", "statusMessage": "Gathering"}), &control);
        report(&mut status, &json!({"status": "working", "statusMessage": "Analyzing"}), &control);
        assert_eq!(*seen.lock().unwrap(), vec![(1.0, Some("Gathering".to_owned())), (2.0, Some("Analyzing".to_owned()))]);
        // 50 ms suggested: clamped to the floor, and kept when a later status names none.
        assert_eq!(status.interval(), crate::tasks::POLL_AT_LEAST);
    }
}
