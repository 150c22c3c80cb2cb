//! [`ProxyServer`]: the MCP server the AI host talks to. Lists the tools, resources and prompts
//! of the chosen downstream servers under namespaced names, runs calls through the host
//! pipeline, and answers with model-safe results (see [`crate::shape`]).

use mcp_canvas_wire::apps::ToolUi;
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use mcp_canvas_host::{app_link::AppLink, files_in, CallControl, CallOptions, Host, HostError};
use mcp_canvas_elicitation::validation::needs_confirmation;
use mcp_canvas_client::{ChangedList, ProgressFn};
use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams, GetPromptResponse, Implementation,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig,
    },
    service::{NotificationContext, RequestContext},
    ErrorData, RoleServer, ServerHandler,
};
use serde_json::Value;

use crate::{
    elicit::Upstream,
    names::Prefixes,
    policy::{ConfirmPolicy, InlinePolicy},
    shape,
    viewer::{self, tools as view_tools, Viewer},
};

/// How long handing a finished call to the desktop app may take.
const SHOW_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(500);

/// What every upstream session of one proxy shares.
pub struct ProxyState {
    /// The host (connections, pipeline, store).
    pub host: Arc<Host>,
    /// The downstream servers exposed, in config order.
    pub servers: Vec<String>,
    /// Their name prefixes.
    pub prefixes: Prefixes,
    /// What stays inline.
    pub policy: InlinePolicy,
    /// The upstream client of the latest call (for questions downstream servers ask).
    pub upstream: Arc<Upstream>,
    /// The desktop app, when it runs.
    pub app: Arc<AppLink>,
    /// MCP Canvas's own view of a call's files (`None`: `--no-viewer`).
    pub viewer: Option<Viewer>,
    /// Which server each listed resource URI belongs to.
    resource_owners: Mutex<HashMap<String, String>>,
    /// The literal start of each listed resource template, with its server.
    template_prefixes: Mutex<Vec<(String, String)>>,
}

impl ProxyState {
    /// State for exposing `servers` of `host`.
    pub fn new(host: Arc<Host>, servers: Vec<String>, policy: InlinePolicy, upstream: Arc<Upstream>, app: Arc<AppLink>) -> Self {
        let prefixes = Prefixes::new(servers.iter().map(String::as_str));
        Self { host, servers, prefixes, policy, upstream, app, viewer: Some(Viewer::default()), resource_owners: Mutex::default(), template_prefixes: Mutex::default() }
    }

    /// Without MCP Canvas's own view (`mcp-canvas-cli proxy --no-viewer`).
    pub fn without_viewer(mut self) -> Self {
        self.viewer = None;
        self
    }

    fn exposed(&self, server: &str) -> bool {
        self.servers.iter().any(|s| s == server)
    }
}

/// One upstream session's handler.
#[derive(Clone)]
pub struct ProxyServer {
    state: Arc<ProxyState>,
}

impl ProxyServer {
    /// A handler over shared state.
    pub fn new(state: Arc<ProxyState>) -> Self {
        Self { state }
    }

    /// `ask` of every exposed server at once (a slow server delays the answer, not the others'
    /// starts), in config order.
    async fn each_server<T, F, Fut>(&self, ask: F) -> Vec<(String, Result<T, HostError>)>
    where
        T: Send + 'static,
        F: Fn(Arc<Host>, String) -> Fut,
        Fut: std::future::Future<Output = Result<T, HostError>> + Send + 'static,
    {
        let mut tasks = tokio::task::JoinSet::new();
        for (index, server) in self.state.servers.iter().enumerate() {
            let asked = ask(self.state.host.clone(), server.clone());
            let server = server.clone();
            tasks.spawn(async move { (index, server, asked.await) });
        }
        let mut answers = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            if let Ok(answer) = joined {
                answers.push(answer);
            }
        }
        answers.sort_by_key(|(index, _, _)| *index);
        answers.into_iter().map(|(_, server, answer)| (server, answer)).collect()
    }

    /// Our view, when it is on and the AI host renders MCP Apps: declared in this request's
    /// `_meta` (2026-07-28) or at `initialize`.
    fn viewer_for(&self, context: &RequestContext<RoleServer>) -> Option<&Viewer> {
        let viewer = self.state.viewer.as_ref()?;
        let capabilities = context.client_capabilities()?;
        Viewer::host_renders_views(&capabilities).then_some(viewer)
    }

    fn unknown_tool(&self, name: &str) -> ErrorData {
        ErrorData::invalid_params(format!("no tool named `{name}`: tools are named <server>{}<tool>; list them with tools/list", crate::names::SEPARATOR), None)
    }

    /// The arguments of a destructive tool are confirmed in the app when it runs, per the policy.
    /// `Err` is the tool error to return instead of calling.
    async fn confirmation(&self, server: &str, tool: &str, arguments: &serde_json::Map<String, Value>) -> Result<CallOptions, String> {
        match self.state.app.confirm(server, tool, arguments, "the MCP Canvas proxy").await {
            Some(true) => Ok(CallOptions { confirmed: true, ..CallOptions::default() }),
            Some(false) => Err(format!("The user declined to run `{tool}` of `{server}` in MCP Canvas. Nothing was changed.")),
            None if self.state.policy.confirm == ConfirmPolicy::Always => Err(format!(
                "`{tool}` of `{server}` may change or delete data, and MCP Canvas is set to confirm such tools in its window (proxy.toml: confirm = \"always\"), which is not running. Start MCP Canvas and try again."
            )),
            // The annotations went upstream unchanged: the AI host's own confirmation applied.
            None => Ok(CallOptions { confirmed: true, ..CallOptions::default() }),
        }
    }
}

/// Sends a call's progress to the upstream client, in order, as `notifications/progress` with
/// the client's token.
fn forward_progress(context: &RequestContext<RoleServer>) -> Option<ProgressFn> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
    tokio::spawn(async move {
        while let Some(params) = receiver.recv().await {
            if peer.notify_progress(params).await.is_err() {
                break;
            }
        }
    });
    Some(Arc::new(move |progress: &mcp_canvas_client::CallProgress| {
        let mut params = ProgressNotificationParam::new(token.clone(), progress.progress);
        params.total = progress.total;
        params.message = progress.message.clone();
        let _ = sender.send(params);
    }))
}

fn result_from_json(value: Value) -> Result<CallToolResult, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(format!("MCP Canvas built a result it cannot send: {e}"), None))
}

impl ServerHandler for ProxyServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .build();
        let servers = self.state.servers.join(", ");
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("mcp-canvas-proxy", env!("CARGO_PKG_VERSION")).with_title("MCP Canvas"))
            .with_instructions(format!(
                "MCP Canvas in front of these MCP servers: {servers}. Tools are named <server>__<tool>. Images, PDFs and other files \
                 the tools return are stored by MCP Canvas and shown to the user in its window; results carry a short summary and \
                 artifact:// resource links, which resources/read returns in full when you really need the bytes."
            ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Downstream `list_changed` → upstream, for this session, while it lasts.
        let mut changes = self.state.host.changes();
        let state = self.state.clone();
        let peer = context.peer;
        // Known before the first call: servers connected from now on are offered sampling with
        // tools when this client declared them.
        self.state.upstream.set(peer.clone());
        tokio::spawn(async move {
            loop {
                let change = match changes.recv().await {
                    Ok(change) => change,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                };
                if !state.exposed(&change.server) {
                    continue;
                }
                let sent = match change.list {
                    ChangedList::Tools => peer.notify_tool_list_changed().await,
                    ChangedList::Resources => peer.notify_resource_list_changed().await,
                    ChangedList::Prompts => peer.notify_prompt_list_changed().await,
                };
                if sent.is_err() || peer.is_transport_closed() {
                    break;
                }
            }
        });
    }

    async fn list_tools(&self, _request: Option<PaginatedRequestParams>, context: RequestContext<RoleServer>) -> Result<ListToolsResult, ErrorData> {
        let viewer = self.viewer_for(&context);
        let mut decorated = false;
        let mut tools = Vec::new();
        for (server, listed) in self.each_server(|host, server| async move { host.tool_definitions(&server).await }).await {
            match listed {
                Ok(definitions) => {
                    // App-only tools (MCP Apps `visibility: ["app"]`) are not the model's to call;
                    // every other tool goes up with its `_meta` (its `ui` view included).
                    for definition in definitions.iter() {
                        let ui = ToolUi::of(definition);
                        if !ToolUi::model_may_call(ui.as_ref()) {
                            continue;
                        }
                        // Its view is read from its server, whether or not resources were listed.
                        if let Some(uri) = ui.and_then(|ui| ui.resource_uri) {
                            self.state.resource_owners.lock().unwrap().entry(uri).or_insert_with(|| server.clone());
                        }
                        let mut tool = definition.clone();
                        tool.name = self.state.prefixes.expose(&server, &definition.name).expect("exposed servers have prefixes").into();
                        // File arguments take references for the model, never bytes.
                        let files = files_in::params(definition);
                        if !files.is_empty() {
                            tool.input_schema = std::sync::Arc::new(files_in::schema_for_model(&definition.input_schema, &files));
                        }
                        if viewer.is_some() && self.state.policy.viewer(&server, &definition.name) {
                            decorated |= Viewer::decorate_tool(&mut tool);
                        }
                        tools.push(tool);
                    }
                }
                // One server down must not hide the others' tools.
                Err(e) => crate::warn(format_args!("listing the tools of `{server}` failed: {e}")),
            }
        }
        if self.state.policy.search != crate::policy::SearchScope::Off {
            tools.push(crate::search::definition());
        }
        if decorated {
            // The view's own tools: `visibility: ["app"]`, so hosts give them to views only.
            tools.extend(view_tools::definitions());
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        if let (true, Some(viewer)) = (view_tools::is_ours(&request.name), self.state.viewer.as_ref()) {
            let env = view_tools::ToolEnv { viewer, host: &self.state.host, app: &self.state.app };
            let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
            return result_from_json(view_tools::call(env, &request.name, arguments).await).map(CallToolResponse::Complete);
        }
        if request.name == crate::search::NAME && self.state.policy.search != crate::policy::SearchScope::Off {
            let (host, scope) = (self.state.host.clone(), self.state.policy.search);
            let max_run = self.state.policy.limits("", "").max_base64_run;
            let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
            // SQLite and the files the snippets are cut from: off the async worker.
            let result = tokio::task::spawn_blocking(move || crate::search::call(&host, scope, max_run, &arguments))
                .await
                .map_err(|e| ErrorData::internal_error(format!("MCP Canvas failed while searching (a bug): {e}"), None))?;
            return result_from_json(result).map(CallToolResponse::Complete);
        }
        let Some((server, tool)) = self.state.prefixes.resolve(&request.name).filter(|(s, _)| self.state.exposed(s)) else {
            return Err(self.unknown_tool(&request.name));
        };
        let limits = self.state.policy.limits(server, tool);
        let error = |message: String| result_from_json(shape::upstream_error(&message, limits)).map(CallToolResponse::Complete);
        let definitions = match self.state.host.tool_definitions(server).await {
            Ok(definitions) => definitions,
            Err(e) => return error(e.to_string()),
        };
        let Some(definition) = definitions.iter().find(|t| t.name == tool) else {
            return Err(self.unknown_tool(&request.name));
        };
        if !ToolUi::model_may_call(ToolUi::of(definition).as_ref()) {
            return error(format!("tool `{tool}` of server `{server}` is for its App only (MCP Apps visibility [\"app\"]), not for the model"));
        }
        let mut arguments = request.arguments.clone().unwrap_or_default();
        // Files by path, from the folders proxy.toml lists: stored and given to the model first.
        let files = files_in::params(definition);
        if !files.is_empty() && !self.state.policy.file_folders.is_empty() {
            let (host, folders, given) = (self.state.host.clone(), self.state.policy.file_folders.clone(), arguments.clone());
            match tokio::task::spawn_blocking(move || crate::files::paths_to_references(&host, &files, &folders, given)).await {
                Ok(Ok(resolved)) => arguments = resolved,
                Ok(Err(message)) => return error(message),
                Err(e) => return Err(ErrorData::internal_error(format!("MCP Canvas failed while reading a file for `{server}`/`{tool}` (a bug): {e}"), None)),
            }
        }
        let mut options = if needs_confirmation(definition) {
            match self.confirmation(server, tool, &arguments).await {
                Ok(options) => options,
                Err(message) => return error(message),
            }
        } else {
            CallOptions::default()
        };
        // A model sends only files it was given (or from the listed folders).
        options.files = files_in::FileAccess::Model;
        self.state.upstream.set(context.peer.clone());
        let control = CallControl { timeout: None, cancel: Some(context.ct.clone()), progress: forward_progress(&context), call_id: None };
        match self.state.host.call_tool_detailed(server, tool, Value::Object(arguments), options, control).await {
            Ok(detail) => {
                // Live canvas: the app shows what arrived, when it runs — before the answer goes
                // upstream, so an AI host that quits right after it cannot lose the update; an app
                // that does not answer quickly delays nothing much.
                let _ = tokio::time::timeout(SHOW_TIMEOUT, self.state.app.show(&detail.call, detail.app.as_ref())).await;
                // The server's own resource links are read from that server.
                {
                    let mut owners = self.state.resource_owners.lock().unwrap();
                    for link in mcp_canvas_wire::offers::resource_links(&detail.call.outcome) {
                        owners.entry(link.uri).or_insert_with(|| server.to_owned());
                    }
                }
                let has_output_schema = definition.output_schema.is_some();
                // Reading the images it inlines is file I/O: off this (single) async worker.
                // The call goes to the blocking thread and comes back with its result (no copy).
                let store = self.state.host.store().clone();
                let (mut result, detail) = tokio::task::spawn_blocking(move || {
                    let result = shape::upstream_result(&detail, has_output_schema, limits, &store);
                    // What the model got, it may find again (`search_artifacts`) — not what was for the user only.
                    let shared: Vec<String> = detail.call.outcome.artifacts.iter().filter(|a| shape::for_model(a)).map(|a| a.id.clone()).collect();
                    if let Err(e) = store.share_with_model(&shared, Host::now_ms()) {
                        crate::warn(format_args!("recording what the model was given failed: {e}"));
                    }
                    (result, detail)
                })
                    .await
                    .map_err(|e| ErrorData::internal_error(format!("MCP Canvas failed while shaping the result of `{server}`/`{tool}` (a bug): {e}"), None))?;
                // Beside the content, never in it: the view's capability and the call's files.
                let own_view = viewer::has_own_view(definition);
                if let Some(viewer) = self.viewer_for(&context).filter(|_| !own_view && self.state.policy.viewer(server, tool)) {
                    viewer.attach(&mut result, &detail.call);
                }
                result_from_json(result).map(CallToolResponse::Complete)
            }
            Err(e @ HostError::UnknownTool { .. }) => Err(ErrorData::invalid_params(e.to_string(), None)),
            Err(e) => error(e.to_string()),
        }
    }

    async fn list_resources(&self, _request: Option<PaginatedRequestParams>, context: RequestContext<RoleServer>) -> Result<ListResourcesResult, ErrorData> {
        let mut resources = Vec::new();
        if self.viewer_for(&context).is_some() {
            resources.push(serde_json::from_value(viewer::resource_listing()).expect("the view's listing is a resource"));
        }
        let mut owners = HashMap::new();
        for (server, listed) in self.each_server(|host, server| async move { host.resource_definitions(&server).await }).await {
            match listed {
                Ok(Some((listed, _))) => {
                    for resource in listed {
                        // The first server listing a URI owns it.
                        if owners.contains_key(&resource.uri) {
                            crate::warn(format_args!("`{server}` lists {} too; the first server listing it serves it", resource.uri));
                            continue;
                        }
                        owners.insert(resource.uri.clone(), server.clone());
                        resources.push(resource);
                    }
                }
                Ok(None) => {}
                Err(e) => crate::warn(format_args!("listing the resources of `{server}` failed: {e}")),
            }
        }
        self.state.resource_owners.lock().unwrap().extend(owners);
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut templates = Vec::new();
        let mut prefixes = Vec::new();
        for (server, listed) in self.each_server(|host, server| async move { host.resource_definitions(&server).await }).await {
            match listed {
                Ok(Some((_, listed))) => {
                    for template in listed {
                        let literal = template.uri_template.split('{').next().unwrap_or_default().to_owned();
                        prefixes.push((literal, server.clone()));
                        templates.push(template);
                    }
                }
                Ok(None) => {}
                Err(e) => crate::warn(format_args!("listing the resource templates of `{server}` failed: {e}")),
            }
        }
        *self.state.template_prefixes.lock().unwrap() = prefixes;
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(&self, request: ReadResourceRequestParams, _context: RequestContext<RoleServer>) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        if let (viewer::VIEW_URI, Some(viewer)) = (uri, self.state.viewer.as_ref()) {
            return serde_json::from_value(viewer::resource_contents(viewer)).map(ReadResourceResponse::Complete).map_err(|e| ErrorData::internal_error(e.to_string(), None));
        }
        if let Some(id) = shape::artifact_id(uri) {
            // The catalog and the whole blob are read off this (single) async worker.
            let (store, uri, id) = (self.state.host.store().clone(), uri.to_owned(), id.to_owned());
            return tokio::task::spawn_blocking(move || read_artifact(&store, &uri, &id))
                .await
                .map_err(|e| ErrorData::internal_error(format!("MCP Canvas failed while reading an artifact (a bug): {e}"), None))?
                .map(ReadResourceResponse::Complete);
        }
        let owner = self.state.resource_owners.lock().unwrap().get(uri).cloned().or_else(|| {
            // A URI made from a template: the server whose template's literal start is longest.
            let prefixes = self.state.template_prefixes.lock().unwrap();
            prefixes.iter().filter(|(p, _)| !p.is_empty() && uri.starts_with(p.as_str())).max_by_key(|(p, _)| p.len()).map(|(_, s)| s.clone())
        });
        let Some(server) = owner else {
            return Err(ErrorData::resource_not_found(format!("no resource `{uri}`: list resources (and templates) first; stored artifacts are artifact://localhost/<id>"), None));
        };
        match self.state.host.read_resource_contents(&server, uri).await {
            Ok(result) => Ok(ReadResourceResponse::Complete(result)),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }

    async fn list_prompts(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListPromptsResult, ErrorData> {
        let mut prompts = Vec::new();
        for (server, listed) in self.each_server(|host, server| async move { host.prompt_definitions(&server).await }).await {
            match listed {
                Ok(listed) => {
                    for mut prompt in listed {
                        prompt.name = self.state.prefixes.expose(&server, &prompt.name).expect("exposed servers have prefixes");
                        prompts.push(prompt);
                    }
                }
                Err(e) => crate::warn(format_args!("listing the prompts of `{server}` failed: {e}")),
            }
        }
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(&self, request: GetPromptRequestParams, _context: RequestContext<RoleServer>) -> Result<GetPromptResponse, ErrorData> {
        let Some((server, name)) = self.state.prefixes.resolve(&request.name).filter(|(s, _)| self.state.exposed(s)) else {
            return Err(ErrorData::invalid_params(format!("no prompt named `{}`: prompts are named <server>__<prompt>", request.name), None));
        };
        match self.state.host.get_prompt(server, name, request.arguments.unwrap_or_default()).await {
            Ok(result) => Ok(GetPromptResponse::Complete(result)),
            Err(e @ HostError::InvalidArguments { .. }) => Err(ErrorData::invalid_params(e.to_string(), None)),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

/// A stored artifact as a resource: text for text types, else a blob.
fn read_artifact(store: &mcp_canvas_store::ArtifactStore, uri: &str, id: &str) -> Result<ReadResourceResult, ErrorData> {
    let record = store.get(id).map_err(|e| ErrorData::resource_not_found(format!("artifact `{id}` is not in the MCP Canvas store (deleted, or never stored): {e}"), None))?;
    let bytes = std::fs::read(store.blob_path(&record.sha256))
        .map_err(|e| ErrorData::resource_not_found(format!("artifact `{id}` is catalogued but its bytes are gone ({e}); `mcp-canvas-cli artifacts verify` reports such entries"), None))?;
    let textual = record.mime.starts_with("text/") || matches!(record.mime.as_str(), "application/json" | "image/svg+xml");
    let contents = match (textual, String::from_utf8(bytes)) {
        (true, Ok(text)) => ResourceContents::text(text, uri).with_mime_type(record.mime.clone()),
        (_, Ok(text)) => blob(uri, text.into_bytes(), &record.mime),
        (_, Err(e)) => blob(uri, e.into_bytes(), &record.mime),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

fn blob(uri: &str, bytes: Vec<u8>, mime: &str) -> ResourceContents {
    use base64::Engine as _;
    ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri).with_mime_type(mime.to_owned())
}
