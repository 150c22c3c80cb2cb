//! What a person types into a search box, as a safe FTS5 query and as terms to highlight.
//!
//! Nothing typed reaches FTS5's query syntax: every word and every quoted phrase is passed as an
//! FTS5 string (`"…"`, inner quotes doubled), so `AND`, `NEAR`, `-`, `*`, `:` and parentheses
//! are words to find, not operators. What the box offers instead:
//! - words are all required (AND), in any order;
//! - `"two words"` is a phrase (an unbalanced quote is an ordinary character);
//! - a word ending in `*` is a prefix, and so is the last word while it is being typed (no
//!   space after it yet): results as you type.

/// One thing to find: a word or a phrase, possibly a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The words, lowercased (one for a word, several for a phrase).
    pub words: Vec<String>,
    /// Whether the last word is a prefix.
    pub prefix: bool,
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Terms {
    /// Everything to find; empty when the text has no word in it.
    pub terms: Vec<Term>,
}

/// More than this many terms are ignored (a pasted page is not a query).
const MAX_TERMS: usize = 32;
/// A word longer than this is cut (no token in the index is longer in practice).
const MAX_WORD_CHARS: usize = 64;

impl Terms {
    /// Parses `text` (see the module's documentation).
    pub fn parse(text: &str) -> Self {
        let mut terms = Vec::new();
        let typing = !text.ends_with(char::is_whitespace);
        let quotes = text.matches('"').count();
        // With an odd count, the last quote is an ordinary character.
        let balanced_quotes = quotes - quotes % 2;
        let mut seen_quotes = 0;
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == '"' && seen_quotes < balanced_quotes {
                seen_quotes += 2;
                let inner = &rest[1..];
                let end = inner.find('"').unwrap_or(inner.len());
                let words = words_of(&inner[..end]);
                if !words.is_empty() {
                    terms.push(Term { words, prefix: false });
                }
                rest = inner.get(end + 1..).unwrap_or("");
                continue;
            }
            if c.is_whitespace() {
                rest = &rest[c.len_utf8()..];
                continue;
            }
            let end = rest.find(|c: char| c.is_whitespace() || (c == '"' && seen_quotes < balanced_quotes)).unwrap_or(rest.len());
            let raw = &rest[..end];
            rest = &rest[end..];
            let words = words_of(raw);
            if words.is_empty() {
                continue;
            }
            let starred = raw.ends_with('*');
            // While typing, a prefix of one character would match most of the index: not yet.
            let last_typed = typing && rest.is_empty() && words.last().is_some_and(|w| w.chars().count() >= 2);
            terms.push(Term { prefix: starred || last_typed, words });
        }
        terms.truncate(MAX_TERMS);
        Terms { terms }
    }

    /// Whether there is nothing to search for.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The FTS5 `MATCH` expression: every word as a quoted string, all of them required (the
    /// index keeps no positions: a phrase's pairs are looked up in the pair blocks, see
    /// [`Self::pair_tokens`], and [`Self::phrases_in`] checks the order in the text).
    pub fn fts5(&self) -> String {
        self.fts5_with(&mut |_| None)
    }

    /// The tokens of the phrases' pairs of adjacent words (see [`super::pairs`]; the last word
    /// of a prefix phrase is not whole yet), sorted, each once: a segment holding a phrase has
    /// them all.
    pub fn pair_tokens(&self) -> Vec<u32> {
        let mut tokens: Vec<u32> = Vec::new();
        for term in &self.terms {
            let whole = term.words.len() - usize::from(term.prefix);
            for pair in term.words[..whole].windows(2) {
                tokens.extend(super::pairs::token(&fold(&pair[0]), &fold(&pair[1])));
            }
        }
        tokens.sort_unstable();
        tokens.dedup();
        tokens
    }

    /// [`Self::fts5`], with each prefix given as the words it completes to when `completions`
    /// knows them (`Some`: the index's words that start with it), else as an FTS5 prefix.
    pub fn fts5_with(&self, completions: &mut dyn FnMut(&str) -> Option<Vec<String>>) -> String {
        let quote = |word: &str| format!("\"{}\"", word.replace('"', "\"\""));
        let mut parts: Vec<String> = Vec::new();
        for term in &self.terms {
            for (i, word) in term.words.iter().enumerate() {
                if !(term.prefix && i + 1 == term.words.len()) {
                    parts.push(quote(word));
                    continue;
                }
                parts.push(match completions(word) {
                    // Nothing in the index starts with it: the prefix itself finds nothing, fast.
                    Some(words) if words.is_empty() => format!("{}*", quote(word)),
                    Some(words) => format!("({})", words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" OR ")),
                    None => format!("{}*", quote(word)),
                });
            }
        }
        parts.join(" AND ")
    }

    /// Whether every phrase searched for is in `text`, its words one after another (words
    /// compared as the index's tokenizer does: case and diacritics ignored). True when there is
    /// no phrase.
    ///
    /// One pass over the words of `text`, allocating only for a word with a non-ASCII letter
    /// (a shift-and match: bit `i` of a phrase's state says the words so far end with its first
    /// `i + 1` words). A phrase is checked at every place whose segment has its words, so this
    /// runs over many kilobytes for each one found.
    pub fn phrases_in(&self, text: &str) -> bool {
        let phrases: Vec<(Vec<String>, bool)> =
            self.terms.iter().filter(|t| t.words.len() > 1).map(|t| (t.words.iter().map(|w| fold(w)).collect(), t.prefix)).collect();
        if phrases.is_empty() {
            return true;
        }
        if phrases.iter().any(|(words, _)| words.len() > 64) {
            // Longer than a state holds: word by word.
            let tokens: Vec<String> = words_of(text).iter().map(|w| fold(w)).collect();
            return phrases.iter().all(|(words, prefix)| {
                tokens.windows(words.len()).any(|window| window.iter().zip(words).enumerate().all(|(i, (token, word))| word_matches(token, word, *prefix && i + 1 == words.len())))
            });
        }
        let mut states = vec![0u64; phrases.len()];
        let mut found = vec![false; phrases.len()];
        let mut folded = String::new();
        for raw in text.split(|c: char| !is_word_char(c)).filter(|w| !w.is_empty()) {
            let token: &str = if raw.is_ascii() {
                &raw[..raw.len().min(MAX_WORD_CHARS)]
            } else {
                folded.clear();
                folded.push_str(&fold(&raw.chars().take(MAX_WORD_CHARS).flat_map(char::to_lowercase).collect::<String>()));
                &folded
            };
            for (p, (words, prefix)) in phrases.iter().enumerate() {
                let last = words.len() - 1;
                let mut matching = 0u64;
                for (i, word) in words.iter().enumerate() {
                    if word_matches(token, word, *prefix && i == last) {
                        matching |= 1 << i;
                    }
                }
                states[p] = ((states[p] << 1) | 1) & matching;
                if states[p] & (1 << last) != 0 {
                    found[p] = true;
                }
            }
            if found.iter().all(|f| *f) {
                return true;
            }
        }
        false
    }

    /// The PostgreSQL `to_tsquery('simple', …)` text: words joined by `&`, phrases by `<->`,
    /// prefixes with `:*`. Only letters and digits reach it, so no operator is ever typed in.
    pub fn tsquery(&self) -> String {
        let parts: Vec<String> = self
            .terms
            .iter()
            .map(|term| {
                let words: Vec<String> = term.words.iter().map(|w| w.chars().filter(|c| c.is_alphanumeric()).collect()).collect();
                let joined = format!("{}{}", words.join(" <-> "), if term.prefix { ":*" } else { "" });
                if words.len() > 1 { format!("({joined})") } else { joined }
            })
            .collect();
        parts.join(" & ")
    }

    /// Whether `word` (lowercased) is one of the words searched for: equal, or starting with a
    /// prefix term's word. Used to highlight snippets.
    pub fn matches_word(&self, word: &str) -> bool {
        self.terms.iter().any(|term| {
            term.words.iter().enumerate().any(|(i, w)| {
                let is_prefix = term.prefix && i + 1 == term.words.len();
                if is_prefix { word.starts_with(w.as_str()) } else { word == w }
            })
        })
    }
}

/// Whether `token` (as it is in the text: lowercased already when it is not ASCII) is `word`
/// (lowercased, folded), or starts with it when `prefix`.
fn word_matches(token: &str, word: &str, prefix: bool) -> bool {
    if prefix {
        token.len() >= word.len() && token.is_char_boundary(word.len()) && token[..word.len()].eq_ignore_ascii_case(word)
    } else {
        token.eq_ignore_ascii_case(word)
    }
}

/// Whether `c` is part of a word as the index's tokenizer (`unicode61 remove_diacritics 2`)
/// sees it: letters, digits and private-use characters, and the combining accents U+0300–U+0331,
/// which it keeps inside a word and then removes; other marks (a Devanagari vowel sign, U+0332)
/// separate words. Every split of text into words here follows it, so what is typed, what the
/// pairs and the word list are written with, and what the index holds agree.
pub(super) fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    ('\u{300}'..='\u{331}').contains(&c)
        || matches!(u32::from(c), 0xE000..=0xF8FF | 0xF_0000..=0xF_FFFD | 0x10_0000..=0x10_FFFD)
        || (c.is_alphanumeric() && !unicode_normalization::char::is_combining_mark(c))
}

/// The words of `text` as the index's tokenizer sees them: runs of letters and digits,
/// lowercased, with the diacritics a search should ignore left to the tokenizer.
pub(crate) fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().take(MAX_WORD_CHARS).flat_map(char::to_lowercase).collect())
        .collect()
}

/// `word` without its diacritics (as `remove_diacritics 2` folds them): canonical decomposition,
/// combining marks dropped.
pub(super) fn fold(word: &str) -> String {
    use unicode_normalization::{char::is_combining_mark, UnicodeNormalization};
    if word.is_ascii() {
        return word.to_owned();
    }
    word.nfd().filter(|c| !is_combining_mark(*c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fts(text: &str) -> String {
        Terms::parse(text).fts5()
    }

    #[test]
    fn a_single_letter_being_typed_is_not_yet_a_prefix() {
        assert_eq!(fts("q"), r#""q""#);
        assert_eq!(fts("qu"), r#""qu"*"#);
        assert_eq!(fts("q*"), r#""q"*"#);
    }

    #[test]
    fn words_are_required_and_the_last_one_is_a_prefix_while_typed() {
        assert_eq!(fts("quarterly rev"), r#""quarterly" AND "rev"*"#);
        assert_eq!(fts("quarterly revenue "), r#""quarterly" AND "revenue""#);
        assert_eq!(fts("rev* total "), r#""rev"* AND "total""#);
    }

    #[test]
    fn phrases_stay_together_and_are_never_prefixes() {
        let token = |a: &str, b: &str| super::super::pairs::token(a, b).unwrap();
        assert_eq!(fts(r#""net revenue" q3 "#), r#""net" AND "revenue" AND "q3""#);
        assert_eq!(Terms::parse(r#""net revenue" q3 "#).pair_tokens(), vec![token("net", "revenue")]);
        assert_eq!(Terms::parse(r#""Crème brûlée""#).pair_tokens(), vec![token("creme", "brulee")]);
        let mut three = vec![token("net", "revenue"), token("revenue", "growth")];
        three.sort_unstable();
        assert_eq!(Terms::parse(r#""net revenue growth" "net revenue""#).pair_tokens(), three, "each once");
        assert_eq!(fts("net-reve"), r#""net" AND "reve"*"#);
        assert!(Terms::parse("net-reve").pair_tokens().is_empty(), "a prefix does not pair yet");
        assert!(Terms::parse("net revenue ").pair_tokens().is_empty(), "words, not a phrase");
        assert_eq!(fts(r#"a "b c""#), r#""a" AND "b" AND "c""#);
        let terms = Terms::parse(r#""net revenue" q3 "#);
        assert!(terms.phrases_in("Q3: the NET revenue rose"));
        assert!(!terms.phrases_in("revenue, net of q3"));
        assert!(Terms::parse(r#""café crème""#).phrases_in("un Cafe creme"));
        assert!(Terms::parse("net revenue ").phrases_in("revenue net"), "words alone are in any order");
    }

    #[test]
    fn a_phrase_is_found_in_one_pass_whatever_its_words() {
        let terms = Terms::parse(r#""ha ha ho" "#);
        assert!(terms.phrases_in("ha ha ha ho"), "a repeated word restarts the match where it can");
        assert!(!terms.phrases_in("ha ho ha"));
        assert!(Terms::parse(r#""NET Revenue" "#).phrases_in("net-REVENUE"), "case and punctuation between words");
        assert!(Terms::parse(r#""crème brûlée" "#).phrases_in("Une CRÈME Brulee"), "diacritics folded, non-ASCII lowercased");
        assert!(Terms::parse("net-reve").phrases_in("the net revenue"), "a split word's last part typed is a prefix");
        assert!(!Terms::parse("net-reve").phrases_in("the net rev"));
        assert!(Terms::parse(r#""a b" "c d" "#).phrases_in("c d then a b"), "every phrase, in any order");
        assert!(!Terms::parse(r#""a b" "c d" "#).phrases_in("a b then d c"));
        let long = "x".repeat(100);
        assert!(Terms::parse(&format!("\"{long} y\" ")).phrases_in(&format!("{} y", "x".repeat(80))), "words compared on their first 64 characters, as indexed");
        let many: String = (0..70).map(|i| format!("w{i} ")).collect();
        assert!(Terms::parse(&format!("\"{many}\" ")).phrases_in(&format!("start {many}end")));
        assert!(!Terms::parse(&format!("\"{many}\" ")).phrases_in("w0 w1 w2"));
    }

    #[test]
    fn the_engines_syntax_is_only_words() {
        // Operators, columns, NEAR groups, negation and parentheses are words or nothing.
        assert_eq!(fts("NEAR(a b) AND -c OR body:x "), r#""near" AND "a" AND "b" AND "and" AND "c" AND "or" AND "body" AND "x""#);
        // A word the tokenizer splits is a phrase, a prefix one while typed.
        assert_eq!(fts("foo-ba"), r#""foo" AND "ba"*"#);
        assert!(Terms::parse("foo-ba").phrases_in("a foo-bar b"));
        assert!(!Terms::parse("foo-ba").phrases_in("bar foo"));
        assert_eq!(fts(r#"" * - ^ ( ) :"#), "");
        assert!(Terms::parse("***").is_empty());
    }

    #[test]
    fn a_prefix_is_its_completions_when_they_are_known() {
        let terms = Terms::parse("net rev");
        let known = terms.fts5_with(&mut |p| (p == "rev").then(|| vec!["revenue".to_owned(), "review".to_owned()]));
        assert_eq!(known, r#""net" AND ("revenue" OR "review")"#);
        assert_eq!(terms.fts5_with(&mut |_| None), r#""net" AND "rev"*"#);
        assert_eq!(terms.fts5_with(&mut |_| Some(Vec::new())), r#""net" AND "rev"*"#);
    }

    #[test]
    fn an_unbalanced_quote_is_an_ordinary_character() {
        assert_eq!(fts(r#"say "hello world"#), r#""say" AND "hello" AND "world"*"#);
        assert_eq!(fts(r#""a b" "cd"#), r#""a" AND "b" AND "cd"*"#);
    }

    #[test]
    fn long_input_is_bounded() {
        let many = "word ".repeat(1000);
        assert_eq!(Terms::parse(&many).terms.len(), MAX_TERMS);
        let long = "x".repeat(10_000);
        assert_eq!(Terms::parse(&long).terms[0].words[0].len(), MAX_WORD_CHARS);
    }

    #[test]
    fn the_postgres_form_has_only_letters_digits_and_operators() {
        assert_eq!(Terms::parse(r#""net revenue" q3 to"#).tsquery(), "(net <-> revenue) & q3 & to:*");
        assert_eq!(Terms::parse("a&b|c!d ef").tsquery(), "(a <-> b <-> c <-> d) & ef:*");
    }

    #[test]
    fn highlighting_matches_words_and_prefixes() {
        let terms = Terms::parse("revenue qu");
        assert!(terms.matches_word("revenue"));
        assert!(terms.matches_word("quarter"));
        assert!(!terms.matches_word("revenues"));
    }
}
