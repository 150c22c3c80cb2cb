//! The protocol view's record of one server's JSON-RPC messages, both ways ([`ProtocolLog`]).
//!
//! Each message becomes a [`ProtocolEntry`]: when, which way, its method, id and size, the
//! latency of an answer, and the call it belongs to (the id of the request it answers or
//! reports progress on). Its text is made safe to keep and show before it is kept:
//!
//! - values of secret-looking keys are redacted (the audit log's rule, `mcp_canvas_config::redact`);
//! - every base64 run of [`MIN_RUN`] characters or more becomes a short note with its size and the
//!   artifact id its bytes are stored under (`<server>_<sha256[..12]>`), so a 100 MB image is a
//!   line, not 100 MB;
//! - what is left is cut at [`MAX_TEXT`] bytes.
//!
//! The record is bounded ([`MAX_ENTRIES`] entries, [`MAX_BYTES`] bytes of text): the oldest go
//! first, and the log counts what it dropped. With a trace file ([`TraceFile`], the CLI's
//! `--trace FILE`) every entry is also appended to it as one JSON line.

use std::{
    collections::{HashMap, VecDeque},
    io::Write,
    sync::{Arc, Mutex},
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use ts_rs::TS;

/// Base64 runs at least this long are replaced by a note.
pub const MIN_RUN: usize = 512;
/// An entry's text is cut at this many bytes.
pub const MAX_TEXT: usize = 64 * 1024;
/// At most this many entries are kept per server.
pub const MAX_ENTRIES: usize = 5000;
/// At most this many bytes of entry text are kept per server.
pub const MAX_BYTES: usize = 16 * 1024 * 1024;
/// What marks a base64 run the host took out of a message while reading it (its spill: the
/// store's `spill::TAG`), so the note can say so instead of hashing the marker.
pub const SPILL_TAG: &str = mcp_canvas_store::spill::TAG;
/// Entries a page holds when its filter gives no `limit`.
pub const DEFAULT_PAGE: u32 = 500;
/// Requests remembered for latency and call grouping (older ones are forgotten).
const MAX_PENDING: usize = 4096;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Direction {
    /// From MCP Canvas to the server.
    Sent,
    /// From the server to MCP Canvas.
    Received,
}

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum MessageKind {
    /// A request (has a method and an id).
    Request,
    /// A notification (a method, no id).
    Notification,
    /// A result for a request.
    Response,
    /// An error for a request.
    Error,
    /// Not a JSON-RPC message we know.
    Other,
}

/// One message as the protocol view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ProtocolEntry {
    /// Its number in this server's log (from 1, never reused).
    #[ts(type = "number")]
    pub seq: u64,
    /// When, in milliseconds since the epoch.
    #[ts(type = "number")]
    pub at_ms: i64,
    /// Which way.
    pub direction: Direction,
    /// What it is.
    pub kind: MessageKind,
    /// Its method; for a response, the method of the request it answers.
    pub method: Option<String>,
    /// Its JSON-RPC id, as text.
    pub id: Option<String>,
    /// The call it belongs to: the id of the request it is, answers, reports progress on or
    /// cancels.
    pub call: Option<String>,
    /// Its size on the wire (serialized JSON), in bytes.
    #[ts(type = "number")]
    pub bytes: u64,
    /// For a response or error: how long after its request it came, in milliseconds.
    #[ts(type = "number | null")]
    pub latency_ms: Option<u64>,
    /// The message, redacted, base64 runs replaced by notes, cut at [`MAX_TEXT`].
    pub text: String,
    /// How many base64 runs were replaced by notes.
    pub runs: u32,
    /// Whether `text` was cut.
    pub cut: bool,
}

/// A page of a server's log: the oldest entries after the asked-for `seq`, so a reader that asks
/// again after [`ProtocolPage::through_seq`] until [`ProtocolPage::more`] is false has read every
/// entry the log still held, in order, however many came between two of its reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ProtocolPage {
    /// The server.
    pub server: String,
    /// The entries after the asked-for `seq` that match the filters, oldest first, at most the
    /// asked-for `limit`.
    pub entries: Vec<ProtocolEntry>,
    /// How far this page read: ask for entries after it next time (past the last entry returned,
    /// and past the entries the filters left out).
    #[ts(type = "number")]
    pub through_seq: u64,
    /// Whether entries after `through_seq` are waiting: the page was full; ask again at once.
    pub more: bool,
    /// The newest `seq` in the log.
    #[ts(type = "number")]
    pub last_seq: u64,
    /// Entries dropped so far to keep the log bounded (the oldest ones).
    #[ts(type = "number")]
    pub dropped: u64,
    /// Of those, the ones after the asked-for `seq`: dropped before this reader got to them
    /// (whether or not they matched the filters).
    #[ts(type = "number")]
    pub missed: u64,
    /// Entries kept now.
    pub kept: u32,
}

/// What to show: after `after_seq`, only `method` (a substring) and only `call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ProtocolFilter {
    /// Entries after this `seq` (0: from the oldest kept).
    #[ts(type = "number")]
    pub after_seq: u64,
    /// Only entries whose method contains this.
    pub method: Option<String>,
    /// Only entries of this call (its request id).
    pub call: Option<String>,
    /// At most this many, the oldest after `after_seq` ([`DEFAULT_PAGE`] when not given; at most
    /// [`MAX_ENTRIES`]).
    pub limit: Option<u32>,
}

/// A file every entry of every server is appended to, as one JSON line each (`--trace FILE`).
#[derive(Clone)]
pub struct TraceFile(Arc<Mutex<std::fs::File>>);

impl TraceFile {
    /// Opens `path` for appending (created when missing).
    pub fn create(path: &std::path::Path) -> std::io::Result<Self> {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        // It holds tools' arguments and answers: the owner's alone, as the token store is.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path)?;
        Ok(Self(Arc::new(Mutex::new(file))))
    }

    fn write(&self, server: &str, entry: &ProtocolEntry) {
        let mut line = serde_json::json!({ "server": server });
        if let (Value::Object(line), Ok(Value::Object(entry))) = (&mut line, serde_json::to_value(entry)) {
            line.extend(entry);
        }
        let mut file = self.0.lock().unwrap();
        let _ = writeln!(file, "{line}");
    }
}

#[derive(Default)]
struct State {
    entries: VecDeque<ProtocolEntry>,
    bytes: usize,
    next_seq: u64,
    dropped: u64,
    /// Requests in flight, by (direction they went, id): their method, when, their call.
    pending: HashMap<(Direction, String), (String, Instant)>,
    /// Progress tokens of requests sent, to the request id.
    progress: HashMap<String, String>,
}

/// One server's protocol log (kept by the host across reconnects).
pub struct ProtocolLog {
    server: String,
    state: Mutex<State>,
    trace: Option<TraceFile>,
}

impl ProtocolLog {
    /// An empty log for `server`, also writing to `trace` when given.
    pub fn new(server: impl Into<String>, trace: Option<TraceFile>) -> Self {
        Self { server: server.into(), state: Mutex::new(State { next_seq: 1, ..State::default() }), trace }
    }

    /// Records `message` (a JSON-RPC message as JSON) going `direction`.
    pub fn record(&self, direction: Direction, message: &Value) {
        if let Ok(text) = serde_json::to_string(message) {
            self.record_serialized(direction, &text);
        }
    }

    /// Records a message as it was serialized (`text`, whose length is its size on the wire).
    /// Its base64 runs are replaced on the text first, so what is parsed, redacted and kept is
    /// small however large the message: a 200 MB image costs one pass over it, not copies.
    pub fn record_serialized(&self, direction: Direction, text: &str) {
        let bytes = text.len() as u64;
        let mut runs = 0;
        let shortened = mcp_canvas_contract::map_base64_runs(text, |run| {
            if run.len() < MIN_RUN {
                return None;
            }
            runs += 1;
            Some(note(&self.server, run))
        });
        let message: Value = serde_json::from_str(&shortened).unwrap_or(Value::Null);
        let (text, cut) = shown_text(&message, &shortened);
        let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = message.get("id").filter(|id| !id.is_null()).map(id_text);
        let kind = match (&method, &id, message.get("result"), message.get("error")) {
            (Some(_), Some(_), _, _) => MessageKind::Request,
            (Some(_), None, _, _) => MessageKind::Notification,
            (None, Some(_), Some(_), _) => MessageKind::Response,
            (None, Some(_), _, Some(_)) => MessageKind::Error,
            _ => MessageKind::Other,
        };
        let mut state = self.state.lock().unwrap();
        let now = Instant::now();
        let (method, call, latency_ms) = match kind {
            MessageKind::Request => {
                let id = id.clone().expect("a request has an id");
                if state.pending.len() >= MAX_PENDING {
                    state.pending.clear();
                    state.progress.clear();
                }
                state.pending.insert((direction, id.clone()), (method.clone().unwrap_or_default(), now));
                if let Some(token) = message.pointer("/params/_meta/progressToken").filter(|t| !t.is_null()) {
                    state.progress.insert(id_text(token), id.clone());
                }
                (method, Some(id), None)
            }
            MessageKind::Response | MessageKind::Error => {
                let id = id.clone().expect("a response has an id");
                // The request went the other way.
                let asked = match direction {
                    Direction::Sent => Direction::Received,
                    Direction::Received => Direction::Sent,
                };
                match state.pending.remove(&(asked, id.clone())) {
                    Some((method, at)) => (Some(method), Some(id), Some(now.duration_since(at).as_millis() as u64)),
                    None => (None, Some(id), None),
                }
            }
            MessageKind::Notification => {
                let call = message
                    .pointer("/params/progressToken")
                    .map(id_text)
                    .and_then(|token| state.progress.get(&token).cloned())
                    .or_else(|| message.pointer("/params/requestId").map(id_text));
                (method, call, None)
            }
            MessageKind::Other => (method, None, None),
        };
        let entry = ProtocolEntry {
            seq: state.next_seq,
            at_ms: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0),
            direction,
            kind,
            method,
            id,
            call,
            bytes,
            latency_ms,
            text,
            runs,
            cut,
        };
        state.next_seq += 1;
        let traced = self.trace.as_ref().map(|trace| (trace, entry.clone()));
        state.bytes += entry.text.len();
        state.entries.push_back(entry);
        while state.entries.len() > MAX_ENTRIES || state.bytes > MAX_BYTES {
            let Some(old) = state.entries.pop_front() else { break };
            state.bytes -= old.text.len();
            state.dropped += 1;
        }
        drop(state);
        // Written after the log is released: a slow disk never holds up the connection's others.
        if let Some((trace, entry)) = traced {
            trace.write(&self.server, &entry);
        }
    }

    /// The entries `filter` asks for: the oldest matching ones after `filter.after_seq`, at most
    /// `filter.limit`; see [`ProtocolPage`] for reading on from there.
    pub fn page(&self, filter: &ProtocolFilter) -> ProtocolPage {
        let state = self.state.lock().unwrap();
        let limit = filter.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_ENTRIES as u32) as usize;
        let method = filter.method.as_deref().map(str::to_lowercase).filter(|m| !m.is_empty());
        let matches = |e: &ProtocolEntry| {
            method.as_deref().is_none_or(|m| e.method.as_deref().is_some_and(|em| em.to_lowercase().contains(m)))
                && filter.call.as_deref().is_none_or(|c| e.call.as_deref() == Some(c))
        };
        let last_seq = state.next_seq - 1;
        // Entries are kept in `seq` order: the first one after `after_seq` is found by halving.
        let start = state.entries.partition_point(|e| e.seq <= filter.after_seq);
        let mut entries = Vec::new();
        let mut through_seq = last_seq.max(filter.after_seq);
        let mut more = false;
        for (index, entry) in state.entries.iter().enumerate().skip(start) {
            if !matches(entry) {
                continue;
            }
            // Only what is returned is cloned.
            entries.push(entry.clone());
            if entries.len() == limit {
                through_seq = entry.seq;
                more = index + 1 < state.entries.len();
                break;
            }
        }
        // The log drops from the front, so what it dropped is `seq` 1 to `dropped`.
        let missed = state.dropped.saturating_sub(filter.after_seq);
        ProtocolPage { server: self.server.clone(), entries, through_seq, more, last_seq, dropped: state.dropped, missed, kept: state.entries.len() as u32 }
    }

    /// Every kept entry as JSON lines (the protocol view's export).
    pub fn export(&self, out: &mut impl Write) -> std::io::Result<usize> {
        let state = self.state.lock().unwrap();
        for entry in &state.entries {
            let mut line = serde_json::json!({ "server": self.server });
            if let (Value::Object(line), Ok(Value::Object(entry))) = (&mut line, serde_json::to_value(entry)) {
                line.extend(entry);
            }
            writeln!(out, "{line}")?;
        }
        Ok(state.entries.len())
    }
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The message as kept (its base64 runs already notes): redacted, cut. A message that is not
/// JSON is kept as its text.
fn shown_text(message: &Value, raw: &str) -> (String, bool) {
    let shortened = if message.is_null() { raw.to_owned() } else { serde_json::to_string(&mcp_canvas_config::redact::redact(message)).unwrap_or_default() };
    if shortened.len() <= MAX_TEXT {
        return (shortened, false);
    }
    let mut end = MAX_TEXT;
    while !shortened.is_char_boundary(end) {
        end -= 1;
    }
    (format!("{}… [cut: {} bytes more]", &shortened[..end], shortened.len() - end), true)
}

/// `⟨base64 1.2 MB → artifact demo_0123456789ab⟩` for a run that decodes, its length otherwise.
fn note(server: &str, run: &str) -> String {
    if run.contains(SPILL_TAG) {
        return format!("⟨base64 over 64 KB, taken to the store as it was read: the call's result names its artifact ({} characters shown here)⟩", run.len());
    }
    // A run inside a JSON string may end with the `=` padding or run on into a key; decode what
    // is a whole number of quads.
    let body = run.trim_end_matches('=');
    let engine = base64::engine::GeneralPurpose::new(&base64::alphabet::STANDARD, base64::engine::GeneralPurposeConfig::new().with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent));
    match engine.decode(body) {
        Ok(bytes) => {
            let digest = Sha256::digest(&bytes);
            let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
            format!("⟨base64 {} → artifact {server}_{hex}⟩", size(bytes.len()))
        }
        Err(_) => format!("⟨base64-like run of {} characters⟩", run.len()),
    }
}

fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_get_their_method_latency_and_call() {
        let log = ProtocolLog::new("demo", None);
        log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": { "name": "x", "_meta": { "progressToken": "p1" } } }));
        log.record(Direction::Received, &json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": "p1", "progress": 1 } }));
        log.record(Direction::Received, &json!({ "jsonrpc": "2.0", "id": 7, "result": { "content": [] } }));
        log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        let page = log.page(&ProtocolFilter::default());
        assert_eq!(page.entries.len(), 4);
        let answer = &page.entries[2];
        assert_eq!((answer.kind, answer.method.as_deref(), answer.call.as_deref()), (MessageKind::Response, Some("tools/call"), Some("7")));
        assert!(answer.latency_ms.is_some());
        assert_eq!(page.entries[1].call.as_deref(), Some("7"), "progress belongs to its call");
        let call = log.page(&ProtocolFilter { call: Some("7".into()), ..Default::default() });
        assert_eq!(call.entries.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2, 3]);
        let method = log.page(&ProtocolFilter { method: Some("INITIALIZED".into()), ..Default::default() });
        assert_eq!(method.entries.len(), 1);
        let after = log.page(&ProtocolFilter { after_seq: 3, ..Default::default() });
        assert_eq!(after.entries.len(), 1);
    }

    #[test]
    fn base64_becomes_a_note_naming_its_artifact_and_secrets_are_redacted() {
        let bytes = vec![7u8; 300_000];
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let digest = Sha256::digest(&bytes);
        let id: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        let log = ProtocolLog::new("demo", None);
        log.record(Direction::Received, &json!({ "jsonrpc": "2.0", "id": 1, "result": { "content": [{ "type": "image", "data": data, "mimeType": "image/png" }] } }));
        log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "arguments": { "api_key": "sk-secret-123" } } }));
        let page = log.page(&ProtocolFilter::default());
        let image = &page.entries[0];
        assert!(image.text.len() < 300, "{}", image.text);
        assert!(image.text.contains(&format!("→ artifact demo_{id}")), "{}", image.text);
        assert_eq!(image.runs, 1);
        assert!(image.bytes > 400_000, "the size on the wire is the whole message");
        assert!(!page.entries[1].text.contains("sk-secret-123"), "{}", page.entries[1].text);
    }

    #[test]
    fn a_spilled_run_is_named_as_such_not_hashed() {
        let run = format!("{}{SPILL_TAG}{:016x}{:08x}Zz", "A".repeat(32 * 1024), 7, 0);
        let log = ProtocolLog::new("demo", None);
        log.record(Direction::Received, &json!({ "jsonrpc": "2.0", "id": 1, "result": { "content": [{ "type": "image", "data": run }] } }));
        let text = &log.page(&ProtocolFilter::default()).entries[0].text;
        assert!(text.contains("taken to the store as it was read") && !text.contains("→ artifact"), "{text}");
    }

    #[test]
    fn the_log_is_bounded_and_counts_what_it_dropped() {
        let log = ProtocolLog::new("demo", None);
        for i in 0..(MAX_ENTRIES + 10) {
            log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "method": "notifications/x", "params": { "i": i } }));
        }
        let page = log.page(&ProtocolFilter { limit: Some(5000), ..Default::default() });
        assert_eq!(page.kept as usize, MAX_ENTRIES);
        assert_eq!(page.dropped, 10);
        assert_eq!(page.entries.first().unwrap().seq, 11);
        // A huge text message is cut, not kept whole.
        log.record(Direction::Received, &json!({ "jsonrpc": "2.0", "id": 1, "result": { "text": "word ".repeat(100_000) } }));
        let last = log.page(&ProtocolFilter { after_seq: page.last_seq, ..Default::default() });
        assert!(last.entries[0].cut && last.entries[0].text.len() < MAX_TEXT + 100);
    }

    /// What a reader does: asks after what it has until no more is waiting.
    fn read_on(log: &ProtocolLog, filter: &ProtocolFilter) -> (Vec<ProtocolEntry>, ProtocolPage, usize) {
        let mut filter = filter.clone();
        let mut read = Vec::new();
        let mut pages = 0;
        loop {
            let page = log.page(&filter);
            pages += 1;
            read.extend(page.entries.iter().cloned());
            filter.after_seq = page.through_seq;
            if !page.more {
                return (read, page, pages);
            }
            assert!(pages < 100, "a reader catches up");
        }
    }

    #[test]
    fn a_burst_between_two_polls_reaches_the_reader_whole_and_in_order() {
        let log = ProtocolLog::new("demo", None);
        for i in 0..3 {
            log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "method": "notifications/x", "params": { "i": i } }));
        }
        let first = ProtocolFilter { limit: Some(500), ..Default::default() };
        let (read, page, _) = read_on(&log, &first);
        assert_eq!(read.len(), 3);
        // 1,200 messages between this poll and the next: more than a page.
        for i in 0..1200 {
            log.record(Direction::Received, &json!({ "jsonrpc": "2.0", "id": i, "result": { "i": i } }));
        }
        let next = ProtocolFilter { after_seq: page.through_seq, ..first.clone() };
        let one = log.page(&next);
        assert_eq!(one.entries.len(), 500, "a page is bounded");
        assert!(one.more, "and says more are waiting");
        assert_eq!(one.entries.first().unwrap().seq, 4, "the oldest first, not the newest");
        let (read, last, pages) = read_on(&log, &next);
        assert_eq!(pages, 3, "500 + 500 + 200");
        let seqs: Vec<u64> = read.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (4..=1203).collect::<Vec<_>>(), "every message once, in order, no gap");
        let ids: Vec<String> = read.iter().map(|e| e.id.clone().unwrap()).collect();
        assert_eq!(ids, (0..1200).map(|i| i.to_string()).collect::<Vec<_>>());
        assert_eq!((last.through_seq, last.last_seq, last.more, last.missed), (1203, 1203, false, 0));
        // Nothing new: an empty page that stays where it is.
        let idle = log.page(&ProtocolFilter { after_seq: last.through_seq, ..first });
        assert_eq!((idle.entries.len(), idle.through_seq, idle.more), (0, 1203, false));
    }

    #[test]
    fn a_filtered_reader_reads_past_what_its_filter_leaves_out() {
        let log = ProtocolLog::new("demo", None);
        for i in 0..30 {
            let method = if i % 3 == 0 { "tools/call" } else { "notifications/progress" };
            log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "method": method, "params": { "i": i } }));
        }
        let filter = ProtocolFilter { method: Some("tools/".into()), limit: Some(4), ..Default::default() };
        let page = log.page(&filter);
        assert_eq!(page.entries.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 4, 7, 10]);
        assert_eq!((page.through_seq, page.more), (10, true));
        let (read, last, _) = read_on(&log, &filter);
        assert_eq!(read.iter().map(|e| e.seq).collect::<Vec<_>>(), (0..10).map(|i| 1 + 3 * i).collect::<Vec<_>>());
        // The last page ends past the non-matching tail: the next poll does not scan it again.
        assert_eq!((last.through_seq, last.more), (30, false));
    }

    #[test]
    fn a_reader_too_slow_for_the_bound_is_told_how_many_it_missed() {
        let log = ProtocolLog::new("demo", None);
        for i in 0..10 {
            log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "method": "notifications/x", "params": { "i": i } }));
        }
        let seen = log.page(&ProtocolFilter::default()).through_seq;
        assert_eq!(seen, 10);
        for i in 0..(MAX_ENTRIES + 25) {
            log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "method": "notifications/x", "params": { "i": i } }));
        }
        let page = log.page(&ProtocolFilter { after_seq: seen, ..Default::default() });
        assert_eq!(page.dropped, 35, "the log keeps its bound");
        assert_eq!(page.missed, 25, "of which 25 came after what this reader had");
        assert_eq!(page.entries.first().unwrap().seq, 36, "it goes on from the oldest kept");
        let (read, _, _) = read_on(&log, &ProtocolFilter { after_seq: seen, ..Default::default() });
        assert_eq!(read.len(), MAX_ENTRIES);
        assert!(read.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    }

    #[test]
    fn a_trace_file_gets_one_json_line_per_message() {
        let dir = std::env::temp_dir().join(format!("trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("trace.jsonl");
        let log = ProtocolLog::new("demo", Some(TraceFile::create(&path).unwrap()));
        log.record(Direction::Sent, &json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }));
        log.record(Direction::Received, &json!({ "jsonrpc": "2.0", "id": 1, "result": {} }));
        let lines: Vec<Value> = std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["server"], "demo");
        assert_eq!(lines[1]["method"], "ping");
        #[cfg(unix)]
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions()) & 0o777, 0o600, "the owner's alone");
        let mut exported = Vec::new();
        assert_eq!(log.export(&mut exported).unwrap(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
