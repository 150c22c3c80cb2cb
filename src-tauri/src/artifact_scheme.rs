//! The `artifact:` URI scheme: stored artifacts reach the webview as HTTP-like responses with
//! their MIME type, never as base64 over IPC.
//!
//! - `artifact://localhost/<id>` — the bytes, as stored.
//! - `artifact://localhost/<id>/sanitized` — HTML or markdown made safe by `mcp-canvas-render`
//!   (shown in an `<iframe sandbox>`; the response's CSP forbids scripts and remote loads too).
//! - `artifact://localhost/<id>/info` — JSON facts (`pages`, `title` for PDFs, or `error`).
//! - `artifact://localhost/<id>/page/<n>?width=<px>` — PDF page `n` (from 1) as PNG, by pdfium.

use mcp_canvas_render::{render_markdown, sanitize_html, HtmlOptions, PdfRenderer, PdfSource};
use mcp_canvas_store::{ArtifactRecord, ArtifactStore, StoreError};
use tauri::http::{header, Request, Response, StatusCode};

pub const SCHEME: &str = "artifact";

/// Raw artifacts are shown, never run: no scripts, no subresources, nothing sniffed.
const RAW_CSP: &str = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";
/// Sanitized documents may show images from the store and inline styles, nothing else.
const DOCUMENT_CSP: &str = "default-src 'none'; img-src data: artifact: http://artifact.localhost; style-src 'unsafe-inline'; sandbox";

/// The process-wide renderer (bound on first success; until then each request says why).
fn pdf_renderer() -> Result<&'static PdfRenderer, String> {
    PdfRenderer::shared().map_err(|e| e.to_string())
}

pub fn respond(store: Option<&ArtifactStore>, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
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
    let (record, bytes) = match store.read(id) {
        Ok(found) => found,
        Err(StoreError::NotFound(_)) => return plain(StatusCode::NOT_FOUND, format!("no artifact `{id}`")),
        Err(e) => return plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    let mut response = match view {
        "" => bytes_response(&record.mime, bytes, RAW_CSP),
        "sanitized" => sanitized(&record, &bytes),
        "info" => info(&record, &bytes),
        page if page.starts_with("page/") => pdf_page(&record, &bytes, &page[5..], request.uri().query().unwrap_or("")),
        other => plain(StatusCode::NOT_FOUND, format!("no view `{other}`")),
    };
    // The app's own page may read artifacts (text viewers fetch them); no other origin may —
    // not a sandboxed document (origin `null`), not a dashboard.
    let origin = request.headers().get(header::ORIGIN).and_then(|o| o.to_str().ok());
    if let Some(origin) = origin.filter(|o| APP_ORIGINS.contains(o)) {
        response.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.parse().expect("a known origin"));
    }
    response
}

/// Where the app's UI is served from (Linux/macOS, Windows/Android).
const APP_ORIGINS: &[&str] = &["tauri://localhost", "http://tauri.localhost"];

fn sanitized(record: &ArtifactRecord, bytes: &[u8]) -> Response<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes);
    let document = match record.mime.as_str() {
        "text/html" | "application/xhtml+xml" => sanitize_html(&text, &HtmlOptions::default()),
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
    let width = query.split('&').find_map(|p| p.strip_prefix("width=")).and_then(|w| w.parse().ok()).unwrap_or(900);
    let renderer = match pdf_renderer() {
        Ok(renderer) => renderer,
        Err(error) => return plain(StatusCode::SERVICE_UNAVAILABLE, error),
    };
    match renderer.render_page(PdfSource::Bytes(bytes), page.saturating_sub(1), width) {
        Ok(png) => bytes_response("image/png", png, RAW_CSP),
        Err(error) => plain(StatusCode::UNPROCESSABLE_ENTITY, error.to_string()),
    }
}

fn bytes_response(mime: &str, bytes: Vec<u8>, csp: &str) -> Response<Vec<u8>> {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, mime)
        .header(header::CONTENT_LENGTH, bytes.len())
        .header(header::CONTENT_SECURITY_POLICY, csp)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::CACHE_CONTROL, "private, max-age=3600")
        .body(bytes)
        .expect("static headers are valid")
}

fn plain(status: StatusCode, message: String) -> Response<Vec<u8>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(message.into_bytes())
        .expect("static headers are valid")
}
