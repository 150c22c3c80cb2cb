//! The `artifact:` URI scheme: stored artifacts reach the webview as real HTTP-like responses
//! with their MIME type, never as base64 over IPC. URL shape: `artifact://localhost/<id>`.

use mcp_canvas_store::{ArtifactStore, StoreError};
use tauri::http::{header, Request, Response, StatusCode};

pub const SCHEME: &str = "artifact";

/// Artifacts are shown, never run: no scripts, no subresources, nothing sniffed.
const ARTIFACT_CSP: &str = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

pub fn respond(store: Option<&ArtifactStore>, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let Some(store) = store else {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "the artifact store is not open".into());
    };
    let id = request.uri().path().trim_start_matches('/');
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return plain(StatusCode::BAD_REQUEST, format!("`{id}` is not an artifact id"));
    }
    match store.read(id) {
        Ok((record, bytes)) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, record.mime)
            .header(header::CONTENT_LENGTH, bytes.len())
            .header(header::CONTENT_SECURITY_POLICY, ARTIFACT_CSP)
            .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
            // Ids are content hashes: the bytes behind an id never change.
            .header(header::CACHE_CONTROL, "private, max-age=31536000, immutable")
            .body(bytes)
            .expect("static headers are valid"),
        Err(StoreError::NotFound(_)) => plain(StatusCode::NOT_FOUND, format!("no artifact `{id}`")),
        Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

fn plain(status: StatusCode, message: String) -> Response<Vec<u8>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(message.into_bytes())
        .expect("static headers are valid")
}
