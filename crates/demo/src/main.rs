//! `mcp-canvas-demo`: the MCP server bundled with MCP Canvas.
//!
//! It exists so that a first run shows real content, and so that the tests have a real server to
//! talk to. Everything it returns is generated at run time and is deterministic for its inputs
//! (except the live dashboard, which is live).
//!
//! It speaks MCP over stdio by default, or over Streamable HTTP on `127.0.0.1` with `--http PORT`.

mod chart;
mod dashboard;
mod tools;

use std::{convert::Infallible, sync::Arc};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{body::Incoming, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::{
    transport::{
        stdio,
        streamable_http_server::{
            session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
        },
    },
    ServiceExt,
};

const HELP: &str = "\
mcp-canvas-demo: the demo MCP server of MCP Canvas.

Usage:
  mcp-canvas-demo               speak MCP over stdio (what MCP Canvas starts by default)
  mcp-canvas-demo --http PORT   serve MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp
                                (PORT 0 picks a free port; the address is printed on stderr)
  mcp-canvas-demo --version     print the version
  mcp-canvas-demo --help        print this help

Either way, the first call to open_dashboard or link_account also starts a small web server on
127.0.0.1 (a port the OS picks) for the dashboard and the account-linking page. Every request to it
needs the short-lived token the tool returned.
";

enum Mode {
    Stdio,
    Http(u16),
}

fn parse_args(mut args: impl Iterator<Item = String>) -> anyhow::Result<Option<Mode>> {
    let mut mode = Mode::Stdio;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--version" | "-V" => {
                println!("mcp-canvas-demo {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--help" | "-h" => {
                print!("{HELP}");
                return Ok(None);
            }
            "--http" => {
                let value = args.next().ok_or_else(|| anyhow::anyhow!("--http needs a port, e.g. --http 8765"))?;
                mode = Mode::Http(parse_port(&value)?);
            }
            other if other.starts_with("--http=") => mode = Mode::Http(parse_port(&other["--http=".len()..])?),
            other => anyhow::bail!("unknown argument `{other}`; run with --help"),
        }
    }
    Ok(Some(mode))
}

fn parse_port(value: &str) -> anyhow::Result<u16> {
    value
        .parse()
        .map_err(|_| anyhow::anyhow!("--http takes a port number from 0 to 65535, got `{value}`"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mode = match parse_args(std::env::args().skip(1)) {
        Ok(Some(mode)) => mode,
        Ok(None) => return Ok(()),
        Err(usage) => {
            eprintln!("mcp-canvas-demo: {usage}");
            std::process::exit(2);
        }
    };
    match mode {
        Mode::Stdio => {
            eprintln!("mcp-canvas-demo {} serving on stdio", env!("CARGO_PKG_VERSION"));
            let service = tools::DemoServer::new().serve(stdio()).await?;
            service.waiting().await?;
        }
        Mode::Http(port) => serve_http(port).await?,
    }
    Ok(())
}

/// Serves MCP over Streamable HTTP at `http://127.0.0.1:<port>/mcp`, one session per client.
async fn serve_http(port: u16) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let address = listener.local_addr()?;
    let service = Arc::new(StreamableHttpService::new(
        || Ok(tools::DemoServer::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
    eprintln!(
        "mcp-canvas-demo {} serving MCP on http://{address}/mcp",
        env!("CARGO_PKG_VERSION")
    );
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("mcp-canvas-demo: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                async move {
                    if request.uri().path() == "/mcp" {
                        Ok::<_, Infallible>(service.handle(request).await)
                    } else {
                        let mut response = Response::new(
                            Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed(),
                        );
                        *response.status_mut() = StatusCode::NOT_FOUND;
                        Ok(response)
                    }
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}
