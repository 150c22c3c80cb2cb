//! The demo server: its `ServerHandler` and the tool groups, one module each. Each group's
//! `#[tool_router(router = ...)]` block is added into the one router in [`DemoServer::new`].

mod charts;
mod patterns;
mod interactive;
mod sampling;
mod arguments;
mod documents;
mod files;
mod resources;
mod tasks;
mod notes;
mod prompts;
mod skills;
#[path = "../pdf.rs"]
mod pdf;

use rmcp::{
    handler::server::router::tool::ToolRouter,
    model::{Implementation, ServerCapabilities, ServerConfig},
    tool_handler, ServerHandler,
};

#[derive(Clone)]
pub struct DemoServer {
    #[allow(dead_code, reason = "read by the code tool_handler generates")]
    tool_router: ToolRouter<Self>,
    /// The tasks `research_report` started (SEP-2663).
    tasks: rmcp::task_manager::TaskManager,
    /// Clients listening for list changes (`subscriptions/listen`, 2026-07-28).
    listeners: std::sync::Arc<std::sync::Mutex<Vec<rmcp::service::SubscriptionSink>>>,
    /// The scratch note (`demo://notes/scratch`, one per process) and who watches it.
    notes: std::sync::Arc<std::sync::Mutex<notes::Notes>>,
    /// This connection's number (its `resources/subscribe` subscriptions are its own).
    connection: u64,
}

impl DemoServer {
    pub fn new() -> Self {
        Self {
            tool_router: Self::chart_router() + Self::interactive_router() + Self::document_router() + Self::patterns_router() + Self::sampling_router() + Self::task_router() + Self::notes_router() + Self::files_router(),
            tasks: rmcp::task_manager::TaskManager::new(),
            listeners: Default::default(),
            notes: notes::shared(),
            connection: {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_resources().enable_resources_subscribe().enable_prompts().enable_completions().enable_skills().enable_tasks().build())
            .with_server_info(
                Implementation::new("mcp-canvas-demo", env!("CARGO_PKG_VERSION"))
                    .with_title("MCP Canvas demo server"),
            )
            .with_instructions("Demo tools that return charts and text, for trying MCP Canvas.")
    }

    /// 2026-07-28: list changes and resource updates go to clients through `subscriptions/listen`;
    /// the demo sends `tools/list_changed` (from `announce_tools_changed`) and updates of the
    /// scratch note (from `write_note`).
    fn accepted_subscription_filter(&self, requested: &rmcp::model::SubscriptionFilter) -> Option<rmcp::model::SubscriptionFilter> {
        let mut accepted = rmcp::model::SubscriptionFilter::builder();
        let tools = requested.tools_list_changed == Some(true);
        if tools {
            accepted = accepted.tools_list_changed();
        }
        let notes = notes::accepted(requested);
        if let Some(uris) = &notes {
            accepted = accepted.resource_subscriptions(uris.clone());
        }
        (tools || notes.is_some()).then(|| accepted.build())
    }

    #[allow(deprecated, reason = "resources/subscribe is how clients before 2026-07-28 watch a resource")]
    async fn subscribe(&self, request: rmcp::model::SubscribeRequestParams, context: rmcp::service::RequestContext<rmcp::RoleServer>) -> Result<(), rmcp::ErrorData> {
        self.subscribe_to_note(&request.uri, context.peer)
    }

    #[allow(deprecated, reason = "see subscribe")]
    async fn unsubscribe(&self, _request: rmcp::model::UnsubscribeRequestParams, _context: rmcp::service::RequestContext<rmcp::RoleServer>) -> Result<(), rmcp::ErrorData> {
        self.unsubscribe_from_note();
        Ok(())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), rmcp::ErrorData> {
        let sink = context.sink().clone();
        if notes::watches(&sink) {
            self.watch_note(sink.clone());
        }
        if sink.accepted().tools_list_changed == Some(true) {
            self.listeners.lock().unwrap().push(sink);
        }
        context.cancelled().await;
        Ok(())
    }

    async fn get_task(&self, request: rmcp::model::GetTaskParams, _context: rmcp::service::RequestContext<rmcp::RoleServer>) -> Result<rmcp::model::GetTaskResult, rmcp::ErrorData> {
        self.tasks.get_task(&request.task_id).map(rmcp::model::GetTaskResult::new)
    }

    async fn update_task(&self, request: rmcp::model::UpdateTaskParams, _context: rmcp::service::RequestContext<rmcp::RoleServer>) -> Result<(), rmcp::ErrorData> {
        self.tasks.update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(&self, request: rmcp::model::CancelTaskParams, _context: rmcp::service::RequestContext<rmcp::RoleServer>) -> Result<(), rmcp::ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }

    async fn list_resources(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, rmcp::ErrorData> {
        let mut list = resources::list();
        list.resources.push(notes::resource(&self.notes.lock().unwrap()));
        Ok(list)
    }

    async fn list_skills(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListSkillsResult, rmcp::ErrorData> {
        Ok(skills::list())
    }

    async fn list_prompts(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, rmcp::ErrorData> {
        Ok(prompts::list())
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, rmcp::ErrorData> {
        prompts::get(&request.name, request.arguments).map(Into::into)
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, rmcp::ErrorData> {
        prompts::complete(&request).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, rmcp::ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, rmcp::ErrorData> {
        if let Some(file) = skills::read(&request.uri) {
            return Ok(file.into());
        }
        if request.uri == notes::NOTE_URI {
            return Ok(notes::read(&self.notes.lock().unwrap()).into());
        }
        resources::read(&request.uri).map(Into::into)
    }
}
