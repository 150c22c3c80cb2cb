//! [`App`]: the state of the desktop window and what each of its commands does, without a window.
//! The shell's commands (generated from `src-tauri/src/command_list.rs`) call the method of the
//! same name with the same arguments; whatever the window must hear goes out through the
//! [`Window`] it attached.

use std::{
    future::Future,
    path::Path,
    sync::{Arc, Mutex, MutexGuard},
};

use http::{Request, Response};
use mcp_canvas_canvas::{ArtifactTab, Canvas, CanvasIntent, CanvasView, FocusPlace, TabId};
use mcp_canvas_config::{allowlist::{AllowlistView, DashboardAccess}, settings_edit::SettingsView};
use mcp_canvas_host::{app_link::AppRequests, artifact_files, error::{command_error, join_error}, signin::SignInPolicy, CallControl, CallOptions, Host};
use mcp_canvas_elicitation::{BoxFuture, ElicitationHandler, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_client::{health::ServerStatus, oauth::{Browser, SystemBrowser}, opener, CallProgress, ChangedList, ProgressFn};
use mcp_canvas_wire::{CallOutcome, CallProgressEvent, ElicitationAnswer, ServerView, SignInStartedEvent, SignInView, ToolView};
use mcp_canvas_sampling::{keys::ApiKey, sampler::{Approval, ExchangeRecord, FAILED, NoCall, Review}, Approver, SamplingError, SamplingRequest, SamplingResult, SamplingSettings};
use mcp_canvas_team::{SyncReport, TeamArtifact, TeamAuditQuery, TeamAuditSource, TeamLogEntry, TeamMember, TeamStatus};
use mcp_canvas_config::settings::StoreSettings;
use mcp_canvas_store::{ArtifactPage, ArtifactQuery, ArtifactRecord, ArtifactSource, SearchHit, SearchQuery, SearchResults, StorageUsage};
use serde_json::{Map, Value};
use mcp_canvas_wire::{CommandError, ErrorKind};

use crate::{
    apps::{AppInstances, AppLaunch, AppToolResultEvent},
    artifact_scheme,
    calls::RunningCalls,
    dashboards::{Dashboards, NavigationGuard},
    elicitation::DialogElicitation,
    layout,
    questions::{Answer, Questions},
    sampling::DialogSampling,
    window::{AppEvent, SaveDialog, ServerChangedEvent, Window, WindowSlot},
};

/// The host the window talks to, or why the data dir could not be opened (the window still opens
/// and shows the reason instead of the app vanishing).
pub type HostState = Result<Arc<Host>, String>;

/// Who answers servers' questions on the user's behalf: the app hands these to `open_host`, which
/// installs them in the host it opens.
pub struct Frontends {
    /// Forms and URLs, as dialogs in the window.
    pub elicitation: Arc<dyn ElicitationHandler>,
    /// Sampling requests and completions, as dialogs in the window.
    pub sampling: Arc<dyn Approver>,
    /// Sign-in pages: the system browser, announced to the window.
    pub browser: Arc<dyn Browser>,
}

impl Frontends {
    /// Installs both in `host`.
    pub fn install(self, host: Host) -> Host {
        // Signing in is the user's move (Sign in on the server); only a server that wants more
        // scope in the middle of the user's own call opens the page by itself (the step-up).
        host.with_elicitation(self.elicitation).with_sampling(self.sampling, None).with_browser(self.browser, SignInPolicy { when_connecting: false, during_calls: true })
    }
}

/// Sign-in pages open in the system browser; the window hears of each (with its URL, for a user
/// whose browser did not open).
struct WindowBrowser {
    window: WindowSlot,
}

impl Browser for WindowBrowser {
    fn open<'a>(&'a self, server: &'a str, url: &'a str) -> BoxFuture<'a, Result<(), String>> {
        self.window.emit_or_log(AppEvent::SignInStarted(SignInStartedEvent { server: server.to_owned(), url: url.to_owned() }));
        SystemBrowser.open(server, url)
    }
}

/// The most of an App's event (a log line, a message) kept in the audit log.
const MAX_APP_EVENT_BYTES: usize = 8 * 1024;

/// How much of a server's log the window shows.
pub const LOG_TAIL_BYTES: u64 = 64 * 1024;

/// The app: host, canvas, dashboards, running calls and the user's open questions.
pub struct App {
    host: HostState,
    pub(crate) window: WindowSlot,
    canvas: Mutex<Canvas>,
    dashboards: Dashboards,
    calls: RunningCalls,
    questions: Arc<Questions>,
    elicitation: Arc<DialogElicitation>,
    apps: AppInstances,
    pub(crate) watches: crate::offers::Watches,
}

impl App {
    /// Opens the host with `open_host`, which is handed the elicitation handler to install (the
    /// user's questions go to the window); the canvas comes back as it was left (pinned
    /// dashboards, the saved layout). No window until [`App::attach`].
    pub fn new(open_host: impl FnOnce(Frontends) -> HostState) -> Self {
        let window = WindowSlot::default();
        let questions = Arc::new(Questions::new(window.clone()));
        let elicitation = Arc::new(DialogElicitation::new(questions.clone()));
        let browser = Arc::new(WindowBrowser { window: window.clone() });
        let host = open_host(Frontends { elicitation: elicitation.clone(), sampling: Arc::new(DialogSampling::new(questions.clone())), browser });
        if let Ok(host) = &host {
            host.start_search_indexer();
        }
        let dashboards = Dashboards::new(host.as_deref().ok());
        // The tabs and panes as the user left them (artifacts deleted since are left out), then
        // the dashboards pinned in the last run (without their tokens).
        let mut canvas = layout::load(host.as_deref().ok());
        dashboards.restore(host.as_deref().ok(), &mut canvas);
        Self { host, window, canvas: Mutex::new(canvas), dashboards, calls: RunningCalls::default(), questions, elicitation, apps: AppInstances::default(), watches: Default::default() }
    }

    /// Connects the window; events and questions go to it from now on.
    pub fn attach(&self, window: Arc<dyn Window>) {
        self.window.attach(window);
        if let Ok(host) = &self.host {
            self.window.get().expect("just attached").set_theme(host.settings().appearance.theme);
        }
    }

    /// The host, or why there is none.
    pub fn host(&self) -> Result<&Host, CommandError> {
        self.host.as_deref().map_err(|reason| no_host(reason))
    }

    /// The host, shared (for work moved to the blocking pool), or why there is none.
    pub(crate) fn shared(&self) -> Result<Arc<Host>, CommandError> {
        self.host.clone().map_err(|reason| no_host(&reason))
    }

    /// Runs `work` on tokio's blocking pool, never on the async worker that runs the command:
    /// every artifact store call waits for the store's one SQLite connection (held by scans,
    /// quota and gc), may wait for another process's write lock, and writes fsync.
    async fn blocking<T: Send + 'static>(&self, work: impl FnOnce(&Host) -> Result<T, CommandError> + Send + 'static) -> Result<T, CommandError> {
        let host = self.shared()?;
        tokio::task::spawn_blocking(move || work(&host)).await.map_err(join_error)?
    }

    /// The host, shared.
    pub fn shared_host(&self) -> Option<Arc<Host>> {
        self.host.as_ref().ok().cloned()
    }

    /// The canvas state (every rule lives in `mcp-canvas-canvas`).
    pub fn canvas(&self) -> MutexGuard<'_, Canvas> {
        self.canvas.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The open questions to the user.
    pub fn questions(&self) -> &Arc<Questions> {
        &self.questions
    }

    /// The check for the window's navigation hook.
    pub fn navigation_guard(&self) -> NavigationGuard {
        self.dashboards.navigation_guard()
    }

    /// Tells the window the canvas changed. Called with the canvas lock held, so the window
    /// hears changes in the order they happened.
    fn changed(&self, canvas: &Canvas) {
        self.apps.keep_only_open(canvas);
        if self.window.get().is_some() {
            self.window.emit_or_log(AppEvent::CanvasChanged(canvas.view()));
        }
    }

    /// Applies a call's outcome to the canvas as its display intent says (the window's own calls
    /// and the proxy's); dashboards it opened, updated or replaced are audited. The window hears
    /// the new canvas.
    pub fn apply_outcome(&self, outcome: &CallOutcome) {
        self.apply_call(outcome, None);
    }

    /// [`Self::apply_outcome`] for a call whose tool declares an MCP App view: the App opens
    /// in a tab of its own, first.
    pub fn apply_call(&self, outcome: &CallOutcome, app: Option<&mcp_canvas_wire::AppCall>) {
        let host = self.host.as_deref().ok();
        let app_tab = app.and_then(|call| self.apps.opened(&outcome.server, &outcome.tool, &outcome.call_id, call));
        let mut canvas = self.canvas();
        let cause = format!("replaced by call {} ({}/{})", outcome.call_id, outcome.server, outcome.tool);
        let applied = self.dashboards.change(host, &mut canvas, &cause, |c| c.apply_call(&outcome.call_id, &outcome.outcome, app_tab.as_ref()));
        if let Some(host) = host {
            self.dashboards.opened_by_call(host, &canvas, &outcome.server, &outcome.call_id, &applied);
        }
        self.changed(&canvas);
    }

    /// Shows a read the user asked for — a resource or a `resource_link` opened, a prompt filled
    /// in, a skill's file — in new tabs, replacing nothing ([`Canvas::open_requested`]); with
    /// `previous` (the artifacts the last read of the same resource showed), a watched resource
    /// read again, in the tabs of the read before ([`Canvas::refresh_read`]).
    pub fn show_read(&self, read: &CallOutcome, previous: Option<&[String]>) -> mcp_canvas_canvas::AppliedOutcome {
        let host = self.host.as_deref().ok();
        let mut canvas = self.canvas();
        let cause = format!("replaced by read {} ({}/{})", read.call_id, read.server, read.tool);
        let applied = self.dashboards.change(host, &mut canvas, &cause, |c| match previous {
            Some(previous) => c.refresh_read(&read.call_id, &read.outcome, previous),
            None => c.open_requested(&read.call_id, &read.outcome),
        });
        if let Some(host) = host {
            self.dashboards.opened_by_call(host, &canvas, &read.server, &read.call_id, &applied);
        }
        self.changed(&canvas);
        applied
    }

    /// The response to an `artifact:` request (see [`artifact_scheme`]); reads the store.
    pub fn artifact_response(&self, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
        let host = self.host.as_deref().ok();
        // Read per request: the user may change it in Settings while the app runs.
        let remote_images = host.is_some_and(|h| h.settings().render.allow_remote_images);
        let remote = |id: &str| host.and_then(|h| h.team_remote_opened(id));
        artifact_scheme::respond_with_remote(host.map(|h| &**h.store()), remote_images, &remote, request)
    }

    /// Saves the canvas layout now and ends the session's dashboards (the app is exiting).
    pub fn exiting(&self) {
        if let Ok(host) = &self.host {
            let canvas = self.canvas();
            // Session and ephemeral dashboards end with the session; pinned ones come back.
            self.dashboards.session_ended(host, &canvas);
            if let Err(e) = self.dashboards.flush_pinned() {
                eprintln!("mcp-canvas: {e}; the pinned dashboards of this run are not saved");
            }
            layout::save(host, &canvas.layout());
        }
    }

    /// Saves the layout within seconds of each change, on a thread of its own.
    pub fn keep_layout_saved(self: &Arc<Self>) {
        layout::keep_saved(self.clone());
    }

    /// Passes every `list_changed` of every server on to the window as a `server-changed` event
    /// until the host is dropped (run it on the async runtime). Missed announcements (the window
    /// was too slow) become a tools change for every server, so nothing stays stale.
    pub fn forward_server_changes(&self) -> Option<impl Future<Output = ()> + Send + 'static> {
        use tokio::sync::broadcast::error::RecvError;
        let host = self.host.as_ref().ok()?;
        let mut changes = host.changes();
        let servers = host.server_names();
        let window = self.window.clone();
        Some(async move {
            loop {
                let events: Vec<ServerChangedEvent> = match changes.recv().await {
                    Ok(change) => vec![change.into()],
                    Err(RecvError::Lagged(_)) => servers.iter().map(|server| ServerChangedEvent { server: server.clone(), list: ChangedList::Tools }).collect(),
                    Err(RecvError::Closed) => return,
                };
                for event in events {
                    window.emit_or_log(AppEvent::ServerChanged(event));
                }
            }
        })
    }

    fn configured(&self, server: &str) -> Result<&Host, CommandError> {
        let host = self.host()?;
        // Only whether it is configured: `servers()` would read every sign-in record.
        if host.server_entry(server).is_some() {
            Ok(host)
        } else {
            Err(CommandError::new(ErrorKind::NotFound, format!("there is no server named `{server}` in servers.json")))
        }
    }
}

/// The commands, one method each, named and typed as in `src-tauri/src/command_list.rs`.
impl App {
    pub async fn list_servers(&self) -> Result<Vec<ServerView>, CommandError> {
        self.host()?.servers().await.map_err(command_error)
    }

    pub async fn list_tools(&self, server: String) -> Result<Vec<ToolView>, CommandError> {
        self.host()?.tools(&server).await.map_err(command_error)
    }

    /// `arguments` is the JSON text the user typed, parsed here so the error names the tool. While
    /// the call runs its progress goes out as `call-progress` events carrying `call_token`, and
    /// `cancel_call(call_token)` stops it. The outcome is applied to the canvas before it returns.
    pub async fn call_tool(&self, server: String, tool: String, arguments: String, confirmed: bool, call_token: String) -> Result<CallOutcome, CommandError> {
        let host = self.host()?;
        let arguments = Host::parse_arguments(&server, &tool, &arguments).map_err(command_error)?;
        let running = self.calls.start(&call_token)?;
        let window = self.window.clone();
        let token = call_token.clone();
        let progress: ProgressFn = Arc::new(move |p: &CallProgress| {
            let event = CallProgressEvent { call_token: token.clone(), progress: p.progress, total: p.total, message: p.message.clone() };
            let _ = window.emit(AppEvent::CallProgress(event));
        });
        let call_id = Host::fresh_call_id();
        // A tool with an MCP App view: the App opens now and shows the input while the call runs.
        let early = self.open_app_early(host, &server, &tool, &call_id, &arguments, confirmed).await;
        let control = CallControl { cancel: Some(running.cancel.clone()), progress: Some(progress), call_id: Some(call_id.clone()), ..CallControl::default() };
        let detail = host.call_tool_detailed(&server, &tool, arguments, CallOptions { confirmed, ..CallOptions::default() }, control).await;
        drop(running);
        let detail = match detail {
            Ok(detail) => detail,
            Err(e) => {
                let reason = e.to_string();
                if early && self.apps.cancelled(&call_id, &reason) {
                    self.window.emit_or_log(AppEvent::AppToolResult(AppToolResultEvent { app_id: call_id, result: None, cancelled: Some(reason.clone()) }));
                }
                return Err(e.into());
            }
        };
        self.apply_call(&detail.call, detail.app.as_ref());
        if early {
            let result = detail.app.as_ref().map(|a| a.result.clone());
            self.window.emit_or_log(AppEvent::AppToolResult(AppToolResultEvent { app_id: call_id, result, cancelled: None }));
        }
        Ok(detail.call)
    }

    /// Opens the App of `tool` for call `call_id` before the call runs, when the tool declares a
    /// view; whether it did.
    async fn open_app_early(&self, host: &Host, server: &str, tool: &str, call_id: &str, arguments: &Value, confirmed: bool) -> bool {
        let Ok(definitions) = host.tool_definitions(server).await else { return false };
        let Some(definition) = definitions.iter().find(|t| t.name == tool) else { return false };
        // Not before the user confirmed a tool that needs it (the window asks, then calls again).
        if mcp_canvas_elicitation::validation::needs_confirmation(definition) && !confirmed {
            return false;
        }
        let Some(resource_uri) = mcp_canvas_wire::apps::ToolUi::of(definition).and_then(|ui| ui.resource_uri) else { return false };
        let tool_title = mcp_canvas_wire::apps::tool_title(definition);
        let tab = mcp_canvas_canvas::AppTab { app_id: call_id.to_owned(), server: server.to_owned(), tool: tool.to_owned(), tool_title, resource_uri };
        self.apps.started(tab.clone(), arguments.clone());
        let mut canvas = self.canvas();
        let cause = format!("replaced by call {call_id} ({server}/{tool})");
        self.dashboards.change(Some(host), &mut canvas, &cause, |c| c.open_app(call_id, &tab));
        self.changed(&canvas);
        true
    }

    /// What the window needs to bridge the App of tab `app_id` (its view is read and checked).
    pub async fn app_launch(&self, app_id: String) -> Result<AppLaunch, CommandError> {
        self.apps.launch(self.host()?, &app_id).await
    }

    /// `tools/call` from an App: its own server's tools whose visibility includes `app`; the
    /// result as the server sent it.
    pub async fn app_call_tool(&self, app_id: String, name: String, arguments: Value) -> Result<Value, CommandError> {
        let questions = self.questions.clone();
        let host = self.host()?;
        let server = self.apps.view_of(&app_id).map(|(s, _)| s).unwrap_or_default();
        let confirm_tool = name.clone();
        self.apps
            .call_tool(host, &app_id, &name, arguments, |who, arguments| async move { questions.confirm(&server, &confirm_tool, &arguments, &who).await })
            .await
    }

    /// `ui/download-file` from an App: the user is asked first (the files' names and sizes);
    /// then each file is stored (named from its URI, sanitized) and opened in the canvas, where
    /// Save as… and Open with work as for any artifact. The App hears `{}` or the refusal.
    pub async fn app_download_file(&self, app_id: String, contents: Vec<Value>) -> Result<Value, CommandError> {
        let host = self.host()?;
        let (server, _) = self.apps.view_of(&app_id).ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("no App `{app_id}` is open (its tab was closed)")))?;
        let described: Vec<Value> = contents.iter().map(crate::apps::describe_download).collect();
        let total = described.iter().filter_map(|d| d.get("bytes").and_then(Value::as_u64)).fold(0u64, u64::saturating_add);
        if total > crate::apps::MAX_DOWNLOAD_BYTES {
            host.audit_app(&server, &app_id, "download-file", serde_json::json!({ "files": described }), "refused", Some("too large".into()));
            return Err(CommandError::new(ErrorKind::Refused, format!("the App of `{server}` asked to save {total} bytes; MCP Canvas takes at most {} bytes from an App at once", crate::apps::MAX_DOWNLOAD_BYTES)));
        }
        let arguments = Map::from_iter([("files".to_owned(), Value::Array(described.clone()))]);
        if !self.questions.confirm(&server, "ui/download-file", &arguments, &format!("an App of `{server}`")).await {
            host.audit_app(&server, &app_id, "download-file", serde_json::json!({ "files": described }), "refused", Some("the user said no".into()));
            return Err(CommandError::new(ErrorKind::Cancelled, "the user did not allow the App to save these files"));
        }
        let outcome = host.store_app_download(&server, &app_id, &contents).await?;
        let call_id = format!("{app_id}-download-{}", Host::now_ms());
        self.apply_outcome(&CallOutcome { call_id, server, tool: "ui/download-file".to_owned(), outcome });
        Ok(serde_json::json!({}))
    }

    /// A tool the App's view exposes (ext-apps' view tools), called by the user from the App's
    /// "View tools": what the view answered (`result`, its `tools/call` result) is stored and
    /// audited; files in it open beside the App. The outcome is returned for the bar to show.
    pub async fn app_view_tool(&self, app_id: String, tool: String, arguments: Value, result: Value) -> Result<CallOutcome, CommandError> {
        let host = self.host()?;
        let (server, _) = self.apps.view_of(&app_id).ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("no App `{app_id}` is open (its tab was closed)")))?;
        // The host's call id: the one its artifacts and its audit row carry.
        let call = host.store_view_tool_result(&server, &app_id, &tool, arguments, result).await?;
        if !call.outcome.artifacts.is_empty() {
            self.apply_outcome(&call);
        }
        Ok(call)
    }

    /// `sampling/createMessage` from an App's view: the same policy, approval dialog and
    /// transcript as its server's own sampling requests (the dialog names the server).
    pub async fn app_create_message(&self, app_id: String, request: Value) -> Result<Value, CommandError> {
        let host = self.host()?;
        let (server, _) = self.apps.view_of(&app_id).ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("no App `{app_id}` is open (its tab was closed)")))?;
        let request: SamplingRequest = serde_json::from_value(request).map_err(|e| CommandError::new(ErrorKind::BadArguments, format!("the App's sampling request is not one: {e}")))?;
        let result = host.sampler().create_message(&server, request, &NoCall).await;
        let outcome = if result.is_ok() { "ok" } else { "refused" };
        host.audit_app(&server, &app_id, "sampling", Value::Null, outcome, result.as_ref().err().map(|e| e.message.clone()));
        let result = result.map_err(|e| CommandError::new(ErrorKind::Refused, e.message))?;
        serde_json::to_value(result).map_err(CommandError::bug)
    }

    /// `resources/read` from an App: its own server's resources.
    pub async fn app_read_resource(&self, app_id: String, uri: String) -> Result<Value, CommandError> {
        self.apps.read_resource(self.host()?, &app_id, &uri).await
    }

    /// `ui/open-link` from an App: http(s) only, opened in the system browser after the user
    /// agreed in the consent dialog. Whether it was opened.
    pub async fn app_open_link(&self, app_id: String, url: String) -> Result<bool, CommandError> {
        let host = self.host()?;
        let request = self.apps.link_request(host, &app_id, &url)?;
        let server = request.server.clone();
        let opened = match self.elicitation.url(&request).await {
            UrlAnswer::Accept => true,
            UrlAnswer::Decline(_) | UrlAnswer::Cancel => false,
        };
        host.audit_app(&server, &app_id, "open-link", serde_json::json!({ "url": url }), if opened { "ok" } else { "declined" }, None);
        Ok(opened)
    }

    /// `ui/update-model-context` from an App (the last one wins).
    pub fn app_update_model_context(&self, app_id: String, context: Value) -> Result<(), CommandError> {
        self.apps.set_model_context(self.host()?, &app_id, context)
    }

    /// Something else an App did, for the audit log (`message`, `display-mode`, `log`).
    pub fn app_event(&self, app_id: String, action: String, details: Value) -> Result<(), CommandError> {
        if !matches!(action.as_str(), "message" | "display-mode" | "log" | "initialized" | "teardown") {
            return Err(CommandError::bug(format!("`{action}` is not an App event MCP Canvas records")));
        }
        // An App decides what it sends: a log line of megabytes is kept as its first 8 KB.
        let details = match serde_json::to_string(&details) {
            Ok(text) if text.len() > MAX_APP_EVENT_BYTES => {
                let mut end = MAX_APP_EVENT_BYTES;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                serde_json::json!({ "cut": format!("{}…", &text[..end]), "bytes": text.len() })
            }
            _ => details,
        };
        self.apps.audit(self.host()?, &app_id, &action, details)
    }

    /// The response to an `mcp-app:` request (see [`crate::apps`]).
    pub async fn app_response(&self, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
        crate::apps::respond(self.host.as_deref().ok(), &self.apps, request).await
    }

    pub fn canvas_view(&self) -> Result<CanvasView, CommandError> {
        Ok(self.canvas().view())
    }

    /// A user intent on the canvas; the window hears the new canvas (`canvas-changed`).
    pub fn canvas_intent(&self, intent: CanvasIntent) -> Result<(), CommandError> {
        let mut canvas = self.canvas();
        let cause = format!("closed by the user ({})", intent_name(&intent));
        self.dashboards.change(self.host.as_deref().ok(), &mut canvas, &cause, |c| c.apply_intent(intent)).map_err(canvas_error)?;
        self.changed(&canvas);
        Ok(())
    }

    pub fn dashboard_access(&self, tab: TabId) -> Result<DashboardAccess, CommandError> {
        self.dashboards.access(&self.canvas(), tab)
    }

    pub fn allowlist_view(&self) -> Result<AllowlistView, CommandError> {
        self.dashboards.view()
    }

    pub fn allowlist_add(&self, origin: String, tab: Option<TabId>) -> Result<AllowlistView, CommandError> {
        self.dashboards.allow(self.host()?, &self.canvas(), &origin, tab)
    }

    pub fn allowlist_remove(&self, origin: String) -> Result<AllowlistView, CommandError> {
        self.dashboards.disallow(self.host()?, &origin)
    }

    pub fn answer_elicitation(&self, id: String, answer: ElicitationAnswer) -> Result<(), CommandError> {
        self.questions.answer(&id, Answer::Elicitation(answer))
    }

    pub fn answer_confirmation(&self, id: String, confirmed: bool) -> Result<(), CommandError> {
        self.questions.answer(&id, Answer::Confirm(confirmed))
    }

    pub fn answer_sampling(&self, id: String, approval: Approval) -> Result<(), CommandError> {
        self.questions.answer(&id, Answer::Sampling(approval))
    }

    pub fn answer_sampling_review(&self, id: String, review: Review) -> Result<(), CommandError> {
        self.questions.answer(&id, Answer::SamplingReview(review))
    }

    /// `server`'s sampling exchanges (all servers' for `None`), newest first, 200 at most.
    pub async fn sampling_log(&self, server: Option<String>) -> Result<Vec<ExchangeRecord>, CommandError> {
        self.blocking(move |host| host.sampling_log(server.as_deref(), 200).map_err(command_error)).await
    }

    pub fn sampling_settings_view(&self) -> Result<SamplingSettings, CommandError> {
        Ok(self.host()?.settings().sampling.clone())
    }

    pub fn sampling_settings_set(&self, sampling: SamplingSettings) -> Result<SamplingSettings, CommandError> {
        Ok(self.host()?.set_sampling(&sampling).map_err(command_error)?.sampling.clone())
    }

    /// Stores (or, for `None`, deletes) a provider's API key in the OS keyring, off the main
    /// thread (the Secret Service is a D-Bus round trip).
    pub async fn sampling_set_key(&self, provider: String, key: Option<String>) -> Result<SamplingSettings, CommandError> {
        let key = key.map(|k| ApiKey::new(k.trim())).filter(|k| !k.expose().is_empty());
        self.blocking(move |host| Ok(host.set_provider_key(&provider, key).map_err(command_error)?.sampling.clone())).await
    }

    pub fn cancel_call(&self, call_token: String) -> Result<(), CommandError> {
        self.calls.cancel(&call_token)
    }

    pub async fn artifacts_query(&self, query: ArtifactQuery) -> Result<ArtifactPage, CommandError> {
        self.blocking(move |host| host.store().query(&query).map_err(command_error)).await
    }

    /// Full-text search over every stored artifact, with snippets.
    pub async fn artifacts_search(&self, query: SearchQuery) -> Result<SearchResults, CommandError> {
        self.blocking(move |host| host.search(&query).map_err(command_error)).await
    }

    /// Full-text search over the team's artifacts this member may see (team store only).
    pub async fn team_search(&self, query: SearchQuery) -> Result<Vec<SearchHit>, CommandError> {
        self.host()?.team_search(&query).await.map_err(command_error)
    }

    pub async fn artifacts_sources(&self) -> Result<Vec<ArtifactSource>, CommandError> {
        self.blocking(|host| host.store().sources().map_err(command_error)).await
    }

    pub async fn artifacts_usage(&self) -> Result<StorageUsage, CommandError> {
        self.blocking(|host| host.store().usage(host.local_limits().quota_bytes).map_err(command_error)).await
    }

    /// The team store's state (`None` with a local store): bucket, catalog, what is pending.
    pub async fn team_status(&self) -> Result<Option<TeamStatus>, CommandError> {
        match self.host()?.team() {
            Ok(team) => team.status().await.map(Some).map_err(command_error),
            Err(_) => Ok(None),
        }
    }

    /// One page (100) of the team's artifacts this member may see, newest first.
    pub async fn team_artifacts(&self, member: Option<String>, offset: u32) -> Result<Vec<TeamArtifact>, CommandError> {
        let team = self.host()?.team().map_err(command_error)?;
        team.list(member.as_deref(), 100, i64::from(offset)).await.map_err(command_error)
    }

    /// The team's members and their artifact counts.
    pub async fn team_members(&self) -> Result<Vec<TeamMember>, CommandError> {
        let team = self.host()?.team().map_err(command_error)?;
        team.members().await.map_err(command_error)
    }

    /// The team's audit trail this member may see (every member's calls and sampling
    /// exchanges), newest first, filtered as asked.
    pub async fn team_audit(&self, query: TeamAuditQuery) -> Result<Vec<TeamLogEntry>, CommandError> {
        self.host()?.team_audit(&query).await.map_err(command_error)
    }

    /// The members, servers and tools in the team's audit trail (the view's filters).
    pub async fn team_audit_sources(&self) -> Result<Vec<TeamAuditSource>, CommandError> {
        self.host()?.team_audit_sources().await.map_err(command_error)
    }

    /// Keeps one of my team artifacts to myself, or shares it again.
    pub async fn team_set_private(&self, id: String, keep_private: bool) -> Result<(), CommandError> {
        let team = self.host()?.team().map_err(command_error)?;
        team.set_private(&id, keep_private).await.map_err(command_error)
    }

    /// `[store]` as settings.toml says (what runs may differ until the next start).
    pub fn store_settings_view(&self) -> Result<StoreSettings, CommandError> {
        Ok(self.host()?.settings().store.clone())
    }

    /// Replaces `[store]` (refused, nothing written, when a team store lacks its bucket, catalog
    /// or team); in effect at the next start.
    pub fn store_settings_set(&self, store: StoreSettings) -> Result<StoreSettings, CommandError> {
        Ok(self.host()?.set_store(&store).map_err(command_error)?.store.clone())
    }

    /// Keeps the team catalog's password in the OS keyring (off the main thread: D-Bus).
    pub async fn store_set_password(&self, password: String) -> Result<(), CommandError> {
        let url = self.host()?.settings().store.catalog_url.clone().ok_or_else(|| CommandError::new(ErrorKind::Config, "set the catalog URL first (Settings → Storage)"))?;
        tokio::task::spawn_blocking(move || mcp_canvas_team::set_catalog_password(&url, &password)).await.map_err(join_error)?.map_err(command_error)
    }

    /// Uploads what is queued now.
    pub async fn team_sync(&self) -> Result<SyncReport, CommandError> {
        self.host()?.team_sync_now().await.map_err(command_error)
    }

    pub async fn artifact_record(&self, id: String) -> Result<ArtifactRecord, CommandError> {
        self.blocking(move |host| host.store().get(&id).map_err(command_error)).await
    }

    /// Lets AI hosts' models behind the proxy find and send on this file (`true`), or takes it
    /// back (`false`).
    pub async fn artifact_set_model_shared(&self, id: String, shared: bool) -> Result<(), CommandError> {
        self.blocking(move |host| {
            let store = host.store();
            let record = store.get(&id).map_err(command_error)?;
            if shared { store.share_with_model(std::slice::from_ref(&record.id), Host::now_ms()) } else { store.unshare_with_model(&record.id) }.map_err(command_error)
        })
        .await
    }

    /// Whether AI hosts' models may find and send on this file.
    pub async fn artifact_model_shared(&self, id: String) -> Result<bool, CommandError> {
        self.blocking(move |host| host.store().shared_with_model(&id).map_err(command_error)).await
    }

    pub async fn artifact_set_pinned(&self, id: String, pinned: bool) -> Result<ArtifactRecord, CommandError> {
        self.blocking(move |host| host.store().set_pinned(&id, pinned).map_err(command_error)).await
    }

    /// Deletes an artifact (its blob goes when nothing else shares it); tabs showing it close.
    pub async fn artifact_remove(&self, id: String) -> Result<(), CommandError> {
        let removed = id.clone();
        self.blocking(move |host| host.store().remove(&removed).map_err(command_error)).await?;
        let mut canvas = self.canvas();
        canvas.close_artifact(&id);
        self.changed(&canvas);
        Ok(())
    }

    /// Opens a stored artifact in the focused pane (or shows its tab). With a team store, one
    /// this data dir does not have (a teammate's, or evicted here) is fetched into the cache first.
    /// A teammate's PDF opens at once, its pages read by ranges while the whole file is fetched.
    pub async fn artifact_open(&self, id: String) -> Result<(), CommandError> {
        let host = self.host()?;
        let record = match host.open_by_ranges(&id).await.map_err(command_error)? {
            Some(record) => record,
            None => host.ensure_local(&id).await.map_err(command_error)?,
        };
        // Last used now (a failure only leaves the old time).
        let _ = self.blocking(move |host| host.store().touch(&id, Host::now_ms()).map_err(command_error)).await;
        let mut canvas = self.canvas();
        canvas.apply_intent(CanvasIntent::OpenArtifact { artifact: ArtifactTab::for_stored(&record.id, &record.name, &record.mime) }).map_err(canvas_error)?;
        self.changed(&canvas);
        Ok(())
    }

    /// Opens a stored artifact in the focused pane with its viewer at a search hit: a PDF page, a
    /// table row, a text line (`canvas-changed`).
    pub async fn artifact_open_at(&self, id: String, place: FocusPlace, position: u32) -> Result<(), CommandError> {
        let host = self.host()?;
        let record = match host.open_by_ranges(&id).await.map_err(command_error)? {
            Some(record) => record,
            None => host.ensure_local(&id).await.map_err(command_error)?,
        };
        let _ = self.blocking(move |host| host.store().touch(&id, Host::now_ms()).map_err(command_error)).await;
        let mut canvas = self.canvas();
        canvas.open_artifact_at(ArtifactTab::for_stored(&record.id, &record.name, &record.mime), Some((place, u64::from(position))));
        self.changed(&canvas);
        Ok(())
    }

    /// Files from the disk for a tool's file argument: picked in the native open dialog (one, or
    /// several for a list), each stored as an artifact of this session so it is sent, audited and
    /// re-run by reference like any stored file. Empty when the user cancelled.
    pub async fn artifact_import_pick(&self, multiple: bool) -> Result<Vec<ArtifactRecord>, CommandError> {
        let window = self.window.get().ok_or_else(|| CommandError::bug("the MCP Canvas window is not ready"))?.clone();
        let title = if multiple { "Choose files to send" } else { "Choose a file to send" }.to_owned();
        let paths = tokio::task::spawn_blocking(move || window.choose_open_paths(title, multiple)).await.map_err(join_error)?;
        self.artifact_import_paths(paths.into_iter().map(|p| p.display().to_string()).collect()).await
    }

    /// Files dropped from the desktop (their paths), stored as artifacts of this session.
    pub async fn artifact_import_paths(&self, paths: Vec<String>) -> Result<Vec<ArtifactRecord>, CommandError> {
        self.blocking(move |host| {
            paths
                .iter()
                .map(|path| {
                    mcp_canvas_host::files_in::store_local_file(host.store(), Path::new(path), host.session_id(), Host::now_ms())
                        .map_err(|reason| CommandError::new(ErrorKind::Refused, reason))
                })
                .collect()
        })
        .await
    }

    /// "Save as…": the window's native dialog says where, then the store writes a verified copy
    /// (through a temp file beside it). The path, or `None` when the user cancelled.
    pub async fn artifact_save_as(&self, id: String) -> Result<Option<String>, CommandError> {
        let store = self.host()?.store().clone();
        let record = self.host()?.ensure_local(&id).await.map_err(command_error)?;
        let dialog = SaveDialog {
            title: format!("Save {}", record.name),
            file_name: artifact_files::safe_file_name(&record.name, &record.id),
            extension: Path::new(&record.name).extension().and_then(|e| e.to_str()).map(str::to_owned),
        };
        let Some(path) = self.choose_save_path(dialog).await? else { return Ok(None) };
        let destination = path.clone();
        tokio::task::spawn_blocking(move || store.export(&id, &destination).and_then(|_| store.touch(&id, Host::now_ms())))
            .await
            .map_err(join_error)?
            .map_err(command_error)?;
        Ok(Some(path.display().to_string()))
    }

    /// "Open with the system application": a private, verified copy (`opened/<id>/<name>`)
    /// handed to the platform's opener; programs and active content are refused with the reason.
    /// The native "Save as…" dialog; the path, or `None` when the user cancelled. It waits for
    /// the user, so on the blocking pool: neither the main thread nor an async worker.
    pub(crate) async fn choose_save_path(&self, dialog: SaveDialog) -> Result<Option<std::path::PathBuf>, CommandError> {
        let window = self.window.get().ok_or_else(|| CommandError::bug("the MCP Canvas window is not ready"))?.clone();
        tokio::task::spawn_blocking(move || window.choose_save_path(dialog)).await.map_err(join_error)
    }

    pub async fn artifact_open_external(&self, id: String) -> Result<String, CommandError> {
        let host = self.host()?;
        host.ensure_local(&id).await.map_err(command_error)?;
        let (store, data_dir) = (host.store().clone(), host.data_dir().to_owned());
        let path = tokio::task::spawn_blocking(move || artifact_files::copy_for_opening(&store, &data_dir, &id)).await.map_err(join_error)?.map_err(|e| CommandError::new(ErrorKind::Refused, e.to_string()))?;
        opener::open(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CommandError::new(ErrorKind::Config, format!("no program to open files with was found ({} is not installed); the copy is at {}", opener::OPENER, path.display())),
            _ => CommandError::new(ErrorKind::Config, format!("could not open {}: {e}", path.display())),
        })?;
        Ok(path.display().to_string())
    }

    pub async fn server_statuses(&self) -> Result<Vec<ServerStatus>, CommandError> {
        Ok(self.host()?.server_statuses().await)
    }

    pub async fn restart_server(&self, server: String) -> Result<(), CommandError> {
        self.configured(&server)?.restart(&server).await.map_err(command_error)
    }

    /// `server`'s sign-in state (null: it does not sign in); its record (the OS keyring) is read
    /// on the blocking pool.
    pub async fn sign_in_state(&self, server: String) -> Result<Option<SignInView>, CommandError> {
        self.configured(&server)?.sign_in_view(&server).await.map_err(command_error)
    }

    /// Signs in to `server` in the system browser (the window hears `sign-in-started`).
    pub async fn sign_in(&self, server: String) -> Result<SignInView, CommandError> {
        self.configured(&server)?.sign_in(&server).await.map_err(command_error)
    }

    /// Forgets `server`'s tokens.
    pub async fn sign_out(&self, server: String) -> Result<SignInView, CommandError> {
        self.configured(&server)?.sign_out(&server).await.map_err(command_error)
    }

    /// The end of `server`'s log, at most [`LOG_TAIL_BYTES`], from a line boundary (read on the
    /// blocking pool).
    pub async fn server_log(&self, server: String) -> Result<String, CommandError> {
        self.configured(&server)?;
        self.blocking(move |host| host.server_log_tail(&server, LOG_TAIL_BYTES).map_err(command_error)).await
    }

    pub async fn stop_server(&self, server: String) -> Result<(), CommandError> {
        self.configured(&server)?.stop(&server).await;
        Ok(())
    }

    pub fn set_server_timeout(&self, server: String, seconds: Option<f64>) -> Result<(), CommandError> {
        self.configured(&server)?.set_server_timeout(&server, seconds).map_err(command_error)
    }

    pub fn settings_view(&self) -> Result<SettingsView, CommandError> {
        let host = self.host.as_ref().map_err(|reason| CommandError::new(ErrorKind::Config, reason.clone()))?;
        Ok(SettingsView::new(&host.settings(), host.data_dir()))
    }

    /// Changes `key` (`section.name`) to `value`, or back to its default for `None`; the theme
    /// applies at once, the rest from the next use.
    pub fn settings_set(&self, key: String, value: Option<String>) -> Result<SettingsView, CommandError> {
        let host = self.host.as_ref().map_err(|reason| CommandError::new(ErrorKind::Config, reason.clone()))?;
        let settings = host.set_setting(&key, value.as_deref()).map_err(command_error)?;
        if let Some(window) = self.window.get() {
            window.set_theme(settings.appearance.theme);
        }
        Ok(SettingsView::new(&settings, host.data_dir()))
    }
}

fn intent_name(intent: &CanvasIntent) -> String {
    serde_json::to_value(intent).ok().and_then(|v| v.get("intent").and_then(|i| i.as_str()).map(str::to_owned)).unwrap_or_else(|| "intent".into())
}

/// The app link (`mcp_canvas_host::app_link`): the proxy on the same data dir asks the user
/// through this app's questions and shows its calls in this canvas, exactly like the window's
/// own calls, then announces them (`proxied-call`).
impl AppRequests for App {
    fn confirm<'a>(&'a self, server: &'a str, tool: &'a str, arguments: &'a Map<String, Value>, on_behalf_of: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(self.questions.confirm(server, tool, arguments, on_behalf_of))
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        self.elicitation.form(request)
    }

    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        self.elicitation.url(request)
    }

    /// With this app's sampler: its policy and provider, the user's approval in its dialog, the
    /// exchange in the data dir's transcript.
    fn sample<'a>(&'a self, server: &'a str, request: SamplingRequest) -> BoxFuture<'a, Result<SamplingResult, SamplingError>> {
        Box::pin(async move {
            let host = self.host.as_ref().map_err(|e| SamplingError::new(FAILED, format!("the MCP Canvas app cannot answer `{server}`'s sampling request: {e}")))?;
            host.sampler().create_message(server, request, &NoCall).await
        })
    }

    fn show(&self, call: CallOutcome, app: Option<mcp_canvas_wire::AppCall>) {
        if self.window.get().is_none() {
            return;
        }
        self.apply_call(&call, app.as_ref());
        self.window.emit_or_log(AppEvent::ProxiedCall(call));
    }
}

/// Why the app has no host: its data dir could not be opened.
fn no_host(reason: &str) -> CommandError {
    CommandError::new(ErrorKind::Config, format!("MCP Canvas could not open its data directory: {reason}"))
}

/// A canvas intent that names a tab or pane that is gone.
fn canvas_error(e: mcp_canvas_canvas::CanvasError) -> CommandError {
    CommandError::new(ErrorKind::NotFound, e.to_string())
}
