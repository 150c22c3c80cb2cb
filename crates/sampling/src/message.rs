//! The MCP side of sampling, as it travels: `sampling/createMessage` params ([`SamplingRequest`]),
//! its messages and content blocks ([`Message`], [`Block`]), and the result ([`SamplingResult`]).
//!
//! Our own serde types rather than rmcp's (deprecated by SEP-2577, `non_exhaustive`): the client
//! crosses over with one JSON round trip, and the same types go to the window (ts-rs) where the
//! user reads and edits a request. Content is accepted as one block or an array (2025-11-25) and
//! written as one block when there is one, so servers of earlier protocol versions read it too.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use ts_rs::TS;

/// Who speaks in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Role {
    /// The user (and tool results).
    User,
    /// The model (and its tool calls).
    Assistant,
}

/// One content block of a sampling message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export, rename = "SamplingBlock")]
pub enum Block {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64.
    Image {
        /// Base64 bytes.
        data: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64.
    Audio {
        /// Base64 bytes.
        data: String,
        /// Its MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// The model calls a tool (assistant messages only).
    ToolUse {
        /// Pairs it with its [`Block::ToolResult`].
        id: String,
        /// The tool.
        name: String,
        /// Its arguments.
        #[ts(type = "Record<string, unknown>")]
        input: Map<String, Value>,
    },
    /// A tool's result (user messages only).
    ToolResult {
        /// The [`Block::ToolUse`] it answers.
        #[serde(rename = "toolUseId")]
        tool_use_id: String,
        /// MCP content blocks (text, image, ...), as sent.
        #[serde(default)]
        #[ts(type = "Array<Record<string, unknown>>")]
        content: Vec<Value>,
        /// Structured result, when the tool gave one.
        #[serde(rename = "structuredContent", default, skip_serializing_if = "Option::is_none")]
        #[ts(type = "unknown", optional)]
        structured_content: Option<Value>,
        /// Whether the tool failed.
        #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        is_error: Option<bool>,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// The block's `type` on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Text { .. } => "text",
            Self::Image { .. } => "image",
            Self::Audio { .. } => "audio",
            Self::ToolUse { .. } => "tool_use",
            Self::ToolResult { .. } => "tool_result",
        }
    }

    /// Whether it is a tool result whose content carries an image.
    pub fn result_has_images(&self) -> bool {
        matches!(self, Self::ToolResult { content, .. } if content.iter().any(is_image))
    }

    /// Its text, for a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// Whether an MCP content block (inside a tool result) is an image.
pub fn is_image(content: &Value) -> bool {
    content.get("type").and_then(Value::as_str) == Some("image")
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export, rename = "SamplingMessage")]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said: one block or several.
    #[serde(deserialize_with = "one_or_many", serialize_with = "one_or_array")]
    #[ts(as = "ContentWire")]
    pub content: Vec<Block>,
}

impl Message {
    /// A message of one block.
    pub fn new(role: Role, block: Block) -> Self {
        Self { role, content: vec![block] }
    }

    /// All its text blocks joined by newlines.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(Block::as_text).collect::<Vec<_>>().join("\n")
    }
}

/// How the model may use the tools (SEP-1577).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ToolChoiceMode {
    /// It decides.
    #[default]
    Auto,
    /// It must call at least one.
    Required,
    /// It must not call any.
    None,
}

/// `toolChoice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolChoice {
    /// Absent means auto.
    #[serde(default)]
    pub mode: ToolChoiceMode,
}

/// A tool the model may call while sampling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "SamplingTool")]
pub struct ToolDef {
    /// Its name (`__schema__` is the structured-output meta-tool, see [`crate::schema`]).
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    /// Its arguments' JSON Schema.
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    pub input_schema: Map<String, Value>,
}

/// A model the server would like (a substring of a model name, or a family).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ModelHint {
    /// The name or family.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name: Option<String>,
}

/// `modelPreferences`: advisory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ModelPreferences {
    /// Models in order of preference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<ModelHint>,
    /// 0–1: prefer cheaper models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost_priority: Option<f64>,
    /// 0–1: prefer faster models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub speed_priority: Option<f64>,
    /// 0–1: prefer more capable models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub intelligence_priority: Option<f64>,
}

/// `sampling/createMessage` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The system prompt the server wants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_prompt: Option<String>,
    /// The most tokens the server wants (capped by policy before the provider sees it).
    pub max_tokens: u32,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub temperature: Option<f64>,
    /// Stop generating at any of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Which model the server would like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_preferences: Option<ModelPreferences>,
    /// Tools the model may call (SEP-1577).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDef>,
    /// How it may call them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_choice: Option<ToolChoice>,
    /// `includeContext` (soft-deprecated): MCP Canvas adds no other context; kept for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub include_context: Option<String>,
    /// Provider-specific metadata the server passes; shown, not forwarded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown", optional)]
    pub metadata: Option<Value>,
}

impl SamplingRequest {
    /// The request of one user message.
    pub fn user(text: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            messages: vec![Message::new(Role::User, Block::text(text))],
            system_prompt: None,
            max_tokens,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            tools: Vec::new(),
            tool_choice: None,
            include_context: None,
            metadata: None,
        }
    }

    /// The hinted model names, in order.
    pub fn hints(&self) -> impl Iterator<Item = &str> {
        self.model_preferences.iter().flat_map(|p| p.hints.iter()).filter_map(|h| h.name.as_deref())
    }

    /// Whether any message carries an image, as a block or inside a tool result.
    pub fn has_images(&self) -> bool {
        self.messages.iter().flat_map(|m| &m.content).any(|b| matches!(b, Block::Image { .. }) || b.result_has_images())
    }

    /// The tool choice mode (auto when absent).
    pub fn choice(&self) -> ToolChoiceMode {
        self.tool_choice.map(|c| c.mode).unwrap_or_default()
    }
}

/// Why generation stopped (`stopReason`). The spec names four reasons and allows any other
/// string (an AI host may say `refusal`, say): those are kept as they are, both ways.
#[derive(Debug, Clone, PartialEq, Eq, TS)]
#[ts(export, type = "\"endTurn\" | \"stopSequence\" | \"maxTokens\" | \"toolUse\" | string")]
pub enum StopReason {
    /// The model finished.
    EndTurn,
    /// A stop sequence was hit.
    StopSequence,
    /// The token limit was hit.
    MaxTokens,
    /// The model called a tool.
    ToolUse,
    /// Any other reason, as it was given.
    Other(String),
}

impl StopReason {
    /// Its wire name.
    pub fn as_str(&self) -> &str {
        match self {
            Self::EndTurn => "endTurn",
            Self::StopSequence => "stopSequence",
            Self::MaxTokens => "maxTokens",
            Self::ToolUse => "toolUse",
            Self::Other(other) => other,
        }
    }
}

impl From<&str> for StopReason {
    fn from(name: &str) -> Self {
        match name {
            "endTurn" => Self::EndTurn,
            "stopSequence" => Self::StopSequence,
            "maxTokens" => Self::MaxTokens,
            "toolUse" => Self::ToolUse,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self::from(String::deserialize(deserializer)?.as_str()))
    }
}

/// The `sampling/createMessage` result: one assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SamplingResult {
    /// The model that answered, as the provider names it.
    pub model: String,
    /// Why it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stop_reason: Option<StopReason>,
    /// Always assistant.
    pub role: Role,
    /// What the model said: one block or several.
    #[serde(deserialize_with = "one_or_many", serialize_with = "one_or_array")]
    #[ts(as = "ContentWire")]
    pub content: Vec<Block>,
}

impl SamplingResult {
    /// The result as a message (for the exchange).
    pub fn message(&self) -> Message {
        Message { role: self.role, content: self.content.clone() }
    }
}

/// How `content` looks on the wire (for the TypeScript types only): one block or several.
#[derive(Serialize, TS)]
#[serde(untagged)]
#[ts(export, rename = "SamplingContent")]
#[allow(dead_code)]
enum ContentWire {
    One(Block),
    Many(Vec<Block>),
}

fn one_or_many<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Block>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<Block>),
        One(Box<Block>),
    }
    Ok(match OneOrMany::deserialize(deserializer)? {
        OneOrMany::Many(blocks) => blocks,
        OneOrMany::One(block) => vec![*block],
    })
}

fn one_or_array<S: Serializer>(blocks: &[Block], serializer: S) -> Result<S::Ok, S::Error> {
    match blocks {
        [one] => one.serialize(serializer),
        many => many.serialize(serializer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_is_one_block_or_an_array_and_round_trips() {
        let single: SamplingRequest = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "maxTokens": 10
        }))
        .unwrap();
        assert_eq!(single.messages[0].content, vec![Block::text("hi")]);
        let wire = json!({
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "weather?"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
                {"role": "assistant", "content": {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Oslo"}}},
                {"role": "user", "content": {"type": "tool_result", "toolUseId": "c1", "content": [{"type": "text", "text": "3 °C"}], "isError": false}}
            ],
            "systemPrompt": "be brief",
            "maxTokens": 100,
            "temperature": 0.5,
            "stopSequences": ["END"],
            "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.2},
            "tools": [{"name": "get_weather", "description": "d", "inputSchema": {"type": "object"}}],
            "toolChoice": {"mode": "required"}
        });
        let request: SamplingRequest = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(request.choice(), ToolChoiceMode::Required);
        assert_eq!(request.hints().collect::<Vec<_>>(), ["claude"]);
        assert!(request.has_images());
        assert_eq!(serde_json::to_value(&request).unwrap(), wire);
    }

    #[test]
    fn a_result_of_one_block_is_written_as_one_block() {
        let result = SamplingResult { model: "m".into(), stop_reason: Some(StopReason::EndTurn), role: Role::Assistant, content: vec![Block::text("hello")] };
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({"model": "m", "stopReason": "endTurn", "role": "assistant", "content": {"type": "text", "text": "hello"}})
        );
    }

    #[test]
    fn an_unknown_stop_reason_round_trips() {
        let wire = json!({"model": "m", "stopReason": "refusal", "role": "assistant", "content": {"type": "text", "text": "no"}});
        let result: SamplingResult = serde_json::from_value(wire.clone()).expect("any stopReason string is accepted");
        assert_eq!(serde_json::to_value(&result).unwrap(), wire);
        let known: SamplingResult = serde_json::from_value(json!({"model": "m", "stopReason": "maxTokens", "role": "assistant", "content": []})).unwrap();
        assert_eq!(serde_json::to_value(&known).unwrap()["stopReason"], "maxTokens");
    }

    #[test]
    fn images_inside_tool_results_count_as_images() {
        let request: SamplingRequest = serde_json::from_value(json!({
            "messages": [
                {"role": "assistant", "content": {"type": "tool_use", "id": "c1", "name": "chart", "input": {}}},
                {"role": "user", "content": {"type": "tool_result", "toolUseId": "c1", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}}
            ],
            "maxTokens": 10
        }))
        .unwrap();
        assert!(request.has_images());
        assert!(!SamplingRequest::user("hi", 1).has_images());
    }

    #[test]
    fn an_unknown_block_type_is_an_error() {
        let err = serde_json::from_value::<Message>(json!({"role": "user", "content": {"type": "video", "data": "x"}})).unwrap_err();
        assert!(err.to_string().contains("untagged") || err.to_string().contains("variant"), "{err}");
    }
}
