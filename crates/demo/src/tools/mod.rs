//! The demo server: its `ServerHandler` and the tool groups, one module each. Each group's
//! `#[tool_router(router = ...)]` block is added into the one router in [`DemoServer::new`].

mod charts;
mod patterns;
mod interactive;
mod sampling;
mod arguments;
mod documents;
mod resources;
mod tasks;
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
}

impl DemoServer {
    pub fn new() -> Self {
        Self {
            tool_router: Self::chart_router() + Self::interactive_router() + Self::document_router() + Self::patterns_router() + Self::sampling_router() + Self::task_router(),
            tasks: rmcp::task_manager::TaskManager::new(),
            listeners: Default::default(),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_resources().enable_tasks().build())
            .with_server_info(
                Implementation::new("mcp-canvas-demo", env!("CARGO_PKG_VERSION"))
                    .with_title("MCP Canvas demo server"),
            )
            .with_instructions("Demo tools that return charts and text, for trying MCP Canvas.")
    }

    /// 2026-07-28: list changes go to clients through `subscriptions/listen`; the demo sends only
    /// `tools/list_changed` (from `announce_tools_changed`).
    fn accepted_subscription_filter(&self, requested: &rmcp::model::SubscriptionFilter) -> Option<rmcp::model::SubscriptionFilter> {
        requested.tools_list_changed.filter(|wanted| *wanted).map(|_| rmcp::model::SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), rmcp::ErrorData> {
        self.listeners.lock().unwrap().push(context.sink().clone());
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
        Ok(resources::list())
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
        resources::read(&request.uri).map(Into::into)
    }
}
