//! Snippets: a short window of a segment's text around the first word searched for, with the
//! matching words marked. Cut here, from the text the caller extracted again at the hit's place
//! (the index does not keep the text), as parts, so no viewer has to parse markup to highlight.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::terms::{is_word_char, Terms};

/// One part of a snippet: text, and whether it is a word searched for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SnippetPart {
    /// The text (control characters replaced by spaces).
    pub text: String,
    /// Whether this is a matching word (to highlight).
    pub hit: bool,
}

/// About this many characters of context around the first match.
pub const SNIPPET_CHARS: usize = 160;

/// The snippet of `text` for `terms`: [`SNIPPET_CHARS`] characters around the first matching
/// word (from the start when no word matches, as for a hit on a phrase across a chunk's end),
/// whitespace runs collapsed, `…` where the text was cut.
pub fn snippet(text: &str, terms: &Terms) -> Vec<SnippetPart> {
    // Words with their char positions, on the collapsed text.
    let collapsed: Vec<char> = collapse(text);
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, c) in collapsed.iter().enumerate() {
        match (is_word_char(*c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s, collapsed.len()));
    }
    let is_hit = |&(s, e): &(usize, usize)| {
        let word: String = collapsed[s..e].iter().flat_map(|c| c.to_lowercase()).collect();
        terms.matches_word(&word)
    };
    let hits: Vec<(usize, usize)> = words.iter().copied().filter(is_hit).collect();
    let first = hits.first().map_or(0, |h| h.0);
    let from = first.saturating_sub(SNIPPET_CHARS / 3);
    // Start at a word boundary when one is near.
    let from = if from == 0 { 0 } else { words.iter().map(|w| w.0).find(|&s| s >= from && s <= first).unwrap_or(from) };
    let to = (from + SNIPPET_CHARS).min(collapsed.len());
    let to = if to == collapsed.len() { to } else { words.iter().map(|w| w.1).filter(|&e| e <= to && e > first).max().unwrap_or(to) };

    let mut parts: Vec<SnippetPart> = Vec::new();
    let mut push = |text: String, hit: bool| {
        if text.is_empty() {
            return;
        }
        match parts.last_mut() {
            Some(last) if last.hit == hit => last.text.push_str(&text),
            _ => parts.push(SnippetPart { text, hit }),
        }
    };
    if from > 0 {
        push("…".into(), false);
    }
    let mut at = from;
    for &(s, e) in hits.iter().filter(|h| h.0 >= from && h.1 <= to) {
        push(collapsed[at..s].iter().collect(), false);
        push(collapsed[s..e].iter().collect(), true);
        at = e;
    }
    push(collapsed[at..to].iter().collect(), false);
    if to < collapsed.len() {
        push("…".into(), false);
    }
    parts
}

/// The first line of `piece` (lines indexed in groups) with a word searched for, and its index in
/// the piece; the whole piece at 0 when no single line has one (a phrase across lines).
pub fn hit_line(piece: &str, terms: &Terms) -> (usize, String) {
    for (index, line) in piece.split('\n').enumerate() {
        let has = line.split(|c: char| !is_word_char(c)).filter(|w| !w.is_empty()).any(|w| terms.matches_word(&w.to_lowercase())) && terms.phrases_in(line);
        if has {
            return (index, line.trim_end_matches('\r').to_owned());
        }
    }
    (0, piece.to_owned())
}

/// The characters of `text` with whitespace and control runs as one space, trimmed.
fn collapse(text: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len().min(1 << 16));
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(parts: &[SnippetPart]) -> String {
        parts.iter().map(|p| if p.hit { format!("[{}]", p.text) } else { p.text.clone() }).collect()
    }

    #[test]
    fn marks_the_words_searched_for() {
        let parts = snippet("Net revenue rose.\n\tRevenue fell in Q3.", &Terms::parse("revenue q3 "));
        assert_eq!(render(&parts), "Net [revenue] rose. [Revenue] fell in [Q3].");
    }

    #[test]
    fn prefixes_mark_whole_words() {
        assert_eq!(render(&snippet("the quarterly report", &Terms::parse("quar"))), "the [quarterly] report");
    }

    #[test]
    fn a_long_text_is_cut_around_the_first_hit() {
        let text = format!("{} needle {}", "lorem ipsum ".repeat(100), "dolor sit ".repeat(100));
        let parts = snippet(&text, &Terms::parse("needle "));
        let shown = render(&parts);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains("[needle]"));
        assert!(shown.chars().count() <= SNIPPET_CHARS + 4, "{}", shown.chars().count());
    }

    #[test]
    fn control_characters_never_reach_the_snippet() {
        let shown = render(&snippet("a\u{0}b\u{1b}[31mred\r\nline", &Terms::parse("red ")));
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
    }

    #[test]
    fn a_hit_in_a_group_of_lines_names_its_own_line() {
        let piece = "first line\r\n\nsecond has the Needle\nthird needle too";
        assert_eq!(hit_line(piece, &Terms::parse("needle ")), (2, "second has the Needle".to_owned()));
        assert_eq!(hit_line(piece, &Terms::parse("absent ")), (0, piece.to_owned()));
    }

    #[test]
    fn no_match_shows_the_start() {
        assert_eq!(render(&snippet("nothing here", &Terms::parse("zzz "))), "nothing here");
    }
}
