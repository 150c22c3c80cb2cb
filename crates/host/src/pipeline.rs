//! The tool-call pipeline: find the tool → call with a timeout → normalize → store → summarize
//! (the last three: [`Ingest`], `mcp-canvas-ingest`).
//!
//! The call step itself ([`send_call`]) sends `tools/call` as a cancellable request: its progress
//! notifications go to the caller's [`ProgressFn`], the caller's cancel token or the timeout
//! (default from [`crate::HostOptions`], per server `timeout_seconds`, per call
//! [`CallControl::timeout`]) sends `notifications/cancelled`, and 2026-07-28 `input_required`
//! results are answered through the connection's elicitation handler and retried.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use rmcp::{
    model::{
        CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification, CancelledNotificationParam, ClientNotification,
        ClientRequest, InputRequest, InputRequiredResult, InputResponses, JsonObject, RequestId, ServerResult,
        DEFAULT_MRTR_MAX_ROUNDS,
    },
    service::PeerRequestOptions,
};
use tokio_util::sync::CancellationToken;
use serde_json::Value;

use crate::{
    arguments, arguments::ArgumentContext, files_in, audit, error::HostError, file_server::{DEFAULT_TOKEN_TTL, FileServer}, host::Host, housekeeping::Housekeeping};
use mcp_canvas_config::settings::Settings;
use mcp_canvas_wire::CallOutcome;
pub(crate) use mcp_canvas_ingest::Ingest;
use mcp_canvas_wire::AppCall;
use mcp_canvas_elicitation::validation;
use mcp_canvas_client::{CallContext, ClientError, ServerConnection};

/// Choices the caller makes for one call.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallOptions {
    /// The user confirmed a tool that may change or delete data.
    pub confirmed: bool,
    /// An MCP App of the same server asked for the call (`tools/call` over its bridge): only
    /// tools whose `_meta.ui.visibility` includes `app`, audited with the local identity.
    pub from_app: bool,
    /// Ask for the call to run as a task where the protocol leaves that to the client
    /// (2025-11-25; on 2026-07-28 the server decides). A tool that needs a task gets one anyway.
    pub as_task: bool,
    /// Which stored files the caller may send to a tool's file arguments (the proxy: a model's).
    pub files: crate::files_in::FileAccess,
}

use mcp_canvas_client::ProgressFn;

type Spilled = mcp_canvas_store::spill::Spills;

/// Live controls of one call: where its progress goes, how to cancel it, how long it may take.
#[derive(Clone, Default)]
pub struct CallControl {
    /// Overrides both the host's default timeout and the server's `timeout_seconds`
    /// (the CLI's explicit `--timeout`).
    pub timeout: Option<Duration>,
    /// Cancelling it stops the call: `notifications/cancelled` goes to the server and the call
    /// ends with [`HostError::Cancelled`].
    pub cancel: Option<CancellationToken>,
    /// Called with each progress report.
    pub progress: Option<ProgressFn>,
    /// The call's id, when the caller needs it before the call ends (the app opens the tool's
    /// MCP App as the call starts); else a fresh one ([`Host::fresh_call_id`]).
    pub call_id: Option<String>,
}

impl std::fmt::Debug for CallControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallControl").field("timeout", &self.timeout).field("cancel", &self.cancel).field("progress", &self.progress.is_some()).field("call_id", &self.call_id).finish()
    }
}

/// A call's outcome with what a front end passing results on needs besides it.
#[derive(Debug, Clone)]
pub struct CallDetail {
    /// The stored, summarized outcome.
    pub call: CallOutcome,
    /// The result's `structuredContent` exactly as the server sent it.
    pub structured_content: Option<Value>,
    /// Whether it matched the tool's `outputSchema` (`None` when there is no schema or no
    /// structured content).
    pub structured_valid: Option<bool>,
    /// For the tool's MCP App (a tool that declares a view, or a call an App made): what the
    /// App is sent — the arguments and the result as the server sent it (binaries over
    /// [`APP_RESULT_MAX_BYTES`] replaced by the model-safe summary).
    pub app: Option<AppCall>,
}

/// A result larger than this reaches an App as its summary (the files stay in the store).
pub const APP_RESULT_MAX_BYTES: usize = 8 * 1024 * 1024;

/// Runs one call and records it in the audit log, whatever happens.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn call(env: CallEnv<'_>, connection: &ServerConnection, tool: &str, arguments: Value, options: CallOptions, control: CallControl, call_id: String, wants_structured: bool) -> Result<CallDetail, HostError> {
    let started_ms = Host::now_ms();
    let clock = std::time::Instant::now();
    let mut sent = Sent { arguments: arguments.clone(), identity: None, wants_structured, structured: None, structured_valid: None, app: None, files: Vec::new() };
    let context = Arc::new(CallContext::default());
    let in_flight = connection.client.in_flight.enter(context.clone());
    let mut result = call_unaudited(&env, connection, tool, arguments, options, &control, &context, call_id.clone(), &mut sent).await;
    drop(in_flight);
    // What happened to the server's questions (declines and why) belongs to this call's outcome.
    if let Ok(call) = result.as_mut() {
        call.outcome.warnings.extend(context.notes());
    }
    let (outcome, detail, artifact_ids) = match &result {
        Ok(call) => match &call.outcome.error {
            Some(error) => ("tool_error", Some(format!("{}: {}", error.code, error.message)), call.outcome.artifacts.iter().map(|a| a.id.clone()).collect()),
            None => ("ok", None, call.outcome.artifacts.iter().map(|a| a.id.clone()).collect()),
        },
        Err(e) => (audit_outcome(e), Some(e.to_string()), Vec::new()),
    };
    // The files sent (id, name, size, sha256, how), whatever the outcome.
    let detail = match (detail, sent.files.is_empty()) {
        (detail, true) => detail,
        (None, false) => Some(sent.files.join("; ")),
        (Some(detail), false) => Some(format!("{detail}; {}", sent.files.join("; "))),
    };
    let record = mcp_canvas_store::AuditRecord {
        call_id,
        session_id: env.ingest.session_id.to_string(),
        server: connection.name.clone(),
        tool: tool.to_owned(),
        arguments: audit::redact(&sent.arguments),
        identity: sent.identity,
        started_ms,
        duration_ms: clock.elapsed().as_millis() as i64,
        outcome: outcome.to_owned(),
        detail: detail.map(|d| audit::redact_text(&d)),
        artifact_ids,
        // What the tool answered, for finding its files by it.
        result_text: result.as_ref().ok().map(|call| call.outcome.summary.as_str()).filter(|t| !t.is_empty()).map(audit::redact_text),
    };
    if let Some(rows) = env.audit_rows {
        rows.push(&env.ingest.store, record);
        return result.map(|call| CallDetail { call, structured_content: sent.structured, structured_valid: sent.structured_valid, app: sent.app });
    }
    // SQLite may wait for another process's write lock: not on an async worker.
    let store = env.ingest.store.clone();
    match tokio::task::spawn_blocking(move || store.audit(&record)).await {
        Ok(Ok(())) => env.housekeeping.after_log(),
        Ok(Err(e)) => tracing::warn!("writing the audit log failed: {e}"),
        Err(e) => tracing::warn!("writing the audit log failed: {e}"),
    }
    result.map(|call| CallDetail { call, structured_content: sent.structured, structured_valid: sent.structured_valid, app: sent.app })
}

/// What was actually sent (for the audit log) and what came back besides the outcome.
struct Sent {
    /// The front end reads the structured content (see `Host::call_detailed`).
    wants_structured: bool,
    arguments: Value,
    identity: Option<String>,
    structured: Option<Value>,
    structured_valid: Option<bool>,
    app: Option<AppCall>,
    /// What was sent for each file argument (id, name, size, sha256, how).
    files: Vec<String>,
}

fn audit_outcome(error: &HostError) -> &'static str {
    match error {
        HostError::Timeout { .. } => "timeout",
        HostError::Cancelled { .. } => "cancelled",
        HostError::Server(ClientError::Request { .. } | ClientError::Handshake { .. }) => "protocol_error",
        HostError::UnknownTool { .. } | HostError::InvalidArguments { .. } | HostError::ArgumentsRejected { .. } | HostError::NeedsConfirmation { .. } | HostError::AppRefused { .. } => "refused",
        _ => "error",
    }
}

#[allow(clippy::too_many_arguments)]
async fn call_unaudited(
    env: &CallEnv<'_>,
    connection: &ServerConnection,
    tool: &str,
    arguments: Value,
    options: CallOptions,
    control: &CallControl,
    context: &Arc<CallContext>,
    call_id: String,
    sent: &mut Sent,
) -> Result<CallOutcome, HostError> {
    let server = connection.name.as_str();
    let tools = connection.tools().await?;
    let Some(definition) = tools.iter().find(|t| t.name == tool) else {
        return Err(HostError::UnknownTool {
            server: server.to_owned(),
            tool: tool.to_owned(),
            available: tools.iter().map(|t| t.name.to_string()).collect(),
        });
    };
    let Value::Object(mut arguments) = arguments else {
        return Err(HostError::InvalidArguments { server: server.to_owned(), tool: tool.to_owned(), reason: "must be a JSON object".to_owned() });
    };
    let ui = mcp_canvas_wire::apps::ToolUi::of(definition);
    if options.from_app && !mcp_canvas_wire::apps::ToolUi::app_may_call(ui.as_ref()) {
        return Err(HostError::AppRefused { server: server.to_owned(), tool: tool.to_owned(), reason: "its visibility is model only".to_owned() });
    }
    let schema = &definition.input_schema;
    let left_out = arguments::drop_null_optionals(schema, &mut arguments);
    // Files by reference: found and checked (who may send them, type, size) before anything else.
    let file_params = files_in::params(definition);
    let files = if file_params.is_empty() {
        Vec::new()
    } else {
        let (store, params, given, access, inline_max) = (env.ingest.store.clone(), file_params.clone(), arguments.clone(), options.files, env.settings.files.inline_max_bytes);
        tokio::task::spawn_blocking(move || files_in::choose(&params, &given, &store, access, inline_max))
            .await
            .map_err(|e| HostError::Bug(format!("checking the files of `{server}`/`{tool}` panicked: {e}")))?
            .map_err(|reason| HostError::FileRefused { server: server.to_owned(), tool: tool.to_owned(), reason })?
    };
    let checked = arguments::as_sent_for_validation(schema, &files_in::placeholders(&arguments, &files), &env.settings.identity.username);
    let problems = validation::problems_in(schema, &Value::Object(checked))
        .map_err(|e| HostError::InvalidArguments { server: server.to_owned(), tool: tool.to_owned(), reason: e.to_string() })?;
    if !problems.is_empty() {
        return Err(HostError::ArgumentsRejected { server: server.to_owned(), tool: tool.to_owned(), problems });
    }
    if validation::needs_confirmation(definition) && !options.confirmed {
        return Err(HostError::NeedsConfirmation { server: server.to_owned(), tool: tool.to_owned() });
    }
    let wants_files = ["filename", "file_names"].iter().any(|k| schema.get("properties").and_then(|p| p.get(*k)).is_some())
        || files.iter().any(|f| f.param.encoding == files_in::FileEncoding::OpenAi);
    let file_server = if wants_files { Some(env.file_server().await?) } else { None };
    arguments::prepare(schema, &mut arguments, &ArgumentsFromHost { env, file_server, access: options.files });
    // Audited as given (references), with what was sent for each.
    sent.arguments = Value::Object(arguments.clone());
    let mut file_notes = files_in::notes(&files);
    if !files.is_empty() {
        let grant = |id: &str| file_server.map(|server| server.grant(id, DEFAULT_TOKEN_TTL));
        let grants: Vec<(String, Option<String>)> = files.iter().map(|f| (f.record.id.clone(), grant(&f.record.id))).collect();
        let (store, chosen, mut given) = (env.ingest.store.clone(), files.clone(), arguments);
        arguments = tokio::task::spawn_blocking(move || {
            let grant = |id: &str| grants.iter().find(|(g, _)| g == id).and_then(|(_, url)| url.clone());
            files_in::fill(&mut given, &chosen, &store, &grant).map(|()| given)
        })
        .await
        .map_err(|e| HostError::Bug(format!("reading the files for `{server}`/`{tool}` panicked: {e}")))?
        .map_err(|reason| HostError::FileRefused { server: server.to_owned(), tool: tool.to_owned(), reason })?;
        // Out of band (SEP-2631): authorized by the server, streamed to the URL it hands out.
        let local = server_is_local(connection);
        let limit = control.timeout.unwrap_or(env.timeout);
        for file in files.iter().filter(|f| f.upload) {
            let uploading = files_in::upload::upload(&connection.peer, local, &env.ingest.store, &file.record, limit);
            let cancelled = async {
                match &control.cancel {
                    Some(token) => token.cancelled().await,
                    None => std::future::pending().await,
                }
            };
            let uri = tokio::select! {
                uri = uploading => uri.map_err(|reason| HostError::FileRefused { server: server.to_owned(), tool: tool.to_owned(), reason: format!("`{}`: {reason}", file.param.name) })?,
                () = cancelled => return Err(HostError::Cancelled { server: server.to_owned(), tool: tool.to_owned(), reason: Some("while its file was uploading".into()) }),
            };
            files_in::put(&mut arguments, file, Value::String(uri));
        }
        // Recorded once every file is on its way (a refusal above sent nothing).
        sent.files = file_notes.clone();
    }
    sent.identity = arguments.get("username").and_then(Value::as_str).map(str::to_owned);
    if options.from_app {
        // What an App does through us is done as the local user.
        sent.identity = Some(format!("{} (app)", env.settings.identity.username));
    }

    let limit = control.timeout.unwrap_or(env.timeout);
    let (result, spilled) = send_call(connection, tool, arguments, options.as_task, control, context, limit).await?;
    let raw = serde_json::to_value(&result).expect("a CallToolResult serializes");
    drop(result);
    // SEP-2631 file values the result offers instead of bytes: fetched after it is stored.
    let offered = files_in::download::offered(raw.get("structuredContent"));
    // Long base64 runs of the answer went to the store while it was read (stdio); what is used
    // besides the normalized outcome gets them back.
    let mut spills = spilled;
    let output_schema = definition.output_schema.as_ref().map(|s| Value::Object((**s).clone()));
    let mut structured = raw.get("structuredContent").filter(|v| !v.is_null()).cloned();
    let resource_uri = ui.and_then(|ui| ui.resource_uri);
    let app_result = (options.from_app || resource_uri.is_some()).then(|| {
        let spilled = spills.as_ref().map_or(0, |spills| spills.restored_growth(&raw));
        let small = serde_json::to_vec(&raw).map(|bytes| bytes.len() as u64 + spilled <= APP_RESULT_MAX_BYTES as u64).unwrap_or(false);
        small.then(|| raw.clone())
    });
    let app_result = match (app_result, spills.as_mut()) {
        (Some(Some(mut whole)), Some(spills)) => Some(spills.restore_value(&mut whole).map(|()| whole).ok()),
        (app_result, _) => app_result,
    };
    if let (Some(value), Some(spills)) = (structured.as_mut(), spills.as_mut()) {
        // Whole again only for someone who reads it: the schema check, the front end (the
        // proxy passes it on); otherwise leaving it out saves holding the binary twice.
        if sent.wants_structured || definition.output_schema.is_some() || app_result.is_some() {
            spills.restore_value(value).map_err(|source| HostError::Storage { context: format!("reading back the result of `{server}`/`{tool}`"), source })?;
        } else {
            structured = None;
        }
    }
    let mut outcome = env.ingest.store(server, tool, raw, spills, output_schema, &call_id, || env.housekeeping.after_store()).await?;
    outcome.warnings.extend(left_out);
    outcome.warnings.append(&mut file_notes);
    if !offered.is_empty() {
        fetch_offered(env, connection, &offered, tool, &call_id, control.timeout.unwrap_or(env.timeout), &mut outcome).await;
    }
    if let Some(result) = app_result {
        let result = result.unwrap_or_else(|| {
            let mut summary = serde_json::json!({ "content": [{ "type": "text", "text": outcome.summary }], "isError": outcome.error.is_some() });
            if let Some(structured) = &structured {
                summary["structuredContent"] = structured.clone();
            }
            summary
        });
        sent.app = Some(AppCall { resource_uri, tool_title: mcp_canvas_wire::apps::tool_title(definition), arguments: sent.arguments.clone(), result });
    }
    if let (Some(schema), Some(structured)) = (&definition.output_schema, &structured) {
        match validation::problems_in(schema, structured) {
            Ok(problems) => {
                sent.structured_valid = Some(problems.is_empty());
                outcome.warnings.extend(problems.into_iter().map(|p| format!("structuredContent does not match the tool's outputSchema: {p}")));
            }
            Err(e) => {
                sent.structured_valid = Some(false);
                outcome.warnings.push(format!("outputSchema: {e}"));
            }
        }
    }
    sent.structured = structured;
    Ok(CallOutcome { call_id, server: server.to_owned(), tool: tool.to_owned(), outcome })
}

/// Sends `tools/call` and waits for its result: progress to the caller, cancellation and the
/// timeout as `notifications/cancelled`, `input_required` rounds answered and retried.
use crate::tasks::v2025::Refused;

/// With the result, the runs spilled from it while it was read (see `mcp_canvas_ingest::spill`).
async fn send_call(connection: &ServerConnection, tool: &str, arguments: JsonObject, as_task: bool, control: &CallControl, context: &Arc<CallContext>, limit: Duration) -> Result<(CallToolResult, Option<Spilled>), HostError> {
    let server = connection.name.as_str();
    let what = format!("calling tool `{tool}`");
    let clock = CallClock::start(limit, context.clone());
    let cancel = control.cancel.clone().unwrap_or_default();
    let cancelled = || HostError::Cancelled { server: server.to_owned(), tool: tool.to_owned(), reason: None };
    if as_task && crate::tasks::v2025::client_asks(connection) {
        return crate::tasks::v2025::call(connection, tool, &arguments, Refused::Not, control, &clock, &what).await.map(|r| (r, None));
    }
    let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let mut state_only_rounds = 0u32;
    for _round in 0..DEFAULT_MRTR_MAX_ROUNDS {
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
        let mut handle = connection.peer.send_cancellable_request(request, PeerRequestOptions::no_options()).await.map_err(|e| HostError::from(connection.service_error(&what, &e)))?;
        let _route = control.progress.clone().map(|to| connection.client.progress.route(handle.progress_token.clone(), to));
        let mut abandoned = AbandonGuard { connection, id: Some(handle.id.clone()) };
        let response = tokio::select! {
            response = &mut handle.rx => response,
            () = cancel.cancelled() => {
                abandoned.id = None;
                connection.forget_spilled(&handle.id);
                let _ = handle.cancel(Some("cancelled by the user".to_owned())).await;
                return Err(cancelled());
            }
            () = clock.expired() => {
                abandoned.id = None;
                connection.forget_spilled(&handle.id);
                let _ = handle.cancel(Some(format!("no result within {} s", clock.seconds()))).await;
                return Err(HostError::Timeout { server: server.to_owned(), tool: tool.to_owned(), seconds: clock.seconds() });
            }
        };
        abandoned.id = None;
        // Taken whatever the answer: runs of an answer that is not a final result go nowhere.
        let spilled = connection.take_spilled(&handle.id);
        let response = match response {
            Ok(Ok(response)) => response,
            Ok(Err(e)) if crate::tasks::v2025::refused_without_task(connection, &e) => {
                // A tool that runs only as a task (2025-11-25): ask again, for a task.
                let arguments = params.arguments.clone().unwrap_or_default();
                return crate::tasks::v2025::call(connection, tool, &arguments, Refused::Error(&e), control, &clock, &what).await.map(|r| (r, None));
            }
            Ok(Err(e)) => match connection.take_spill_failure(&handle.id) {
                // An answer whose large parts this data dir could not store (a full disk): storage.
                Some(source) => return Err(HostError::Storage { context: format!("storing the answer of `{server}`/`{tool}`"), source }),
                // An unreadable answer or a lost connection: the server may be dying and saying why.
                None => return Err(HostError::from(connection.failed_request(&what, &e).await)),
            },
            Err(_) => {
                connection.settle_stderr().await;
                return Err(HostError::from(connection.request_error_because(&what, "the connection closed before the result arrived".to_owned(), mcp_canvas_client::RequestCause::Lost)));
            }
        };
        match response {
            ServerResult::CallToolResult(result) if crate::tasks::v2025::result_says_task_required(connection, &result) => {
                // The TypeScript SDK's way of refusing a task-only tool called plainly (2025-11-25).
                let arguments = params.arguments.clone().unwrap_or_default();
                return crate::tasks::v2025::call(connection, tool, &arguments, Refused::Result(result), control, &clock, &what).await.map(|r| (r, None));
            }
            ServerResult::CallToolResult(result) => return Ok((result, spilled)),
            ServerResult::InputRequiredResult(input) => {
                let asked = input.input_requests.as_ref().is_some_and(|r| !r.is_empty());
                if !asked && input.request_state.is_none() {
                    return Err(HostError::from(connection.request_error(&what, "the server asked for input but sent no requests and no state".to_owned())));
                }
                let request_state = input.request_state.clone();
                let responses = tokio::select! {
                    responses = answer_input(connection, input, context, &what) => responses?,
                    () = cancel.cancelled() => return Err(cancelled()),
                };
                if asked {
                    state_only_rounds = 0;
                } else {
                    // Only state: the server is waiting for something; back off a little.
                    tokio::time::sleep(Duration::from_millis(50 << state_only_rounds.min(2))).await;
                    state_only_rounds += 1;
                }
                params.input_responses = (!responses.is_empty()).then_some(responses);
                params.request_state = request_state;
            }
            ServerResult::CreateTaskResult(created) => return crate::tasks::follow(connection, tool, created.task, control, context, &clock, &what).await.map(|r| (r, None)),
            _ => return Err(HostError::from(connection.request_error(&what, "the server answered with something other than a tool result".to_owned()))),
        }
    }
    Err(HostError::from(connection.request_error(&what, format!("the server still wanted input after {DEFAULT_MRTR_MAX_ROUNDS} rounds"))))
}

/// Answers the requests of an `input_required` result (2026-07-28): elicitation through the
/// connection's handler, sampling through its sampler, roots as none.
async fn answer_input(connection: &ServerConnection, input: InputRequiredResult, context: &Arc<CallContext>, what: &str) -> Result<InputResponses, HostError> {
    answer_requests(connection, input.input_requests.unwrap_or_default(), context, what).await
}

/// Answers input requests (of an `input_required` result, or of a task that asks).
pub(crate) async fn answer_requests(connection: &ServerConnection, requests: rmcp::model::InputRequests, context: &Arc<CallContext>, what: &str) -> Result<InputResponses, HostError> {
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let answer = match request {
            // Inside this call's own result: the question is exactly this call's.
            InputRequest::Elicitation(request) => serde_json::to_value(connection.client.elicitor.answer(request.params, std::slice::from_ref(context)).await),
            // No roots: MCP Canvas exposes no filesystem roots to servers.
            InputRequest::ListRoots(_) => Ok(serde_json::json!({ "roots": [] })),
            // No standard way to answer one input request with an error: the call ends with it.
            InputRequest::CreateMessage(request) => match connection.client.sampling.answer(request.params, std::slice::from_ref(context)).await {
                Ok(result) => serde_json::to_value(result),
                Err(e) => return Err(HostError::from(connection.request_error(what, format!("the server asked for an LLM completion, which was not given: {}", e.message)))),
            },
            _ => return Err(HostError::from(connection.request_error(what, "the server asked for a kind of input MCP Canvas does not know".to_owned()))),
        };
        responses.insert(key, answer.expect("results serialize"));
    }
    Ok(responses)
}

/// Tells the server a request was abandoned when the call's future is dropped mid-flight (the
/// front end went away): `notifications/cancelled`, best effort.
struct AbandonGuard<'a> {
    connection: &'a ServerConnection,
    id: Option<RequestId>,
}

impl Drop for AbandonGuard<'_> {
    fn drop(&mut self) {
        if let Some(id) = &self.id {
            self.connection.forget_spilled(id);
        }
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current()) else { return };
        let peer = self.connection.peer.clone();
        runtime.spawn(async move {
            let params = CancelledNotificationParam::new(Some(id), Some("request abandoned by the caller".to_owned()));
            let _ = peer.send_notification(ClientNotification::CancelledNotification(CancelledNotification::new(params))).await;
        });
    }
}

/// A call's time limit, not counting time this call spent waiting for its user to answer the
/// server (another call's open question does not stop it).
pub(crate) struct CallClock {
    limit: Duration,
    started: Instant,
    call: Arc<CallContext>,
}

impl CallClock {
    fn start(limit: Duration, call: Arc<CallContext>) -> Self {
        Self { limit, started: Instant::now(), call }
    }

    fn used(&self) -> Duration {
        self.started.elapsed().saturating_sub(self.call.waited())
    }

    /// The limit in whole seconds, rounded up (for messages).
    pub(crate) fn seconds(&self) -> u64 {
        self.limit.as_millis().div_ceil(1000) as u64
    }

    /// Resolves once the limit is used up.
    pub(crate) async fn expired(&self) {
        loop {
            let used = self.used();
            if used >= self.limit && !self.call.is_asking() {
                return;
            }
            let nap = if self.call.is_asking() { Duration::from_millis(200) } else { self.limit - used };
            tokio::time::sleep(nap).await;
        }
    }
}

/// What one call needs from the host, taken once as it starts: the pipeline never reaches back
/// into `Host` (a setting changed meanwhile applies to the next call).
pub(crate) struct CallEnv<'a> {
    /// The settings as they were when the call started (the local identity).
    pub settings: Arc<Settings>,
    /// Where results are stored: the store, probes, extraction rules, the session.
    pub ingest: Ingest,
    /// The server's timeout (`timeout_seconds`) or the host's default; a call's own
    /// [`CallControl::timeout`] overrides it.
    pub timeout: Duration,
    /// The loopback file server for capability URLs, started when a tool first wants one.
    pub files: &'a tokio::sync::OnceCell<FileServer>,
    /// Applies the quota after artifacts were stored, in the background.
    pub housekeeping: &'a Housekeeping,
    /// Where audit rows go when they are written after the answer (the proxy).
    pub audit_rows: Option<&'a crate::housekeeping::AuditRows>,
}

impl CallEnv<'_> {
    async fn file_server(&self) -> Result<&FileServer, HostError> {
        self.files
            .get_or_try_init(|| FileServer::start(self.ingest.store.clone()))
            .await
            .map_err(|e| HostError::DataDir(format!("cannot start the loopback file server: {e}")))
    }
}

struct ArgumentsFromHost<'a> {
    env: &'a CallEnv<'a>,
    file_server: Option<&'a FileServer>,
    /// A model (the proxy) names only files the proxy gave a model.
    access: files_in::FileAccess,
}

impl ArgumentContext for ArgumentsFromHost<'_> {
    fn username(&self) -> String {
        self.env.settings.identity.username.clone()
    }

    fn file_url(&self, id_or_name: &str) -> Option<String> {
        let server = self.file_server?;
        let record = self.env.ingest.store.find_in_session(&self.env.ingest.session_id, id_or_name).ok().flatten()?;
        if self.access == files_in::FileAccess::Model && !self.env.ingest.store.shared_with_model(&record.id).unwrap_or(false) {
            return None;
        }
        Some(server.grant(&record.id, DEFAULT_TOKEN_TTL))
    }
}

/// Fetches the files a result offered by SEP-2631 file value, stores them as the call's artifacts
/// (a line each in the summary), or says in a warning why one was not stored.
async fn fetch_offered(env: &CallEnv<'_>, connection: &ServerConnection, offered: &[files_in::download::Offered], tool: &str, call_id: &str, limit: Duration, outcome: &mut mcp_canvas_contract::ToolOutcome) {
    let local = server_is_local(connection);
    for file in offered {
        match files_in::download::fetch(&connection.peer, local, &env.ingest.store, file, &connection.name, tool, call_id, &env.ingest.session_id, limit).await {
            Ok(record) => {
                outcome.summary.push_str(&format!(
                    "\nStored {} '{}' ({}). Reference: {}",
                    mcp_canvas_contract::kind_label(&record.mime),
                    record.name,
                    mcp_canvas_contract::human_size(record.size),
                    record.id
                ));
                outcome.artifacts.push(outcome_artifact(&record, format!("structuredContent file value {}", file.uri)));
                env.housekeeping.after_store();
            }
            Err(reason) => outcome.warnings.push(format!("{}: {reason}", file.uri)),
        }
    }
}

/// Whether `connection`'s server runs on this machine: a program, or an HTTP endpoint on
/// loopback (a transfer URL may then be plain http to loopback).
fn server_is_local(connection: &ServerConnection) -> bool {
    connection.url.as_deref().is_none_or(|url| url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)).is_some_and(|h| h == "127.0.0.1" || h == "localhost" || h == "[::1]"))
}

/// A stored file as one of a call's artifacts (stored besides the normalized result: a download,
/// an App's file).
pub(crate) fn outcome_artifact(record: &mcp_canvas_store::ArtifactRecord, source: String) -> mcp_canvas_contract::OutcomeArtifact {
    mcp_canvas_contract::OutcomeArtifact {
        id: record.id.clone(),
        name: record.name.clone(),
        mime: record.mime.clone(),
        size: record.size,
        sha256: record.sha256.clone(),
        description: record.description.clone(),
        viewer: mcp_canvas_contract::viewer_for(&record.mime, &record.name),
        source,
        audience: mcp_canvas_contract::Audience::Both,
        pages: None,
        width: None,
        height: None,
    }
}
