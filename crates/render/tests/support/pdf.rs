//! Writes small, valid PDFs by hand (correct xref table), so the PDF tests and the benchmark
//! need no fixture files. Same approach as `crates/contract/tests/gen_fixtures.py`.
#![allow(dead_code)]

/// One page: size in points and its content stream.
pub struct Page {
    pub width: f32,
    pub height: f32,
    pub content: String,
}

/// A PDF with `pages`, Helvetica as `/F1`, and `title` in the Info dictionary (written as
/// UTF-16BE with a BOM, so non-ASCII titles round-trip).
pub fn build(title: Option<&str>, pages: &[Page]) -> Vec<u8> {
    // Object numbers: 1 catalog, 2 page tree, 3 font, 4 info, then (page, content) pairs.
    let page_ids: Vec<usize> = (0..pages.len()).map(|i| 5 + 2 * i).collect();
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            page_ids
                .iter()
                .map(|id| format!("{id} 0 R"))
                .collect::<Vec<_>>()
                .join(" "),
            pages.len()
        )
        .into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
        match title {
            Some(title) => format!(
                "<< /Title <FEFF{}> /Producer (mcp-canvas-render tests) >>",
                utf16_hex(title)
            ),
            None => "<< /Producer (mcp-canvas-render tests) >>".to_owned(),
        }
        .into_bytes(),
    ];
    for (page, id) in pages.iter().zip(&page_ids) {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] /Contents {} 0 R \
                 /Resources << /Font << /F1 3 0 R >> >> >>",
                page.width,
                page.height,
                id + 1
            )
            .into_bytes(),
        );
        let mut stream = format!("<< /Length {} >>\nstream\n", page.content.len()).into_bytes();
        stream.extend_from_slice(page.content.as_bytes());
        stream.extend_from_slice(b"\nendstream");
        objects.push(stream);
    }
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (index, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", index + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn utf16_hex(text: &str) -> String {
    text.encode_utf16()
        .map(|unit| format!("{unit:04X}"))
        .collect()
}

pub const SAMPLE_TITLE: &str = "Quarterly report – MCP Canvas";

/// Three pages. Page 1 (200 × 300 pt): black square x 20–100, y 200–280 (PDF coordinates, origin
/// bottom-left; so 20–100 from the top) and "Page 1" at the bottom left. Page 2 (200 × 300 pt):
/// black square x 100–180, y 20–100 (bottom right). Page 3 (300 × 200 pt, landscape): blue fill.
pub fn sample() -> Vec<u8> {
    build(
        Some(SAMPLE_TITLE),
        &[
            Page {
                width: 200.0,
                height: 300.0,
                content: "0 0 0 rg 20 200 80 80 re f\nBT /F1 24 Tf 20 40 Td (Page 1) Tj ET"
                    .to_owned(),
            },
            Page {
                width: 200.0,
                height: 300.0,
                content: "0 0 0 rg 100 20 80 80 re f\nBT /F1 24 Tf 20 250 Td (Page 2) Tj ET"
                    .to_owned(),
            },
            Page {
                width: 300.0,
                height: 200.0,
                content: "0 0 1 rg 10 10 280 180 re f".to_owned(),
            },
        ],
    )
}

/// A denser document for the benchmark: `pages` US-Letter pages, each with a heading, 32 lines of
/// text, a table grid and a few filled shapes.
pub fn report(pages: usize) -> Vec<u8> {
    let pages: Vec<Page> = (1..=pages)
        .map(|number| {
            let mut content = format!("BT /F1 20 Tf 72 730 Td (Section {number}: rendering benchmark) Tj ET\n");
            for line in 0..32 {
                let y = 700 - line * 14;
                content.push_str(&format!(
                    "BT /F1 10 Tf 72 {y} Td (Line {line}: The quick brown fox jumps over the lazy dog. 0123456789 ABCDEFGHIJ) Tj ET\n"
                ));
            }
            content.push_str("0.2 0.4 0.8 RG 1 w\n");
            for row in 0..=6 {
                let y = 100 + row * 20;
                content.push_str(&format!("72 {y} m 540 {y} l S\n"));
            }
            for column in 0..=6 {
                let x = 72 + column * 78;
                content.push_str(&format!("{x} 100 m {x} 220 l S\n"));
            }
            content.push_str("0.9 0.3 0.2 rg 72 20 120 60 re f\n0.2 0.7 0.3 rg 420 20 120 60 re f\n");
            Page { width: 612.0, height: 792.0, content }
        })
        .collect();
    build(Some("Benchmark report"), &pages)
}
