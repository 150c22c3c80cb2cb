//! `mcp-canvas-demo`: the MCP server bundled with MCP Canvas.
//!
//! It exists so that a first run shows real content, and so that the tests have a real server to
//! talk to. Everything it returns is generated at run time and is deterministic for its inputs.

mod chart;
mod tools;

use rmcp::{transport::stdio, ServiceExt};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    if let Some(arg) = std::env::args().nth(1) {
        match arg.as_str() {
            "--version" => {
                println!("mcp-canvas-demo {}", env!("CARGO_PKG_VERSION"));
                return Ok(());
            }
            "--help" | "-h" => {
                println!("mcp-canvas-demo: the demo MCP server of MCP Canvas. Speaks MCP over stdio.");
                return Ok(());
            }
            other => anyhow::bail!("unknown argument `{other}`; run with --help"),
        }
    }
    eprintln!("mcp-canvas-demo {} serving on stdio", env!("CARGO_PKG_VERSION"));
    let service = tools::DemoServer::new().serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
