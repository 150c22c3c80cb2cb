//! Tools that take files (SEP-2356 declared file inputs): `describe_image`, `summarize_csv` and
//! `compare_files` (an array of files). Each argument is
//! `{"type": "string", "format": "uri", "x-mcp-file": {"accept": [...], "maxSize": N}}` and takes
//! an RFC 2397 `data:` URI (base64 or percent-encoded; a `name=` parameter is read when given);
//! anything else — another scheme, a wrong type, too large — is a tool error, as the SEP says.

use std::sync::Arc;

use base64::Engine as _;
use rmcp::{
    handler::server::wrapper::Parameters,
    model::{CallToolResult, ContentBlock, JsonObject},
    tool, tool_router, ErrorData,
};
use serde_json::{json, Value};
use sha2::Digest as _;

use super::DemoServer;

const MAX_IMAGE: u64 = 10 * 1024 * 1024;
const MAX_TABLE: u64 = 5 * 1024 * 1024;
const MAX_EACH: u64 = 10 * 1024 * 1024;

fn file(accept: &[&str], max_size: u64, description: &str) -> Value {
    json!({ "type": "string", "format": "uri", "description": description, "x-mcp-file": { "accept": accept, "maxSize": max_size } })
}

fn schema(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let Value::Object(schema) = json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false }) else { unreachable!() };
    Arc::new(schema)
}

fn image_schema() -> Arc<JsonObject> {
    schema(json!({ "image": file(&["image/png", "image/jpeg", "image/gif", "image/webp"], MAX_IMAGE, "The picture to describe.") }), &["image"])
}

fn table_schema() -> Arc<JsonObject> {
    schema(json!({ "table": file(&["text/csv", ".csv"], MAX_TABLE, "The CSV table (a header row, then rows).") }), &["table"])
}

fn compare_schema() -> Arc<JsonObject> {
    schema(
        json!({ "files": { "type": "array", "minItems": 2, "maxItems": 10, "description": "Two to ten files of any type.", "items": { "type": "string", "format": "uri", "x-mcp-file": { "maxSize": MAX_EACH } } } }),
        &["files"],
    )
}

/// A decoded `data:` URI.
#[derive(Debug)]
struct DataFile {
    mime: String,
    name: Option<String>,
    bytes: Vec<u8>,
}

fn decode(argument: &str, value: Option<&Value>, accept: &[&str], max_size: u64) -> Result<DataFile, String> {
    let Some(Value::String(text)) = value else { return Err(format!("`{argument}` is missing: give the file as a data: URI")) };
    let Some(rest) = text.strip_prefix("data:") else {
        return Err(format!("`{argument}` must be a data: URI (RFC 2397); other schemes are not fetched"));
    };
    let (header, data) = rest.split_once(',').ok_or_else(|| format!("`{argument}`: a data: URI needs a comma before its data"))?;
    let mut parts = header.split(';');
    let mime = match parts.next() {
        Some("") | None => "text/plain".to_owned(),
        Some(m) => m.to_ascii_lowercase(),
    };
    let (mut name, mut base64) = (None, false);
    for part in parts {
        match part.split_once('=') {
            Some(("name", value)) => name = Some(percent_decode(value)),
            None if part == "base64" => base64 = true,
            _ => {}
        }
    }
    let bytes = if base64 {
        base64::engine::general_purpose::STANDARD.decode(data.trim()).map_err(|e| format!("`{argument}`: its base64 is invalid ({e})"))?
    } else {
        percent_decode(data).into_bytes()
    };
    if bytes.len() as u64 > max_size {
        return Err(format!("`{argument}` is {} bytes; this tool takes at most {max_size}", bytes.len()));
    }
    let top = mime.split('/').next().unwrap_or("");
    let extension = name.as_deref().and_then(|n| n.rsplit_once('.')).map(|(_, e)| format!(".{}", e.to_ascii_lowercase()));
    let accepted = accept.is_empty()
        || accept.iter().any(|a| *a == mime || a.strip_suffix("/*") == Some(top) || (a.starts_with('.') && extension.as_deref() == Some(*a)));
    if !accepted {
        return Err(format!("`{argument}` is {mime}; this tool accepts {}", accept.join(", ")));
    }
    Ok(DataFile { mime, name, bytes })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(byte) = text.get(i + 1..i + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn error(message: String) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::error(vec![ContentBlock::text(message)]))
}

fn size(n: usize) -> String {
    if n >= 1024 { format!("{:.1} KB", n as f64 / 1024.0) } else { format!("{n} bytes") }
}

#[tool_router(router = files_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        title = "Describe an image",
        description = "Takes a picture (a file: PNG, JPEG, GIF or WebP, up to 10 MB) and says what it is: format, size in pixels, bytes, its most common colour.",
        input_schema = image_schema(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn describe_image(&self, Parameters(arguments): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let file = match decode("image", arguments.get("image"), &["image/png", "image/jpeg", "image/gif", "image/webp"], MAX_IMAGE) {
            Ok(file) => file,
            Err(message) => return error(message),
        };
        let format = image::guess_format(&file.bytes).map_err(|_| ()).and_then(|f| f.extensions_str().first().map(|e| e.to_uppercase()).ok_or(()));
        let decoded = image::load_from_memory(&file.bytes);
        let (Ok(format), Ok(picture)) = (format, decoded) else {
            return error(format!("`image` ({}) is not a picture this tool can read", file.mime));
        };
        let rgb = picture.to_rgb8();
        let mut counts = std::collections::HashMap::<[u8; 3], u32>::new();
        for pixel in rgb.pixels().step_by(7) {
            *counts.entry([pixel[0] & 0xf0, pixel[1] & 0xf0, pixel[2] & 0xf0]).or_default() += 1;
        }
        let common = counts.into_iter().max_by_key(|(_, n)| *n).map(|(c, _)| format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])).unwrap_or_default();
        let name = file.name.map(|n| format!("'{n}', ")).unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{name}{format} image, {}×{} px, {}; most common colour {common}.",
            picture.width(),
            picture.height(),
            size(file.bytes.len())
        ))]))
    }

    #[tool(
        title = "Summarize a CSV table",
        description = "Takes a CSV file (up to 5 MB, a header row first) and returns its rows and columns, and each numeric column's total and mean, as a Markdown table.",
        input_schema = table_schema(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn summarize_csv(&self, Parameters(arguments): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let file = match decode("table", arguments.get("table"), &["text/csv", ".csv"], MAX_TABLE) {
            Ok(file) => file,
            Err(message) => return error(message),
        };
        let text = String::from_utf8_lossy(&file.bytes);
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let Some(header) = lines.next() else { return error("`table` is empty".into()) };
        let columns: Vec<String> = header.split(',').map(|c| c.trim().trim_matches('"').to_owned()).collect();
        let mut totals = vec![Some(0.0f64); columns.len()];
        let mut rows = 0usize;
        for line in lines {
            rows += 1;
            for (i, cell) in line.split(',').enumerate().take(columns.len()) {
                if let Some(total) = totals[i].as_mut() {
                    match cell.trim().trim_matches('"').parse::<f64>() {
                        Ok(v) => *total += v,
                        Err(_) => totals[i] = None,
                    }
                }
            }
        }
        let mut out = format!("{rows} rows, {} columns: {}.\n\n| column | total | mean |\n|---|---|---|\n", columns.len(), columns.join(", "));
        for (column, total) in columns.iter().zip(&totals) {
            if let Some(total) = total.filter(|_| rows > 0) {
                out.push_str(&format!("| {column} | {total} | {:.2} |\n", total / rows as f64));
            }
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(out)]))
    }

    #[tool(
        title = "Compare files",
        description = "Takes two to ten files of any type (up to 10 MB each) and says which are identical: each one's size and SHA-256.",
        input_schema = compare_schema(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn compare_files(&self, Parameters(arguments): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let Some(Value::Array(items)) = arguments.get("files") else { return error("`files` must be a list of two to ten data: URIs".into()) };
        if !(2..=10).contains(&items.len()) {
            return error(format!("`files` has {} items; give two to ten", items.len()));
        }
        let mut lines = Vec::new();
        let mut digests = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let file = match decode(&format!("files[{i}]"), Some(item), &[], MAX_EACH) {
                Ok(file) => file,
                Err(message) => return error(message),
            };
            let digest: String = sha2::Sha256::digest(&file.bytes).iter().map(|b| format!("{b:02x}")).collect();
            lines.push(format!("{}. {} ({}, {}) sha256 {}", i + 1, file.name.as_deref().unwrap_or("(no name)"), file.mime, size(file.bytes.len()), &digest[..16]));
            digests.push(digest);
        }
        let all_same = digests.windows(2).all(|w| w[0] == w[1]);
        let verdict = if all_same { "All files are identical.".to_owned() } else {
            let distinct: std::collections::HashSet<&String> = digests.iter().collect();
            format!("{} distinct contents among {} files.", distinct.len(), digests.len())
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{verdict}\n{}", lines.join("\n")))]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uris_are_read_in_both_encodings_and_checked() {
        let file = decode("a", Some(&json!("data:text/csv;name=Q3%20data.csv;base64,YSxiCjEsMgo=")), &["text/csv"], 100).unwrap();
        assert_eq!((file.mime.as_str(), file.name.as_deref(), file.bytes.as_slice()), ("text/csv", Some("Q3 data.csv"), &b"a,b\n1,2\n"[..]));
        let plain = decode("a", Some(&json!("data:text/plain,hello%20world")), &[], 100).unwrap();
        assert_eq!(plain.bytes, b"hello world");
        assert!(decode("a", Some(&json!("https://example.com/x.csv")), &[], 100).unwrap_err().contains("must be a data: URI"));
        assert!(decode("a", Some(&json!("data:image/png;base64,AAAA")), &["text/csv", ".csv"], 100).unwrap_err().contains("accepts text/csv"));
        assert!(decode("a", Some(&json!("data:text/csv;base64,YSxiCjEsMgo=")), &[], 3).unwrap_err().contains("at most 3"));
        assert!(decode("a", Some(&json!("data:text/csv;base64,!!!")), &[], 100).unwrap_err().contains("invalid"));
    }
}
