//! One live connection to an MCP server through rmcp: a stdio child (its stdout/stdin through
//! [`crate::transport::stdio`], its stderr to its log) or Streamable HTTP; the handshake, the tool
//! list (re-listed after `tools/list_changed`), errors that quote the server's last stderr line,
//! and shutdown.

use std::{
    collections::VecDeque,
    io::Write as _,
    path::{Path, PathBuf},
    process::Stdio,
    sync::{atomic::Ordering, Arc, Mutex, RwLock},
    time::Duration,
};

use mcp_canvas_config::{servers::ServerEntry, ConfigError};
use rmcp::{
    model::{RequestId, Tool},
    service::{ClientLifecycleMode, RunningService},
    transport::{
        auth::AuthClient,
        streamable_http_client::{StreamableHttpClient, StreamableHttpClientTransportConfig},
        StreamableHttpClientTransport,
    },
    Peer, RoleClient,
};
use mcp_canvas_elicitation::ElicitationHandler;
use tokio::io::BufReader;

use crate::{
    error::{ClientError, RequestCause},
    handler::{retry_with_initialize, CanvasClient, ServerChange, ServerMessages},
    oauth,
    transport::{stderr::capture_stderr, stdio::LineTransport},
};

/// Largest single JSON-RPC message accepted from a server, unless its entry says otherwise.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;
/// How long the MCP handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// A live connection: the rmcp peer, our handler, the child process when there is one.
pub struct ServerConnection {
    /// The server's configured name.
    pub name: String,
    /// The rmcp peer requests go through.
    pub peer: Peer<RoleClient>,
    /// The tools as last listed; re-listed on next use after `notifications/tools/list_changed`.
    tools: RwLock<Arc<Vec<Tool>>>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, CanvasClient>>>,
    child: tokio::sync::Mutex<Option<tokio::process::Child>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// The stdio server's stderr reader, until it finished (the process closed stderr).
    stderr_done: Arc<tokio::sync::Mutex<Option<tokio::task::JoinHandle<()>>>>,
    /// The server's log file (stderr and MCP log messages).
    pub log_path: PathBuf,
    /// Our side of the session (elicitation, progress routes, notes, the stale-tools flag).
    pub client: CanvasClient,
    /// The entry's `timeout_seconds`, when it has one.
    pub call_timeout: Option<Duration>,
    /// An HTTP server's endpoint (none for stdio).
    pub url: Option<String>,
    /// The OAuth manager its transport carries (HTTP servers).
    auth: Option<Arc<tokio::sync::Mutex<rmcp::transport::auth::AuthorizationManager>>>,
    /// The `subscriptions/listen` stream for list changes (2026-07-28), while connected.
    listening: std::sync::Mutex<Option<Listening>>,
    /// Spilled runs of `tools/call` answers, for their calls to take (when the host spills).
    spilled: crate::transport::spill::SpillTable,
}

/// The background task reading a `subscriptions/listen` stream; ends with the connection.
struct Listening {
    task: tokio::task::JoinHandle<()>,
    /// Asks the task to cancel the subscription with the server (and end).
    stop: Arc<tokio::sync::Notify>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What starting or connecting to one server needs from the host.
pub struct SpawnContext<'a> {
    /// The server's configured name.
    pub name: &'a str,
    /// Its entry in servers.json.
    pub entry: &'a ServerEntry,
    /// servers.json itself (for error messages).
    pub config_path: &'a Path,
    /// Where its stderr and log messages go.
    pub log_path: PathBuf,
    /// Who answers the server's elicitation requests.
    pub elicitation: Arc<dyn ElicitationHandler>,
    /// Who answers the server's sampling requests.
    pub sampler: Arc<dyn mcp_canvas_sampling::SamplingService>,
    /// Where the server's log messages go (kept by the host across reconnects).
    pub messages: Arc<ServerMessages>,
    /// Where the server's `list_changed` notifications are announced.
    pub changes: tokio::sync::broadcast::Sender<ServerChange>,
    /// An HTTP server's sign-in record (its tokens go with every request; none for stdio).
    pub tokens: Option<oauth::TokenStore>,
    /// Takes long base64 runs out of a stdio server's messages while they are read (the host's
    /// store); none reads every message whole.
    pub spill: Option<Arc<mcp_canvas_store::ArtifactStore>>,
    /// Open a `subscriptions/listen` stream for list changes (2026-07-28 servers).
    pub list_changes: bool,
    /// Where every message to and from the server is recorded (kept by the host across
    /// reconnects; the protocol view and `--trace`).
    pub protocol: Arc<crate::trace::ProtocolLog>,
}

impl ServerConnection {
    /// Starts the server, completes the MCP handshake and lists its tools.
    pub async fn start(ctx: SpawnContext<'_>, program: PathBuf) -> Result<Self, ClientError> {
        let mut command = tokio::process::Command::new(&program);
        command.args(&ctx.entry.args).envs(&ctx.entry.env).kill_on_drop(true);
        // Its own process group: Ctrl-C in a terminal reaches us, and we cancel the call and
        // close the session properly, instead of the server dying mid-call.
        #[cfg(unix)]
        command.process_group(0);
        if let Some(cwd) = &ctx.entry.cwd {
            command.current_dir(cwd);
        }
        let spawn_error = |reason: String| ClientError::Spawn {
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
        let max_line = ctx.entry.max_message_bytes().map_err(|e| e.in_file(ctx.name, ctx.config_path))?;
        let complain_to = ctx.log_path.clone();
        let complain = Arc::new(move |line: &str| {
            tracing::warn!("{line}");
            let _ = std::fs::OpenOptions::new().create(true).append(true).open(&complain_to).and_then(|mut log| writeln!(log, "[mcp-canvas] {line}"));
        });
        let mut transport = LineTransport::new(BufReader::with_capacity(256 * 1024, stdout), stdin, max_line.unwrap_or(MAX_MESSAGE_BYTES), complain);
        let spilled = crate::transport::spill::SpillTable::default();
        if let Some(spill) = &ctx.spill {
            transport = transport.with_spill(spill.clone(), spilled.clone());
        }

        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = Arc::new(tokio::sync::Mutex::new(stderr.map(|stderr| tokio::spawn(capture_stderr(stderr, ctx.log_path.clone(), stderr_tail.clone())))));

        let client = CanvasClient::new(&ctx)?;
        let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, client.clone().connect(crate::transport::traced::Traced::new(transport, ctx.protocol.clone()), client.lifecycle())).await;
        let handshake_error = |reason: String| async {
            // Give the stderr reader a moment to drain what a crashing server printed.
            settle(&stderr_done).await;
            ClientError::Handshake {
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
        let mut connection = Self::ready(ctx, service, client, Some(child), stderr_tail, None).await?;
        connection.stderr_done = stderr_done;
        connection.spilled = spilled;
        Ok(connection)
    }

    /// Connects to a Streamable HTTP server (rmcp handles the session id, the standalone GET
    /// stream, `Last-Event-ID` resumption and the server's `retry` delay).
    pub async fn connect_http(ctx: SpawnContext<'_>, url: &str) -> Result<Self, ClientError> {
        let mut headers = std::collections::HashMap::new();
        for (name, value) in &ctx.entry.headers {
            let bad = |what: &str| ClientError::Config(ConfigError::File { path: ctx.config_path.to_owned(), reason: format!("server `{}`: header `{name}` has an invalid {what}", ctx.name) });
            headers.insert(http::HeaderName::try_from(name.as_str()).map_err(|_| bad("name"))?, http::HeaderValue::try_from(value.as_str()).map_err(|_| bad("value"))?);
        }
        let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
        // One limit for a message however it comes: an SSE event or a whole JSON body (rmcp's own
        // default for the latter is 16 MiB).
        let max_message = ctx.entry.max_message_bytes().map_err(|e| e.in_file(ctx.name, ctx.config_path))?.unwrap_or(MAX_MESSAGE_BYTES);
        config.max_sse_event_size = max_message;
        config.max_json_response_size = max_message;
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let client = CanvasClient::new(&ctx)?;
        let lifecycle = client.lifecycle();
        // Answers to `tools/call` read through the host's spill, as on stdio.
        let spilled = crate::transport::spill::SpillTable::default();
        let http = crate::transport::http_spill::SpillingHttp::new(crate::transport::http_spill::http_client(), ctx.spill.clone().map(|spill| (spill, spilled.clone())));
        let handshake = async {
            match &ctx.tokens {
                // Every request carries the stored token (refreshed when it expires); with none
                // stored, requests go out without one and a 401 says how to sign in.
                Some(store) => {
                    let settings = ctx.entry.oauth().map_err(|e| ClientError::Config(e.in_file(ctx.name, ctx.config_path)))?;
                    let manager = oauth::transport_manager(url, &settings, store).await.map_err(|reason| ClientError::SignIn { server: ctx.name.to_owned(), reason: reason.0 })?;
                    // With `oauth.dpop`, the token goes as DPoP with a proof on every request.
                    let key = oauth::dpop_key(&settings, store).await.map_err(|reason| ClientError::SignIn { server: ctx.name.to_owned(), reason: reason.0 })?;
                    let auth = AuthClient::new(crate::transport::dpop::DpopHttp::new(http.clone(), key), manager);
                    let managed = auth.auth_manager.clone();
                    Ok((http_handshake(&client, auth, config, lifecycle, &ctx.protocol).await, Some(managed)))
                }
                None => Ok((http_handshake(&client, http.clone(), config, lifecycle, &ctx.protocol).await, None)),
            }
        };
        let (service, auth) = match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await {
            Ok(Err(e)) => return Err(e),
            Ok(Ok((Ok(service), auth))) => (service, auth),
            Ok(Ok((Err(e), _))) => {
                if let Some(challenge) = e.auth_challenge() {
                    return Err(ClientError::SignInRequired { server: ctx.name.to_owned(), more_scope: oauth::wants_more_scope(url, challenge), challenge: challenge.to_owned() });
                }
                return Err(ClientError::Handshake { server: ctx.name.to_owned(), reason: format!("{e} (is the server running at {url}?)"), stderr_tail: Vec::new(), log: ctx.log_path });
            }
            Err(_) => return Err(ClientError::Handshake { server: ctx.name.to_owned(), reason: format!("no answer from {url} within {} s", HANDSHAKE_TIMEOUT.as_secs()), stderr_tail: Vec::new(), log: ctx.log_path }),
        };
        let mut connection = Self::ready(ctx, service, client, None, stderr_tail, Some(url.to_owned())).await?;
        connection.auth = auth;
        connection.spilled = spilled;
        Ok(connection)
    }

    /// On 2026-07-28 a server sends no notification it was not asked for: list changes come
    /// through a `subscriptions/listen` stream, opened here for the lists the server says change.
    fn listen_for_changes(&self) -> Option<Listening> {
        use rmcp::model::{ServerNotification, SubscriptionFilter};
        let info = self.peer.peer_info()?;
        if info.protocol_version.has_initialize() {
            return None;
        }
        let capabilities = &info.capabilities;
        let mut filter = SubscriptionFilter::builder();
        let mut lists = Vec::new();
        if capabilities.tools.as_ref().and_then(|c| c.list_changed) == Some(true) {
            filter = filter.tools_list_changed();
            lists.push("tools");
        }
        if capabilities.resources.as_ref().and_then(|c| c.list_changed) == Some(true) {
            filter = filter.resources_list_changed();
            lists.push("resources");
        }
        if capabilities.prompts.as_ref().and_then(|c| c.list_changed) == Some(true) {
            filter = filter.prompts_list_changed();
            lists.push("prompts");
        }
        if lists.is_empty() {
            return None;
        }
        let (peer, client, server, filter) = (self.peer.clone(), self.client.clone(), self.name.clone(), filter.build());
        let stop = Arc::new(tokio::sync::Notify::new());
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let listen = peer.listen(filter);
            tokio::pin!(listen);
            let (opened, stopping) = tokio::select! {
                opened = &mut listen => (opened, false),
                // Stopping while the stream opens: let it open (briefly) so it can be cancelled;
                // a request the server got but never hears the end of keeps some servers alive.
                () = stopped.notified() => match tokio::time::timeout(Duration::from_millis(500), &mut listen).await {
                    Ok(opened) => (opened, true),
                    Err(_) => return,
                },
            };
            let mut subscription = match opened {
                Ok(subscription) => subscription,
                Err(e) => {
                    if !stopping {
                        tracing::warn!(server, "cannot listen for changes of its {}: {e}", lists.join(", "));
                    }
                    return;
                }
            };
            if stopping {
                let _ = subscription.cancel_with_reason(Some("the client is disconnecting".to_owned())).await;
                return;
            }
            loop {
                let notification = tokio::select! {
                    next = subscription.next() => match next {
                        Ok(Some(notification)) => notification,
                        _ => return,
                    },
                    () = stopped.notified() => {
                        // Tell the server, so a server that waits for its open requests before
                        // exiting is not left waiting for this one.
                        let _ = subscription.cancel_with_reason(Some("the client is disconnecting".to_owned())).await;
                        return;
                    }
                };
                match notification {
                    ServerNotification::ToolListChangedNotification(_) => client.list_changed(crate::ChangedList::Tools),
                    ServerNotification::ResourceListChangedNotification(_) => client.list_changed(crate::ChangedList::Resources),
                    ServerNotification::PromptListChangedNotification(_) => client.list_changed(crate::ChangedList::Prompts),
                    _ => {}
                }
            }
        });
        Some(Listening { task, stop })
    }

    /// After a sign-in while connected: the transport's manager is made again from the new
    /// record (its client, metadata and secret), so the next refresh works; requests already read
    /// the new token from the record.
    pub async fn reload_sign_in(&self, settings: &mcp_canvas_config::servers::OAuthEntry, store: &oauth::TokenStore) -> Result<(), ClientError> {
        let (Some(auth), Some(url)) = (&self.auth, &self.url) else { return Ok(()) };
        let fresh = oauth::transport_manager(url, settings, store).await.map_err(|reason| ClientError::SignIn { server: self.name.clone(), reason: reason.0 })?;
        *auth.lock().await = fresh;
        Ok(())
    }

    /// Why the answer to request `id` could not be stored, when that is why it failed (the
    /// store's error, so the call's failure keeps its kind).
    pub fn take_spill_failure(&self, id: &RequestId) -> Option<mcp_canvas_store::StoreError> {
        self.spilled.take_failure(id)
    }

    /// The spilled runs of the answer to `tools/call` request `id` (when the host spills).
    pub fn take_spilled(&self, id: &RequestId) -> Option<mcp_canvas_store::spill::Spills> {
        self.spilled.take(id)
    }

    /// The `tools/call` request `id` ended without its answer: a late answer is not kept.
    pub fn forget_spilled(&self, id: &RequestId) {
        self.spilled.forget(id);
    }

    /// After an answer that was cut off or unreadable, or a connection that closed: a moment
    /// (at most 500 ms) for the stderr reader to take in what an exiting server printed, so the
    /// error quotes its last words also when the machine is busy.
    pub async fn settle_stderr(&self) {
        settle(&self.stderr_done).await;
    }

    /// [`Self::service_error`] once the server had a moment to say why: after an answer that could
    /// not be read or a closed connection, its last stderr lines are waited for
    /// ([`Self::settle_stderr`]), and when its process ended (or the transport closed) the cause
    /// is [`RequestCause::Lost`] — the window then offers a restart rather than a bug report.
    pub async fn failed_request(&self, what: &str, error: &rmcp::ServiceError) -> ClientError {
        let unsure = matches!(error, rmcp::ServiceError::McpError(e) if e.code == rmcp::model::ErrorCode::PARSE_ERROR)
            || matches!(error, rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_));
        // Settled first: the error quotes the stderr lines a dying server wrote.
        let lost = unsure && {
            let stderr_closed = settle(&self.stderr_done).await;
            self.process_ended(stderr_closed).await || self.peer.is_transport_closed()
        };
        let mut failed = self.service_error(what, error);
        if let ClientError::Request { cause, .. } = &mut failed {
            // A send that failed on a live connection (an HTTP error status) is not a lost server.
            if lost {
                *cause = RequestCause::Lost;
            } else if matches!(error, rmcp::ServiceError::TransportSend(_)) {
                *cause = RequestCause::Other;
            }
        }
        failed
    }

    /// Whether the stdio server's process has exited. A process that closed its stderr is
    /// exiting: it gets a moment (500 ms) to be reaped.
    async fn process_ended(&self, stderr_closed: bool) -> bool {
        let mut child = self.child.lock().await;
        let Some(child) = child.as_mut() else { return false };
        let deadline = tokio::time::Instant::now() + if stderr_closed { Duration::from_millis(500) } else { Duration::ZERO };
        loop {
            match child.try_wait() {
                Ok(Some(_)) => return true,
                Ok(None) if tokio::time::Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(10)).await,
                _ => return false,
            }
        }
    }

    /// The error of a request that failed: a 401/403 challenge becomes
    /// [`ClientError::SignInRequired`] (so the host can sign in and try again), anything else a
    /// [`ClientError::Request`] naming `what`.
    pub fn service_error(&self, what: &str, error: &rmcp::ServiceError) -> ClientError {
        match error.auth_challenge() {
            Some(challenge) => ClientError::SignInRequired { server: self.name.clone(), more_scope: self.url.as_deref().is_some_and(|url| oauth::wants_more_scope(url, challenge)), challenge: challenge.to_owned() },
            None => self.request_error_because(what, error.to_string(), RequestCause::of(error)),
        }
    }

    async fn ready(
        ctx: SpawnContext<'_>,
        service: RunningService<RoleClient, CanvasClient>,
        client: CanvasClient,
        child: Option<tokio::process::Child>,
        stderr_tail: Arc<Mutex<VecDeque<String>>>,
        url: Option<String>,
    ) -> Result<Self, ClientError> {
        let peer = service.peer().clone();
        let call_timeout = ctx.entry.timeout().map_err(|e| e.in_file(ctx.name, ctx.config_path))?;
        let list_changes = ctx.list_changes;
        let connection = Self {
            name: ctx.name.to_owned(),
            peer,
            tools: RwLock::default(),
            service: tokio::sync::Mutex::new(Some(service)),
            child: tokio::sync::Mutex::new(child),
            stderr_tail,
            stderr_done: Arc::default(),
            log_path: ctx.log_path,
            client,
            call_timeout,
            url,
            auth: None,
            listening: std::sync::Mutex::new(None),
            spilled: Default::default(),
        };
        // Bounded: a server that never answers `tools/list` (or pages forever) must not hold the
        // connection slot, and every later call to it, forever.
        let limit = connection.call_timeout.unwrap_or(HANDSHAKE_TIMEOUT);
        let tools = match tokio::time::timeout(limit, connection.peer.list_all_tools()).await {
            Ok(listed) => listed.map_err(|e| connection.service_error("listing tools", &e))?,
            Err(_) => return Err(connection.request_error("listing tools", format!("no complete answer within {} s", limit.as_secs_f64()))),
        };
        *connection.tools.write().unwrap() = Arc::new(tools);
        if list_changes {
            *connection.listening.lock().unwrap() = connection.listen_for_changes();
        }
        Ok(connection)
    }

    /// The server's tools, listed again first when it said they changed.
    pub async fn tools(&self) -> Result<Arc<Vec<Tool>>, ClientError> {
        if self.client.tools_stale.swap(false, Ordering::SeqCst) {
            let limit = self.call_timeout.unwrap_or(HANDSHAKE_TIMEOUT);
            let listed = tokio::time::timeout(limit, self.peer.list_all_tools()).await.unwrap_or_else(|_| Err(rmcp::ServiceError::Timeout { timeout: limit }));
            match listed {
                Ok(tools) => *self.tools.write().unwrap() = Arc::new(tools),
                Err(e) => {
                    self.client.tools_stale.store(true, Ordering::SeqCst);
                    return Err(self.service_error("listing tools again (the server said they changed)", &e));
                }
            }
        }
        Ok(self.tools.read().unwrap().clone())
    }

    /// A request error naming this server and what was asked, with its last stderr line.
    pub fn request_error(&self, what: &str, reason: String) -> ClientError {
        self.request_error_because(what, reason, RequestCause::Other)
    }

    /// [`Self::request_error`] with its cause: [`RequestCause::Lost`] for a connection that
    /// closed before the answer, the server's code for its JSON-RPC error.
    pub fn request_error_because(&self, what: &str, reason: String, cause: RequestCause) -> ClientError {
        ClientError::Request {
            server: self.name.clone(),
            what: what.to_owned(),
            reason,
            cause,
            stderr_tail: self.stderr_tail.lock().unwrap().iter().cloned().collect(),
            log: self.log_path.clone(),
        }
    }

    /// Closes the session (stdin closes, as the MCP stdio shutdown asks), waits briefly for the
    /// server to exit, then kills it.
    pub async fn shutdown(&self) {
        let listening = self.listening.lock().unwrap().take();
        if let Some(mut listening) = listening {
            // A stored permit: the task sees it whenever it next waits.
            listening.stop.notify_one();
            let _ = tokio::time::timeout(Duration::from_secs(1), &mut listening.task).await;
        }
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(Duration::from_secs(3)).await;
        }
        if let Some(mut child) = self.child.lock().await.take() {
            if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                let _ = child.kill().await;
                // Said in its log: a server that outlives its input is worth knowing about.
                use std::io::Write as _;
                let _ = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.log_path)
                    .and_then(|mut log| writeln!(log, "[mcp-canvas] the server did not exit within 2 s of its input closing; killed"));
            }
        }
    }
}


/// The handshake over Streamable HTTP through `http` (plain, or carrying the OAuth token): as
/// the lifecycle says, and once more with `initialize` (a new transport, a new session) when an
/// older server answered `server/discover` with a stray result.
async fn http_handshake<C>(
    client: &CanvasClient,
    http: C,
    config: StreamableHttpClientTransportConfig,
    lifecycle: ClientLifecycleMode,
    log: &Arc<crate::trace::ProtocolLog>,
) -> Result<RunningService<RoleClient, CanvasClient>, rmcp::service::ClientInitializeError>
where
    C: StreamableHttpClient + Clone + Send + Sync + 'static,
{
    use crate::transport::traced::Traced;
    let auto = matches!(lifecycle, ClientLifecycleMode::Auto { .. });
    match client.clone().connect(Traced::new(StreamableHttpClientTransport::with_client(http.clone(), config.clone()), log.clone()), lifecycle).await {
        Err(e) if auto && retry_with_initialize(&e) => {
            client.clone().connect(Traced::new(StreamableHttpClientTransport::with_client(http, config), log.clone()), ClientLifecycleMode::Initialize).await
        }
        other => other,
    }
}

/// Waits (at most 500 ms) for a stderr reader to finish; a finished one is forgotten.
/// Waits (at most 500 ms) for the stderr reader to finish; whether it has (or never ran).
async fn settle(reader: &tokio::sync::Mutex<Option<tokio::task::JoinHandle<()>>>) -> bool {
    let mut reader = reader.lock().await;
    if let Some(handle) = reader.as_mut() {
        if tokio::time::timeout(Duration::from_millis(500), handle).await.is_ok() {
            *reader = None;
        }
    }
    reader.is_none()
}
