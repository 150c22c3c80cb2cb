//! `mcp-canvas-conformance`: the client side of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, client mode), driven through `mcp-canvas-host` exactly
//! as the app and the CLI drive it.
//!
//! The suite starts a scenario server and runs `mcp-canvas-conformance <server URL>` with the
//! scenario's name in `MCP_CONFORMANCE_SCENARIO`. The adapter configures that URL as a Streamable
//! HTTP server in a throwaway data dir and does what the scenario expects:
//!
//! - `initialize`: connect (initialize + initialized + tools/list), then close;
//! - `tools_call`: call `add_numbers` with `{a, b}`;
//! - `sse-retry`: call `test_reconnection`, whose response arrives only after the client
//!   reconnects with `Last-Event-ID` once the server's `retry` delay has passed;
//! - `elicitation-sep1034-client-defaults`: call `test_client_elicitation_defaults` and accept its
//!   form with the schema's defaults.
//!
//! Exit 0 when the scenario ran, 1 (with the reason on stderr) when it could not. The suite
//! itself judges the protocol traffic. `tests/reference_servers.rs` runs every scenario.

use std::{process::ExitCode, sync::Arc, time::Duration};

use mcp_canvas_host::{
    elicitation::{form_fields, BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest},
    CallOptions, Host, HostError, HostOptions,
};
use serde_json::{json, Map, Value};

const SERVER: &str = "conformance";
/// The spec version the pinned suite tests.
const SPEC_VERSION: &str = "2025-11-25";

/// Accepts every form with the defaults its schema declares (and nothing else).
struct AcceptDefaults;

impl ElicitationHandler for AcceptDefaults {
    fn modes(&self) -> ElicitationModes {
        ElicitationModes { form: true, url: false }
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        let defaults: Map<String, Value> = form_fields(&request.schema).into_iter().filter_map(|field| Some((field.name, field.default?))).collect();
        eprintln!("elicitation from `{}`: {:?}; accepting with defaults {}", request.server, request.message, Value::Object(defaults.clone()));
        Box::pin(std::future::ready(FormAnswer::Accept(defaults)))
    }

    fn url<'a>(&'a self, _request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(std::future::ready(UrlAnswer::Decline("the conformance adapter opens no URLs".into())))
    }
}

fn main() -> ExitCode {
    let (Some(url), Ok(scenario)) = (std::env::args().skip(1).next_back(), std::env::var("MCP_CONFORMANCE_SCENARIO")) else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<name> mcp-canvas-conformance <server URL>");
        return ExitCode::from(2);
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime starts");
    match runtime.block_on(run(&scenario, &url)) {
        Ok(done) => {
            println!("{scenario}: {done}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{scenario}: {e}");
            ExitCode::from(1)
        }
    }
}

async fn run(scenario: &str, url: &str) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a data dir: {e}"))?;
    // The suite (0.1.16) checks spec 2025-11-25 and fails a client that offers a newer version
    // in `initialize` (rmcp's newest is 2026-07-28), so the entry asks for the suite's version.
    let servers = json!({ "mcpServers": { SERVER: { "type": "http", "url": url, "protocol_version": SPEC_VERSION } } });
    std::fs::write(dir.path().join("servers.json"), servers.to_string()).map_err(|e| e.to_string())?;
    let options = HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(20), session: None };
    let host = Host::open(options).map_err(|e| e.to_string())?.with_elicitation(Arc::new(AcceptDefaults));
    let result = scenario_steps(&host, scenario).await.map_err(|e| e.to_string());
    host.shutdown().await;
    result
}

async fn scenario_steps(host: &Host, scenario: &str) -> Result<String, HostError> {
    let call = |tool: &'static str, arguments: Value| async move {
        let outcome = host.call_tool_with(SERVER, tool, arguments, CallOptions { confirmed: true, ..CallOptions::default() }).await?.outcome;
        let texts: Vec<&str> = outcome.texts.iter().map(|t| t.text.as_str()).collect();
        Ok::<_, HostError>(format!("{tool} answered {:?}{}", texts.join(" "), outcome.error.map(|e| format!(" (tool error {}: {})", e.code, e.message)).unwrap_or_default()))
    };
    match scenario {
        "initialize" => Ok(format!("connected; {} tool(s)", host.tools(SERVER).await?.len())),
        "tools_call" => call("add_numbers", json!({"a": 2, "b": 3})).await,
        "sse-retry" => call("test_reconnection", json!({})).await,
        "elicitation-sep1034-client-defaults" => call("test_client_elicitation_defaults", json!({})).await,
        other => {
            // Unknown scenario: connect and list the tools, which is all a client can do unasked.
            let tools = host.tools(SERVER).await?;
            Ok(format!("scenario `{other}` has no steps here; connected and listed {} tool(s)", tools.len()))
        }
    }
}
