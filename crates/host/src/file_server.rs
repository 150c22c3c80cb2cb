//! File URLs for tools (000 §4, §8): a small HTTP server on 127.0.0.1 (ephemeral port) that
//! serves artifacts to tools that were handed a capability URL instead of a file name.
//!
//! - `GET /api/files/download/{key}?token=T` — the bytes (`Range` supported).
//! - `GET /api/files/{key}?token=T` — JSON `{name, mime, size, b64}` for tools expecting that route.
//!
//! Tokens are 256 random bits, scoped to one artifact, expiring (10 minutes by default), compared
//! in constant time and never logged. No token → 401, a token for another key or expired → 403,
//! an unknown key → 404. A `Host` header that is not loopback is refused (DNS rebinding guard).
//! Hand-written on hyper (routing three paths and one `Range` form did not justify a framework).

use std::{
    convert::Infallible,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::{body::Frame, header, Method, Request, Response, StatusCode};
use mcp_canvas_store::{ArtifactStore, StoreError};
use tokio::io::{AsyncReadExt, AsyncSeekExt};
use tokio_util::io::ReaderStream;

/// How long a capability URL works by default.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(600);

type Body = BoxBody<Bytes, std::io::Error>;

struct Grant {
    token: [u8; 32],
    key: String,
    expires: Instant,
}

/// The running server. Dropping it stops accepting connections.
pub struct FileServer {
    addr: SocketAddr,
    grants: Arc<Mutex<Vec<Grant>>>,
    _task: tokio::task::JoinHandle<()>,
}

impl FileServer {
    /// Binds 127.0.0.1 on an ephemeral port and starts serving `store`.
    pub async fn start(store: Arc<ArtifactStore>) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let grants: Arc<Mutex<Vec<Grant>>> = Arc::default();
        let state = Arc::new(State { store, grants: grants.clone(), port: addr.port() });
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let state = state.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(handle(&state, request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new().serve_connection(hyper_util::rt::TokioIo::new(stream), service).await;
                });
            }
        });
        Ok(Self { addr, grants, _task: task })
    }

    /// The server's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A download URL for artifact `key`, valid for `ttl`.
    pub fn grant(&self, key: &str, ttl: Duration) -> String {
        let mut token = [0u8; 32];
        getrandom::fill(&mut token).expect("the OS random number generator is available");
        let now = Instant::now();
        let mut grants = self.grants.lock().unwrap_or_else(|p| p.into_inner());
        grants.retain(|g| g.expires > now);
        grants.push(Grant { token, key: key.to_owned(), expires: now + ttl });
        format!("http://127.0.0.1:{}/api/files/download/{key}?token={}", self.addr.port(), hex(&token))
    }
}

struct State {
    store: Arc<ArtifactStore>,
    grants: Arc<Mutex<Vec<Grant>>>,
    port: u16,
}

enum Route<'a> {
    Download(&'a str),
    Json(&'a str),
}

async fn handle(state: &State, request: Request<hyper::body::Incoming>) -> Response<Body> {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return error(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD are served");
    }
    if !loopback_host(request.headers().get(header::HOST).and_then(|h| h.to_str().ok()), state.port) {
        return error(StatusCode::FORBIDDEN, "the Host header must name this loopback server");
    }
    let path = request.uri().path();
    let route = if let Some(key) = path.strip_prefix("/api/files/download/") {
        Route::Download(key)
    } else if let Some(key) = path.strip_prefix("/api/files/") {
        Route::Json(key)
    } else {
        return error(StatusCode::NOT_FOUND, "no such route");
    };
    let key = match route {
        Route::Download(k) | Route::Json(k) => k,
    };
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return error(StatusCode::NOT_FOUND, "no such file");
    }
    let Some(token) = request.uri().query().and_then(|q| q.split('&').find_map(|p| p.strip_prefix("token="))) else {
        return error(StatusCode::UNAUTHORIZED, "a token is required");
    };
    if !authorized(state, key, token) {
        return error(StatusCode::FORBIDDEN, "the token is invalid, expired, or for another file");
    }
    // The catalog (one SQLite connection, maybe another process's write lock) and, for JSON, the
    // whole blob read and hashed: on the blocking pool, never on the server's async worker.
    let (store, id, whole) = (state.store.clone(), key.to_owned(), matches!(route, Route::Json(_)));
    let found = tokio::task::spawn_blocking(move || if whole { store.read(&id).map(|(record, bytes)| (record, Some(bytes))) } else { store.get(&id).map(|record| (record, None)) }).await;
    let (record, bytes) = match found {
        Ok(Ok(found)) => found,
        Ok(Err(StoreError::NotFound(_))) => return error(StatusCode::NOT_FOUND, "no such file"),
        Ok(Err(e)) => return error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, &format!("reading the file failed: {e} (a bug in MCP Canvas)")),
    };
    match (route, bytes) {
        (Route::Json(_), Some(bytes)) => {
            let body = serde_json::json!({
                "name": record.name,
                "mime": record.mime,
                "size": record.size,
                "b64": base64::engine::general_purpose::STANDARD.encode(bytes),
            });
            respond(StatusCode::OK, "application/json", full(body.to_string()))
        }
        _ => download(state, &record, request.headers().get(header::RANGE).and_then(|r| r.to_str().ok()), request.method() == Method::HEAD).await,
    }
}

async fn download(state: &State, record: &mcp_canvas_store::ArtifactRecord, range: Option<&str>, head_only: bool) -> Response<Body> {
    let path = state.store.blob_path(&record.sha256);
    let mut file = match tokio::fs::File::open(&path).await {
        Ok(file) => file,
        Err(_) => return error(StatusCode::INTERNAL_SERVER_ERROR, "the stored file is missing; run `mcp-canvas-cli artifacts verify`"),
    };
    let size = record.size;
    let (status, start, len) = match range.map(|r| parse_range(r, size)) {
        None => (StatusCode::OK, 0, size),
        Some(Some((start, end))) => (StatusCode::PARTIAL_CONTENT, start, end - start + 1),
        Some(None) => {
            let mut response = error(StatusCode::RANGE_NOT_SATISFIABLE, "the requested range is not satisfiable");
            insert_formatted(response.headers_mut(), header::CONTENT_RANGE, format!("bytes */{size}"));
            return response;
        }
    };
    if start > 0 && file.seek(std::io::SeekFrom::Start(start)).await.is_err() {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "cannot read the stored file");
    }
    let body: Body = if head_only {
        Full::new(Bytes::new()).map_err(|never| match never {}).boxed()
    } else {
        let stream = ReaderStream::new(file.take(len));
        StreamBody::new(futures_frames(stream)).boxed()
    };
    let mut response = respond(status, &record.mime, body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_LENGTH, len.into());
    headers.insert(header::ACCEPT_RANGES, header::HeaderValue::from_static("bytes"));
    headers.insert(header::CONTENT_DISPOSITION, content_disposition(&record.name));
    if status == StatusCode::PARTIAL_CONTENT {
        insert_formatted(headers, header::CONTENT_RANGE, format!("bytes {start}-{}/{size}", start + len - 1));
    }
    response
}

fn futures_frames(stream: ReaderStream<tokio::io::Take<tokio::fs::File>>) -> impl futures_core::Stream<Item = Result<Frame<Bytes>, std::io::Error>> {
    use futures_util::StreamExt;
    stream.map(|chunk| chunk.map(Frame::data))
}

/// `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range). `None`: not satisfiable.
fn parse_range(header: &str, size: u64) -> Option<(u64, u64)> {
    let spec = header.trim().strip_prefix("bytes=")?;
    if spec.contains(',') || size == 0 {
        return None;
    }
    let (start, end) = spec.split_once('-')?;
    let (start, end) = match (start.trim(), end.trim()) {
        ("", suffix) => {
            let n: u64 = suffix.parse().ok()?;
            (size.checked_sub(n.min(size))?, size - 1)
        }
        (s, "") => (s.parse().ok()?, size - 1),
        (s, e) => (s.parse().ok()?, e.parse::<u64>().ok()?.min(size - 1)),
    };
    (start <= end && start < size).then_some((start, end))
}

fn loopback_host(host: Option<&str>, port: u16) -> bool {
    let Some(host) = host else { return false };
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|name| host == format!("{name}:{port}"))
}

fn authorized(state: &State, key: &str, token_hex: &str) -> bool {
    let Some(token) = unhex(token_hex) else { return false };
    let now = Instant::now();
    let grants = state.grants.lock().unwrap_or_else(|p| p.into_inner());
    // Compare against every grant in constant time, so timing says nothing about near misses.
    let mut found = false;
    for grant in grants.iter() {
        let same = grant.token.iter().zip(token.iter()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
        found |= same && grant.key == key && grant.expires > now;
    }
    found
}

/// `attachment; filename="…"` with every character that is not printable ASCII, `"` or `\\`
/// as `_`; plain `attachment` should even that not be a header value. Never panics.
fn content_disposition(name: &str) -> header::HeaderValue {
    let filename: String = name.chars().take(255).map(|c| if c == '"' || c == '\\' || !(' '..='~').contains(&c) { '_' } else { c }).collect();
    header::HeaderValue::from_str(&format!("attachment; filename=\"{filename}\"")).unwrap_or(header::HeaderValue::from_static("attachment"))
}

/// Inserts a header built from numbers; one that somehow is not a value is left out.
fn insert_formatted(headers: &mut header::HeaderMap, name: header::HeaderName, value: String) {
    if let Ok(value) = header::HeaderValue::from_str(&value) {
        headers.insert(name, value);
    }
}

/// The type is the store's, which may hold anything: a header only when it is a media type
/// (`mcp_canvas_contract::parse_media_type`), else `application/octet-stream`.
fn respond(status: StatusCode, content_type: &str, body: Body) -> Response<Body> {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    let content_type = mcp_canvas_contract::media_type_or_octet_stream(content_type);
    headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_str(&content_type).unwrap_or(header::HeaderValue::from_static(mcp_canvas_contract::OCTET_STREAM)));
    headers.insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    headers.insert("x-content-type-options", header::HeaderValue::from_static("nosniff"));
    response
}

fn error(status: StatusCode, message: &str) -> Response<Body> {
    respond(status, "application/json", full(serde_json::json!({ "error": message }).to_string()))
}

fn full(text: String) -> Body {
    Full::new(Bytes::from(text)).map_err(|never| match never {}).boxed()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("bytes=0-9", 100), Some((0, 9)));
        assert_eq!(parse_range("bytes=90-", 100), Some((90, 99)));
        assert_eq!(parse_range("bytes=-10", 100), Some((90, 99)));
        assert_eq!(parse_range("bytes=50-500", 100), Some((50, 99)));
        assert_eq!(parse_range("bytes=100-", 100), None);
        assert_eq!(parse_range("bytes=5-2", 100), None);
        assert_eq!(parse_range("bytes=0-1,5-6", 100), None);
        assert_eq!(parse_range("items=0-1", 100), None);
    }

    #[test]
    fn stored_types_and_names_become_safe_headers() {
        let body = || full(String::new());
        for (stored, sent) in [
            ("application/pdf", "application/pdf"),
            ("text/plain; charset=utf-8", "text/plain; charset=utf-8"),
            ("imagé/png", "application/octet-stream"),
            ("text/html\tx", "application/octet-stream"),
            ("image/png\r\nSet-Cookie: a=b", "application/octet-stream"),
            ("", "application/octet-stream"),
        ] {
            let response = respond(StatusCode::OK, stored, body());
            assert_eq!(response.headers()[header::CONTENT_TYPE], sent, "{stored:?}");
        }
        for (name, sent) in [
            ("report.pdf", "attachment; filename=\"report.pdf\""),
            ("a\"b\\c\r\nd\u{7f}é.pdf", "attachment; filename=\"a_b_c__d__.pdf\""),
        ] {
            assert_eq!(content_disposition(name), sent, "{name:?}");
        }
        assert_eq!(content_disposition(&"x".repeat(10_000)).len(), "attachment; filename=\"\"".len() + 255);
    }

    #[test]
    fn only_loopback_hosts_for_this_port() {
        assert!(loopback_host(Some("127.0.0.1:4000"), 4000));
        assert!(loopback_host(Some("localhost:4000"), 4000));
        assert!(!loopback_host(Some("evil.example:4000"), 4000));
        assert!(!loopback_host(Some("127.0.0.1:4001"), 4000));
        assert!(!loopback_host(None, 4000));
    }
}
