//! Layers 1 and 3 over JSON trees and text: per-tool rule paths, then base64 and `data:` URLs
//! anywhere. Each binary found is queued and its string replaced by a `⟦artifact:N⟧` placeholder.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::{
    base64_scan::{check_base64, find_data_urls, identify_base64, parse_data_url, payload_from},
    finish::{is_placeholder, placeholder},
    kinds::strip_contract_markers,
    normalize::{BinaryExtras, Extractor},
    outcome::Audience,
    rules::{self, FieldPath, Step},
};

/// Sibling keys that name the file a binary field holds.
const NAME_KEYS: &[&str] = &["filename", "file_name", "fileName", "name", "title", "view_name", "viewName"];

/// Layer 1: the user's per-tool rules.
pub(crate) fn apply_rules(root: &mut Value, prefix: &str, extractor: &mut Extractor<'_>) {
    let rules: Vec<_> = extractor.config.rules_for(extractor.server, extractor.tool).cloned().collect();
    for rule in rules {
        let Ok(path) = FieldPath::parse(&rule.path) else { continue };
        for steps in path.resolve(root) {
            let source = rules::display(prefix, &steps);
            let Some(Value::String(text)) = rules::get_mut(root, &steps) else {
                extractor.warnings.push(format!("{source}: rule path `{}` does not name a string; skipped", rule.path));
                continue;
            };
            if is_placeholder(text) {
                continue;
            }
            let (payload, url_mime) = match parse_data_url(text) {
                Some(url) => (Some(url.payload), url.mime),
                None => match check_base64(text) {
                    Some(form) => (Some(payload_from(std::mem::take(text), form)), None),
                    None => (None, None),
                },
            };
            let Some(payload) = payload else {
                extractor.warnings.push(format!("{source}: rule `{}` expects base64 but the value is not; left inline", rule.path));
                continue;
            };
            let siblings = sibling_vars(root, &steps);
            let filename = rule.filename_field.as_ref().and_then(|f| siblings.get(f).cloned());
            let mut vars = siblings;
            if let Some(kind) = &rule.content_type {
                vars.insert("content_type".into(), kind.clone());
            }
            let extras = BinaryExtras { summary_template: rule.summary.clone(), template_vars: vars, add_extension: true, ..Default::default() };
            let declared = rule.mime.clone().or(url_mime);
            let index = extractor.add(payload, declared.as_deref(), filename.as_deref(), source, None, extras);
            if let Some(slot) = rules::get_mut(root, &steps) {
                *slot = Value::String(placeholder(index));
            }
        }
    }
}

/// Scalar fields beside the value at `steps` (its parent object's), as template words.
fn sibling_vars(root: &mut Value, steps: &[Step]) -> BTreeMap<String, String> {
    let parent = match steps.split_last() {
        Some((_, parent)) => rules::get_mut(root, parent),
        None => None,
    };
    match parent {
        Some(Value::Object(map)) => scalar_fields(map),
        _ => BTreeMap::new(),
    }
}

fn scalar_fields(map: &Map<String, Value>) -> BTreeMap<String, String> {
    map.iter()
        .filter_map(|(k, v)| {
            let text = match v {
                Value::String(s) if s.chars().count() <= 200 && !is_placeholder(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            Some((k.clone(), text))
        })
        .collect()
}

/// Layer 3: base64 binaries and `data:` URLs anywhere in a JSON tree.
pub(crate) fn detect_base64(value: &mut Value, source: &str, extractor: &mut Extractor<'_>, depth: usize) {
    if depth > extractor.config.max_depth {
        extractor.warnings.push(format!("{source}: nested deeper than {} levels; not searched further", extractor.config.max_depth));
        return;
    }
    match value {
        Value::Object(map) => {
            let vars = scalar_fields(map);
            let name_hint = NAME_KEYS.iter().find_map(|k| vars.get(*k)).cloned();
            for (key, child) in map.iter_mut() {
                let child_source = if source.is_empty() { key.clone() } else { format!("{source}.{key}") };
                match child {
                    Value::String(text) => {
                        if let Some(replacement) = extract_string(text, &child_source, name_hint.as_deref(), &vars, extractor) {
                            *text = replacement;
                        }
                    }
                    other => detect_base64(other, &child_source, extractor, depth + 1),
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                let child_source = format!("{source}[{i}]");
                match child {
                    Value::String(text) => {
                        if let Some(replacement) = extract_string(text, &child_source, None, &BTreeMap::new(), extractor) {
                            *text = replacement;
                        }
                    }
                    other => detect_base64(other, &child_source, extractor, depth + 1),
                }
            }
        }
        _ => {}
    }
}

/// A replacement for `text` when it is (or contains) a binary.
fn extract_string(text: &mut String, source: &str, name_hint: Option<&str>, vars: &BTreeMap<String, String>, extractor: &mut Extractor<'_>) -> Option<String> {
    if is_placeholder(text) {
        return None;
    }
    let extras = || BinaryExtras { template_vars: vars.clone(), add_extension: true, ..Default::default() };
    if text.len() > 5 && text.as_bytes()[..5].eq_ignore_ascii_case(b"data:") {
        if let Some(url) = parse_data_url(text) {
            let index = extractor.add(url.payload, url.mime.as_deref(), name_hint, source.to_owned(), None, extras());
            return Some(placeholder(index));
        }
    }
    if text.len() >= extractor.config.base64_min_chars {
        if let Some((form, mime)) = identify_base64(text) {
            let payload = payload_from(std::mem::take(text), form);
            let index = extractor.add(payload, Some(&mime), name_hint, source.to_owned(), None, extras());
            return Some(placeholder(index));
        }
        if text.contains("data:") {
            return Some(replace_embedded_data_urls(text, source, Audience::Both, extractor));
        }
    }
    None
}

/// Layer 3 for a text block: the whole text as a binary, else embedded `data:` URLs; contract
/// markers removed either way.
pub(crate) fn extract_from_text(mut text: String, source: &str, audience: Audience, extractor: &mut Extractor<'_>) -> String {
    let trimmed = text.trim();
    let whole = if trimmed.len() >= 5 && trimmed.as_bytes()[..5].eq_ignore_ascii_case(b"data:") {
        parse_data_url(trimmed).map(|url| (url.payload, url.mime))
    } else if trimmed.len() >= extractor.config.base64_min_chars {
        match identify_base64(trimmed) {
            Some((form, mime)) => {
                // Move the text when there is nothing to trim (the large case), copy otherwise.
                let owned = if trimmed.len() == text.len() { None } else { Some(trimmed.to_owned()) };
                let owned = owned.unwrap_or_else(|| std::mem::take(&mut text));
                Some((payload_from(owned, form), Some(mime)))
            }
            None => None,
        }
    } else {
        None
    };
    if let Some((payload, mime)) = whole {
        let index = extractor.add(payload, mime.as_deref(), None, source.to_owned(), None, BinaryExtras { audience, ..Default::default() });
        return placeholder(index);
    }
    if text.contains("data:") {
        text = replace_embedded_data_urls(&text, source, audience, extractor);
    }
    strip_contract_markers(&text)
}

fn replace_embedded_data_urls(text: &str, source: &str, audience: Audience, extractor: &mut Extractor<'_>) -> String {
    let found = find_data_urls(text);
    if found.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len().min(4096));
    let mut last = 0;
    for (range, url) in found {
        out.push_str(&text[last..range.start]);
        let index = extractor.add(url.payload, url.mime.as_deref(), None, source.to_owned(), None, BinaryExtras { audience, ..Default::default() });
        out.push_str(&placeholder(index));
        last = range.end;
    }
    out.push_str(&text[last..]);
    out
}

