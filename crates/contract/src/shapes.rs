//! What the canonical structured payload is — a `kind` payload, the v2/v1 contract, or plain JSON
//! (see docs/result-shapes.md, "Kind payloads" and "The v2 contract") — and the size safety net
//! (layer 4; see "The layers, in order").

use serde_json::{Map, Value};

use crate::{
    base64_scan::{into_base64, parse_data_url},
    canvas_intent::{parse_dashboard, parse_mode, parse_viewer},
    finish::{placeholder, replace_placeholders},
    kinds::{kind_of, parse_needs_input, parse_tool_error},
    normalize::{BinaryExtras, Extractor},
    outcome::Normalized,
    payload::Payload,
    walk::detect_base64,
};

/// Keys that mark the v2 (or v1) tool contract.
const CONTRACT_KEYS: &[&str] = &["results", "artifacts", "returned_file_names", "returned_file_contents", "display", "canvas", "meta_data"];

pub(crate) fn classify(mut value: Value, source: &str, normalized: &mut Normalized, extractor: &mut Extractor<'_>, skip_detection: bool) {
    if let Some(kind) = kind_of(&value).map(str::to_owned) {
        let warnings = &mut extractor.warnings;
        if kind.starts_with("needsInput:") {
            normalized.needs_input = parse_needs_input(&value, warnings);
        } else if kind.starts_with("toolError:") {
            normalized.error = parse_tool_error(&value, warnings);
        }
        normalized.kind = Some(kind);
    }
    let is_contract = normalized.kind.is_none() && value.as_object().is_some_and(is_contract);
    if is_contract {
        let Value::Object(map) = value else { unreachable!() };
        contract(map, source, normalized, extractor, skip_detection);
        return;
    }
    if !skip_detection {
        detect_base64(&mut value, source, extractor, 0);
    }
    normalized.results = Some(value);
}

/// Whether an object is the v2 (or v1) contract rather than plain data that happens to use one of
/// its key names (REST pagination `{"count", "next", "results"}`, a `display` string): every key is
/// a contract key with the right JSON type, or it carries files (`artifacts` or the legacy pair).
fn is_contract(map: &Map<String, Value>) -> bool {
    let carries_files = matches!(map.get("artifacts"), Some(Value::Array(_)))
        || (matches!(map.get("returned_file_names"), Some(Value::Array(_))) && matches!(map.get("returned_file_contents"), Some(Value::Array(_))));
    let well_typed = |key: &str, value: &Value| match key {
        "display" | "canvas" => value.is_object(),
        "artifacts" | "returned_file_names" | "returned_file_contents" => value.is_array() || value.is_null(),
        _ => true,
    };
    let only_contract_keys = !map.is_empty() && map.iter().all(|(k, v)| CONTRACT_KEYS.contains(&k.as_str()) && well_typed(k, v));
    carries_files || only_contract_keys
}

/// The v2 contract (see docs/result-shapes.md, "The v2 contract"): `results`, `meta_data`,
/// `artifacts`, `display`, `canvas`, and the legacy `returned_file_names`/`returned_file_contents`
/// (used only when `artifacts` is absent; see "Legacy file arrays").
fn contract(mut map: Map<String, Value>, source: &str, normalized: &mut Normalized, extractor: &mut Extractor<'_>, skip_detection: bool) {
    let artifacts = map.remove("artifacts");
    let legacy_names = map.remove("returned_file_names");
    let legacy_contents = map.remove("returned_file_contents");
    match artifacts {
        Some(Value::Array(items)) => {
            if legacy_names.is_some() || legacy_contents.is_some() {
                extractor.warnings.push(format!("{source}: both `artifacts` and legacy `returned_file_*` arrays; `artifacts` wins, the legacy arrays are ignored"));
            }
            for (i, item) in items.into_iter().enumerate() {
                contract_artifact(item, &format!("{source}.artifacts[{i}]"), extractor);
            }
        }
        Some(Value::Null) | None => legacy(legacy_names, legacy_contents, source, extractor),
        Some(other) => extractor.warnings.push(format!("{source}.artifacts: expected an array, got {}; ignored", crate::json_type_name(&other))),
    }

    if let Some(mut results) = map.remove("results") {
        if !skip_detection {
            detect_base64(&mut results, &format!("{source}.results"), extractor, 0);
        }
        normalized.results = Some(results);
    }

    match map.remove("meta_data") {
        None | Some(Value::Null) => {}
        Some(meta) => {
            let text = serde_json::to_string(&meta).unwrap_or_default();
            if text.len() > extractor.config.max_meta_bytes {
                extractor.warnings.push(format!("{source}.meta_data is {} bytes (limit {}); stored as an artifact", text.len(), extractor.config.max_meta_bytes));
                extractor.add(Payload::Text(text), Some("application/json"), Some("meta_data.json"), format!("{source}.meta_data"), None, BinaryExtras::default());
            } else {
                normalized.meta = Some(meta);
            }
        }
    }

    if let Some(display) = map.remove("display") {
        match display {
            Value::Object(display) => {
                let warnings = &mut extractor.warnings;
                normalized.display_open = display.get("open_canvas").and_then(Value::as_bool);
                normalized.primary_file = display.get("primary_file").and_then(Value::as_str).map(str::to_owned);
                normalized.mode = parse_mode(display.get("mode"), "display.mode", warnings);
                normalized.viewer_hint = parse_viewer(display.get("viewer_hint"), "display.viewer_hint", warnings);
            }
            other => extractor.warnings.push(format!("{source}.display: expected an object, got {}; ignored", crate::json_type_name(&other))),
        }
    }
    if let Some(canvas) = map.remove("canvas") {
        normalized.dashboard = parse_dashboard(&canvas, &mut extractor.warnings);
    }
    if !map.is_empty() {
        let keys: Vec<String> = map.keys().take(10).map(|k| format!("`{}`", k.chars().take(40).collect::<String>())).collect();
        extractor.warnings.push(format!("{source}: {} not part of the v2 contract; ignored", keys.join(", ")));
    }
}

fn contract_artifact(item: Value, source: &str, extractor: &mut Extractor<'_>) {
    let Value::Object(item) = item else {
        extractor.warnings.push(format!("{source}: not an object; skipped"));
        return;
    };
    let mut item = item;
    // Take the content out of the map so a large payload is moved, not copied.
    let data = match item.remove("b64").or_else(|| item.remove("data")) {
        Some(Value::String(data)) => Some(data),
        _ => None,
    };
    let text = |k: &str| item.get(k).and_then(Value::as_str);
    let name = text("name");
    let label = name.map(|n| format!(" ({})", n.chars().take(80).collect::<String>())).unwrap_or_default();
    let Some(data) = data else {
        extractor.warnings.push(format!("{source}{label}: no `b64` content; skipped"));
        return;
    };
    let decoded = match parse_data_url(&data) {
        Some(url) => Ok((url.payload, url.mime)),
        None => into_base64(data).map(|p| (p, None)),
    };
    let (payload, url_mime) = match decoded {
        Ok(decoded) => decoded,
        Err(data) => {
            extractor.warnings.push(format!("{source}{label}: `b64` is not valid base64 ({} characters); not stored", data.len()));
            return;
        }
    };
    if let Some(declared) = item.get("size").and_then(Value::as_u64) {
        let actual = payload.decoded_len();
        if declared != actual {
            extractor.warnings.push(format!("{source}{label}: declared size {declared} but the content is {actual} bytes"));
        }
    }
    let viewer_hint = parse_viewer(item.get("viewer"), &format!("{source}.viewer"), &mut extractor.warnings);
    let declared = text("mime").map(str::to_owned).or(url_mime);
    let description = text("description").map(str::to_owned);
    extractor.add(payload, declared.as_deref(), name, source.to_owned(), description, BinaryExtras { viewer_hint, ..Default::default() });
}

fn legacy(names: Option<Value>, contents: Option<Value>, source: &str, extractor: &mut Extractor<'_>) {
    let (names, contents) = match (names, contents) {
        (None, None) => return,
        (Some(Value::Array(n)), Some(Value::Array(c))) => (n, c),
        (n, c) => {
            extractor.warnings.push(format!(
                "{source}: legacy `returned_file_names` ({}) and `returned_file_contents` ({}) must both be arrays; ignored",
                n.as_ref().map_or("absent", crate::json_type_name),
                c.as_ref().map_or("absent", crate::json_type_name)
            ));
            return;
        }
    };
    if names.len() != contents.len() {
        extractor.warnings.push(format!(
            "{source}: {} legacy file names but {} contents; only the first {} pairs are used",
            names.len(),
            contents.len(),
            names.len().min(contents.len())
        ));
    }
    for (i, (name, content)) in names.into_iter().zip(contents).enumerate() {
        let item_source = format!("{source}.returned_file_contents[{i}]");
        let (Value::String(name), Value::String(content)) = (name, content) else {
            extractor.warnings.push(format!("{item_source}: name and content must be strings; skipped"));
            continue;
        };
        let decoded = match parse_data_url(&content) {
            Some(url) => Ok((url.payload, url.mime)),
            None => into_base64(content).map(|p| (p, None)),
        };
        match decoded {
            Ok((payload, mime)) => {
                extractor.add(payload, mime.as_deref(), Some(&name), item_source, None, BinaryExtras::default());
            }
            Err(_) => extractor.warnings.push(format!("{item_source} ({}): not valid base64; not stored", name.chars().take(80).collect::<String>())),
        }
    }
}

/// A light check of the structured result against the tool's declared `outputSchema`: required
/// top-level properties must be present.
pub(crate) fn check_required(schema: &Value, value: &Value, warnings: &mut Vec<String>) {
    let (Some(required), Some(object)) = (schema.get("required").and_then(Value::as_array), value.as_object()) else { return };
    let missing: Vec<&str> = required.iter().filter_map(Value::as_str).filter(|k| !object.contains_key(*k)).collect();
    if !missing.is_empty() {
        warnings.push(format!("structured result lacks {} required by the tool's outputSchema", missing.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")));
    }
}

/// Stored text cannot carry `⟦artifact:N⟧` placeholders (ids are known only after storage): they
/// name the artifact instead.
fn name_placeholders(text: &str, extractor: &Extractor<'_>) -> String {
    let names: Vec<String> = extractor.pending.iter().map(|p| format!("artifact '{}'", p.name)).collect();
    replace_placeholders(text, &names)
}

/// Layer 4: text longer than `max_inline_chars` becomes a text artifact with a head/tail preview.
pub(crate) fn safety_net(normalized: &mut Normalized, extractor: &mut Extractor<'_>) {
    let max = extractor.config.max_inline_chars;
    let texts = std::mem::take(&mut normalized.texts);
    for mut text in texts {
        let chars = text.text.chars().count();
        if chars <= max {
            normalized.texts.push(text);
            continue;
        }
        text.text = name_placeholders(&text.text, extractor);
        let chars = text.text.chars().count();
        let mime = text.mime.clone().unwrap_or_else(|| "text/plain".into());
        let ext = match mime.as_str() {
            "text/markdown" => "md",
            "application/json" => "json",
            "text/html" => "html",
            _ => "txt",
        };
        let name = format!("{}-{}.{ext}", extractor.tool, text.source.replace(['[', ']'], "").replace("content", "text"));
        let preview = preview(&text.text, chars);
        let extras = BinaryExtras { audience: text.audience, preview: Some(preview), ..Default::default() };
        let index = extractor.add(Payload::Text(text.text), Some(&mime), Some(&name), text.source.clone(), None, extras);
        normalized.texts.push(crate::outcome::OutcomeText { text: placeholder(index), ..text });
    }
    // Results reach the summary only when nothing else speaks for the result (see summary.rs);
    // only then does their size matter to the model.
    let results_in_summary = normalized.error.is_none()
        && normalized.needs_input.is_none()
        && !normalized.texts.iter().any(|t| t.audience != crate::outcome::Audience::User);
    if let Some(results) = normalized.results.as_ref().filter(|_| results_in_summary) {
        let serialized = serde_json::to_string_pretty(results).unwrap_or_default();
        let chars = serialized.chars().count();
        if chars > max {
            let serialized = name_placeholders(&serialized, extractor);
            let chars = serialized.chars().count();
            let preview = preview(&serialized, chars);
            let name = format!("{}-results.json", extractor.tool);
            let extras = BinaryExtras { preview: Some(preview), audience: normalized.results_audience, ..Default::default() };
            normalized.results_artifact = Some(extractor.add(Payload::Text(serialized), Some("application/json"), Some(&name), "results".into(), None, extras));
        }
    }
}

const PREVIEW_HEAD: usize = 400;
const PREVIEW_TAIL: usize = 200;

fn preview(text: &str, chars: usize) -> (String, String, usize) {
    let head: String = text.chars().take(PREVIEW_HEAD).collect();
    let tail: String = text.chars().skip(chars.saturating_sub(PREVIEW_TAIL)).collect();
    (head, tail, chars.saturating_sub(PREVIEW_HEAD + PREVIEW_TAIL))
}
