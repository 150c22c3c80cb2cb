//! [`CanvasClient`], our side of an MCP session (the `rmcp::ClientHandler`): what we advertise,
//! and what we do with what a server sends unasked. One module per server→client request kind
//! ([`elicitation`], [`sampling`]), and one per kind of notification ([`progress`],
//! [`messages`]).

pub mod elicitation;
pub mod messages;
pub mod progress;
pub mod sampling;

use std::sync::{
    atomic::{AtomicBool, Ordering},
    Arc,
};

// MCP logging (`notifications/message`) is deprecated by SEP-2577, but servers still send it.
#[allow(deprecated)]
use rmcp::{
    model::{
        ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult, CustomNotification, ElicitRequestParams, ElicitResult, ElicitationAction,
        ElicitationCapability, FormElicitationCapability, Implementation, LoggingMessageNotificationParam,
        ProgressNotificationParam, ProtocolVersion, UrlElicitationCapability,
    },
    service::{ClientLifecycleMode, ClientServiceExt as _, NotificationContext, RequestContext, RunningService},
    ClientHandler, ErrorData, RoleClient,
};
use serde_json::Value;

pub use messages::{ChangedList, ServerChange, ServerMessage, ServerMessages};
pub use progress::{CallProgress, ProgressFn, ProgressRoute, ProgressRoutes};

use crate::{call_context::InFlight, connection::SpawnContext, error::ClientError};
use elicitation::Elicitor;
use sampling::SamplingBridge;

/// Our side of one MCP session: the `rmcp::ClientHandler` the connection runs.
#[derive(Clone)]
pub struct CanvasClient {
    /// Answers elicitation requests (server→client requests and `input_required` rounds).
    pub elicitor: Elicitor,
    /// Answers sampling requests (server→client requests and `input_required` rounds).
    pub sampling: SamplingBridge,
    /// The calls in flight, which a server→client question may belong to.
    pub in_flight: Arc<InFlight>,
    /// Where each in-flight call's progress goes, by progress token.
    pub progress: Arc<ProgressRoutes>,
    /// Set by `notifications/tools/list_changed`.
    pub(crate) tools_stale: Arc<AtomicBool>,
    messages: Arc<ServerMessages>,
    /// The protocol version asked for in servers.json (`protocol_version`), if any.
    protocol: Option<ProtocolVersion>,
    changes: tokio::sync::broadcast::Sender<ServerChange>,
    /// The URIs of `notifications/resources/updated` (2025 era; see [`crate::watch`]).
    pub(crate) resource_updates: tokio::sync::broadcast::Sender<String>,
}

impl CanvasClient {
    pub(crate) fn new(ctx: &SpawnContext<'_>) -> Result<Self, ClientError> {
        let protocol = ctx
            .entry
            .protocol_version()
            .map_err(|e| e.in_file(ctx.name, ctx.config_path))?
            .map(|v| serde_json::from_value::<ProtocolVersion>(Value::String(v.to_owned())).expect("a string is a protocol version"));
        Ok(Self {
            elicitor: Elicitor { server: ctx.name.to_owned(), handler: ctx.elicitation.clone() },
            sampling: SamplingBridge { server: ctx.name.to_owned(), sampler: ctx.sampler.clone() },
            in_flight: Arc::default(),
            progress: Arc::default(),
            tools_stale: Arc::default(),
            messages: ctx.messages.clone(),
            protocol,
            changes: ctx.changes.clone(),
            resource_updates: tokio::sync::broadcast::channel(64).0,
        })
    }

    /// How the handshake goes: `server/discover` first (2026-07-28, no session; elicitation and
    /// sampling arrive as `input_required` results), `initialize` when the server is of the older
    /// era (rmcp's `Auto` lifecycle: on the server's error or silence it retries with
    /// `initialize`, 2025-11-25 or the older version the server answers with). An entry's
    /// `protocol_version` pins one version instead.
    pub(crate) fn lifecycle(&self) -> ClientLifecycleMode {
        match self.protocol.clone() {
            Some(version) if !version.has_initialize() => ClientLifecycleMode::Discover { preferred_versions: vec![version] },
            Some(_) => ClientLifecycleMode::Initialize,
            None => ClientLifecycleMode::Auto { preferred_versions: vec![ProtocolVersion::V_2026_07_28], legacy_version: None },
        }
    }

    /// The MCP handshake, as [`CanvasClient::lifecycle`] says.
    pub(crate) async fn connect<T, E, A>(self, transport: T, lifecycle: ClientLifecycleMode) -> Result<RunningService<RoleClient, Self>, rmcp::service::ClientInitializeError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        self.serve_with_lifecycle(transport, lifecycle).await
    }
}

/// Whether a failed `Auto` handshake is worth one more try with `initialize`: the server answered
/// `server/discover` with something that is not a discover result (an older server that answers
/// every unknown method with an empty result), rather than failing to answer at all.
pub(crate) fn retry_with_initialize(error: &rmcp::service::ClientInitializeError) -> bool {
    use rmcp::service::ClientInitializeError as E;
    matches!(error, E::ExpectedInitResult(_) | E::ExpectedInitResponse(_))
}

/// The MCP Apps extension we advertise, and the view MIME type we render.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's view.
pub const APPS_MIME: &str = "text/html;profile=mcp-app";

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
        capabilities.sampling = self.sampling.capability();
        // MCP Apps: we render servers' `ui://` views (both protocol eras read this).
        let mut apps = rmcp::model::JsonObject::new();
        apps.insert("mimeTypes".to_owned(), serde_json::json!([APPS_MIME]));
        // Tasks (SEP-2663): a call the server turns into a task is followed to its end
        // (`mcp-canvas-host`'s `tasks.rs`).
        capabilities.extensions = Some(rmcp::model::ExtensionCapabilities::from([
            (APPS_EXTENSION.to_owned(), apps),
            (rmcp::model::TASKS_EXTENSION_ID.to_owned(), rmcp::model::JsonObject::new()),
        ]));
        // File inputs (SEP-2356): a tool's `x-mcp-file` arguments get files (`mcp-canvas-host`'s
        // `files_in.rs`). The SEP's newest revision defines no capability; its March revision and
        // the servers built on it read `fileInputs`, which rmcp's capabilities can carry only here.
        // SEP-2631 (PR head 8799c5c1): files too large to send inline are uploaded where the
        // server says (`files/authorizeUpload`), and files a result offers are fetched (`files/authorizeDownload`). Its capability
        // is top-level `files` in the SEP; rmcp's capabilities can carry it only here too.
        let files = serde_json::json!({ "upload": true, "download": true, "transports": ["https"] });
        capabilities.experimental = Some(rmcp::model::ExperimentalCapabilities::from([
            ("fileInputs".to_owned(), rmcp::model::JsonObject::new()),
            ("files".to_owned(), files.as_object().cloned().unwrap_or_default()),
        ]));
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

    async fn create_message(&self, params: CreateMessageRequestParams, context: RequestContext<RoleClient>) -> Result<CreateMessageResult, ErrorData> {
        let calls = self.in_flight.asked();
        tokio::select! {
            answer = self.sampling.answer(params, &calls) => answer,
            () = context.ct.cancelled() => Err(ErrorData::new(rmcp::model::ErrorCode::INTERNAL_ERROR, "the server cancelled its sampling request", None)),
        }
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.deliver(params);
    }

    async fn on_logging_message(&self, params: LoggingMessageNotificationParam, _context: NotificationContext<RoleClient>) {
        self.messages.record(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ChangedList::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ChangedList::Resources);
    }

    async fn on_resource_updated(&self, params: rmcp::model::ResourceUpdatedNotificationParam, _context: NotificationContext<RoleClient>) {
        // Nobody watching is fine.
        let _ = self.resource_updates.send(params.uri);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ChangedList::Prompts);
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
    /// A server said one of its lists changed (a notification before 2026-07-28, a
    /// `subscriptions/listen` notification since): tools are listed again on next use, and
    /// front ends hear of it.
    pub(crate) fn list_changed(&self, list: ChangedList) {
        if list == ChangedList::Tools {
            self.tools_stale.store(true, Ordering::SeqCst);
        }
        self.announce(list);
    }

    fn announce(&self, list: ChangedList) {
        // No receiver is fine: nobody is listening (the CLI's one-shot commands).
        let _ = self.changes.send(ServerChange { server: self.elicitor.server.clone(), list });
    }
}

