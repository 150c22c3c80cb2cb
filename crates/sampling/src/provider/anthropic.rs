//! Anthropic Messages (`POST {base_url}/v1/messages`): MCP blocks map almost one to one
//! (`tool_use`, `tool_result` with `tool_use_id`); `__schema__` is a tool the model is forced
//! to call (`tool_choice: {type: "tool"}`), whose input is the structured answer.

use serde_json::{json, Map, Value};

use super::{fallback_id, join, BoxFuture, Completion, Http, Provider, ProviderConfig, ProviderError, ProviderRequest, Usage};
use crate::{
    message::{is_image, Block, Role, StopReason, ToolChoiceMode},
    sampler::stop_reason_for,
    schema::SCHEMA_TOOL,
};

/// The Anthropic provider.
pub struct Anthropic {
    pub(super) config: ProviderConfig,
    pub(super) http: Http,
}

impl Provider for Anthropic {
    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let body = body(&request).map_err(|e| self.http.unsupported(e.to_string()))?;
            let mut headers = vec![("anthropic-version", "2023-06-01".to_owned())];
            if let Some(key) = &self.http.key {
                headers.push(("x-api-key", key.expose().to_owned()));
            }
            let answer = self.http.post(&join(&self.config.base_url, "v1/messages"), &headers, &body).await?;
            let mut completion = read(&answer, request.model).map_err(|e| self.http.bad(e.to_string()))?;
            if request.schema.is_some() {
                let input = completion.content.iter().find_map(|b| match b {
                    Block::ToolUse { name, input, .. } if name == SCHEMA_TOOL => Some(Value::Object(input.clone()).to_string()),
                    _ => None,
                });
                completion.structured_text = Some(input.unwrap_or_else(|| completion.content.iter().filter_map(Block::as_text).collect()));
            }
            Ok(completion)
        })
    }
}

/// The request body for `request`.
/// The request in this provider's format, or why it cannot be said in it.
pub fn body(request: &ProviderRequest<'_>) -> Result<Value, super::FormatError> {
    body_text(request).map_err(super::FormatError::Unsupported)
}

fn body_text(request: &ProviderRequest<'_>) -> Result<Value, String> {
    let sampling = request.request;
    let mut messages = Vec::new();
    for message in &sampling.messages {
        let mut blocks = Vec::new();
        for block in &message.content {
            blocks.push(match block {
                Block::Text { text } => json!({"type": "text", "text": text}),
                Block::Image { data, mime_type } => image(data, mime_type),
                Block::Audio { .. } => return Err("Anthropic models do not take audio".to_owned()),
                Block::ToolUse { id, name, input } => json!({"type": "tool_use", "id": id, "name": name, "input": input}),
                Block::ToolResult { tool_use_id, content, is_error, .. } => {
                    json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": result_content(content), "is_error": is_error.unwrap_or(false)})
                }
            });
        }
        let role = if message.role == Role::User { "user" } else { "assistant" };
        messages.push(json!({"role": role, "content": blocks}));
    }
    let mut body = json!({"model": request.model, "max_tokens": request.max_tokens, "messages": messages});
    let object = body.as_object_mut().expect("an object");
    if let Some(system) = &sampling.system_prompt {
        object.insert("system".into(), json!(system));
    }
    if let Some(t) = sampling.temperature {
        object.insert("temperature".into(), json!(t));
    }
    if !sampling.stop_sequences.is_empty() {
        object.insert("stop_sequences".into(), json!(sampling.stop_sequences));
    }
    let mut tools: Vec<Value> = sampling.tools.iter().map(|t| json!({"name": t.name, "description": t.description.clone().unwrap_or_default(), "input_schema": t.input_schema})).collect();
    if let Some(schema) = request.schema {
        tools = vec![json!({"name": SCHEMA_TOOL, "description": "Respond with structured data matching this schema.", "input_schema": schema})];
        object.insert("tool_choice".into(), json!({"type": "tool", "name": SCHEMA_TOOL}));
    } else if let (false, Some(choice)) = (tools.is_empty(), sampling.tool_choice) {
        let kind = match choice.mode {
            ToolChoiceMode::Auto => "auto",
            ToolChoiceMode::Required => "any",
            ToolChoiceMode::None => "none",
        };
        object.insert("tool_choice".into(), json!({"type": kind}));
    }
    if !tools.is_empty() {
        object.insert("tools".into(), Value::Array(tools));
    }
    Ok(body)
}

fn image(data: &str, mime_type: &str) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}})
}

/// A tool result's MCP content as Anthropic's: text and images (other kinds have no equivalent).
fn result_content(content: &[Value]) -> Vec<Value> {
    let field = |c: &Value, name: &str| c.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
    content
        .iter()
        .filter_map(|c| match c.get("text").and_then(Value::as_str) {
            Some(text) => Some(json!({"type": "text", "text": text})),
            None if is_image(c) => Some(image(&field(c, "data"), &field(c, "mimeType"))),
            None => None,
        })
        .collect()
}

/// An Anthropic answer in MCP terms.
/// The completion in this provider's answer, or why it cannot be read.
pub fn read(answer: &Value, requested_model: &str) -> Result<Completion, super::FormatError> {
    read_text(answer, requested_model).map_err(super::FormatError::Unreadable)
}

fn read_text(answer: &Value, requested_model: &str) -> Result<Completion, String> {
    let blocks = answer.get("content").and_then(Value::as_array).ok_or("no content in the answer")?;
    let mut content = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => content.push(Block::text(block.get("text").and_then(Value::as_str).unwrap_or_default())),
            Some("tool_use") => {
                let input: Map<String, Value> = block.get("input").and_then(Value::as_object).cloned().unwrap_or_default();
                let id = fallback_id(block.get("id").and_then(Value::as_str), "toolu", index);
                let name = block.get("name").and_then(Value::as_str).ok_or("a tool_use block without a name")?.to_owned();
                content.push(Block::ToolUse { id, name, input });
            }
            _ => {} // thinking and other block kinds are not part of the MCP answer
        }
    }
    let stop = match answer.get("stop_reason").and_then(Value::as_str) {
        Some("max_tokens") => StopReason::MaxTokens,
        Some("stop_sequence") => StopReason::StopSequence,
        Some("tool_use") => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    };
    let usage = Usage {
        input_tokens: answer.pointer("/usage/input_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: answer.pointer("/usage/output_tokens").and_then(Value::as_u64).unwrap_or(0),
    };
    let model = answer.get("model").and_then(Value::as_str).unwrap_or(requested_model).to_owned();
    Ok(Completion { stop_reason: stop_reason_for(&content, stop), content, model, usage, structured_text: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, SamplingRequest, ToolChoice, ToolDef};

    #[test]
    fn blocks_map_one_to_one_and_round_trip() {
        let mut request = SamplingRequest::user("weather?", 50);
        request.system_prompt = Some("be brief".into());
        let call = Block::ToolUse { id: "toolu_1".into(), name: "get_weather".into(), input: json!({"city": "Oslo"}).as_object().unwrap().clone() };
        request.messages.push(Message::new(Role::Assistant, call.clone()));
        request.messages.push(Message::new(Role::User, Block::ToolResult { tool_use_id: "toolu_1".into(), content: vec![json!({"type": "text", "text": "3 °C"})], structured_content: None, is_error: None }));
        request.tools = vec![ToolDef { name: "get_weather".into(), description: None, input_schema: json!({"type": "object"}).as_object().unwrap().clone() }];
        request.tool_choice = Some(ToolChoice { mode: ToolChoiceMode::Required });
        let body = body(&ProviderRequest { request: &request, model: "claude", max_tokens: 40, schema: None }).unwrap();
        assert_eq!(body["system"], "be brief");
        assert_eq!(body["tool_choice"], json!({"type": "any"}));
        assert_eq!(body["messages"][2]["content"][0], json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "3 °C"}], "is_error": false}));
        let answer = json!({"model": "claude-x", "content": [body["messages"][1]["content"][0].clone()], "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 2}});
        let completion = read(&answer, "claude").unwrap();
        assert_eq!(completion.content, vec![call]);
        assert_eq!(completion.stop_reason, StopReason::ToolUse);
    }

    #[test]
    fn tool_result_images_travel_natively() {
        let mut request = SamplingRequest::user("chart?", 50);
        request.messages.push(Message::new(Role::Assistant, Block::ToolUse { id: "t1".into(), name: "chart".into(), input: Map::new() }));
        let content = vec![json!({"type": "text", "text": "here"}), json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})];
        request.messages.push(Message::new(Role::User, Block::ToolResult { tool_use_id: "t1".into(), content, structured_content: None, is_error: Some(true) }));
        let body = body(&ProviderRequest { request: &request, model: "claude", max_tokens: 40, schema: None }).unwrap();
        assert_eq!(
            body["messages"][2]["content"][0],
            json!({"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": [
                {"type": "text", "text": "here"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
            ]})
        );
    }

    #[test]
    fn calls_without_ids_get_distinct_ids() {
        let answer = json!({"content": [{"type": "tool_use", "name": "a", "input": {}}, {"type": "tool_use", "name": "b", "input": {}}], "stop_reason": "tool_use"});
        let completion = read(&answer, "m").unwrap();
        let ids: Vec<&str> = completion.content.iter().filter_map(|b| if let Block::ToolUse { id, .. } = b { Some(id.as_str()) } else { None }).collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1], "{ids:?}");
    }

    #[test]
    fn structured_output_is_a_forced_tool() {
        let request = SamplingRequest::user("x", 5);
        let schema = json!({"type": "object"}).as_object().unwrap().clone();
        let body = body(&ProviderRequest { request: &request, model: "m", max_tokens: 5, schema: Some(&schema) }).unwrap();
        assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "__schema__"}));
        assert_eq!(body["tools"][0]["input_schema"], json!({"type": "object"}));
    }
}
