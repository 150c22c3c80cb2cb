//! A small PDF 1.4 writer, by hand: enough for a multi-page report with headings, wrapped text, a
//! table and one raster image — what the demo's Tableau-style tools return.
//!
//! Written directly (no PDF crate) because the subset is tiny and fully deterministic: the two
//! standard fonts (Helvetica, Helvetica-Bold, WinAnsi encoding; nothing embedded), one
//! Flate-compressed RGB image XObject shared by every page, one Flate-compressed content stream
//! per page, a classic cross-reference table. Same input, same bytes.

use std::io::Write as _;

use flate2::{write::ZlibEncoder, Compression};

/// A4 portrait, in points.
const PAGE_W: f64 = 595.0;
const PAGE_H: f64 = 842.0;
const MARGIN: f64 = 56.0;
const TEXT_W: f64 = PAGE_W - 2.0 * MARGIN;
const BOTTOM: f64 = 64.0;

/// Object numbers of the shared objects; page `i` (0-based) is `FIRST_PAGE + 2i`, its content
/// stream the next number.
const CATALOG: usize = 1;
const PAGES: usize = 2;
const FONT_REGULAR: usize = 3;
const FONT_BOLD: usize = 4;
const IMAGE: usize = 5;
const INFO: usize = 6;
const RESOURCES: usize = 7;
const FIRST_PAGE: usize = 8;

/// A table: a header row and data rows (the first column is left-aligned, the others right).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// The content of one page after the first.
#[derive(Debug, Clone, Default)]
pub struct Section {
    pub heading: String,
    pub paragraphs: Vec<String>,
}

/// A document: page 1 carries the title, the introduction, the table and the chart; every
/// section is one more page (with a thumbnail of the same chart image).
#[derive(Debug, Clone)]
pub struct Document<'a> {
    pub title: &'a str,
    pub subtitle: &'a str,
    pub intro: &'a str,
    pub table: &'a Table,
    pub chart_caption: &'a str,
    /// PNG bytes of the chart (decoded to RGB and embedded once).
    pub chart_png: &'a [u8],
    pub sections: &'a [Section],
    /// Creation date for the Info dictionary, `YYYY-MM-DDTHH:MM:SSZ`.
    pub created: &'a str,
}

/// Renders `doc` into PDF bytes. Fails only when the chart is not a decodable PNG.
pub(crate) fn render(doc: &Document<'_>) -> Result<Vec<u8>, String> {
    let chart = image::load_from_memory_with_format(doc.chart_png, image::ImageFormat::Png)
        .map_err(|e| format!("the chart is not a readable PNG: {e}"))?
        .to_rgb8();
    let (img_w, img_h) = chart.dimensions();
    let image_data = deflate(chart.as_raw());

    let page_count = 1 + doc.sections.len();
    let mut contents = Vec::with_capacity(page_count);
    contents.push(first_page(doc, img_w, img_h, page_count));
    for (i, section) in doc.sections.iter().enumerate() {
        contents.push(section_page(doc.title, section, i + 2, page_count, img_w, img_h));
    }

    let mut out = Writer { buf: Vec::with_capacity(4096 + image_data.len() + page_count * 1800), offsets: Vec::new() };
    out.buf.extend_from_slice(b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n");

    out.object(CATALOG, format!("<< /Type /Catalog /Pages {PAGES} 0 R >>").as_bytes());
    let kids: Vec<String> = (0..page_count).map(|i| format!("{} 0 R", FIRST_PAGE + 2 * i)).collect();
    out.object(PAGES, format!("<< /Type /Pages /Kids [{}] /Count {page_count} >>", kids.join(" ")).as_bytes());
    out.object(FONT_REGULAR, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    out.object(FONT_BOLD, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>");
    out.stream(
        IMAGE,
        &format!("/Type /XObject /Subtype /Image /Width {img_w} /Height {img_h} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode"),
        &image_data,
    );
    let info = format!(
        "<< /Title {} /Subject {} /Producer (mcp-canvas-demo) /Creator (mcp-canvas-demo) /CreationDate (D:{}) >>",
        utf16_hex(doc.title),
        utf16_hex(doc.subtitle),
        pdf_date(doc.created)
    );
    out.object(INFO, info.as_bytes());
    out.object(
        RESOURCES,
        format!("<< /Font << /F1 {FONT_REGULAR} 0 R /F2 {FONT_BOLD} 0 R >> /XObject << /Im1 {IMAGE} 0 R >> /ProcSet [/PDF /Text /ImageC] >>").as_bytes(),
    );
    for (i, content) in contents.iter().enumerate() {
        let page = FIRST_PAGE + 2 * i;
        let dict = format!("<< /Type /Page /Parent {PAGES} 0 R /MediaBox [0 0 {PAGE_W} {PAGE_H}] /Resources {RESOURCES} 0 R /Contents {} 0 R >>", page + 1);
        out.object(page, dict.as_bytes());
        out.stream(page + 1, "/Filter /FlateDecode", &deflate(content));
    }

    let id = document_id(&out.buf);
    let xref_at = out.buf.len();
    let size = out.offsets.len() + 1;
    let mut tail = format!("xref\n0 {size}\n0000000000 65535 f \n");
    for offset in &out.offsets {
        tail.push_str(&format!("{offset:010} 00000 n \n"));
    }
    tail.push_str(&format!("trailer\n<< /Size {size} /Root {CATALOG} 0 R /Info {INFO} 0 R /ID [<{id}> <{id}>] >>\nstartxref\n{xref_at}\n%%EOF\n"));
    out.buf.extend_from_slice(tail.as_bytes());
    Ok(out.buf)
}

struct Writer {
    buf: Vec<u8>,
    /// Byte offset of object `n` at index `n - 1`; objects are written in number order.
    offsets: Vec<usize>,
}

impl Writer {
    fn object(&mut self, number: usize, body: &[u8]) {
        debug_assert_eq!(number, self.offsets.len() + 1, "objects are written in number order");
        self.offsets.push(self.buf.len());
        self.buf.extend_from_slice(format!("{number} 0 obj\n").as_bytes());
        self.buf.extend_from_slice(body);
        self.buf.extend_from_slice(b"\nendobj\n");
    }

    fn stream(&mut self, number: usize, dict: &str, data: &[u8]) {
        let mut body = Vec::with_capacity(data.len() + dict.len() + 48);
        body.extend_from_slice(format!("<< {dict} /Length {} >>\nstream\n", data.len()).as_bytes());
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.object(number, &body);
    }
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::with_capacity(data.len() / 3 + 64), Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// Two FNV-1a hashes of the body: a deterministic file identifier.
fn document_id(bytes: &[u8]) -> String {
    let fnv = |basis: u64| bytes.iter().fold(basis, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3));
    format!("{:016X}{:016X}", fnv(0xcbf2_9ce4_8422_2325), fnv(0x6c62_272e_07bb_0142))
}

/// `2025-03-12T10:30:00Z` → `20250312103000Z`.
fn pdf_date(iso: &str) -> String {
    let digits: String = iso.chars().filter(char::is_ascii_digit).take(14).collect();
    format!("{digits}Z")
}

/// A text string as UTF-16BE hex with a byte-order mark: any character, and nothing in it can be
/// mistaken for PDF syntax.
fn utf16_hex(text: &str) -> String {
    let mut out = String::from("<FEFF");
    for unit in text.encode_utf16() {
        out.push_str(&format!("{unit:04X}"));
    }
    out.push('>');
    out
}

/// Content-stream builder.
struct Content {
    ops: String,
}

#[derive(Clone, Copy)]
enum Font {
    Regular,
    Bold,
}

impl Content {
    fn new() -> Self {
        Self { ops: String::with_capacity(4096) }
    }

    fn text(&mut self, x: f64, y: f64, font: Font, size: f64, text: &str) {
        let name = match font {
            Font::Regular => "F1",
            Font::Bold => "F2",
        };
        self.ops.push_str(&format!("BT /{name} {size} Tf {x:.2} {y:.2} Td ("));
        escape_into(&mut self.ops, text);
        self.ops.push_str(") Tj ET\n");
    }

    fn fill_color(&mut self, r: f64, g: f64, b: f64) {
        self.ops.push_str(&format!("{r:.3} {g:.3} {b:.3} rg\n"));
    }

    fn stroke_color(&mut self, r: f64, g: f64, b: f64) {
        self.ops.push_str(&format!("{r:.3} {g:.3} {b:.3} RG\n"));
    }

    fn fill_rect(&mut self, x: f64, y: f64, w: f64, h: f64) {
        self.ops.push_str(&format!("{x:.2} {y:.2} {w:.2} {h:.2} re f\n"));
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, width: f64) {
        self.ops.push_str(&format!("{width:.2} w {x1:.2} {y1:.2} m {x2:.2} {y2:.2} l S\n"));
    }

    fn image(&mut self, x: f64, y: f64, w: f64, h: f64) {
        self.ops.push_str(&format!("q {w:.2} 0 0 {h:.2} {x:.2} {y:.2} cm /Im1 Do Q\n"));
    }

    /// Wrapped text from `y` down, stopping above the bottom margin; returns the next free y.
    fn paragraph(&mut self, x: f64, mut y: f64, size: f64, leading: f64, text: &str) -> f64 {
        for line in wrap(text, size, TEXT_W - (x - MARGIN)) {
            if y < BOTTOM + leading {
                break;
            }
            self.text(x, y, Font::Regular, size, &line);
            y -= leading;
        }
        y
    }

    fn footer(&mut self, title: &str, page: usize, pages: usize) {
        self.fill_color(0.45, 0.47, 0.52);
        self.stroke_color(0.80, 0.82, 0.86);
        self.line(MARGIN, 44.0, PAGE_W - MARGIN, 44.0, 0.5);
        let label: String = title.chars().take(70).collect();
        self.text(MARGIN, 30.0, Font::Regular, 8.0, &label);
        let number = format!("Page {page} of {pages}");
        self.text(PAGE_W - MARGIN - text_width(&number, 8.0, Font::Regular), 30.0, Font::Regular, 8.0, &number);
    }

    fn into_bytes(self) -> Vec<u8> {
        self.ops.into_bytes()
    }
}

fn first_page(doc: &Document<'_>, img_w: u32, img_h: u32, pages: usize) -> Vec<u8> {
    let mut c = Content::new();
    let mut y = PAGE_H - MARGIN - 22.0;
    c.fill_color(0.10, 0.12, 0.16);
    for line in wrap(doc.title, 22.0, TEXT_W).into_iter().take(2) {
        c.text(MARGIN, y, Font::Bold, 22.0, &line);
        y -= 27.0;
    }
    c.fill_color(0.40, 0.42, 0.48);
    c.text(MARGIN, y, Font::Regular, 10.0, doc.subtitle);
    y -= 12.0;
    c.stroke_color(0.26, 0.52, 0.96);
    c.line(MARGIN, y, PAGE_W - MARGIN, y, 1.2);
    y -= 22.0;

    c.fill_color(0.13, 0.14, 0.18);
    y = c.paragraph(MARGIN, y, 10.5, 14.0, doc.intro) - 10.0;
    y = table(&mut c, y, doc.table) - 18.0;

    // The chart, as large as the space left allows (keeping its aspect ratio).
    let aspect = f64::from(img_h) / f64::from(img_w.max(1));
    let max_h = (y - BOTTOM - 24.0).max(0.0);
    let w = (TEXT_W * 0.8).min(max_h / aspect);
    if w > 40.0 {
        let h = w * aspect;
        let x = MARGIN + (TEXT_W - w) / 2.0;
        c.image(x, y - h, w, h);
        c.fill_color(0.40, 0.42, 0.48);
        let caption_w = text_width(doc.chart_caption, 9.0, Font::Regular);
        c.text(MARGIN + ((TEXT_W - caption_w) / 2.0).max(0.0), y - h - 14.0, Font::Regular, 9.0, doc.chart_caption);
    }
    c.footer(doc.title, 1, pages);
    c.into_bytes()
}

fn section_page(title: &str, section: &Section, page: usize, pages: usize, img_w: u32, img_h: u32) -> Vec<u8> {
    let mut c = Content::new();
    let top = PAGE_H - MARGIN - 16.0;
    // Thumbnail of the shared chart image in the top-right corner.
    let thumb_w = 120.0;
    let thumb_h = thumb_w * f64::from(img_h) / f64::from(img_w.max(1));
    c.image(PAGE_W - MARGIN - thumb_w, top + 16.0 - thumb_h, thumb_w, thumb_h);
    c.fill_color(0.10, 0.12, 0.16);
    let mut y = top;
    for line in wrap(&section.heading, 15.0, TEXT_W - thumb_w - 12.0).into_iter().take(2) {
        c.text(MARGIN, y, Font::Bold, 15.0, &line);
        y -= 19.0;
    }
    y = y.min(top + 16.0 - thumb_h - 18.0);
    c.fill_color(0.13, 0.14, 0.18);
    for paragraph in &section.paragraphs {
        if y < BOTTOM + 14.0 {
            break;
        }
        y = c.paragraph(MARGIN, y, 10.5, 14.0, paragraph) - 8.0;
    }
    c.footer(title, page, pages);
    c.into_bytes()
}

/// Draws `table` from `y` down; returns the y below it. Rows that do not fit are left out.
fn table(c: &mut Content, mut y: f64, table: &Table) -> f64 {
    let columns = table.header.len().max(1);
    let first_w = TEXT_W * 0.28;
    let other_w = if columns > 1 { (TEXT_W - first_w) / (columns - 1) as f64 } else { 0.0 };
    let col_x = |i: usize| if i == 0 { MARGIN } else { MARGIN + first_w + other_w * (i - 1) as f64 };
    let col_w = |i: usize| if i == 0 { first_w } else { other_w };
    let row_h = 17.0;
    let size = 9.5;

    let draw_row = |c: &mut Content, y: f64, cells: &[String], font: Font| {
        for (i, cell) in cells.iter().enumerate().take(columns) {
            let cell = fit(cell, size, font, col_w(i) - 10.0);
            let x = if i == 0 { col_x(i) + 5.0 } else { col_x(i) + col_w(i) - 5.0 - text_width(&cell, size, font) };
            c.text(x, y + 5.0, font, size, &cell);
        }
    };

    c.fill_color(0.91, 0.93, 0.97);
    c.fill_rect(MARGIN, y - row_h, TEXT_W, row_h);
    c.fill_color(0.10, 0.12, 0.16);
    draw_row(c, y - row_h, &table.header, Font::Bold);
    y -= row_h;
    c.stroke_color(0.80, 0.82, 0.86);
    for (r, row) in table.rows.iter().enumerate() {
        if y - row_h < BOTTOM + 40.0 {
            break;
        }
        if r % 2 == 1 {
            c.fill_color(0.97, 0.97, 0.98);
            c.fill_rect(MARGIN, y - row_h, TEXT_W, row_h);
        }
        c.fill_color(0.13, 0.14, 0.18);
        draw_row(c, y - row_h, row, Font::Regular);
        y -= row_h;
        c.line(MARGIN, y, MARGIN + TEXT_W, y, 0.4);
    }
    y
}

/// Cuts `text` (with an ellipsis) to fit `width`.
fn fit(text: &str, size: f64, font: Font, width: f64) -> String {
    if text_width(text, size, font) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    for ch in text.chars() {
        if text_width(&format!("{out}{ch}..."), size, font) > width {
            break;
        }
        out.push(ch);
    }
    out.push_str("...");
    out
}

/// Greedy word wrap by Helvetica metrics; words wider than a line are split.
fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() { word.to_owned() } else { format!("{line} {word}") };
        if text_width(&candidate, size, Font::Regular) <= width {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for ch in word.chars() {
            if !line.is_empty() && text_width(&format!("{line}{ch}"), size, Font::Regular) > width {
                lines.push(std::mem::take(&mut line));
            }
            line.push(ch);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Width in points, from the Helvetica AFM widths (bold estimated as 6% wider).
fn text_width(text: &str, size: f64, font: Font) -> f64 {
    let units: u32 = text.chars().map(char_width).sum();
    let factor = match font {
        Font::Regular => 1.0,
        Font::Bold => 1.06,
    };
    f64::from(units) * size / 1000.0 * factor
}

/// Helvetica widths for ASCII 32..=126, in 1/1000 em.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space .. /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0 .. 9
    278, 278, 584, 584, 584, 556, 1015, // : .. @
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944,
    667, 667, 611, // A .. Z
    278, 278, 278, 469, 556, 333, // [ .. `
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722,
    500, 500, 500, // a .. z
    334, 260, 334, 584, // { .. ~
];

fn char_width(ch: char) -> u32 {
    match ch as u32 {
        code @ 32..=126 => u32::from(HELVETICA[(code - 32) as usize]),
        _ => 556,
    }
}

/// Appends `text` as the inside of a PDF literal string in WinAnsi encoding: `\`, `(` and `)`
/// escaped, other bytes above ASCII as octal escapes, characters WinAnsi lacks as `?`.
fn escape_into(out: &mut String, text: &str) {
    for ch in text.chars() {
        match ch {
            '\\' | '(' | ')' => {
                out.push('\\');
                out.push(ch);
            }
            ' '..='~' => out.push(ch),
            _ => {
                let byte = match ch {
                    '\u{a0}'..='\u{ff}' => ch as u32 as u8,
                    '€' => 0x80,
                    '‚' => 0x82,
                    '„' => 0x84,
                    '…' => 0x85,
                    '•' => 0x95,
                    '–' => 0x96,
                    '—' => 0x97,
                    '‘' => 0x91,
                    '’' => 0x92,
                    '“' => 0x93,
                    '”' => 0x94,
                    '™' => 0x99,
                    _ => b'?',
                };
                if byte.is_ascii() {
                    out.push(byte as char);
                } else {
                    out.push_str(&format!("\\{byte:03o}"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(sections: usize) -> Vec<u8> {
        let png = crate::chart::bar_chart_png(&[3.0, 5.0, 2.0]).unwrap();
        let table = Table {
            header: vec!["Region".into(), "Q1".into(), "Total".into()],
            rows: vec![vec!["North".into(), "12".into(), "12".into()], vec!["South (old)".into(), "7".into(), "7".into()]],
        };
        let sections: Vec<Section> =
            (0..sections).map(|i| Section { heading: format!("Section {i}"), paragraphs: vec!["Some words here. ".repeat(40)] }).collect();
        render(&Document {
            title: "Sales Dashboard — Q3 (draft)",
            subtitle: "Workbook export",
            intro: "An introduction with (parentheses) and a back\\slash and ünïcödé and 中文.",
            table: &table,
            chart_caption: "Figure 1",
            chart_png: &png,
            sections: &sections,
            created: "2025-03-12T10:30:00Z",
        })
        .unwrap()
    }

    fn count_pages(pdf: &[u8]) -> usize {
        let text = String::from_utf8_lossy(pdf);
        text.match_indices("/Type /Page").filter(|(i, _)| !text[i + 11..].starts_with('s')).count()
    }

    #[test]
    fn structure_and_page_count() {
        let pdf = sample(4);
        assert!(pdf.starts_with(b"%PDF-1.4\n"));
        assert!(pdf.ends_with(b"%%EOF\n"));
        assert_eq!(count_pages(&pdf), 5);
        assert_eq!(String::from_utf8_lossy(&pdf).matches("/Subtype /Image").count(), 1, "one shared image");
    }

    #[test]
    fn xref_offsets_point_at_objects() {
        let pdf = sample(2);
        let find = |needle: &[u8]| pdf.windows(needle.len()).rposition(|w| w == needle).unwrap();
        let after = find(b"startxref\n") + b"startxref\n".len();
        let digits: Vec<u8> = pdf[after..].iter().take_while(|b| b.is_ascii_digit()).copied().collect();
        let start: usize = String::from_utf8(digits).unwrap().parse().unwrap();
        let xref = std::str::from_utf8(&pdf[start..]).expect("the xref table and trailer are ASCII");
        assert!(xref.starts_with("xref\n0 "));
        let entries: Vec<&str> = xref.lines().skip(3).take_while(|l| l.ends_with(" n ")).collect();
        assert_eq!(entries.len(), FIRST_PAGE - 1 + 2 * 3);
        for (i, entry) in entries.iter().enumerate() {
            let offset: usize = entry[..10].parse().unwrap();
            assert!(pdf[offset..].starts_with(format!("{} 0 obj\n", i + 1).as_bytes()), "object {}", i + 1);
        }
    }

    #[test]
    fn deterministic() {
        assert_eq!(sample(3), sample(3));
    }

    #[test]
    fn strings_are_escaped() {
        let mut out = String::new();
        escape_into(&mut out, "a(b)c\\d é € 中");
        assert_eq!(out, "a\\(b\\)c\\\\d \\351 \\200 ?");
        assert_eq!(utf16_hex("Aé"), "<FEFF004100E9>");
        assert_eq!(pdf_date("2025-03-12T10:30:00Z"), "20250312103000Z");
    }

    #[test]
    fn wrapping_respects_width() {
        let lines = wrap(&"word ".repeat(200), 10.0, 200.0);
        assert!(lines.len() > 5);
        assert!(lines.iter().all(|l| text_width(l, 10.0, Font::Regular) <= 200.0));
        let long = wrap(&"x".repeat(500), 10.0, 100.0);
        assert!(long.iter().all(|l| text_width(l, 10.0, Font::Regular) <= 100.0));
    }
}
