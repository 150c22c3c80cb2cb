//! Adjacent word pairs, hashed into index tokens: how a phrase is found without positions.
//!
//! The index keeps no positions (`detail = none`: a quarter of the size of one with them), so
//! a phrase's words alone find every place where they are both, adjacent or not: for two words
//! of middling frequency, tens of thousands of places in a large store, each to be read again
//! to check the phrase. So every pair of adjacent words of a segment is also written, hashed
//! into one of 2^[`BITS`] tokens (kept in pair blocks beside the index: [`super::blocks`]), and
//! a phrase requires its pairs' tokens besides its words: a place is read again only when the phrase's words are
//! adjacent in it, or when another pair of its words shares the hash (about one place in 700 of
//! those holding both words; the text check refuses it).
//!
//! A word pairs when it has [`MIN_CHARS`] or more characters and is not only digits: "of the"
//! would pair in nearly every place, and a number is rare enough that its word alone narrows a
//! phrase. The hash is stable: it is written into the index.

/// log2 of the number of distinct pair tokens.
pub(crate) const BITS: u32 = 20;
/// A word shorter than this does not pair.
const MIN_CHARS: usize = 3;
/// Words pair on their first this many characters, as [`super::Terms`] cuts typed ones.
const WORD_CHARS: usize = 64;

/// The token of the pair `first second` (both lowercased and folded, as [`super::Terms`] has
/// its words), or `None` when one of them does not pair.
pub(crate) fn token(first: &str, second: &str) -> Option<u32> {
    (pairs_with(first) && pairs_with(second)).then(|| pair_hash(hash(first), hash(second)))
}

/// One pass over the words of `text` (split as the index's tokenizer splits them): sets `hashes` to
/// the tokens of its pairs of adjacent words, sorted, each once, and gives
/// each word to `word` for the index's vocabulary: lowercased (ASCII left as it is: the hash
/// and the vocabulary lowercase it), folded as [`super::Terms`] folds typed words, and the
/// folded form's [`hash`], after the word as it is in the text.
pub(crate) fn tokens_of(text: &str, hashes: &mut Vec<u32>, word: &mut dyn FnMut(&str, &str, &str, u64)) {
    hashes.clear();
    let mut previous: Option<u64> = None;
    for raw in text.split(|c: char| !super::terms::is_word_char(c)).filter(|w| !w.is_empty()) {
        // The word's hash for its pairs (of its first characters), and whether it pairs.
        let (pair_hash_of_word, pairs) = if raw.is_ascii() {
            let key = hash(raw);
            word(raw, raw, raw, key);
            let cut = if raw.len() > WORD_CHARS { hash(&raw[..WORD_CHARS]) } else { key };
            (cut, pairs_with(&raw[..raw.len().min(WORD_CHARS)]))
        } else {
            let lower: String = raw.chars().flat_map(char::to_lowercase).collect();
            let folded = super::terms::fold(&lower);
            let key = hash(&folded);
            word(raw, &lower, &folded, key);
            // Typed words are cut before they are lowercased and folded: so is this one.
            match raw.char_indices().nth(WORD_CHARS) {
                Some((end, _)) => {
                    let cut = super::terms::fold(&raw[..end].chars().flat_map(char::to_lowercase).collect::<String>());
                    (hash(&cut), pairs_with(&cut))
                }
                None => (key, pairs_with(&folded)),
            }
        };
        let current = pairs.then_some(pair_hash_of_word);
        if let (Some(a), Some(b)) = (previous, current) {
            hashes.push(pair_hash(a, b));
        }
        previous = current;
    }
    hashes.sort_unstable();
    hashes.dedup();
}

/// Whether `word` pairs (see the module's documentation).
fn pairs_with(word: &str) -> bool {
    word.chars().take(MIN_CHARS).count() >= MIN_CHARS && !word.bytes().all(|b| b.is_ascii_digit())
}

/// FNV-1a of a word, ASCII lowercased on the way (stable: pair tokens are written with it).
pub(crate) fn hash(word: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in word.bytes() {
        hash ^= u64::from(byte.to_ascii_lowercase());
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn pair_hash(first: u64, second: u64) -> u32 {
    let mixed = (first.rotate_left(21) ^ second).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> (64 - BITS)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        tokens_of(text, &mut out, &mut |_, _, _, _| {});
        out
    }

    #[test]
    fn a_text_gives_each_pair_once_and_only_pairs_of_words() {
        let tokens = tokens("Net revenue, net REVENUE of 2024 rose");
        // "net revenue" (twice, once written), "revenue net"; "revenue of", "of 2024", "2024
        // rose": a short word or a number does not pair.
        assert_eq!(tokens.len(), 2, "{tokens:?}");
        assert!(tokens.contains(&token("net", "revenue").unwrap()));
        assert!(tokens.contains(&token("revenue", "net").unwrap()));
        assert!(tokens.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert_eq!(token("of", "the"), None);
        assert_eq!(token("invoice", "12345"), None);
        assert!(token("q3x", "2024a").is_some(), "letters and digits together pair");
    }

    #[test]
    fn tokens_ignore_case_and_diacritics_as_the_words_do() {
        assert_eq!(tokens("Crème BRÛLÉE"), vec![token("creme", "brulee").unwrap()]);
        assert_ne!(token("creme", "brulee"), token("brulee", "creme"), "order counts");
        assert!(token("quarterly", "revenue").unwrap() < 1 << BITS);
    }
}
