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
//! is found by its words and its adjacent pairs' tokens ([`pairs`], kept in [`blocks`] beside
//! FTS5), then checked in that text; a prefix by the words it completes to ([`vocabulary`]).

mod blocks;
mod index;
mod pairs;
mod rice;
mod snippet;
mod terms;
mod vocabulary;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use snippet::{hit_line, snippet, SnippetPart, SNIPPET_CHARS};
pub use terms::{Term, Terms};
pub use vocabulary::KnownWords;
pub use index::{Applied, IndexBatch, IndexStep, PreparedBatch};
pub use blocks::{Directories, MergedBlocks};
pub(crate) use blocks::{commit_merge, merged, plan_merge, MergeDue};
pub(crate) use index::{apply, attempts, call_text, check, clear, compact_step, count_stopped_run, finish, index_calls, pending, prepare, remember, restart, start, write};

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
    // A phrase's pairs: the segments that can hold it, newest first (`None`: no phrase that
    // pairs, every segment can).
    let pair_tokens = terms.pair_tokens();
    let candidates = if pair_tokens.is_empty() { None } else { Some(blocks::segments_with(&store.conn(), &store.pair_directories, &pair_tokens)?) };
    let (sql, values) = page_sql(query, &expression, candidates.is_some());
    let mut hits: Vec<SearchHit> = Vec::new();
    let mut per_artifact: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut refused = 0;
    let mut partial = false;
    let mut before = i64::MAX;
    // A first page a little larger than the hits wanted (and than a spelled-out prefix's words:
    // rows cost less than setting up another read); each next one twice the last.
    let mut rows_wanted = (limit as i64 + 4 + spelled_out as i64).min(MAX_PAGE_ROWS);
    'pages: loop {
        // With a phrase's candidates, a page looks at the next ones below `before`, at most
        // [`MAX_PAGE_ROWS`] of them; `chunk_end`: the lowest it looked at, when more are left.
        let (chunk, chunk_end) = match &candidates {
            Some(candidates) => {
                let start = candidates.partition_point(|id| *id >= before);
                let end = (start + MAX_PAGE_ROWS as usize).min(candidates.len());
                if start == end {
                    break;
                }
                let more = end < candidates.len();
                (Some(serde_json::to_string(&candidates[start..end]).unwrap_or_default()), more.then(|| candidates[end - 1]))
            }
            None => (None, None),
        };
        let rows = page(&store.conn(), &sql, &values, chunk, before, rows_wanted)?;
        let full = rows.len() as i64 == rows_wanted;
        let Some(&(_, last)) = rows.last() else {
            match chunk_end {
                Some(end) => {
                    before = end;
                    continue;
                }
                None => break,
            }
        };
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
            match chunk_end {
                // The candidates looked at are done with: on to the next ones.
                Some(end) => {
                    before = end;
                    continue;
                }
                None => break,
            }
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
/// and how many rows it reads; with `candidates`, one more before them: the segments it may
/// find, a JSON array (a phrase's, from the pair blocks).
fn page_sql(query: &SearchQuery, expression: &str, candidates: bool) -> (String, Vec<rusqlite::types::Value>) {
    let mut conditions = Conditions::default();
    let text = conditions.bind(expression.to_owned().into());
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
    let next = conditions.values.len() + 1;
    let (before, rows) = (format!("?{}", next + usize::from(candidates)), format!("?{}", next + 1 + usize::from(candidates)));
    let sql = if candidates {
        // Each candidate is looked up in FTS5 by its rowid (a seek in each word's list).
        conditions.sql.push(format!("s.id < {before}"));
        conditions.sql.push(format!("EXISTS (SELECT 1 FROM search_fts WHERE search_fts MATCH {text} AND search_fts.rowid = s.id)"));
        format!(
            "SELECT {COLUMNS}, s.place, s.position, s.byte_offset, s.byte_length, s.id
             FROM json_each(?{next}) c JOIN search_segments s ON s.id = c.value JOIN artifacts a ON a.id = s.artifact_id
             {} ORDER BY s.id DESC LIMIT {rows}",
            conditions.where_clause()
        )
    } else {
        conditions.sql.push(format!("search_fts MATCH {text}"));
        conditions.sql.push(format!("search_fts.rowid < {before}"));
        format!(
            "SELECT {COLUMNS}, s.place, s.position, s.byte_offset, s.byte_length, s.id
             FROM search_fts JOIN search_segments s ON s.id = search_fts.rowid JOIN artifacts a ON a.id = s.artifact_id
             {} ORDER BY search_fts.rowid DESC LIMIT {rows}",
            conditions.where_clause()
        )
    };
    (sql, conditions.values)
}

/// One page of hits below `before`, newest first, with their segment ids (among `candidates`
/// when given: see [`page_sql`]).
/// (`None` for a place this build does not know: skipped, but it still moves the search on).
fn page(conn: &Connection, sql: &str, values: &[rusqlite::types::Value], candidates: Option<String>, before: i64, rows: i64) -> Result<Vec<(Option<SearchHit>, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let bounds = [rusqlite::types::Value::Integer(before), rusqlite::types::Value::Integer(rows)];
    let candidates = candidates.map(rusqlite::types::Value::Text);
    let rows = stmt.query_map(rusqlite::params_from_iter(values.iter().chain(candidates.iter()).chain(bounds.iter())), |row| {
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
