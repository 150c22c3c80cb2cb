//! [`Host`]: the configured servers, their live connections, and the artifact store.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use mcp_canvas_contract::ExtractionConfig;
use mcp_canvas_sampling::{
    keys::{self, ApiKey},
    sampler::ExchangeRecord,
    Approver, PolicyMode, Sampler, SamplingService, SamplingSettings, Transcript,
};
use mcp_canvas_store::ArtifactStore;
use mcp_canvas_config::ConfigError;
use mcp_canvas_client::{ServerChange, ServerConnection, ServerMessage, ServerMessages, SpawnContext};
use serde_json::Value;

use crate::{error::HostError, file_server::FileServer, housekeeping::Housekeeping, ids, pipeline::{CallControl, CallDetail, CallEnv, CallOptions, Ingest}, sampling::{NobodyToAsk, StoreTranscript}};
use mcp_canvas_config::{data_dir::DataPaths, servers::{Endpoint, ServersConfig}, settings::Settings};
use mcp_canvas_ingest::probe::{ArtifactProbe, ImageHeaderProbe, PdfPageProbe};
use mcp_canvas_client::health::{Health, ServerStatus};
use mcp_canvas_elicitation::{DeclineElicitation, ElicitationHandler};
use mcp_canvas_wire::{CallOutcome, ServerView, ToolView};

type ConnectionSlot = tokio::sync::Mutex<Option<Arc<ServerConnection>>>;

/// Settings a front end chooses.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// The data directory (already resolved, see [`mcp_canvas_config::data_dir::resolve`]).
    pub data_dir: PathBuf,
    /// How long a tool call may take.
    pub call_timeout: Duration,
    /// The session artifacts are linked to; `None` starts a fresh one (the app does, per run).
    pub session: Option<String>,
}

/// The host. Cheap to share behind an `Arc`; all methods take `&self`.
pub struct Host {
    paths: DataPaths,
    /// Replaced as a whole when the user changes a server's settings ([`Host::set_server_timeout`]).
    config: std::sync::RwLock<Arc<ServersConfig>>,
    extraction: Arc<ExtractionConfig>,
    /// Replaced as a whole when the user changes a setting ([`Host::set_setting`]).
    settings: Arc<std::sync::RwLock<Arc<Settings>>>,
    probes: Arc<Vec<Box<dyn ArtifactProbe>>>,
    store: Arc<ArtifactStore>,
    pub(crate) housekeeping: Housekeeping,
    /// Calls' audit rows written after the answer (see [`Host::with_audit_after_answer`]).
    audit_rows: Option<crate::housekeeping::AuditRows>,
    /// Connections listen for the servers' list changes (see [`Host::without_list_changes`]).
    list_changes: bool,
    /// One slot per server, so connecting to a slow server never blocks calls to the others.
    connections: std::sync::Mutex<HashMap<String, Arc<ConnectionSlot>>>,
    session_id: String,
    pub(crate) call_timeout: Duration,
    file_server: tokio::sync::OnceCell<FileServer>,
    /// Answers servers' elicitation requests (default: declines, advertising nothing).
    elicitation: Arc<dyn ElicitationHandler>,
    /// Answers servers' sampling requests (default: asks nobody, so only policy `always` answers).
    sampler: Arc<Sampler>,
    /// Who connections hand sampling requests to: the sampler, unless a front end routes them
    /// elsewhere (the proxy: to the AI host first).
    sampling_service: Option<Arc<dyn SamplingService>>,
    /// Each server's log messages, kept across reconnects.
    server_messages: std::sync::Mutex<HashMap<String, Arc<ServerMessages>>>,
    /// Servers' `list_changed` notifications, for front ends that follow them.
    changes: tokio::sync::broadcast::Sender<ServerChange>,
    /// Each server's failures and backoff, kept across reconnects.
    health: std::sync::Mutex<HashMap<String, Health>>,
    /// MCP App views read per connection.
    pub(crate) views: crate::apps::ViewCache,
    /// Who shows sign-in pages, when, and which servers asked for one.
    pub(crate) sign_ins: crate::signin::SignIns,
    /// Each server's protocol log and the trace file (see `protocol.rs`).
    pub(crate) protocol: crate::protocol::ProtocolLogs,
    /// The search indexer (started by [`Host::start_search_indexer`]).
    pub(crate) search: Arc<crate::search::Search>,
}

impl Host {
    /// Opens the data dir: creates it, the server config (first run: the demo server) and the
    /// artifact store. Connects to nothing yet.
    pub fn open(options: HostOptions) -> Result<Self, HostError> {
        std::fs::create_dir_all(&options.data_dir)
            .map_err(|e| HostError::DataDir(format!("cannot create {}: {e}", options.data_dir.display())))?;
        let paths = DataPaths::new(options.data_dir);
        let config = ServersConfig::load_or_create(&paths.servers_config())?;
        let extraction = load_extraction_rules(&paths.extraction_rules())?;
        let settings = Settings::load(&paths.settings())?;
        let store = Arc::new(
            ArtifactStore::open(&paths.root)
                .map_err(|e| HostError::DataDir(format!("cannot open the artifact store in {}: {e}", paths.root.display())))?,
        );
        let sampler = Arc::new(Sampler::new(settings.sampling.clone(), Arc::new(NobodyToAsk), Arc::new(StoreTranscript(store.clone()))));
        let team = match settings.store.backend {
            mcp_canvas_config::settings::StoreBackend::Team => {
                let team = mcp_canvas_team::TeamStore::new(&settings.store, &settings.identity.username, store.clone())?;
                Some(Arc::new(crate::team_sync::TeamSync::new(Arc::new(team))))
            }
            mcp_canvas_config::settings::StoreBackend::Local => None,
        };
        let settings = Arc::new(std::sync::RwLock::new(Arc::new(settings)));
        let mut housekeeping = Housekeeping::new(store.clone(), settings.clone());
        if let Some(team) = &team {
            housekeeping = housekeeping.with_team(team.clone());
        }
        Ok(Self {
            paths,
            config: std::sync::RwLock::new(Arc::new(config)),
            extraction: Arc::new(extraction),
            housekeeping,
            audit_rows: None,
            list_changes: true,
            settings,
            probes: Arc::new(vec![Box::new(ImageHeaderProbe), Box::new(PdfPageProbe)]),
            store,
            connections: std::sync::Mutex::new(HashMap::new()),
            session_id: options.session.unwrap_or_else(|| ids::fresh("session")),
            call_timeout: options.call_timeout,
            file_server: tokio::sync::OnceCell::new(),
            elicitation: Arc::new(DeclineElicitation::default()),
            sampler,
            sampling_service: None,
            server_messages: std::sync::Mutex::new(HashMap::new()),
            changes: tokio::sync::broadcast::channel(64).0,
            health: std::sync::Mutex::new(HashMap::new()),
            views: Default::default(),
            sign_ins: Default::default(),
            protocol: Default::default(),
            search: Default::default(),
        })
    }

    /// Indexes stored artifacts for full-text search in the background, from now on (the app and
    /// the proxy; a one-shot CLI command indexes what it needs when it searches).
    pub fn start_search_indexer(&self) {
        self.search.start(&self.paths.root);
        self.housekeeping.set_search(self.search.clone());
    }

    /// Full-text search over stored artifacts, with snippets (see [`crate::search`]).
    pub fn search(&self, query: &mcp_canvas_store::SearchQuery) -> Result<mcp_canvas_store::SearchResults, HostError> {
        crate::search::search(&self.store, query).map_err(|source| HostError::Storage { context: "searching the artifacts".into(), source })
    }

    /// The data directory in use.
    pub fn data_dir(&self) -> &Path {
        &self.paths.root
    }

    /// The artifact store, for serving artifacts to the window.
    pub fn store(&self) -> &Arc<ArtifactStore> {
        &self.store
    }

    /// The local store's limits in effect: `[artifacts]`, with a team store's cache quota.
    pub fn local_limits(&self) -> mcp_canvas_store::Limits {
        crate::housekeeping::limits(&self.settings())
    }

    /// The user's settings (`settings.toml`) as they are now.
    pub fn settings(&self) -> Arc<Settings> {
        self.settings.read().unwrap().clone()
    }

    /// Changes one setting in `settings.toml` (see [`mcp_canvas_config::settings_edit::set`]; `None` restores
    /// its default) and uses the result from now on.
    pub fn set_setting(&self, key: &str, value: Option<&str>) -> Result<Arc<Settings>, HostError> {
        let settings = Arc::new(mcp_canvas_config::settings_edit::set(&self.paths.settings(), key, value)?);
        self.sampler.set_settings(settings.sampling.clone());
        *self.settings.write().unwrap() = settings.clone();
        Ok(settings)
    }

    /// Replaces `[sampling]` in `settings.toml` (see [`mcp_canvas_config::settings_edit::set_sampling`]) and
    /// uses it from the next request on.
    pub fn set_sampling(&self, sampling: &SamplingSettings) -> Result<Arc<Settings>, HostError> {
        let settings = Arc::new(mcp_canvas_config::settings_edit::set_sampling(&self.paths.settings(), sampling)?);
        self.sampler.set_settings(settings.sampling.clone());
        *self.settings.write().unwrap() = settings.clone();
        Ok(settings)
    }

    /// Replaces `[store]` in `settings.toml` (see [`mcp_canvas_config::settings_edit::set_store`]); the
    /// store in use changes at the next start.
    pub fn set_store(&self, store: &mcp_canvas_config::settings::StoreSettings) -> Result<Arc<Settings>, HostError> {
        let settings = Arc::new(mcp_canvas_config::settings_edit::set_store(&self.paths.settings(), store)?);
        *self.settings.write().unwrap() = settings.clone();
        Ok(settings)
    }

    /// Stores `provider`'s API key in the OS keyring (`None` deletes it) and marks the provider
    /// as taking its key from there (no environment variable). The key goes nowhere else.
    pub fn set_provider_key(&self, provider: &str, key: Option<ApiKey>) -> Result<Arc<Settings>, HostError> {
        let mut sampling = self.settings().sampling.clone();
        let configured: Vec<String> = sampling.providers.iter().map(|p| p.name.clone()).collect();
        let Some(config) = sampling.providers.iter_mut().find(|p| p.name == provider) else {
            return Err(HostError::UnknownProvider { name: provider.to_owned(), configured });
        };
        match &key {
            Some(key) => keys::store_keyring(provider, key)?,
            None => keys::delete_keyring(provider)?,
        }
        config.api_key_keyring = key.is_some();
        if key.is_some() {
            config.api_key_env = None;
        }
        self.set_sampling(&sampling)
    }

    /// Reads `settings.toml` again (after the allowlist or another process changed it).
    pub fn reload_settings(&self) -> Result<Arc<Settings>, HostError> {
        let settings = Arc::new(Settings::load(&self.paths.settings())?);
        self.sampler.set_settings(settings.sampling.clone());
        *self.settings.write().unwrap() = settings.clone();
        Ok(settings)
    }

    /// Housekeeping: clears sessions idle longer than the retention, applies the quota and age
    /// limit, and removes orphaned blobs and abandoned temp files. The app runs this at start.
    pub fn tidy_store(&self) -> Result<(), HostError> {
        let now = Self::now_ms();
        let settings = self.settings();
        let limits = &settings.artifacts;
        let cutoff = now - i64::from(limits.session_retention_days) * 86_400_000;
        let store_error = |source| HostError::Storage { context: "tidying the artifact store".into(), source };
        self.store.clear_sessions_before(cutoff, &self.session_id).map_err(store_error)?;
        self.store.enforce(&crate::housekeeping::limits(&settings), now).map_err(store_error)?;
        self.store.gc().map_err(store_error)?;
        Ok(())
    }

    /// The extraction settings and per-tool rules (`extraction.toml` in the data dir).
    pub fn extraction(&self) -> &ExtractionConfig {
        &self.extraction
    }

    /// The loopback file server for capability URLs, started on first use.
    pub async fn file_server(&self) -> Result<&FileServer, HostError> {
        self.file_server
            .get_or_try_init(|| FileServer::start(self.store.clone()))
            .await
            .map_err(|e| HostError::DataDir(format!("cannot start the loopback file server: {e}")))
    }

    /// Writes each call's audit row after the call answered instead of before (on a blocking
    /// thread, in order; [`Host::shutdown`] waits for them): for the proxy, where an AI host
    /// waits for every answer. A row can then be missing if the process is killed within
    /// milliseconds of an answer.
    pub fn with_audit_after_answer(mut self) -> Self {
        self.audit_rows = Some(crate::housekeeping::AuditRows::new(self.housekeeping.team().cloned()));
        self
    }

    /// Connections do not open a `subscriptions/listen` stream for list changes (2026-07-28):
    /// for a front end that does one thing and exits (the CLI's one-shot commands), so no
    /// request is still open with the server when it shuts down.
    pub fn without_list_changes(mut self) -> Self {
        self.list_changes = false;
        self
    }

    /// Adds a probe consulted before the built-in ones (the render crate's PDF probe, say).
    pub fn with_probe(mut self, probe: Box<dyn ArtifactProbe>) -> Self {
        // Shared only once the host runs calls; before that this is the only reference.
        Arc::get_mut(&mut self.probes).expect("probes are added before the host runs calls").insert(0, probe);
        self
    }

    /// Installs who answers servers' elicitation requests (forms, URLs to open). The modes it
    /// answers are advertised to servers connected from now on. Without one, nothing is
    /// advertised and anything a server asks anyway is declined with a reason.
    pub fn with_elicitation(mut self, handler: Arc<dyn ElicitationHandler>) -> Self {
        self.elicitation = handler;
        self
    }

    /// Installs who approves servers' sampling requests (the window's dialog, a terminal prompt),
    /// and optionally one policy for every server (the CLI's `--sampling`). Without one, requests
    /// under policy `ask` are refused with the reason.
    pub fn with_sampling(mut self, approver: Arc<dyn Approver>, mode: Option<PolicyMode>) -> Self {
        let settings = self.settings().sampling.clone();
        self.sampler = Arc::new(Sampler::new(settings, approver, Arc::new(StoreTranscript(self.store.clone()))).with_mode(mode));
        self
    }

    /// No front end can ask the user (the CLI with no terminal): servers whose policy is `ask`
    /// are not offered sampling (as under `never`); `always` still answers. `mode` overrides
    /// settings for every server as in [`Host::with_sampling`].
    pub fn with_unattended_sampling(mut self, mode: Option<PolicyMode>) -> Self {
        let settings = self.settings().sampling.clone();
        self.sampler = Arc::new(Sampler::new(settings, Arc::new(NobodyToAsk), Arc::new(StoreTranscript(self.store.clone()))).with_mode(mode).unattended());
        self
    }

    /// Hands connections' sampling requests to `service` instead of the sampler (the proxy routes
    /// them to the AI host, else the app, and uses [`Host::sampler`] for neither).
    pub fn with_sampling_service(mut self, service: Arc<dyn SamplingService>) -> Self {
        self.sampling_service = Some(service);
        self
    }

    /// The sampler (tests and front ends that show what it would do).
    pub fn sampler(&self) -> &Arc<Sampler> {
        &self.sampler
    }

    /// Where sampling exchanges are kept (the store's catalog, which [`Host::sampling_log`]
    /// reads), for exchanges answered outside the sampler (the proxy's, answered by the AI host).
    pub fn sampling_transcript(&self) -> Arc<dyn Transcript> {
        Arc::new(StoreTranscript(self.store.clone()))
    }

    /// `server`'s sampling exchanges (every server's with `None`), newest first.
    pub fn sampling_log(&self, server: Option<&str>, limit: u32) -> Result<Vec<ExchangeRecord>, HostError> {
        let rows = self.store.sampling_log(server, limit).map_err(|source| HostError::Store { server: server.unwrap_or("-").into(), tool: "-".into(), source })?;
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                let mut record: ExchangeRecord = serde_json::from_str(&row.record).map_err(|e| tracing::warn!(id = row.id, "unreadable sampling record: {e}")).ok()?;
                record.id = Some(row.id);
                Some(record)
            })
            .collect())
    }

    /// The log messages (`notifications/message`) `server` sent most recently, oldest first;
    /// all of them are also in its log file.
    pub fn server_messages(&self, server: &str) -> Vec<ServerMessage> {
        self.server_messages.lock().unwrap().get(server).map(|m| m.recent()).unwrap_or_default()
    }

    /// Announcements that a server's tools, resources or prompts changed
    /// (`notifications/*/list_changed`), from every server connected from now on.
    pub fn changes(&self) -> tokio::sync::broadcast::Receiver<ServerChange> {
        self.changes.subscribe()
    }

    /// What the pipeline needs to store a result (no more of the host than that).
    pub(crate) fn ingest(&self) -> Ingest {
        Ingest { store: self.store.clone(), probes: self.probes.clone(), extraction: self.extraction.clone(), session_id: self.session_id.as_str().into() }
    }

    /// [`Ingest::store_and_finish`] on a blocking thread (decoding, hashing, fsync and probes
    /// block), then the quota applied in the background.
    pub(crate) async fn store_result(&self, server: &str, tool: &str, raw: Value, output_schema: Option<Value>, call_id: &str) -> Result<mcp_canvas_contract::ToolOutcome, HostError> {
        Ok(self.ingest().store(server, tool, raw, None, output_schema, call_id, || self.housekeeping.after_store()).await?)
    }

    /// Normalizes a raw `CallToolResult` that did not come through a connection (read from a
    /// file by `mcp-canvas-cli normalize`): the same normalize → store → summarize path as a call.
    pub fn normalize_raw(&self, server: &str, tool: &str, raw: Value) -> Result<CallOutcome, HostError> {
        let call_id = ids::fresh("call");
        let outcome = self.ingest().store_and_finish(server, tool, raw, None, &call_id)?;
        if !outcome.artifacts.is_empty() {
            self.housekeeping.after_store();
        }
        Ok(CallOutcome { call_id, server: server.to_owned(), tool: tool.to_owned(), outcome })
    }

    /// [`Self::normalize_raw`] for a result read from `reader` (named `label` in errors): long
    /// base64 runs are decoded, hashed and written into the store while they are read, so the
    /// message is never held whole and each of their bytes is touched once (see `mcp_canvas_ingest::spill`).
    pub fn normalize_reader(&self, server: &str, tool: &str, reader: impl std::io::Read, label: &str) -> Result<CallOutcome, HostError> {
        let call_id = ids::fresh("call");
        let outcome = self.ingest().read_and_store(server, tool, reader, label, &call_id)?;
        if !outcome.artifacts.is_empty() {
            self.housekeeping.after_store();
        }
        Ok(CallOutcome { call_id, server: server.to_owned(), tool: tool.to_owned(), outcome })
    }

    /// This run's session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// `server`'s entry in servers.json as configured now.
    pub fn server_entry(&self, server: &str) -> Option<mcp_canvas_config::servers::ServerEntry> {
        self.config().servers.get(server).cloned()
    }

    pub(crate) fn config(&self) -> Arc<ServersConfig> {
        self.config.read().unwrap().clone()
    }

    /// The configured servers, each HTTP one with its sign-in state (its record read on the
    /// blocking pool).
    pub async fn servers(&self) -> Result<Vec<ServerView>, HostError> {
        let mut views: Vec<ServerView> = self
            .config()
            .servers
            .iter()
            .map(|(name, entry)| {
                let (transport, problem) = match entry.endpoint() {
                    Ok(Endpoint::Stdio { .. }) => ("stdio", None),
                    Ok(Endpoint::Http { .. }) => ("http", None),
                    Err(problem) => ("invalid", Some(problem.0)),
                };
                let timeout_seconds = entry.timeout().ok().flatten().map(|t| t.as_secs_f64());
                ServerView { name: name.clone(), transport: transport.into(), target: entry.target(), problem, timeout_seconds, sign_in: None }
            })
            .collect();
        // Each HTTP server's sign-in record (the OS keyring: D-Bus), off the async worker.
        let names: Vec<String> = views.iter().map(|v| v.name.clone()).collect();
        for (view, sign_in) in views.iter_mut().zip(self.sign_in_views(&names).await?) {
            view.sign_in = sign_in;
        }
        Ok(views)
    }

    /// The names of the configured servers (nothing read beyond servers.json as loaded).
    pub fn server_names(&self) -> Vec<String> {
        self.config().servers.keys().cloned().collect()
    }

    /// The tools of `server`, connecting to it first if needed.
    pub async fn tools(&self, server: &str) -> Result<Vec<ToolView>, HostError> {
        let connection = self.connection(server).await?;
        Ok(connection.tools().await?.iter().map(tool_view).collect())
    }

    /// The tools of `server` exactly as it lists them (names, titles, schemas, annotations,
    /// `_meta`), for front ends that pass them on (the proxy).
    pub async fn tool_definitions(&self, server: &str) -> Result<Arc<Vec<rmcp::model::Tool>>, HostError> {
        Ok(self.connection(server).await?.tools().await?)
    }

    /// Calls `tool` on `server` with `arguments` and returns the stored, summarized outcome.
    /// Tools that may change or delete data are refused unless confirmed (see [`Self::call_tool_with`]).
    pub async fn call_tool(&self, server: &str, tool: &str, arguments: Value) -> Result<CallOutcome, HostError> {
        self.call_tool_with(server, tool, arguments, CallOptions::default()).await
    }

    /// [`Self::call_tool`] with options (the user's confirmation).
    pub async fn call_tool_with(&self, server: &str, tool: &str, arguments: Value, options: CallOptions) -> Result<CallOutcome, HostError> {
        self.call_tool_controlled(server, tool, arguments, options, CallControl::default()).await
    }

    /// [`Self::call_tool_with`], with live controls: progress reports, cancellation, and a
    /// timeout that overrides the default and the server's `timeout_seconds`.
    pub async fn call_tool_controlled(&self, server: &str, tool: &str, arguments: Value, options: CallOptions, control: CallControl) -> Result<CallOutcome, HostError> {
        self.call_detailed(server, tool, arguments, options, control, false).await.map(|detail| detail.call)
    }

    /// [`Self::call_tool_controlled`], also returning the result's `structuredContent` as the
    /// server sent it (for front ends that pass it on: the proxy).
    pub async fn call_tool_detailed(&self, server: &str, tool: &str, arguments: Value, options: CallOptions, control: CallControl) -> Result<CallDetail, HostError> {
        self.call_detailed(server, tool, arguments, options, control, true).await
    }

    /// `wants_structured`: the caller reads [`CallDetail::structured_content`] (else it may be
    /// left out when putting it together would cost memory; see `mcp_canvas_ingest::spill`).
    async fn call_detailed(&self, server: &str, tool: &str, arguments: Value, options: CallOptions, control: CallControl, wants_structured: bool) -> Result<CallDetail, HostError> {
        let started_ms = Self::now_ms();
        let connection = match self.connection(server).await {
            Ok(connection) => connection,
            Err(error) => {
                // A call that never reached its server is audited too.
                let record = mcp_canvas_store::AuditRecord {
                    call_id: control.call_id.clone().unwrap_or_else(Self::fresh_call_id),
                    session_id: self.session_id.clone(),
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    arguments: crate::audit::redact(&arguments),
                    identity: None,
                    started_ms,
                    duration_ms: Self::now_ms() - started_ms,
                    outcome: "not_connected".into(),
                    detail: Some(error.to_string()),
                    artifact_ids: Vec::new(),
                    result_text: None,
                };
                crate::audit::write(self.store.clone(), record).await;
                return Err(error);
            }
        };
        let call_id = control.call_id.clone().unwrap_or_else(Self::fresh_call_id);
        let result = crate::pipeline::call(self.call_env(server), &connection, tool, arguments.clone(), options, control.clone(), call_id, wants_structured).await;
        let Err(error) = &result else { return result };
        if let HostError::Server(e) = error {
            self.note_sign_in(server, Some(e));
        }
        // A signed-in server that wants more scope (or a new sign-in) mid-session: when the front
        // end allows it, sign in once (the step-up) and make the call once more. The connection
        // stays: its transport reads the stored token for every request.
        // Not for an App's own calls: a server's view must not open sign-in pages by itself.
        if options.from_app {
            return result;
        }
        let Some(challenge) = self.automatic_sign_in(error, true).map(str::to_owned) else { return result };
        self.sign_in_with(server, Some(&challenge)).await?;
        self.reload_sign_in(server, &connection).await?;
        let call_id = control.call_id.clone().unwrap_or_else(Self::fresh_call_id);
        crate::pipeline::call(self.call_env(server), &connection, tool, arguments, options, control, call_id, wants_structured).await
    }

    /// What a call on `server` needs from the host, taken as it starts.
    fn call_env(&self, server: &str) -> CallEnv<'_> {
        CallEnv {
            settings: self.settings(),
            ingest: self.ingest(),
            // The server's timeout as configured now (the user may have changed it since it started).
            timeout: self.server_timeout(server).unwrap_or(self.call_timeout),
            files: &self.file_server,
            housekeeping: &self.housekeeping,
            audit_rows: self.audit_rows.as_ref(),
        }
    }

    /// A new call id (`call-<random>`), for a caller that names its call before it starts.
    pub fn fresh_call_id() -> String {
        ids::fresh("call")
    }

    /// Parses `text` as tool arguments (a JSON object), with an error naming the tool.
    pub fn parse_arguments(server: &str, tool: &str, text: &str) -> Result<Value, HostError> {
        let invalid = |reason: String| HostError::InvalidArguments { server: server.to_owned(), tool: tool.to_owned(), reason };
        let value: Value = serde_json::from_str(text).map_err(|e| invalid(format!("are not valid JSON ({e})")))?;
        if !value.is_object() {
            return Err(invalid("must be a JSON object".to_owned()));
        }
        Ok(value)
    }

    /// Closes every connection (their child processes are stopped) and finishes pending
    /// housekeeping. Returns a note for the user when artifacts stay queued for the team store
    /// (its bucket or catalog refused or is away): a one-shot command prints it.
    pub async fn shutdown(&self) -> Option<String> {
        // The rows first: with a team store, the drain that housekeeping waits for sends them.
        if let Some(rows) = &self.audit_rows {
            rows.flush().await;
        }
        let note = self.housekeeping.flush().await;
        let slots: Vec<_> = self.connections.lock().unwrap().drain().map(|(_, slot)| slot).collect();
        for slot in slots {
            if let Some(connection) = slot.lock().await.take() {
                connection.shutdown().await;
            }
        }
        // Calls that ended as their connections closed.
        if let Some(rows) = &self.audit_rows {
            rows.flush().await;
        }
        note
    }

    /// Where each configured server stands (running, exited, failed, not started yet), with
    /// its failures in a row and the wait before its next start.
    pub async fn server_statuses(&self) -> Vec<ServerStatus> {
        let mut statuses = Vec::new();
        for name in self.config().servers.keys() {
            let slot = self.connections.lock().unwrap().get(name).cloned();
            let live = match slot {
                // A slot being connected right now is reported as not started yet.
                Some(slot) => match slot.try_lock() {
                    Ok(guard) => guard.as_ref().map(|c| !c.peer.is_transport_closed()),
                    Err(_) => None,
                },
                None => None,
            };
            let log = self.paths.server_log(name).display().to_string();
            let health = self.health.lock().unwrap();
            let status = health.get(name).map(|h| h.status(name, live, log.clone(), std::time::Instant::now()));
            statuses.push(status.unwrap_or_else(|| Health::default().status(name, live, log, std::time::Instant::now())));
        }
        statuses
    }

    /// Stops `server` now (stdin closed, then killed); the next use starts it again.
    pub async fn stop(&self, server: &str) {
        let slot = self.connections.lock().unwrap().get(server).cloned();
        if let Some(slot) = slot {
            if let Some(connection) = slot.lock().await.take() {
                connection.shutdown().await;
            }
        }
        self.health.lock().unwrap().entry(server.to_owned()).or_default().stopped();
    }

    /// Sets (or, with `None`, removes) `server`'s `timeout_seconds` in servers.json. Calls sent
    /// from now on use it.
    pub fn set_server_timeout(&self, server: &str, seconds: Option<f64>) -> Result<(), HostError> {
        let path = self.paths.servers_config();
        let mut config = ServersConfig::load_or_create(&path)?;
        let entry = config.servers.get_mut(server).ok_or_else(|| HostError::UnknownServer {
            name: server.to_owned(),
            configured: self.config().servers.keys().cloned().collect(),
            config: path.clone(),
        })?;
        match seconds {
            Some(seconds) => entry.other.insert("timeout_seconds".into(), serde_json::json!(seconds)),
            None => entry.other.remove("timeout_seconds"),
        };
        entry.timeout().map_err(|e| e.in_file(server, &path))?;
        config.save(&path)?;
        *self.config.write().unwrap() = Arc::new(config);
        Ok(())
    }

    /// `server`'s own call timeout (`timeout_seconds`) as configured now.
    pub(crate) fn server_timeout(&self, server: &str) -> Option<Duration> {
        self.config().servers.get(server).and_then(|entry| entry.timeout().ok().flatten())
    }

    /// Stops `server` (when it runs) and starts it again at once, forgetting earlier failures.
    pub async fn restart(&self, server: &str) -> Result<(), HostError> {
        let slot = self.connections.lock().unwrap().get(server).cloned();
        if let Some(slot) = slot {
            if let Some(connection) = slot.lock().await.take() {
                connection.shutdown().await;
            }
        }
        self.health.lock().unwrap().entry(server.to_owned()).or_default().reset();
        self.connection(server).await.map(|_| ())
    }

    /// The end of `server`'s log file (its stderr and MCP log messages), at most `max_bytes`,
    /// starting at a line boundary; empty when it has none yet.
    pub fn server_log_tail(&self, server: &str, max_bytes: u64) -> Result<String, HostError> {
        use std::io::{Read as _, Seek as _};
        let path = self.paths.server_log(server);
        let mut file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
            Err(e) => return Err(HostError::DataDir(format!("cannot read {}: {e}", path.display()))),
        };
        let length = file.metadata().map(|m| m.len()).unwrap_or(0);
        let start = length.saturating_sub(max_bytes);
        file.seek(std::io::SeekFrom::Start(start)).map_err(|e| HostError::DataDir(format!("cannot read {}: {e}", path.display())))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| HostError::DataDir(format!("cannot read {}: {e}", path.display())))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Ok(match (start > 0, text.find('\n')) {
            (true, Some(newline)) => text[newline + 1..].to_owned(),
            _ => text,
        })
    }

    /// The live connection to `server`, started on first use and restarted when its transport
    /// has closed (the server exited or crashed) — at once the first time, then after a growing
    /// wait while it keeps failing (see [`mcp_canvas_client::health`]).
    pub(crate) async fn connection(&self, server: &str) -> Result<Arc<ServerConnection>, HostError> {
        let slot = self.connections.lock().unwrap().entry(server.to_owned()).or_default().clone();
        let mut slot = slot.lock().await;
        if let Some(existing) = slot.as_ref() {
            if !existing.peer.is_transport_closed() {
                return Ok(existing.clone());
            }
            tracing::warn!(server, "transport closed; reconnecting");
            let reason = format!("server `{server}` exited or closed its connection");
            self.health.lock().unwrap().entry(server.to_owned()).or_default().lost(std::time::Instant::now(), &reason);
            *slot = None;
        }
        let config = self.config();
        let entry = config.servers.get(server).ok_or_else(|| HostError::UnknownServer {
            name: server.to_owned(),
            configured: config.servers.keys().cloned().collect(),
            config: self.paths.servers_config(),
        })?;
        let wait = self.health.lock().unwrap().get(server).map(|h| h.wait(std::time::Instant::now())).unwrap_or_default();
        if !wait.is_zero() {
            tracing::warn!(server, "failing repeatedly; waiting {wait:?} before starting it again");
            tokio::time::sleep(wait).await;
        }
        let endpoint = entry.endpoint().map_err(|e| e.in_file(server, &self.paths.servers_config()))?;
        let messages = self.server_messages.lock().unwrap().entry(server.to_owned()).or_insert_with(|| Arc::new(ServerMessages::new(self.paths.server_log(server)))).clone();
        let config_path = self.paths.servers_config();
        let context = || SpawnContext {
            name: server,
            entry,
            config_path: &config_path,
            log_path: self.paths.server_log(server),
            elicitation: self.elicitation.clone(),
            sampler: self.sampling_service.clone().unwrap_or_else(|| self.sampler.clone()),
            messages: messages.clone(),
            changes: self.changes.clone(),
            tokens: self.token_store(server),
            spill: Some(self.store.clone()),
            list_changes: self.list_changes,
            protocol: self.protocol_log(server),
        };
        let connected = match endpoint {
            Endpoint::Stdio { command } => ServerConnection::start(context(), resolve_program(command)).await,
            // The server wants a sign-in and the front end lets us open the page: sign in, then
            // connect once more with the token. Twice at most: a server whose authorization
            // server changed rejects the first token (SEP-2352: register with the new one).
            Endpoint::Http { url } => {
                let mut sign_ins = 0;
                loop {
                    let attempt = ServerConnection::connect_http(context(), url).await.map_err(HostError::from);
                    match attempt {
                        Err(e) if sign_ins < 2 && self.automatic_sign_in(&e, false).is_some() => {
                            let challenge = self.automatic_sign_in(&e, false).map(str::to_owned);
                            self.sign_in_with(server, challenge.as_deref()).await?;
                            sign_ins += 1;
                        }
                        Err(HostError::Server(e)) => break Err(e),
                        Err(other) => return Err(other),
                        Ok(connection) => break Ok(connection),
                    }
                }
            }
        };
        if let Endpoint::Http { .. } = endpoint {
            self.note_sign_in(server, connected.as_ref().err());
        }
        let now = std::time::Instant::now();
        let connection = match connected {
            Ok(connection) => {
                self.health.lock().unwrap().entry(server.to_owned()).or_default().connected(now);
                Arc::new(connection)
            }
            // Waiting for the user to sign in is not a failure (no backoff before the next try).
            Err(e @ mcp_canvas_client::ClientError::SignInRequired { .. }) => return Err(e.into()),
            Err(e) => {
                self.health.lock().unwrap().entry(server.to_owned()).or_default().failed(now, &e.to_string());
                return Err(e.into());
            }
        };
        *slot = Some(connection.clone());
        Ok(connection)
    }

    /// Connects to `server` (if it is not connected), for callers that only need to know whether it works.
    pub(crate) async fn connect_once(&self, server: &str) -> Result<(), HostError> {
        self.connection(server).await.map(|_| ())
    }

    /// The data dir's paths.
    pub(crate) fn paths(&self) -> &DataPaths {
        &self.paths
    }

    /// The error for a server that is not configured.
    pub(crate) fn unknown_server(&self, server: &str) -> HostError {
        HostError::UnknownServer { name: server.to_owned(), configured: self.config().servers.keys().cloned().collect(), config: self.paths.servers_config() }
    }

    /// Now, milliseconds since the Unix epoch.
    pub fn now_ms() -> i64 {
        mcp_canvas_ingest::now_ms()
    }
}

/// Reads the optional per-tool extraction rules; absent means the defaults.
fn load_extraction_rules(path: &Path) -> Result<ExtractionConfig, HostError> {
    match std::fs::read_to_string(path) {
        Ok(text) => ExtractionConfig::from_toml(&text).map_err(|e| HostError::Config(ConfigError::File { path: path.to_owned(), reason: e.to_string() })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ExtractionConfig::default()),
        Err(e) => Err(HostError::Config(ConfigError::File { path: path.to_owned(), reason: e.to_string() })),
    }
}

/// A bare program name (no `/`) is looked for next to our own executable first, so the bundled
/// `mcp-canvas-demo` is found whether MCP Canvas runs from `target/debug` or `/usr/bin`; otherwise
/// the OS searches PATH as usual.
fn resolve_program(command: &str) -> PathBuf {
    if !command.contains(std::path::MAIN_SEPARATOR) {
        if let Some(sibling) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join(command))) {
            if sibling.is_file() {
                return sibling;
            }
        }
    }
    PathBuf::from(command)
}

fn tool_view(tool: &rmcp::model::Tool) -> ToolView {
    ToolView {
        name: tool.name.to_string(),
        title: mcp_canvas_wire::apps::tool_title(tool),
        description: tool.description.as_ref().map(|d| d.to_string()),
        input_schema: Value::Object((*tool.input_schema).clone()),
        read_only: tool.annotations.as_ref().and_then(|a| a.read_only_hint),
        destructive: tool.annotations.as_ref().and_then(|a| a.destructive_hint),
        ui: mcp_canvas_wire::apps::ToolUi::of(tool),
        file_arguments: crate::files_in::params(tool)
            .into_iter()
            .map(|p| mcp_canvas_wire::FileArgument { name: p.name, multiple: p.multiple, accept: p.accept, max_size: p.max_size })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_a_json_object() {
        let err = Host::parse_arguments("demo", "render_chart", "{values: [1]}").unwrap_err().to_string();
        assert!(err.starts_with("arguments for `demo`/`render_chart` are not valid JSON"), "{err}");
        let err = Host::parse_arguments("demo", "render_chart", "[1, 2]").unwrap_err().to_string();
        assert!(err.contains("must be a JSON object"), "{err}");
        assert_eq!(Host::parse_arguments("demo", "t", r#"{"a": 1}"#).unwrap()["a"], 1);
    }

    #[test]
    fn bare_program_names_fall_back_to_path() {
        assert_eq!(resolve_program("definitely-not-next-to-the-test-binary"), PathBuf::from("definitely-not-next-to-the-test-binary"));
        assert_eq!(resolve_program("/usr/bin/env"), PathBuf::from("/usr/bin/env"));
    }
}
