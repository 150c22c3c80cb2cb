//! `__schema__` (seed 001 Part 3): a server asks for structured output by offering exactly one
//! tool named `__schema__` with `toolChoice` required. A smart client answers through the
//! provider's own structured mode and returns ONE assistant message with a single `tool_use`
//! block named `__schema__` whose `input` is the parsed object, `stopReason` `toolUse`.
//!
//! The answer is checked against the schema here (jsonschema); one repair round tells the model
//! what was wrong, then a failure is an error naming the problems. With other tools beside it, or
//! a provider without a structured mode, `__schema__` goes through as a normal tool (the naive
//! path): the model calls it like any tool and the server checks what it gets.

use serde_json::{Map, Value};

use crate::message::{Block, Message, Role, SamplingRequest, SamplingResult, StopReason, ToolChoiceMode};

/// The reserved tool name.
pub const SCHEMA_TOOL: &str = "__schema__";

/// The schema of a structured-output request: exactly one tool, `__schema__`, and `toolChoice`
/// required. Anything else is not structured output (maybe the naive path).
pub fn structured_schema(request: &SamplingRequest) -> Option<&Map<String, Value>> {
    match request.tools.as_slice() {
        [tool] if tool.name == SCHEMA_TOOL && request.choice() == ToolChoiceMode::Required => Some(&tool.input_schema),
        _ => None,
    }
}

/// The request as a structured one goes to the provider: without the `__schema__` tool (the
/// schema travels in the provider's own field).
pub fn without_schema_tool(request: &SamplingRequest) -> SamplingRequest {
    let mut plain = request.clone();
    plain.tools.clear();
    plain.tool_choice = None;
    plain
}

/// Why a structured answer is not a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotAnObject(pub String);

/// Reads the model's structured answer: a JSON object, tolerating a Markdown code fence around it.
pub fn parse_object(text: &str) -> Result<Map<String, Value>, NotAnObject> {
    let trimmed = text.trim();
    let unfenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    match serde_json::from_str::<Value>(unfenced) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(NotAnObject(format!("the answer is JSON but not an object (it is {})", kind(&other)))),
        Err(e) => {
            let start: String = unfenced.chars().take(80).collect();
            Err(NotAnObject(format!("the answer is not JSON ({e}); it starts with {start:?}")))
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The problems of `value` against `schema` (empty: it matches). An unusable schema is one problem.
pub fn problems(schema: &Map<String, Value>, value: &Value) -> Vec<String> {
    let schema = Value::Object(schema.clone());
    match jsonschema::validator_for(&schema) {
        Ok(validator) => validator
            .iter_errors(value)
            .take(10)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() { e.to_string() } else { format!("{at}: {e}") }
            })
            .collect(),
        Err(e) => vec![format!("the __schema__ inputSchema is not a usable JSON Schema ({e})")],
    }
}

/// Checks a structured answer's text: parsed and matching, or the problems.
pub fn check(schema: &Map<String, Value>, text: &str) -> Result<Map<String, Value>, Vec<String>> {
    let object = parse_object(text).map_err(|e| vec![e.0])?;
    let found = problems(schema, &Value::Object(object.clone()));
    if found.is_empty() { Ok(object) } else { Err(found) }
}

/// The repair round: the request again, with the failed answer and what was wrong with it.
pub fn repair_request(request: &SamplingRequest, answer: &str, problems: &[String]) -> SamplingRequest {
    let mut repaired = request.clone();
    repaired.messages.push(Message::new(Role::Assistant, Block::text(answer)));
    repaired.messages.push(Message::new(
        Role::User,
        Block::text(format!(
            "That answer does not match the required JSON Schema: {}. Answer again with only a JSON object that matches the schema.",
            problems.join("; ")
        )),
    ));
    repaired
}

/// The answer over the wire: one assistant message, one `tool_use` block named `__schema__`.
pub fn answer(id: String, parsed: Map<String, Value>, model: String) -> SamplingResult {
    SamplingResult {
        model,
        stop_reason: Some(StopReason::ToolUse),
        role: Role::Assistant,
        content: vec![Block::ToolUse { id, name: SCHEMA_TOOL.to_owned(), input: parsed }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ToolChoice, ToolDef};
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        json!({"type": "object", "properties": {"move": {"type": "string", "enum": ["rock", "paper", "scissors"]}}, "required": ["move"]})
            .as_object()
            .unwrap()
            .clone()
    }

    fn request(tools: &[&str], mode: ToolChoiceMode) -> SamplingRequest {
        let mut request = SamplingRequest::user("play", 50);
        request.tools = tools.iter().map(|n| ToolDef { name: (*n).into(), description: None, input_schema: schema() }).collect();
        request.tool_choice = Some(ToolChoice { mode });
        request
    }

    #[test]
    fn only_exactly_one_schema_tool_with_required_choice_is_structured() {
        assert!(structured_schema(&request(&["__schema__"], ToolChoiceMode::Required)).is_some());
        assert!(structured_schema(&request(&["__schema__"], ToolChoiceMode::Auto)).is_none());
        assert!(structured_schema(&request(&["__schema__", "search"], ToolChoiceMode::Required)).is_none());
        assert!(structured_schema(&request(&["search"], ToolChoiceMode::Required)).is_none());
        let plain = without_schema_tool(&request(&["__schema__"], ToolChoiceMode::Required));
        assert!(plain.tools.is_empty() && plain.tool_choice.is_none());
    }

    #[test]
    fn answers_are_parsed_fenced_or_not_and_checked() {
        assert_eq!(check(&schema(), r#"{"move": "rock"}"#).unwrap()["move"], "rock");
        assert_eq!(check(&schema(), "```json\n{\"move\": \"paper\"}\n```").unwrap()["move"], "paper");
        let wrong = check(&schema(), r#"{"move": "lizard"}"#).unwrap_err();
        assert!(wrong[0].contains("/move"), "{wrong:?}");
        assert!(check(&schema(), "[1]").unwrap_err()[0].contains("an array"));
        assert!(check(&schema(), "I pick rock").unwrap_err()[0].contains("not JSON"));
    }

    #[test]
    fn the_wire_answer_is_one_tool_use_block() {
        let result = answer("call_1".into(), schema(), "m".into());
        let wire = serde_json::to_value(&result).unwrap();
        assert_eq!(wire["stopReason"], "toolUse");
        assert_eq!(wire["content"]["type"], "tool_use");
        assert_eq!(wire["content"]["name"], "__schema__");
    }

    #[test]
    fn a_repair_round_names_the_problems() {
        let repaired = repair_request(&request(&["__schema__"], ToolChoiceMode::Required), "{}", &["\"move\" is a required property".into()]);
        assert_eq!(repaired.messages.len(), 3);
        assert!(repaired.messages[2].text().contains("required property"));
    }
}
