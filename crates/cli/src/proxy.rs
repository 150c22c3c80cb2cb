//! `mcp-canvas-cli proxy`: MCP Canvas as the one MCP server an AI host starts, in front of the
//! configured servers (see the `mcp-canvas-proxy` crate). `--print-config HOST` prints the
//! snippet for that AI host's config instead.

use std::{path::Path, process::ExitCode, sync::Arc};

use mcp_canvas_host::{app_link::AppLink, Host};
use mcp_canvas_proxy::{
    elicit::{ProxyElicitation, Upstream},
    host_config::{snippet, AiHost},
    policy::InlinePolicy,
    sample::ProxySampling,
    ProxyOptions,
};

/// `proxy --print-config HOST`: the snippet on stdout, where it goes on stderr.
pub fn print_config(host: &str, data_dir: Option<&Path>, servers: &[String]) -> ExitCode {
    let ai_host = match AiHost::parse(host) {
        Ok(ai_host) => ai_host,
        Err(e) => return crate::fail(false, &e.to_string()),
    };
    let program = std::env::current_exe().and_then(|p| p.canonicalize()).unwrap_or_else(|_| "mcp-canvas-cli".into());
    let mut args = Vec::new();
    if let Some(dir) = data_dir {
        args.push("--data-dir".to_owned());
        args.push(std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned()).display().to_string());
    }
    if !servers.is_empty() {
        args.push("--servers".to_owned());
        args.push(servers.join(","));
    }
    eprintln!("paste into {}", ai_host.config_location());
    outln!("{}", serde_json::to_string_pretty(&snippet(ai_host, &program, &args)).expect("snippets serialize"));
    ExitCode::SUCCESS
}

/// Serves until the AI host disconnects (stdio) or the process is stopped (HTTP).
pub async fn serve(host: Host, servers: Vec<String>, http: Option<u16>, viewer: bool) -> ExitCode {
    let policy = match InlinePolicy::load(host.data_dir()) {
        Ok(policy) => policy,
        Err(e) => return crate::fail(false, &e.to_string()),
    };
    let upstream = Arc::new(Upstream::default());
    let app = Arc::new(AppLink::new(host.data_dir()));
    let host = host.with_audit_after_answer().with_elicitation(Arc::new(ProxyElicitation { upstream: upstream.clone(), app: app.clone() }));
    let sampling = ProxySampling::new(&host, upstream.clone(), app);
    let host = Arc::new(host.with_sampling_service(Arc::new(sampling)));
    // With a team store: upload what earlier runs left queued, and retry while it is away.
    host.keep_team_store_in_sync();
    // The model's `search_artifacts` searches what this indexes, off the call path.
    host.start_search_indexer();
    let options = ProxyOptions { servers, policy, upstream, viewer };
    let serving = async {
        match http {
            None => mcp_canvas_proxy::serve_stdio(host.clone(), options).await,
            Some(port) => mcp_canvas_proxy::serve_http(host.clone(), options, port, |address| eprintln!("mcp-canvas proxy serving MCP on http://{address}/mcp")).await,
        }
    };
    // Stopped by the AI host (SIGTERM) or a terminal (Ctrl-C): the servers are shut down properly
    // (stdin closed, then killed), not left running.
    let served = tokio::select! {
        served = serving => served,
        () = stop_signal() => Ok(()),
    };
    host.shutdown().await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::fail(false, &e.to_string()),
    }
}

/// Resolves on SIGTERM or SIGINT.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut terminate) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
