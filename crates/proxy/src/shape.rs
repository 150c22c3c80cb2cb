//! The result the proxy returns upstream for one call: model-safe by construction.
//!
//! - the normalized summary (and the call's warnings) as text;
//! - every stored artifact as a `resource_link` to `artifact://localhost/<id>`, readable through
//!   the proxy's `resources/read`, with its name, MIME type and size; the server's own resource
//!   links passed on as `resource_link`s (the proxy routes their reads to that server);
//! - images the policy allows (PNG, JPEG, GIF, WebP up to `image_max_bytes`) also as `image`
//!   content, read back from the store — only when their header, read without decoding, says the
//!   format they are stored as and at most [`MAX_INLINE_SIDE`] pixels a side and
//!   [`MAX_INLINE_PIXELS`] in all (a small file can claim 40000 × 40000: a decompression bomb for
//!   the AI host); otherwise a note says why, with the reference;
//! - nothing annotated `audience: ["user"]`: such a file is neither linked nor inlined, and its
//!   bytes inside `structuredContent` become a note, not its link (the summary says only that
//!   content came for the user);
//! - `structuredContent` when the server sent it and it matched the tool's `outputSchema`, with
//!   every base64 run longer than `max_base64_run` replaced by the link of the artifact it became
//!   (or a note of what was left out); for a tool without an `outputSchema` only within
//!   `structured_max_bytes` (it is optional there; a tool with one must send it, and AI hosts
//!   reject a result without it);
//! - `isError` when the tool reported an error.
//!
//! Text blocks pass through [`redact_base64_runs`] as a last safety net.

use base64::Engine as _;
use mcp_canvas_contract::{longest_base64_run, map_base64_runs, Audience, OutcomeArtifact};
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

/// The widest or tallest image passed inline. Models scale images down to about 1.5k px anyway;
/// 4096 keeps any real chart or screenshot and refuses strips like 100000 × 1.
pub const MAX_INLINE_SIDE: u32 = 4096;
/// The most pixels an image passed inline may have (4096 × 2048): at most 32 MiB of RGBA when
/// the AI host decodes it, whatever the file's size.
pub const MAX_INLINE_PIXELS: u64 = 8 * 1024 * 1024;

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
    let mut not_inlined = Vec::new();
    for artifact in outcome.artifacts.iter().filter(|a| for_model(a)) {
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
                Ok(bytes) => match inlinable(&bytes, &artifact.mime) {
                    Ok(()) => content.push(json!({
                        "type": "image",
                        "data": base64::engine::general_purpose::STANDARD.encode(bytes),
                        "mimeType": artifact.mime,
                    })),
                    Err(why) => not_inlined.push(format!("- '{}' {why}. Reference: {}", artifact.name, artifact.id)),
                },
                Err(e) => crate::warn(format_args!("cannot read the stored image {} to pass it on: {e}", artifact.id)),
            }
        }
    }
    if !not_inlined.is_empty() {
        content.push(text_block(&format!("Images MCP Canvas did not pass inline (read them with resources/read only if you must):\n{}", not_inlined.join("\n")), limits));
    }
    // The server's own links, but not those in a block for the user only.
    let for_user_only = |source: &str| outcome.texts.iter().any(|t| t.source == source && t.audience == Audience::User);
    for link in resource_links(outcome).into_iter().filter(|link| !for_user_only(&link.source)) {
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

/// Whether the model may get an artifact: not when it is for the user only.
/// Whether the model may get this artifact (not annotated for the user only).
pub fn for_model(artifact: &OutcomeArtifact) -> bool {
    artifact.audience != Audience::User
}

/// Whether an image may go inline: its header (read without decoding a pixel) names the format it
/// is stored as, within [`MAX_INLINE_SIDE`] and [`MAX_INLINE_PIXELS`]. `Err`: why not, for the note.
fn inlinable(bytes: &[u8], mime: &str) -> Result<(), String> {
    let info = mcp_canvas_render::image_info(bytes).map_err(|_| "is not inline: its header cannot be read".to_owned())?;
    if info.format.mime() != mime {
        return Err(format!("is not inline: its header says {}, not {mime}", info.format.mime()));
    }
    let (width, height) = (info.width, info.height);
    if width.max(height) > MAX_INLINE_SIDE || u64::from(width) * u64::from(height) > MAX_INLINE_PIXELS {
        return Err(format!(
            "is not inline: its header claims {width}×{height} px, more than {MAX_INLINE_SIDE} px a side or {} Mpixels",
            MAX_INLINE_PIXELS / (1024 * 1024)
        ));
    }
    if width == 0 || height == 0 {
        return Err(format!("is not inline: its header claims {width}×{height} px"));
    }
    Ok(())
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
            // A file for the user only is no link for the model: its bytes become a note.
            *text = match decoded_sha256(text).and_then(|sha| call.outcome.artifacts.iter().find(|a| a.sha256 == sha && for_model(a))) {
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
    use std::io::Cursor;

    use mcp_canvas_contract::{ExtractionConfig, Normalizer, RawToolResult, StoredArtifact};
    use mcp_canvas_render::image::{ImageFormat, Rgb, RgbImage};
    use mcp_canvas_store::{NewArtifact, Persistence};
    use mcp_canvas_wire::CallOutcome;

    use super::*;

    const LIMITS: InlineLimits = InlineLimits { image_max_bytes: 256 * 1024, structured_max_bytes: 64 * 1024, max_base64_run: 256 };

    /// A raw result as the pipeline makes it: normalized, each binary stored, finished.
    fn detail(store: &ArtifactStore, raw: Value) -> CallDetail {
        let config = ExtractionConfig::default();
        let structured = raw.get("structuredContent").cloned();
        let normalized = Normalizer::new(&config).normalize(RawToolResult { server: "demo", tool: "t", result: raw, output_schema: None }).unwrap();
        let stored = normalized
            .pending
            .iter()
            .map(|p| {
                let new = NewArtifact { name: &p.name, mime: &p.mime, server: "demo", tool: "t", call_id: "c", session_id: "s", description: None, persistence: Persistence::Session, now_ms: 1 };
                let record = store.put(new, p.payload.reader()).map_err(|e| e.to_string())?;
                Ok(StoredArtifact { id: record.id, sha256: record.sha256, size: record.size, ..Default::default() })
            })
            .collect();
        let outcome = normalized.finish(stored, &config);
        CallDetail { call: CallOutcome { call_id: "c".into(), server: "demo".into(), tool: "t".into(), outcome }, structured_content: structured, structured_valid: None, app: None }
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        RgbImage::from_pixel(width, height, Rgb([200, 30, 30])).write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png).unwrap();
        bytes
    }

    /// A PNG of noise: its base64 is longer than `max_base64_run`.
    fn noisy_png(width: u32, height: u32) -> Vec<u8> {
        let mut state = 0x2545_f491_u32;
        let image = RgbImage::from_fn(width, height, |_, _| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let [a, b, c, _] = state.to_le_bytes();
            Rgb([a, b, c])
        });
        let mut bytes = Vec::new();
        image.write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png).unwrap();
        bytes
    }

    /// A real small PNG whose header claims `width` × `height` (the CRC made right): what a
    /// decompression bomb looks like before anyone decodes it.
    fn png_claiming(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = png(2, 2);
        // Signature (8), length (4), "IHDR" (4), then width and height.
        bytes[16..20].copy_from_slice(&width.to_be_bytes());
        bytes[20..24].copy_from_slice(&height.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        bytes
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn blocks<'a>(result: &'a Value, kind: &str) -> Vec<&'a Value> {
        result["content"].as_array().unwrap().iter().filter(|b| b["type"] == kind).collect()
    }

    fn all_text(result: &Value) -> String {
        blocks(result, "text").iter().map(|b| b["text"].as_str().unwrap()).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn content_for_the_user_only_never_goes_to_the_model() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let secret = noisy_png(16, 16);
        let user = json!({ "audience": ["user"] });
        let raw = json!({
            "content": [
                { "type": "image", "data": b64(&secret), "mimeType": "image/png", "annotations": user },
                { "type": "resource_link", "uri": "demo://private/statement", "name": "statement", "annotations": user },
                { "type": "text", "text": "Account 4711: the full statement.", "annotations": user },
            ],
        });
        let detail = detail(&store, raw);
        let id = &detail.call.outcome.artifacts[0].id;
        assert_eq!(detail.call.outcome.artifacts[0].audience, Audience::User);
        let result = upstream_result(&detail, false, LIMITS, &store);
        assert!(blocks(&result, "image").is_empty(), "a user-only image went to the model: {result}");
        assert!(blocks(&result, "resource_link").is_empty(), "{result}");
        let text = all_text(&result);
        assert!(!text.contains("no content"), "{text}");
        assert!(text.contains("for the user only (1 file, 1 link, 1 text); it is not shown to you."), "{text}");
        let sent = result.to_string();
        for leak in [id.as_str(), "4711", "demo://private", &b64(&secret)[..40]] {
            assert!(!sent.contains(leak), "{leak} reached the model: {sent}");
        }

        // The same bytes in a JSON block for the user only and in structuredContent (which has no
        // audience and goes up): the picture's bytes become a note there, never its link.
        let picture = json!({ "picture": b64(&secret) });
        let detail = self::detail(&store, json!({ "content": [{ "type": "text", "text": picture.to_string(), "annotations": user }], "structuredContent": picture }));
        assert_eq!(detail.call.outcome.artifacts[0].audience, Audience::User);
        let result = upstream_result(&detail, false, LIMITS, &store);
        assert!(blocks(&result, "image").is_empty() && blocks(&result, "resource_link").is_empty(), "{result}");
        assert!(result["structuredContent"]["picture"].as_str().unwrap().contains("left out by MCP Canvas"), "{result}");
        assert!(!result.to_string().contains(id.as_str()), "{result}");
    }

    #[test]
    fn an_image_for_both_is_linked_inlined_and_its_copy_in_structured_content_is_its_link() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let chart = noisy_png(40, 20);
        let detail = detail(&store, json!({ "content": [{ "type": "image", "data": b64(&chart), "mimeType": "image/png" }], "structuredContent": { "picture": b64(&chart) } }));
        let result = upstream_result(&detail, false, LIMITS, &store);
        let id = &detail.call.outcome.artifacts[0].id;
        assert_eq!(blocks(&result, "resource_link")[0]["uri"], artifact_uri(id));
        assert_eq!(blocks(&result, "image")[0]["data"], b64(&chart));
        assert_eq!(result["structuredContent"]["picture"], artifact_uri(id));
    }

    #[test]
    fn images_whose_header_claims_too_many_pixels_are_not_inlined() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        for (width, height, inline) in [(40_000, 40_000, false), (4097, 1, false), (1, 100_000, false), (4096, 4096, false), (4096, 2048, true), (1000, 700, true)] {
            let bomb = png_claiming(width, height);
            assert_eq!(mcp_canvas_render::image_info(&bomb).map(|i| (i.width, i.height)).ok(), Some((width, height)));
            let detail = detail(&store, json!({ "content": [{ "type": "text", "text": "Here it is." }, { "type": "image", "data": b64(&bomb), "mimeType": "image/png" }] }));
            let id = &detail.call.outcome.artifacts[0].id;
            assert!(bomb.len() as u64 <= LIMITS.image_max_bytes);
            let result = upstream_result(&detail, false, LIMITS, &store);
            assert_eq!(!blocks(&result, "image").is_empty(), inline, "{width}×{height}: {result}");
            assert_eq!(blocks(&result, "resource_link")[0]["uri"], artifact_uri(id), "always the link");
            let text = all_text(&result);
            assert!(text.contains(&format!("Reference: {id}")), "{text}");
            assert_eq!(text.contains(&format!("claims {width}×{height} px")), !inline, "{text}");
        }
    }

    /// The view (crate::viewer) opens in AI hosts for every call of a tool it decorates: hosts
    /// decide from the tool's `_meta.ui`, before any result exists. What a result decides is
    /// whether the view has anything to show: its capability only when there are files the user
    /// would see in the canvas; without it the view draws nothing and asks for no height.
    #[test]
    fn only_a_result_with_files_for_the_user_gets_the_views_capability() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let viewer = crate::viewer::Viewer::default();
        let zip = [b"PK\x03\x04\x14\0\0\0\0\0".as_slice(), &[0u8; 64]].concat();
        let none = [
            json!({ "content": [{ "type": "text", "text": "3 rows updated." }] }),
            json!({ "content": [{ "type": "text", "text": "the query failed" }], "isError": true }),
            json!({ "content": [] }),
            json!({ "content": [{ "type": "image", "data": b64(&png(6, 6)), "mimeType": "image/png", "annotations": { "audience": ["assistant"] } }] }),
            json!({ "content": [{ "type": "resource", "resource": { "uri": "file:///out/bundle.zip", "mimeType": "application/zip", "blob": b64(&zip) } }] }),
        ];
        for raw in none {
            let detail = detail(&store, raw.clone());
            let mut result = upstream_result(&detail, false, LIMITS, &store);
            viewer.attach(&mut result, &detail.call);
            assert!(result.get("_meta").is_none(), "{raw} → {result}");
        }
        for (raw, files) in [
            (json!({ "content": [{ "type": "image", "data": b64(&png(7, 7)), "mimeType": "image/png" }] }), 1),
            // For the user only: not the model's, but the user's view shows it.
            (json!({ "content": [{ "type": "image", "data": b64(&png(8, 8)), "mimeType": "image/png", "annotations": { "audience": ["user"] } }] }), 1),
        ] {
            let detail = detail(&store, raw.clone());
            let mut result = upstream_result(&detail, false, LIMITS, &store);
            let content = result["content"].clone();
            viewer.attach(&mut result, &detail.call);
            let meta = &result["_meta"][crate::viewer::META_KEY];
            assert_eq!(meta["files"].as_array().map(Vec::len), Some(files), "{raw} → {result}");
            assert!(viewer.call(meta["capability"].as_str().unwrap()).is_some());
            assert_eq!(result["content"], content, "the view changes nothing the model gets");
        }
    }

    #[test]
    fn an_image_whose_header_is_unreadable_or_another_format_is_not_inlined() {
        assert!(inlinable(&png(2, 2), "image/png").is_ok());
        assert!(inlinable(&png(2, 2), "image/gif").unwrap_err().contains("says image/png"));
        assert!(inlinable(b"\x89PNG\r\n\x1a\n not really", "image/png").unwrap_err().contains("cannot be read"));
        assert!(inlinable(&png_claiming(0, 5), "image/png").is_err());
    }

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
