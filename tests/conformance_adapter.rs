//! `mcp-canvas-conformance`: the client side of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, client mode), driven through `mcp-canvas-host` exactly
//! as the app and the CLI drive it.
//!
//! The suite starts a scenario server and runs `mcp-canvas-conformance <server URL>` with the
//! scenario's name in `MCP_CONFORMANCE_SCENARIO`. The adapter configures that URL as a Streamable
//! HTTP server in a throwaway data dir and does what the scenario expects:
//!
//! - connect as the app does (`server/discover`, falling back to `initialize`) and list the tools;
//! - when the scenario's context (`MCP_CONFORMANCE_CONTEXT`) names `toolCalls`, make those;
//! - `json-schema-2020-12-preservation`: send the focal tool's `inputSchema`, as the host keeps
//!   it, back through `json_schema_echo`;
//! - otherwise call every listed tool once with the least arguments its schema accepts
//!   (elicitation forms are accepted with their defaults, `input_required` rounds answered).
//!
//! Exit 0 when the scenario ran, 1 (with the reason on stderr) when it could not. The suite
//! itself judges the protocol traffic. `tests/reference_servers.rs` runs every scenario.

use std::{process::ExitCode, sync::Arc, time::Duration};

use mcp_canvas_elicitation::{form_fields, BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_client::oauth::{Headless, TokenStorage};
use mcp_canvas_host::{signin::SignInPolicy, CallOptions, Host, HostError, HostOptions};
use serde_json::{json, Map, Value};

const SERVER: &str = "conformance";
/// The client ID metadata document the suite's authorization servers expect from a client that
/// has one (MCP Canvas hosts none of its own; a user names theirs as `oauth.client_metadata_url`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

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
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT").ok().and_then(|c| serde_json::from_str(&c).ok()).unwrap_or_default();
    // No version is named: the host probes with `server/discover` and falls back to `initialize`,
    // as it does for every server a user adds. A pre-registered client (the scenario's context)
    // goes where a user puts theirs: its ID in servers.json, its secret with the tokens.
    let mut oauth = json!({ "client_metadata_url": CLIENT_METADATA_URL });
    if let Some(client_id) = context.get("client_id").and_then(Value::as_str) {
        oauth["client_id"] = json!(client_id);
    }
    // The auth extensions, configured as a user would for such a server (the scenario's context
    // holds what the user would have been given: keys, tokens, the identity provider).
    let private_key = context.get("private_key_pem").and_then(Value::as_str);
    match scenario {
        "auth/client-credentials-basic" | "auth/client-credentials-jwt" => {
            oauth["grant"] = json!("client_credentials");
            if let Some(alg) = context.get("signing_algorithm") {
                oauth["signing_algorithm"] = alg.clone();
            }
        }
        "auth/dpop" | "auth/dpop-nonce" => oauth["dpop"] = json!(true),
        "auth/wif-jwt-bearer" => {
            // The workload's token where a platform projects it: a file.
            let token = dir.path().join("workload-token");
            std::fs::write(&token, context.get("valid_jwt").and_then(Value::as_str).unwrap_or_default()).map_err(|e| e.to_string())?;
            oauth["grant"] = json!("jwt_bearer");
            oauth["workload_token_file"] = json!(token);
        }
        "auth/enterprise-managed-authorization" => {
            let id_token = dir.path().join("id-token");
            std::fs::write(&id_token, context.get("idp_id_token").and_then(Value::as_str).unwrap_or_default()).map_err(|e| e.to_string())?;
            oauth["grant"] = json!("enterprise");
            oauth["enterprise"] = json!({ "idp_issuer": context["idp_issuer"], "idp_token_endpoint": context["idp_token_endpoint"], "idp_client_id": context["idp_client_id"], "id_token_file": id_token });
        }
        _ => {}
    }
    let servers = json!({ "mcpServers": { SERVER: { "type": "http", "url": url, "oauth": oauth } } });
    std::fs::write(dir.path().join("servers.json"), servers.to_string()).map_err(|e| e.to_string())?;
    let options = HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(20), session: None };
    // Signing in as a user whose browser goes straight through (the suite's authorization
    // servers ask nothing): tokens in the throwaway data dir, never the user's keyring.
    let host = Host::open(options)
        .map_err(|e| e.to_string())?
        .with_elicitation(Arc::new(AcceptDefaults))
        .with_token_storage(TokenStorage::File)
        .with_browser(Arc::new(Headless), SignInPolicy { when_connecting: true, during_calls: true });
    if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
        host.set_client_secret(SERVER, Some(secret.to_owned())).await.map_err(|e| e.to_string())?;
    }
    if let Some(pem) = private_key {
        host.set_private_key(SERVER, Some(pem.to_owned())).await.map_err(|e| e.to_string())?;
    }
    let result = scenario_steps(&host, scenario, &context).await.map_err(|e| e.to_string());
    host.shutdown().await;
    result
}

async fn scenario_steps(host: &Host, scenario: &str, context: &Value) -> Result<String, HostError> {
    // A call that fails is reported and the scenario goes on: the suite judges the traffic, and
    // some scenarios' servers answer only the requests they test (`tools/call` on a server that
    // only lists its tools is `Method not found`).
    let call = |tool: String, arguments: Value| async move {
        Ok::<_, HostError>(match host.call_tool_with(SERVER, &tool, arguments, CallOptions { confirmed: true, ..CallOptions::default() }).await {
            Ok(done) => {
                let outcome = done.outcome;
                let texts: Vec<&str> = outcome.texts.iter().map(|t| t.text.as_str()).collect();
                format!("{tool} answered {:?}{}", texts.join(" "), outcome.error.map(|e| format!(" (tool error {}: {})", e.code, e.message)).unwrap_or_default())
            }
            Err(e) => format!("{tool} failed: {e}"),
        })
    };
    // Skills (SEP-2640): list them (nothing is read by listing), then load each as a user would
    // — its SKILL.md, verified against the listing, then its other files — unless the scenario
    // only checks that listing fetches nothing.
    if scenario.starts_with("sep-2640-client-") {
        return skills_steps(host, scenario).await;
    }
    let tools = host.tools(SERVER).await?;
    let mut done = vec![format!("connected; {} tool(s)", tools.len())];
    // The calls the scenario names in its context, as given.
    if let Some(calls) = context.get("toolCalls").and_then(Value::as_array) {
        for named in calls {
            let tool = named.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            done.push(call(tool, named.get("arguments").cloned().unwrap_or_else(|| json!({}))).await?);
        }
        return Ok(done.join("; "));
    }
    match scenario {
        "initialize" => {}
        // Round-trips the focal tool's inputSchema, as the host keeps it, through the echo tool.
        "json-schema-2020-12-preservation" => {
            let focal = tools.iter().find(|t| t.name != "json_schema_echo").expect("the scenario lists a focal tool");
            done.push(call("json_schema_echo".into(), json!({ "schema": focal.input_schema })).await?);
        }
        // Otherwise every listed tool once, with the least arguments its schema accepts.
        _ => {
            for tool in &tools {
                done.push(call(tool.name.clone(), least_arguments(&tool.input_schema)).await?);
            }
        }
    }
    Ok(done.join("; "))
}

async fn skills_steps(host: &Host, scenario: &str) -> Result<String, HostError> {
    let list = host.skills(SERVER).await?;
    let mut done = vec![format!("{} skill(s) listed", list.skills.len())];
    if scenario == "sep-2640-client-no-prefetch" {
        return Ok(done.join("; "));
    }
    for skill in &list.skills {
        match host.read_skill(SERVER, &skill.uri, None).await {
            Ok(read) => {
                done.push(format!("loaded {} ({})", skill.name, read.verified.join(", ")));
                for file in skill.files.iter().flatten().filter(|f| f.uri != skill.uri) {
                    match host.read_skill(SERVER, &skill.uri, Some(&file.uri)).await {
                        Ok(_) => done.push(format!("read {}", file.path)),
                        Err(e) => done.push(format!("refused {}: {e}", file.path)),
                    }
                }
            }
            Err(e) => done.push(format!("refused {}: {e}", skill.name)),
        }
    }
    Ok(done.join("; "))
}

/// The required properties of an object schema, each with the simplest value of its type.
fn least_arguments(schema: &Value) -> Value {
    let required = schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    let properties = schema.get("properties").and_then(Value::as_object);
    let arguments: Map<String, Value> = required
        .map(|name| {
            let kind = properties.and_then(|p| p.get(name)).and_then(|p| p.get("type")).and_then(Value::as_str);
            let value = match kind {
                Some("number" | "integer") => json!(1),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                Some("array") => json!([]),
                _ => json!("test"),
            };
            (name.to_owned(), value)
        })
        .collect();
    Value::Object(arguments)
}
