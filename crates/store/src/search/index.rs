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
/// (then [`Prepared::drop_known`] drops those already written). Each segment's text becomes its
/// distinct words, as they are in the text, for FTS5: with no positions kept, FTS5 needs only
/// which words a segment has, and reading each once is about half the tokens to read, hash and
/// look up inside the write lock.
pub(crate) fn prepare(batch: &mut IndexBatch) -> Prepared {
    let mut words = vocabulary::NewWords::new(0);
    let mut in_segment = vocabulary::HashSetOfHashes::default();
    let mut tokens = Vec::new();
    let mut all: Vec<Vec<u32>> = Vec::with_capacity(batch.segments.len());
    let mut text_bytes = 0;
    for segment in &mut batch.segments {
        in_segment.clear();
        let mut body = String::with_capacity(segment.text.len() / 2);
        pairs::tokens_of(&segment.text, &mut tokens, &mut |raw, word, folded, hash| {
            // Forms FTS5 may fold apart from ours are each kept, as in the vocabulary.
            let key = if word.is_ascii() { hash } else { pairs::hash(word) };
            if in_segment.insert(key) {
                body.push_str(raw);
                body.push(' ');
                words.meet(word, folded, hash);
            }
        });
        all.push(std::mem::take(&mut tokens));
        text_bytes += body.len();
        segment.text = body;
    }
    batch.text_bytes = text_bytes;
    Prepared { block: blocks::NewBlock::of_segments(&all), words }
}

/// The words of `batch` once [`prepare`]d, for a vocabulary emptied since.
fn words_again(batch: &IndexBatch) -> vocabulary::NewWords {
    let mut words = vocabulary::NewWords::new(0);
    let mut tokens = Vec::new();
    for segment in &batch.segments {
        pairs::tokens_of(&segment.text, &mut tokens, &mut |_, word, folded, hash| words.meet(word, folded, hash));
    }
    words
}

impl Prepared {
    /// Drops the words `known` remembers as written, and takes its generation ([`write`] checks
    /// that it is still the index's).
    pub(crate) fn drop_known(&mut self, known: &KnownWords) {
        self.words.drop_known(known);
    }
}

/// One of the indexer's writes, in the order it read them (see [`apply`]).
pub enum IndexStep {
    /// An artifact is read again from its start: drop what an earlier run left of its text.
    Restart(String),
    /// A batch of its segments, its words read.
    Batch(PreparedBatch),
    /// Its text was read whole: mark it indexed (with a note of what was left out).
    Finish {
        /// The artifact.
        artifact_id: String,
        /// When (ms since the epoch).
        now_ms: i64,
        /// What was left out (a bound reached, a file that could not be read), if anything.
        note: Option<String>,
    },
    /// Pair blocks merged off the lock ([`crate::SearchReader::merge`]): replace them.
    Merged(blocks::MergedBlocks),
}

impl IndexStep {
    /// Bytes of text it writes.
    pub fn text_bytes(&self) -> usize {
        match self {
            IndexStep::Batch(batch) => batch.batch.text_bytes,
            _ => 0,
        }
    }
}

/// What [`apply`] wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// Artifacts marked indexed.
    pub artifacts: usize,
    /// Segments written.
    pub segments: usize,
}

/// Applies `steps` in order in one transaction (FTS5 writes its in-memory terms out once per
/// transaction: a few batches together cost much less than each alone). An artifact removed
/// meanwhile has nothing written. Returns what was written and the batches' words, which the
/// caller remembers once it is committed ([`remember`]).
pub(crate) fn apply(conn: &mut Connection, steps: Vec<IndexStep>) -> Result<(Applied, Vec<Prepared>), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let generation = vocabulary::generation(&tx)?;
    let mut applied = Applied::default();
    let mut written: Vec<(IndexBatch, Prepared)> = Vec::new();
    // FTS5's rows: (segment id, batch, segment), written last, by id. FTS5 writes its terms out
    // whenever a row's id is below the last one's, and a rebuild numbers batches downwards.
    let mut texts: Vec<(i64, usize, usize)> = Vec::new();
    // The last artifact looked up, and whether it is still stored.
    let mut exists: Option<(String, bool)> = None;
    let mut still_stored = |tx: &rusqlite::Transaction<'_>, id: &str| -> Result<bool, StoreError> {
        if let Some((known, there)) = &exists {
            if known == id {
                return Ok(*there);
            }
        }
        let there = tx.query_row("SELECT 1 FROM artifacts WHERE id = ?1", [id], |_| Ok(())).optional()?.is_some();
        exists = Some((id.to_owned(), there));
        Ok(there)
    };
    for step in steps {
        match step {
            IndexStep::Restart(artifact_id) => {
                drop_leftovers(&tx, &artifact_id)?;
            }
            IndexStep::Batch(PreparedBatch { batch, mut prepared }) => {
                if !still_stored(&tx, &batch.artifact_id)? {
                    continue;
                }
                if generation != prepared.words.generation() {
                    // The index was emptied since the words were read: what was remembered is gone too.
                    prepared.words = words_again(&batch);
                    prepared.drop_known(&KnownWords::fresh(generation));
                }
                let first = insert_segment_rows(&tx, &batch.artifact_id, batch.segments.iter())?;
                if let Some(first) = first {
                    texts.extend((0..batch.segments.len()).map(|n| (first + n as i64, written.len(), n)));
                    if let Some(block) = &prepared.block {
                        blocks::insert(&tx, first, block)?;
                    }
                }
                vocabulary::write(&tx, &prepared.words)?;
                applied.segments += batch.segments.len();
                written.push((batch, prepared));
            }
            IndexStep::Merged(merged) => {
                blocks::commit_merge_in(&tx, merged)?;
            }
            IndexStep::Finish { artifact_id, now_ms, note } => {
                if still_stored(&tx, &artifact_id)? {
                    finish(&tx, &artifact_id, now_ms, note.as_deref())?;
                    applied.artifacts += 1;
                }
            }
        }
    }
    texts.sort_unstable();
    {
        let mut text_row = tx.prepare_cached("INSERT INTO search_fts (rowid, body) VALUES (?1, ?2)")?;
        for (id, batch, n) in texts {
            text_row.execute(params![id, written[batch].0.segments[n].text])?;
        }
    }
    tx.commit()?;
    Ok((applied, written.into_iter().map(|(_, prepared)| prepared).collect()))
}

/// Writes `batch`, unless its artifact was removed meanwhile (then nothing, `None`); the words
/// written, which the caller remembers ([`remember`]).
pub(crate) fn write(conn: &mut Connection, batch: IndexBatch, prepared: Prepared) -> Result<Option<Prepared>, StoreError> {
    let (_, mut written) = apply(conn, vec![IndexStep::Batch(PreparedBatch { batch, prepared })])?;
    let prepared = written.pop();
    Ok(prepared)
}

/// Remembers what a committed [`write`] added to the vocabulary.
pub(crate) fn remember(known: &mut KnownWords, prepared: Prepared) {
    vocabulary::remember(known, prepared.words);
}

/// Writes `segments` after the artifact's others, their text too; returns the first one's id
/// (`None` when there are none).
fn insert_segments<'a>(tx: &rusqlite::Transaction<'_>, artifact_id: &str, segments: impl ExactSizeIterator<Item = &'a Segment> + Clone) -> Result<Option<i64>, StoreError> {
    let first = insert_segment_rows(tx, artifact_id, segments.clone())?;
    if let Some(first) = first {
        let mut text_row = tx.prepare_cached("INSERT INTO search_fts (rowid, body) VALUES (?1, ?2)")?;
        for (id, segment) in (first..).zip(segments) {
            text_row.execute(params![id, segment.text])?;
        }
    }
    Ok(first)
}

/// Numbers `segments` after the artifact's others and writes their rows (not their text);
/// returns the first one's id (`None` when there are none).
fn insert_segment_rows<'a>(tx: &rusqlite::Transaction<'_>, artifact_id: &str, segments: impl ExactSizeIterator<Item = &'a Segment>) -> Result<Option<i64>, StoreError> {
    if segments.len() == 0 {
        return Ok(None);
    }
    let first = first_segment_id(tx, artifact_id, segments.len())?;
    let mut segment_row = tx.prepare_cached(
        "INSERT INTO search_segments (id, artifact_id, place, position, byte_offset, byte_length) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (id, segment) in (first..).zip(segments) {
        segment_row.execute(params![
            id,
            artifact_id,
            segment.place.as_str(),
            segment.position as i64,
            segment.byte_offset as i64,
            segment.byte_length as i64
        ])?;
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
        pairs::tokens_of(&segment.text, &mut tokens, &mut |_, word, folded, hash| words.meet(word, folded, hash));
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
const CREATE_TEXT: &str = "CREATE VIRTUAL TABLE search_fts USING fts5(body, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2'); INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 16); INSERT INTO search_fts (search_fts, rank) VALUES ('crisismerge', 64); INSERT INTO search_fts (search_fts, rank) VALUES ('hashsize', 16777216)";

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

