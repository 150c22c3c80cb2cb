//! The text of a stored file, piece by piece, for the search index: PDF pages (PDFium's text
//! layer), HTML and SVG text (what a browser shows: no script or style), table rows, and lines
//! of everything else that is text. Streamed: a file is read in bounded pieces, never whole (a
//! line of a gigabyte becomes pieces of [`TextLimits::piece_bytes`]), and the whole is bounded
//! by [`TextLimits`]. Also gives one piece's text again ([`piece_text`]), to cut a snippet: the
//! index does not keep the text.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::{PdfRenderer, RenderError, Result};

/// How a file's text is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// PDF pages.
    Pdf,
    /// HTML or SVG markup: the text between tags, in blocks.
    Markup,
    /// A table (CSV with `,`, TSV with `\t`): one piece per row.
    Table,
    /// Lines of text (plain, Markdown, code, JSON).
    Lines,
}

/// Where a piece is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PiecePlace {
    /// A PDF page, from 1.
    Page,
    /// A table's row: the header is 0, data rows from 1 (a physical line: a quoted field
    /// spanning lines counts as several).
    Row,
    /// A line, from 1 (for markup: a block of its text, from 1).
    Line,
}

/// One piece of a file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPiece {
    /// What kind of place.
    pub place: PiecePlace,
    /// Page, row or line number.
    pub position: u64,
    /// Where it starts in the file (lines and rows; 0 for pages and markup).
    pub byte_offset: u64,
    /// Bytes it spans in the file (lines and rows; 0 for pages and markup).
    pub byte_length: u64,
    /// The text.
    pub text: String,
}

/// Bounds on what one file gives.
#[derive(Debug, Clone, Copy)]
pub struct TextLimits {
    /// At most this many bytes in one piece (a longer line is cut into several).
    pub piece_bytes: usize,
    /// At most this many bytes of text from one file.
    pub total_bytes: u64,
    /// At most this many PDF pages.
    pub pages: u32,
    /// Markup larger than this is not read (it is parsed whole).
    pub markup_bytes: u64,
}

impl Default for TextLimits {
    fn default() -> Self {
        Self { piece_bytes: 16 * 1024, total_bytes: 256 * 1024 * 1024, pages: 10_000, markup_bytes: 32 * 1024 * 1024 }
    }
}

/// How extraction ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Extracted {
    /// Pieces given.
    pub pieces: u64,
    /// What was left out and why (a bound reached, binary content), if anything.
    pub note: Option<String>,
}

/// PDF pages are read for about this long at a time, holding PDFium's lock (the window's page
/// renders take turns with the indexer between runs).
const PDF_LOCK_BUDGET: std::time::Duration = std::time::Duration::from_millis(50);

/// Gives the pieces of `path`'s text to `sink`, in order. The sink's error stops the work and is
/// returned as it is (`Err(Ok(e))`); a file that cannot be read is `Err(Err(e))`.
pub fn extract<E>(path: &Path, kind: TextKind, limits: &TextLimits, sink: &mut dyn FnMut(TextPiece) -> std::result::Result<(), E>) -> std::result::Result<Extracted, std::result::Result<E, RenderError>> {
    match kind {
        TextKind::Pdf => extract_pdf(path, limits, sink),
        TextKind::Markup => extract_markup(path, limits, sink),
        TextKind::Table => extract_lines(path, PiecePlace::Row, limits, sink),
        TextKind::Lines => extract_lines(path, PiecePlace::Line, limits, sink),
    }
}

/// The text of one piece again (for a snippet), at most [`TextLimits::piece_bytes`] plus a
/// little: a page's text, a block of markup, or the bytes of a line or row.
pub fn piece_text(path: &Path, kind: TextKind, place: PiecePlace, position: u64, byte_offset: u64, byte_length: u64) -> Result<String> {
    let io = |source| RenderError::Io { path: path.to_path_buf(), source };
    match (kind, place) {
        (TextKind::Pdf, PiecePlace::Page) => {
            let page = u32::try_from(position).unwrap_or(u32::MAX).max(1);
            let mut text = String::new();
            PdfRenderer::shared()?.page_texts(path, page - 1, 1, PDF_LOCK_BUDGET, &mut |_, t| text = t)?;
            Ok(text)
        }
        (TextKind::Markup, _) if byte_length > 0 => {
            // The block's markup (and perhaps a neighbour's edge): its text, without parsing the
            // whole file again.
            let mut file = File::open(path).map_err(io)?;
            file.seek(SeekFrom::Start(byte_offset)).map_err(io)?;
            let mut bytes = Vec::new();
            file.take(byte_length.min(TextLimits::default().markup_bytes)).read_to_end(&mut bytes).map_err(io)?;
            let blocks = markup::blocks(&String::from_utf8_lossy(&bytes), TextLimits::default().piece_bytes);
            Ok(blocks.into_iter().map(|b| b.text).collect::<Vec<_>>().join("\n"))
        }
        (TextKind::Markup, _) => {
            let mut found = String::new();
            let limits = TextLimits::default();
            let _ = extract_markup::<()>(path, &limits, &mut |piece| {
                if piece.position == position {
                    found = piece.text;
                    return Err(());
                }
                Ok(())
            });
            Ok(found)
        }
        _ => {
            let mut file = File::open(path).map_err(io)?;
            file.seek(SeekFrom::Start(byte_offset)).map_err(io)?;
            let mut bytes = Vec::new();
            file.take(byte_length.min(256 * 1024)).read_to_end(&mut bytes).map_err(io)?;
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
    }
}

fn extract_pdf<E>(path: &Path, limits: &TextLimits, sink: &mut dyn FnMut(TextPiece) -> std::result::Result<(), E>) -> std::result::Result<Extracted, std::result::Result<E, RenderError>> {
    let renderer = PdfRenderer::shared().map_err(Err)?;
    let mut extracted = Extracted::default();
    let mut total = 0u64;
    let mut next = 0u32;
    loop {
        let mut batch: Vec<(u32, String)> = Vec::new();
        let wanted = limits.pages.saturating_sub(next);
        let (page_count, after) = renderer.page_texts(path, next, wanted, PDF_LOCK_BUDGET, &mut |index, text| batch.push((index, text))).map_err(Err)?;
        for (index, mut text) in batch {
            if text.trim().is_empty() {
                continue;
            }
            truncate_at_char(&mut text, limits.piece_bytes * 16);
            total += text.len() as u64;
            extracted.pieces += 1;
            sink(TextPiece { place: PiecePlace::Page, position: u64::from(index) + 1, byte_offset: 0, byte_length: 0, text }).map_err(Ok)?;
        }
        next = after;
        if next >= page_count {
            return Ok(extracted);
        }
        if next >= limits.pages || total >= limits.total_bytes {
            extracted.note = Some(format!("only the first {next} of {page_count} pages are indexed"));
            return Ok(extracted);
        }
    }
}

fn truncate_at_char(text: &mut String, max: usize) {
    if text.len() > max {
        let mut cut = max;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
}

fn extract_markup<E>(path: &Path, limits: &TextLimits, sink: &mut dyn FnMut(TextPiece) -> std::result::Result<(), E>) -> std::result::Result<Extracted, std::result::Result<E, RenderError>> {
    let io = |source| Err(RenderError::Io { path: path.to_path_buf(), source });
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > limits.markup_bytes {
        return Ok(Extracted { pieces: 0, note: Some(format!("markup of {size} bytes is over the {} bytes indexed", limits.markup_bytes)) });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    let html = String::from_utf8_lossy(&bytes);
    // Blocks grouped like lines: consecutive blocks make one piece of up to `piece_bytes`, one
    // block a line of its text; its position is its first block's number.
    let mut extracted = Extracted::default();
    let mut group: Option<TextPiece> = None;
    for (i, block) in markup::blocks(&html, limits.piece_bytes).into_iter().enumerate() {
        let (start, end) = block.source;
        if let Some(g) = group.as_mut().filter(|g| g.text.len() + block.text.len() < limits.piece_bytes) {
            g.text.push('\n');
            g.text.push_str(&block.text);
            g.byte_length = (end as u64).max(g.byte_offset + g.byte_length) - g.byte_offset;
            continue;
        }
        if let Some(piece) = group.take() {
            extracted.pieces += 1;
            sink(piece).map_err(Ok)?;
        }
        group = Some(TextPiece { place: PiecePlace::Line, position: i as u64 + 1, byte_offset: start as u64, byte_length: (end - start) as u64, text: block.text });
    }
    if let Some(piece) = group.take() {
        extracted.pieces += 1;
        sink(piece).map_err(Ok)?;
    }
    Ok(extracted)
}

/// Lines (or rows) with their byte ranges, grouped: consecutive lines make one piece of up to
/// [`TextLimits::piece_bytes`] (its position is its first line's number; the line of
/// a hit inside it is found again from its bytes when a snippet is cut, so a log of millions of
/// short lines is thousands of pieces, not millions). A line longer than a piece is cut at a
/// space (else at a character boundary) into pieces of its own, with its number.
fn extract_lines<E>(path: &Path, place: PiecePlace, limits: &TextLimits, sink: &mut dyn FnMut(TextPiece) -> std::result::Result<(), E>) -> std::result::Result<Extracted, std::result::Result<E, RenderError>> {
    let io = |source| Err(RenderError::Io { path: path.to_path_buf(), source });
    let mut reader = BufReader::with_capacity(64 * 1024, File::open(path).map_err(io)?);
    let mut extracted = Extracted::default();
    let mut number: u64 = if place == PiecePlace::Row { 0 } else { 1 };
    let mut offset = 0u64;
    let mut carry: Vec<u8> = Vec::new();
    let mut checked_binary = false;
    let group_bytes = limits.piece_bytes.max(1);
    let mut group: Option<TextPiece> = None;
    let flush = |group: &mut Option<TextPiece>, extracted: &mut Extracted, sink: &mut dyn FnMut(TextPiece) -> std::result::Result<(), E>| -> std::result::Result<(), E> {
        if let Some(piece) = group.take() {
            extracted.pieces += 1;
            sink(piece)?;
        }
        Ok(())
    };
    loop {
        if offset >= limits.total_bytes {
            flush(&mut group, &mut extracted, sink).map_err(Ok)?;
            extracted.note = Some(format!("only the first {} bytes are indexed", limits.total_bytes));
            return Ok(extracted);
        }
        // One line: up to a newline or `piece_bytes`.
        let mut piece = std::mem::take(&mut carry);
        let rest_of_long_line = !piece.is_empty();
        let want = limits.piece_bytes.saturating_sub(piece.len()) as u64;
        let mut limited = (&mut reader).take(want);
        std::io::BufRead::read_until(&mut limited, b'\n', &mut piece).map_err(io)?;
        if piece.is_empty() {
            flush(&mut group, &mut extracted, sink).map_err(Ok)?;
            return Ok(extracted);
        }
        if !checked_binary {
            checked_binary = true;
            if looks_binary(&piece) {
                return Ok(Extracted { pieces: 0, note: Some("the file is binary, not text; only its name is indexed".into()) });
            }
        }
        let line_ended = piece.last() == Some(&b'\n');
        let cut_line = !line_ended && piece.len() >= limits.piece_bytes;
        if cut_line {
            // Cut at the last space in the piece's last KiB, else at a character boundary.
            let window = piece.len().saturating_sub(1024);
            let cut = piece[window..].iter().rposition(|b| *b == b' ' || *b == b'\t' || *b == b',').map(|i| window + i + 1).unwrap_or_else(|| {
                let mut cut = piece.len();
                while cut > 0 && (piece[cut - 1] & 0b1100_0000) == 0b1000_0000 {
                    cut -= 1;
                }
                // `cut - 1` starts a character that may be incomplete: leave it for the next piece.
                if cut > 0 && piece[cut - 1] >= 0b1100_0000 { cut - 1 } else { piece.len() }
            });
            let cut = if cut == 0 { piece.len() } else { cut };
            carry = piece.split_off(cut);
        }
        let length = piece.len() as u64;
        let text = String::from_utf8_lossy(&piece).trim_end_matches(['\n', '\r']).to_owned();
        // A piece of a long line (or the rest of one) stands alone.
        let whole_line = !cut_line && (carry.is_empty() || line_ended);
        let continues_long_line = group.is_none() && !whole_line;
        if !whole_line || continues_long_line || rest_of_long_line || text.len() >= group_bytes {
            flush(&mut group, &mut extracted, sink).map_err(Ok)?;
            if !text.trim().is_empty() {
                extracted.pieces += 1;
                sink(TextPiece { place, position: number, byte_offset: offset, byte_length: length, text }).map_err(Ok)?;
            }
        } else {
            if group.as_ref().is_some_and(|g| g.text.len() + text.len() + 1 > group_bytes) {
                flush(&mut group, &mut extracted, sink).map_err(Ok)?;
            }
            match group.as_mut() {
                Some(g) => {
                    // Blank lines too, so the n-th line of the text is the n-th of the file.
                    g.byte_length = offset + length - g.byte_offset;
                    g.text.push('\n');
                    g.text.push_str(&text);
                }
                None if !text.trim().is_empty() => group = Some(TextPiece { place, position: number, byte_offset: offset, byte_length: length, text }),
                None => {}
            }
        }
        offset += length;
        if line_ended {
            number += 1;
        }
    }
}

/// Text with NUL bytes, or mostly not UTF-8, in its first piece is binary.
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return true;
    }
    let text = String::from_utf8_lossy(head);
    let bad = text.chars().filter(|c| *c == char::REPLACEMENT_CHARACTER).count();
    bad * 10 > text.chars().count().max(1)
}

mod markup {
    //! The text of HTML or SVG between its tags, cut into blocks at block-level elements, with
    //! script, style and the other raw-text elements' content left out (html5ever's tokenizer
    //! decodes entities and knows which elements hold raw text).

    use std::cell::{Cell, RefCell};

    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::states::RawKind;
    use html5ever::tokenizer::{BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};

    const BLOCKS: &[&str] = &[
        "p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "section", "article", "header", "footer", "pre", "blockquote", "dt", "dd", "caption", "figcaption", "hr", "title", "text", "tspan", "desc", "ul", "ol",
    ];

    /// A block of text and the bytes of markup it came from: the tokenizer is fed the markup a
    /// tag at a time (its text is given while the piece holding it is fed), so a block starts
    /// with the piece its text arrived in and ends with the piece that ended it (which may hold
    /// the next block's first words: read again, the range gives its block first).
    pub(super) struct Block {
        pub(super) text: String,
        pub(super) source: (usize, usize),
    }

    struct Collector {
        blocks: RefCell<Vec<Block>>,
        current: RefCell<String>,
        current_start: Cell<usize>,
        skipping: RefCell<Option<String>>,
        piece_bytes: usize,
        /// Where the piece being fed starts and ends.
        feeding: Cell<(usize, usize)>,
    }

    impl Collector {
        fn end_block(&self) {
            let mut current = self.current.borrow_mut();
            let text = current.split_whitespace().collect::<Vec<_>>().join(" ");
            if !text.is_empty() {
                self.blocks.borrow_mut().push(Block { text, source: (self.current_start.get(), self.feeding.get().1) });
            }
            current.clear();
        }
    }

    impl TokenSink for Collector {
        type Handle = ();

        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            match token {
                Token::TagToken(tag) => {
                    let name = tag.name.to_string();
                    let skipped = self.skipping.borrow().clone();
                    if let Some(skipped) = skipped {
                        if tag.kind == TagKind::EndTag && skipped == name {
                            self.skipping.replace(None);
                        }
                        return TokenSinkResult::Continue;
                    }
                    if BLOCKS.contains(&name.as_str()) {
                        self.end_block();
                    } else if !self.current.borrow().is_empty() {
                        self.current.borrow_mut().push(' ');
                    }
                    if tag.kind == TagKind::StartTag && !tag.self_closing {
                        let raw = match name.as_str() {
                            "script" => Some(RawKind::ScriptData),
                            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => Some(RawKind::Rawtext),
                            "textarea" => Some(RawKind::Rcdata),
                            _ => None,
                        };
                        if name == "template" || name == "script" || name == "style" || name == "noscript" || name == "iframe" {
                            *self.skipping.borrow_mut() = Some(name.clone());
                        }
                        if let Some(kind) = raw {
                            return TokenSinkResult::RawData(kind);
                        }
                    }
                }
                Token::CharacterTokens(text) => {
                    if self.skipping.borrow().is_none() {
                        let mut current = self.current.borrow_mut();
                        if current.is_empty() {
                            self.current_start.set(self.feeding.get().0);
                        }
                        current.push_str(&text);
                        if current.len() >= self.piece_bytes {
                            drop(current);
                            self.end_block();
                        }
                    }
                }
                _ => {}
            }
            TokenSinkResult::Continue
        }
    }

    /// The blocks of text in `html`, each at most about `piece_bytes`, with their markup's bytes.
    pub(super) fn blocks(html: &str, piece_bytes: usize) -> Vec<Block> {
        let collector = Collector {
            blocks: RefCell::default(),
            current: RefCell::default(),
            current_start: Cell::new(0),
            skipping: RefCell::default(),
            piece_bytes,
            feeding: Cell::new((0, 0)),
        };
        let tokenizer = Tokenizer::new(collector, TokenizerOpts::default());
        let queue = BufferQueue::default();
        // A tag at a time (each piece starts at a `<`), so a block knows where it is.
        let mut start = 0;
        while start < html.len() {
            let end = html.as_bytes()[start + 1..].iter().position(|b| *b == b'<').map_or(html.len(), |i| start + 1 + i);
            tokenizer.sink.feeding.set((start, end));
            queue.push_back(StrTendril::from_slice(&html[start..end]));
            let _ = tokenizer.feed(&queue);
            start = end;
        }
        tokenizer.end();
        tokenizer.sink.end_block();
        tokenizer.sink.blocks.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(content: &[u8], kind: TextKind, limits: TextLimits) -> (Vec<TextPiece>, Extracted) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, content).unwrap();
        let mut out = Vec::new();
        let extracted = extract::<()>(&path, kind, &limits, &mut |p| {
            out.push(p);
            Ok(())
        })
        .unwrap();
        (out, extracted)
    }

    #[test]
    fn lines_are_grouped_with_their_first_number_and_byte_range() {
        let (out, _) = pieces(b"alpha\n\nbeta gamma\r\ndelta", TextKind::Lines, TextLimits::default());
        let got: Vec<(u64, u64, u64, &str)> = out.iter().map(|p| (p.position, p.byte_offset, p.byte_length, p.text.as_str())).collect();
        assert_eq!(got, vec![(1, 0, 24, "alpha\n\nbeta gamma\ndelta")]);
        // Groups stay within a piece; each starts with its own line's number.
        let text: String = (1..=100).map(|i| format!("line number {i:03}\n")).collect();
        let limits = TextLimits { piece_bytes: 100, ..Default::default() };
        let (out, _) = pieces(text.as_bytes(), TextKind::Lines, limits);
        assert!(out.len() > 10 && out.iter().all(|p| p.text.len() <= 100), "{}", out.len());
        for p in &out {
            let first: u64 = p.text.lines().next().unwrap()["line number ".len()..].parse().unwrap();
            assert_eq!(p.position, first);
            assert_eq!(p.byte_offset, (first - 1) * 16);
        }
    }

    #[test]
    fn table_rows_count_from_the_header() {
        let (out, _) = pieces(b"name,total\nacme,12\nglobex,7\n", TextKind::Table, TextLimits::default());
        let got: Vec<(PiecePlace, u64, &str)> = out.iter().map(|p| (p.place, p.position, p.text.as_str())).collect();
        assert_eq!(got, vec![(PiecePlace::Row, 0, "name,total\nacme,12\nglobex,7")]);
    }

    #[test]
    fn a_huge_line_becomes_bounded_pieces_of_the_same_line_without_splitting_words_or_characters() {
        let line = "wörd ".repeat(20_000); // 120,000 bytes, one line
        let limits = TextLimits { piece_bytes: 4096, ..Default::default() };
        let (out, _) = pieces(format!("{line}\nnext").as_bytes(), TextKind::Lines, limits);
        assert!(out.len() > 25, "{}", out.len());
        assert!(out.iter().all(|p| p.byte_length as usize <= 4096));
        let first_line: Vec<&TextPiece> = out.iter().filter(|p| p.position == 1).collect();
        assert!(first_line.iter().all(|p| p.text.split_whitespace().all(|w| w == "wörd")), "a word was cut");
        assert_eq!(first_line.iter().map(|p| p.byte_length).sum::<u64>(), line.len() as u64 + 1);
        assert_eq!(out.last().unwrap().position, 2);
        // The byte ranges read back to the same text.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, format!("{line}\nnext")).unwrap();
        let again = piece_text(&path, TextKind::Lines, PiecePlace::Line, 1, first_line[3].byte_offset, first_line[3].byte_length).unwrap();
        assert_eq!(again.trim_end(), first_line[3].text.trim_end());
    }

    #[test]
    fn a_line_without_spaces_is_cut_at_character_boundaries() {
        let line = "é".repeat(10_000);
        let limits = TextLimits { piece_bytes: 1001, ..Default::default() };
        let (out, _) = pieces(line.as_bytes(), TextKind::Lines, limits);
        assert!(out.iter().all(|p| !p.text.contains(char::REPLACEMENT_CHARACTER)));
        assert_eq!(out.iter().map(|p| p.text.chars().count()).sum::<usize>(), 10_000);
    }

    #[test]
    fn the_total_is_bounded_and_said() {
        let limits = TextLimits { piece_bytes: 100, total_bytes: 1000, ..Default::default() };
        let (out, extracted) = pieces("line of text\n".repeat(1000).as_bytes(), TextKind::Lines, limits);
        assert!(out.iter().map(|p| p.byte_length).sum::<u64>() <= 1100);
        assert!(extracted.note.unwrap().contains("first 1000 bytes"));
    }

    #[test]
    fn binary_declared_as_text_gives_nothing() {
        let (out, extracted) = pieces(&[0x89, b'P', b'N', b'G', 0, 0, 0, 13, 0xff, 0xfe], TextKind::Lines, TextLimits::default());
        assert!(out.is_empty());
        assert!(extracted.note.unwrap().contains("binary"));
    }

    /// A valid PDF of `pages` empty pages, one of them (`marked`, from 0) with a line of text.
    fn many_page_pdf(pages: usize, marked: usize) -> Vec<u8> {
        let mut out = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        let object = |out: &mut Vec<u8>, offsets: &mut Vec<usize>, body: String| {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", offsets.len()).as_bytes());
        };
        object(&mut out, &mut offsets, "<< /Type /Catalog /Pages 2 0 R >>".into());
        let kids: String = (0..pages).map(|i| format!("{} 0 R ", i + 5)).collect();
        object(&mut out, &mut offsets, format!("<< /Type /Pages /Kids [{kids}] /Count {pages} >>"));
        object(&mut out, &mut offsets, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into());
        let text = "BT /F1 12 Tf 10 50 Td (needle in page) Tj ET";
        object(&mut out, &mut offsets, format!("<< /Length {} >>\nstream\n{text}\nendstream", text.len()));
        for i in 0..pages {
            let content = if i == marked { " /Contents 4 0 R /Resources << /Font << /F1 3 0 R >> >>" } else { "" };
            object(&mut out, &mut offsets, format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100]{content} >>"));
        }
        let xref = out.len();
        out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes());
        for offset in &offsets {
            out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", offsets.len() + 1).as_bytes());
        out
    }

    #[test]
    fn a_pdf_of_100000_pages_is_read_up_to_the_page_bound_and_says_so() {
        let limits = TextLimits { pages: 2_000, ..Default::default() };
        let (out, extracted) = pieces(&many_page_pdf(100_000, 1_234), TextKind::Pdf, limits);
        let got: Vec<(PiecePlace, u64, &str)> = out.iter().map(|p| (p.place, p.position, p.text.trim())).collect();
        assert_eq!(got, vec![(PiecePlace::Page, 1_235, "needle in page")], "empty pages give no piece");
        assert_eq!(extracted.note.as_deref(), Some("only the first 2000 of 100000 pages are indexed"));
        // A page past the bound is not read.
        let (out, _) = pieces(&many_page_pdf(100_000, 5_000), TextKind::Pdf, limits);
        assert!(out.is_empty());
        // A PDF cut short is an error naming why, not a panic.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.pdf");
        std::fs::write(&path, b"%PDF-1.7\n1 0 obj << /Type /Catalog").unwrap();
        assert!(matches!(extract::<()>(&path, TextKind::Pdf, &limits, &mut |_| Ok(())), Err(Err(RenderError::PdfOpen { .. }))));
    }

    #[test]
    fn markup_gives_what_a_browser_shows() {
        let html = b"<html><head><title>Q3 report</title><style>.x{color:red}</style><script>var secret = 1;</script></head>\
            <body><h1>Revenue &amp; costs</h1><p>Net <b>revenue</b> rose.</p><table><tr><td>acme</td><td>12</td></tr></table>\
            <svg><text>axis label</text></svg><template>hidden</template></body></html>";
        let (out, _) = pieces(html, TextKind::Markup, TextLimits::default());
        let texts: Vec<&str> = out.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, vec!["Q3 report\nRevenue & costs\nNet revenue rose.\nacme 12\naxis label"], "blocks, grouped as lines are");
        let (out, _) = pieces(html, TextKind::Markup, TextLimits { piece_bytes: 20, ..Default::default() });
        let got: Vec<(u64, &str)> = out.iter().map(|p| (p.position, p.text.as_str())).collect();
        assert_eq!(got, vec![(1, "Q3 report"), (2, "Revenue & costs"), (3, "Net revenue rose."), (4, "acme 12\naxis label")]);
    }

    #[test]
    fn a_group_of_markup_blocks_is_read_again_from_its_own_bytes() {
        let mut html = String::from("<html><head><script>if (a < b) { x = '<p>not text</p>'; }</script></head><body>");
        for i in 0..2000 {
            html.push_str(&format!("<div class=\"c{i}\">\n  <p>Block <b>number</b> {i} &amp; more</p>\n</div>\n"));
        }
        html.push_str("<p>Ünïcode ending</p></body></html>");
        let (out, _) = pieces(html.as_bytes(), TextKind::Markup, TextLimits::default());
        assert!(out.len() >= 3, "{}", out.len());
        assert_eq!(out.iter().map(|p| p.text.lines().count()).sum::<usize>(), 2001, "every block, once");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        std::fs::write(&path, &html).unwrap();
        for piece in [&out[0], &out[1], out.last().unwrap()] {
            assert!(piece.byte_length > 0 && (piece.byte_length as usize) < html.len() / 2, "{}", piece.byte_length);
            let again = piece_text(&path, TextKind::Markup, PiecePlace::Line, piece.position, piece.byte_offset, piece.byte_length).unwrap();
            // The same blocks in the same order (the hit's block is found by its line), perhaps
            // with the start of the next.
            assert!(again.starts_with(&piece.text), "{:?}… starts with {:?}…", &again[..60], &piece.text[..60.min(piece.text.len())]);
            assert!(!again.contains("not text"));
        }
    }
}
