//! The index's words, for prefixes: a word being typed is searched as the words it completes to
//! (read newest first, stopping at the hits wanted), which a b-tree of words lists in a fraction
//! of a millisecond. FTS5's own vocabulary table counts every completion's places as it lists
//! it (5–15 ms for a three-letter prefix at 10,000 files).
//!
//! The indexer adds each batch's new words (`search_words`). It remembers which words it has
//! written ([`KnownWords`], bounded), so a word already there costs a hash lookup, not a
//! statement; emptying the index empties the table and moves its generation on, which makes
//! every process forget what it remembered. Words of removed files stay until the index is
//! rebuilt: a completion that finds nothing costs its reader only. Words longer than
//! [`MAX_CHARS`] (identifiers, encoded data) are not completed.

use std::{
    collections::HashSet,
    hash::{BuildHasherDefault, Hasher},
};

use rusqlite::{params, Connection, Transaction};

use crate::error::StoreError;

/// A word longer than this is not listed.
const MAX_CHARS: usize = 64;
/// At most this many words are remembered (then forgotten at once, and written again as met).
const MAX_KNOWN: usize = 4_000_000;

/// A set of word hashes (already FNV-1a: mixed once more, not hashed again with SipHash, which
/// was a sixth of indexing's own time).
type HashSetOfHashes = HashSet<u64, BuildHasherDefault<MixHasher>>;

#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 << 8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// The words this process wrote to `search_words`, for the index's generation.
#[derive(Debug, Default)]
pub struct KnownWords {
    generation: i64,
    hashes: HashSetOfHashes,
}

/// The words of a batch not known to be written yet (each once).
#[derive(Debug, Default)]
pub(crate) struct NewWords {
    generation: i64,
    hashes: Vec<u64>,
    words: Vec<String>,
    seen: HashSetOfHashes,
}

impl NewWords {
    /// Collects for the index's current `generation`.
    pub(crate) fn new(generation: i64) -> Self {
        Self { generation, ..Default::default() }
    }

    /// A word met in the text (lowercased and folded but for ASCII case) with its hash: kept
    /// unless met already in this batch or remembered in `known`.
    pub(crate) fn meet(&mut self, known: &KnownWords, word: &str, hash: u64) {
        // The batch's own set first: small, so the common case stays in the cache.
        if !self.seen.insert(hash) || (known.generation == self.generation && known.hashes.contains(&hash)) {
            return;
        }
        if word.len() > MAX_CHARS * 4 || word.chars().nth(MAX_CHARS).is_some() {
            return;
        }
        self.hashes.push(hash);
        self.words.push(word.to_ascii_lowercase());
    }
}

/// The index's generation (moved on each time the index is emptied).
pub(crate) fn generation(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("SELECT generation FROM search_calls WHERE id = 1", [], |row| row.get(0))?)
}

/// Writes `words` in `tx`.
pub(crate) fn write(tx: &Transaction<'_>, words: &NewWords) -> Result<(), StoreError> {
    let mut insert = tx.prepare_cached("INSERT OR IGNORE INTO search_words (word) VALUES (?1)")?;
    for word in &words.words {
        insert.execute([word])?;
    }
    Ok(())
}

/// Remembers `words` as written (after their transaction committed).
pub(crate) fn remember(known: &mut KnownWords, words: NewWords) {
    if known.generation != words.generation {
        known.generation = words.generation;
        known.hashes.clear();
    }
    if known.hashes.len() + words.hashes.len() > MAX_KNOWN {
        known.hashes.clear();
    }
    known.hashes.extend(words.hashes);
}

/// The index's words that start with `prefix` (folded as the index folds it), when there are at
/// most `max`.
pub(crate) fn completions(conn: &Connection, prefix: &str, max: usize) -> Option<Vec<String>> {
    let prefix = super::terms::fold(prefix);
    let end = format!("{prefix}\u{10FFFF}");
    let mut stmt = conn.prepare_cached("SELECT word FROM search_words WHERE word >= ?1 AND word < ?2 ORDER BY word LIMIT ?3").ok()?;
    let words: Vec<String> = stmt.query_map(params![prefix, end, max as i64 + 1], |row| row.get(0)).ok()?.collect::<Result<_, _>>().ok()?;
    (words.len() <= max).then_some(words)
}
