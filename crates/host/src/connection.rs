//! One live connection to an MCP server through rmcp (stdio child with its stderr captured, or
//! Streamable HTTP), and [`CanvasClient`], our side of the session: what we advertise, and what
//! we do with what the server sends us unasked (elicitation, progress, log messages, tool-list
//! changes).

use std::{
    collections::{HashMap, VecDeque},
    io::Write as _,
    path::{Path, PathBuf},
    process::Stdio,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex, RwLock,
    },
    time::Duration,
};

// MCP logging (`notifications/message`) is deprecated by SEP-2577, but servers still send it.
#[allow(deprecated)]
use rmcp::{
    model::{
        ClientCapabilities, ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult, ElicitationAction,
        ElicitationCapability, FormElicitationCapability, Implementation, LoggingMessageNotificationParam,
        ProgressNotificationParam, ProgressToken, ProtocolVersion, Tool, UrlElicitationCapability,
    },
    service::{ClientLifecycleMode, ClientServiceExt as _, NotificationContext, RequestContext, RunningService},
    transport::{streamable_http_client::StreamableHttpClientTransportConfig, StreamableHttpClientTransport},
    ClientHandler, ErrorData, Peer, RoleClient, ServiceExt,
};
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::{
    config::ServerEntry,
    call_context::InFlight,
    elicitation::{ElicitationHandler, Elicitor},
    stdio_transport::LineTransport,
    error::HostError,
    pipeline::{CallProgress, ProgressFn},
};

/// How many stderr lines are kept in memory for error messages.
const STDERR_TAIL_LINES: usize = 20;
/// Largest single JSON-RPC message accepted from a server, unless its entry says otherwise.
pub(crate) const MAX_MESSAGE_BYTES: usize = 1 << 30;
/// How long the MCP handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) struct ServerConnection {
    pub name: String,
    pub peer: Peer<RoleClient>,
    /// The tools as last listed; re-listed on next use after `notifications/tools/list_changed`.
    tools: RwLock<Arc<Vec<Tool>>>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, CanvasClient>>>,
    child: tokio::sync::Mutex<Option<tokio::process::Child>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    pub log_path: PathBuf,
    /// Our side of the session (elicitation, progress routes, notes, the stale-tools flag).
    pub client: CanvasClient,
    /// The entry's `timeout_seconds`, when it has one.
    pub call_timeout: Option<Duration>,
}

pub(crate) struct SpawnContext<'a> {
    pub name: &'a str,
    pub entry: &'a ServerEntry,
    pub config_path: &'a Path,
    pub log_path: PathBuf,
    /// Who answers the server's elicitation requests.
    pub elicitation: Arc<dyn ElicitationHandler>,
    /// Where the server's log messages go (kept by the host across reconnects).
    pub messages: Arc<ServerMessages>,
    /// Where the server's `list_changed` notifications are announced.
    pub changes: tokio::sync::broadcast::Sender<ServerChange>,
}

impl ServerConnection {
    /// Starts the server, completes the MCP handshake and lists its tools.
    pub async fn start(ctx: SpawnContext<'_>, program: PathBuf) -> Result<Self, HostError> {
        let mut command = tokio::process::Command::new(&program);
        command.args(&ctx.entry.args).envs(&ctx.entry.env).kill_on_drop(true);
        // Its own process group: Ctrl-C in a terminal reaches us, and we cancel the call and
        // close the session properly, instead of the server dying mid-call.
        #[cfg(unix)]
        command.process_group(0);
        if let Some(cwd) = &ctx.entry.cwd {
            command.current_dir(cwd);
        }
        let spawn_error = |reason: String| HostError::Spawn {
            server: ctx.name.to_owned(),
            command: ctx.entry.target(),
            reason,
            config: ctx.config_path.to_owned(),
        };
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(spawn_error("its stdio could not be captured".into()));
        };
        let stderr = child.stderr.take();
        // rmcp's default drops any line over 16 MiB (and the call then just times out); tool
        // results carrying 100 MB+ of base64 are exactly what this app exists for. A line we
        // cannot read still answers its call, with the reason (see `stdio_transport`).
        let max_line = ctx.entry.max_message_bytes().map_err(|reason| HostError::Config { path: ctx.config_path.to_owned(), reason: format!("server `{}`: {reason}", ctx.name) })?;
        let complain_to = ctx.log_path.clone();
        let complain = Arc::new(move |line: &str| {
            tracing::warn!("{line}");
            let _ = std::fs::OpenOptions::new().create(true).append(true).open(&complain_to).and_then(|mut log| writeln!(log, "[mcp-canvas] {line}"));
        });
        let transport = LineTransport::new(BufReader::with_capacity(256 * 1024, stdout), stdin, max_line.unwrap_or(MAX_MESSAGE_BYTES), complain);

        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = stderr.map(|stderr| tokio::spawn(capture_stderr(stderr, ctx.log_path.clone(), stderr_tail.clone())));

        let client = CanvasClient::new(&ctx)?;
        let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, client.clone().connect(transport)).await;
        let handshake_error = |reason: String| async {
            // Give the stderr reader a moment to drain what a crashing server printed.
            if let Some(done) = stderr_done {
                let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
            }
            HostError::Handshake {
                server: ctx.name.to_owned(),
                reason,
                stderr_tail: stderr_tail.lock().unwrap().iter().cloned().collect(),
                log: ctx.log_path.clone(),
            }
        };
        let service = match handshake {
            Ok(Ok(service)) => service,
            Ok(Err(e)) => return Err(handshake_error(format!("{e} (the server may have exited at once)")).await),
            Err(_) => return Err(handshake_error(format!("no answer within {} s", HANDSHAKE_TIMEOUT.as_secs())).await),
        };
        Self::ready(ctx, service, client, Some(child), stderr_tail).await
    }

    /// Connects to a Streamable HTTP server (rmcp handles the session id, the standalone GET
    /// stream, `Last-Event-ID` resumption and the server's `retry` delay).
    pub async fn connect_http(ctx: SpawnContext<'_>, url: &str) -> Result<Self, HostError> {
        let mut headers = std::collections::HashMap::new();
        for (name, value) in &ctx.entry.headers {
            let bad = |what: &str| HostError::Config { path: ctx.config_path.to_owned(), reason: format!("server `{}`: header `{name}` has an invalid {what}", ctx.name) };
            headers.insert(http::HeaderName::try_from(name.as_str()).map_err(|_| bad("name"))?, http::HeaderValue::try_from(value.as_str()).map_err(|_| bad("value"))?);
        }
        let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
        config.max_sse_event_size = ctx.entry.max_message_bytes().ok().flatten().unwrap_or(MAX_MESSAGE_BYTES);
        let transport = StreamableHttpClientTransport::from_config(config);
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let client = CanvasClient::new(&ctx)?;
        let service = match tokio::time::timeout(HANDSHAKE_TIMEOUT, client.clone().connect(transport)).await {
            Ok(Ok(service)) => service,
            Ok(Err(e)) => return Err(HostError::Handshake { server: ctx.name.to_owned(), reason: format!("{e} (is the server running at {url}?)"), stderr_tail: Vec::new(), log: ctx.log_path }),
            Err(_) => return Err(HostError::Handshake { server: ctx.name.to_owned(), reason: format!("no answer from {url} within {} s", HANDSHAKE_TIMEOUT.as_secs()), stderr_tail: Vec::new(), log: ctx.log_path }),
        };
        Self::ready(ctx, service, client, None, stderr_tail).await
    }

    async fn ready(
        ctx: SpawnContext<'_>,
        service: RunningService<RoleClient, CanvasClient>,
        client: CanvasClient,
        child: Option<tokio::process::Child>,
        stderr_tail: Arc<Mutex<VecDeque<String>>>,
    ) -> Result<Self, HostError> {
        let peer = service.peer().clone();
        let call_timeout = ctx.entry.timeout().map_err(|reason| HostError::Config { path: ctx.config_path.to_owned(), reason: format!("server `{}`: {reason}", ctx.name) })?;
        let connection = Self {
            name: ctx.name.to_owned(),
            peer,
            tools: RwLock::default(),
            service: tokio::sync::Mutex::new(Some(service)),
            child: tokio::sync::Mutex::new(child),
            stderr_tail,
            log_path: ctx.log_path,
            client,
            call_timeout,
        };
        // Bounded: a server that never answers `tools/list` (or pages forever) must not hold the
        // connection slot, and every later call to it, forever.
        let limit = connection.call_timeout.unwrap_or(HANDSHAKE_TIMEOUT);
        let tools = match tokio::time::timeout(limit, connection.peer.list_all_tools()).await {
            Ok(listed) => listed.map_err(|e| connection.request_error("listing tools", e.to_string()))?,
            Err(_) => return Err(connection.request_error("listing tools", format!("no complete answer within {} s", limit.as_secs_f64()))),
        };
        *connection.tools.write().unwrap() = Arc::new(tools);
        Ok(connection)
    }

    /// The server's tools, listed again first when it said they changed.
    pub async fn tools(&self) -> Result<Arc<Vec<Tool>>, HostError> {
        if self.client.tools_stale.swap(false, Ordering::SeqCst) {
            let limit = self.call_timeout.unwrap_or(HANDSHAKE_TIMEOUT);
            let listed = tokio::time::timeout(limit, self.peer.list_all_tools()).await.unwrap_or_else(|_| Err(rmcp::ServiceError::Timeout { timeout: limit }));
            match listed {
                Ok(tools) => *self.tools.write().unwrap() = Arc::new(tools),
                Err(e) => {
                    self.client.tools_stale.store(true, Ordering::SeqCst);
                    return Err(self.request_error("listing tools again (the server said they changed)", e.to_string()));
                }
            }
        }
        Ok(self.tools.read().unwrap().clone())
    }

    pub fn request_error(&self, what: &str, reason: String) -> HostError {
        HostError::Request {
            server: self.name.clone(),
            what: what.to_owned(),
            reason,
            stderr_tail: self.stderr_tail.lock().unwrap().iter().cloned().collect(),
            log: self.log_path.clone(),
        }
    }

    /// Closes the session (stdin closes, as the MCP stdio shutdown asks), waits briefly for the
    /// server to exit, then kills it.
    pub async fn shutdown(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(Duration::from_secs(3)).await;
        }
        if let Some(mut child) = self.child.lock().await.take() {
            if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

/// Our side of one MCP session: the `rmcp::ClientHandler` the connection runs.
#[derive(Clone)]
pub(crate) struct CanvasClient {
    /// Answers elicitation requests (server→client requests and `input_required` rounds).
    pub elicitor: Elicitor,
    /// The calls in flight, which a server→client question may belong to.
    pub in_flight: Arc<InFlight>,
    /// Where each in-flight call's progress goes, by progress token.
    pub progress: Arc<ProgressRoutes>,
    /// Set by `notifications/tools/list_changed`.
    tools_stale: Arc<AtomicBool>,
    messages: Arc<ServerMessages>,
    /// The protocol version asked for in servers.json (`protocol_version`), if any.
    protocol: Option<ProtocolVersion>,
    changes: tokio::sync::broadcast::Sender<ServerChange>,
}

impl CanvasClient {
    fn new(ctx: &SpawnContext<'_>) -> Result<Self, HostError> {
        let protocol = ctx
            .entry
            .protocol_version()
            .map_err(|reason| HostError::Config { path: ctx.config_path.to_owned(), reason: format!("server `{}`: {reason}", ctx.name) })?
            .map(|v| serde_json::from_value::<ProtocolVersion>(Value::String(v.to_owned())).expect("a string is a protocol version"));
        Ok(Self {
            elicitor: Elicitor { server: ctx.name.to_owned(), handler: ctx.elicitation.clone() },
            in_flight: Arc::default(),
            progress: Arc::default(),
            tools_stale: Arc::default(),
            messages: ctx.messages.clone(),
            protocol,
            changes: ctx.changes.clone(),
        })
    }

    /// The MCP handshake: `initialize` as usual, or `server/discover` when the entry asks for a
    /// protocol version without `initialize` (2026-07-28, where elicitation arrives as
    /// `input_required` results instead of server→client requests).
    async fn connect<T, E, A>(self, transport: T) -> Result<RunningService<RoleClient, Self>, rmcp::service::ClientInitializeError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        match self.protocol.clone() {
            Some(version) if !version.has_initialize() => {
                self.serve_with_lifecycle(transport, ClientLifecycleMode::Discover { preferred_versions: vec![version] }).await
            }
            _ => self.serve(transport).await,
        }
    }
}

#[allow(deprecated)] // on_logging_message
impl ClientHandler for CanvasClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        let modes = self.elicitor.modes();
        if modes.form || modes.url {
            let mut elicitation = ElicitationCapability::new();
            if modes.form {
                // We check answers against the requestedSchema before sending them.
                elicitation = elicitation.with_form(FormElicitationCapability::new().with_schema_validation(true));
            }
            if modes.url {
                elicitation = elicitation.with_url(UrlElicitationCapability::new());
            }
            capabilities.elicitation = Some(elicitation);
        }
        let mut config = ClientConfig::new(capabilities, Implementation::new("mcp-canvas", env!("CARGO_PKG_VERSION")).with_title("MCP Canvas"));
        if let Some(version) = self.protocol.clone().filter(ProtocolVersion::has_initialize) {
            config.protocol_version = version;
        }
        config
    }

    async fn create_elicitation(&self, request: ElicitRequestParams, context: RequestContext<RoleClient>) -> Result<ElicitResult, ErrorData> {
        let calls = self.in_flight.asked();
        tokio::select! {
            answer = self.elicitor.answer(request, &calls) => Ok(answer),
            // The server gave up on its request (or on the call it belongs to).
            () = context.ct.cancelled() => Ok(ElicitResult::new(ElicitationAction::Cancel)),
        }
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.deliver(params);
    }

    async fn on_logging_message(&self, params: LoggingMessageNotificationParam, _context: NotificationContext<RoleClient>) {
        self.messages.record(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_stale.store(true, Ordering::SeqCst);
        self.announce(ChangedList::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.announce(ChangedList::Resources);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.announce(ChangedList::Prompts);
    }

    async fn on_custom_notification(&self, notification: CustomNotification, _context: NotificationContext<RoleClient>) {
        if notification.method == "notifications/elicitation/complete" {
            if let Some(id) = notification.params.as_ref().and_then(|p| p.get("elicitationId")).and_then(Value::as_str) {
                self.elicitor.completed(id);
            }
        }
    }
}

impl CanvasClient {
    fn announce(&self, list: ChangedList) {
        // No receiver is fine: nobody is listening (the CLI's one-shot commands).
        let _ = self.changes.send(ServerChange { server: self.elicitor.server.clone(), list });
    }
}

/// Which list a server said changed (on the wire: `tools`, `resources`, `prompts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ChangedList {
    /// `notifications/tools/list_changed` (the host re-lists them on next use).
    Tools,
    /// `notifications/resources/list_changed`.
    Resources,
    /// `notifications/prompts/list_changed`.
    Prompts,
}

/// A server said one of its lists changed (see [`crate::Host::changes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerChange {
    /// The server's configured name.
    pub server: String,
    /// Which list.
    pub list: ChangedList,
}

/// In-flight calls that want progress, by the progress token rmcp put on their request, with
/// the progress last passed on.
#[derive(Default)]
pub(crate) struct ProgressRoutes(Mutex<HashMap<ProgressToken, (ProgressFn, f64)>>);

/// Removes its route when dropped.
pub(crate) struct ProgressRoute {
    routes: Arc<ProgressRoutes>,
    token: ProgressToken,
}

impl ProgressRoutes {
    pub fn route(self: &Arc<Self>, token: ProgressToken, to: ProgressFn) -> ProgressRoute {
        self.0.lock().unwrap().insert(token.clone(), (to, f64::NEG_INFINITY));
        ProgressRoute { routes: self.clone(), token }
    }

    /// Passes a report on to its call. Notifications are handled concurrently, so one may
    /// overtake another; progress only ever grows (MCP requires it), so an older one is dropped.
    fn deliver(&self, params: ProgressNotificationParam) {
        let to = {
            let mut routes = self.0.lock().unwrap();
            let Some((to, last)) = routes.get_mut(&params.progress_token) else {
                tracing::debug!(token = ?params.progress_token, "progress for no call in flight");
                return;
            };
            if params.progress <= *last {
                return;
            }
            *last = params.progress;
            to.clone()
        };
        to(&CallProgress { progress: params.progress, total: params.total, message: params.message });
    }
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.routes.0.lock().unwrap().remove(&self.token);
    }
}

/// One `notifications/message` (MCP logging) from a server.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerMessage {
    /// When it arrived, milliseconds since the Unix epoch.
    pub time_ms: i64,
    /// `debug` … `emergency`.
    pub level: String,
    /// The server's logger name, when it gave one.
    pub logger: Option<String>,
    /// What it logged (any JSON; usually a string).
    pub data: Value,
}

/// A server's log messages: the last [`ServerMessages::KEEP`] in memory, all of them appended to
/// its log file (next to what it wrote on stderr).
#[derive(Debug)]
pub(crate) struct ServerMessages {
    recent: Mutex<VecDeque<ServerMessage>>,
    log_path: PathBuf,
}

impl ServerMessages {
    pub const KEEP: usize = 200;

    pub fn new(log_path: PathBuf) -> Self {
        Self { recent: Mutex::new(VecDeque::new()), log_path }
    }

    pub fn recent(&self) -> Vec<ServerMessage> {
        self.recent.lock().unwrap().iter().cloned().collect()
    }

    #[allow(deprecated)]
    fn record(&self, params: LoggingMessageNotificationParam) {
        let level = serde_json::to_value(params.level).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_else(|| "info".to_owned());
        let message = ServerMessage { time_ms: crate::host::Host::now_ms(), level, logger: params.logger, data: params.data };
        let text = match &message.data {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let logger = message.logger.as_deref().map(|l| format!(" {l}")).unwrap_or_default();
        let line = format!("[mcp {}{logger}] {text}\n", message.level);
        if let Some(parent) = self.log_path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(&self.log_path) {
            let _ = file.write_all(line.as_bytes());
        }
        let mut recent = self.recent.lock().unwrap();
        if recent.len() == Self::KEEP {
            recent.pop_front();
        }
        recent.push_back(message);
    }
}

/// Appends the server's stderr to its log file and keeps the last lines in memory.
async fn capture_stderr(stderr: tokio::process::ChildStderr, log_path: PathBuf, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut log = match log_path.parent().map(std::fs::create_dir_all) {
        Some(Ok(())) | None => tokio::fs::OpenOptions::new().create(true).append(true).open(&log_path).await.ok(),
        Some(Err(_)) => None,
    };
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(file) = log.as_mut() {
            let _ = file.write_all(format!("{line}\n").as_bytes()).await;
        }
        let mut tail = tail.lock().unwrap();
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

#[cfg(test)]
#[allow(deprecated)]
mod tests {
    use super::*;
    use rmcp::model::{LoggingLevel, NumberOrString};
    use serde_json::json;

    #[test]
    fn log_messages_are_kept_and_appended_to_the_server_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs").join("demo.log");
        let messages = ServerMessages::new(path.clone());
        messages.record(LoggingMessageNotificationParam::new(LoggingLevel::Warning, json!("disk almost full")).with_logger("storage"));
        messages.record(LoggingMessageNotificationParam::new(LoggingLevel::Info, json!({"step": 2})));
        let recent = messages.recent();
        assert_eq!(recent.len(), 2);
        assert_eq!((recent[0].level.as_str(), recent[0].logger.as_deref()), ("warning", Some("storage")));
        assert_eq!(recent[1].data, json!({"step": 2}));
        let log = std::fs::read_to_string(&path).unwrap();
        assert_eq!(log, "[mcp warning storage] disk almost full\n[mcp info] {\"step\":2}\n");
        for i in 0..ServerMessages::KEEP + 5 {
            messages.record(LoggingMessageNotificationParam::new(LoggingLevel::Debug, json!(i)));
        }
        assert_eq!(messages.recent().len(), ServerMessages::KEEP);
        assert_eq!(messages.recent().last().unwrap().data, json!(ServerMessages::KEEP + 4));
    }

    #[test]
    fn progress_reaches_only_its_call_and_stops_when_the_route_is_dropped() {
        let routes = Arc::new(ProgressRoutes::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let token = ProgressToken(NumberOrString::Number(7));
        let route = routes.route(token.clone(), Arc::new(move |p: &CallProgress| sink.lock().unwrap().push(p.clone())));
        routes.deliver(ProgressNotificationParam::new(token.clone(), 1.0).with_total(4.0).with_message("step 1"));
        routes.deliver(ProgressNotificationParam::new(ProgressToken(NumberOrString::Number(8)), 1.0));
        routes.deliver(ProgressNotificationParam::new(token.clone(), 0.5).with_message("overtaken"));
        drop(route);
        routes.deliver(ProgressNotificationParam::new(token, 2.0));
        let seen = seen.lock().unwrap();
        assert_eq!(*seen, vec![CallProgress { progress: 1.0, total: Some(4.0), message: Some("step 1".into()) }]);
    }
}
