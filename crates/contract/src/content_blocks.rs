//! Reads MCP content blocks (`text`, `image`, `audio`, `resource`, `resource_link`).

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::outcome::{ExtractedBinary, NormalizedResult, ResultText};

pub(crate) fn read_blocks(blocks: &[Value], tool: &str, out: &mut NormalizedResult) {
    for (index, block) in blocks.iter().enumerate() {
        let source = format!("content[{index}]");
        let Some(block) = block.as_object() else {
            out.warnings.push(format!("{source}: not an object; skipped"));
            continue;
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => match block.get("text").and_then(Value::as_str) {
                Some(text) => out.texts.push(ResultText {
                    text: text.to_owned(),
                    mime: str_field(block, "mimeType").map(str::to_owned),
                }),
                None => out.warnings.push(format!("{source}: text block without a `text` string")),
            },
            Some(kind @ ("image" | "audio")) => {
                read_base64_block(block, kind, &source, tool, out);
            }
            Some("resource") => read_embedded_resource(block, &source, tool, out),
            Some("resource_link") => {
                let uri = str_field(block, "uri").unwrap_or("(no uri)");
                let name = str_field(block, "name").unwrap_or(uri);
                out.texts.push(ResultText { text: format!("Resource link: {name} <{uri}>"), mime: None });
            }
            Some(other) => out.warnings.push(format!("{source}: unknown block type `{other}`; skipped")),
            None => out.warnings.push(format!("{source}: block without a `type`; skipped")),
        }
    }
}

fn read_base64_block(block: &Map<String, Value>, kind: &str, source: &str, tool: &str, out: &mut NormalizedResult) {
    let Some(data) = str_field(block, "data") else {
        out.warnings.push(format!("{source}: {kind} block without `data`"));
        return;
    };
    let mime = str_field(block, "mimeType").unwrap_or("application/octet-stream");
    match decode_base64(data) {
        Ok(bytes) => out.binaries.push(ExtractedBinary {
            name: default_name(tool, out.binaries.len(), mime),
            mime: mime.to_owned(),
            bytes,
            source: source.to_owned(),
        }),
        Err(reason) => out.warnings.push(format!("{source}: {kind} data is not valid base64 ({reason}); not stored")),
    }
}

fn read_embedded_resource(block: &Map<String, Value>, source: &str, tool: &str, out: &mut NormalizedResult) {
    let Some(resource) = block.get("resource").and_then(Value::as_object) else {
        out.warnings.push(format!("{source}: resource block without a `resource` object"));
        return;
    };
    let uri = str_field(resource, "uri").unwrap_or("");
    let mime = str_field(resource, "mimeType");
    if let Some(text) = str_field(resource, "text") {
        out.texts.push(ResultText { text: text.to_owned(), mime: mime.map(str::to_owned) });
    } else if let Some(blob) = str_field(resource, "blob") {
        let mime = mime.unwrap_or("application/octet-stream");
        match decode_base64(blob) {
            Ok(bytes) => out.binaries.push(ExtractedBinary {
                name: name_from_uri(uri).unwrap_or_else(|| default_name(tool, out.binaries.len(), mime)),
                mime: mime.to_owned(),
                bytes,
                source: source.to_owned(),
            }),
            Err(reason) => out.warnings.push(format!("{source}: resource blob is not valid base64 ({reason}); not stored")),
        }
    } else {
        out.warnings.push(format!("{source}: resource without `text` or `blob`"));
    }
}

/// A name for a binary that came without one: `<tool>.<ext>`, then `<tool>-2.<ext>`, ...
fn default_name(tool: &str, already_extracted: usize, mime: &str) -> String {
    let stem: String = tool.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    match already_extracted {
        0 => format!("{stem}.{}", extension_for(mime)),
        n => format!("{stem}-{}.{}", n + 1, extension_for(mime)),
    }
}

fn str_field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

/// Decodes standard base64, with or without padding, ignoring ASCII whitespace (line-wrapped
/// encoders are common).
pub(crate) fn decode_base64(data: &str) -> Result<Vec<u8>, String> {
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let compact: String;
    let input = if data.bytes().any(|b| b.is_ascii_whitespace()) {
        compact = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        compact.as_str()
    } else {
        data
    };
    engine.decode(input).map_err(|e| e.to_string())
}

fn name_from_uri(uri: &str) -> Option<String> {
    let last = uri.rsplit('/').next()?.split(['?', '#']).next()?;
    (!last.is_empty() && last.contains('.')).then(|| last.to_owned())
}

/// A file extension for a MIME type, for naming binaries that came without a name.
pub(crate) fn extension_for(mime: &str) -> &'static str {
    match mime.split(';').next().unwrap_or("").trim() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "application/pdf" => "pdf",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" => "mp3",
        "text/html" => "html",
        "text/csv" => "csv",
        "application/json" => "json",
        "text/markdown" => "md",
        "text/plain" => "txt",
        _ => "bin",
    }
}
