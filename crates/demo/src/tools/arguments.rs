//! Tool arguments checked against the tool's own input schema, so that every invalid argument is
//! answered with a tool error (`isError`) that names the field and what it accepts — instead of
//! the JSON-RPC "invalid params" error a failed `Parameters<T>` extraction gives, which a host
//! reports as a failed call rather than as the tool's answer.
//!
//! The schema generated for the argument struct (schemars: `type`, `minimum`/`maximum`,
//! `minLength`/`maxLength`, `enum`, `minItems`/`maxItems`, `additionalProperties: false` from
//! `deny_unknown_fields`) is the single source of truth: it is what `tools/list` advertises and
//! what is enforced here. A `null` argument counts as not given (its default applies).

use std::sync::Arc;

use rmcp::{
    handler::server::common::{schema_for_input, schema_for_type},
    model::{CallToolResult, ContentBlock, JsonObject},
    schemars::JsonSchema,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The input schema advertised for `T` (the same one [`parse`] enforces).
pub(super) fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|_| schema_for_type::<T>())
}

/// Checks `arguments` against `T`'s schema and deserializes them; a tool error otherwise.
pub(super) fn parse<T: DeserializeOwned + JsonSchema + 'static>(mut arguments: JsonObject) -> Result<T, CallToolResult> {
    arguments.retain(|_, value| !value.is_null());
    let schema = schema::<T>();
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (key, value) in &arguments {
        match properties.get(key) {
            Some(property) => check(key, value, property).map_err(invalid)?,
            None if closed => {
                let mut accepted: Vec<&str> = properties.keys().map(String::as_str).collect();
                accepted.sort_unstable();
                let accepted = if accepted.is_empty() { "none".to_owned() } else { accepted.join(", ") };
                return Err(invalid(format!("unknown argument `{key}`; this tool accepts: {accepted}")));
            }
            None => {}
        }
    }
    serde_json::from_value(Value::Object(arguments)).map_err(|e| invalid(format!("invalid arguments: {e}")))
}

/// A tool error for an invalid argument.
pub(super) fn invalid(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("Invalid arguments: {message}."))])
}

fn check(field: &str, value: &Value, schema: &Value) -> Result<(), String> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let matches = |t: &str| match t {
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    };
    if !types.is_empty() && !types.iter().any(|t| matches(t)) {
        return Err(format!("`{field}` must be {}; got {}", expectation(&types, schema), describe(value)));
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array).filter(|allowed| !allowed.contains(value)) {
        let list: Vec<String> = allowed.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect();
        return Err(format!("`{field}` must be one of {}; got {}", list.join(", "), describe(value)));
    }
    match value {
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let below = schema.get("minimum").and_then(Value::as_f64).is_some_and(|min| x < min);
            let above = schema.get("maximum").and_then(Value::as_f64).is_some_and(|max| x > max);
            if below || above {
                return Err(format!("`{field}` must be {}; got {n}", expectation(&types, schema)));
            }
        }
        Value::String(s) => {
            let len = s.chars().count() as u64;
            let min = schema.get("minLength").and_then(Value::as_u64);
            let max = schema.get("maxLength").and_then(Value::as_u64);
            if min.is_some_and(|m| len < m) || max.is_some_and(|m| len > m) {
                return Err(format!("`{field}` must be {}; got {len} characters", expectation(&types, schema)));
            }
        }
        Value::Array(items) => {
            let len = items.len() as u64;
            let min = schema.get("minItems").and_then(Value::as_u64);
            let max = schema.get("maxItems").and_then(Value::as_u64);
            if min.is_some_and(|m| len < m) || max.is_some_and(|m| len > m) {
                return Err(format!("`{field}` must be {}; got {len} items", expectation(&types, schema)));
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(&format!("{field}[{i}]"), item, item_schema)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// What the schema accepts, in words: "an integer from 1 to 500", "a string of 1 to 120 characters".
fn expectation(types: &[&str], schema: &Value) -> String {
    let number = |key: &str| schema.get(key).and_then(Value::as_f64).map(format_number);
    let count = |key: &str| schema.get(key).and_then(Value::as_u64);
    let bounds = |min: Option<String>, max: Option<String>| match (min, max) {
        (Some(min), Some(max)) => format!(" from {min} to {max}"),
        (Some(min), None) => format!(" of at least {min}"),
        (None, Some(max)) => format!(" of at most {max}"),
        (None, None) => String::new(),
    };
    let noun = types.iter().find(|t| **t != "null").copied().unwrap_or("value");
    match noun {
        "integer" => format!("an integer{}", bounds(number("minimum"), number("maximum"))),
        "number" => format!("a number{}", bounds(number("minimum"), number("maximum"))),
        "string" => match (count("minLength"), count("maxLength")) {
            (Some(min), Some(max)) => format!("a string of {min} to {max} characters"),
            (Some(min), None) => format!("a string of at least {min} characters"),
            (None, Some(max)) => format!("a string of at most {max} characters"),
            (None, None) => "a string".to_owned(),
        },
        "array" => match (count("minItems"), count("maxItems")) {
            (Some(min), Some(max)) => format!("an array of {min} to {max} items"),
            _ => "an array".to_owned(),
        },
        "boolean" => "true or false".to_owned(),
        "object" => "an object".to_owned(),
        other => format!("a {other}"),
    }
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e16 { format!("{}", v as i64) } else { v.to_string() }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.chars().count() <= 40 => format!("{s:?}"),
        Value::String(s) => format!("a string of {} characters", s.chars().count()),
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Args {
        /// Pages.
        #[serde(default = "three")]
        #[schemars(range(min = 1, max = 500))]
        pages: u32,
        /// Name.
        #[serde(default)]
        #[schemars(length(min = 1, max = 5))]
        name: Option<String>,
        #[serde(default)]
        mode: Mode,
    }

    #[derive(Debug, Default, Deserialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "lowercase")]
    #[schemars(inline)]
    enum Mode {
        #[default]
        Replace,
        Split,
    }

    fn three() -> u32 {
        3
    }

    fn error_text(result: Result<Args, CallToolResult>) -> String {
        let error = result.unwrap_err();
        assert_eq!(error.is_error, Some(true));
        error.content[0].as_text().unwrap().text.clone()
    }

    fn args(value: Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn valid_arguments_and_defaults() {
        let parsed: Args = parse(args(json!({"pages": 7, "name": null, "mode": "split"}))).unwrap();
        assert_eq!((parsed.pages, parsed.name, parsed.mode), (7, None, Mode::Split));
        assert_eq!(parse::<Args>(JsonObject::new()).unwrap().pages, 3);
    }

    #[test]
    fn each_bad_argument_is_named() {
        let cases = [
            (json!({"pages": 0}), "`pages` must be an integer from 1 to 500; got 0"),
            (json!({"pages": 501}), "`pages` must be an integer from 1 to 500; got 501"),
            (json!({"pages": -4}), "`pages` must be an integer from 1 to 500; got -4"),
            (json!({"pages": 2.5}), "`pages` must be an integer from 1 to 500; got 2.5"),
            (json!({"pages": "2"}), "`pages` must be an integer from 1 to 500; got \"2\""),
            (json!({"name": ""}), "`name` must be a string of 1 to 5 characters; got 0 characters"),
            (json!({"mode": "sideways"}), "`mode` must be one of replace, split; got \"sideways\""),
            (json!({"colour": 1}), "unknown argument `colour`; this tool accepts: mode, name, pages"),
        ];
        for (input, expected) in cases {
            let text = error_text(parse::<Args>(args(input.clone())));
            assert!(text.contains(expected), "{input}: {text}");
        }
    }
}
