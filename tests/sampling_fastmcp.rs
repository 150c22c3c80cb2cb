//! Sampling *with tools* answered for a real third-party server: a FastMCP server from PyPI
//! (`tests/fastmcp/sampling_tools_server.py`, FastMCP installed by `scripts/setup.sh --tests`)
//! whose tool calls `ctx.sample(..., tools=[get_weather])`. FastMCP runs the tool loop itself, so
//! our host answers two `sampling/createMessage` requests: the first with the model's
//! `tool_use`, the second — after FastMCP ran `get_weather` — carrying its `tool_result`.
//!
//! The provider is scripted (`mcp_canvas_e2e::scripted_provider`): a small real model does not
//! call tools reliably, and what is tested is our MCP ⇄ OpenAI conversion of `tool_use` and
//! `tool_result` with a server we did not write, not a model.

use std::{
    path::Path,
    time::Duration,
};

use mcp_canvas_e2e::scripted_provider::{text_answer, tool_call_answer, ScriptedProvider};
use mcp_canvas_sampling::{sampler::Decision, Block, StopReason};
use mcp_canvas_host::{CallOptions, Host, HostOptions};
use serde_json::{json, Value};

use mcp_canvas_e2e::fastmcp::python as fastmcp_python;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fastmcp_samples_with_tools_and_the_tool_loop_round_trips() {
    let python = fastmcp_python();
    let provider = ScriptedProvider::start([
        tool_call_answer("call_weather_1", "get_weather", &json!({"city": "Lisbon"})),
        text_answer("Lisbon is sunny: walk by the river, then have pastéis de nata."),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("fastmcp/sampling_tools_server.py");
    let servers = json!({ "mcpServers": { "fastmcp": {"command": python, "args": [server]} } });
    std::fs::write(dir.path().join("servers.json"), servers.to_string()).unwrap();
    std::fs::write(dir.path().join("settings.toml"), provider.settings("always")).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(120), session: None }).unwrap();

    let outcome = host.call_tool_with("fastmcp", "plan_trip", json!({"city": "Lisbon"}), CallOptions { confirmed: true, ..CallOptions::default() }).await.unwrap();
    assert!(outcome.outcome.error.is_none(), "{:#?}", outcome.outcome);
    let text: String = outcome.outcome.texts.iter().map(|t| t.text.as_str()).collect();
    assert!(text.contains("Lisbon is sunny"), "the final completion is the tool's answer: {text}");
    assert!(text.contains("[get_weather ran for: Lisbon]"), "FastMCP ran the tool the model called: {text}");

    // What the provider saw: the tool in OpenAI form both times; then the call and its result.
    let seen = provider.seen();
    assert_eq!(seen.len(), 2, "{seen:#?}");
    for request in &seen {
        assert_eq!(request.path, "/v1/chat/completions");
        let tools = request.body["tools"].as_array().unwrap_or_else(|| panic!("no tools: {}", request.body));
        assert_eq!(tools.len(), 1, "{tools:?}");
        assert_eq!((tools[0]["type"].as_str(), tools[0]["function"]["name"].as_str()), (Some("function"), Some("get_weather")));
        assert!(tools[0]["function"]["description"].as_str().unwrap().contains("weather"), "{tools:?}");
        let parameters = &tools[0]["function"]["parameters"];
        assert_eq!((&parameters["properties"]["city"]["type"], &parameters["required"]), (&json!("string"), &json!(["city"])), "{parameters}");
    }
    let first = seen[0].body["messages"].as_array().unwrap();
    assert_eq!(first.iter().map(|m| m["role"].as_str().unwrap()).collect::<Vec<_>>(), ["system", "user"], "{first:?}");
    assert!(first[1]["content"].as_str().unwrap().contains("Lisbon"), "{first:?}");
    let second = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(second.len(), 4, "system, user, the assistant's call, its result: {second:#?}");
    assert_eq!(second[..2], first[..]);
    let call = &second[2];
    assert_eq!(call["role"], "assistant", "{call}");
    let calls = call["tool_calls"].as_array().unwrap_or_else(|| panic!("no tool_calls: {call}"));
    assert_eq!(calls.len(), 1, "{call}");
    assert_eq!((calls[0]["id"].as_str(), calls[0]["type"].as_str(), calls[0]["function"]["name"].as_str()), (Some("call_weather_1"), Some("function"), Some("get_weather")));
    let arguments: Value = serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Lisbon"}));
    assert_eq!(second[3], json!({"role": "tool", "tool_call_id": "call_weather_1", "content": "sunny, 21 °C in Lisbon"}));

    // The transcript, newest first: both exchanges, answered without asking.
    let log = host.sampling_log(Some("fastmcp"), 10).unwrap();
    assert_eq!(log.len(), 2, "{log:#?}");
    let (answer, tool_use) = (&log[0], &log[1]);
    for record in &log {
        assert_eq!((record.decision, record.provider.as_str(), record.model.as_str()), (Decision::Automatic, "scripted", "scripted-model"));
        assert_eq!(record.request.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["get_weather"]);
        assert!(record.error.is_none() && record.exchange.is_some(), "{record:#?}");
    }
    let response = tool_use.response.as_ref().unwrap();
    assert_eq!(response.stop_reason, Some(StopReason::ToolUse));
    let [Block::ToolUse { id, name, input }] = response.content.as_slice() else { panic!("one tool_use block: {response:?}") };
    assert_eq!((id.as_str(), name.as_str(), Value::Object(input.clone())), ("call_weather_1", "get_weather", json!({"city": "Lisbon"})));
    assert_eq!(answer.request.messages.len(), 3, "{:#?}", answer.request.messages);
    let [Block::ToolResult { tool_use_id, content, .. }] = answer.request.messages[2].content.as_slice() else { panic!("{:#?}", answer.request.messages[2]) };
    assert_eq!((tool_use_id.as_str(), content[0]["text"].as_str()), ("call_weather_1", Some("sunny, 21 °C in Lisbon")));
    assert!(answer.response.as_ref().unwrap().content.iter().any(|b| b.as_text().is_some_and(|t| t.contains("Lisbon is sunny"))));
    host.shutdown().await;
}
