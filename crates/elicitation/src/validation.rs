//! JSON Schema checks around a call: arguments against the tool's `inputSchema` before it runs
//! (errors say which field and why), structured results against its `outputSchema` after (a
//! mismatch is a warning, not a failure).

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

/// The schema itself is not a valid JSON Schema, so nothing can be checked against it.
#[derive(Debug, thiserror::Error)]
#[error("the tool's schema is not a valid JSON Schema ({0})")]
pub struct InvalidSchema(pub String);

/// A `$ref` to another document is never fetched (SEP-2106: a tool schema must not make the
/// host reach the network); it stands for "anything" instead. Same-document references
/// (`#/$defs/…`, `$anchor`) resolve as usual.
struct NoFetch;

impl jsonschema::Retrieve for NoFetch {
    fn retrieve(&self, _uri: &jsonschema::Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Value::Object(Map::new()))
    }
}

/// Problems found, one line each (`values[1]: "x" is not of type "number"`), or an empty list.
/// The schema is used exactly as the server sent it, in the dialect its `$schema` declares
/// (2020-12 when it declares none).
pub fn problems(schema: &Map<String, Value>, instance: &Value) -> Result<Vec<String>, InvalidSchema> {
    report(&compile(schema)?, instance)
}

/// [`problems`] for a tool's own schema (shared by its listed definition): compiled once while it
/// is among the last [`COMPILED_KEPT`] schemas used, not on every call.
pub fn problems_in(schema: &Arc<Map<String, Value>>, instance: &Value) -> Result<Vec<String>, InvalidSchema> {
    let cached = COMPILED.lock().unwrap().iter().find(|(s, _)| Arc::ptr_eq(s, schema)).map(|(_, v)| v.clone());
    let validator = match cached {
        Some(validator) => validator,
        None => {
            let validator = Arc::new(compile(schema)?);
            let mut compiled = COMPILED.lock().unwrap();
            if compiled.len() >= COMPILED_KEPT {
                compiled.remove(0);
            }
            // The schema is kept with it, so its address cannot be taken by another.
            compiled.push((schema.clone(), validator.clone()));
            validator
        }
    };
    report(&validator, instance)
}

/// How many compiled schemas [`problems_in`] keeps.
const COMPILED_KEPT: usize = 64;

type Compiled = Vec<(Arc<Map<String, Value>>, Arc<jsonschema::Validator>)>;
static COMPILED: Mutex<Compiled> = Mutex::new(Vec::new());

fn compile(schema: &Map<String, Value>) -> Result<jsonschema::Validator, InvalidSchema> {
    let schema = Value::Object(schema.clone());
    jsonschema::options().with_retriever(NoFetch).build(&schema).map_err(|e| InvalidSchema(e.to_string()))
}

fn report(validator: &jsonschema::Validator, instance: &Value) -> Result<Vec<String>, InvalidSchema> {
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

    /// A network `$ref` is not fetched (the address below would refuse a connection, and the
    /// answer would come at once either way) and constrains nothing; local `$defs` still do.
    #[test]
    fn external_refs_are_not_fetched_local_ones_resolve() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/profile.json", listener.local_addr().unwrap());
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": { "id": { "$anchor": "id", "type": "integer" } },
            "properties": { "profile": { "$ref": url }, "id": { "$ref": "#id" } },
            "required": ["id"]
        });
        let schema = schema.as_object().unwrap();
        assert!(problems(schema, &json!({"id": 3, "profile": {"anything": true}})).unwrap().is_empty());
        let found = problems(schema, &json!({"id": "x"})).unwrap();
        assert!(found.iter().any(|p| p.starts_with("id:")), "{found:?}");
        assert!(listener.accept().is_err(), "the external $ref was fetched");
    }
}
