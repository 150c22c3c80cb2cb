//! Ollama's native chat (`POST {base_url}/api/chat`, not streamed): images ride on the message
//! as base64, tool calls carry argument objects, tool results are `role: "tool"` messages;
//! `__schema__` goes as `format` with the schema.

use serde_json::{json, Value};

use super::{fallback_id, function_tool, join, tool_message_text, BoxFuture, Completion, Http, Provider, ProviderConfig, ProviderError, ProviderRequest, Usage};
use crate::{
    message::{Block, Role, StopReason, ToolChoiceMode},
    sampler::stop_reason_for,
};

/// The Ollama provider.
pub struct Ollama {
    pub(super) config: ProviderConfig,
    pub(super) http: Http,
}

impl Provider for Ollama {
    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let body = body(&request).map_err(|e| self.http.unsupported(e.to_string()))?;
            let headers: Vec<(&str, String)> = self.http.key.iter().map(|k| ("authorization", format!("Bearer {}", k.expose()))).collect();
            let answer = self.http.post(&join(&self.config.base_url, "api/chat"), &headers, &body).await?;
            let mut completion = read(&answer, request.model).map_err(|e| self.http.bad(e.to_string()))?;
            if request.schema.is_some() {
                completion.structured_text = Some(completion.content.iter().filter_map(Block::as_text).collect());
            }
            Ok(completion)
        })
    }
}

/// What the system prompt says when `toolChoice` is `required` (Ollama cannot force a call).
pub const REQUIRED_NUDGE: &str = "You must call one of the provided tools to answer.";

/// The request body for `request`.
/// The request in this provider's format, or why it cannot be said in it.
pub fn body(request: &ProviderRequest<'_>) -> Result<Value, super::FormatError> {
    body_text(request).map_err(super::FormatError::Unsupported)
}

fn body_text(request: &ProviderRequest<'_>) -> Result<Value, String> {
    let sampling = request.request;
    let mut messages = Vec::new();
    let offers_tools = !sampling.tools.is_empty() && sampling.choice() != ToolChoiceMode::None;
    // `required` has no native equivalent: the tools are offered, and the system prompt asks for
    // a call (the sampler's notes tell the user the model may still answer without one).
    let nudge = (offers_tools && sampling.choice() == ToolChoiceMode::Required).then_some(REQUIRED_NUDGE);
    let system: Vec<&str> = sampling.system_prompt.as_deref().into_iter().chain(nudge).collect();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system.join("\n\n")}));
    }
    let mut names = std::collections::HashMap::new();
    for message in &sampling.messages {
        let (mut text, mut images, mut calls) = (Vec::new(), Vec::new(), Vec::new());
        for block in &message.content {
            match block {
                Block::Text { text: t } => text.push(t.clone()),
                Block::Image { data, .. } => images.push(data.clone()),
                Block::Audio { .. } => return Err("Ollama models do not take audio".to_owned()),
                Block::ToolUse { id, name, input } => {
                    names.insert(id.clone(), name.clone());
                    calls.push(json!({"function": {"name": name, "arguments": input}}));
                }
                // Its images cannot ride on a `tool` message (text only): the sampler notes it.
                Block::ToolResult { tool_use_id, content, is_error, .. } => {
                    let mut m = json!({"role": "tool", "content": tool_message_text(content, *is_error)});
                    if let Some(name) = names.get(tool_use_id) {
                        m["tool_name"] = json!(name);
                    }
                    messages.push(m);
                }
            }
        }
        if text.is_empty() && images.is_empty() && calls.is_empty() {
            continue;
        }
        let mut m = json!({"role": if message.role == Role::User { "user" } else { "assistant" }, "content": text.join("\n")});
        if !images.is_empty() {
            m["images"] = json!(images);
        }
        if !calls.is_empty() {
            m["tool_calls"] = Value::Array(calls);
        }
        messages.push(m);
    }
    let mut options = json!({"num_predict": request.max_tokens});
    if let Some(t) = sampling.temperature {
        options["temperature"] = json!(t);
    }
    if !sampling.stop_sequences.is_empty() {
        options["stop"] = json!(sampling.stop_sequences);
    }
    let mut body = json!({"model": request.model, "messages": messages, "stream": false, "options": options});
    if offers_tools {
        body["tools"] = sampling.tools.iter().map(function_tool).collect();
    }
    if let Some(schema) = request.schema {
        body["format"] = Value::Object(schema.clone());
    }
    Ok(body)
}

/// An Ollama answer in MCP terms (Ollama gives tool calls no ids: `call_N`).
/// The completion in this provider's answer, or why it cannot be read.
pub fn read(answer: &Value, requested_model: &str) -> Result<Completion, super::FormatError> {
    read_text(answer, requested_model).map_err(super::FormatError::Unreadable)
}

fn read_text(answer: &Value, requested_model: &str) -> Result<Completion, String> {
    let message = answer.get("message").ok_or("no message in the answer")?;
    let mut content = Vec::new();
    if let Some(text) = message.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        content.push(Block::text(text));
    }
    for (i, call) in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let name = call.pointer("/function/name").and_then(Value::as_str).ok_or("a tool call without a name")?;
        let input = call.pointer("/function/arguments").and_then(Value::as_object).cloned().unwrap_or_default();
        content.push(Block::ToolUse { id: fallback_id(None, "call", i), name: name.to_owned(), input });
    }
    let stop = match answer.get("done_reason").and_then(Value::as_str) {
        Some("length") => StopReason::MaxTokens,
        _ => StopReason::EndTurn,
    };
    let usage = Usage {
        input_tokens: answer.get("prompt_eval_count").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: answer.get("eval_count").and_then(Value::as_u64).unwrap_or(0),
    };
    let model = answer.get("model").and_then(Value::as_str).unwrap_or(requested_model).to_owned();
    Ok(Completion { stop_reason: stop_reason_for(&content, stop), content, model, usage, structured_text: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, SamplingRequest};

    #[test]
    fn images_ride_on_the_message_and_tool_results_name_their_tool() {
        let mut request = SamplingRequest::user("what is this?", 50);
        request.messages[0].content.push(Block::Image { data: "AAAA".into(), mime_type: "image/png".into() });
        request.messages.push(Message::new(Role::Assistant, Block::ToolUse { id: "c1".into(), name: "look".into(), input: json!({"x": 1}).as_object().unwrap().clone() }));
        request.messages.push(Message::new(Role::User, Block::ToolResult { tool_use_id: "c1".into(), content: vec![json!({"type": "text", "text": "a cat"})], structured_content: None, is_error: None }));
        let schema = json!({"type": "object"}).as_object().unwrap().clone();
        let body = body(&ProviderRequest { request: &request, model: "llama3", max_tokens: 30, schema: Some(&schema) }).unwrap();
        assert_eq!(body["messages"][0], json!({"role": "user", "content": "what is this?", "images": ["AAAA"]}));
        assert_eq!(body["messages"][1]["tool_calls"][0]["function"]["arguments"], json!({"x": 1}));
        assert_eq!(body["messages"][2], json!({"role": "tool", "content": "a cat", "tool_name": "look"}));
        assert_eq!((body["format"].clone(), body["stream"].clone(), body["options"]["num_predict"].clone()), (json!({"type": "object"}), json!(false), json!(30)));
        let answer = json!({"model": "llama3", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "look", "arguments": {"x": 2}}}]}, "done_reason": "stop", "prompt_eval_count": 7, "eval_count": 3});
        let completion = read(&answer, "llama3").unwrap();
        assert_eq!(completion.stop_reason, StopReason::ToolUse);
        assert!(matches!(&completion.content[0], Block::ToolUse { id, name, .. } if id.starts_with("call_") && name == "look"));
        // A second answer (the next round of a tool loop) never reuses the first one's ids.
        let again = read(&answer, "m").unwrap();
        assert!(matches!((&completion.content[0], &again.content[0]), (Block::ToolUse { id: a, .. }, Block::ToolUse { id: b, .. }) if a != b));
        assert_eq!(completion.usage, Usage { input_tokens: 7, output_tokens: 3 });
    }

    #[test]
    fn required_tool_choice_is_a_system_prompt_nudge_and_errors_say_so() {
        use crate::message::{ToolChoice, ToolDef};
        let mut request = SamplingRequest::user("weather?", 50);
        request.messages.push(Message::new(Role::Assistant, Block::ToolUse { id: "c1".into(), name: "get_weather".into(), input: serde_json::Map::new() }));
        request.messages.push(Message::new(Role::User, Block::ToolResult { tool_use_id: "c1".into(), content: vec![json!({"type": "text", "text": "no city"})], structured_content: None, is_error: Some(true) }));
        request.tools = vec![ToolDef { name: "get_weather".into(), description: None, input_schema: json!({"type": "object"}).as_object().unwrap().clone() }];
        request.tool_choice = Some(ToolChoice { mode: ToolChoiceMode::Required });
        let body = body(&ProviderRequest { request: &request, model: "llama3", max_tokens: 30, schema: None }).unwrap();
        assert_eq!(body["messages"][0]["role"], "system");
        assert!(body["messages"][0]["content"].as_str().unwrap().contains("call one of the provided tools"), "{body}");
        assert_eq!(body["messages"][3], json!({"role": "tool", "content": "Error: no city", "tool_name": "get_weather"}));
        request.system_prompt = Some("be brief".into());
        let body = super::body(&ProviderRequest { request: &request, model: "llama3", max_tokens: 30, schema: None }).unwrap();
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(system.starts_with("be brief") && system.contains("call one of the provided tools"), "{system}");
    }
}
