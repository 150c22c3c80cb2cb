//! Pair blocks: which segments hold which adjacent word pairs, beside FTS5 rather than in it.
//!
//! A phrase is found by its words (FTS5) and its pairs' tokens ([`super::pairs`]). The tokens
//! used to be a second FTS5 column: as many entries as the words themselves, each hashed,
//! sorted and merged by FTS5 — half the indexer's time. Here each written batch's tokens become
//! one row (`search_pair_blocks`): the set of `token × span + segment offset`, Rice-coded with a
//! directory ([`super::rice`]), encoded on the indexer's reading thread, so the write is one
//! insert. Like FTS5's segments, blocks of a level are merged sixteen at a time into one of the
//! next (streamed, at most [`MAX_MERGED`] values: a bounded size in memory), outside the write
//! lock and without the connection (the indexer merges on its reading thread while the other
//! writes); a block too large to merge again stays as it is. A phrase's lookup reads, in each
//! block, the directory entries and the bucket of each of its tokens — a few dozen bytes. A
//! block is kept in rows of [`CHUNK`] bytes (`search_pair_chunks`), each within a page: one
//! large value is a chain of overflow pages that SQLite walks from its start to read any part
//! of it (a lookup read whole 10 MB blocks that way: 50 ms a phrase).
//!
//! Removing an artifact leaves its segments' values in the blocks: a segment found there is
//! still required to be in FTS5 with the phrase's words, and then the phrase is checked in its
//! text, so a stale value costs a lookup, never a wrong hit. A merge drops the values of
//! segments that are gone.

use std::{cmp::Reverse, collections::BinaryHeap};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::rice::{self, Damage, Encoder, Header};
use crate::error::StoreError;

/// Blocks of a level merged at once.
const FAN_IN: usize = 16;
/// A merge writes at most this many values (about 12 MB of block); larger blocks stay.
const MAX_MERGED: u64 = 8 << 20;
/// The level of a block that is not merged again.
const FINAL_LEVEL: i64 = 1_000;

/// A block encoded for segments not numbered yet (offsets from the first).
pub(crate) struct NewBlock {
    span: u64,
    data: Vec<u8>,
}

impl NewBlock {
    /// The block of segments `0..tokens.len()`, each with its sorted tokens; `None` when none
    /// has a pair.
    pub fn of_segments(tokens: &[Vec<u32>]) -> Option<Self> {
        let span = tokens.len() as u64;
        let mut values: Vec<u64> = tokens.iter().enumerate().flat_map(|(i, t)| t.iter().map(move |token| u64::from(*token) * span + i as u64)).collect();
        Self::of_values(span, &mut values)
    }

    /// The block of `values` (`token × span + offset`, any order, no repeats).
    pub fn of_values(span: u64, values: &mut [u64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        values.sort_unstable();
        let mut encoder = Encoder::new(span, values.len());
        values.iter().for_each(|v| encoder.push(*v));
        Some(NewBlock { span, data: encoder.finish() })
    }
}

/// Writes `block` for the segments numbered from `first`.
pub(crate) fn insert(tx: &rusqlite::Transaction<'_>, first: i64, block: &NewBlock) -> Result<(), StoreError> {
    write_block(tx, 0, first, block)
}

/// Bytes of a block per row of `search_pair_chunks` (a row fits in a page: read alone, where
/// one large value's overflow pages are walked from its start).
const CHUNK: usize = 1000;
/// A block's chunks are rows `id × CHUNK_IDS + n`.
const CHUNK_IDS: i64 = 1 << 16;

fn write_block(tx: &rusqlite::Transaction<'_>, level: i64, lo: i64, block: &NewBlock) -> Result<(), StoreError> {
    let entries = Header::parse(&block.data, block.data.len()).map_err(damaged)?.entries;
    tx.prepare_cached("INSERT INTO search_pair_blocks (level, lo, span, entries, bytes) VALUES (?1, ?2, ?3, ?4, ?5)")?
        .execute(params![level, lo, block.span as i64, entries, block.data.len() as i64])?;
    let id = tx.last_insert_rowid();
    let mut chunk = tx.prepare_cached("INSERT INTO search_pair_chunks (id, data) VALUES (?1, ?2)")?;
    for (n, bytes) in block.data.chunks(CHUNK).enumerate() {
        chunk.execute(params![id * CHUNK_IDS + n as i64, bytes])?;
    }
    Ok(())
}

/// Bytes `at .. at + len` of block `id` of `bytes` bytes.
fn read_block(conn: &Connection, id: i64, bytes: usize, at: usize, len: usize) -> Result<Vec<u8>, StoreError> {
    if at + len > bytes {
        return Err(damaged(Damage("a pair block is shorter than its directory says")));
    }
    let mut out = Vec::with_capacity(len);
    if len == 0 {
        return Ok(out);
    }
    let (first, last) = ((at / CHUNK) as i64, ((at + len - 1) / CHUNK) as i64);
    let mut stmt = conn.prepare_cached("SELECT data FROM search_pair_chunks WHERE id BETWEEN ?1 AND ?2 ORDER BY id")?;
    let mut rows = stmt.query(params![id * CHUNK_IDS + first, id * CHUNK_IDS + last])?;
    let mut skip = at - first as usize * CHUNK;
    while let Some(row) = rows.next()? {
        let rusqlite::types::ValueRef::Blob(chunk) = row.get_ref(0)? else {
            return Err(damaged(Damage("a pair block is not a blob")));
        };
        let from = skip.min(chunk.len());
        skip -= from;
        let take = (len - out.len()).min(chunk.len() - from);
        out.extend_from_slice(&chunk[from..from + take]);
    }
    if out.len() != len {
        return Err(damaged(Damage("a pair block is shorter than its directory says")));
    }
    Ok(out)
}

/// Removes block `id` and its chunks; how many blocks were removed.
fn delete_block(tx: &rusqlite::Transaction<'_>, id: i64) -> Result<usize, StoreError> {
    tx.execute("DELETE FROM search_pair_chunks WHERE id BETWEEN ?1 AND ?2", params![id * CHUNK_IDS, id * CHUNK_IDS + CHUNK_IDS - 1])?;
    Ok(tx.execute("DELETE FROM search_pair_blocks WHERE id = ?1", [id])?)
}

/// A block's header and directory, read once per process and kept: blocks never change, they
/// are only replaced by merges (ids are never reused: `AUTOINCREMENT`). A phrase's lookup then
/// reads one range of each block — its token's buckets.
pub(crate) struct Directory {
    header: Header,
    /// Bit offsets of the buckets' starts in the data, and the data's end.
    entries: Vec<u32>,
}

/// The directories of the blocks this process looked into, by block id.
#[derive(Default)]
pub struct Directories(std::collections::HashMap<i64, std::sync::Arc<Directory>>);

fn directory(conn: &Connection, id: i64, span: u64, bytes: usize) -> Result<Directory, StoreError> {
    let head = read_block(conn, id, bytes, 0, rice::HEADER_BYTES)?;
    let header = Header::parse(&head, bytes).map_err(damaged)?;
    if header.span != span {
        return Err(damaged(Damage("a pair block's span differs from its row's")));
    }
    let count = (1usize << header.d) + 1;
    let raw = read_block(conn, id, bytes, header.directory_offset(0), 4 * count)?;
    let entries: Vec<u32> = raw.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect();
    if entries.windows(2).any(|w| w[0] > w[1]) || header.data_start() as u64 + u64::from(entries[count - 1]).div_ceil(8) > bytes as u64 {
        return Err(damaged(Damage("a pair block's directory is out of order")));
    }
    Ok(Directory { header, entries })
}

/// The segments holding every one of `tokens`, newest (highest id) first. Segments of removed
/// artifacts may be among them (see the module's documentation).
pub(crate) fn segments_with(conn: &Connection, directories: &std::sync::Mutex<Directories>, tokens: &[u32]) -> Result<Vec<i64>, StoreError> {
    let blocks: Vec<(i64, i64, u64, usize)> = {
        let mut stmt = conn.prepare_cached("SELECT id, lo, span, bytes FROM search_pair_blocks")?;
        let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get::<_, i64>(2)? as u64, row.get::<_, i64>(3)?.max(0) as usize)))?;
        rows.collect::<Result<_, _>>()?
    };
    // The directories: those kept, those read now; those of blocks merged away forgotten.
    let looked_up: Vec<std::sync::Arc<Directory>> = {
        let mut kept = directories.lock().unwrap_or_else(|p| p.into_inner());
        let ids: std::collections::HashSet<i64> = blocks.iter().map(|b| b.0).collect();
        kept.0.retain(|id, _| ids.contains(id));
        blocks
            .iter()
            .map(|&(id, _, span, bytes)| match kept.0.get(&id) {
                Some(found) => Ok(found.clone()),
                None => {
                    let read = std::sync::Arc::new(directory(conn, id, span, bytes)?);
                    kept.0.insert(id, read.clone());
                    Ok(read)
                }
            })
            .collect::<Result<_, StoreError>>()?
    };
    let mut found: Vec<i64> = Vec::new();
    let mut in_block: Vec<u64> = Vec::new();
    let mut of_token: Vec<u64> = Vec::new();
    for ((id, lo, _, bytes), directory) in blocks.into_iter().zip(looked_up) {
        let header = &directory.header;
        for (i, token) in tokens.iter().enumerate() {
            of_token.clear();
            let (low, high) = header.range_of(*token);
            let buckets = header.buckets_of(*token);
            let entry = |b: usize| u64::from(directory.entries[b]);
            let (start, end) = (entry(*buckets.start()), entry(*buckets.end() + 1));
            let first_byte = start / 8;
            let data = read_block(conn, id, bytes, header.data_start() + first_byte as usize, (end.div_ceil(8) - first_byte) as usize)?;
            for bucket in buckets {
                let (from, to) = (entry(bucket), entry(bucket + 1));
                rice::decode_bucket(header, bucket, &data, from - first_byte * 8, to - first_byte * 8, &mut |v| {
                    if (low..high).contains(&v) {
                        of_token.push(v - low);
                    }
                })
                .map_err(damaged)?;
            }
            if i == 0 {
                std::mem::swap(&mut in_block, &mut of_token);
            } else {
                in_block.retain(|offset| of_token.binary_search(offset).is_ok());
            }
            if in_block.is_empty() {
                break;
            }
        }
        found.extend(in_block.drain(..).map(|offset| lo + offset as i64));
    }
    found.sort_unstable_by(|a, b| b.cmp(a));
    found.dedup();
    Ok(found)
}

fn damaged(damage: Damage) -> StoreError {
    StoreError::SearchDamaged(damage.0.to_owned())
}

/// A merge that is due, with what it reads (see [`plan_merge`]).
pub(crate) struct MergeInput {
    level: i64,
    /// (id, lo, span, entries, bytes) of each block merged, oldest first.
    group: Vec<(i64, i64, u64, u64, usize)>,
    blobs: Vec<Vec<u8>>,
    lo: i64,
    span: u64,
    /// The segments still there in `lo .. lo + span`, a bit each.
    live: Vec<u64>,
}

/// What a look for a merge found.
pub(crate) enum MergeDue {
    /// Nothing to merge.
    Nothing,
    /// A block too large to merge again was set aside (done: look again).
    SetAside,
    /// Blocks to merge ([`merge`] them, then [`commit_merge`]).
    Merge(MergeInput),
}

/// The merge that is due, if any: the oldest blocks of the lowest level with [`FAN_IN`] of
/// them, as many as fit in [`MAX_MERGED`] values, read with the segments still there; a block
/// too large to merge with the next is set aside at the final level here. The caller merges
/// them without holding the connection ([`merge`]), then commits ([`commit_merge`]).
pub(crate) fn plan_merge(conn: &mut Connection) -> Result<MergeDue, StoreError> {
    let level: Option<i64> = conn
        .query_row(
            "SELECT level FROM search_pair_blocks WHERE level < ?1 GROUP BY level HAVING COUNT(*) >= ?2 ORDER BY level LIMIT 1",
            params![FINAL_LEVEL, FAN_IN as i64],
            |row| row.get(0),
        )
        .optional()?;
    let Some(level) = level else { return Ok(MergeDue::Nothing) };
    let blocks: Vec<(i64, i64, u64, u64, usize)> = {
        let mut stmt = conn.prepare_cached("SELECT id, lo, span, entries, bytes FROM search_pair_blocks WHERE level = ?1 ORDER BY id LIMIT ?2")?;
        let rows = stmt.query_map(params![level, FAN_IN as i64], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get::<_, i64>(2)? as u64, row.get::<_, i64>(3)? as u64, row.get::<_, i64>(4)?.max(0) as usize))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let mut total = 0;
    let group: Vec<(i64, i64, u64, u64, usize)> = blocks
        .into_iter()
        .take_while(|b| {
            total += b.3;
            total <= MAX_MERGED
        })
        .collect();
    if group.len() < 2 {
        // The oldest block alone is as large as a merge may be: it stays as it is.
        conn.execute(
            "UPDATE search_pair_blocks SET level = ?1 WHERE id = (SELECT id FROM search_pair_blocks WHERE level = ?2 ORDER BY id LIMIT 1)",
            params![FINAL_LEVEL, level],
        )?;
        return Ok(MergeDue::SetAside);
    }
    let lo = group.iter().map(|b| b.1).min().unwrap_or(0);
    let hi = group.iter().map(|b| b.1 + b.2 as i64 - 1).max().unwrap_or(0);
    let span = (hi - lo + 1) as u64;
    let mut live = vec![0u64; span.div_ceil(64) as usize];
    {
        let mut stmt = conn.prepare_cached("SELECT id FROM search_segments WHERE id BETWEEN ?1 AND ?2")?;
        let mut rows = stmt.query(params![lo, hi])?;
        while let Some(row) = rows.next()? {
            let offset = (row.get::<_, i64>(0)? - lo) as usize;
            live[offset / 64] |= 1 << (offset % 64);
        }
    }
    let blobs: Vec<Vec<u8>> = group.iter().map(|b| read_block(conn, b.0, b.4, 0, b.4)).collect::<Result<_, _>>()?;
    Ok(MergeDue::Merge(MergeInput { level, group, blobs, lo, span, live }))
}

/// The blocks of `input` as one, without the values of segments that are gone (`None` when
/// nothing is left). Streamed: the blocks are held encoded (about 12 bits a value), never
/// decoded whole; no connection is needed.
pub(crate) fn merge(input: &MergeInput) -> Result<Option<NewBlock>, StoreError> {
    let (lo, span) = (input.lo, input.span);
    // Each block's values as (token, segment id), in order, merged through a heap.
    let mut streams = Vec::with_capacity(input.group.len());
    for ((_, block_lo, block_span, ..), blob) in input.group.iter().zip(&input.blobs) {
        let values = rice::Values::new(blob).map_err(damaged)?;
        if values.header().span != *block_span {
            return Err(damaged(Damage("a pair block's span differs from its row's")));
        }
        let (block_lo, block_span) = (*block_lo, *block_span);
        streams.push(values.map(move |v| v.map(|v| ((v / block_span) as u32, block_lo + (v % block_span) as i64))));
    }
    let expected: u64 = input.group.iter().map(|b| b.3).sum();
    let mut encoder = Encoder::new(span, expected as usize);
    let mut heap: BinaryHeap<Reverse<((u32, i64), usize)>> = BinaryHeap::new();
    for (i, stream) in streams.iter_mut().enumerate() {
        if let Some(first) = stream.next() {
            heap.push(Reverse((first.map_err(damaged)?, i)));
        }
    }
    let mut last: Option<u64> = None;
    while let Some(Reverse(((token, id), i))) = heap.pop() {
        if let Some(next) = streams[i].next() {
            heap.push(Reverse((next.map_err(damaged)?, i)));
        }
        let offset = (id - lo) as usize;
        let value = u64::from(token) * span + offset as u64;
        if input.live[offset / 64] & (1 << (offset % 64)) != 0 && last.is_none_or(|l| value > l) {
            encoder.push(value);
            last = Some(value);
        }
    }
    if encoder.entries() == 0 {
        return Ok(None);
    }
    Ok(Some(NewBlock { span, data: encoder.finish() }))
}

/// A merge done, to be committed ([`commit_merge_in`]): by the indexer's writer, in its next
/// transaction, so the reader that merged never waits for the catalog's lock.
pub struct MergedBlocks {
    input: MergeInput,
    merged: Option<NewBlock>,
}

/// [`merge`]s `input`.
pub(crate) fn merged(input: MergeInput) -> Result<MergedBlocks, StoreError> {
    let merged = merge(&input)?;
    Ok(MergedBlocks { input, merged })
}

/// Replaces `input`'s blocks with `merged`, one level up; `false` when they are gone (the index
/// was emptied meanwhile: nothing is written).
pub(crate) fn commit_merge(conn: &mut Connection, merged: MergedBlocks) -> Result<bool, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let done = commit_merge_in(&tx, merged)?;
    tx.commit()?;
    Ok(done)
}

/// [`commit_merge`] in the caller's transaction.
pub(crate) fn commit_merge_in(tx: &rusqlite::Transaction<'_>, merged: MergedBlocks) -> Result<bool, StoreError> {
    let MergedBlocks { input, merged } = merged;
    let mut there = tx.prepare_cached("SELECT 1 FROM search_pair_blocks WHERE id = ?1")?;
    for (id, ..) in &input.group {
        if !there.exists([id])? {
            return Ok(false);
        }
    }
    for (id, ..) in &input.group {
        delete_block(tx, *id)?;
    }
    if let Some(merged) = merged {
        write_block(tx, input.level + 1, input.lo, &merged)?;
    }
    Ok(true)
}

/// Reads every block whole; `Err` for the first damaged one.
pub(crate) fn check(conn: &Connection) -> Result<(), StoreError> {
    let blocks: Vec<(i64, i64, i64, usize)> = {
        let mut stmt = conn.prepare("SELECT id, span, entries, bytes FROM search_pair_blocks")?;
        let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get::<_, i64>(3)?.max(0) as usize)))?;
        rows.collect::<Result<_, _>>()?
    };
    for (id, span, entries, bytes) in blocks {
        let data = read_block(conn, id, bytes, 0, bytes)?;
        let header = rice::decode_all(&data, &mut |_| {}).map_err(damaged)?;
        if header.span != span as u64 || i64::from(header.entries) != entries {
            return Err(damaged(Damage("a pair block's header differs from its row")));
        }
    }
    Ok(())
}
