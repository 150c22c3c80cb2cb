//! What the host does to arguments before a call (000 §4): inject the local identity into
//! `username` when the tool's schema defines it (overwriting whatever was given: model-provided
//! identity is never trusted), and rewrite `filename` / `file_names` that name artifacts of this
//! session into short-lived capability URLs on the loopback file server.

use serde_json::{Map, Value};

/// What the rewrite needs from the host.
pub(crate) trait ArgumentContext {
    /// The configured local identity.
    fn username(&self) -> String;
    /// A capability URL for the artifact of this session named `id_or_name`, if there is one.
    fn file_url(&self, id_or_name: &str) -> Option<String>;
}

/// The schema's property named `name`, if declared.
fn property<'a>(schema: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    schema.get("properties")?.as_object()?.get(name)
}

fn declares_type(property: &Value, wanted: &str) -> bool {
    match property.get("type") {
        None => true,
        Some(Value::String(t)) => t == wanted,
        Some(Value::Array(types)) => types.iter().any(|t| t == wanted),
        _ => false,
    }
}

/// `arguments` as validation should see them: with `username` as it will be injected, so a
/// schema that requires `username` accepts a call that (rightly) does not give one, and one that
/// gives something else is judged on what is really sent.
pub(crate) fn as_sent_for_validation(schema: &Map<String, Value>, arguments: &Map<String, Value>, username: &str) -> Map<String, Value> {
    let mut checked = arguments.clone();
    if property(schema, "username").is_some() {
        checked.insert("username".into(), Value::String(username.to_owned()));
    }
    checked
}

/// Leaves out optional arguments given as `null` whose schema does not accept `null`: a caller
/// (a model, more often than not) saying "no value", which the schema spells as absence. They
/// are not sent (so no `Mcp-Param-*` header carries them either); one note per argument.
pub(crate) fn drop_null_optionals(schema: &Map<String, Value>, arguments: &mut Map<String, Value>) -> Vec<String> {
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let dropped: Vec<String> = arguments
        .iter()
        .filter(|(name, value)| value.is_null() && !required.contains(&name.as_str()))
        .filter(|(name, _)| property(schema, name).is_some_and(|p| p.get("type").is_some() && !declares_type(p, "null")))
        .map(|(name, _)| name.clone())
        .collect();
    for name in &dropped {
        arguments.remove(name);
    }
    dropped.into_iter().map(|name| format!("`{name}`: null left out (the argument is optional and its schema does not accept null)")).collect()
}

/// Rewrites `arguments` in place; returns notes for the audit/summary (never the URLs' tokens).
pub(crate) fn prepare(schema: &Map<String, Value>, arguments: &mut Map<String, Value>, context: &impl ArgumentContext) -> Vec<String> {
    let mut notes = Vec::new();
    if property(schema, "username").is_some() {
        arguments.insert("username".into(), Value::String(context.username()));
    }
    if property(schema, "filename").is_some_and(|p| declares_type(p, "string")) {
        if let Some(Value::String(name)) = arguments.get_mut("filename") {
            if let Some(url) = context.file_url(name) {
                notes.push(format!("filename '{name}' passed as a capability URL"));
                *name = url;
            }
        }
    }
    if property(schema, "file_names").is_some_and(|p| declares_type(p, "array")) {
        if let Some(Value::Array(names)) = arguments.get_mut("file_names") {
            for item in names.iter_mut() {
                if let Value::String(name) = item {
                    if let Some(url) = context.file_url(name) {
                        notes.push(format!("file_names entry '{name}' passed as a capability URL"));
                        *name = url;
                    }
                }
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn null_optionals_are_left_out_only_where_null_is_not_allowed() {
        let schema = json!({"type": "object", "properties": {
            "verbose": {"type": "boolean"}, "note": {"type": ["string", "null"]}, "any": {}, "region": {"type": "string"}
        }, "required": ["region"]});
        let schema = schema.as_object().unwrap();
        let mut arguments = json!({"verbose": null, "note": null, "any": null, "region": null, "extra": null}).as_object().unwrap().clone();
        let notes = drop_null_optionals(schema, &mut arguments);
        // Only `verbose`: `note` accepts null, `any` declares no type, `region` is required (the
        // validator then says why), `extra` is not in the schema.
        assert_eq!(arguments, json!({"note": null, "any": null, "region": null, "extra": null}).as_object().unwrap().clone());
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("`verbose`"), "{notes:?}");
    }

    struct Context;
    impl ArgumentContext for Context {
        fn username(&self) -> String {
            "ada".to_owned()
        }
        fn file_url(&self, id_or_name: &str) -> Option<String> {
            (id_or_name == "report.pdf").then(|| "http://127.0.0.1:1/api/files/download/k?token=t".into())
        }
    }

    fn run(schema: Value, args: Value) -> Value {
        let mut args = args.as_object().unwrap().clone();
        prepare(schema.as_object().unwrap(), &mut args, &Context);
        Value::Object(args)
    }

    #[test]
    fn username_is_injected_only_when_declared_and_always_overwritten() {
        let schema = json!({"properties": {"username": {"type": "string"}}});
        assert_eq!(run(schema.clone(), json!({"username": "admin"}))["username"], "ada");
        assert_eq!(run(schema, json!({}))["username"], "ada");
        assert_eq!(run(json!({"properties": {}}), json!({"username": "admin"}))["username"], "admin", "not declared: untouched");
    }

    #[test]
    fn file_names_of_this_session_become_urls_others_stay() {
        let schema = json!({"properties": {"filename": {"type": "string"}, "file_names": {"type": "array"}}});
        let out = run(schema, json!({"filename": "report.pdf", "file_names": ["report.pdf", "other.txt", 3]}));
        assert!(out["filename"].as_str().unwrap().starts_with("http://127.0.0.1:"));
        assert!(out["file_names"][0].as_str().unwrap().starts_with("http://127.0.0.1:"));
        assert_eq!(out["file_names"][1], "other.txt");
        assert_eq!(out["file_names"][2], 3);
        let undeclared = run(json!({"properties": {}}), json!({"filename": "report.pdf"}));
        assert_eq!(undeclared["filename"], "report.pdf");
    }
}
