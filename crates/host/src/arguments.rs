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
