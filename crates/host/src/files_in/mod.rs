//! Files going *into* tools: the arguments a tool declares as files, the references callers give
//! for them, and what is sent in their place.
//!
//! Declarations recognized:
//! - SEP-2356 (newest revision, PR head `ff9d03ef`, 2026-05-13): a property
//!   `{"type": "string", "format": "uri", "x-mcp-file": {"accept": [...], "maxSize": N}}`, or an
//!   array whose `items` is one. Sent as an RFC 2397 data URI,
//!   `data:<type>;name=<percent-encoded file name>;base64,<bytes>` (`name=` is not in the newest
//!   revision; earlier ones and the implementations that exist read it, and a server that does
//!   not ignores it).
//! - OpenAI's `_meta["openai/fileParams"]`: top-level argument names; each is sent as
//!   `{"download_url", "file_id", "mime_type", "file_name"}`, the URL a capability URL of the
//!   loopback file server (as seed 000's `filename` / `file_names` already are: `arguments.rs`).
//!
//! - SEP-2631 (PR head `8799c5c1`, content `c3cf0eba`, 2026-06-09): `x-mcp-file`'s
//!   `transferModes` (`inline`, `upload`); a file over what is sent inline goes out of band
//!   (`files/authorizeUpload`, [`upload`]) when the tool allows it, and its file URI is sent.
//!
//! A caller gives a file as a reference, exactly as results show one — the id after
//! "Reference:", `artifact:ID` or `artifact://localhost/ID` — (a file from the disk is stored
//! first, so every file sent is an artifact, audited by id and digest). Which artifacts a caller
//! may send is its [`FileAccess`]: the person (window, CLI) any of theirs, an AI host's model only
//! those the proxy gave a model. `accept` and `maxSize` (and `[files] inline_max_bytes`, 16 MiB by default: a data URI is held in
//! memory, and every server reads the whole message) are checked
//! before anything is sent. The audit row keeps the reference and says what was sent.

pub mod download;
pub mod upload;

use std::io::Read;

use base64::Engine as _;
use mcp_canvas_store::{ArtifactRecord, ArtifactStore, StoreError};
use serde_json::{json, Map, Value};

/// How a declared file argument is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileEncoding {
    /// SEP-2356: an RFC 2397 data URI.
    DataUri,
    /// OpenAI's `openai/fileParams`: `{download_url, file_id, mime_type, file_name}`.
    OpenAi,
}

/// One argument a tool declares as a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileParam {
    /// The argument's name.
    pub name: String,
    /// An array of files (SEP-2356's `items`).
    pub multiple: bool,
    /// Accepted types: `type/subtype`, `type/*` or `.ext` (empty: any).
    pub accept: Vec<String>,
    /// The largest file (decoded bytes) the tool takes.
    pub max_size: Option<u64>,
    /// How it is sent.
    pub encoding: FileEncoding,
    /// SEP-2631's `transferModes`: may it be sent inline, uploaded (both when not declared).
    pub inline: bool,
    /// See `inline`.
    pub upload: bool,
}

/// Which stored files a caller may send to a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileAccess {
    /// The person at the window or the terminal: any file stored here.
    #[default]
    Person,
    /// An AI host's model (the proxy): only files the proxy gave a model.
    Model,
}

/// The file arguments `tool` declares.
pub fn params(tool: &rmcp::model::Tool) -> Vec<FileParam> {
    let mut found = Vec::new();
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        if let Some(descriptor) = sep_2356(property) {
            found.push(FileParam { name: name.clone(), multiple: false, ..descriptor });
        } else if property.get("type").and_then(Value::as_str) == Some("array") {
            if let Some(descriptor) = property.get("items").and_then(sep_2356) {
                found.push(FileParam { name: name.clone(), multiple: true, ..descriptor });
            }
        }
    }
    let openai = tool.meta.as_ref().and_then(|meta| meta.get("openai/fileParams")).and_then(Value::as_array);
    for name in openai.into_iter().flatten().filter_map(Value::as_str) {
        if !found.iter().any(|p| p.name == name) {
            found.push(FileParam { name: name.to_owned(), multiple: false, accept: Vec::new(), max_size: None, encoding: FileEncoding::OpenAi, inline: false, upload: false });
        }
    }
    found
}

/// A SEP-2356 file property: `x-mcp-file` on `{"type": "string", "format": "uri"}` (on any other
/// shape the keyword is ignored, as the SEP says).
fn sep_2356(property: &Value) -> Option<FileParam> {
    let descriptor = property.get("x-mcp-file")?.as_object()?;
    if property.get("type").and_then(Value::as_str) != Some("string") || property.get("format").and_then(Value::as_str) != Some("uri") {
        return None;
    }
    let accept = descriptor.get("accept").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(|s| s.trim().to_ascii_lowercase()).collect()).unwrap_or_default();
    let max_size = descriptor.get("maxSize").and_then(Value::as_u64);
    let modes: Option<Vec<&str>> = descriptor.get("transferModes").and_then(Value::as_array).map(|m| m.iter().filter_map(Value::as_str).collect());
    let (inline, upload) = match &modes {
        Some(modes) => (modes.contains(&"inline"), modes.contains(&"upload")),
        None => (true, true),
    };
    Some(FileParam { name: String::new(), multiple: false, accept, max_size, encoding: FileEncoding::DataUri, inline, upload })
}

/// The artifact id in a reference as results show them — `demo_1f0c2b7e9a41` (after
/// "Reference:"), `artifact:ID`, `artifact://localhost/ID` — or `None`.
pub fn reference_id(value: &str) -> Option<&str> {
    let value = value.trim();
    let id = value.strip_prefix("artifact://localhost/").or_else(|| value.strip_prefix("artifact:")).unwrap_or(value);
    let (namespace, hash) = id.rsplit_once('_')?;
    let ok = !namespace.is_empty()
        && namespace.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && hash.len() == 12
        && hash.chars().all(|c| c.is_ascii_hexdigit());
    ok.then_some(id)
}

/// Whether `mime` (or the file name's extension) is among `accept` (empty: anything).
pub fn accepts(accept: &[String], mime: &str, name: &str) -> bool {
    if accept.is_empty() {
        return true;
    }
    let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let extension = name.rsplit_once('.').map(|(_, e)| format!(".{}", e.to_ascii_lowercase()));
    accept.iter().any(|a| match a.strip_suffix("/*") {
        Some(top) => essence.split_once('/').is_some_and(|(t, _)| t == top),
        None if a.starts_with('.') => extension.as_deref() == Some(a.as_str()),
        None => *a == essence || a == "*/*",
    })
}

/// One file an argument (or one item of it) names.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The argument.
    pub param: FileParam,
    /// Its index, for an array.
    pub index: Option<usize>,
    /// The stored file.
    pub record: ArtifactRecord,
    /// Sent out of band (SEP-2631 upload), not inline.
    pub upload: bool,
}

/// Why a file argument cannot be sent: the message names the argument and the remedy.
pub type Refusal = String;

/// Finds and checks the files the arguments name: each a reference to a stored file this caller
/// may send, of an accepted type, within the tool's `maxSize` and `inline_max` (else uploaded). A value
/// that already is a `data:` URI is left as it is (within the same bounds).
pub fn choose(params: &[FileParam], arguments: &Map<String, Value>, store: &ArtifactStore, access: FileAccess, inline_max: u64) -> Result<Vec<Chosen>, Refusal> {
    let mut chosen = Vec::new();
    for param in params {
        let Some(value) = arguments.get(&param.name) else { continue };
        let items: Vec<(Option<usize>, &Value)> = match (param.multiple, value) {
            (true, Value::Array(items)) => items.iter().enumerate().map(|(i, v)| (Some(i), v)).collect(),
            (true, _) => return Err(format!("`{}` takes a list of files", param.name)),
            (false, value) => vec![(None, value)],
        };
        for (index, item) in items {
            let label = match index {
                Some(i) => format!("`{}[{i}]`", param.name),
                None => format!("`{}`", param.name),
            };
            let text = match (param.encoding, item) {
                (_, Value::String(text)) => text.as_str(),
                (FileEncoding::OpenAi, Value::Object(object)) if object.contains_key("download_url") => continue,
                _ => return Err(format!("{label} takes a file: give a reference as results show it (the id after \"Reference:\", artifact:ID or artifact://localhost/ID)")),
            };
            if let Some(payload) = text.strip_prefix("data:") {
                let bytes = payload.split_once(',').map_or(0, |(_, data)| data.len() as u64 * 3 / 4);
                if let Some(max) = param.max_size.filter(|max| bytes > *max) {
                    return Err(format!("{label}: the file is {} and the tool takes at most {}", self::bytes(bytes), self::bytes(max)));
                }
                continue;
            }
            let Some(id) = reference_id(text) else {
                return Err(format!("{label}: `{}` is not a file reference; give the id after \"Reference:\" in a result, artifact:ID or artifact://localhost/ID", shorten(text)));
            };
            let record = match store.get(id) {
                Ok(record) => record,
                Err(StoreError::NotFound(_)) => return Err(format!("{label}: no stored file `{id}`")),
                Err(e) => return Err(format!("{label}: {e}")),
            };
            if access == FileAccess::Model && !store.shared_with_model(id).map_err(|e| format!("{label}: {e}"))? {
                return Err(format!(
                    "{label}: `{id}` is not a file this AI host was given (only files the proxy returned to a model may be sent by one); the person can send it from MCP Canvas"
                ));
            }
            if !accepts(&param.accept, &record.mime, &record.name) {
                return Err(format!("{label}: `{}` is {}, and the tool accepts {}", record.name, record.mime, param.accept.join(", ")));
            }
            let upload = check_size(&label, record.size, param, inline_max)?;
            chosen.push(Chosen { param: param.clone(), index, record, upload });
        }
    }
    // A list of references can name one large file many times: bound what one call sends inline.
    let inline_total: u64 = chosen.iter().filter(|c| !c.upload && c.param.encoding == FileEncoding::DataUri).map(|c| c.record.size).sum();
    let max_total = inline_max.saturating_mul(4);
    if inline_total > max_total || chosen.len() > MAX_FILES_PER_CALL {
        return Err(format!(
            "{} files, {} inline in all: one call sends at most {MAX_FILES_PER_CALL} files and {} inline",
            chosen.len(),
            bytes(inline_total),
            bytes(max_total)
        ));
    }
    Ok(chosen)
}

/// The most files one call sends.
const MAX_FILES_PER_CALL: usize = 64;

/// Whether a file of `size` bytes goes out of band (`true`) or inline, as the tool allows; a
/// refusal naming the size when neither fits.
fn check_size(label: &str, size: u64, param: &FileParam, inline_max: u64) -> Result<bool, Refusal> {
    if let Some(max) = param.max_size.filter(|max| size > *max) {
        return Err(format!("{label}: the file is {} and the tool takes at most {}", bytes(size), bytes(max)));
    }
    if param.encoding != FileEncoding::DataUri {
        return Ok(false);
    }
    if param.inline && size <= inline_max {
        return Ok(false);
    }
    if param.upload {
        return Ok(true);
    }
    Err(format!(
        "{label}: the file is {}, over the {} MCP Canvas sends inline (settings.toml [files] inline_max_bytes), and the tool takes no upload (SEP-2631 transferModes)",
        bytes(size),
        bytes(inline_max)
    ))
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MB", n as f64 / (1 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KB", n as f64 / 1024.0),
        n => format!("{n} bytes"),
    }
}

fn shorten(text: &str) -> String {
    let cut: String = text.chars().take(60).collect();
    if cut.len() < text.len() { format!("{cut}…") } else { cut }
}

/// `arguments` with each chosen file as a short stand-in of its final form (a data URI without
/// bytes, an OpenAI file object without a URL), for schema validation before the bytes are read.
pub fn placeholders(arguments: &Map<String, Value>, chosen: &[Chosen]) -> Map<String, Value> {
    let mut out = arguments.clone();
    for file in chosen {
        let stand_in = match file.param.encoding {
            FileEncoding::DataUri => Value::String(format!("data:{};base64,", file.record.mime)),
            FileEncoding::OpenAi => json!({ "download_url": "http://127.0.0.1/", "file_id": file.record.id }),
        };
        put(&mut out, file, stand_in);
    }
    out
}

pub(crate) fn put(arguments: &mut Map<String, Value>, file: &Chosen, value: Value) {
    match (file.index, arguments.get_mut(&file.param.name)) {
        (Some(i), Some(Value::Array(items))) if i < items.len() => items[i] = value,
        (None, Some(slot)) => *slot = value,
        _ => {}
    }
}

/// What the audit row and the summary say was sent for each file.
pub fn notes(chosen: &[Chosen]) -> Vec<String> {
    chosen
        .iter()
        .map(|file| {
            let how = match file.param.encoding {
                FileEncoding::DataUri if file.upload => "out of band (files/authorizeUpload)",
                FileEncoding::DataUri => "inline as a data URI",
                FileEncoding::OpenAi => "as a download URL",
            };
            let label = match file.index {
                Some(i) => format!("{}[{i}]", file.param.name),
                None => file.param.name.clone(),
            };
            format!("`{label}`: sent {} ({}, {}, sha256 {}) {how}", file.record.id, file.record.name, bytes(file.record.size), file.record.sha256)
        })
        .collect()
}

/// `arguments` as sent: each chosen file's bytes, read from the store (checked against its
/// sha256), as a data URI; or its OpenAI file object, with a capability URL from `grant`.
pub fn fill(arguments: &mut Map<String, Value>, chosen: &[Chosen], store: &ArtifactStore, grant: &dyn Fn(&str) -> Option<String>) -> Result<(), Refusal> {
    for file in chosen.iter().filter(|f| !f.upload) {
        let value = match file.param.encoding {
            FileEncoding::DataUri => Value::String(data_uri(store, &file.record)?),
            FileEncoding::OpenAi => {
                let url = grant(&file.record.id).ok_or_else(|| format!("`{}`: no URL could be made for {}", file.param.name, file.record.id))?;
                json!({ "download_url": url, "file_id": file.record.id, "mime_type": file.record.mime, "file_name": file.record.name })
            }
        };
        put(arguments, file, value);
    }
    Ok(())
}

/// `data:<type>;name=<name>;base64,<bytes>`, encoded while the blob is read (the bytes are not
/// held twice: only the encoded string grows).
pub fn data_uri(store: &ArtifactStore, record: &ArtifactRecord) -> Result<String, Refusal> {
    let path = store.blob_path(&record.sha256);
    let mut file = std::fs::File::open(&path).map_err(|e| format!("{}: its file cannot be read: {e}", record.id))?;
    let mime = if record.mime.is_empty() { "application/octet-stream" } else { record.mime.as_str() };
    let mut out = String::with_capacity(record.size as usize / 3 * 4 + 64 + record.name.len() * 3);
    out.push_str("data:");
    out.push_str(mime);
    out.push_str(";name=");
    out.push_str(&percent_encode(&record.name));
    out.push_str(";base64,");
    let mut hasher = <sha2::Sha256 as sha2::Digest>::new();
    let mut buffer = vec![0u8; 3 * 64 * 1024];
    loop {
        let mut filled = 0;
        while filled < buffer.len() {
            match file.read(&mut buffer[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) => return Err(format!("{}: its file cannot be read: {e}", record.id)),
            }
        }
        if filled == 0 {
            break;
        }
        sha2::Digest::update(&mut hasher, &buffer[..filled]);
        base64::engine::general_purpose::STANDARD.encode_string(&buffer[..filled], &mut out);
        if filled < buffer.len() {
            break;
        }
    }
    let digest: String = sha2::Digest::finalize(hasher).iter().map(|b| format!("{b:02x}")).collect();
    if digest != record.sha256 {
        return Err(format!("{} is damaged (its bytes no longer match their sha256); nothing was sent", record.id));
    }
    Ok(out)
}

/// RFC 3986 unreserved characters stay; every other byte is `%XX`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `schema` as an AI host's model should see it (the proxy): each file argument a string taking a
/// reference, never bytes (SEP-2356: a host should not show `x-mcp-file` to a model verbatim).
pub fn schema_for_model(schema: &Map<String, Value>, params: &[FileParam]) -> Map<String, Value> {
    let mut out = schema.clone();
    let Some(Value::Object(properties)) = out.get_mut("properties") else { return out };
    for param in params {
        let Some(property) = properties.get_mut(&param.name) else { continue };
        let accept = if param.accept.is_empty() { String::new() } else { format!(" Accepted: {}.", param.accept.join(", ")) };
        let reference = json!({
            "type": "string",
            "description": format!(
                "A file, by reference: the id after \"Reference:\" in an earlier result (or artifact:ID, or artifact://localhost/ID). MCP Canvas sends its bytes; never paste file contents.{accept}"
            ),
        });
        let description = property.get("description").and_then(Value::as_str).map(str::to_owned);
        let mut replaced = if param.multiple { json!({ "type": "array", "items": reference }) } else { reference };
        if let Some(description) = description {
            replaced["description"] = Value::String(match replaced["description"].as_str() {
                Some(own) => format!("{description} ({own})"),
                None => description,
            });
        }
        *property = replaced;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(schema: Value, meta: Option<Value>) -> rmcp::model::Tool {
        let mut tool: rmcp::model::Tool = serde_json::from_value(json!({ "name": "t", "inputSchema": schema })).unwrap();
        tool.meta = meta.map(|m| serde_json::from_value(m).unwrap());
        tool
    }

    #[test]
    fn every_declaration_is_found() {
        let file = json!({ "type": "string", "format": "uri", "x-mcp-file": { "accept": ["image/*", ".PDF"], "maxSize": 1024 } });
        let t = tool(
            json!({ "type": "object", "properties": {
                "picture": file,
                "pages": { "type": "array", "items": { "type": "string", "format": "uri", "x-mcp-file": {} } },
                "wrong_shape": { "type": "integer", "x-mcp-file": {} },
                "plain": { "type": "string" },
                "doc": { "type": "object" }
            }}),
            Some(json!({ "openai/fileParams": ["doc", "picture"] })),
        );
        let mut found = params(&t);
        found.sort_by(|a, b| a.name.cmp(&b.name));
        let summary: Vec<(&str, bool, FileEncoding, Vec<String>, Option<u64>)> = found.iter().map(|p| (p.name.as_str(), p.multiple, p.encoding, p.accept.clone(), p.max_size)).collect();
        assert_eq!(
            summary,
            vec![
                ("doc", false, FileEncoding::OpenAi, vec![], None),
                ("pages", true, FileEncoding::DataUri, vec![], None),
                ("picture", false, FileEncoding::DataUri, vec!["image/*".into(), ".pdf".into()], Some(1024)),
            ]
        );
    }

    #[test]
    fn references_are_read_as_results_show_them() {
        for text in ["demo_1f0c2b7e9a41", "artifact:demo_1f0c2b7e9a41", "artifact://localhost/demo_1f0c2b7e9a41", " demo_1f0c2b7e9a41 "] {
            assert_eq!(reference_id(text), Some("demo_1f0c2b7e9a41"), "{text}");
        }
        for text in ["demo_1f0c2b7e9a4", "demo_1f0c2b7e9a4g", "../etc/passwd", "/tmp/x.png", "data:image/png;base64,AAAA", "_1f0c2b7e9a41", "Demo_1f0c2b7e9a41"] {
            assert_eq!(reference_id(text), None, "{text}");
        }
    }

    #[test]
    fn accept_follows_the_html_attribute() {
        let accept = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(accepts(&accept(&["image/*"]), "image/png", "a.png"));
        assert!(!accepts(&accept(&["image/*"]), "application/pdf", "a.pdf"));
        assert!(accepts(&accept(&["text/csv"]), "text/csv; charset=utf-8", "a.csv"));
        assert!(accepts(&accept(&[".csv"]), "text/plain", "data.CSV"));
        assert!(accepts(&accept(&[]), "application/zip", "a.zip"));
        assert!(!accepts(&accept(&["image/png"]), "image/jpeg", "a.png"));
    }

    #[test]
    fn the_models_schema_takes_references_not_bytes() {
        let schema = json!({ "type": "object", "properties": {
            "picture": { "type": "string", "format": "uri", "description": "The chart", "x-mcp-file": { "accept": ["image/*"] } },
            "pages": { "type": "array", "items": { "type": "string", "format": "uri", "x-mcp-file": {} } },
            "n": { "type": "integer" }
        }});
        let t = tool(schema.clone(), None);
        let shown = Value::Object(schema_for_model(schema.as_object().unwrap(), &params(&t)));
        assert_eq!(shown["properties"]["picture"]["type"], "string");
        assert!(shown["properties"]["picture"].get("x-mcp-file").is_none() && shown["properties"]["picture"].get("format").is_none());
        let said = shown["properties"]["picture"]["description"].as_str().unwrap();
        assert!(said.starts_with("The chart (A file, by reference") && said.contains("image/*"), "{said}");
        assert_eq!(shown["properties"]["pages"]["items"]["type"], "string");
        assert_eq!(shown["properties"]["n"], json!({ "type": "integer" }));
    }

    #[test]
    fn names_are_percent_encoded() {
        assert_eq!(percent_encode("Q3 report;v2.pdf"), "Q3%20report%3Bv2.pdf");
        assert_eq!(percent_encode("ünï"), "%C3%BCn%C3%AF");
    }
}

/// Stores a file from the disk (`mcp-canvas-cli call --file NAME=PATH`, a file picked in the
/// window) as an artifact of `session`, so it is sent and audited like any stored file: server
/// `local`, tool `file`, its type from its bytes (else its name).
pub fn store_local_file(store: &ArtifactStore, path: &std::path::Path, session: &str, now_ms: i64) -> Result<ArtifactRecord, Refusal> {
    let shown = path.display();
    let metadata = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!("{shown} is not a file"));
    }
    let mut file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut head = Vec::with_capacity(8192);
    (&mut file).take(8192).read_to_end(&mut head).map_err(|e| format!("{shown}: {e}"))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".to_owned());
    let mime = mcp_canvas_contract::media_type_for_file(&name, &head);
    let call_id = crate::Host::fresh_call_id();
    let new = mcp_canvas_store::NewArtifact {
        name: &name,
        mime: &mime,
        server: "local",
        tool: "file",
        call_id: &call_id,
        session_id: session,
        description: None,
        persistence: mcp_canvas_store::Persistence::Session,
        now_ms,
    };
    store.put(new, std::io::Cursor::new(head).chain(file)).map_err(|e| format!("storing {shown}: {e}"))
}
