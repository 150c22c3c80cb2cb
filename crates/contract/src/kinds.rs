//! Kind payloads (see docs/result-shapes.md, "Kind payloads"): `kind` discriminators,
//! `needsInput:v1`, `toolError:v1`, and the contract markers (`<!-- kind:...:v1 -->`) that
//! markdown carries for machines and users must not read.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::outcome::{NeedsInput, NeedsInputOption, ToolErrorInfo};

/// `name:vN` (letters, digits, `-`, `_`, `.` in the name; a version number after `:v`).
pub(crate) fn kind_of(value: &Value) -> Option<&str> {
    let kind = value.get("kind")?.as_str()?;
    let (name, version) = kind.rsplit_once(":v")?;
    let name_ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    (name_ok && !version.is_empty() && version.chars().all(|c| c.is_ascii_digit())).then_some(kind)
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value.and_then(Value::as_array).map(|items| items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

fn opt_str(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

pub(crate) fn parse_needs_input(value: &Value, warnings: &mut Vec<String>) -> Option<NeedsInput> {
    let map = value.as_object()?;
    let message = opt_str(map, "message").unwrap_or_else(|| {
        warnings.push("needsInput:v1 payload without a `message`".into());
        "The tool needs more input.".into()
    });
    let inner = map.get("needsInput").and_then(Value::as_object);
    let suggestions: BTreeMap<String, Vec<String>> = inner
        .and_then(|n| n.get("suggestions"))
        .and_then(Value::as_object)
        .map(|s| s.iter().map(|(field, values)| (field.clone(), string_list(Some(values)))).collect())
        .unwrap_or_default();
    let options = map
        .get("options")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|o| {
                    let o = o.as_object()?;
                    let value = o.get("value").map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))?;
                    Some(NeedsInputOption {
                        label: opt_str(o, "label").unwrap_or_else(|| value.clone()),
                        value,
                        description: opt_str(o, "description"),
                        field: opt_str(o, "field"),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(NeedsInput {
        message,
        fields: string_list(inner.and_then(|n| n.get("fields"))),
        reason: inner.and_then(|n| opt_str(n, "reason")),
        suggestions,
        options,
    })
}

pub(crate) fn parse_tool_error(value: &Value, warnings: &mut Vec<String>) -> Option<ToolErrorInfo> {
    let map = value.as_object()?;
    let code = opt_str(map, "code").unwrap_or_else(|| {
        warnings.push("toolError:v1 payload without a `code`".into());
        "UNKNOWN_ERROR".into()
    });
    Some(ToolErrorInfo {
        message: opt_str(map, "message").unwrap_or_else(|| code.clone()),
        code,
        retryable: map.get("retryable").and_then(Value::as_bool),
        details: map.get("details").filter(|d| d.is_object()).cloned(),
    })
}

/// Removes `<!-- kind:...:vN -->` markers (and the blank line they leave) from markdown.
pub(crate) fn strip_contract_markers(text: &str) -> String {
    if !text.contains("<!--") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        let Some(len) = rest[start..].find("-->") else { break };
        let comment = rest[start + 4..start + len].trim();
        out.push_str(&rest[..start]);
        if !comment.starts_with("kind:") {
            out.push_str(&rest[start..start + len + 3]);
        }
        rest = &rest[start + len + 3..];
        if comment.starts_with("kind:") && (out.is_empty() || out.ends_with('\n')) {
            rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n')).unwrap_or(rest);
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_are_name_colon_version() {
        assert_eq!(kind_of(&json!({"kind": "needsInput:v1"})), Some("needsInput:v1"));
        assert_eq!(kind_of(&json!({"kind": "patternSearchResults:v12"})), Some("patternSearchResults:v12"));
        for bad in [json!({"kind": "needsInput"}), json!({"kind": ":v1"}), json!({"kind": "a b:v1"}), json!({"kind": 3}), json!("x")] {
            assert_eq!(kind_of(&bad), None, "{bad}");
        }
    }

    #[test]
    fn markers_are_removed_other_comments_kept() {
        let md = "# Title\n\n<!-- kind:pattern-card:v1 -->\n## Card\n<!-- a note -->\ntext";
        assert_eq!(strip_contract_markers(md), "# Title\n\n## Card\n<!-- a note -->\ntext");
        assert_eq!(strip_contract_markers("unclosed <!-- kind:x:v1"), "unclosed <!-- kind:x:v1");
        assert_eq!(strip_contract_markers("<!-- kind:pattern-index:v1 -->\n# Results"), "# Results", "a leading marker leaves no blank line");
    }
}
