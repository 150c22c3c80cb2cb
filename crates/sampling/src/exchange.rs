//! [`SampleExchange`] (seed 001 Part 4): one sampling interaction as it belongs in a
//! conversation history: `[request, response]` for raw sampling, `[request, tool_use,
//! tool_result]` for structured output, where the `tool_result` is the acknowledgement we
//! construct (a `tool_use` must be followed by its `tool_result`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::{
    message::{Block, Message, Role, SamplingRequest, SamplingResult},
    schema::SCHEMA_TOOL,
};

/// The text of the constructed acknowledgement.
pub const ACK_TEXT: &str = "Structured output received.";

/// One exchange, for history accumulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SampleExchange {
    /// The message the request ended with (what was asked).
    pub request: Message,
    /// The assistant's answer.
    pub response: Message,
    /// All messages for the history: 2 (raw) or 3 (structured).
    pub messages: Vec<Message>,
    /// The parsed structured data (structured output only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "Record<string, unknown>", optional)]
    pub parsed: Option<Map<String, Value>>,
}

impl SampleExchange {
    /// The exchange of `request` answered by `result`.
    pub fn of(request: &SamplingRequest, result: &SamplingResult) -> Self {
        let asked = request.messages.last().cloned().unwrap_or_else(|| Message { role: Role::User, content: Vec::new() });
        let response = result.message();
        match result.content.as_slice() {
            [Block::ToolUse { id, name, input }] if name == SCHEMA_TOOL => {
                let ack = Message::new(
                    Role::User,
                    Block::ToolResult { tool_use_id: id.clone(), content: vec![serde_json::json!({"type": "text", "text": ACK_TEXT})], structured_content: None, is_error: None },
                );
                Self { messages: vec![asked.clone(), response.clone(), ack], request: asked, response, parsed: Some(input.clone()) }
            }
            _ => Self { messages: vec![asked.clone(), response.clone()], request: asked, response, parsed: None },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{message::StopReason, schema};
    use serde_json::json;

    #[test]
    fn raw_is_two_messages_structured_is_three_with_the_ack() {
        let request = SamplingRequest::user("hi", 10);
        let raw = SamplingResult { model: "m".into(), stop_reason: Some(StopReason::EndTurn), role: Role::Assistant, content: vec![Block::text("hello")] };
        let exchange = SampleExchange::of(&request, &raw);
        assert_eq!(exchange.messages.len(), 2);
        assert!(exchange.parsed.is_none());
        let parsed = json!({"move": "rock"}).as_object().unwrap().clone();
        let structured = schema::answer("call_7".into(), parsed.clone(), "m".into());
        let exchange = SampleExchange::of(&request, &structured);
        assert_eq!(exchange.messages.len(), 3);
        assert_eq!(exchange.parsed, Some(parsed));
        let wire = serde_json::to_value(&exchange.messages[2]).unwrap();
        assert_eq!(wire["role"], "user");
        assert_eq!(wire["content"]["type"], "tool_result");
        assert_eq!(wire["content"]["toolUseId"], "call_7");
    }
}
