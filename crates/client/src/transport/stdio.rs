//! The stdio transport to a server's child process: one JSON-RPC message per line, both ways.
//!
//! Written here instead of using rmcp's `AsyncRwTransport` because of what that one does with a
//! line it cannot read: it drops it (not JSON, nested deeper than serde_json's 128 levels, over
//! the size limit), and the call it answered then waits for its whole timeout and reports that
//! the server "did not answer". Here such a line still answers its request — with an error saying
//! what was wrong — as soon as it arrives:
//!
//! - the request id (and whether it is a request or a response) is found by [`IdScanner`], a
//!   streaming scan over the raw bytes that needs no parse and no depth, so it works on a line of
//!   any nesting, on a prefix, and on the bytes of an oversized line as they are discarded;
//! - a response (an id with a `result` or `error` key, no `method`) that cannot be read becomes a
//!   JSON-RPC error response for that id, delivered to the waiting call (`-32700` when it is not
//!   JSON, too deep or too large; `-32600` when it is JSON but not an MCP message);
//! - a request from the server that cannot be read is answered at once with `-32600` and its id;
//! - a notification, or a line with no id, is skipped, as rmcp and the other SDKs do.
//!
//! The connection stays open through all of it: the next message is read normally.
//!
//! With a store to spill into (the host gives its own), each line is read through the store's
//! [`Scanner`]: long base64 runs go to the store as they arrive and the line that is parsed is
//! small (see `spill.rs`).

use std::{borrow::Cow, future::Future, sync::Arc};

use rmcp::{
    model::{ErrorCode, ErrorData, NumberOrString, RequestId},
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
    RoleClient,
};
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

use mcp_canvas_store::{
    spill::{Scanner, Spills},
    ArtifactStore,
};

use super::spill::{SpillTable, Unsettled};

/// What the transport tells the server's log about lines it could not read.
pub(crate) type Complaint = Arc<dyn Fn(&str) + Send + Sync>;

/// rmcp [`Transport`] over a child's stdout (`R`) and stdin (`W`).
pub struct LineTransport<R, W> {
    read: R,
    write: Arc<tokio::sync::Mutex<Option<W>>>,
    max_line: usize,
    /// The line being read; kept across cancelled `receive` calls (rmcp polls it in a `select!`).
    line: Vec<u8>,
    /// Set while the rest of an oversized line is skipped; its scanner still looks for the id.
    oversized: Option<IdScanner>,
    complain: Complaint,
    /// Spilling, when the host asked for it: the pass over the line being read, its length so
    /// far, and where the runs of `tools/call` answers wait.
    spill: Option<(Arc<ArtifactStore>, SpillTable)>,
    spilling: Option<Scanner>,
    /// The id of the line being spilled, looked for beside the spill until found: if its runs
    /// cannot be stored, its request is still answered at once.
    spill_scan: IdScanner,
    /// Why the line being skipped could not be stored, when that is why.
    spill_failure: Option<mcp_canvas_store::StoreError>,
    line_len: usize,
    /// Why the line being skipped is skipped, when it is not its size.
    skip_reason: Option<String>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport over `read`/`write`, accepting lines up to `max_line` bytes; `complain` hears what could not be read.
    pub fn new(read: R, write: W, max_line: usize, complain: Complaint) -> Self {
        Self { read, write: Arc::new(tokio::sync::Mutex::new(Some(write))), max_line, line: Vec::new(), oversized: None, complain, spill: None, spilling: None, spill_scan: IdScanner::default(), spill_failure: None, line_len: 0, skip_reason: None }
    }

    /// Reads each line through a [`Scanner`] into `spill`; runs of `tools/call` answers wait in `table`.
    pub fn with_spill(mut self, spill: Arc<ArtifactStore>, table: SpillTable) -> Self {
        self.spill = Some((spill, table));
        self
    }

    /// Reads to the end of the current line. `Ok(true)`: a whole line is in `self.line` (or an
    /// oversized one has been skipped); `Ok(false)`: end of input.
    async fn read_line(&mut self) -> std::io::Result<bool> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                // A last message without its newline is still a message.
                return Ok(!self.line.is_empty() || self.oversized.is_some() || self.spilling.is_some());
            }
            let newline = memchr(available);
            let (chunk, done) = match newline {
                Some(newline) => (&available[..newline], newline + 1),
                None => (available, available.len()),
            };
            if let Some(scanner) = self.oversized.as_mut() {
                scanner.feed(chunk);
            } else if self.line_len + chunk.len() > self.max_line {
                self.oversized = Some(skipped(self.spilling.take(), std::mem::take(&mut self.line), chunk));
                self.spill_scan = IdScanner::default();
                (self.line_len, self.skip_reason) = (0, None);
            } else if let Some((spill, _)) = &self.spill {
                self.line_len += chunk.len();
                let spilling = self.spilling.get_or_insert_with(|| Scanner::new(spill.clone()));
                if !self.spill_scan.settled() {
                    self.spill_scan.feed(chunk);
                }
                if let Err(e) = spilling.feed(chunk) {
                    // The store cannot take the runs: this line cannot be read.
                    self.oversized = Some(skipped(self.spilling.take(), std::mem::take(&mut self.line), chunk));
                    self.spill_scan = IdScanner::default();
                    (self.line_len, self.skip_reason) = (0, Some(format!("its large parts could not be stored ({e})")));
                    self.spill_failure = Some(e);
                }
            } else {
                self.line_len += chunk.len();
                self.line.extend_from_slice(chunk);
            }
            self.read.consume(done);
            if newline.is_some() {
                return Ok(true);
            }
        }
    }

    /// A line whose runs were spilled: an answer to `tools/call` keeps them (for the call to
    /// take), any other message gets them back before it goes on.
    fn spilled_message(&mut self, line: &[u8], runs: Spills) -> Option<RxJsonRpcMessage<RoleClient>> {
        let table = self.spill.as_ref().map(|(_, table)| table.clone()).unwrap_or_default();
        let value = match table.settle(line, runs) {
            Ok(value) => value,
            Err(Unsettled::NotJson(e)) => {
                let mut scan = IdScanner::default();
                scan.feed(line);
                let problem = describe(&e, line);
                return self.unreadable(&scan, ErrorCode::PARSE_ERROR, problem);
            }
            Err(Unsettled::Unrestorable(e)) => {
                let mut scan = IdScanner::default();
                scan.feed(line);
                let problem = format!("its large parts could not be read back ({e})");
                self.failed_to_store(&scan, e);
                return self.unreadable(&scan, ErrorCode::INTERNAL_ERROR, problem);
            }
        };
        match serde_json::from_value::<RxJsonRpcMessage<RoleClient>>(value) {
            Ok(message) => Some(message),
            Err(e) => {
                let mut scan = IdScanner::default();
                scan.feed(line);
                self.unreadable(&scan, ErrorCode::INVALID_REQUEST, e.to_string())
            }
        }
    }

    /// An unreadable line: the error that answers it, when it has an id to answer.
    /// An answer whose large parts the store could not take: the call waiting for it learns the
    /// store's error from the table (its kind is storage), beside the error answer it gets.
    fn failed_to_store(&self, scan: &IdScanner, error: mcp_canvas_store::StoreError) {
        if let (Some(id), true, Some((_, table))) = (&scan.id, scan.answer, &self.spill) {
            table.failed(id, error);
        }
    }

    fn unreadable(&mut self, scan: &IdScanner, code: ErrorCode, problem: String) -> Option<RxJsonRpcMessage<RoleClient>> {
        match (&scan.id, &scan.method) {
            // A response we cannot read: the waiting call gets an error saying so, at once.
            (Some(id), None) if scan.answer => {
                (self.complain)(&format!("MCP Canvas could not read the server's answer to request {id}: {problem}"));
                let error = ErrorData::new(code, format!("MCP Canvas could not read the server's answer: {problem}"), None);
                Some(RxJsonRpcMessage::<RoleClient>::error(error, Some(id.clone())))
            }
            // A request we cannot read: tell the server, with its id.
            (Some(id), Some(method)) => {
                (self.complain)(&format!("MCP Canvas could not read the server's `{method}` request {id}: {problem}"));
                let reply = TxJsonRpcMessage::<RoleClient>::error(ErrorData::invalid_request(format!("MCP Canvas could not read this request: {problem}"), None), Some(id.clone()));
                tokio::spawn(self.send(reply));
                None
            }
            _ => {
                (self.complain)(&format!("MCP Canvas skipped a line from the server that it could not read: {problem}"));
                None
            }
        }
    }
}

impl<R, W> Transport<RoleClient> for LineTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "stdio".into()
    }

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let (Some((_, table)), rmcp::model::JsonRpcMessage::Request(request)) = (&self.spill, &item) {
            if matches!(request.request, rmcp::model::ClientRequest::CallToolRequest(_)) {
                table.call_sent(request.id.clone());
            }
        }
        let write = self.write.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            line.push(b'\n');
            let mut write = write.lock().await;
            let Some(write) = write.as_mut() else {
                return Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "the server's stdin is closed"));
            };
            write.write_all(&line).await?;
            write.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    (self.complain)(&format!("reading from the server failed: {e}"));
                    return None;
                }
            }
            if let Some(scan) = self.oversized.take() {
                if let Some(e) = self.spill_failure.take() {
                    self.failed_to_store(&scan, e);
                }
                let problem = self.skip_reason.take().unwrap_or_else(|| format!("the message is larger than the limit of {} bytes (`max_message_bytes` in servers.json)", self.max_line));
                match self.unreadable(&scan, ErrorCode::PARSE_ERROR, problem) {
                    Some(message) => return Some(message),
                    None => continue,
                }
            }
            self.line_len = 0;
            let (line, runs) = match self.spilling.take() {
                None => (std::mem::take(&mut self.line), None),
                Some(spilling) => {
                    let scan = std::mem::take(&mut self.spill_scan);
                    match spilling.finish() {
                        // Most lines have no run long enough: they are read as they are.
                        Ok((line, spills)) => (line, (!spills.is_empty()).then_some(spills)),
                        // Its request (when it is an answer or a request) is answered at once.
                        Err(e) => {
                            let problem = format!("its large parts could not be stored ({e})");
                            self.failed_to_store(&scan, e);
                            match self.unreadable(&scan, ErrorCode::INTERNAL_ERROR, problem) {
                                Some(message) => return Some(message),
                                None => continue,
                            }
                        }
                    }
                }
            };
            if let Some(runs) = runs {
                match self.spilled_message(&line, runs) {
                    Some(message) => return Some(message),
                    None => continue,
                }
            }
            let text = line.strip_suffix(b"\r").unwrap_or(&line);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(text) {
                Ok(message) => return Some(message),
                Err(e) => {
                    let mut scan = IdScanner::default();
                    scan.feed(text);
                    let problem = describe(&e, text);
                    let code = match e.classify() {
                        serde_json::error::Category::Data if !e.to_string().contains("recursion limit") => ErrorCode::INVALID_REQUEST,
                        _ => ErrorCode::PARSE_ERROR,
                    };
                    // A notification outside the standard set: rmcp skips these too.
                    if scan.id.is_none() && scan.method.is_some() && !e.to_string().contains("recursion limit") {
                        continue;
                    }
                    if let Some(message) = self.unreadable(&scan, code, problem) {
                        return Some(message);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(mut write) = self.write.lock().await.take() {
            let _ = write.shutdown().await;
        }
        Ok(())
    }
}

/// Giving up on a line (too long, or its runs cannot be stored): the scanner that skips the
/// rest while looking for its id, fed what was read so far — the spilled part with its runs
/// replaced, enough to find the id in.
fn skipped(spilling: Option<Scanner>, line: Vec<u8>, chunk: &[u8]) -> IdScanner {
    let mut scanner = IdScanner::default();
    if let Some(Ok((compact, _runs))) = spilling.map(|spilling| spilling.finish()) {
        scanner.feed(&compact);
    }
    scanner.feed(&line);
    scanner.feed(chunk);
    scanner
}

/// What was wrong with a line, for a person.
fn describe(error: &serde_json::Error, text: &[u8]) -> String {
    let detail = error.to_string();
    if detail.contains("recursion limit") {
        return format!("it is nested more than 128 levels deep ({detail})");
    }
    match error.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => format!("it is not valid JSON ({detail}; {} bytes)", text.len()),
        _ => format!("it is not a valid MCP message ({detail})"),
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

/// Finds a JSON-RPC message's top-level `id` and `method` in raw bytes, fed in pieces, without
/// parsing (and so without a depth limit): strings and nesting are tracked, nothing else.
#[derive(Debug, Default)]
pub struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The string being read at depth 1 (a key or a value), capped.
    string: Option<Vec<u8>>,
    /// The last string at depth 1 that may be a key.
    key: Option<Vec<u8>>,
    /// After `:` at depth 1: the key whose value comes next.
    value_of: Option<Vec<u8>>,
    /// A number (or other bare word) being read as the value of `value_of`.
    bare: Vec<u8>,
    /// The `id` found, if any.
    pub id: Option<RequestId>,
    /// The `method` found, if any.
    pub method: Option<String>,
    /// A top-level `result` or `error` key was seen: the message is a response.
    pub answer: bool,
}

const CAPTURE: usize = 256;

impl IdScanner {
    /// Whether what `unreadable` needs is known: the id, and whether it is a request or an answer.
    fn settled(&self) -> bool {
        self.id.is_some() && (self.method.is_some() || self.answer)
    }
}

impl IdScanner {
    /// Scans more bytes of the message.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if let Some(string) = self.string.take() {
                        self.string_ended(string);
                    }
                    continue;
                }
                // One byte past the cap marks a string too long to use.
                if let Some(string) = self.string.as_mut().filter(|s| s.len() <= CAPTURE) {
                    string.push(b);
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.string = (self.depth == 1).then(Vec::new);
                }
                b'{' | b'[' => {
                    if self.depth == 1 {
                        self.value_of = None;
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    if self.depth == 1 {
                        self.bare_ended();
                    }
                    self.depth = self.depth.saturating_sub(1);
                }
                b':' if self.depth == 1 => self.value_of = self.key.take(),
                b',' if self.depth == 1 => self.bare_ended(),
                b' ' | b'\t' | b'\r' | b'\n' => {}
                _ if self.depth == 1 && self.value_of.is_some() && self.bare.len() < 64 => self.bare.push(b),
                _ => {}
            }
        }
    }

    fn string_ended(&mut self, raw: Vec<u8>) {
        // The raw bytes between the quotes, escapes and all: JSON decodes them (a string cut at
        // the cap is no use as an id).
        let decoded = || (raw.len() <= CAPTURE).then(|| serde_json::from_slice::<String>(&[b"\"", &raw[..], b"\""].concat()).ok()).flatten();
        match self.value_of.take() {
            Some(key) if key == b"id" => self.id = decoded().map(|id| NumberOrString::String(id.into())),
            Some(key) if key == b"method" => self.method = decoded(),
            Some(_) => {}
            None => {
                self.answer |= raw == b"result" || raw == b"error";
                self.key = Some(raw);
            }
        }
    }

    fn bare_ended(&mut self) {
        if let Some(key) = self.value_of.take() {
            if key == b"id" {
                if let Ok(Value::Number(n)) = serde_json::from_slice::<Value>(&self.bare) {
                    if let Some(n) = n.as_i64() {
                        self.id = Some(NumberOrString::Number(n));
                    }
                }
            }
        }
        self.bare.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::spill::testing::{big, spilled, store};

    fn scan(text: &str) -> IdScanner {
        let mut scanner = IdScanner::default();
        // Fed in small pieces: ids split across chunks are found too.
        for chunk in text.as_bytes().chunks(3) {
            scanner.feed(chunk);
        }
        scanner
    }

    #[test]
    fn the_id_is_found_at_any_place_and_any_depth() {
        let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
        let response = format!(r#"{{"result":{{"structuredContent":{deep},"id":"inner"}},"jsonrpc":"2.0","id":17}}"#);
        let found = scan(&response);
        assert_eq!(found.id, Some(NumberOrString::Number(17)));
        assert_eq!(found.method, None);
        assert!(found.answer, "a `result` key makes it an answer");

        let request = r#"{"jsonrpc":"2.0","id":"a\"b","method":"sampling/createMessage","params":{"id":3,"method":"x"}}"#;
        let found = scan(request);
        assert_eq!(found.id, Some(NumberOrString::String("a\"b".into())), "escapes are decoded");
        assert!(!found.answer, "a request is no answer");
        assert_eq!(found.method.as_deref(), Some("sampling/createMessage"));

        let truncated = r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"unterminated"#;
        assert_eq!(scan(truncated).id, Some(NumberOrString::Number(9)), "a prefix is enough when the id comes first");
        assert_eq!(scan("not json at all").id, None);
        assert_eq!(scan(r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"id":1}}"#).id, None, "nested ids are not the message's");
    }

    #[tokio::test]
    async fn only_the_answer_to_a_tool_call_keeps_its_runs_spilled() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(ours);
        let table = SpillTable::default();
        let (_dir, store) = store();
        let mut transport = LineTransport::new(tokio::io::BufReader::new(read), write, 1 << 20, Arc::new(|_: &str| {})).with_spill(store, table.clone());
        let (mut server_read, mut server_write) = tokio::io::split(theirs);

        for id in [4, 5, 6] {
            let call = serde_json::from_value::<TxJsonRpcMessage<RoleClient>>(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "t", "arguments": {}}})).unwrap();
            transport.send(call).await.unwrap();
        }
        let mut sent = Vec::new();
        while sent.iter().filter(|&&b| b == b'\n').count() < 3 {
            let mut buffer = vec![0u8; 4096];
            let n = tokio::io::AsyncReadExt::read(&mut server_read, &mut buffer).await.unwrap();
            sent.extend_from_slice(&buffer[..n]);
        }
        assert!(String::from_utf8_lossy(&sent).contains("tools/call"));

        // A request of the server's, then an answer to another id, then the calls' answers: a
        // final one before 2026-07-28, a final one of 2026-07-28 (`resultType: complete`), and
        // an `input_required` round.
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"BIG"}}],"maxTokens":5}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"BIG"}]}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"BIG"}]}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[{"type":"text","text":"BIG"}]}}"#,
            r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"input_required","content":[{"type":"text","text":"BIG"}]}}"#,
        ];
        // Written by a task of its own: five grown lines are more than the pipe holds.
        let writer = tokio::spawn(async move {
            for line in lines {
                server_write.write_all(format!("{}\n", line.replace("BIG", &big())).as_bytes()).await.unwrap();
            }
            server_write
        });
        let texts: Vec<String> = futures_text(&mut transport, 5).await;
        drop(writer.await.unwrap());
        assert!(texts[0].contains(&big()) && !spilled(&texts[0]), "a request gets its runs back: {}", texts[0]);
        assert!(texts[1].contains(&big()), "an answer to something else gets them back: {}", texts[1]);
        assert!(spilled(&texts[2]), "the call's answer keeps them: {}", texts[2]);
        assert!(spilled(&texts[3]), "so does a final answer of 2026-07-28: {}", texts[3]);
        assert!(texts[4].contains(&big()) && !spilled(&texts[4]), "an input_required round gets them back: {}", texts[4]);
        assert!(table.take(&NumberOrString::Number(4)).is_some(), "and they wait for the call");
        assert!(table.take(&NumberOrString::Number(4)).is_none(), "once");
        assert!(table.take(&NumberOrString::Number(5)).is_some());
        assert!(table.is_empty(), "the others were not kept");
    }

    async fn futures_text<R, W>(transport: &mut LineTransport<R, W>, n: usize) -> Vec<String>
    where
        R: AsyncBufRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let mut out = Vec::new();
        for _ in 0..n {
            let message = transport.receive().await.expect("a message");
            out.push(serde_json::to_string(&message).unwrap());
        }
        out
    }

    #[tokio::test]
    async fn an_answer_the_store_cannot_take_answers_its_call_with_the_reason() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(ours);
        // A store whose temp dir is gone: no run can be written there (as when its disk is full).
        let (dir, store) = store();
        std::fs::remove_dir_all(dir.path().join("artifacts").join("tmp")).unwrap();
        let table = SpillTable::default();
        table.call_sent(NumberOrString::Number(4));
        let mut transport = LineTransport::new(tokio::io::BufReader::new(read), write, 1 << 20, Arc::new(|_: &str| {})).with_spill(store, table.clone());
        let (_server_read, mut server_write) = tokio::io::split(theirs);
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}\n", big());
        tokio::spawn(async move { server_write.write_all(line.as_bytes()).await.unwrap() });
        let message = serde_json::to_value(transport.receive().await.expect("an answer")).unwrap();
        assert_eq!(message["id"], 4, "{message}");
        let text = message["error"]["message"].as_str().unwrap_or_default();
        assert!(text.contains("could not be stored") && text.contains("creating"), "{message}");
        let failure = table.take_failure(&NumberOrString::Number(4)).expect("the call learns the store's error");
        assert!(matches!(failure, mcp_canvas_store::StoreError::Io { action: "creating", .. }), "{failure:?}");
    }
}