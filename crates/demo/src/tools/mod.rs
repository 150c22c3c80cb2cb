//! The demo server: its `ServerHandler` and the tool groups, one module each. Each group's
//! `#[tool_router(router = ...)]` block is added into the one router in [`DemoServer::new`].

mod charts;

use rmcp::{
    handler::server::router::tool::ToolRouter,
    model::{Implementation, ServerCapabilities, ServerConfig},
    tool_handler, ServerHandler,
};

#[derive(Debug, Clone)]
pub struct DemoServer {
    #[allow(dead_code, reason = "read by the code tool_handler generates")]
    tool_router: ToolRouter<Self>,
}

impl DemoServer {
    pub fn new() -> Self {
        Self { tool_router: Self::chart_router() }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("mcp-canvas-demo", env!("CARGO_PKG_VERSION"))
                    .with_title("MCP Canvas demo server"),
            )
            .with_instructions("Demo tools that return charts and text, for trying MCP Canvas.")
    }
}
