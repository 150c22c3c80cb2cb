//! The `artifact:` URI scheme: stored artifacts reach the webview as HTTP-like responses with
//! their MIME type, never as base64 over IPC.
//!
//! - `artifact://localhost/<id>` — the bytes, as stored; except raster images the webview cannot
//!   show (TIFF, BMP, ICO, recognised from the bytes), which come as PNG (`to_display_png`).
//! - `artifact://localhost/<id>/thumbnail?width=<px>` — a raster image as a PNG no wider than
//!   `width` (16–1024, default 256) for the artifact browser; SVG as stored (only ever an `<img>`).
//! - `artifact://localhost/<id>/sanitized` — HTML or markdown made safe by `mcp-canvas-render`
//!   (shown in an `<iframe sandbox>`; the response's CSP forbids scripts and remote loads too).
//! - `artifact://localhost/<id>/info` — JSON facts (`pages`, `title` for PDFs, or `error`).
//! - `artifact://localhost/<id>/page/<n>?width=<px>` — PDF page `n` (from 1) as PNG, by pdfium.
//!
//! A teammate's PDF this data dir is still fetching (`Host::open_by_ranges`) answers `info` and
//! `page/<n>` by HTTP range reads of its object in the team's bucket.

use mcp_canvas_render::{image_info, render_markdown, sanitize_html, to_display_png, HtmlOptions, PdfRenderer, PdfSource};
use std::sync::Arc;

use mcp_canvas_store::{ArtifactRecord, ArtifactStore, StoreError};
use mcp_canvas_team::RemoteFile;
use http::{header, HeaderValue, Request, Response, StatusCode};

pub const SCHEME: &str = "artifact";

/// Raw artifacts are shown, never run: no scripts, no subresources, nothing sniffed.
const RAW_CSP: &str = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";
/// Sanitized documents may show images from the store and inline styles, nothing else.
const DOCUMENT_CSP: &str = "default-src 'none'; img-src data: artifact: http://artifact.localhost; style-src 'unsafe-inline'; sandbox";

/// The process-wide renderer (bound on first success; until then each request says why).
fn pdf_renderer() -> Result<&'static PdfRenderer, String> {
    PdfRenderer::shared().map_err(|e| e.to_string())
}

/// The response to one `artifact:` request (the shell only hands it over; see the module docs).
/// `remote_images`: the `[render] allow_remote_images` setting, for sanitized HTML.
pub fn respond(store: Option<&ArtifactStore>, remote_images: bool, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    respond_with_remote(store, remote_images, &|_| None, request)
}

/// As [`respond`]; an artifact not in the local store that `remote` has open for reading by
/// ranges (a teammate's PDF being fetched) answers its `info` and `page/<n>` views from the bucket.
pub fn respond_with_remote(store: Option<&ArtifactStore>, remote_images: bool, remote: &dyn Fn(&str) -> Option<Arc<RemoteFile>>, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let Some(store) = store else {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "the artifact store is not open".into());
    };
    let path = request.uri().path().trim_start_matches('/');
    let mut parts = path.splitn(2, '/');
    let id = parts.next().unwrap_or_default();
    let view = parts.next().unwrap_or_default();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return plain(StatusCode::BAD_REQUEST, format!("`{id}` is not an artifact id"));
    }
    let query = request.uri().query().unwrap_or("");
    let mut response = match store.read(id) {
        Ok((record, bytes)) => match view {
            "" => as_stored(&record, bytes),
            "thumbnail" => thumbnail(&record, &bytes, query),
            "sanitized" => sanitized(&record, &bytes, remote_images),
            "info" => info(&record, &bytes),
            page if page.starts_with("page/") => pdf_page(&record, &bytes, &page[5..], query),
            other => plain(StatusCode::NOT_FOUND, format!("no view `{other}`")),
        },
        // A teammate's PDF being fetched: read by ranges meanwhile (with the same CORS rule:
        // the viewer fetches its `info`).
        Err(StoreError::NotFound(_)) => match remote(id) {
            Some(file) => by_ranges(&file, view, query),
            None => return plain(StatusCode::NOT_FOUND, format!("no artifact `{id}`")),
        },
        Err(e) => return plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    // The app's own page may read artifacts (text viewers fetch them); no other origin may —
    // not a sandboxed document (origin `null`), not a dashboard.
    let origin = request.headers().get(header::ORIGIN).and_then(|o| o.to_str().ok());
    if let Some(origin) = APP_ORIGINS.iter().find(|known| origin == Some(**known)) {
        response.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static(origin));
    }
    response
}

/// Where the app's UI is served from (Linux/macOS, Windows/Android).
const APP_ORIGINS: &[&str] = &["tauri://localhost", "http://tauri.localhost"];

/// The bytes as stored, unless they are a raster image no webview shows dependably: that becomes a
/// PNG (the format is read from the bytes, whatever the declared type says).
fn as_stored(record: &ArtifactRecord, bytes: Vec<u8>) -> Response<Vec<u8>> {
    if record.mime.starts_with("image/") {
        if let Ok(info) = image_info(&bytes) {
            if !info.format.webview_can_show() {
                return match to_display_png(&bytes, None) {
                    Ok(display) => bytes_response("image/png", display.png, RAW_CSP),
                    Err(error) => plain(StatusCode::UNPROCESSABLE_ENTITY, format!("`{}` cannot be shown: {error}", record.id)),
                };
            }
        }
    }
    bytes_response(&record.mime, bytes, RAW_CSP)
}

/// A small PNG of a raster image (any format `mcp-canvas-render` reads); SVG as stored.
fn thumbnail(record: &ArtifactRecord, bytes: &[u8], query: &str) -> Response<Vec<u8>> {
    if record.mime == "image/svg+xml" {
        return bytes_response("image/svg+xml", bytes.to_vec(), RAW_CSP);
    }
    let width = query_width(query).unwrap_or(256).clamp(16, 1024);
    match to_display_png(bytes, Some(width)) {
        Ok(display) => bytes_response("image/png", display.png, RAW_CSP),
        Err(error) => plain(StatusCode::UNPROCESSABLE_ENTITY, format!("no thumbnail for `{}` ({}): {error}", record.id, record.mime)),
    }
}

fn query_width(query: &str) -> Option<u32> {
    query.split('&').find_map(|p| p.strip_prefix("width=")).and_then(|w| w.parse().ok())
}

fn sanitized(record: &ArtifactRecord, bytes: &[u8], remote_images: bool) -> Response<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes);
    let document = match record.mime.as_str() {
        "text/html" | "application/xhtml+xml" => sanitize_html(&text, &HtmlOptions { allow_remote_images: remote_images, ..HtmlOptions::default() }),
        "text/markdown" | "text/x-markdown" => render_markdown(&text),
        other => return plain(StatusCode::BAD_REQUEST, format!("`{}` is {other}, not HTML or markdown", record.id)),
    };
    bytes_response("text/html; charset=utf-8", document.html.into_bytes(), DOCUMENT_CSP)
}

fn info(record: &ArtifactRecord, bytes: &[u8]) -> Response<Vec<u8>> {
    let body = if record.mime == "application/pdf" {
        match pdf_renderer().and_then(|r| r.page_count_and_title(PdfSource::Bytes(bytes)).map_err(|e| e.to_string())) {
            Ok(info) => serde_json::json!({ "pages": info.page_count, "title": info.title }),
            Err(error) => serde_json::json!({ "error": error }),
        }
    } else {
        serde_json::json!({ "name": record.name, "mime": record.mime, "size": record.size })
    };
    bytes_response("application/json", body.to_string().into_bytes(), RAW_CSP)
}

fn pdf_page(record: &ArtifactRecord, bytes: &[u8], page: &str, query: &str) -> Response<Vec<u8>> {
    if record.mime != "application/pdf" {
        return plain(StatusCode::BAD_REQUEST, format!("`{}` is not a PDF", record.id));
    }
    let Ok(page) = page.parse::<u32>() else { return plain(StatusCode::BAD_REQUEST, format!("`{page}` is not a page number")) };
    let width = query_width(query).unwrap_or(900);
    let renderer = match pdf_renderer() {
        Ok(renderer) => renderer,
        Err(error) => return plain(StatusCode::SERVICE_UNAVAILABLE, error),
    };
    match renderer.render_page(PdfSource::Bytes(bytes), page.saturating_sub(1), width) {
        Ok(png) => bytes_response("image/png", png, RAW_CSP),
        Err(error) => plain(StatusCode::UNPROCESSABLE_ENTITY, error.to_string()),
    }
}

/// A teammate's PDF, read by ranges from the team's bucket (PDFium reads what the view needs).
fn by_ranges(file: &Arc<RemoteFile>, view: &str, query: &str) -> Response<Vec<u8>> {
    let record = file.record();
    if record.mime != "application/pdf" {
        return plain(StatusCode::NOT_FOUND, format!("`{}` is still being fetched from the team store", record.id));
    }
    let renderer = match pdf_renderer() {
        Ok(renderer) => renderer,
        Err(error) => return plain(StatusCode::SERVICE_UNAVAILABLE, error),
    };
    match view {
        "info" => {
            let body = match renderer.info_from_reader(file.reader()) {
                Ok(info) => serde_json::json!({ "pages": info.page_count, "title": info.title }),
                Err(error) => serde_json::json!({ "error": error.to_string() }),
            };
            bytes_response("application/json", body.to_string().into_bytes(), RAW_CSP)
        }
        page if page.starts_with("page/") => {
            let Ok(page) = page[5..].parse::<u32>() else { return plain(StatusCode::BAD_REQUEST, format!("`{}` is not a page number", &page[5..])) };
            match renderer.render_page_from_reader(file.reader(), &record.sha256, page.saturating_sub(1), query_width(query).unwrap_or(900)) {
                Ok(png) => bytes_response("image/png", png, RAW_CSP),
                Err(error) => plain(StatusCode::UNPROCESSABLE_ENTITY, error.to_string()),
            }
        }
        other => plain(StatusCode::NOT_FOUND, format!("`{}` is still being fetched from the team store (view `{other}`)", record.id)),
    }
}

/// A `200` with `bytes`. The type comes from the store, which may hold anything (a catalog
/// written by another version, a teammate's row): it is a header only when it is a media type,
/// else `application/octet-stream` (with `nosniff`, the webview shows nothing of it). Never
/// panics, never fails: a response the shell cannot build leaves the window's request waiting.
fn bytes_response(mime: &str, bytes: Vec<u8>, csp: &'static str) -> Response<Vec<u8>> {
    let length = HeaderValue::from(bytes.len());
    let mut response = Response::new(bytes);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, content_type_header(mime));
    headers.insert(header::CONTENT_LENGTH, length);
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(csp));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=3600"));
    response
}

/// A stored type as a `Content-Type` value: parsed again (`mcp_canvas_contract::parse_media_type`),
/// else `application/octet-stream`.
fn content_type_header(stored: &str) -> HeaderValue {
    HeaderValue::from_str(&mcp_canvas_contract::media_type_or_octet_stream(stored)).unwrap_or(HeaderValue::from_static(mcp_canvas_contract::OCTET_STREAM))
}

fn plain(status: StatusCode, message: String) -> Response<Vec<u8>> {
    let mut response = Response::new(message.into_bytes());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use mcp_canvas_render::image::{ImageFormat, Rgba, RgbaImage};
    use mcp_canvas_store::{NewArtifact, Persistence};

    use super::*;

    const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

    fn encoded(format: ImageFormat) -> Vec<u8> {
        let image = RgbaImage::from_fn(40, 20, |x, _| Rgba([(x * 6) as u8, 30, 30, 255]));
        let mut bytes = Vec::new();
        if format == ImageFormat::Jpeg {
            // JPEG has no alpha channel.
            mcp_canvas_render::image::DynamicImage::ImageRgba8(image).to_rgb8().write_to(&mut Cursor::new(&mut bytes), format).unwrap();
        } else {
            image.write_to(&mut Cursor::new(&mut bytes), format).unwrap();
        }
        bytes
    }

    fn stored(store: &ArtifactStore, name: &str, mime: &str, bytes: &[u8]) -> String {
        let new = NewArtifact { name, mime, server: "demo", tool: "t", call_id: "c", session_id: "s", description: None, persistence: Persistence::Session, now_ms: 1 };
        store.put(new, bytes).unwrap().id
    }

    fn get(store: &ArtifactStore, path: &str) -> Response<Vec<u8>> {
        let request = Request::builder().uri(format!("artifact://localhost/{path}")).body(Vec::new()).unwrap();
        respond(Some(store), false, &request)
    }

    fn content_type(response: &Response<Vec<u8>>) -> &str {
        response.headers()[header::CONTENT_TYPE].to_str().unwrap()
    }

    #[test]
    fn remote_images_in_html_load_only_when_the_setting_allows() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let id = stored(&store, "report.html", "text/html", b"<p>Report</p><img src=\"https://tracker.example/pixel.png\">");
        let request = Request::builder().uri(format!("artifact://localhost/{id}/sanitized")).body(Vec::new()).unwrap();
        for allowed in [false, true] {
            let response = respond(Some(&store), allowed, &request);
            assert_eq!(response.status(), StatusCode::OK);
            let body = String::from_utf8(response.body().clone()).unwrap();
            assert_eq!(body.contains("https://tracker.example/pixel.png"), allowed, "allowed={allowed}: {body}");
            assert!(body.contains("Report"));
        }
    }

    #[test]
    fn tiff_bmp_and_ico_are_served_as_png_the_webview_can_show() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        for (format, name, mime) in [(ImageFormat::Tiff, "scan.tiff", "image/tiff"), (ImageFormat::Bmp, "shot.bmp", "image/bmp"), (ImageFormat::Ico, "app.ico", "image/x-icon")] {
            let id = stored(&store, name, mime, &encoded(format));
            let response = get(&store, &id);
            assert_eq!(response.status(), StatusCode::OK, "{name}");
            assert_eq!(content_type(&response), "image/png", "{name}");
            assert!(response.body().starts_with(PNG_MAGIC), "{name}");
            let info = image_info(response.body()).unwrap();
            assert_eq!((info.width, info.height), (40, 20), "{name}: full size");
            assert_eq!(response.headers()[header::CONTENT_SECURITY_POLICY], RAW_CSP);
        }
    }

    #[test]
    fn formats_the_webview_shows_and_other_files_pass_through_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        for (bytes, name, mime) in [(encoded(ImageFormat::Png), "a.png", "image/png"), (encoded(ImageFormat::Jpeg), "b.jpg", "image/jpeg"), (b"a,b\n1,2\n".to_vec(), "t.csv", "text/csv")] {
            let id = stored(&store, name, mime, &bytes);
            let response = get(&store, &id);
            assert_eq!(content_type(&response), mime);
            assert_eq!(response.body(), &bytes, "{name}");
        }
        // Declared an image but not one: served as stored (the webview shows its broken-image icon).
        let id = stored(&store, "fake.png", "image/png", b"not an image at all");
        assert_eq!(get(&store, &id).body(), b"not an image at all");
    }

    #[test]
    fn a_hostile_stored_type_is_served_as_octet_stream_never_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let png = encoded(ImageFormat::Png);
        let long = format!("image/{}", "p".repeat(10 * 1024));
        // Straight into the store, past the contract: what an old catalog or a teammate's row may hold.
        for (n, mime) in ["image/png\r\nX-Injected: 1", "text/html\n", "image/\u{1b}[31mpng", "image/png\0", long.as_str(), "", "imagé/png", "text/plain; x=\"\u{7f}\""].into_iter().enumerate() {
            let name = format!("evil-{n}.png");
            let id = stored(&store, &name, mime, &[png.as_slice(), &[n as u8]].concat());
            for view in ["", "/info", "/thumbnail"] {
                let response = get(&store, &format!("{id}{view}"));
                assert_eq!(response.status(), StatusCode::OK, "{mime:?}{view}");
                assert!(response.headers().get("x-injected").is_none());
            }
            let response = get(&store, &id);
            assert_eq!(content_type(&response), "application/octet-stream", "{mime:?}");
            assert_eq!(response.headers()[header::CONTENT_SECURITY_POLICY], RAW_CSP);
            assert_eq!(response.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
            assert!(response.body().starts_with(PNG_MAGIC), "the bytes as stored");
            // Views that name the type in their message or body do not fail either.
            assert_eq!(get(&store, &format!("{id}/sanitized")).status(), StatusCode::BAD_REQUEST, "{mime:?}");
            assert_eq!(get(&store, &format!("{id}/page/1")).status(), StatusCode::BAD_REQUEST, "{mime:?}");
        }
        // A stored type that is a media type is served as it is.
        let id = stored(&store, "fine.txt", "text/plain; charset=utf-8", b"fine");
        assert_eq!(content_type(&get(&store, &id)), "text/plain; charset=utf-8");
    }

    #[test]
    fn only_the_apps_own_origins_are_allowed_to_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let id = stored(&store, "a.txt", "text/plain", b"a");
        for (origin, allowed) in [("tauri://localhost", true), ("http://tauri.localhost", true), ("null", false), ("https://evil.example", false)] {
            let request = Request::builder().uri(format!("artifact://localhost/{id}")).header(header::ORIGIN, origin).body(Vec::new()).unwrap();
            let response = respond(Some(&store), false, &request);
            assert_eq!(response.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).map(|v| v.to_str().unwrap()), allowed.then_some(origin), "{origin}");
        }
    }

    #[test]
    fn thumbnails_are_small_pngs_and_svg_stays_svg() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let tiff = stored(&store, "scan.tiff", "image/tiff", &encoded(ImageFormat::Tiff));
        let response = get(&store, &format!("{tiff}/thumbnail?width=16"));
        assert_eq!(content_type(&response), "image/png");
        let info = image_info(response.body()).unwrap();
        assert_eq!((info.width, info.height), (16, 8));
        // Never enlarged; the width is clamped to 16..=1024.
        let png = stored(&store, "a.png", "image/png", &encoded(ImageFormat::Png));
        assert_eq!(image_info(get(&store, &format!("{png}/thumbnail?width=5000")).body()).unwrap().width, 40);
        assert_eq!(image_info(get(&store, &format!("{png}/thumbnail?width=1")).body()).unwrap().width, 16);
        let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#;
        let id = stored(&store, "icon.svg", "image/svg+xml", svg);
        let response = get(&store, &format!("{id}/thumbnail"));
        assert_eq!((content_type(&response), response.body().as_slice()), ("image/svg+xml", &svg[..]));
        let text = stored(&store, "notes.txt", "text/plain", b"hello");
        assert_eq!(get(&store, &format!("{text}/thumbnail")).status(), StatusCode::UNPROCESSABLE_ENTITY);
    }
}
