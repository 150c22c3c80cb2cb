//! MCP content blocks (`text`, `image`, `audio`, `resource`, `resource_link`) with their
//! annotations. Binary blocks are queued as artifacts here (layer 2); text and JSON blocks are
//! returned for the later layers.

use serde_json::{Map, Value};

use crate::{
    base64_scan::{into_base64, parse_data_url},
    normalize::{BinaryExtras, Extractor},
    outcome::Audience,
    payload::Payload,
};

pub(crate) enum Block {
    Text { text: String, mime: Option<String>, audience: Audience, priority: Option<f64>, source: String },
    Json { value: Value, mime: Option<String>, audience: Audience, priority: Option<f64>, source: String },
}

pub(crate) fn read_blocks(content: Vec<Value>, extractor: &mut Extractor<'_>) -> Vec<Block> {
    let mut blocks = Vec::new();
    for (index, block) in content.into_iter().enumerate() {
        let source = format!("content[{index}]");
        let Value::Object(mut block) = block else {
            extractor.warnings.push(format!("{source}: not an object; skipped"));
            continue;
        };
        let (audience, priority) = annotations(&block, &source, extractor);
        let declared = take_str(&mut block, "mimeType");
        let mime = extractor.declared_media_type(declared.as_deref(), &source);
        match block.get("type").and_then(Value::as_str).map(str::to_owned).as_deref() {
            Some("text") => match take_str(&mut block, "text") {
                Some(text) => blocks.push(text_or_json(text, mime, audience, priority, source)),
                None => extractor.warnings.push(format!("{source}: text block without a `text` string; skipped")),
            },
            Some(kind @ ("image" | "audio")) => {
                let Some(data) = take_str(&mut block, "data") else {
                    extractor.warnings.push(format!("{source}: {kind} block without `data`; skipped"));
                    continue;
                };
                // Bare base64 as the spec says, or (a common mistake) a whole `data:` URL.
                let decoded = match into_base64(data) {
                    Ok(payload) => Ok((payload, None)),
                    Err(data) => parse_data_url(&data).map(|url| (url.payload, url.mime)).ok_or(data),
                };
                match decoded {
                    Ok((payload, url_mime)) => {
                        let declared = mime.or(url_mime);
                        extractor.add(payload, declared.as_deref(), None, source, None, BinaryExtras { audience, ..Default::default() });
                    }
                    Err(data) => extractor.warnings.push(format!("{source}: {kind} data is not valid base64 ({} characters); not stored", data.len())),
                }
            }
            Some("resource") => read_resource(block, &source, audience, extractor),
            Some("resource_link") => {
                let uri = take_str(&mut block, "uri").unwrap_or_default();
                let name = take_str(&mut block, "name").unwrap_or_else(|| uri.clone());
                let description = take_str(&mut block, "description").map(|d| format!(" — {d}")).unwrap_or_default();
                let text = format!("Resource link: {name} <{uri}>{description}");
                blocks.push(Block::Text { text, mime: None, audience, priority, source });
            }
            Some(other) => extractor.warnings.push(format!("{source}: unknown block type `{}`; skipped", other.chars().take(40).collect::<String>())),
            None => extractor.warnings.push(format!("{source}: block without a `type`; skipped")),
        }
    }
    blocks
}

fn text_or_json(text: String, mime: Option<String>, audience: Audience, priority: Option<f64>, source: String) -> Block {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            return Block::Json { value, mime, audience, priority, source };
        }
    }
    Block::Text { text, mime, audience, priority, source }
}

fn read_resource(mut block: Map<String, Value>, source: &str, audience: Audience, extractor: &mut Extractor<'_>) {
    let Some(Value::Object(mut resource)) = block.remove("resource") else {
        extractor.warnings.push(format!("{source}: resource block without a `resource` object; skipped"));
        return;
    };
    let uri = take_str(&mut resource, "uri").unwrap_or_default();
    let declared = take_str(&mut resource, "mimeType");
    let mime = extractor.declared_media_type(declared.as_deref(), source);
    let name = name_from_uri(&uri).or_else(|| take_str(&mut resource, "name")).or_else(|| take_str(&mut resource, "title"));
    let description = take_str(&mut resource, "title").or_else(|| take_str(&mut resource, "description"));
    let extras = || BinaryExtras { audience, ..Default::default() };
    if let Some(text) = take_str(&mut resource, "text") {
        let mime = mime.or_else(|| Some("text/plain".into()));
        extractor.add(Payload::Text(text), mime.as_deref(), name.as_deref(), source.to_owned(), description, extras());
    } else if let Some(blob) = take_str(&mut resource, "blob") {
        match into_base64(blob) {
            Ok(payload) => {
                extractor.add(payload, mime.as_deref(), name.as_deref(), source.to_owned(), description, extras());
            }
            Err(blob) => extractor.warnings.push(format!("{source}: resource blob is not valid base64 ({} characters); not stored", blob.len())),
        }
    } else {
        extractor.warnings.push(format!("{source}: resource without `text` or `blob`; skipped"));
    }
}

fn annotations(block: &Map<String, Value>, source: &str, extractor: &mut Extractor<'_>) -> (Audience, Option<f64>) {
    let Some(annotations) = block.get("annotations").and_then(Value::as_object) else { return (Audience::Both, None) };
    let roles: Vec<&str> = annotations.get("audience").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let audience = match (roles.contains(&"user"), roles.contains(&"assistant")) {
        (true, false) => Audience::User,
        (false, true) => Audience::Assistant,
        _ => Audience::Both,
    };
    let priority = annotations.get("priority").and_then(Value::as_f64);
    if priority.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
        extractor.warnings.push(format!("{source}: annotation priority {} is outside 0..1", priority.unwrap_or_default()));
    }
    (audience, priority)
}

fn take_str(map: &mut Map<String, Value>, key: &str) -> Option<String> {
    match map.remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            map.insert(key.to_owned(), other);
            None
        }
        None => None,
    }
}

fn name_from_uri(uri: &str) -> Option<String> {
    let path = uri.split(['?', '#']).next()?;
    let last = path.rsplit('/').next()?;
    let decoded = percent_encoding::percent_decode_str(last).decode_utf8_lossy().into_owned();
    (!decoded.is_empty() && decoded.contains('.')).then_some(decoded)
}
