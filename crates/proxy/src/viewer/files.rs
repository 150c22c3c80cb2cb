//! Reading one file of a call for the view, by its viewer: bounded, checked, never executed.

use std::io::Read as _;

use base64::Engine as _;
use mcp_canvas_contract::human_size;
use mcp_canvas_render::{render_markdown, sanitize_html, HtmlOptions, PdfRenderer, PdfSource, RenderError};
use mcp_canvas_store::{ArtifactRecord, ArtifactStore};
use mcp_canvas_contract::Viewer as V;
use serde_json::{json, Value};

use super::{tools::MAX_INLINE_BYTES, ViewFile};

/// The most text (code, JSON, plain text) sent to the view; the rest is left out, and said so.
pub const MAX_TEXT_BYTES: u64 = 1024 * 1024;
/// The largest HTML or Markdown document sanitized for the view.
pub const MAX_DOCUMENT_BYTES: u64 = 8 * 1024 * 1024;
/// The largest PDF opened for the view (PDFium reads it whole for each page).
pub const MAX_PDF_BYTES: u64 = 512 * 1024 * 1024;

/// The stored record of `file`, or why it is gone.
pub(crate) fn record(store: &ArtifactStore, file: &ViewFile) -> Result<ArtifactRecord, String> {
    let record = store.get(&file.id).map_err(|_| {
        format!("`{}` is no longer in the MCP Canvas store (deleted, or cleared by the store's quota or age limit); call the tool again to get it back.", file.name)
    })?;
    if record.sha256 != file.sha256 {
        return Err(format!("`{}` in the MCP Canvas store is no longer the file this call returned; call the tool again.", file.name));
    }
    if !store.blob_path(&record.sha256).exists() {
        return Err(format!("The bytes of `{}` are gone from the MCP Canvas store; `mcp-canvas-cli artifacts verify` reports such entries.", file.name));
    }
    Ok(record)
}

fn too_large(file: &ViewFile, limit: u64) -> String {
    format!(
        "`{}` is {} — too large to show in this view (at most {}). Open it in MCP Canvas or save it.",
        file.name,
        human_size(file.size),
        human_size(limit)
    )
}

/// Whole bytes, re-hashed by the store (a damaged blob is an error, never wrong bytes).
fn whole(store: &ArtifactStore, file: &ViewFile, limit: u64) -> Result<Vec<u8>, String> {
    if file.size > limit {
        return Err(too_large(file, limit));
    }
    record(store, file)?;
    store.read(&file.id).map(|(_, bytes)| bytes).map_err(|e| format!("`{}` could not be read from the MCP Canvas store: {e}", file.name))
}

/// What the viewer of `file` needs first.
pub(crate) fn open(store: &ArtifactStore, file: &ViewFile) -> Result<Value, String> {
    match file.viewer {
        V::Image => {
            let bytes = whole(store, file, MAX_INLINE_BYTES)?;
            // Every image as an 8-bit RGBA PNG, which the view draws itself under any CSP a host
            // sets (one that forbids images too): SVG drawn into pixels here, bounded like the
            // rest; one that cannot be drawn goes as it is (the view then tries it as an image).
            let (png, mime) = if file.mime == "image/svg+xml" {
                match svg_png(&bytes) {
                    Ok(png) => (png, "image/png"),
                    Err(_) => (bytes, file.mime.as_str()),
                }
            } else {
                (rgba_png(&bytes).map_err(|e| format!("`{}` cannot be shown as an image: {e}", file.name))?, "image/png")
            };
            let data = base64::engine::general_purpose::STANDARD.encode(png);
            Ok(json!({ "content": [{ "type": "image", "data": data, "mimeType": mime }], "structuredContent": { "viewer": "image", "sourceMime": file.mime } }))
        }
        V::Audio => {
            let bytes = whole(store, file, MAX_INLINE_BYTES)?;
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            Ok(json!({ "content": [{ "type": "audio", "data": data, "mimeType": file.mime }], "structuredContent": { "viewer": "audio" } }))
        }
        V::Pdf => {
            if file.size > MAX_PDF_BYTES {
                return Err(too_large(file, MAX_PDF_BYTES));
            }
            let record = record(store, file)?;
            let path = store.blob_path(&record.sha256);
            let info = PdfRenderer::shared().and_then(|r| r.page_count_and_title(PdfSource::Path(&path))).map_err(|e| pdf_error(file, &e))?;
            Ok(structured(json!({ "viewer": "pdf", "pages": info.page_count, "title": info.title })))
        }
        V::Html | V::Markdown => {
            let bytes = whole(store, file, MAX_DOCUMENT_BYTES)?;
            let text = String::from_utf8_lossy(&bytes);
            let sanitized = if file.viewer == V::Html { sanitize_html(&text, &HtmlOptions::default()) } else { render_markdown(&text) };
            let r = sanitized.removed;
            Ok(structured(json!({
                "viewer": file.viewer,
                "html": sanitized.html,
                "removed": { "elements": r.elements, "scripts": r.scripts, "eventHandlers": r.event_handlers, "urls": r.urls, "remoteImages": r.remote_images_blocked }
            })))
        }
        V::Code | V::Json | V::Text | V::Csv => {
            let (text, truncated) = head_text(store, file, MAX_TEXT_BYTES)?;
            Ok(structured(json!({ "viewer": file.viewer, "text": text, "truncated": truncated })))
        }
        V::File => Err(format!("MCP Canvas view: `{}` has no viewer", file.name)),
    }
}

/// Page `page` (from 0) of a PDF as a PNG `width` pixels wide.
pub(crate) fn pdf_page(store: &ArtifactStore, file: &ViewFile, page: u32, width: u32) -> Result<Value, String> {
    if file.viewer != V::Pdf {
        return Err(format!("`{}` is not a PDF", file.name));
    }
    if file.size > MAX_PDF_BYTES {
        return Err(too_large(file, MAX_PDF_BYTES));
    }
    let record = record(store, file)?;
    let path = store.blob_path(&record.sha256);
    let width = width.clamp(1, mcp_canvas_render::MAX_RENDER_WIDTH);
    let png = PdfRenderer::shared().and_then(|r| r.render_page(PdfSource::Path(&path), page, width)).map_err(|e| pdf_error(file, &e))?;
    Ok(json!({
        "content": [{ "type": "image", "data": base64::engine::general_purpose::STANDARD.encode(png), "mimeType": "image/png" }],
        "structuredContent": { "page": page, "width": width }
    }))
}

/// The longest side of an image sent to a view (a screen's worth; the view zooms what it gets).
pub const MAX_VIEW_PIXELS: u32 = 2048;

/// Any image the render crate decodes (within its pixel and memory limits), as an 8-bit RGBA PNG
/// at most [`MAX_VIEW_PIXELS`] on its longest side.
fn rgba_png(bytes: &[u8]) -> Result<Vec<u8>, String> {
    use mcp_canvas_render::image::imageops::FilterType;
    let mut image = mcp_canvas_render::decode_limited(bytes, mcp_canvas_render::Limits::default()).map_err(|e| e.to_string())?;
    if image.width().max(image.height()) > MAX_VIEW_PIXELS {
        image = image.resize(MAX_VIEW_PIXELS, MAX_VIEW_PIXELS, FilterType::Triangle);
    }
    encode_rgba(&image.to_rgba8())
}

/// An SVG drawn by the render crate (nothing outside it read, at most [`MAX_VIEW_PIXELS`] on its
/// longest side), as an 8-bit RGBA PNG.
fn svg_png(bytes: &[u8]) -> Result<Vec<u8>, String> {
    encode_rgba(&mcp_canvas_render::rasterize_svg(bytes, MAX_VIEW_PIXELS).map_err(|e| e.to_string())?)
}

fn encode_rgba(rgba: &mcp_canvas_render::image::RgbaImage) -> Result<Vec<u8>, String> {
    use mcp_canvas_render::image::{codecs::png::PngEncoder, ExtendedColorType, ImageEncoder as _};
    let mut png = Vec::new();
    PngEncoder::new(&mut png).write_image(rgba.as_raw(), rgba.width(), rgba.height(), ExtendedColorType::Rgba8).map_err(|e| e.to_string())?;
    Ok(png)
}

fn pdf_error(file: &ViewFile, error: &RenderError) -> String {
    format!("`{}` cannot be shown as a PDF here: {error}", file.name)
}

fn structured(value: Value) -> Value {
    json!({ "content": [], "structuredContent": value })
}

/// The first `limit` bytes of a text file, cut at a character boundary; whole files are re-hashed.
fn head_text(store: &ArtifactStore, file: &ViewFile, limit: u64) -> Result<(String, bool), String> {
    if file.size <= limit {
        let bytes = whole(store, file, limit)?;
        return Ok((String::from_utf8_lossy(&bytes).into_owned(), false));
    }
    let record = record(store, file)?;
    let mut bytes = Vec::with_capacity(limit as usize);
    std::fs::File::open(store.blob_path(&record.sha256))
        .and_then(|f| f.take(limit).read_to_end(&mut bytes))
        .map_err(|e| format!("`{}` could not be read: {e}", file.name))?;
    // A character cut in two at the end is left out (one invalid elsewhere is shown as U+FFFD).
    if let Err(e) = std::str::from_utf8(&bytes) {
        if e.error_len().is_none() {
            bytes.truncate(e.valid_up_to());
        }
    }
    Ok((String::from_utf8_lossy(&bytes).into_owned(), true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(viewer: V, mime: &str, size: u64) -> ViewFile {
        ViewFile {
            id: "demo_0123456789ab".into(),
            name: "huge.bin".into(),
            mime: mime.into(),
            size,
            viewer,
            description: None,
            pages: None,
            width: None,
            height: None,
            sha256: "0".repeat(64),
        }
    }

    #[test]
    fn a_file_over_its_viewers_limit_is_refused_by_its_size_before_anything_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let two_gb = 2 * 1024 * 1024 * 1024;
        for (viewer, mime) in [(V::Image, "image/png"), (V::Audio, "audio/wav"), (V::Pdf, "application/pdf"), (V::Html, "text/html")] {
            let error = open(&store, &file(viewer, mime, two_gb)).unwrap_err();
            assert!(error.contains("huge.bin") && error.contains("2.0 GB") && error.contains("too large to show in this view"), "{viewer:?}: {error}");
        }
        let error = pdf_page(&store, &file(V::Pdf, "application/pdf", two_gb), 0, 800).unwrap_err();
        assert!(error.contains("too large"), "{error}");
    }

    /// `bytes` stored as the one file of a call, as the viewer lists it.
    fn stored(store: &ArtifactStore, name: &str, mime: &str, bytes: &[u8]) -> ViewFile {
        let new = mcp_canvas_store::NewArtifact { name, mime, server: "demo", tool: "t", call_id: "c1", session_id: "s", description: None, persistence: mcp_canvas_store::Persistence::Session, now_ms: 1 };
        let record = store.put(new, bytes).unwrap();
        ViewFile { id: record.id, name: name.into(), mime: mime.into(), size: bytes.len() as u64, viewer: V::Image, description: None, pages: None, width: None, height: None, sha256: record.sha256 }
    }

    #[test]
    fn an_svg_goes_to_the_view_as_pixels_it_can_draw_under_any_csp() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"><rect width="300" height="100" fill="red"/></svg>"#;
        let opened = open(&store, &stored(&store, "chart.svg", "image/svg+xml", svg)).unwrap();
        let block = &opened["content"][0];
        assert_eq!((block["type"].as_str(), block["mimeType"].as_str()), (Some("image"), Some("image/png")), "{opened}");
        assert_eq!(opened["structuredContent"]["sourceMime"], "image/svg+xml");
        let png = base64::engine::general_purpose::STANDARD.decode(block["data"].as_str().unwrap()).unwrap();
        let image = mcp_canvas_render::image::load_from_memory(&png).unwrap();
        assert_eq!(image.color(), mcp_canvas_render::image::ColorType::Rgba8, "the view's own decoder reads 8-bit RGBA");
        assert_eq!((image.width(), image.height()), (1024, 341), "drawn larger than its 300 pixels, in proportion");
        assert_eq!(image.to_rgba8().get_pixel(512, 170).0, [255, 0, 0, 255]);
        // A huge drawing is bounded like any image sent to the view.
        let huge = br#"<svg xmlns="http://www.w3.org/2000/svg" width="40000" height="20000"><rect width="40000" height="20000" fill="blue"/></svg>"#;
        let opened = open(&store, &stored(&store, "huge.svg", "image/svg+xml", huge)).unwrap();
        let png = base64::engine::general_purpose::STANDARD.decode(opened["content"][0]["data"].as_str().unwrap()).unwrap();
        let image = mcp_canvas_render::image::load_from_memory(&png).unwrap();
        assert_eq!((image.width(), image.height()), (MAX_VIEW_PIXELS, MAX_VIEW_PIXELS / 2));
        // One that cannot be drawn still goes, as it is.
        let broken = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><rect";
        let opened = open(&store, &stored(&store, "broken.svg", "image/svg+xml", broken)).unwrap();
        assert_eq!(opened["content"][0]["mimeType"], "image/svg+xml");
    }

    #[test]
    fn a_file_the_store_no_longer_has_is_said_to_be_gone() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let error = open(&store, &file(V::Code, "text/plain", 10)).unwrap_err();
        assert!(error.contains("no longer in the MCP Canvas store"), "{error}");
    }
}
