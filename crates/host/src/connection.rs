//! One live connection to a stdio MCP server through rmcp, with its stderr captured.

use std::{
    collections::VecDeque,
    path::{Path, PathBuf},
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    model::{ClientCapabilities, ClientConfig, Implementation, Tool},
    service::RunningService,
    transport::{async_rw::AsyncRwTransport, streamable_http_client::StreamableHttpClientTransportConfig, StreamableHttpClientTransport},
    Peer, RoleClient, ServiceExt,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::{config::ServerEntry, error::HostError};

/// How many stderr lines are kept in memory for error messages.
const STDERR_TAIL_LINES: usize = 20;
/// Largest single JSON-RPC message accepted from a stdio server.
const MAX_MESSAGE_BYTES: usize = 1 << 30;
/// How long the MCP handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) struct ServerConnection {
    pub name: String,
    pub peer: Peer<RoleClient>,
    pub tools: Vec<Tool>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, ClientConfig>>>,
    child: tokio::sync::Mutex<Option<tokio::process::Child>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    pub log_path: PathBuf,
}

pub(crate) struct SpawnContext<'a> {
    pub name: &'a str,
    pub entry: &'a ServerEntry,
    pub config_path: &'a Path,
    pub log_path: PathBuf,
}

impl ServerConnection {
    /// Starts the server, completes the MCP handshake and lists its tools.
    pub async fn start(ctx: SpawnContext<'_>, program: PathBuf) -> Result<Self, HostError> {
        let mut command = tokio::process::Command::new(&program);
        command.args(&ctx.entry.args).envs(&ctx.entry.env).kill_on_drop(true);
        if let Some(cwd) = &ctx.entry.cwd {
            command.current_dir(cwd);
        }
        let spawn_error = |reason: String| HostError::Spawn {
            server: ctx.name.to_owned(),
            command: ctx.entry.target(),
            reason,
            config: ctx.config_path.to_owned(),
        };
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(spawn_error("its stdio could not be captured".into()));
        };
        let stderr = child.stderr.take();
        // rmcp's default drops any line over 16 MiB (and the call then just times out); tool
        // results carrying 100 MB+ of base64 are exactly what this app exists for.
        let transport = AsyncRwTransport::<RoleClient, _, _>::new(stdout, stdin).with_max_line_length(MAX_MESSAGE_BYTES);

        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = stderr.map(|stderr| tokio::spawn(capture_stderr(stderr, ctx.log_path.clone(), stderr_tail.clone())));

        let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, client_info().serve(transport)).await;
        let handshake_error = |reason: String| async {
            // Give the stderr reader a moment to drain what a crashing server printed.
            if let Some(done) = stderr_done {
                let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
            }
            HostError::Handshake {
                server: ctx.name.to_owned(),
                reason,
                stderr_tail: stderr_tail.lock().unwrap().iter().cloned().collect(),
                log: ctx.log_path.clone(),
            }
        };
        let service = match handshake {
            Ok(Ok(service)) => service,
            Ok(Err(e)) => return Err(handshake_error(format!("{e} (the server may have exited at once)")).await),
            Err(_) => return Err(handshake_error(format!("no answer within {} s", HANDSHAKE_TIMEOUT.as_secs())).await),
        };
        Self::ready(ctx, service, Some(child), stderr_tail).await
    }

    /// Connects to a Streamable HTTP server (rmcp handles the session id, the standalone GET
    /// stream, `Last-Event-ID` resumption and the server's `retry` delay).
    pub async fn connect_http(ctx: SpawnContext<'_>, url: &str) -> Result<Self, HostError> {
        let mut headers = std::collections::HashMap::new();
        for (name, value) in &ctx.entry.headers {
            let bad = |what: &str| HostError::Config { path: ctx.config_path.to_owned(), reason: format!("server `{}`: header `{name}` has an invalid {what}", ctx.name) };
            headers.insert(http::HeaderName::try_from(name.as_str()).map_err(|_| bad("name"))?, http::HeaderValue::try_from(value.as_str()).map_err(|_| bad("value"))?);
        }
        let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
        config.max_sse_event_size = MAX_MESSAGE_BYTES;
        let transport = StreamableHttpClientTransport::from_config(config);
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let service = match tokio::time::timeout(HANDSHAKE_TIMEOUT, client_info().serve(transport)).await {
            Ok(Ok(service)) => service,
            Ok(Err(e)) => return Err(HostError::Handshake { server: ctx.name.to_owned(), reason: format!("{e} (is the server running at {url}?)"), stderr_tail: Vec::new(), log: ctx.log_path }),
            Err(_) => return Err(HostError::Handshake { server: ctx.name.to_owned(), reason: format!("no answer from {url} within {} s", HANDSHAKE_TIMEOUT.as_secs()), stderr_tail: Vec::new(), log: ctx.log_path }),
        };
        Self::ready(ctx, service, None, stderr_tail).await
    }

    async fn ready(ctx: SpawnContext<'_>, service: RunningService<RoleClient, ClientConfig>, child: Option<tokio::process::Child>, stderr_tail: Arc<Mutex<VecDeque<String>>>) -> Result<Self, HostError> {
        let peer = service.peer().clone();
        let mut connection = Self {
            name: ctx.name.to_owned(),
            peer,
            tools: Vec::new(),
            service: tokio::sync::Mutex::new(Some(service)),
            child: tokio::sync::Mutex::new(child),
            stderr_tail,
            log_path: ctx.log_path,
        };
        connection.tools = connection.peer.list_all_tools().await.map_err(|e| connection.request_error("listing tools", e.to_string()))?;
        Ok(connection)
    }

    pub fn request_error(&self, what: &str, reason: String) -> HostError {
        HostError::Request {
            server: self.name.clone(),
            what: what.to_owned(),
            reason,
            stderr_tail: self.stderr_tail.lock().unwrap().iter().cloned().collect(),
            log: self.log_path.clone(),
        }
    }

    /// Closes the session (stdin closes, as the MCP stdio shutdown asks), waits briefly for the
    /// server to exit, then kills it.
    pub async fn shutdown(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(Duration::from_secs(3)).await;
        }
        if let Some(mut child) = self.child.lock().await.take() {
            if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

fn client_info() -> ClientConfig {
    ClientConfig::new(ClientCapabilities::default(), Implementation::new("mcp-canvas", env!("CARGO_PKG_VERSION")).with_title("MCP Canvas"))
}

/// Appends the server's stderr to its log file and keeps the last lines in memory.
async fn capture_stderr(stderr: tokio::process::ChildStderr, log_path: PathBuf, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut log = match log_path.parent().map(std::fs::create_dir_all) {
        Some(Ok(())) | None => tokio::fs::OpenOptions::new().create(true).append(true).open(&log_path).await.ok(),
        Some(Err(_)) => None,
    };
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(file) = log.as_mut() {
            let _ = file.write_all(format!("{line}\n").as_bytes()).await;
        }
        let mut tail = tail.lock().unwrap();
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}
