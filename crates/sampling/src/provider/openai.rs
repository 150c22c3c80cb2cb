//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`): OpenAI, llama.cpp's
//! server, LM Studio, vLLM, Ollama's `/v1`. MCP `tool_use` blocks become `tool_calls`, MCP
//! `tool_result` blocks become `role: "tool"` messages; `__schema__` goes as `response_format`.

use serde_json::{json, Map, Value};

use super::{join, BoxFuture, Completion, Http, Provider, ProviderConfig, ProviderError, ProviderRequest, StructuredMode, Usage};
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
            let body = body(&request, self.config.structured).map_err(|e| self.http.unsupported(e))?;
            let headers: Vec<(&str, String)> = self.http.key.iter().map(|k| ("authorization", format!("Bearer {}", k.expose()))).collect();
            let answer = self.http.post(&join(&self.config.base_url, "chat/completions"), &headers, &body).await?;
            let mut completion = read(&answer, request.model).map_err(|e| self.http.bad(e))?;
            if request.schema.is_some() {
                completion.structured_text = Some(completion.content.iter().filter_map(Block::as_text).collect());
            }
            Ok(completion)
        })
    }
}

/// The request body for `request`.
pub fn body(request: &ProviderRequest<'_>, structured: StructuredMode) -> Result<Value, String> {
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
        let tools: Vec<Value> = sampling
            .tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description.clone().unwrap_or_default(), "parameters": t.input_schema}}))
            .collect();
        object.insert("tools".into(), Value::Array(tools));
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
            _ => json!({"type": "json_schema", "json_schema": {"name": "__schema__", "schema": schema, "strict": true}}),
        };
        object.insert("response_format".into(), format);
    }
    Ok(body)
}

fn text_of(content: &[Value]) -> String {
    content.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
}

/// MCP messages as OpenAI messages (system prompt first).
pub fn messages(request: &SamplingRequest) -> Result<Vec<Value>, String> {
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
                Block::ToolResult { tool_use_id, content, .. } => out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": text_of(content)})),
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
pub fn read(answer: &Value, requested_model: &str) -> Result<Completion, String> {
    let choice = answer.pointer("/choices/0").ok_or("no choices in the answer")?;
    let message = choice.get("message").ok_or("no message in the first choice")?;
    let mut content = Vec::new();
    if let Some(text) = message.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        content.push(Block::text(text));
    }
    for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let name = call.pointer("/function/name").and_then(Value::as_str).ok_or("a tool call without a name")?;
        let arguments = call.pointer("/function/arguments").and_then(Value::as_str).unwrap_or("{}");
        let input: Map<String, Value> = match serde_json::from_str(if arguments.trim().is_empty() { "{}" } else { arguments }) {
            Ok(Value::Object(input)) => input,
            _ => return Err(format!("the arguments of the call to `{name}` are not a JSON object: {arguments:?}")),
        };
        let id = call.get("id").and_then(Value::as_str).unwrap_or("call_0").to_owned();
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
    fn tool_calls_come_back_as_tool_use_blocks_round_trip() {
        let request = conversation();
        let sent = messages(&request).unwrap();
        // What the model would answer with the same call: it reads back as the same MCP block.
        let answer = json!({"model": "gpt-x", "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": sent[2]["tool_calls"]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 9, "completion_tokens": 4}});
        let completion = read(&answer, "gpt").unwrap();
        assert_eq!(completion.content, request.messages[1].content);
        assert_eq!((completion.stop_reason, completion.model.as_str(), completion.usage.output_tokens), (StopReason::ToolUse, "gpt-x", 4));
        let bad = json!({"choices": [{"message": {"tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{oops"}}]}}]});
        assert!(read(&bad, "m").unwrap_err().contains("`f`"));
        let audio = SamplingRequest { messages: vec![Message::new(Role::User, Block::Audio { data: "A".into(), mime_type: "audio/ogg".into() })], ..SamplingRequest::user("", 1) };
        assert!(messages(&audio).unwrap_err().contains("audio/ogg"));
    }
}
