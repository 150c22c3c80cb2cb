//! Whether a PDF file's end says where its cross-reference section is, so PDFium can find its
//! objects without reading the whole file. A file without that (truncated, corrupt, or not a PDF
//! after its header) makes PDFium rebuild the table by scanning every byte — seconds for a large
//! file — which must not happen while a tool call waits for its result.
//!
//! Checked here (a few reads at the start and end of the file): the `%PDF-` header, and in the
//! last KiB `startxref`, an offset inside the file, `%%EOF`; at that offset a classic `xref`
//! table or an indirect object (an xref stream). Written by hand because it is these few lines;
//! a PDF parser crate would parse far more than is needed to answer this.

use std::{
    fs::File,
    io::{Read, Seek, SeekFrom},
    path::Path,
};

/// How much of the file's end is searched for `startxref`.
const TAIL: u64 = 1024;

/// `true` when the header and the trailer's `startxref` look sound (see the module docs).
pub(crate) fn looks_intact(path: &Path) -> bool {
    check(path).unwrap_or(false)
}

fn check(path: &Path) -> std::io::Result<bool> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut head = [0u8; 1024];
    let read = read_at(&mut file, 0, &mut head)?;
    if !head[..read].windows(5).any(|w| w == b"%PDF-") {
        return Ok(false);
    }
    let start = len.saturating_sub(TAIL);
    let mut tail = vec![0u8; (len - start) as usize];
    read_at(&mut file, start, &mut tail)?;
    let Some(at) = rfind(&tail, b"startxref") else { return Ok(false) };
    let after = &tail[at + b"startxref".len()..];
    let digits: Vec<u8> = after.iter().copied().skip_while(u8::is_ascii_whitespace).take_while(u8::is_ascii_digit).collect();
    let Some(offset) = std::str::from_utf8(&digits).ok().and_then(|d| d.parse::<u64>().ok()) else { return Ok(false) };
    if offset >= len || rfind(after, b"%%EOF").is_none() {
        return Ok(false);
    }
    let mut there = [0u8; 32];
    let read = read_at(&mut file, offset, &mut there)?;
    Ok(starts_xref_section(&there[..read]))
}

/// A classic table (`xref`) or an xref stream's object header (`12 0 obj`).
fn starts_xref_section(bytes: &[u8]) -> bool {
    let text = bytes.trim_ascii_start();
    if text.starts_with(b"xref") {
        return true;
    }
    let mut parts = text.split(u8::is_ascii_whitespace).filter(|p| !p.is_empty());
    let number = |p: Option<&[u8]>| p.is_some_and(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit));
    number(parts.next()) && number(parts.next()) && parts.next().is_some_and(|p| p.starts_with(b"obj"))
}

fn read_at(file: &mut File, offset: u64, buffer: &mut [u8]) -> std::io::Result<usize> {
    file.seek(SeekFrom::Start(offset))?;
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, bytes).unwrap();
        file
    }

    fn pdf_with_table() -> Vec<u8> {
        let mut pdf = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n".to_vec();
        let xref = pdf.len();
        pdf.extend_from_slice(format!("xref\n0 2\n0000000000 65535 f \n0000000009 00000 n \ntrailer\n<< /Size 2 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").as_bytes());
        pdf
    }

    #[test]
    fn a_trailer_that_points_at_its_table_is_intact() {
        assert!(looks_intact(file(&pdf_with_table()).path()));
    }

    #[test]
    fn an_xref_stream_counts_too() {
        let mut pdf = b"%PDF-1.7\n".to_vec();
        let xref = pdf.len();
        pdf.extend_from_slice(format!("7 0 obj\n<< /Type /XRef >>\nstream\nendstream\nendobj\nstartxref\n{xref}\n%%EOF").as_bytes());
        assert!(looks_intact(file(&pdf).path()));
    }

    #[test]
    fn what_would_need_a_rebuild_is_not() {
        // No trailer at all (the benchmark's "PDF": a header, then data).
        assert!(!looks_intact(file(b"%PDF-1.4\nstream\nrandom bytes\nendstream\n").path()));
        // Truncated: the trailer is gone.
        let whole = pdf_with_table();
        assert!(!looks_intact(file(&whole[..whole.len() - 30]).path()));
        // An offset past the end, or not at a table.
        assert!(!looks_intact(file(b"%PDF-1.4\nxref\nstartxref\n99999\n%%EOF\n").path()));
        assert!(!looks_intact(file(b"%PDF-1.4\nhello world\nstartxref\n9\n%%EOF\n").path()));
        // Not a PDF.
        assert!(!looks_intact(file(b"xref\nstartxref\n0\n%%EOF\n").path()));
        assert!(!looks_intact(Path::new("/nonexistent/file.pdf")));
    }
}
