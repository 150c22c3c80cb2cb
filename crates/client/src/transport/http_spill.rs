//! Streamable HTTP with spilling: rmcp's reqwest client for every request but `tools/call`, whose
//! answer — one JSON body, or an event stream — is read here through the host's
//! store's [`Scanner`](mcp_canvas_store::spill::Scanner) as it arrives, so that the message rmcp parses is small, as
//! [`LineTransport`](super::stdio::LineTransport) does for stdio. So are the GET streams (the
//! server's own, and a call's stream resumed with `Last-Event-ID`), where an answer may come too.
//!
//! Written here, for that one request, rather than left to rmcp's client: rmcp buffers each
//! message whole (a JSON body, or an SSE event's data) and parses it before handing it on — a
//! 100 MB result took 6–7× its size in memory (`scripts/bench-normalize.py --transports
//! http-json,http-sse`). Around the body it does what rmcp's client does: the same request
//! (Accept, bearer token, session id, the headers the transport adds), a challenge on 401/403,
//! 202/204, an expired session (404), 429 and 5xx with `Retry-After`, a JSON-RPC error in a failed
//! response's JSON body, and the same limits (`max_message_bytes` for a body or an event).
//!
//! An event stream is read by `events.rs`, which never holds a line.

use std::{
    collections::HashMap,
    sync::Arc,
};

use futures::{stream::BoxStream, StreamExt as _};
use http::{
    header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE},
    HeaderName, HeaderValue, StatusCode,
};
use rmcp::{
    model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, RequestId, ServerJsonRpcMessage},
    transport::{
        auth::WWWAuthenticateParams,
        common::http_header::{EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE},
        streamable_http_client::{
            AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
            StreamableHttpResponseLimits,
        },
    },
};
use sse_stream::Sse;

use mcp_canvas_store::{spill::Scanner, ArtifactStore};

use super::spill::SpillTable;

type HttpError = StreamableHttpError<reqwest::Error>;

/// rmcp's limit for an event when none is given.
const DEFAULT_MAX_SSE_EVENT_SIZE: usize = 16 << 20;
/// The JSON body of a failed response read for a JSON-RPC error, at most.
const MAX_ERROR_JSON: usize = 1 << 20;

/// The HTTP client for a server, with the redirect policy of rmcp's own default client (which it
/// does not expose): only same-origin 307/308 redirects are followed, at most 10 — a 301/302/303
/// would turn the POST into a GET without its message, and another origin would be sent the
/// session id and the headers of `servers.json` (which may hold an API key). Unlike rmcp's,
/// connections are kept for reuse (4 s): to a remote server each new one costs a TLS handshake.
pub fn http_client() -> reqwest::Client {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(attempt.status(), StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT);
        let same_origin = attempt.previous().first().is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > 10 {
            attempt.error("more than 10 redirects")
        } else {
            attempt.follow()
        }
    });
    // Idle connections go before a Node server's own 5 s keep-alive closes them under a request.
    reqwest::Client::builder().redirect(policy).pool_idle_timeout(std::time::Duration::from_secs(4)).build().expect("an HTTP client with a redirect policy builds")
}

/// rmcp's reqwest client, with the answers to `tools/call` read through a spill when the host
/// gives one.
#[derive(Clone)]
pub struct SpillingHttp {
    http: reqwest::Client,
    spill: Option<(Arc<ArtifactStore>, SpillTable)>,
}

impl SpillingHttp {
    /// Plain rmcp (`spill` none), or answers to `tools/call` spilled, their runs waiting in the
    /// table.
    pub fn new(http: reqwest::Client, spill: Option<(Arc<ArtifactStore>, SpillTable)>) -> Self {
        Self { http, spill }
    }

    /// A request to the server as rmcp's client makes it: what it accepts, the bearer token, the
    /// headers the transport gives (the configured ones, the protocol's), the session.
    fn request(&self, method: http::Method, uri: &str, session_id: Option<Arc<str>>, auth_token: Option<String>, custom_headers: HashMap<HeaderName, HeaderValue>) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, uri).header(ACCEPT, format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"));
        if let Some(token) = auth_token {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        if let Some(session) = session_id {
            request = request.header(HEADER_SESSION_ID, session.as_ref());
        }
        request
    }

    /// Sends a `tools/call` (`request`, made by [`Self::request`]) and reads its answer through
    /// `spill`.
    async fn call(&self, (spill, table): (&Arc<ArtifactStore>, &SpillTable), id: RequestId, uri: &str, request: reqwest::RequestBuilder, had_session: bool, limits: StreamableHttpResponseLimits) -> Result<StreamableHttpPostResponse, HttpError> {
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if let Some(challenge) = challenged(&response, uri) {
            return Err(challenge);
        }
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && had_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = response.headers().get(HEADER_SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (content_type, media_type) = media_type(&response);
        if !status.is_success() {
            return failed(response, media_type.as_deref() == Some(JSON_MIME_TYPE), session, limits.max_error_response_size).await;
        }
        match media_type.as_deref() {
            Some(EVENT_STREAM_MIME_TYPE) => Ok(StreamableHttpPostResponse::Sse(events(response.bytes_stream(), EventReader::new(spill.clone(), table.clone(), limits.max_sse_event_size), Some(id)), session)),
            Some(JSON_MIME_TYPE) => {
                if response.content_length().is_some_and(|length| length > limits.max_json_response_size as u64) {
                    return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limits.max_json_response_size });
                }
                let mut pass = Pass::new(Scanner::new(spill.clone()), limits.max_json_response_size);
                let mut body = response.bytes_stream();
                while let Some(chunk) = body.next().await {
                    pass.feed(&chunk.map_err(StreamableHttpError::Client)?).map_err(PassError::into_http)?;
                }
                let message = pass.finish(table).map_err(PassError::into_http)?;
                Ok(StreamableHttpPostResponse::Json(serde_json::from_slice::<ServerJsonRpcMessage>(&message)?, session))
            }
            _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
        }
    }
}

impl StreamableHttpClient for SpillingHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, StreamableHttpResponseLimits::default()).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let call = match &message {
            JsonRpcMessage::Request(request) if matches!(request.request, ClientRequest::CallToolRequest(_)) => Some(request.id.clone()),
            _ => None,
        };
        match (call, &self.spill) {
            (Some(id), Some((spill, table))) => {
                table.call_sent(id.clone());
                let had_session = session_id.is_some();
                let request = self.request(http::Method::POST, &uri, session_id, auth_token, custom_headers).header(CONTENT_TYPE, JSON_MIME_TYPE).body(serde_json::to_vec(&message)?);
                self.call((spill, table), id, &uri, request, had_session, limits).await
            }
            _ => self.http.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, limits).await,
        }
    }

    async fn delete_session(&self, uri: Arc<str>, session_id: Arc<str>, auth_token: Option<String>, custom_headers: HashMap<HeaderName, HeaderValue>) -> Result<(), HttpError> {
        self.http.delete_session(uri, session_id, auth_token, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth_token, custom_headers, DEFAULT_MAX_SSE_EVENT_SIZE).await
    }

    /// The server's own stream, or a call's answer stream resumed with `Last-Event-ID` (a server
    /// may close the POST's stream after its first event and answer here): read through the
    /// spill as well, so an answer that comes here stays small too.
    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let Some((spill, table)) = &self.spill else {
            return self.http.get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth_token, custom_headers, max_sse_event_size).await;
        };
        let mut request = self.request(http::Method::GET, &uri, session_id, auth_token, custom_headers);
        if let Some(last) = last_event_id {
            request = request.header(HEADER_LAST_EVENT_ID, last);
        }
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if let Some(challenge) = challenged(&response, &uri) {
            return Err(challenge);
        }
        if let Some(error) = status_error(&response) {
            return Err(error.into());
        }
        let response = response.error_for_status().map_err(StreamableHttpError::Client)?;
        let (content_type, media_type) = media_type(&response);
        match media_type.as_deref() {
            // An event it cannot read is skipped (and logged), as rmcp skips data it cannot parse:
            // handed on as an error, the stream would be resumed from the event before it, and a
            // server that keeps its events would send it again, and again.
            Some(EVENT_STREAM_MIME_TYPE | JSON_MIME_TYPE) => Ok(events(response.bytes_stream(), EventReader::new(spill.clone(), table.clone(), max_sse_event_size).skipping_unreadable(), None)),
            _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
        }
    }
}

/// The error a 401 or 403 with a challenge (`WWW-Authenticate`) is, as rmcp's `AuthClient`
/// expects it (it signs in, or asks for more scope, and tries again).
fn challenged(response: &reqwest::Response, uri: &str) -> Option<HttpError> {
    let status = response.status();
    if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        return None;
    }
    let challenge = response.headers().get(WWW_AUTHENTICATE)?;
    let Ok(challenge) = challenge.to_str().map(str::to_owned) else {
        return Some(StreamableHttpError::UnexpectedServerResponse("invalid www-authenticate header value".into()));
    };
    if status == StatusCode::UNAUTHORIZED {
        return Some(StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge)));
    }
    let scope = url::Url::parse(uri).ok().and_then(|base| WWWAuthenticateParams::parse(&challenge, &base).scope);
    Some(StreamableHttpError::InsufficientScope(InsufficientScopeError::new(challenge, scope)))
}

/// A failed response (not 401/403 with a challenge, not an expired session): a JSON-RPC error
/// in its JSON body answers the request; otherwise 429 and 5xx keep their status and
/// `Retry-After`, anything else says what the server sent.
async fn failed(response: reqwest::Response, json: bool, session: Option<String>, max_error: usize) -> Result<StreamableHttpPostResponse, HttpError> {
    let status = response.status();
    let status_error = status_error(&response);
    // A 401/403 without a challenge keeps its status, JSON body or not.
    let json = json && !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
    let status_error = match status_error {
        Some(error) if status == StatusCode::TOO_MANY_REQUESTS || !json => return Err(error.into()),
        other => other,
    };
    let body = prefix(response, if json { MAX_ERROR_JSON } else { max_error }).await;
    if json {
        if let Ok(message @ JsonRpcMessage::Error(_)) = serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
            return Ok(StreamableHttpPostResponse::Json(message, session));
        }
    }
    if let Some(error) = status_error {
        return Err(error.into());
    }
    let shown = String::from_utf8_lossy(&body[..body.len().min(max_error)]).into_owned();
    Err(StreamableHttpError::UnexpectedServerResponse(format!("HTTP {status}: {shown}").into()))
}

/// A 429 or 5xx, with its `Retry-After`.
fn status_error(response: &reqwest::Response) -> Option<HttpStatusError> {
    let status = response.status();
    let retry_after = || response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    (status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()).then(|| HttpStatusError::new(status.as_u16(), retry_after()))
}

/// The response's `Content-Type` as sent, and its media type (lowercase, no parameters).
fn media_type(response: &reqwest::Response) -> (Option<String>, Option<String>) {
    let content_type = response.headers().get(CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let media_type = content_type.as_deref().map(|ct| ct.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    (content_type, media_type)
}

/// At most `limit` bytes of the body (what could be read).
async fn prefix(response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = response.bytes_stream();
    let mut read = Vec::new();
    while let Some(Ok(chunk)) = body.next().await {
        read.extend_from_slice(&chunk[..chunk.len().min(limit - read.len())]);
        if read.len() >= limit {
            break;
        }
    }
    read
}

/// One message read through a spill pass, its size counted against the limit.
pub(super) struct Pass {
    spilling: Scanner,
    len: usize,
    max: usize,
}

pub(super) enum PassError {
    TooLarge(usize),
    Io(std::io::Error),
}

impl PassError {
    fn into_http(self) -> HttpError {
        match self {
            PassError::TooLarge(max_size) => StreamableHttpError::ResponseBodyTooLarge { max_size },
            PassError::Io(e) => StreamableHttpError::Io(e),
        }
    }

    pub(super) fn into_sse(self) -> SseError {
        match self {
            PassError::TooLarge(max) => SseError::Body(format!("an event is larger than the limit of {max} bytes (`max_message_bytes` in servers.json)").into()),
            PassError::Io(e) => SseError::Body(Box::new(e)),
        }
    }
}

impl Pass {
    pub(super) fn new(spilling: Scanner, max: usize) -> Self {
        Self { spilling, len: 0, max }
    }

    pub(super) fn feed(&mut self, bytes: &[u8]) -> Result<(), PassError> {
        self.len += bytes.len();
        if self.len > self.max {
            return Err(PassError::TooLarge(self.max));
        }
        self.spilling.feed(bytes).map_err(|e| PassError::Io(std::io::Error::other(e)))
    }

    /// The message for rmcp to parse: compact, its runs waiting in `table`, when it is the final
    /// answer to a waiting `tools/call`; whole otherwise.
    pub(super) fn finish(self, table: &SpillTable) -> Result<Vec<u8>, PassError> {
        match self.spilling.finish().map_err(|e| PassError::Io(std::io::Error::other(e)))? {
            (message, runs) if runs.is_empty() => Ok(message),
            (compact, runs) => {
                let value = table.settle(&compact, runs).map_err(|e| PassError::Io(e.into()))?;
                serde_json::to_vec(&value).map_err(|e| PassError::Io(e.into()))
            }
        }
    }
}

mod events;

use events::{events, EventReader};

#[cfg(test)]
mod tests;
