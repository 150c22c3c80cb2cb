//! The result the proxy returns upstream for one call: model-safe by construction.
//!
//! - the normalized summary (and the call's warnings) as text;
//! - every stored artifact as a `resource_link` to `artifact://localhost/<id>`, readable through
//!   the proxy's `resources/read`, with its name, MIME type and size; the server's own resource
//!   links passed on as `resource_link`s (the proxy routes their reads to that server);
//! - images the policy allows (PNG, JPEG, GIF, WebP up to `image_max_bytes`) also as `image`
//!   content, read back from the store;
//! - `structuredContent` when the server sent it and it matched the tool's `outputSchema`, with
//!   every base64 run longer than `max_base64_run` replaced by the link of the artifact it became
//!   (or a note of what was left out); for a tool without an `outputSchema` only within
//!   `structured_max_bytes` (it is optional there; a tool with one must send it, and AI hosts
//!   reject a result without it);
//! - `isError` when the tool reported an error.
//!
//! Text blocks pass through [`redact_base64_runs`] as a last safety net.

use base64::Engine as _;
use mcp_canvas_contract::{longest_base64_run, map_base64_runs};
use mcp_canvas_host::CallDetail;
use mcp_canvas_wire::{offers::resource_links, CallOutcome};
use mcp_canvas_store::ArtifactStore;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

use crate::policy::InlineLimits;

/// The URI scheme prefix of stored artifacts, shared with the desktop app.
pub const ARTIFACT_URI_PREFIX: &str = "artifact://localhost/";

/// Image types models accept as `image` content.
const MODEL_IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The artifact URI for an id.
pub fn artifact_uri(id: &str) -> String {
    format!("{ARTIFACT_URI_PREFIX}{id}")
}

/// The artifact id an `artifact://` URI names (`artifact://localhost/<id>` or `artifact://<id>`).
pub fn artifact_id(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix("artifact://")?;
    let id = rest.strip_prefix("localhost/").unwrap_or(rest);
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// Builds the upstream `CallToolResult` (as JSON) for a call of a tool that declares an
/// `outputSchema` (`has_output_schema`) or not.
pub fn upstream_result(detail: &CallDetail, has_output_schema: bool, limits: InlineLimits, store: &ArtifactStore) -> Value {
    let call = &detail.call;
    let outcome = &call.outcome;
    let mut content = vec![text_block(&outcome.summary, limits)];
    if !outcome.warnings.is_empty() {
        let notes = outcome.warnings.iter().map(|w| format!("- {w}")).collect::<Vec<_>>().join("\n");
        content.push(text_block(&format!("Notes from MCP Canvas:\n{notes}"), limits));
    }
    for artifact in &outcome.artifacts {
        let mut link = json!({
            "type": "resource_link",
            "uri": artifact_uri(&artifact.id),
            "name": artifact.name,
            "mimeType": artifact.mime,
            "size": artifact.size,
        });
        if let Some(description) = &artifact.description {
            link["description"] = Value::String(description.clone());
        }
        content.push(link);
        if MODEL_IMAGE_TYPES.contains(&artifact.mime.as_str()) && artifact.size <= limits.image_max_bytes {
            match std::fs::read(store.blob_path(&artifact.sha256)) {
                Ok(bytes) => content.push(json!({
                    "type": "image",
                    "data": base64::engine::general_purpose::STANDARD.encode(bytes),
                    "mimeType": artifact.mime,
                })),
                Err(e) => crate::warn(format_args!("cannot read the stored image {} to pass it on: {e}", artifact.id)),
            }
        }
    }
    for link in resource_links(outcome) {
        let mut block = json!({ "type": "resource_link", "uri": link.uri, "name": link.name });
        if let Some(description) = link.description {
            block["description"] = Value::String(description);
        }
        content.push(block);
    }
    let mut result = json!({ "content": content });
    if let Some(structured) = forwardable_structured(detail, has_output_schema, limits) {
        result["structuredContent"] = structured;
    }
    if outcome.error.is_some() {
        result["isError"] = Value::Bool(true);
    }
    result
}

/// The upstream result for a call that did not produce one (the server crashed, timed out,
/// refused the arguments, ...): a tool error with the reason, so the model can read it.
pub fn upstream_error(message: &str, limits: InlineLimits) -> Value {
    json!({ "content": [text_block(message, limits)], "isError": true })
}

fn text_block(text: &str, limits: InlineLimits) -> Value {
    json!({ "type": "text", "text": redact_base64_runs(text, limits.max_base64_run) })
}

/// The structured content to forward, if any: see the module docs.
fn forwardable_structured(detail: &CallDetail, has_output_schema: bool, limits: InlineLimits) -> Option<Value> {
    let structured = detail.structured_content.as_ref()?;
    if detail.structured_valid == Some(false) {
        return None;
    }
    let mut structured = structured.clone();
    replace_binaries(&mut structured, &detail.call, limits.max_base64_run);
    let size = serde_json::to_vec(&structured).map(|v| v.len() as u64).unwrap_or(u64::MAX);
    (has_output_schema || size <= limits.structured_max_bytes).then_some(structured)
}

/// Replaces every string holding a base64 run longer than `max_run`: by the artifact link when
/// its bytes are one of the call's artifacts, else by the string with the runs cut out.
fn replace_binaries(value: &mut Value, call: &CallOutcome, max_run: usize) {
    match value {
        Value::String(text) if longest_base64_run(text) > max_run => {
            *text = match decoded_sha256(text).and_then(|sha| call.outcome.artifacts.iter().find(|a| a.sha256 == sha)) {
                Some(artifact) => artifact_uri(&artifact.id),
                None => redact_base64_runs(text, max_run),
            };
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_binaries(v, call, max_run)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_binaries(v, call, max_run)),
        _ => {}
    }
}

/// The sha256 (hex) of what a base64 string or `data:` URL decodes to.
fn decoded_sha256(text: &str) -> Option<String> {
    let payload = match text.strip_prefix("data:") {
        Some(rest) => rest.split_once(',')?.1,
        None => text,
    };
    let cleaned: String = payload.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let engines = [&base64::engine::general_purpose::STANDARD, &base64::engine::general_purpose::URL_SAFE, &base64::engine::general_purpose::STANDARD_NO_PAD, &base64::engine::general_purpose::URL_SAFE_NO_PAD];
    let bytes = engines.iter().find_map(|engine| engine.decode(cleaned.as_bytes()).ok())?;
    Some(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

/// `text` with every base64-looking run longer than `max_run` replaced by a note of its length.
pub fn redact_base64_runs(text: &str, max_run: usize) -> String {
    if longest_base64_run(text) <= max_run {
        return text.to_owned();
    }
    map_base64_runs(text, |run| (run.len() > max_run).then(|| format!("[{} base64 characters left out by MCP Canvas]", run.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_uris_round_trip() {
        assert_eq!(artifact_uri("demo_5dbf61f2044b"), "artifact://localhost/demo_5dbf61f2044b");
        assert_eq!(artifact_id("artifact://localhost/demo_5dbf61f2044b"), Some("demo_5dbf61f2044b"));
        assert_eq!(artifact_id("artifact://demo_5dbf61f2044b"), Some("demo_5dbf61f2044b"));
        assert_eq!(artifact_id("artifact://localhost/a/b"), None);
        assert_eq!(artifact_id("artifact://localhost/"), None);
        assert_eq!(artifact_id("file:///etc/passwd"), None);
    }

    #[test]
    fn long_base64_runs_are_cut_and_short_ones_kept() {
        let blob = "QUJD".repeat(100);
        let text = format!("before {blob} after, id demo_5dbf61f2044b");
        let redacted = redact_base64_runs(&text, 256);
        assert_eq!(redacted, "before [400 base64 characters left out by MCP Canvas] after, id demo_5dbf61f2044b");
        assert!(longest_base64_run(&redacted) <= 256);
        assert_eq!(redact_base64_runs("short QUJD text", 256), "short QUJD text");
        assert_eq!(longest_base64_run("ab cde"), 3);
    }
}
