//! Streamable HTTP with spilling: rmcp's reqwest client for every request but `tools/call`, whose
//! answer — one JSON body, or an event stream — is read here through the host's
//! [`MessageSpill`] as it arrives, so that the message rmcp parses is small, as
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
//! An event stream is read line by line without holding a line: the value of a `data` line goes
//! to the event's spill pass as it comes (lines joined with LF), other fields are kept, an empty
//! line ends the event; CRLF, LF and CR end lines; a leading BOM and comments are skipped.

use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
};

use futures::{stream::BoxStream, Stream, StreamExt as _};
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

use super::spill::{MessageSpill, SpillTable, SpillingMessage};

type HttpError = StreamableHttpError<reqwest::Error>;

/// rmcp's limit for an event when none is given.
const DEFAULT_MAX_SSE_EVENT_SIZE: usize = 16 << 20;
/// The JSON body of a failed response read for a JSON-RPC error, at most.
const MAX_ERROR_JSON: usize = 1 << 20;
/// A line of an event stream that is not data (an id, an event name, an unknown field), at most.
const MAX_FIELD_LINE: usize = 64 << 10;
const BOM: &[u8] = b"\xEF\xBB\xBF";
const DATA: &[u8] = b"data:";

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
    spill: Option<(Arc<dyn MessageSpill>, SpillTable)>,
}

impl SpillingHttp {
    /// Plain rmcp (`spill` none), or answers to `tools/call` spilled, their runs waiting in the
    /// table.
    pub fn new(http: reqwest::Client, spill: Option<(Arc<dyn MessageSpill>, SpillTable)>) -> Self {
        Self { http, spill }
    }

    /// POSTs a `tools/call` and reads its answer through `spill`.
    #[allow(clippy::too_many_arguments)]
    async fn call(
        &self,
        (spill, table): (&Arc<dyn MessageSpill>, &SpillTable),
        id: RequestId,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut request = self.http.post(uri.as_ref()).header(ACCEPT, format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}")).header(CONTENT_TYPE, JSON_MIME_TYPE);
        if let Some(token) = auth_token {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        let had_session = session_id.is_some();
        if let Some(session) = session_id {
            request = request.header(HEADER_SESSION_ID, session.as_ref());
        }
        let response = request.body(serde_json::to_vec(&message)?).send().await.map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if let Some(challenge) = challenged(&response, &uri) {
            return Err(challenge);
        }
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && had_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = response.headers().get(HEADER_SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let content_type = response.headers().get(CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let media_type = content_type.as_deref().map(|ct| ct.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
        if !status.is_success() {
            return failed(response, status, media_type.as_deref() == Some(JSON_MIME_TYPE), session, limits.max_error_response_size).await;
        }
        match media_type.as_deref() {
            Some(EVENT_STREAM_MIME_TYPE) => Ok(StreamableHttpPostResponse::Sse(events(response.bytes_stream(), EventReader::new(spill.clone(), table.clone(), limits.max_sse_event_size), Some(id)), session)),
            Some(JSON_MIME_TYPE) => {
                if response.content_length().is_some_and(|length| length > limits.max_json_response_size as u64) {
                    return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limits.max_json_response_size });
                }
                let mut pass = Pass::new(spill.start(), limits.max_json_response_size);
                let mut body = response.bytes_stream();
                while let Some(chunk) = body.next().await {
                    pass.feed(&chunk.map_err(StreamableHttpError::Client)?).map_err(PassError::into_http)?;
                }
                let message = pass.finish(table).map_err(PassError::into_http)?;
                table.answers_call(&id);
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
                self.call((spill, table), id, uri, message, session_id, auth_token, custom_headers, limits).await
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
        let mut request = self.http.get(uri.as_ref()).header(ACCEPT, format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"));
        if let Some(session) = session_id {
            request = request.header(HEADER_SESSION_ID, session.as_ref());
        }
        if let Some(last) = last_event_id {
            request = request.header(HEADER_LAST_EVENT_ID, last);
        }
        if let Some(token) = auth_token {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if let Some(challenge) = challenged(&response, &uri) {
            return Err(challenge);
        }
        if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            let retry_after = response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_owned);
            return Err(HttpStatusError::new(status.as_u16(), retry_after).into());
        }
        let response = response.error_for_status().map_err(StreamableHttpError::Client)?;
        let content_type = response.headers().get(CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        match content_type.as_deref().map(|ct| ct.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()).as_deref() {
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
async fn failed(response: reqwest::Response, status: StatusCode, json: bool, session: Option<String>, max_error: usize) -> Result<StreamableHttpPostResponse, HttpError> {
    let retry_after = response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let status_error = (status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()).then(|| HttpStatusError::new(status.as_u16(), retry_after));
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
struct Pass {
    spilling: Box<dyn SpillingMessage>,
    len: usize,
    max: usize,
}

enum PassError {
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

    fn into_sse(self) -> SseError {
        match self {
            PassError::TooLarge(max) => SseError::Body(format!("an event is larger than the limit of {max} bytes (`max_message_bytes` in servers.json)").into()),
            PassError::Io(e) => SseError::Body(Box::new(e)),
        }
    }
}

impl Pass {
    fn new(spilling: Box<dyn SpillingMessage>, max: usize) -> Self {
        Self { spilling, len: 0, max }
    }

    fn feed(&mut self, bytes: &[u8]) -> Result<(), PassError> {
        self.len += bytes.len();
        if self.len > self.max {
            return Err(PassError::TooLarge(self.max));
        }
        self.spilling.feed(bytes).map_err(PassError::Io)
    }

    /// The message for rmcp to parse: compact, its runs waiting in `table`, when it is the final
    /// answer to a waiting `tools/call`; whole otherwise.
    fn finish(self, table: &SpillTable) -> Result<Vec<u8>, PassError> {
        match self.spilling.finish().map_err(PassError::Io)? {
            (message, None) => Ok(message),
            (compact, Some(runs)) => {
                let value = table.settle(&compact, runs).map_err(|e| PassError::Io(e.into()))?;
                serde_json::to_vec(&value).map_err(|e| PassError::Io(e.into()))
            }
        }
    }
}

/// The events of `body`, read by `reader`: a call's answer stream (`id`) or a GET stream.
///
/// An event that cannot be read (over the limit, its runs not stored, not JSON) ends the stream
/// with an error answer to the call, as the stdio transport answers an unreadable line: handed to
/// rmcp as an error, the stream would be resumed with `Last-Event-ID` outside the spill, and the
/// server would send the same event again. A failing connection is rmcp's to resume, after the
/// events read before it.
fn events<S>(body: S, reader: EventReader, id: Option<RequestId>) -> BoxStream<'static, Result<Sse, SseError>>
where
    S: Stream<Item = reqwest::Result<bytes::Bytes>> + Send + 'static,
{
    struct State<S> {
        body: std::pin::Pin<Box<S>>,
        reader: EventReader,
        /// The call the stream answers (none for the server's own stream).
        id: Option<RequestId>,
        /// The error to hand on once the events before it are out; the stream ends after it.
        failed: Option<SseError>,
        done: bool,
    }
    let state = State { body: Box::pin(body), reader, id, failed: None, done: false };
    futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.reader.ready.pop_front() {
                return Some((Ok(event), state));
            }
            if let Some(error) = state.failed.take() {
                return Some((Err(error), state));
            }
            if state.done {
                // The call may still wait: its answer may come on a resumed stream (the
                // pipeline takes or forgets it either way).
                return None;
            }
            match state.body.next().await {
                Some(Ok(chunk)) => {
                    if let Err(e) = state.reader.feed(&chunk) {
                        match &state.id {
                            Some(id) => {
                                state.reader.table.answers_call(id);
                                state.reader.ready.push_back(error_answer(id, &e));
                            }
                            None => state.failed = Some(e),
                        }
                        state.done = true;
                    }
                }
                Some(Err(e)) => {
                    state.failed = Some(SseError::Body(Box::new(e)));
                    state.done = true;
                }
                None => state.done = true,
            }
        }
    })
    .boxed()
}

/// An event carrying the JSON-RPC error that answers call `id`: its answer could not be read.
fn error_answer(id: &RequestId, error: &SseError) -> Sse {
    let message = format!("the server's answer could not be read: {error}");
    let answer = serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": { "code": rmcp::model::ErrorCode::PARSE_ERROR.0, "message": message } });
    Sse { data: Some(answer.to_string()), ..Sse::default() }
}

/// An event stream read as it arrives (see the module's docs).
struct EventReader {
    spill: Arc<dyn MessageSpill>,
    table: SpillTable,
    max_event: usize,
    /// What the line being read is, once its first bytes tell.
    kind: LineKind,
    /// The line being read while its kind is not known, or a field line (not data, not a
    /// comment: at most [`MAX_FIELD_LINE`] bytes).
    line: Vec<u8>,
    /// The next byte of the `data` line starts its value (a space there is dropped).
    value_starts: bool,
    /// The last line ended with CR: an LF right after it ends nothing.
    after_cr: bool,
    /// Bytes of a BOM seen at the start of the stream (3 once it is over, whatever came).
    bom: usize,
    /// The event being read: its fields but data, once a field was seen.
    event: Option<Sse>,
    /// Its data, through a spill pass.
    data: Option<Pass>,
    /// Its size so far.
    size: usize,
    /// Skip an event that cannot be read instead of failing (a stream that answers no one call).
    skip_unreadable: bool,
    /// The event being read is skipped (until the empty line that ends it).
    skipping: bool,
    /// The line being read has bytes (while skipping, an empty line ends the event).
    line_has_bytes: bool,
    ready: VecDeque<Sse>,
}

#[derive(Clone, Copy, PartialEq)]
enum LineKind {
    /// Fewer bytes than `data:` so far, all of them a prefix of it.
    Unknown,
    /// A `data:` line: its value goes to the event's pass.
    Data,
    /// Starts with `:`.
    Comment,
    /// Any other field (or `data` without a colon).
    Field,
}

impl EventReader {
    fn new(spill: Arc<dyn MessageSpill>, table: SpillTable, max_event: usize) -> Self {
        Self {
            spill,
            table,
            max_event,
            kind: LineKind::Unknown,
            line: Vec::new(),
            value_starts: false,
            after_cr: false,
            bom: 0,
            event: None,
            data: None,
            size: 0,
            skip_unreadable: false,
            skipping: false,
            line_has_bytes: false,
            ready: VecDeque::new(),
        }
    }

    /// Skips the events it cannot read (logging why) instead of failing.
    fn skipping_unreadable(mut self) -> Self {
        self.skip_unreadable = true;
        self
    }

    fn feed(&mut self, mut bytes: &[u8]) -> Result<(), SseError> {
        if self.bom < BOM.len() {
            // The stream may start with a BOM, which may come split.
            while self.bom < BOM.len() && bytes.first() == Some(&BOM[self.bom]) {
                self.bom += 1;
                bytes = &bytes[1..];
            }
            if bytes.is_empty() && self.bom < BOM.len() {
                return Ok(());
            }
            let partial = self.bom;
            self.bom = BOM.len();
            if partial < BOM.len() && partial > 0 {
                // Not a BOM after all: those bytes start the first line.
                self.feed(&BOM[..partial])?;
            }
        }
        while !bytes.is_empty() {
            if std::mem::take(&mut self.after_cr) && bytes[0] == b'\n' {
                bytes = &bytes[1..];
                continue;
            }
            let end = bytes.iter().position(|&b| b == b'\n' || b == b'\r');
            let part = &bytes[..end.unwrap_or(bytes.len())];
            self.line_has_bytes |= !part.is_empty();
            if !self.skipping {
                self.size += part.len();
                let read = if self.size > self.max_event { Err(PassError::TooLarge(self.max_event).into_sse()) } else { self.read(part) };
                if let Err(e) = read {
                    self.unreadable(e)?;
                }
            }
            let Some(end) = end else { break };
            self.after_cr = bytes[end] == b'\r';
            let blank = !self.line_has_bytes;
            if let Err(e) = self.end_line() {
                self.unreadable(e)?;
                // An event that could not be finished is over: nothing of it is left to skip.
                self.skipping &= !blank;
            }
            bytes = &bytes[end + 1..];
        }
        Ok(())
    }

    /// An event that cannot be read: an error, or (skipping unreadable events) the rest of the
    /// event is skipped.
    fn unreadable(&mut self, error: SseError) -> Result<(), SseError> {
        if !self.skip_unreadable {
            return Err(error);
        }
        tracing::warn!("skipped an event of the server's stream: {error}");
        self.data = None;
        self.event = None;
        self.line.clear();
        self.kind = LineKind::Unknown;
        self.skipping = true;
        Ok(())
    }

    /// Bytes of the line being read.
    fn read(&mut self, mut part: &[u8]) -> Result<(), SseError> {
        loop {
            match self.kind {
                LineKind::Data => {
                    if self.value_starts && !part.is_empty() {
                        self.value_starts = false;
                        part = part.strip_prefix(b" ").unwrap_or(part);
                    }
                    return match &mut self.data {
                        Some(pass) => pass.feed(part).map_err(PassError::into_sse),
                        None => Ok(()),
                    };
                }
                LineKind::Comment => return Ok(()),
                LineKind::Field => {
                    if self.line.len() + part.len() > MAX_FIELD_LINE {
                        return Err(SseError::Body(format!("a line of the event stream that is not data is longer than {MAX_FIELD_LINE} bytes").into()));
                    }
                    self.line.extend_from_slice(part);
                    return Ok(());
                }
                LineKind::Unknown => {
                    let take = (DATA.len() - self.line.len()).min(part.len());
                    self.line.extend_from_slice(&part[..take]);
                    part = &part[take..];
                    if self.line.first() == Some(&b':') {
                        self.kind = LineKind::Comment;
                    } else if self.line == DATA {
                        self.line.clear();
                        self.kind = LineKind::Data;
                        self.value_starts = true;
                        self.data_line()?;
                    } else if DATA.starts_with(&self.line) {
                        return Ok(()); // all of `part` taken: more is needed to tell
                    } else {
                        self.kind = LineKind::Field;
                    }
                }
            }
        }
    }

    /// A `data` line starts: the event's data gets a pass, or an LF before this line's value.
    fn data_line(&mut self) -> Result<(), SseError> {
        self.event.get_or_insert_default();
        match &mut self.data {
            Some(pass) => pass.feed(b"\n").map_err(PassError::into_sse),
            None => {
                self.data = Some(Pass::new(self.spill.start(), usize::MAX));
                Ok(())
            }
        }
    }

    fn end_line(&mut self) -> Result<(), SseError> {
        let kind = std::mem::replace(&mut self.kind, LineKind::Unknown);
        let line = std::mem::take(&mut self.line);
        let had_bytes = std::mem::take(&mut self.line_has_bytes);
        if self.skipping {
            // The empty line that ends the skipped event.
            self.skipping = had_bytes;
            self.size = 0;
            return Ok(());
        }
        if matches!(kind, LineKind::Data | LineKind::Comment) {
            return Ok(());
        }
        if line.is_empty() {
            return self.dispatch();
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => (&line[..colon], line[colon + 1..].strip_prefix(b" ").unwrap_or(&line[colon + 1..])),
            None => (&line[..], &b""[..]),
        };
        let text = || std::str::from_utf8(value).map(str::to_owned).map_err(SseError::Utf8Parse);
        match name {
            b"data" => self.data_line()?,
            b"event" => self.event.get_or_insert_default().event = Some(text()?),
            b"id" if !value.contains(&0) => self.event.get_or_insert_default().id = Some(text()?),
            b"retry" => {
                if let Ok(retry) = text()?.parse() {
                    self.event.get_or_insert_default().retry = Some(retry);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// An empty line: the event, if any field was seen, is ready.
    fn dispatch(&mut self) -> Result<(), SseError> {
        self.size = 0;
        let Some(mut event) = self.event.take() else { return Ok(()) };
        if let Some(pass) = self.data.take() {
            let data = pass.finish(&self.table).map_err(PassError::into_sse)?;
            event.data = Some(String::from_utf8(data).map_err(|e| SseError::Utf8Parse(e.utf8_error()))?);
        }
        self.ready.push_back(event);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
