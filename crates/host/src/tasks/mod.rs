//! A tool call the server turned into a task (the `io.modelcontextprotocol/tasks` extension,
//! SEP-2663, which MCP Canvas declares): the call goes on as the task. Its status is polled with
//! `tasks/get` at the interval the server suggests (within 0.1–5 s), each new status message is
//! reported as the call's progress, the input it asks for (forms, LLM requests) is answered with
//! `tasks/update`, and cancelling the call — or its timeout — sends `tasks/cancel`. The finished
//! task's result is the call's result: stored and shown like any other.
//!
//! The task lives on the server; nothing here depends on a window or a tab, so closing the tab a
//! call was started from does not touch it.

pub(crate) mod v2025;

use std::{sync::Arc, time::Duration};

use rmcp::model::{CallToolResult, CancelTaskParams, GetTaskParams, Task, TaskPayload, UpdateTaskParams};

use crate::{
    error::HostError,
    pipeline::{answer_requests, CallClock, CallControl},
};
use mcp_canvas_client::{CallContext, CallProgress, ServerConnection};

/// How often to ask, whatever the server suggests.
const POLL_AT_LEAST: Duration = Duration::from_millis(100);
const POLL_AT_MOST: Duration = Duration::from_secs(5);

/// A task's status as last seen, for both kinds of task: each new status message becomes the
/// call's progress, and the interval the server suggests (kept until it names another) sets
/// when to ask again.
#[derive(Default)]
pub(crate) struct Status {
    message: Option<String>,
    steps: f64,
    poll_ms: Option<u64>,
}

impl Status {
    pub(crate) fn report(&mut self, message: Option<&str>, poll_ms: Option<u64>, control: &CallControl) {
        self.poll_ms = poll_ms.or(self.poll_ms);
        if message.is_some() && message != self.message.as_deref() {
            self.message = message.map(str::to_owned);
            self.steps += 1.0;
            if let Some(progress) = &control.progress {
                progress(&CallProgress { progress: self.steps, total: None, message: self.message.clone() });
            }
        }
    }

    pub(crate) fn interval(&self) -> Duration {
        self.poll_ms.map(Duration::from_millis).unwrap_or(Duration::from_secs(1)).clamp(POLL_AT_LEAST, POLL_AT_MOST)
    }

    fn seen(&mut self, task: &Task, control: &CallControl) {
        self.report(task.status_message.as_deref(), task.poll_interval_ms, control);
    }
}

/// Follows the task `created` to its end.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn follow(connection: &ServerConnection, tool: &str, created: Task, control: &CallControl, context: &Arc<CallContext>, clock: &CallClock, what: &str) -> Result<CallToolResult, HostError> {
    let server = connection.name.as_str();
    let id = created.task_id.clone();
    let cancel = control.cancel.clone().unwrap_or_default();
    let mut status = Status::default();
    status.seen(&created, control);
    let mut wait = status.interval();
    let cancel_task = || async {
        // Cooperative on the server's side; the call ends here either way.
        let _ = tokio::time::timeout(Duration::from_secs(5), connection.peer.cancel_task(CancelTaskParams::new(id.clone()))).await;
    };
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = cancel.cancelled() => {
                cancel_task().await;
                return Err(HostError::Cancelled { server: server.to_owned(), tool: tool.to_owned(), reason: None });
            }
            () = clock.expired() => {
                cancel_task().await;
                return Err(HostError::Timeout { server: server.to_owned(), tool: tool.to_owned(), seconds: clock.seconds() });
            }
        }
        let state = connection.peer.get_task(GetTaskParams::new(id.clone())).await.map_err(|e| HostError::from(connection.service_error(what, &e)))?;
        let task = state.task;
        status.seen(&task.task, control);
        wait = status.interval();
        match task.payload {
            TaskPayload::Working => {}
            TaskPayload::InputRequired { input_requests } => {
                let responses = tokio::select! {
                    responses = answer_requests(connection, input_requests, context, what) => responses?,
                    () = cancel.cancelled() => {
                        cancel_task().await;
                        return Err(HostError::Cancelled { server: server.to_owned(), tool: tool.to_owned(), reason: None });
                    }
                };
                connection.peer.update_task(UpdateTaskParams::new(id.clone(), responses)).await.map_err(|e| HostError::from(connection.service_error(what, &e)))?;
                // Answered: look again at once rather than after a whole interval.
                wait = POLL_AT_LEAST;
            }
            TaskPayload::Completed { result } => {
                return serde_json::from_value(serde_json::Value::Object(result))
                    .map_err(|e| HostError::from(connection.request_error(what, format!("the finished task's result is not a tool result: {e}"))));
            }
            TaskPayload::Failed { error } => {
                let message = error.get("message").and_then(|m| m.as_str()).unwrap_or("no reason given");
                // A JSON-RPC error as a request's answer would be: its arguments refused, or not.
                let cause = match error.get("code").and_then(|c| c.as_i64()).and_then(|c| i32::try_from(c).ok()) {
                    Some(code) => mcp_canvas_client::RequestCause::refused(code, message),
                    None => mcp_canvas_client::RequestCause::Other,
                };
                return Err(HostError::from(connection.request_error_because(what, format!("the task failed: {message}"), cause)));
            }
            TaskPayload::Cancelled => return Err(HostError::Cancelled { server: server.to_owned(), tool: tool.to_owned(), reason: Some("the server cancelled the task".into()) }),
            _ => return Err(HostError::from(connection.request_error(what, "the task is in a state MCP Canvas does not know".to_owned()))),
        }
    }
}
