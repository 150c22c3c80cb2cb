use std::{
    io::{Read as _, Write as _},
    sync::Mutex,
};

use rmcp::model::NumberOrString;
use serde_json::json;

use super::*;
use crate::transport::spill::testing::{big, spilled};

/// The store the tests spill into (one for the binary; each run gets its own file).
fn store() -> Arc<ArtifactStore> {
    static STORE: std::sync::LazyLock<(tempfile::TempDir, Arc<ArtifactStore>)> = std::sync::LazyLock::new(crate::transport::spill::testing::store);
    STORE.1.clone()
}

/// `text` with each `BIG` a base64 run long enough to be spilled.
fn grown(text: &str) -> String {
    text.replace("BIG", &big())
}

fn reader(table: &SpillTable, max_event: usize) -> EventReader {
    EventReader::new(store(), table.clone(), max_event)
}

/// What `sse_stream` (the library rmcp reads events with) makes of `bytes`.
fn library_events(bytes: &[u8]) -> Vec<Sse> {
    let body = futures::stream::iter(vec![Ok::<_, std::io::Error>(bytes::Bytes::copy_from_slice(bytes))]);
    futures::executor::block_on(sse_stream::SseStream::from_bytes_stream(body).map(|event| event.expect("the library reads the sample")).collect())
}

/// A stream with what servers send: a BOM, a comment, a priming event (id and retry, empty data),
/// named events, data over two lines, CRLF, LF and CR line ends, an event of an id alone.
const SAMPLE: &str = concat!(
    "\u{FEFF}: keep-alive\r\n",
    "id: 1\r\nretry: 1500\r\ndata:\r\n\r\n",
    "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\nid: 2\n\n",
    "data: {\"a\":\r\ndata:  1}\r\r",
    "id: 3\n\n",
);

#[test]
fn events_are_read_as_the_library_reads_them_however_the_bytes_are_split() {
    // The sample, and a stream whose BOM is right before its first field.
    for (sample, count) in [(SAMPLE, 4), ("\u{FEFF}id: 0\ndata: {}\n\n", 1)] {
        let bytes = sample.as_bytes();
        let expected = library_events(bytes);
        assert_eq!(expected.len(), count, "{expected:?}");
        for split in 0..=bytes.len() {
            let mut reader = reader(&SpillTable::default(), 1 << 20);
            reader.feed(&bytes[..split]).unwrap();
            reader.feed(&bytes[split..]).unwrap();
            assert_eq!(Vec::from(std::mem::take(&mut reader.ready)), expected, "split at {split}");
        }
        let mut reader = reader(&SpillTable::default(), 1 << 20);
        for byte in bytes {
            reader.feed(std::slice::from_ref(byte)).unwrap();
        }
        assert_eq!(Vec::from(reader.ready), expected, "byte by byte");
    }
}

#[test]
fn a_field_line_without_a_colon_is_that_field_empty_as_the_standard_says() {
    let mut reader = reader(&SpillTable::default(), 1 << 20);
    reader.feed(b"data\ndata: x\n\nevent\n: comment\n\n").unwrap();
    let events = Vec::from(reader.ready);
    assert_eq!(events[0].data.as_deref(), Some("\nx"));
    assert_eq!(events[1], Sse { event: Some(String::new()), ..Sse::default() });
}

#[test]
fn only_the_answer_to_the_call_keeps_its_runs_spilled_in_an_event_stream() {
    let table = SpillTable::default();
    table.call_sent(NumberOrString::Number(4));
    let mut reader = reader(&table, 1 << 20);
    let stream = concat!(
        "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"BIG\"}}\n\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"BIG\"}}],\"maxTokens\":5}}\n\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"BIG\"}]}}\n\n",
    );
    reader.feed(grown(stream).as_bytes()).unwrap();
    let data: Vec<String> = reader.ready.into_iter().map(|e| e.data.unwrap()).collect();
    assert!(data[0].contains(&big()) && !spilled(&data[0]), "a notification gets its runs back: {}", data[0]);
    assert!(data[1].contains(&big()), "a request of the server's gets them back: {}", data[1]);
    assert!(spilled(&data[2]), "the call's answer (2026-07-28: `resultType: complete`) stays small: {}", data[2]);
    for message in &data {
        serde_json::from_str::<ServerJsonRpcMessage>(message).unwrap_or_else(|e| panic!("rmcp can read {message}: {e}"));
    }
    assert!(table.take(&NumberOrString::Number(4)).is_some(), "its runs wait for the call");
    assert!(table.is_empty());
}

/// An unreadable event answers the call with an error after the events read before it, and
/// ends the stream (rmcp would resume it outside the spill and get the same event again).
#[tokio::test]
async fn an_event_that_cannot_be_read_answers_the_call_with_an_error() {
    let table = SpillTable::default();
    table.call_sent(NumberOrString::Number(5));
    let chunks = vec![
        Ok(bytes::Bytes::from_static(b"id: 1\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\ndata: 0123456789")),
        Ok(bytes::Bytes::from("0123456789".repeat(20) + "\n\n")),
        Ok(bytes::Bytes::from_static(b"data: {}\n\n")),
    ];
    let stream = events(futures::stream::iter(chunks), reader(&table, 120), Some(NumberOrString::Number(5)));
    let events: Vec<Result<Sse, SseError>> = stream.collect().await;
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0].as_ref().unwrap().id.as_deref(), Some("1"));
    let answer: ServerJsonRpcMessage = serde_json::from_str(events[2].as_ref().unwrap().data.as_deref().unwrap()).unwrap();
    let JsonRpcMessage::Error(error) = answer else { panic!("an error answer: {answer:?}") };
    assert_eq!(error.id, Some(NumberOrString::Number(5)));
    assert!(error.error.message.contains("larger than the limit of 120 bytes"), "{}", error.error.message);
}

#[test]
fn an_event_over_the_limit_is_an_error_and_the_limit_is_per_event() {
    let mut reader = reader(&SpillTable::default(), 40);
    reader.feed(b"data: 0123456789012345678901234567890\n\n").unwrap();
    reader.feed(b"data: 0123456789012345678901234567890\n\n").unwrap();
    assert_eq!(reader.ready.len(), 2, "two events under the limit, together over it");
    let error = reader.feed(b"data: 0123456789012345678901234567890123456789\n\n").unwrap_err();
    assert!(error.to_string().contains("larger than the limit of 40 bytes"), "{error}");
}

// The request and the response around the body, against a local server.

/// Serves `responses` (raw HTTP), one per connection, in order; returns the URL and the requests
/// it got (head and body).
fn serve(responses: Vec<String>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    std::thread::spawn(move || {
        for response in responses {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                let n = stream.read(&mut buffer).unwrap();
                request.extend_from_slice(&buffer[..n]);
                let text = String::from_utf8_lossy(&request).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap())).unwrap_or(0);
                    if request.len() >= end + 4 + length || n == 0 {
                        break;
                    }
                }
            }
            seen.lock().unwrap().push(String::from_utf8_lossy(&request).to_string());
            stream.write_all(response.as_bytes()).unwrap();
        }
    });
    (url, requests)
}

fn response(status: &str, headers: &[&str], body: &str) -> String {
    let body = grown(body);
    let mut head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    format!("{head}\r\n{body}")
}

fn call(id: i64) -> ClientJsonRpcMessage {
    serde_json::from_value(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "t", "arguments": {}}})).unwrap()
}

async fn post(url: &str, table: &SpillTable, message: ClientJsonRpcMessage) -> Result<StreamableHttpPostResponse, HttpError> {
    let client = SpillingHttp::new(reqwest::Client::new(), Some((store(), table.clone())));
    let headers = HashMap::from([(HeaderName::from_static("x-extra"), HeaderValue::from_static("yes"))]);
    client.post_message_with_response_limits(url.into(), message, Some("session-1".into()), Some("token-1".into()), headers, StreamableHttpResponseLimits::default()).await
}

fn text_of(message: &ServerJsonRpcMessage) -> String {
    serde_json::to_string(message).unwrap()
}

#[tokio::test]
async fn a_json_answer_to_a_call_is_read_through_the_spill_and_the_request_is_rmcps() {
    let answer = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"BIG"}]}}"#;
    let (url, requests) = serve(vec![response("200 OK", &["Content-Type: application/json; charset=utf-8", "Mcp-Session-Id: session-1"], answer)]);
    let table = SpillTable::default();
    let Ok(StreamableHttpPostResponse::Json(message, session)) = post(&url, &table, call(7)).await else { panic!("a JSON answer") };
    assert!(spilled(&text_of(&message)), "{}", text_of(&message));
    assert_eq!(session.as_deref(), Some("session-1"));
    assert!(table.take(&NumberOrString::Number(7)).is_some(), "its runs wait for the call");
    assert!(table.is_idle(), "and the call no longer waits");
    let request = requests.lock().unwrap()[0].to_ascii_lowercase();
    for expected in ["post /mcp ", "authorization: bearer token-1", "mcp-session-id: session-1", "x-extra: yes", "accept: text/event-stream, application/json", "content-type: application/json", "\"method\":\"tools/call\""] {
        assert!(request.contains(expected), "{expected} in {request}");
    }
}

#[tokio::test]
async fn an_event_stream_answer_to_a_call_is_read_through_the_spill() {
    let body = concat!(
        "id: 1\ndata:\n\n",
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"BIG\"}}\n\n",
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"BIG\"}]}}\n\n",
    );
    let (url, _) = serve(vec![response("200 OK", &["Content-Type: text/event-stream"], body)]);
    let table = SpillTable::default();
    let Ok(StreamableHttpPostResponse::Sse(stream, _)) = post(&url, &table, call(8)).await else { panic!("an event stream") };
    let events: Vec<Sse> = stream.map(|e| e.unwrap()).collect().await;
    assert_eq!(events.len(), 3);
    assert_eq!((events[0].id.as_deref(), events[0].data.as_deref()), (Some("1"), Some("")), "the priming event");
    assert!(events[1].data.as_deref().unwrap().contains(&big()));
    assert!(spilled(events[2].data.as_deref().unwrap()));
    assert!(table.take(&NumberOrString::Number(8)).is_some());
    assert!(table.is_idle());
}

#[tokio::test]
async fn around_the_body_a_call_is_answered_as_rmcps_client_answers_it() {
    let rpc_error = r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32000,"message":"the tool broke"}}"#;
    let (url, _) = serve(vec![
        response("401 Unauthorized", &[r#"WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource""#], ""),
        response("403 Forbidden", &[r#"WWW-Authenticate: Bearer error="insufficient_scope", scope="notes:write""#], ""),
        response("404 Not Found", &[], "gone"),
        response("500 Internal Server Error", &["Content-Type: application/json"], rpc_error),
        response("503 Service Unavailable", &["Retry-After: 7", "Content-Type: text/plain"], "busy"),
        response("202 Accepted", &[], ""),
        response("200 OK", &["Content-Type: text/plain"], "hello"),
        response("400 Bad Request", &["Content-Type: text/plain"], "no such thing"),
        response("401 Unauthorized", &["Content-Type: application/json"], rpc_error),
        response("503 Service Unavailable", &["Retry-After: 3", "Content-Type: application/json"], "{\"busy\": true}"),
    ]);
    let table = SpillTable::default();
    let outcome = |r: Result<StreamableHttpPostResponse, HttpError>| match r {
        Ok(StreamableHttpPostResponse::Json(message, _)) => format!("json {}", text_of(&message)),
        Ok(other) => format!("{other:?}"),
        Err(StreamableHttpError::AuthRequired(e)) => format!("auth required: {}", e.www_authenticate_header),
        Err(StreamableHttpError::InsufficientScope(e)) => format!("insufficient scope: {:?}", e.required_scope),
        Err(StreamableHttpError::HttpStatus(e)) => format!("status {} retry {:?}", e.status, e.retry_after),
        Err(e) => e.to_string(),
    };
    let mut outcomes = Vec::new();
    for id in 0..10 {
        outcomes.push(outcome(post(&url, &table, call(id)).await));
    }
    assert!(outcomes[0].starts_with("auth required: Bearer resource_metadata="), "{}", outcomes[0]);
    assert_eq!(outcomes[1], r#"insufficient scope: Some("notes:write")"#);
    assert_eq!(outcomes[2], "Session expired (HTTP 404)");
    assert!(outcomes[3].starts_with("json ") && outcomes[3].contains("the tool broke"), "{}", outcomes[3]);
    assert_eq!(outcomes[4], r#"status 503 retry Some("7")"#);
    assert_eq!(outcomes[5], "Accepted");
    assert!(outcomes[6].contains("text/plain"), "{}", outcomes[6]);
    assert!(outcomes[7].contains("HTTP 400 Bad Request: no such thing"), "{}", outcomes[7]);
    assert!(outcomes[8].contains("HTTP 401 Unauthorized"), "a 401 without a challenge keeps its status: {}", outcomes[8]);
    assert_eq!(outcomes[9], r#"status 503 retry Some("3")"#, "a JSON body that is no JSON-RPC error");
    assert!(table.is_empty());
}

#[tokio::test]
async fn other_requests_are_left_to_rmcp_and_not_spilled() {
    let answer = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"BIG","inputSchema":{"type":"object"}}]}}"#;
    let (url, _) = serve(vec![response("200 OK", &["Content-Type: application/json"], answer)]);
    let table = SpillTable::default();
    let list = serde_json::from_value::<ClientJsonRpcMessage>(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}})).unwrap();
    let Ok(StreamableHttpPostResponse::Json(message, _)) = post(&url, &table, list).await else { panic!("a JSON answer") };
    assert!(text_of(&message).contains(&big()));
    assert!(table.is_empty());
}

/// A server may close a call's stream after its first event and answer on the stream resumed
/// with `Last-Event-ID`: that answer is read through the spill too.
#[tokio::test]
async fn an_answer_on_a_resumed_stream_is_read_through_the_spill() {
    let body = "id: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"BIG\"}]}}\n\n";
    let (url, requests) = serve(vec![response("200 OK", &["Content-Type: text/event-stream"], body), response("405 Method Not Allowed", &[], "")]);
    let table = SpillTable::default();
    table.call_sent(NumberOrString::Number(11));
    let client = SpillingHttp::new(reqwest::Client::new(), Some((store(), table.clone())));
    let stream = client.get_stream_with_max_sse_event_size(url.as_str().into(), Some("session-1".into()), Some("1".into()), Some("token-1".into()), HashMap::new(), 1 << 20).await.unwrap();
    let events: Vec<Sse> = stream.map(|e| e.unwrap()).collect().await;
    assert!(spilled(events[0].data.as_deref().unwrap()), "{events:?}");
    assert!(table.take(&NumberOrString::Number(11)).is_some());
    let request = requests.lock().unwrap()[0].to_ascii_lowercase();
    for expected in ["get /mcp ", "last-event-id: 1", "mcp-session-id: session-1", "authorization: bearer token-1"] {
        assert!(request.contains(expected), "{expected} in {request}");
    }
    let refused = client.get_stream_with_max_sse_event_size(url.as_str().into(), None, None, None, HashMap::new(), 1 << 20).await;
    assert!(matches!(refused, Err(StreamableHttpError::ServerDoesNotSupportSse)), "405: the server has no stream of its own");
}

/// Redirects as rmcp's own client takes them: a same-origin 307 is followed with the message; a
/// 302, or a redirect to another origin, is not — the other origin never sees the session id or
/// the configured headers.
#[tokio::test]
async fn only_same_origin_redirects_that_keep_the_message_are_followed() {
    let (elsewhere, seen_elsewhere) = serve(vec![response("200 OK", &["Content-Type: application/json"], r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#)]);
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
    let (url, seen) = serve(vec![
        response("307 Temporary Redirect", &["Location: /moved"], ""),
        response("200 OK", &["Content-Type: application/json"], answer),
        response("302 Found", &["Location: /moved"], ""),
        response("307 Temporary Redirect", &[&format!("Location: {elsewhere}")], ""),
    ]);
    let client = SpillingHttp::new(http_client(), None);
    let list = || serde_json::from_value::<ClientJsonRpcMessage>(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})).unwrap();
    let headers = || HashMap::from([(HeaderName::from_static("x-api-key"), HeaderValue::from_static("secret"))]);
    let followed = client.post_message_with_response_limits(url.as_str().into(), list(), Some("s".into()), None, headers(), StreamableHttpResponseLimits::default()).await;
    assert!(matches!(followed, Ok(StreamableHttpPostResponse::Json(..))), "{followed:?}");
    assert!(seen.lock().unwrap()[1].starts_with("POST /moved") && seen.lock().unwrap()[1].contains("tools/list"), "the 307 kept the method and the message");
    for what in ["a 302", "another origin"] {
        let stopped = client.post_message_with_response_limits(url.as_str().into(), list(), Some("s".into()), None, headers(), StreamableHttpResponseLimits::default()).await;
        assert!(stopped.is_err(), "{what}: {stopped:?}");
    }
    assert_eq!(seen.lock().unwrap().len(), 4, "nothing followed the 302");
    assert!(seen_elsewhere.lock().unwrap().is_empty(), "the other origin got nothing");
}

/// However large the piece of a `data:` line that comes in one chunk, it goes to the pass (only
/// other fields are capped); a long comment is dropped; a long other field is an error.
#[test]
fn only_lines_that_are_not_data_or_comments_are_capped() {
    let big = "7".repeat(100 << 10);
    let mut reader = reader(&SpillTable::default(), 1 << 20);
    reader.feed(format!(": {big}\ndata: {big}\n\n").as_bytes()).unwrap();
    let events = Vec::from(std::mem::take(&mut reader.ready));
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data.as_deref(), Some(big.as_str()));
    let error = reader.feed(format!("id: {big}\n\n").as_bytes()).unwrap_err();
    assert!(error.to_string().contains("not data is longer than"), "{error}");
}

/// On a stream that answers no one call (a GET), an event that cannot be read is skipped and the
/// next one is read: failing would have rmcp resume from the event before it, and get it again.
#[test]
fn a_get_stream_skips_an_event_it_cannot_read() {
    let mut reader = reader(&SpillTable::default(), 64).skipping_unreadable();
    let stream = format!("id: 1\ndata: {}\ndata: more\n\nid: 2\ndata: {{}}\n\n", "9".repeat(100));
    for split in [1, 7, 50, 90, stream.len()] {
        let (head, tail) = stream.as_bytes().split_at(split.min(stream.len()));
        reader.feed(head).unwrap();
        reader.feed(tail).unwrap();
        let events = Vec::from(std::mem::take(&mut reader.ready));
        assert_eq!(events.len(), 1, "split at {split}: {events:?}");
        assert_eq!((events[0].id.as_deref(), events[0].data.as_deref()), (Some("2"), Some("{}")), "split at {split}");
    }
}

/// A server may send a call's stream one priming event, close it, and answer on the stream rmcp
/// resumes with `Last-Event-ID`: the call still waits then, and its answer is spilled there.
#[tokio::test]
async fn a_call_whose_stream_closes_before_its_answer_still_has_it_spilled_on_the_resumed_stream() {
    let answer = "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"BIG\"}]}}\n\n";
    let (url, _) = serve(vec![response("200 OK", &["Content-Type: text/event-stream"], "id: 1\ndata:\n\n"), response("200 OK", &["Content-Type: text/event-stream"], answer)]);
    let table = SpillTable::default();
    let Ok(StreamableHttpPostResponse::Sse(stream, _)) = post(&url, &table, call(12)).await else { panic!("an event stream") };
    let primed: Vec<Sse> = stream.map(|e| e.unwrap()).collect().await;
    assert_eq!(primed.len(), 1, "the priming event, then the end of the stream");
    let client = SpillingHttp::new(reqwest::Client::new(), Some((store(), table.clone())));
    let resumed = client.get_stream_with_max_sse_event_size(url.as_str().into(), None, Some("1".into()), None, HashMap::new(), 1 << 20).await.unwrap();
    let events: Vec<Sse> = resumed.map(|e| e.unwrap()).collect().await;
    assert!(spilled(events[0].data.as_deref().unwrap()), "{events:?}");
    assert!(table.take(&NumberOrString::Number(12)).is_some());
    assert!(table.is_idle());
}
