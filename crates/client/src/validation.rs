//! JSON Schema checks around a call: arguments against the tool's `inputSchema` before it runs
//! (errors say which field and why), structured results against its `outputSchema` after (a
//! mismatch is a warning, not a failure).

use serde_json::{Map, Value};

/// The schema itself is not a valid JSON Schema, so nothing can be checked against it.
#[derive(Debug, thiserror::Error)]
#[error("the tool's schema is not a valid JSON Schema ({0})")]
pub struct InvalidSchema(pub String);

/// Problems found, one line each (`values[1]: "x" is not of type "number"`), or an empty list.
pub fn problems(schema: &Map<String, Value>, instance: &Value) -> Result<Vec<String>, InvalidSchema> {
    let schema = Value::Object(schema.clone());
    let validator = jsonschema::validator_for(&schema).map_err(|e| InvalidSchema(e.to_string()))?;
    let mut found: Vec<String> = validator
        .iter_errors(instance)
        .map(|error| {
            let path = error.instance_path().to_string();
            let field = path.trim_start_matches('/').split('/').filter(|s| !s.is_empty()).fold(String::new(), |mut out, part| {
                if part.chars().all(|c| c.is_ascii_digit()) {
                    out.push_str(&format!("[{part}]"));
                } else {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(part);
                }
                out
            });
            if field.is_empty() { error.to_string() } else { format!("{field}: {error}") }
        })
        .collect();
    found.truncate(10);
    Ok(found)
}

/// Whether a tool needs the user's confirmation: `destructiveHint: true`, or `readOnlyHint:
/// false` with `destructiveHint` unset.
/// Whether a tool may change or delete data, so a person should confirm calling it:
/// `destructiveHint: true`, or `readOnlyHint: false` with `destructiveHint` unset.
pub fn needs_confirmation(tool: &rmcp::model::Tool) -> bool {
    match &tool.annotations {
        Some(a) => a.destructive_hint == Some(true) || (a.read_only_hint == Some(false) && a.destructive_hint.is_none()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn problems_name_the_field() {
        let schema = json!({"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}, "title": {"type": "string"}}, "required": ["values"]});
        let schema = schema.as_object().unwrap();
        assert!(problems(schema, &json!({"values": [1, 2]})).unwrap().is_empty());
        let found = problems(schema, &json!({"values": [1, "x"], "title": 3})).unwrap();
        assert!(found.iter().any(|p| p.starts_with("values[1]:") && p.contains("number")), "{found:?}");
        assert!(found.iter().any(|p| p.starts_with("title:")), "{found:?}");
        let missing = problems(schema, &json!({})).unwrap();
        assert!(missing[0].contains("values"), "{missing:?}");
        assert!(problems(json!({"type": 7}).as_object().unwrap(), &json!({})).is_err());
    }
}
