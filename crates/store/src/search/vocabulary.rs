//! The index's words, for prefixes: a word being typed is searched as the words it completes to
//! (read newest first, stopping at the hits wanted), which a b-tree of words lists in a fraction
//! of a millisecond. FTS5's own vocabulary table counts every completion's places as it lists
//! it (5–15 ms for a three-letter prefix at 10,000 files).
//!
//! The indexer adds each batch's new words (`search_words`). It remembers which words it has
//! written ([`KnownWords`], bounded), so a word already there costs a hash lookup, not a
//! statement; emptying the index empties the table and moves its generation on, which makes
//! every process forget what it remembered. Words of removed files stay until the index is
//! rebuilt: a completion that finds nothing costs its reader only. A word is listed as typed
//! words are folded (the key looked up) and as FTS5 is to be asked for it (FTS5 folds fewer
//! accents than we do: "сергей" stays itself there). Words longer than [`MAX_CHARS`]
//! (identifiers, encoded data) are listed by their start and a mark: a prefix reaching one is
//! searched as FTS5's own prefix.

use std::{
    collections::HashSet,
    hash::{BuildHasherDefault, Hasher},
};

use rusqlite::{params, Connection, Transaction};

use crate::error::StoreError;

/// A word longer than this is listed by its first characters and [`LONG`].
const MAX_CHARS: usize = 64;
/// Ends the key of a word longer than [`MAX_CHARS`] (a noncharacter: never in text).
const LONG: char = '\u{10FFFE}';
/// At most this many words are remembered (then forgotten at once, and written again as met).
const MAX_KNOWN: usize = 2_000_000;

/// A set of word hashes (already FNV-1a: mixed once more, not hashed again with SipHash, which
/// was a sixth of indexing's own time).
pub(crate) type HashSetOfHashes = HashSet<u64, BuildHasherDefault<MixHasher>>;

#[derive(Default)]
pub(crate) struct MixHasher(u64);

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
    /// `(key, word)` rows: the word folded as typed words are, and as FTS5 is to be asked for it
    /// (empty when the same).
    /// Kept in one string (`text`), each row its key's end and its word's end there (a row
    /// starts where the last one ended): one allocation for a batch's tens of thousands.
    rows: Vec<(u32, u32)>,
    text: String,
    seen: HashSetOfHashes,
}

impl KnownWords {
    /// Nothing remembered, for `generation`.
    pub(crate) fn fresh(generation: i64) -> Self {
        Self { generation, ..Default::default() }
    }
}

impl NewWords {
    /// Collects for the index's current `generation`.
    pub(crate) fn new(generation: i64) -> Self {
        Self { generation, ..Default::default() }
    }

    /// The generation it was collected for.
    pub(crate) fn generation(&self) -> i64 {
        self.generation
    }

    /// A word met in the text: lowercased (ASCII may still have capitals), `folded` as typed
    /// words are, and the folded form's hash. Kept unless met already in this batch (the words
    /// remembered as written are dropped afterwards, in one pass: [`Self::drop_known`]).
    pub(crate) fn meet(&mut self, word: &str, folded: &str, folded_hash: u64) {
        // Forms FTS5 may fold apart from ours ("сергей", "сергеи") are each a row.
        let hash = if word.is_ascii() { folded_hash } else { super::pairs::hash(word) };
        if !self.seen.insert(hash) {
            return;
        }
        self.hashes.push(hash);
        match folded.char_indices().nth(MAX_CHARS) {
            // A long word is listed by its first characters and a mark, which makes a prefix
            // that reaches it FTS5's own (see `completions`).
            Some((end, _)) => {
                self.text.extend(folded[..end].chars().map(|c| c.to_ascii_lowercase()));
                self.text.push(LONG);
                let key_end = self.text.len() as u32;
                self.rows.push((key_end, key_end));
            }
            None => {
                let start = self.text.len();
                self.text.extend(folded.chars().map(|c| c.to_ascii_lowercase()));
                let key_end = self.text.len();
                // The word as FTS5 is to be asked for it, when it differs from the key.
                let same = word.len() == key_end - start && word.bytes().zip(self.text[start..key_end].bytes()).all(|(a, b)| a.to_ascii_lowercase() == b);
                if !same {
                    self.text.extend(word.chars().map(|c| c.to_ascii_lowercase()));
                }
                self.rows.push((key_end as u32, self.text.len() as u32));
            }
        }
    }

    /// The `(key, word)` rows (`word` empty when it is the key).
    fn rows(&self) -> impl Iterator<Item = (&str, &str)> {
        let mut start = 0usize;
        self.rows.iter().map(move |&(key_end, word_end)| {
            let (key_end, word_end) = (key_end as usize, word_end as usize);
            let row = (&self.text[start..key_end], &self.text[key_end..word_end]);
            start = word_end;
            row
        })
    }
}

impl NewWords {
    /// Drops the words `known` remembers as written, and takes its generation: one pass over
    /// the batch's distinct words (the indexer's writer waits for `known` meanwhile, not for
    /// the reading of the whole batch).
    pub(crate) fn drop_known(&mut self, known: &KnownWords) {
        self.generation = known.generation;
        let (rows, text) = (std::mem::take(&mut self.rows), std::mem::take(&mut self.text));
        let mut rows = rows.into_iter();
        let mut start = 0usize;
        self.hashes.retain(|hash| {
            let (key_end, word_end) = rows.next().map_or((start, start), |(k, w)| (k as usize, w as usize));
            let (key, word) = (&text[start..key_end], &text[key_end..word_end]);
            start = word_end;
            let keep = !known.hashes.contains(hash);
            if keep {
                self.text.push_str(key);
                let key_end = self.text.len() as u32;
                self.text.push_str(word);
                self.rows.push((key_end, self.text.len() as u32));
            }
            keep
        });
        self.seen = HashSetOfHashes::default();
    }
}

/// The index's generation (moved on each time the index is emptied).
pub(crate) fn generation(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("SELECT generation FROM search_calls WHERE id = 1", [], |row| row.get(0))?)
}

/// Writes `words` in `tx`.
pub(crate) fn write(tx: &Transaction<'_>, words: &NewWords) -> Result<(), StoreError> {
    let mut insert = tx.prepare_cached("INSERT OR IGNORE INTO search_words (key, word) VALUES (?1, ?2)")?;
    for (key, word) in words.rows() {
        insert.execute([key, word])?;
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

/// The index's words that start with `prefix` (folded as typed words are), as FTS5 is to be
/// asked for them, when there are at most `max` and none is longer than [`MAX_CHARS`].
pub(crate) fn completions(conn: &Connection, prefix: &str, max: usize) -> Option<Vec<String>> {
    let prefix = super::terms::fold(prefix);
    let end = format!("{prefix}\u{10FFFF}");
    let mut stmt = conn.prepare_cached("SELECT key, word FROM search_words WHERE key >= ?1 AND key < ?2 ORDER BY key LIMIT ?3").ok()?;
    let rows: Vec<(String, String)> = stmt.query_map(params![prefix, end, max as i64 + 1], |row| Ok((row.get(0)?, row.get(1)?))).ok()?.collect::<Result<_, _>>().ok()?;
    if rows.len() > max || rows.iter().any(|(key, _)| key.ends_with(LONG)) {
        return None;
    }
    Some(rows.into_iter().map(|(key, word)| if word.is_empty() { key } else { word }).collect())
}
