//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`): OpenAI, llama.cpp's
//! server, LM Studio, vLLM, Ollama's `/v1`. MCP `tool_use` blocks become `tool_calls`, MCP
//! `tool_result` blocks become `role: "tool"` messages; `__schema__` goes as `response_format`.

use serde_json::{json, Map, Value};

use super::{fallback_id, function_tool, join, tool_message_text, BoxFuture, Completion, Http, Provider, ProviderConfig, ProviderError, ProviderRequest, StructuredMode, Usage};
use crate::{
    message::{Block, Role, SamplingRequest, StopReason, ToolChoiceMode},
    sampler::stop_reason_for,
};

/// The OpenAI-compatible provider.
pub struct OpenAi {
    pub(super) config: ProviderConfig,
    pub(super) http: Http,
}

impl Provider for OpenAi {
    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let body = body(&request, self.config.structured).map_err(|e| self.http.unsupported(e.to_string()))?;
            let headers: Vec<(&str, String)> = self.http.key.iter().map(|k| ("authorization", format!("Bearer {}", k.expose()))).collect();
            let answer = self.http.post(&join(&self.config.base_url, "chat/completions"), &headers, &body).await?;
            let mut completion = read(&answer, request.model).map_err(|e| self.http.bad(e.to_string()))?;
            if request.schema.is_some() {
                completion.structured_text = Some(completion.content.iter().filter_map(Block::as_text).collect());
            }
            Ok(completion)
        })
    }
}

/// The request body for `request`.
/// The request in this provider's format, or why it cannot be said in it.
pub fn body(request: &ProviderRequest<'_>, structured: StructuredMode) -> Result<Value, super::FormatError> {
    body_text(request, structured).map_err(super::FormatError::Unsupported)
}

fn body_text(request: &ProviderRequest<'_>, structured: StructuredMode) -> Result<Value, String> {
    let sampling = request.request;
    let mut body = json!({ "model": request.model, "messages": messages(sampling)?, "max_tokens": request.max_tokens });
    let object = body.as_object_mut().expect("an object");
    if let Some(t) = sampling.temperature {
        object.insert("temperature".into(), json!(t));
    }
    if !sampling.stop_sequences.is_empty() {
        object.insert("stop".into(), json!(sampling.stop_sequences));
    }
    if !sampling.tools.is_empty() {
        object.insert("tools".into(), sampling.tools.iter().map(function_tool).collect());
        if let Some(choice) = sampling.tool_choice {
            let choice = match choice.mode {
                ToolChoiceMode::Auto => "auto",
                ToolChoiceMode::Required => "required",
                ToolChoiceMode::None => "none",
            };
            object.insert("tool_choice".into(), json!(choice));
        }
    }
    if let Some(schema) = request.schema {
        let format = match structured {
            StructuredMode::JsonObjectSchema => json!({"type": "json_object", "schema": schema}),
            // Strict only where OpenAI accepts it (else a 400); our own check enforces the schema either way.
            _ => json!({"type": "json_schema", "json_schema": {"name": "__schema__", "schema": schema, "strict": strict_compatible(schema)}}),
        };
        object.insert("response_format".into(), format);
    }
    Ok(body)
}

/// Keywords OpenAI's strict mode does not take (its "supported schemas" list, read conservatively).
const NOT_STRICT: &[&str] = &[
    "allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties", "unevaluatedProperties",
    "unevaluatedItems", "propertyNames", "minProperties", "maxProperties", "contains", "minContains", "maxContains", "uniqueItems",
    "prefixItems", "minLength", "maxLength",
];
/// The string formats strict mode knows.
const STRICT_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// Whether OpenAI takes `schema` with `strict: true`: the root an object, every object closed
/// (`additionalProperties: false`) with all its properties `required`, no keyword strict mode
/// lacks, at most 10 levels deep. Walks `properties`, `items`, `$defs` / `definitions`, `anyOf`.
pub fn strict_compatible(schema: &Map<String, Value>) -> bool {
    is_object(schema) && !schema.contains_key("anyOf") && strict_node(schema, 0)
}

fn is_object(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

fn strict_node(node: &Map<String, Value>, depth: usize) -> bool {
    if depth > 10 || NOT_STRICT.iter().any(|k| node.contains_key(*k)) {
        return false;
    }
    if node.get("format").is_some_and(|f| !f.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f))) {
        return false;
    }
    let mut children: Vec<&Value> = Vec::new();
    if is_object(node) {
        let properties = node.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = node.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        if node.get("additionalProperties") != Some(&Value::Bool(false)) || properties.is_some_and(|p| p.keys().any(|k| !required.contains(&k.as_str()))) {
            return false;
        }
        children.extend(properties.into_iter().flat_map(Map::values));
    }
    match node.get("items") {
        Some(Value::Array(_)) => return false, // tuples
        Some(items) => children.push(items),
        None => {}
    }
    for key in ["$defs", "definitions"] {
        children.extend(node.get(key).and_then(Value::as_object).into_iter().flat_map(Map::values));
    }
    children.extend(node.get("anyOf").and_then(Value::as_array).into_iter().flatten());
    children.into_iter().all(|child| match child {
        Value::Object(child) => strict_node(child, depth + 1),
        _ => false, // `true` / `false` schemas
    })
}

/// MCP messages as OpenAI messages (system prompt first).
pub(crate) fn messages(request: &SamplingRequest) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    if let Some(system) = &request.system_prompt {
        out.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        let mut parts = Vec::new();
        let mut calls = Vec::new();
        for block in &message.content {
            match block {
                Block::Text { text } => parts.push(json!({"type": "text", "text": text})),
                Block::Image { data, mime_type } => parts.push(json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{data}")}})),
                Block::Audio { data, mime_type } => {
                    let format = match mime_type.as_str() {
                        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
                        "audio/mpeg" | "audio/mp3" => "mp3",
                        other => return Err(format!("audio of type {other} cannot be sent (wav and mp3 can)")),
                    };
                    parts.push(json!({"type": "input_audio", "input_audio": {"data": data, "format": format}}));
                }
                Block::ToolUse { id, name, input } => calls.push(json!({"id": id, "type": "function", "function": {"name": name, "arguments": Value::Object(input.clone()).to_string()}})),
                // Each tool result is its own `tool` message, before the rest of this message.
                // Its images cannot ride on a `tool` message (text only): the sampler notes it.
                Block::ToolResult { tool_use_id, content, is_error, .. } => {
                    out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": tool_message_text(content, *is_error)}))
                }
            }
        }
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        if parts.is_empty() && calls.is_empty() {
            continue;
        }
        let all_text = parts.iter().all(|p| p["type"] == "text");
        let content = match (parts.is_empty(), all_text) {
            (true, _) => Value::Null,
            (false, true) => json!(parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")),
            (false, false) => Value::Array(parts),
        };
        let mut m = json!({"role": role, "content": content});
        if !calls.is_empty() {
            m["tool_calls"] = Value::Array(calls);
        }
        out.push(m);
    }
    Ok(out)
}

/// An OpenAI answer in MCP terms.
/// The completion in this provider's answer, or why it cannot be read.
pub fn read(answer: &Value, requested_model: &str) -> Result<Completion, super::FormatError> {
    read_text(answer, requested_model).map_err(super::FormatError::Unreadable)
}

fn read_text(answer: &Value, requested_model: &str) -> Result<Completion, String> {
    let choice = answer.pointer("/choices/0").ok_or("no choices in the answer")?;
    let message = choice.get("message").ok_or("no message in the first choice")?;
    let mut content = Vec::new();
    if let Some(text) = message.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        content.push(Block::text(text));
    }
    for (index, call) in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let name = call.pointer("/function/name").and_then(Value::as_str).ok_or("a tool call without a name")?;
        let arguments = call.pointer("/function/arguments").and_then(Value::as_str).unwrap_or("{}");
        let input: Map<String, Value> = match serde_json::from_str(if arguments.trim().is_empty() { "{}" } else { arguments }) {
            Ok(Value::Object(input)) => input,
            _ => return Err(format!("the arguments of the call to `{name}` are not a JSON object: {arguments:?}")),
        };
        let id = fallback_id(call.get("id").and_then(Value::as_str), "call", index);
        content.push(Block::ToolUse { id, name: name.to_owned(), input });
    }
    let stop = match choice.get("finish_reason").and_then(Value::as_str) {
        Some("length") => StopReason::MaxTokens,
        Some("tool_calls") => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    };
    let usage = Usage {
        input_tokens: answer.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: answer.pointer("/usage/completion_tokens").and_then(Value::as_u64).unwrap_or(0),
    };
    let model = answer.get("model").and_then(Value::as_str).filter(|m| !m.is_empty()).unwrap_or(requested_model).to_owned();
    Ok(Completion { stop_reason: stop_reason_for(&content, stop), content, model, usage, structured_text: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, ToolChoice, ToolDef};

    fn conversation() -> SamplingRequest {
        let mut request = SamplingRequest::user("weather in Oslo?", 50);
        request.system_prompt = Some("be brief".into());
        request.messages[0].content.push(Block::Image { data: "AAAA".into(), mime_type: "image/png".into() });
        request.messages.push(Message::new(Role::Assistant, Block::ToolUse { id: "c1".into(), name: "get_weather".into(), input: json!({"city": "Oslo"}).as_object().unwrap().clone() }));
        request.messages.push(Message {
            role: Role::User,
            content: vec![Block::ToolResult { tool_use_id: "c1".into(), content: vec![json!({"type": "text", "text": "3 °C"})], structured_content: None, is_error: None }, Block::text("thanks")],
        });
        request.tools = vec![ToolDef { name: "get_weather".into(), description: Some("d".into()), input_schema: json!({"type": "object"}).as_object().unwrap().clone() }];
        request.tool_choice = Some(ToolChoice { mode: ToolChoiceMode::Auto });
        request
    }

    #[test]
    fn mcp_blocks_become_openai_messages() {
        let request = conversation();
        let body = body(&ProviderRequest { request: &request, model: "gpt", max_tokens: 40, schema: None }, StructuredMode::Native).unwrap();
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": [{"type": "text", "text": "weather in Oslo?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "3 °C"},
                {"role": "user", "content": "thanks"}
            ])
        );
        assert_eq!(body["tools"][0]["function"]["name"], "get_weather");
        assert_eq!((body["tool_choice"].as_str(), body["max_tokens"].as_u64()), (Some("auto"), Some(40)));
    }

    #[test]
    fn structured_modes_use_response_format() {
        let request = SamplingRequest::user("x", 5);
        let schema = json!({"type": "object"}).as_object().unwrap().clone();
        let native = body(&ProviderRequest { request: &request, model: "m", max_tokens: 5, schema: Some(&schema) }, StructuredMode::Native).unwrap();
        assert_eq!(native["response_format"]["type"], "json_schema");
        assert_eq!(native["response_format"]["json_schema"]["name"], "__schema__");
        let llama = body(&ProviderRequest { request: &request, model: "m", max_tokens: 5, schema: Some(&schema) }, StructuredMode::JsonObjectSchema).unwrap();
        assert_eq!(llama["response_format"], json!({"type": "json_object", "schema": {"type": "object"}}));
    }

    #[test]
    fn strict_only_for_schemas_openai_accepts() {
        let strict = |schema: Value| strict_compatible(schema.as_object().unwrap());
        let point = json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"], "additionalProperties": false});
        assert!(strict(point.clone()));
        assert!(strict(json!({"type": "object", "properties": {
            "points": {"type": "array", "items": point},
            "tag": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
            "at": {"$ref": "#/$defs/p"}
        }, "required": ["points", "tag", "at"], "additionalProperties": false, "$defs": {"p": point}})));
        // Open objects, optional properties, unsupported keywords, a non-object root, anywhere inside.
        assert!(!strict(json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]})));
        assert!(!strict(json!({"type": "object", "properties": {"x": {"type": "number"}}, "additionalProperties": false})));
        assert!(!strict(json!({"type": "object"})));
        assert!(!strict(json!({"type": "object", "properties": {"p": {"type": "array", "items": {"type": "object", "properties": {}}}}, "required": ["p"], "additionalProperties": false})));
        assert!(!strict(json!({"type": "object", "properties": {"n": {"type": "string", "minLength": 2}}, "required": ["n"], "additionalProperties": false})));
        assert!(!strict(json!({"type": "object", "properties": {"n": {"type": "string", "format": "uri"}}, "required": ["n"], "additionalProperties": false})));
        assert!(!strict(json!({"type": "object", "properties": {}, "additionalProperties": false, "$defs": {"d": {"type": "object"}}})));
        assert!(!strict(json!({"anyOf": [point.clone()]})));
        assert!(!strict(json!({"type": "object", "properties": {"t": {"oneOf": [point]}}, "required": ["t"], "additionalProperties": false})));
    }

    #[test]
    fn a_failed_tool_result_says_so_to_the_model() {
        let mut request = conversation();
        let Block::ToolResult { is_error, .. } = &mut request.messages[2].content[0] else { panic!() };
        *is_error = Some(true);
        let sent = messages(&request).unwrap();
        assert_eq!(sent[3], json!({"role": "tool", "tool_call_id": "c1", "content": "Error: 3 °C"}));
    }

    #[test]
    fn calls_without_ids_get_distinct_ids() {
        let answer = json!({"choices": [{"message": {"tool_calls": [
            {"type": "function", "function": {"name": "a", "arguments": "{}"}},
            {"type": "function", "function": {"name": "b", "arguments": "{}"}}
        ]}, "finish_reason": "tool_calls"}]});
        let completion = read(&answer, "m").unwrap();
        let ids: Vec<&str> = completion.content.iter().filter_map(|b| if let Block::ToolUse { id, .. } = b { Some(id.as_str()) } else { None }).collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1], "{ids:?}");
    }

    #[test]
    fn tool_calls_come_back_as_tool_use_blocks_round_trip() {
        let request = conversation();
        let sent = messages(&request).unwrap();
        // What the model would answer with the same call: it reads back as the same MCP block.
        let answer = json!({"model": "gpt-x", "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": sent[2]["tool_calls"]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 9, "completion_tokens": 4}});
        let completion = read(&answer, "gpt").unwrap();
        assert_eq!(completion.content, request.messages[1].content);
        assert_eq!((completion.stop_reason, completion.model.as_str(), completion.usage.output_tokens), (StopReason::ToolUse, "gpt-x", 4));
        let bad = json!({"choices": [{"message": {"tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{oops"}}]}}]});
        assert!(read(&bad, "m").unwrap_err().to_string().contains("`f`"));
        let audio = SamplingRequest { messages: vec![Message::new(Role::User, Block::Audio { data: "A".into(), mime_type: "audio/ogg".into() })], ..SamplingRequest::user("", 1) };
        assert!(messages(&audio).unwrap_err().contains("audio/ogg"));
    }
}
