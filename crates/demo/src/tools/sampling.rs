//! Tools that ask the client's LLM (MCP sampling, seed 001): `sample_text` (a plain completion)
//! and `sample_structured` (structured output through the `__schema__` meta-tool: exactly one
//! tool named `__schema__`, `toolChoice` required, answered by one assistant message whose single
//! `tool_use` block carries the object). Both refuse clearly when the client does not sample, and
//! quote the client's error verbatim when it declines (its message says how to set up a provider).
//! On protocol 2026-07-28 the request goes out inside an `input_required` result (MRTR) and the
//! completion comes back with the retried call; on older versions as a server→client request.
#![allow(deprecated)] // sampling is deprecated by SEP-2577; clients still answer it

use std::collections::BTreeMap;

use rmcp::{
    handler::server::tool::InputResponses,
    model::{
        CallToolResponse, CallToolResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, InputRequest, InputRequiredResult, JsonObject,
        ModelHint, ModelPreferences, SamplingMessage, SamplingMessageContentBlock, Tool, ToolChoice,
    },
    schemars,
    service::RequestContext,
    tool, tool_router, ErrorData, RoleServer, ServiceError,
};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{
    arguments::{parse as parse_args, schema},
    interactive::uses_input_required,
    DemoServer,
};

const NO_SAMPLING: &str = "This tool needs a client that answers sampling requests (MCP Canvas: configure a provider in Settings → Sampling).";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SampleTextArgs {
    /// What to ask the model.
    #[serde(default = "default_prompt")]
    #[schemars(length(min = 1, max = 4000))]
    pub prompt: String,
    /// The most tokens the answer may have.
    #[serde(default = "default_max_tokens")]
    #[schemars(range(min = 1, max = 4096))]
    pub max_tokens: u32,
}

fn default_prompt() -> String {
    "Write a two-line poem about the sea.".to_owned()
}
fn default_max_tokens() -> u32 {
    200
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SampleStructuredArgs {
    /// What the model should describe as a city record.
    #[serde(default = "default_topic")]
    #[schemars(length(min = 1, max = 200))]
    pub topic: String,
}

fn default_topic() -> String {
    "a small city".to_owned()
}

/// The schema `sample_structured` asks for.
pub fn city_schema() -> Map<String, Value> {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "population": {"type": "integer", "minimum": 0},
            "landmarks": {"type": "array", "items": {"type": "string"}, "maxItems": 5}
        },
        "required": ["name", "population"]
    })
    .as_object()
    .expect("an object")
    .clone()
}

fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(message.into())])
}

fn client_error(e: ServiceError) -> CallToolResult {
    match e {
        ServiceError::McpError(error) => tool_error(format!("The client did not give a completion: {}", error.message)),
        other => tool_error(format!("The sampling request failed: {other}")),
    }
}

/// The city record in a structured answer, or what is wrong with the answer. A hand-written check
/// of this one schema (required keys, types, the minimum, at most 5 landmarks): the demo carries
/// no JSON Schema validator.
pub(crate) fn read_city(result: &CreateMessageResult) -> Result<Map<String, Value>, String> {
    let blocks: Vec<&SamplingMessageContentBlock> = result.message.content.iter().collect();
    let [SamplingMessageContentBlock::ToolUse(call)] = blocks.as_slice() else {
        let kinds: Vec<String> = blocks.iter().map(|b| serde_json::to_value(b).ok().and_then(|v| v["type"].as_str().map(str::to_owned)).unwrap_or_default()).collect();
        return Err(format!("expected one tool_use block named __schema__, got [{}]", kinds.join(", ")));
    };
    if call.name != "__schema__" {
        return Err(format!("expected the tool_use to be named __schema__, got `{}`", call.name));
    }
    let input = &call.input;
    if !input.get("name").is_some_and(Value::is_string) {
        return Err(format!("`name` must be a string, got {}", input.get("name").map_or("nothing".into(), Value::to_string)));
    }
    if !input.get("population").and_then(Value::as_i64).is_some_and(|p| p >= 0) {
        return Err(format!("`population` must be an integer ≥ 0, got {}", input.get("population").map_or("nothing".into(), Value::to_string)));
    }
    if let Some(landmarks) = input.get("landmarks") {
        let ok = landmarks.as_array().is_some_and(|a| a.len() <= 5 && a.iter().all(Value::is_string));
        if !ok {
            return Err(format!("`landmarks` must be at most 5 strings, got {landmarks}"));
        }
    }
    Ok(input.clone())
}

fn samples(context: &RequestContext<RoleServer>) -> bool {
    context.client_capabilities().is_some_and(|capabilities| capabilities.sampling.is_some())
}

/// The key of the one sampling request each tool makes.
const SAMPLE_KEY: &str = "completion";

enum Sampled {
    Answer(CreateMessageResult),
    /// Return this to the client; it retries the call with the completion.
    NeedInput(InputRequiredResult),
}

/// Asks the client's LLM: an `input_required` round on 2026-07-28 (the answer arrives in the
/// retried call's `inputResponses`), else a server→client `sampling/createMessage` request.
async fn sample(context: &RequestContext<RoleServer>, responses: Option<&BTreeMap<String, Value>>, params: CreateMessageRequestParams) -> Result<Sampled, CallToolResult> {
    if uses_input_required(context) {
        if let Some(answer) = responses.and_then(|r| r.get(SAMPLE_KEY)) {
            return serde_json::from_value(answer.clone())
                .map(Sampled::Answer)
                .map_err(|e| tool_error(format!("The client's answer to `{SAMPLE_KEY}` is not a sampling result: {e}.")));
        }
        let requests = BTreeMap::from([(SAMPLE_KEY.to_owned(), InputRequest::CreateMessage(CreateMessageRequest::new(params)))]);
        return Ok(Sampled::NeedInput(InputRequiredResult::new(Some(requests), None)));
    }
    context.peer.create_message(params).await.map(Sampled::Answer).map_err(client_error)
}

#[tool_router(router = sampling_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        title = "Ask the client's LLM",
        description = "Asks the client's LLM (MCP sampling) for a plain completion of `prompt` and \
            returns its text, the model that answered and why it stopped.",
        input_schema = schema::<SampleTextArgs>(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn sample_text(&self, context: RequestContext<RoleServer>, InputResponses(responses): InputResponses, arguments: JsonObject) -> Result<CallToolResponse, ErrorData> {
        let args: SampleTextArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error.into()),
        };
        if !samples(&context) {
            return Ok(tool_error(NO_SAMPLING).into());
        }
        let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(args.prompt)], args.max_tokens)
            .with_model_preferences(ModelPreferences::new().with_hints(vec![ModelHint::new("smollm2")]));
        let mut params = params;
        params.system_prompt = Some("You are a concise assistant.".to_owned());
        let result = match sample(&context, responses.as_ref(), params).await {
            Ok(Sampled::Answer(result)) => result,
            Ok(Sampled::NeedInput(input)) => return Ok(input.into()),
            Err(error) => return Ok(error.into()),
        };
        let text: Vec<&str> = result.message.content.iter().filter_map(|b| b.as_text().map(|t| t.text.as_str())).collect();
        let stop = result.stop_reason.clone().unwrap_or_else(|| "unknown".to_owned());
        let path = if uses_input_required(&context) { "an input_required round" } else { "a sampling/createMessage request" };
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(format!("{}\n\n(model {}, stop reason {stop}, asked through {path})", text.join("\n"), result.model))]).into())
    }

    #[tool(
        title = "Ask the client's LLM for structured data",
        description = "Asks the client's LLM for a city record (name, population, landmarks) as \
            structured output through the `__schema__` meta-tool, checks it and returns it as \
            structuredContent.",
        input_schema = schema::<SampleStructuredArgs>(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn sample_structured(&self, context: RequestContext<RoleServer>, InputResponses(responses): InputResponses, arguments: JsonObject) -> Result<CallToolResponse, ErrorData> {
        let args: SampleStructuredArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error.into()),
        };
        if !samples(&context) {
            return Ok(tool_error(NO_SAMPLING).into());
        }
        let schema_tool = Tool::new("__schema__", "Respond with structured data matching this schema.", std::sync::Arc::new(city_schema()));
        let mut params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(format!("Describe {} as a city record.", args.topic))], 200);
        params.tools = Some(vec![schema_tool]);
        params.tool_choice = Some(ToolChoice::required());
        let result = match sample(&context, responses.as_ref(), params).await {
            Ok(Sampled::Answer(result)) => result,
            Ok(Sampled::NeedInput(input)) => return Ok(input.into()),
            Err(error) => return Ok(error.into()),
        };
        match read_city(&result) {
            Ok(city) => {
                let summary = format!("{} has a population of {} (model {}).", city["name"].as_str().unwrap_or_default(), city["population"], result.model);
                let mut out = CallToolResult::success(vec![rmcp::model::ContentBlock::text(summary)]);
                out.structured_content = Some(Value::Object(city));
                Ok(out.into())
            }
            Err(problem) => Ok(tool_error(format!("The client's answer is not the structured output asked for: {problem}.")).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::Role;

    fn result(content: Vec<SamplingMessageContentBlock>) -> CreateMessageResult {
        CreateMessageResult::new(SamplingMessage::new_multiple(Role::Assistant, content), "m".into())
    }

    #[test]
    fn only_one_valid_schema_tool_use_is_accepted() {
        let city = json!({"name": "Oslo", "population": 700000, "landmarks": ["Opera"]}).as_object().unwrap().clone();
        assert_eq!(read_city(&result(vec![SamplingMessageContentBlock::tool_use("c", "__schema__", city.clone())])).unwrap(), city);
        assert!(read_city(&result(vec![SamplingMessageContentBlock::text("Oslo")])).unwrap_err().contains("[text]"));
        assert!(read_city(&result(vec![SamplingMessageContentBlock::tool_use("c", "other", city.clone())])).unwrap_err().contains("`other`"));
        let negative = json!({"name": "X", "population": -3}).as_object().unwrap().clone();
        assert!(read_city(&result(vec![SamplingMessageContentBlock::tool_use("c", "__schema__", negative)])).unwrap_err().contains("population"));
    }

    #[test]
    fn defaults_apply() {
        let args: SampleTextArgs = parse_args(JsonObject::new()).unwrap();
        assert_eq!((args.prompt.as_str(), args.max_tokens), ("Write a two-line poem about the sea.", 200));
        let args: SampleStructuredArgs = parse_args(JsonObject::new()).unwrap();
        assert_eq!(args.topic, "a small city");
    }
}
