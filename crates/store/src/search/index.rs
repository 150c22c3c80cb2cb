//! Writing the index: the indexer's side. Pending artifacts, a run started over, batches of
//! segments with their pairs and new words (worked out before the write lock), the calls'
//! segments, an artifact marked done, the index emptied or checked.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{blocks, pairs, vocabulary, HitPlace, KnownWords, Segment};
use crate::{
    catalog::{from_row, COLUMNS},
    error::StoreError,
    record::ArtifactRecord,
};

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
    drop_leftovers(&tx, artifact_id)?;
    count_stopped_run(&tx, artifact_id)?;
    let attempts = attempts(&tx, artifact_id)?;
    tx.commit()?;
    Ok(attempts)
}

/// Drops what an interrupted run left of `artifact_id`'s text (not its call's segments).
pub(crate) fn restart(conn: &mut Connection, artifact_id: &str) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    drop_leftovers(&tx, artifact_id)?;
    tx.commit()?;
    Ok(())
}

fn drop_leftovers(tx: &rusqlite::Transaction<'_>, artifact_id: &str) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_segments WHERE artifact_id = ?1 AND place <> 'call')",
        [artifact_id],
    )?;
    tx.execute("DELETE FROM search_segments WHERE artifact_id = ?1 AND place <> 'call'", [artifact_id])?;
    tx.execute("DELETE FROM search_indexed WHERE artifact_id = ?1", [artifact_id])?;
    Ok(())
}

/// Counts a run that started on `artifact_id` and did not finish.
pub(crate) fn count_stopped_run(conn: &Connection, artifact_id: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO search_attempts (artifact_id, attempts) SELECT id, 1 FROM artifacts WHERE id = ?1
         ON CONFLICT (artifact_id) DO UPDATE SET attempts = attempts + 1",
        [artifact_id],
    )?;
    Ok(())
}

/// The runs counted on `artifact_id` that did not finish.
pub(crate) fn attempts(conn: &Connection, artifact_id: &str) -> Result<u32, StoreError> {
    Ok(conn.query_row("SELECT COALESCE((SELECT attempts FROM search_attempts WHERE artifact_id = ?1), 0)", [artifact_id], |row| row.get(0))?)
}

/// What a batch adds besides its text, worked out before the write lock is taken: its pair
/// tokens' block, and the words the vocabulary does not have yet.
pub(crate) struct Prepared {
    block: Option<blocks::NewBlock>,
    words: vocabulary::NewWords,
}

/// A batch whose words were read (see [`crate::ArtifactStore::search_prepare`]).
pub struct PreparedBatch {
    pub(crate) batch: IndexBatch,
    pub(crate) prepared: Prepared,
}

impl PreparedBatch {
    /// The artifact whose segments these are.
    pub fn artifact_id(&self) -> &str {
        &self.batch.artifact_id
    }

    /// Segments in it.
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }
}

/// Reads `batch`'s words once: the pairs (encoded as the batch's block), and its distinct words
/// (then [`Prepared::drop_known`] drops those already written).
pub(crate) fn prepare(batch: &IndexBatch) -> Prepared {
    let mut words = vocabulary::NewWords::new(0);
    let tokens: Vec<Vec<u32>> = batch
        .segments
        .iter()
        .map(|segment| {
            let mut tokens = Vec::new();
            pairs::tokens_of(&segment.text, &mut tokens, &mut |word, folded, hash| words.meet(word, folded, hash));
            tokens
        })
        .collect();
    Prepared { block: blocks::NewBlock::of_segments(&tokens), words }
}

impl Prepared {
    /// Drops the words `known` remembers as written, and takes its generation ([`write`] checks
    /// that it is still the index's).
    pub(crate) fn drop_known(&mut self, known: &KnownWords) {
        self.words.drop_known(known);
    }
}

/// Writes `batch`, unless its artifact was removed meanwhile (then nothing, `false`). On `true`,
/// the caller remembers the new words ([`remember`]).
pub(crate) fn write(conn: &mut Connection, batch: &IndexBatch, prepared: &mut Prepared) -> Result<bool, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let exists = tx.query_row("SELECT 1 FROM artifacts WHERE id = ?1", [&batch.artifact_id], |_| Ok(())).optional()?.is_some();
    let generation = vocabulary::generation(&tx)?;
    if generation != prepared.words.generation() {
        // The index was emptied since the words were read: what was remembered is gone too.
        *prepared = prepare(batch);
        prepared.drop_known(&KnownWords::fresh(generation));
    }
    if exists {
        let first = insert_segments(&tx, &batch.artifact_id, batch.segments.iter())?;
        if let (Some(first), Some(block)) = (first, &prepared.block) {
            blocks::insert(&tx, first, block)?;
        }
        vocabulary::write(&tx, &prepared.words)?;
    }
    tx.commit()?;
    Ok(exists)
}

/// Remembers what a committed [`write`] added to the vocabulary.
pub(crate) fn remember(known: &mut KnownWords, prepared: Prepared) {
    vocabulary::remember(known, prepared.words);
}

/// Writes `segments` after the artifact's others; returns the first one's id (`None` when
/// there are none).
fn insert_segments<'a>(tx: &rusqlite::Transaction<'_>, artifact_id: &str, segments: impl ExactSizeIterator<Item = &'a Segment>) -> Result<Option<i64>, StoreError> {
    if segments.len() == 0 {
        return Ok(None);
    }
    let first = first_segment_id(tx, artifact_id, segments.len())?;
    let mut segment_row = tx.prepare_cached(
        "INSERT INTO search_segments (id, artifact_id, place, position, byte_offset, byte_length) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut text_row = tx.prepare_cached("INSERT INTO search_fts (rowid, body) VALUES (?1, ?2)")?;
    for (id, segment) in (first..).zip(segments) {
        segment_row.execute(params![
            id,
            artifact_id,
            segment.place.as_str(),
            segment.position as i64,
            segment.byte_offset as i64,
            segment.byte_length as i64
        ])?;
        text_row.execute(params![id, segment.text])?;
    }
    Ok(Some(first))
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
    let mut call_segments: Vec<(i64, Vec<u32>)> = Vec::new();
    for (seq, server, tool, arguments, artifact_ids, result_text) in &calls {
        last = *seq;
        let ids: Vec<String> = serde_json::from_str(artifact_ids).unwrap_or_default();
        if ids.is_empty() {
            continue;
        }
        let segment = Segment { place: HitPlace::Call, position: 0, byte_offset: 0, byte_length: 0, text: call_segment_text(server, tool, arguments, result_text.as_deref()) };
        // The call's words once, for all its files.
        let mut tokens = Vec::new();
        let mut words = vocabulary::NewWords::new(generation);
        pairs::tokens_of(&segment.text, &mut tokens, &mut |word, folded, hash| words.meet(word, folded, hash));
        let mut written = false;
        for id in ids {
            let exists = tx.query_row("SELECT 1 FROM artifacts WHERE id = ?1", [&id], |_| Ok(())).optional()?.is_some();
            if exists {
                if let Some(segment_id) = insert_segments(&tx, &id, std::iter::once(&segment))? {
                    call_segments.push((segment_id, tokens.clone()));
                }
                written = true;
            }
        }
        if written {
            vocabulary::write(&tx, &words)?;
        }
    }
    // The calls' pairs, one block for the segments written here (their ids are scattered).
    if let (Some(lo), Some(hi)) = (call_segments.iter().map(|c| c.0).min(), call_segments.iter().map(|c| c.0).max()) {
        let span = (hi - lo + 1) as u64;
        let mut values: Vec<u64> = call_segments.iter().flat_map(|(id, tokens)| tokens.iter().map(move |t| u64::from(*t) * span + (id - lo) as u64)).collect();
        if let Some(block) = blocks::NewBlock::of_values(span, &mut values) {
            blocks::insert(&tx, lo, &block)?;
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
        "DROP TABLE IF EXISTS search_fts; {CREATE_TEXT}; DELETE FROM search_pair_blocks; DELETE FROM search_pair_chunks; DELETE FROM search_segments; DELETE FROM search_indexed; DELETE FROM search_attempts; DELETE FROM search_words; UPDATE search_calls SET audit_seq = 0, generation = generation + 1 WHERE id = 1;"
    ))?;
    tx.commit()?;
    Ok(())
}

/// `search_fts` as the migration creates it.
const CREATE_TEXT: &str = "CREATE VIRTUAL TABLE search_fts USING fts5(body, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2'); INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 16); INSERT INTO search_fts (search_fts, rank) VALUES ('crisismerge', 64)";

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

/// One step of merging the index's b-trees into one (about 2,000 pages written, one short
/// transaction); `false` when nothing was left to merge. FTS5 merges them as the index grows
/// only once 16 are on a level (each entry written again less often); after a run that wrote
/// much of the index, the indexer merges them whole: a smaller index, fewer b-trees for each
/// query to look into.
pub(crate) fn compact_step(conn: &Connection) -> Result<bool, StoreError> {
    let before = conn.total_changes();
    conn.execute("INSERT INTO search_fts (search_fts, rank) VALUES ('merge', -2000)", [])?;
    // Fewer than two changes: nothing was left to merge.
    Ok(conn.total_changes() - before >= 2)
}

/// Checks the index's structure; `Err` when FTS5 finds it damaged, or a pair block is.
pub(crate) fn check(conn: &Connection) -> Result<(), StoreError> {
    conn.execute("INSERT INTO search_fts (search_fts) VALUES ('integrity-check')", [])?;
    blocks::check(conn)
}

