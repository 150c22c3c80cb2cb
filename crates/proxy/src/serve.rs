//! Running the proxy: over stdio (what AI hosts start), or Streamable HTTP on 127.0.0.1.

use std::{convert::Infallible, sync::Arc};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{body::Incoming, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_canvas_host::{app_link::AppLink, Host};
use rmcp::{
    transport::streamable_http_server::{session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService},
    ServiceExt as _,
};

use crate::{elicit::Upstream, policy::InlinePolicy, server::ProxyState, ProxyServer};

/// What to expose and how.
pub struct ProxyOptions {
    /// The downstream servers to expose (empty: every configured server).
    pub servers: Vec<String>,
    /// What stays inline.
    pub policy: InlinePolicy,
    /// The upstream client of the latest call, shared with the host's elicitation handler.
    pub upstream: Arc<Upstream>,
    /// Give forwarded tools MCP Canvas's own MCP App view (where the AI host renders MCP Apps
    /// and `proxy.toml` does not turn it off).
    pub viewer: bool,
}

fn state(host: Arc<Host>, options: ProxyOptions) -> Result<Arc<ProxyState>, String> {
    // An imported AI-host config may list this proxy itself: starting it would recurse forever.
    let (selves, configured): (Vec<String>, Vec<String>) = host.server_names().into_iter().partition(|name| host.server_entry(name).is_some_and(|e| is_this_proxy(e.command.as_deref(), &e.args)));
    if let Some(named) = options.servers.iter().find(|s| selves.contains(s)) {
        return Err(format!("server `{named}` is MCP Canvas's own proxy; it cannot be put in front of itself"));
    }
    for name in &selves {
        crate::warn(format_args!("skipping server `{name}`: it is this proxy itself (`mcp-canvas-cli proxy`)"));
    }
    let servers = if options.servers.is_empty() {
        configured
    } else {
        if let Some(unknown) = options.servers.iter().find(|s| !configured.contains(s)) {
            return Err(format!("no server named `{unknown}` in {}; configured: {}", host.data_dir().join("servers.json").display(), configured.join(", ")));
        }
        options.servers
    };
    let app = Arc::new(AppLink::new(host.data_dir()));
    let state = ProxyState::new(host, servers, options.policy, options.upstream, app);
    Ok(Arc::new(if options.viewer { state } else { state.without_viewer() }))
}

/// Why the proxy could not serve (its servers, the transport, the port); the message says what
/// to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ServeError(pub String);

/// Serves one upstream client on stdin/stdout until it disconnects.
pub async fn serve_stdio(host: Arc<Host>, options: ProxyOptions) -> Result<(), ServeError> {
    serve_stdio_inner(host, options).await.map_err(ServeError)
}

async fn serve_stdio_inner(host: Arc<Host>, options: ProxyOptions) -> Result<(), String> {
    let state = state(host, options)?;
    let (input, output) = stdio();
    let guarded = crate::stdio_guard::Guarded::new(input, output);
    let replies = guarded.replies();
    match ProxyServer::new(state).serve(guarded).await {
        Ok(service) => {
            let _ = service.waiting().await;
            Ok(())
        }
        Err(e) => {
            // Garbage before the handshake still gets its error reply, even when the AI host
            // closed its end right after it (rmcp drops the transport without closing it).
            // (Not for ever: an AI host that stopped reading would keep a full pipe full.)
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), replies.written()).await;
            Err(format!("the MCP handshake with the AI host failed: {e}"))
        }
    }
}

/// Stdin and stdout. When they are pipes or sockets (as an AI host starts us: Node's and
/// Electron's `child_process` hand a child Unix socket pairs, most others pipes), they are read and
/// written through the runtime's event loop; tokio's own `stdin()`/`stdout()` hand every read and
/// write to a blocking thread, two thread hops per call. A terminal or a file keeps those.
#[cfg(not(unix))]
fn stdio() -> (Box<dyn tokio::io::AsyncRead + Send + Unpin>, Box<dyn tokio::io::AsyncWrite + Send + Unpin>) {
    (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
}

/// (Unix: the pipe or socket is set non-blocking, which the AI host's end does not notice. Not
/// one stderr writes to as well — `2>&1` —: a write to stderr would then fail with EAGAIN.)
#[cfg(unix)]
fn stdio() -> (Box<dyn tokio::io::AsyncRead + Send + Unpin>, Box<dyn tokio::io::AsyncWrite + Send + Unpin>) {
    use std::os::fd::AsFd as _;
    use tokio::net::unix::pipe;
    let stderr = identity(std::io::stderr().as_fd());
    let input: Box<dyn tokio::io::AsyncRead + Send + Unpin> = match evented(std::io::stdin().as_fd(), stderr) {
        Some(Evented::Socket(socket)) => Box::new(socket),
        Some(Evented::Pipe(fd)) => pipe::Receiver::from_owned_fd(fd).map_or_else(|_| Box::new(tokio::io::stdin()) as Box<_>, |p| Box::new(p) as Box<_>),
        None => Box::new(tokio::io::stdin()),
    };
    let output: Box<dyn tokio::io::AsyncWrite + Send + Unpin> = match evented(std::io::stdout().as_fd(), stderr) {
        Some(Evented::Socket(socket)) => Box::new(socket),
        Some(Evented::Pipe(fd)) => pipe::Sender::from_owned_fd(fd).map_or_else(|_| Box::new(tokio::io::stdout()) as Box<_>, |p| Box::new(p) as Box<_>),
        None => Box::new(tokio::io::stdout()),
    };
    (input, output)
}

#[cfg(unix)]
enum Evented {
    /// Registered with the event loop.
    Socket(tokio::net::UnixStream),
    /// A pipe, for tokio's `pipe` to register.
    Pipe(std::os::fd::OwnedFd),
}

/// The device and inode `fd` refers to.
#[cfg(unix)]
fn identity(fd: std::os::fd::BorrowedFd<'_>) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    let metadata = std::fs::File::from(fd.try_clone_to_owned().ok()?).metadata().ok()?;
    Some((metadata.dev(), metadata.ino()))
}

/// A duplicate of `fd` the event loop can wait on, when it is a socket or a pipe that stderr does
/// not write to (`stderr`: its [`identity`]); `None` for anything else.
#[cfg(unix)]
fn evented(fd: std::os::fd::BorrowedFd<'_>, stderr: Option<(u64, u64)>) -> Option<Evented> {
    use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
    let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let metadata = file.metadata().ok()?;
    if stderr == Some((metadata.dev(), metadata.ino())) {
        return None;
    }
    if metadata.file_type().is_fifo() {
        return Some(Evented::Pipe(file.into()));
    }
    if !metadata.file_type().is_socket() {
        return None;
    }
    let stream = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(file));
    let restore = stream.try_clone().ok()?;
    stream.set_nonblocking(true).ok()?;
    match tokio::net::UnixStream::from_std(stream) {
        Ok(socket) => Some(Evented::Socket(socket)),
        Err(_) => {
            // tokio's blocking stdio reads it instead: blocking again.
            let _ = restore.set_nonblocking(false);
            None
        }
    }
}

/// Serves Streamable HTTP at `http://127.0.0.1:<port>/mcp` until the process ends; `ready` gets
/// the bound address (port 0 picks a free one).
pub async fn serve_http(host: Arc<Host>, options: ProxyOptions, port: u16, ready: impl FnOnce(std::net::SocketAddr)) -> Result<(), ServeError> {
    serve_http_inner(host, options, port, ready).await.map_err(ServeError)
}

async fn serve_http_inner(host: Arc<Host>, options: ProxyOptions, port: u16, ready: impl FnOnce(std::net::SocketAddr)) -> Result<(), String> {
    let state = state(host, options)?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    ready(listener.local_addr().map_err(|e| e.to_string())?);
    let service = Arc::new(StreamableHttpService::new(
        move || Ok(ProxyServer::new(state.clone())),
        Arc::new(LocalSessionManager::default()),
        // Loopback Host names only (rmcp's default, against DNS rebinding), and no browser
        // page at all: any request carrying an Origin header is refused.
        StreamableHttpServerConfig::default().enforce_origin_validation(),
    ));
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                crate::warn(format_args!("accept failed: {e}"));
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
                        let mut response = Response::new(Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed());
                        *response.status_mut() = StatusCode::NOT_FOUND;
                        Ok(response)
                    }
                }
            });
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), handler).await;
        });
    }
}

/// Whether a server entry starts MCP Canvas's proxy (`…/mcp-canvas-cli [options] proxy …`).
fn is_this_proxy(command: Option<&str>, args: &[String]) -> bool {
    let program = command.map(|c| std::path::Path::new(c).file_name().and_then(|n| n.to_str()).unwrap_or(c));
    program == Some("mcp-canvas-cli") && args.iter().any(|a| a == "proxy")
}

#[cfg(test)]
mod tests {
    use super::is_this_proxy;

    #[test]
    fn the_proxy_recognises_itself_in_a_config() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(is_this_proxy(Some("/usr/bin/mcp-canvas-cli"), &args(&["proxy"])));
        assert!(is_this_proxy(Some("/home/me/my tools/mcp-canvas-cli"), &args(&["--data-dir", "/home/me/c", "proxy", "--servers", "demo"])));
        assert!(!is_this_proxy(Some("mcp-canvas-cli"), &args(&["call", "demo", "render_chart"])));
        assert!(!is_this_proxy(Some("/usr/bin/mcp-canvas-demo"), &[]));
        assert!(!is_this_proxy(Some("npx"), &args(&["some-proxy", "proxy"])));
        assert!(!is_this_proxy(None, &[]));
    }
}
