//! Full-text search over stored artifacts: an FTS5 index in the catalog's own file.
//!
//! The index is fed from outside (the host's indexer extracts text; this crate only keeps it):
//! [`crate::ArtifactStore::search_pending`] lists artifacts not indexed yet,
//! [`IndexBatch`]es of segments are written in short transactions (never a long write lock,
//! never a whole file in memory), and [`crate::ArtifactStore::search_finish`] marks an artifact
//! done. An artifact whose indexing was interrupted has segments but no `search_indexed` row; it
//! is indexed again from the start ([`crate::ArtifactStore::search_start`] drops what it had).
//! Removing an artifact removes its segments in the same transaction (a trigger), so gc, the
//! quota and session clears prune the index.
//!
//! The index is contentless and keeps no positions: a hit names its segment's place (page, row,
//! line, byte range), and the caller cuts the snippet from the artifact ([`snippet`]). A phrase
//! is found by its words and its adjacent pairs' tokens ([`pairs`]), then checked in that text; a
//! prefix by the words it completes to ([`vocabulary`]).

mod pairs;
mod snippet;
mod terms;
mod vocabulary;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use snippet::{hit_line, snippet, SnippetPart, SNIPPET_CHARS};
pub use terms::{Term, Terms};
pub use vocabulary::KnownWords;

use crate::{
    catalog::{from_row, COLUMNS},
    error::StoreError,
    query::{Conditions, Filter, MimeFamily},
    record::ArtifactRecord,
};

/// Where in an artifact a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum HitPlace {
    /// The artifact's name or summary.
    Name,
    /// The call that produced it (server, tool, arguments).
    Call,
    /// A PDF page (`position` from 1).
    Page,
    /// A table's data row (`position` from 1; the header is row 0).
    Row,
    /// A text line (`position` from 1).
    Line,
}

impl HitPlace {
    fn as_str(self) -> &'static str {
        match self {
            HitPlace::Name => "name",
            HitPlace::Call => "call",
            HitPlace::Page => "page",
            HitPlace::Row => "row",
            HitPlace::Line => "line",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "name" => HitPlace::Name,
            "call" => HitPlace::Call,
            "page" => HitPlace::Page,
            "row" => HitPlace::Row,
            "line" => HitPlace::Line,
            _ => return None,
        })
    }
}

/// One piece of an artifact's text, as the indexer found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// What kind of place.
    pub place: HitPlace,
    /// Page, row or line number (0 for name and call).
    pub position: u64,
    /// Where the text starts in the artifact's bytes (lines and rows), else 0.
    pub byte_offset: u64,
    /// How many bytes it spans there (lines and rows), else 0.
    pub byte_length: u64,
    /// The text.
    pub text: String,
}

/// A search request. Empty filters match everything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, Default)]
#[ts(export)]
pub struct SearchQuery {
    /// What was typed (see [`Terms`]).
    pub text: String,
    /// Only artifacts linked to this session.
    pub session: Option<String>,
    /// Only from this server.
    pub server: Option<String>,
    /// Only from this tool.
    pub tool: Option<String>,
    /// Only this kind of content.
    pub family: Option<MimeFamily>,
    /// Only artifacts created at or after this time (ms since the epoch).
    #[ts(type = "number | null")]
    pub since_ms: Option<i64>,
    /// Only artifacts created before this time (ms since the epoch).
    #[ts(type = "number | null")]
    pub until_ms: Option<i64>,
    /// Name contains this (case-insensitive).
    pub name_contains: Option<String>,
    /// Only pinned artifacts.
    pub pinned_only: bool,
    /// Only this team member's artifacts (team search; ignored by the local index).
    pub member: Option<String>,
    /// Only artifacts the proxy gave an AI host's model (`search_artifacts`).
    pub shared_with_model: bool,
    /// At most this many hits (capped at 200; 0 means 20).
    pub limit: u32,
}

/// One hit: an artifact and where in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SearchHit {
    /// The artifact.
    pub artifact: ArtifactRecord,
    /// Where in it.
    pub place: HitPlace,
    /// Page, row or line number (0 for name and call).
    #[ts(type = "number")]
    pub position: u64,
    /// The text around the hit, matching words marked (empty until the caller cuts it).
    pub snippet: Vec<SnippetPart>,
    /// Who stored it (team search; `None` for this machine's store).
    pub member: Option<String>,
    /// Where the segment's text is in the artifact's bytes (for cutting the snippet).
    #[serde(skip)]
    #[ts(skip)]
    pub byte_range: (u64, u64),
}

/// What a search found, and how complete the index is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SearchResults {
    /// Newest first; at most three per artifact.
    pub hits: Vec<SearchHit>,
    /// Artifacts indexed.
    pub indexed: u32,
    /// Artifacts not indexed yet (their names are searched, their text not yet).
    pub pending: u32,
    /// The search stopped before the oldest files: a phrase's words were in more places than are
    /// checked for the phrase (the hits are the newest found; narrowing the search finds older).
    #[serde(default)]
    pub partial: bool,
}

/// How complete the index is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct IndexStatus {
    /// Artifacts indexed.
    pub indexed: u32,
    /// Artifacts waiting.
    pub pending: u32,
    /// Segments in the index.
    #[ts(type = "number")]
    pub segments: u64,
}

/// Hits per artifact in one result list.
const HITS_PER_ARTIFACT: usize = 3;
/// At most this many segments are read from the index at a time (newest first; the first page
/// is a little more than the hits wanted, and each next one twice the last); the catalog is
/// free between pages, while the hits' text is read.
const MAX_PAGE_ROWS: i64 = 1024;
/// A prefix with at most this many completions in the index's word list is searched as those
/// words (read newest first, stopping at the hits wanted); one with more, as FTS5's prefix
/// (which reads every completion's list whole).
const MAX_COMPLETIONS: usize = 512;
/// A search stops after this many segments whose text did not hold a phrase searched for (the
/// index keeps no positions: a phrase is found by its words and pairs, then checked in the text;
/// a phrase of words too short to pair can have its words in many places).
const MAX_REFUSED: usize = 400;

/// Segments written for one artifact, committed in one short transaction.
#[derive(Debug, Default)]
pub struct IndexBatch {
    pub(crate) artifact_id: String,
    pub(crate) segments: Vec<Segment>,
    pub(crate) text_bytes: usize,
}

impl IndexBatch {
    /// An empty batch for `artifact_id`.
    pub fn new(artifact_id: &str) -> Self {
        Self { artifact_id: artifact_id.to_owned(), ..Default::default() }
    }

    /// Adds a segment.
    pub fn push(&mut self, segment: Segment) {
        self.text_bytes += segment.text.len();
        self.segments.push(segment);
    }

    /// Bytes of text waiting (the caller commits at its bound).
    pub fn text_bytes(&self) -> usize {
        self.text_bytes
    }

    /// Segments waiting.
    pub fn len(&self) -> usize {
        self.segments.len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }
}

pub(crate) fn pending(conn: &Connection, limit: u32) -> Result<Vec<ArtifactRecord>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM artifacts a WHERE NOT EXISTS (SELECT 1 FROM search_indexed i WHERE i.artifact_id = a.id) ORDER BY a.created_at_ms DESC, a.id LIMIT ?1"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([limit], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Drops what an interrupted run left of `artifact_id`'s text (not its call's segments) and
/// counts this run; returns how many runs started on it without finishing, this one included.
pub(crate) fn start(conn: &mut Connection, artifact_id: &str) -> Result<u32, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_segments WHERE artifact_id = ?1 AND place <> 'call')",
        [artifact_id],
    )?;
    tx.execute("DELETE FROM search_segments WHERE artifact_id = ?1 AND place <> 'call'", [artifact_id])?;
    tx.execute("DELETE FROM search_indexed WHERE artifact_id = ?1", [artifact_id])?;
    tx.execute(
        "INSERT INTO search_attempts (artifact_id, attempts) SELECT id, 1 FROM artifacts WHERE id = ?1
         ON CONFLICT (artifact_id) DO UPDATE SET attempts = attempts + 1",
        [artifact_id],
    )?;
    let attempts: u32 = tx.query_row("SELECT COALESCE((SELECT attempts FROM search_attempts WHERE artifact_id = ?1), 1)", [artifact_id], |row| row.get(0))?;
    tx.commit()?;
    Ok(attempts)
}

/// What a batch adds besides its text, worked out before the write lock is taken: each
/// segment's pair tokens, and the words the vocabulary does not have yet.
pub(crate) struct Prepared {
    pairs: Vec<String>,
    words: vocabulary::NewWords,
}

/// The index's generation, for [`prepare`].
pub(crate) fn generation(conn: &Connection) -> Result<i64, StoreError> {
    vocabulary::generation(conn)
}

/// Reads `batch`'s words once: the pairs and the new words.
pub(crate) fn prepare(batch: &IndexBatch, known: &KnownWords, generation: i64) -> Prepared {
    let mut words = vocabulary::NewWords::new(generation);
    let pairs = batch
        .segments
        .iter()
        .map(|segment| {
            let mut pairs = String::new();
            pairs::append_tokens(&segment.text, &mut pairs, &mut |word, folded, hash| words.meet(known, word, folded, hash));
            pairs
        })
        .collect();
    Prepared { pairs, words }
}

/// Writes `batch`, unless its artifact was removed meanwhile (then nothing, `false`). On `true`,
/// the caller remembers the new words ([`remember`]).
pub(crate) fn write(conn: &mut Connection, batch: &IndexBatch, prepared: &mut Prepared) -> Result<bool, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let exists = tx.query_row("SELECT 1 FROM artifacts WHERE id = ?1", [&batch.artifact_id], |_| Ok(())).optional()?.is_some();
    let generation = vocabulary::generation(&tx)?;
    if generation != prepared.words.generation() {
        // The index was emptied since the words were read: what was remembered is gone too.
        *prepared = prepare(batch, &KnownWords::default(), generation);
    }
    if exists {
        insert_segments(&tx, &batch.artifact_id, batch.segments.iter().zip(prepared.pairs.iter().map(String::as_str)))?;
        vocabulary::write(&tx, &prepared.words)?;
    }
    tx.commit()?;
    Ok(exists)
}

/// Remembers what a committed [`write`] added to the vocabulary.
pub(crate) fn remember(known: &mut KnownWords, prepared: Prepared) {
    vocabulary::remember(known, prepared.words);
}

/// Writes `segments` (each with its pair tokens) after the artifact's others.
fn insert_segments<'a>(tx: &rusqlite::Transaction<'_>, artifact_id: &str, segments: impl ExactSizeIterator<Item = (&'a Segment, &'a str)>) -> Result<(), StoreError> {
    if segments.len() == 0 {
        return Ok(());
    }
    let first = first_segment_id(tx, artifact_id, segments.len())?;
    let mut segment_row = tx.prepare_cached(
        "INSERT INTO search_segments (id, artifact_id, place, position, byte_offset, byte_length) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut text_row = tx.prepare_cached("INSERT INTO search_fts (rowid, body, pairs) VALUES (?1, ?2, ?3)")?;
    for (id, (segment, pairs)) in (first..).zip(segments) {
        segment_row.execute(params![
            id,
            artifact_id,
            segment.place.as_str(),
            segment.position as i64,
            segment.byte_offset as i64,
            segment.byte_length as i64
        ])?;
        text_row.execute(params![id, segment.text, pairs])?;
    }
    Ok(())
}

/// Segment ids order the index by time, densely (the index stores the gaps between ids: small
/// gaps, a small index): an artifact newer than the newest indexed one goes above the highest id,
/// one older than the oldest below the lowest (ids may be negative) — the indexer takes pending
/// artifacts newest first, so a rebuild walks down and new files go up. One in between (a file
/// indexed again after an interrupted run) goes on top: it sorts as new.
fn first_segment_id(tx: &rusqlite::Transaction<'_>, artifact_id: &str, count: usize) -> Result<i64, StoreError> {
    let created: i64 = tx.query_row("SELECT created_at_ms FROM artifacts WHERE id = ?1", [artifact_id], |row| row.get(0))?;
    let end = |order: &str| -> Result<Option<(i64, i64)>, StoreError> {
        let sql = format!("SELECT s.id, a.created_at_ms FROM search_segments s JOIN artifacts a ON a.id = s.artifact_id ORDER BY s.id {order} LIMIT 1");
        Ok(tx.query_row(&sql, [], |row| Ok((row.get(0)?, row.get(1)?))).optional()?)
    };
    let Some((highest, newest)) = end("DESC")? else { return Ok(0) };
    if created >= newest {
        return Ok(highest + 1);
    }
    match end("ASC")? {
        Some((lowest, oldest)) if created <= oldest => Ok(lowest - count as i64),
        _ => Ok(highest + 1),
    }
}

/// Marks `artifact_id` indexed (with what was left out, if anything).
pub(crate) fn finish(conn: &Connection, artifact_id: &str, now_ms: i64, note: Option<&str>) -> Result<(), StoreError> {
    conn.execute("DELETE FROM search_attempts WHERE artifact_id = ?1", [artifact_id])?;
    conn.execute(
        "INSERT OR REPLACE INTO search_indexed (artifact_id, indexed_at_ms, segments, note)
         SELECT id, ?2, (SELECT COUNT(*) FROM search_segments WHERE artifact_id = ?1), ?3 FROM artifacts WHERE id = ?1",
        params![artifact_id, now_ms, note],
    )?;
    Ok(())
}

/// Indexes the audit log's calls that produced artifacts, after the last one indexed: one `call`
/// segment per artifact with the server, tool and (redacted) arguments. Returns how many calls.
pub(crate) fn index_calls(conn: &mut Connection, limit: u32) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let after: i64 = tx.query_row("SELECT audit_seq FROM search_calls WHERE id = 1", [], |row| row.get(0))?;
    let generation = vocabulary::generation(&tx)?;
    let calls: Vec<(i64, String, String, String, String, Option<String>)> = {
        let mut stmt = tx.prepare("SELECT seq, server, tool, arguments, artifact_ids, result_text FROM audit WHERE seq > ?1 ORDER BY seq LIMIT ?2")?;
        let rows = stmt.query_map(params![after, limit], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut last = after;
    for (seq, server, tool, arguments, artifact_ids, result_text) in &calls {
        last = *seq;
        let ids: Vec<String> = serde_json::from_str(artifact_ids).unwrap_or_default();
        if ids.is_empty() {
            continue;
        }
        let text = call_segment_text(server, tool, arguments, result_text.as_deref());
        for id in ids {
            let exists = tx.query_row("SELECT 1 FROM artifacts WHERE id = ?1", [&id], |_| Ok(())).optional()?.is_some();
            if exists {
                let segment = Segment { place: HitPlace::Call, position: 0, byte_offset: 0, byte_length: 0, text: text.clone() };
                let mut pairs = String::new();
                let mut words = vocabulary::NewWords::new(generation);
                pairs::append_tokens(&text, &mut pairs, &mut |word, folded, hash| words.meet(&KnownWords::default(), word, folded, hash));
                insert_segments(&tx, &id, std::iter::once((&segment, pairs.as_str())))?;
                vocabulary::write(&tx, &words)?;
            }
        }
    }
    tx.execute("UPDATE search_calls SET audit_seq = ?1 WHERE id = 1", [last])?;
    tx.commit()?;
    Ok(calls.len())
}

/// A call as it is indexed for its files: server, tool, the arguments' words, what it answered.
fn call_segment_text(server: &str, tool: &str, arguments: &str, result_text: Option<&str>) -> String {
    format!("{server} {tool} {} {}", argument_text(arguments), result_text.unwrap_or(""))
}

/// The largest char boundary at or below `max`.
fn floor_boundary(text: &str, max: usize) -> usize {
    let mut cut = max.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

/// The arguments' keys and values as words (JSON punctuation is not text), at most 16 KiB.
fn argument_text(arguments: &str) -> String {
    fn walk(value: &serde_json::Value, out: &mut String) {
        if out.len() > 16 * 1024 {
            return;
        }
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    out.push_str(key);
                    out.push(' ');
                    walk(value, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            serde_json::Value::String(text) => {
                out.push_str(&text[..floor_boundary(text, 4096)]);
                out.push(' ');
            }
            serde_json::Value::Null => {}
            other => {
                out.push_str(&other.to_string());
                out.push(' ');
            }
        }
    }
    let mut out = String::new();
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(value) => walk(&value, &mut out),
        Err(_) => out.push_str(&arguments[..floor_boundary(arguments, 4096)]),
    }
    out
}

/// Empties the index (every artifact becomes pending, every call unindexed, the vocabulary
/// empty and its generation moved on). The FTS5 table is dropped and created again rather than
/// emptied, so a damaged one is replaced whole.
pub(crate) fn clear(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(&format!(
        "DROP TABLE IF EXISTS search_fts; {CREATE_TEXT}; DELETE FROM search_segments; DELETE FROM search_indexed; DELETE FROM search_attempts; DELETE FROM search_words; UPDATE search_calls SET audit_seq = 0, generation = generation + 1 WHERE id = 1;"
    ))?;
    tx.commit()?;
    Ok(())
}

/// `search_fts` as the migration creates it.
const CREATE_TEXT: &str = "CREATE VIRTUAL TABLE search_fts USING fts5(body, pairs, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2')";

/// The text a call's `call` segments were indexed with (server, tool, arguments), from the
/// audit log.
pub(crate) fn call_text(conn: &Connection, call_id: &str) -> Result<Option<String>, StoreError> {
    let row: Option<(String, String, String, Option<String>)> = conn
        .query_row("SELECT server, tool, arguments, result_text FROM audit WHERE call_id = ?1 ORDER BY seq DESC LIMIT 1", [call_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()?;
    Ok(row.map(|(server, tool, arguments, result_text)| call_segment_text(&server, &tool, &arguments, result_text.as_deref())))
}

/// Checks the index's structure; `Err` when FTS5 finds it damaged.
pub(crate) fn check(conn: &Connection) -> Result<(), StoreError> {
    conn.execute("INSERT INTO search_fts (search_fts) VALUES ('integrity-check')", [])?;
    Ok(())
}

/// How many artifacts are indexed and how many wait.
fn counts(conn: &Connection) -> Result<(u32, u32), StoreError> {
    let (total, indexed): (i64, i64) = conn.query_row(
        "SELECT (SELECT COUNT(*) FROM artifacts), (SELECT COUNT(*) FROM search_indexed)",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    Ok((indexed as u32, (total - indexed).max(0) as u32))
}

/// How complete the index is; `segments` counts every segment written, a file still being
/// indexed included (segment ids say nothing of how many there are: they follow time).
pub(crate) fn status(conn: &Connection) -> Result<IndexStatus, StoreError> {
    let (indexed, pending) = counts(conn)?;
    let segments: i64 = conn.query_row("SELECT COUNT(*) FROM search_segments", [], |row| row.get(0))?;
    Ok(IndexStatus { indexed, pending, segments: segments as u64 })
}

/// Searches, newest first: segment ids grow with their artifact's creation time, and the index is
/// read in that order a page at a time, so a search stops as soon as it has its hits (a word in
/// a million segments costs what a rare one does). At most three hits per artifact.
///
/// `text_of` gives a hit's text at its place (a page's; a group of lines' or rows'), or `None`
/// when it cannot; the name and the call's text are known here. A phrase searched for must be in
/// that text; a hit in a group of lines or rows moves to its own line (`position`), and its
/// snippet is cut from that line (from the whole text otherwise).
pub(crate) fn run(store: &crate::ArtifactStore, query: &SearchQuery, text_of: &mut dyn FnMut(&SearchHit) -> Option<String>) -> Result<SearchResults, StoreError> {
    let (indexed, pending) = counts(&store.conn())?;
    let terms = Terms::parse(&query.text);
    let limit = match query.limit {
        0 => 20,
        n => n.min(200),
    } as usize;
    if terms.is_empty() {
        return Ok(SearchResults { hits: Vec::new(), indexed, pending, partial: false });
    }
    // Each word a prefix is spelled out as costs FTS5 a little to set up on every page read.
    let mut spelled_out = 0;
    let expression = {
        let conn = store.conn();
        terms.fts5_with(&mut |prefix| {
            let words = vocabulary::completions(&conn, prefix, MAX_COMPLETIONS);
            spelled_out += words.as_ref().map_or(0, Vec::len);
            words
        })
    };
    let (sql, values) = page_sql(query, &expression);
    let mut hits: Vec<SearchHit> = Vec::new();
    let mut per_artifact: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut refused = 0;
    let mut partial = false;
    let mut before = i64::MAX;
    // A first page a little larger than the hits wanted (and than a spelled-out prefix's words:
    // rows cost less than setting up another read); each next one twice the last.
    let mut rows_wanted = (limit as i64 + 4 + spelled_out as i64).min(MAX_PAGE_ROWS);
    'pages: loop {
        let rows = page(&store.conn(), &sql, &values, before, rows_wanted)?;
        let Some(&(_, last)) = rows.last() else { break };
        let full = rows.len() as i64 == rows_wanted;
        before = last;
        rows_wanted = (rows_wanted * 2).min(MAX_PAGE_ROWS);
        // The file whose hits were all taken, when the page ends among its segments.
        let mut ended_in: Option<String> = None;
        for (hit, _) in rows {
            let Some(mut hit) = hit else { continue };
            let seen = per_artifact.entry(hit.artifact.id.clone()).or_default();
            if *seen >= HITS_PER_ARTIFACT {
                ended_in = Some(hit.artifact.id);
                continue;
            }
            ended_in = None;
            let text = match hit.place {
                HitPlace::Name => Some(match &hit.artifact.description {
                    Some(description) => format!("{} — {description}", hit.artifact.name),
                    None => hit.artifact.name.clone(),
                }),
                HitPlace::Call => call_text(&store.conn(), &hit.artifact.call_id)?,
                _ => text_of(&hit),
            };
            if let Some(text) = text {
                if !terms.phrases_in(&text) {
                    refused += 1;
                    if refused >= MAX_REFUSED {
                        partial = true;
                        break 'pages;
                    }
                    continue;
                }
                // Lines and rows are indexed in groups: the hit's own line, and its number.
                let text = if matches!(hit.place, HitPlace::Line | HitPlace::Row) {
                    let (index, line) = hit_line(&text, &terms);
                    hit.position += index as u64;
                    line
                } else {
                    text
                };
                hit.snippet = snippet(&text, &terms);
            }
            *seen += 1;
            hits.push(hit);
            if hits.len() >= limit {
                break 'pages;
            }
        }
        if !full {
            break;
        }
        if let Some(artifact_id) = ended_in {
            // The rest of that file's run of segments (thousands, in a large file) is skipped in
            // one step: the next page starts at the first segment below it of another file.
            let below: Option<i64> = store
                .conn()
                .query_row("SELECT id FROM search_segments WHERE id < ?1 AND artifact_id <> ?2 ORDER BY id DESC LIMIT 1", params![before, artifact_id], |row| row.get(0))
                .optional()?;
            match below {
                Some(id) => before = id + 1,
                None => break,
            }
        }
    }
    // Files newest first (by their newest hit); within a file, its hits in reading order: its
    // name, its call, then by page, row or line.
    let mut first_seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, hit) in hits.iter().enumerate() {
        first_seen.entry(hit.artifact.id.clone()).or_insert(i);
    }
    hits.sort_by_key(|hit| (first_seen[&hit.artifact.id], hit.place != HitPlace::Name, hit.place != HitPlace::Call, hit.position));
    Ok(SearchResults { hits, indexed, pending, partial })
}

/// The query for one page of hits: its last two parameters are the id the page starts below
/// and how many rows it reads.
fn page_sql(query: &SearchQuery, expression: &str) -> (String, Vec<rusqlite::types::Value>) {
    let mut conditions = Conditions::default();
    let text = conditions.bind(expression.to_owned().into());
    conditions.sql.push(format!("search_fts MATCH {text}"));
    conditions.filter(&Filter {
        session: query.session.as_deref(),
        server: query.server.as_deref(),
        tool: query.tool.as_deref(),
        family: query.family,
        name_contains: query.name_contains.as_deref(),
        pinned_only: query.pinned_only,
    });
    if query.shared_with_model {
        // Files the proxy gave a model, by their own text and name; not by the calls that stored
        // them (the same bytes from a call of the person's would be the same artifact).
        conditions.sql.push("EXISTS (SELECT 1 FROM model_shared m WHERE m.artifact_id = a.id)".into());
        conditions.sql.push("s.place <> 'call'".into());
    }
    if let Some(since) = query.since_ms {
        let p = conditions.bind(since.into());
        conditions.sql.push(format!("a.created_at_ms >= {p}"));
    }
    if let Some(until) = query.until_ms {
        let p = conditions.bind(until.into());
        conditions.sql.push(format!("a.created_at_ms < {p}"));
    }
    let before = format!("?{}", conditions.values.len() + 1);
    let rows = format!("?{}", conditions.values.len() + 2);
    conditions.sql.push(format!("search_fts.rowid < {before}"));
    let sql = format!(
        "SELECT {COLUMNS}, s.place, s.position, s.byte_offset, s.byte_length, s.id
         FROM search_fts JOIN search_segments s ON s.id = search_fts.rowid JOIN artifacts a ON a.id = s.artifact_id
         {} ORDER BY search_fts.rowid DESC LIMIT {rows}",
        conditions.where_clause()
    );
    (sql, conditions.values)
}

/// One page of hits below `before`, newest first, with their segment ids.
/// (`None` for a place this build does not know: skipped, but it still moves the search on).
fn page(conn: &Connection, sql: &str, values: &[rusqlite::types::Value], before: i64, rows: i64) -> Result<Vec<(Option<SearchHit>, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let bounds = [rusqlite::types::Value::Integer(before), rusqlite::types::Value::Integer(rows)];
    let rows = stmt.query_map(rusqlite::params_from_iter(values.iter().chain(bounds.iter())), |row| {
        let artifact = from_row(row)?;
        let place: String = row.get(13)?;
        let hit = HitPlace::parse(&place).map(|place| SearchHit {
            artifact,
            place,
            position: row.get::<_, i64>(14).unwrap_or_default().max(0) as u64,
            snippet: Vec::new(),
            member: None,
            byte_range: (row.get::<_, i64>(15).unwrap_or_default().max(0) as u64, row.get::<_, i64>(16).unwrap_or_default().max(0) as u64),
        });
        Ok((hit, row.get::<_, i64>(17)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Records that the proxy gave these artifacts to an AI host's model.
pub(crate) fn share_with_model(conn: &mut Connection, ids: &[String], now_ms: i64) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for id in ids {
        tx.execute(
            "INSERT INTO model_shared (artifact_id, shared_at_ms) SELECT id, ?2 FROM artifacts WHERE id = ?1
             ON CONFLICT (artifact_id) DO UPDATE SET shared_at_ms = excluded.shared_at_ms",
            params![id, now_ms],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// Whether the proxy gave `artifact_id` to a model.
pub(crate) fn shared_with_model(conn: &Connection, artifact_id: &str) -> Result<bool, StoreError> {
    Ok(conn.query_row("SELECT 1 FROM model_shared WHERE artifact_id = ?1", [artifact_id], |_| Ok(())).optional()?.is_some())
}

/// Takes `artifact_id` back from the models' files.
pub(crate) fn unshare_with_model(conn: &Connection, artifact_id: &str) -> Result<(), StoreError> {
    conn.execute("DELETE FROM model_shared WHERE artifact_id = ?1", [artifact_id])?;
    Ok(())
}
