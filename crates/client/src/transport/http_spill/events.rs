//! An event stream read as it arrives, never holding a line: the value of a `data` line goes to
//! the event's spill pass as it comes (lines joined with LF), other fields are kept (at most
//! [`MAX_FIELD_LINE`] bytes), an empty line ends the event; CRLF, LF and CR end lines; a BOM at
//! the start, even split, and comments are skipped (the WHATWG rules, as `sse_stream` reads them).

use std::{collections::VecDeque, sync::Arc};

use futures::{stream::BoxStream, Stream, StreamExt as _};
use rmcp::{model::RequestId, transport::streamable_http_client::SseError};
use sse_stream::Sse;

use super::{Pass, PassError};
use mcp_canvas_store::{spill::Scanner, ArtifactStore};

use crate::transport::spill::SpillTable;

/// A line of an event stream that is not data (an id, an event name, an unknown field), at most.
pub(super) const MAX_FIELD_LINE: usize = 64 << 10;
const BOM: &[u8] = b"\xEF\xBB\xBF";
const DATA: &[u8] = b"data:";

/// The events of `body`, read by `reader`: a call's answer stream (`id`) or a GET stream.
///
/// An event that cannot be read (over the limit, its runs not stored, not JSON) ends the stream
/// with an error answer to the call, as the stdio transport answers an unreadable line: handed to
/// rmcp as an error, the stream would be resumed with `Last-Event-ID` outside the spill, and the
/// server would send the same event again. A failing connection is rmcp's to resume, after the
/// events read before it.
pub(super) fn events<S>(body: S, reader: EventReader, id: Option<RequestId>) -> BoxStream<'static, Result<Sse, SseError>>
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
                            Some(id) => state.reader.ready.push_back(error_answer(id, &e)),
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
pub(super) struct EventReader {
    spill: Arc<ArtifactStore>,
    pub(super) table: SpillTable,
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
    pub(super) ready: VecDeque<Sse>,
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
    pub(super) fn new(spill: Arc<ArtifactStore>, table: SpillTable, max_event: usize) -> Self {
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
    pub(super) fn skipping_unreadable(mut self) -> Self {
        self.skip_unreadable = true;
        self
    }

    pub(super) fn feed(&mut self, mut bytes: &[u8]) -> Result<(), SseError> {
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
                self.data = Some(Pass::new(Scanner::new(self.spill.clone()), usize::MAX));
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
