//! What to keep spilled and what to put back, so that the contract decides exactly as it would
//! on the whole message.
//!
//! A compact stays only where the contract takes the whole string as a binary without looking
//! at its length: an image/audio block's `data` or a resource's `blob` that is valid base64 (or
//! a base64 `data:` URL), and elsewhere (JSON fields at any depth, inside JSON text blocks, a
//! whole text block) a base64 string the contract identifies as a binary by its head — unless it
//! sits in `meta_data` (measured as a whole), beside a numeric `size` (compared with the decoded
//! length) or near the depth limit. Every other marker is put back before the contract runs.

use mcp_canvas_contract::{base64_verdict, ExtractionConfig, ToolOutcome};
use mcp_canvas_store::{spill::Spills, StoreError};
use serde_json::Value;

/// Puts back every spilled run of `raw` the contract must see whole (see the module docs).
pub fn prepare(raw: &mut Value, spills: &mut Spills, config: &ExtractionConfig) -> Result<(), StoreError> {
    if spills.is_empty() {
        return Ok(());
    }
    let Value::Object(map) = raw else { return spills.restore_value(raw) };
    // The contract compares a JSON text block with `structuredContent`: a run spilled in one but
    // not in the other (escaped differently) must be put back, or they would differ.
    let texts: Vec<&str> = match map.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect(),
        _ => Vec::new(),
    };
    let json_text = texts.iter().any(|t| t.trim_start().starts_with(['{', '[']));
    let in_text_blocks: Vec<u32> = texts.iter().flat_map(|t| spills.indices_in(t)).collect();
    if let Some(structured) = map.get_mut("structuredContent").filter(|_| json_text) {
        let mut only_here = spills.indices_in_value(structured);
        only_here.retain(|index| !in_text_blocks.contains(index));
        if !only_here.is_empty() {
            spills.restore_value_where(structured, &only_here)?;
        }
    }
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            ("content", Value::Array(blocks)) => {
                for block in blocks {
                    prepare_block(block, spills, config)?;
                }
            }
            (key, value) => prepare_tree(value, spills, config, 0, key == "meta_data")?,
        }
    }
    Ok(())
}

/// After the contract: any run still in the outcome put back (a compact the contract kept
/// instead of storing; none is expected).
pub fn restore_outcome(outcome: ToolOutcome, spills: &mut Spills) -> Result<ToolOutcome, StoreError> {
    if spills.is_empty() {
        return Ok(outcome);
    }
    let serialized = serde_json::to_string(&outcome).expect("an outcome serializes");
    if !spills.marks(&serialized) {
        return Ok(outcome);
    }
    tracing::warn!("a spilled run reached the outcome; putting it back");
    let mut value = serde_json::to_value(outcome).expect("an outcome serializes");
    spills.restore_value(&mut value)?;
    Ok(serde_json::from_value(value).expect("an outcome with its strings restored is an outcome"))
}

fn prepare_block(block: &mut Value, spills: &mut Spills, config: &ExtractionConfig) -> Result<(), StoreError> {
    let Value::Object(map) = block else { return spills.restore_value(block) };
    let kind = map.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    for (key, value) in map.iter_mut() {
        match (kind.as_str(), key.as_str(), value) {
            ("image" | "audio", "data", Value::String(data)) if spills.marks(data) => {
                if !is_stored_whole(data, spills) {
                    *data = spills.restore_text(data)?;
                }
            }
            ("resource", "resource", Value::Object(resource)) => {
                for (key, value) in resource.iter_mut() {
                    match (key.as_str(), value) {
                        ("blob", Value::String(blob)) if spills.marks(blob) && whole_at(blob, 0, spills) && base64_verdict(blob).is_some() => {}
                        (_, value) => spills.restore_value(value)?,
                    }
                }
            }
            ("text", "text", Value::String(text)) if spills.marks(text) => prepare_text(text, spills, config)?,
            (_, _, value) => spills.restore_value(value)?,
        }
    }
    Ok(())
}

/// A text block: JSON (parsed again by the contract) or a whole binary, else put back.
fn prepare_text(text: &mut String, spills: &mut Spills, config: &ExtractionConfig) -> Result<(), StoreError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(mut inner) = serde_json::from_str::<Value>(text) {
            let mut restore = Vec::new();
            collect_restores(&mut inner, spills, config, 0, false, false, &mut restore);
            *text = spills.restore_text_where(text, &|index| restore.contains(&index))?;
            return Ok(());
        }
    }
    if !is_identified_whole(text.trim(), spills) {
        *text = spills.restore_text(text)?;
    }
    Ok(())
}

/// JSON outside content blocks: each string kept when it is a binary the contract will store.
fn prepare_tree(value: &mut Value, spills: &mut Spills, config: &ExtractionConfig, depth: usize, in_meta: bool) -> Result<(), StoreError> {
    let mut restore = Vec::new();
    collect_restores(value, spills, config, depth, in_meta, false, &mut restore);
    if restore.is_empty() {
        return Ok(());
    }
    spills.restore_value_where(value, &restore)
}

/// The markers in `value` that must be put back (see the module docs).
fn collect_restores(value: &Value, spills: &Spills, config: &ExtractionConfig, depth: usize, in_meta: bool, sized: bool, out: &mut Vec<u32>) {
    match value {
        Value::String(text) if spills.marks(text) => {
            let keep = !in_meta && !sized && depth + 2 < config.max_depth && is_identified_whole(text, spills);
            if !keep {
                out.extend(spills.indices_in(text));
            }
        }
        Value::Object(map) => {
            let sized = map.get("size").is_some_and(Value::is_number);
            for (key, child) in map {
                collect_restores(child, spills, config, depth + 1, in_meta || key == "meta_data", sized, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|child| collect_restores(child, spills, config, depth + 1, in_meta, false, out)),
        _ => {}
    }
}

/// Image/audio `data`: base64 or a base64 `data:` URL, valid either way.
fn is_stored_whole(data: &str, spills: &Spills) -> bool {
    match data_url_body(data) {
        Some(start) => whole_at(data, start, spills) && base64_verdict(&data[start..]).is_some(),
        None => whole_at(data, 0, spills) && base64_verdict(data).is_some(),
    }
}

/// A JSON field or whole text block the contract stores: a valid base64 `data:` URL, or base64
/// it identifies as a binary.
fn is_identified_whole(text: &str, spills: &Spills) -> bool {
    match data_url_body(text) {
        Some(start) => whole_at(text, start, spills) && base64_verdict(&text[start..]).is_some(),
        None => whole_at(text, 0, spills) && base64_verdict(text) == Some(true),
    }
}

/// Where the base64 of `data:<type>/<subtype>;base64,` starts (this plain form only).
fn data_url_body(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("data:")?;
    let comma = rest.find(',')?;
    let media = rest[..comma].strip_suffix(";base64")?;
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$&^_.+-".contains(&b));
    let (kind, sub) = media.split_once('/')?;
    (token(kind) && token(sub)).then_some(5 + comma + 1)
}

fn whole_at(text: &str, start: usize, spills: &Spills) -> bool {
    spills.is_one_compact_at(text, start)
}
