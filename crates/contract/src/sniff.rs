//! What bytes really are. Magic numbers come from the `infer` crate; SVG, HTML and CSV are
//! recognised by content. A declared MIME type is checked against this and loses on disagreement,
//! so that something declared `image/png` that is really HTML is never treated as an image.

/// How many decoded bytes sniffing looks at (OOXML detection scans a few KB into the zip).
pub(crate) const SNIFF_BYTES: usize = 24 * 1024;

/// Types whose signatures are long enough that a match on arbitrary base64 is not a coincidence.
/// Used for layer 3 (binaries hidden in JSON), where nothing was declared.
const CONFIDENT: &[&str] = &[
    "application/pdf",
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/tiff",
    "image/avif",
    "image/heif",
    "application/zip",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/epub+zip",
    "application/gzip",
    "application/x-7z-compressed",
    "application/vnd.rar",
    "application/x-xz",
    "application/zstd",
    "application/x-bzip2",
    "audio/x-wav",
    "audio/ogg",
    "audio/x-flac",
    "video/mp4",
    "video/webm",
    "video/quicktime",
    "application/vnd.sqlite3",
    "application/msword",
    "application/vnd.ms-excel",
    "application/vnd.ms-powerpoint",
];

/// A binary (or SVG/HTML/CSV document) identified with confidence from its first bytes.
pub(crate) fn identify_confidently(head: &[u8]) -> Option<String> {
    if let Some(kind) = infer::get(head) {
        let mime = kind.mime_type();
        if CONFIDENT.contains(&mime) || (mime == "audio/mpeg" && head.starts_with(b"ID3")) {
            return Some(mime.to_owned());
        }
    }
    identify_text_document(head).map(str::to_owned)
}

/// SVG, HTML or CSV by content.
pub(crate) fn identify_text_document(head: &[u8]) -> Option<&'static str> {
    let text = utf8_prefix(head)?;
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let lower: String = trimmed.chars().take(512).collect::<String>().to_ascii_lowercase();
    let after_xml_decl = if lower.starts_with("<?xml") { lower.split_once("?>").map_or("", |(_, r)| r.trim_start()) } else { &lower };
    let after_comments = skip_comments_and_doctype_svg(after_xml_decl);
    if after_comments.starts_with("<svg") {
        return Some("image/svg+xml");
    }
    if ["<!doctype html", "<html", "<head", "<body", "<script", "<iframe", "<style"].iter().any(|p| lower.starts_with(p))
        || (lower.starts_with('<') && lower.contains("</") && ["<div", "<p>", "<p ", "<table", "<h1", "<span"].iter().any(|p| lower.starts_with(p)))
    {
        return Some("text/html");
    }
    if looks_like_csv(trimmed) {
        return Some("text/csv");
    }
    None
}

fn skip_comments_and_doctype_svg(mut text: &str) -> &str {
    loop {
        if let Some(rest) = text.strip_prefix("<!--") {
            text = rest.split_once("-->").map_or("", |(_, r)| r).trim_start();
        } else if text.starts_with("<!doctype svg") {
            text = text.split_once('>').map_or("", |(_, r)| r).trim_start();
        } else {
            return text;
        }
    }
}

/// At least three complete lines with the same number (≥ 1) of commas or tabs, none of them long
/// prose. Plain English rarely keeps an identical comma count line after line.
fn looks_like_csv(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).take(20).collect();
    // The last line of a head may be cut: ignore it unless the text is short.
    let complete = if lines.len() > 3 { &lines[..lines.len() - 1] } else { &lines[..] };
    if complete.len() < 3 || complete.iter().any(|l| l.len() > 2_000) {
        return false;
    }
    [',', '\t', ';'].iter().any(|&sep| {
        let count = |l: &str| l.matches(sep).count();
        let first = count(complete[0]);
        first >= 1 && complete.iter().all(|l| count(l) == first) && !complete.iter().all(|l| l.trim_end().ends_with('.'))
    })
}

/// The longest valid UTF-8 prefix, if it is most of `head` and free of control characters.
pub(crate) fn utf8_prefix(head: &[u8]) -> Option<&str> {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() && e.valid_up_to() + 4 > head.len() => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
        Err(_) => return None,
    };
    (!text.is_empty() && !text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))).then_some(text)
}

/// What the bytes look like when nothing is known: a confident type, else any `infer` match,
/// else `text/plain` for clean UTF-8, else `application/octet-stream`.
pub(crate) fn sniff(head: &[u8]) -> (String, bool) {
    if let Some(mime) = identify_confidently(head) {
        return (mime, true);
    }
    if let Some(kind) = infer::get(head) {
        return (kind.mime_type().to_owned(), false);
    }
    if utf8_prefix(head).is_some() || head.is_empty() {
        return ("text/plain".to_owned(), false);
    }
    ("application/octet-stream".to_owned(), false)
}

/// The MIME type to use for bytes that were declared as `declared`. Returns the type and a warning
/// when the bytes disagree with the declaration.
pub(crate) fn reconcile(declared: Option<&str>, head: &[u8]) -> (String, Option<String>) {
    let (sniffed, confident) = sniff(head);
    let Some(declared) = declared.map(essence).filter(|d| !d.is_empty() && d != "application/octet-stream") else {
        return (sniffed, None);
    };
    if same_type(&declared, &sniffed) {
        return (declared, None);
    }
    let disagree = |chosen: String| {
        let warning = format!("declared as {declared} but the bytes are {chosen}; treated as {chosen}");
        (chosen, Some(warning))
    };
    let declared_textual = is_textual(&declared);
    let sniffed_textual = is_textual(&sniffed);
    // Text declared as text stays text (shown as source, which is safe) unless the bytes are a real binary.
    if declared_textual && (sniffed_textual || !confident) {
        return (declared, None);
    }
    if confident {
        return disagree(sniffed);
    }
    // Declared a binary type whose signature we would have recognised, and the bytes are not it.
    if !declared_textual && (declared.starts_with("image/") || declared == "application/pdf" || infer_knows(&declared)) {
        return disagree(sniffed);
    }
    (declared, None)
}

fn infer_knows(mime: &str) -> bool {
    CONFIDENT.contains(&mime)
}

/// `image/PNG; charset=x` → `image/png`.
pub(crate) fn essence(mime: &str) -> String {
    mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

pub(crate) fn is_textual(mime: &str) -> bool {
    mime.starts_with("text/") || matches!(mime, "application/json" | "application/xml" | "application/javascript" | "application/x-ndjson")
        || mime.ends_with("+json")
        || (mime.ends_with("+xml") && mime != "image/svg+xml")
}

fn same_type(a: &str, b: &str) -> bool {
    let canonical = |m: &str| match m {
        "image/jpg" | "image/pjpeg" => "image/jpeg".to_owned(),
        "audio/wav" | "audio/wave" | "audio/vnd.wave" => "audio/x-wav".to_owned(),
        "audio/flac" => "audio/x-flac".to_owned(),
        "application/x-zip-compressed" | "application/x-zip" => "application/zip".to_owned(),
        "application/x-gzip" => "application/gzip".to_owned(),
        "audio/mp3" => "audio/mpeg".to_owned(),
        other => other.to_owned(),
    };
    let (a, b) = (canonical(a), canonical(b));
    // OOXML and EPUB are zips; a zip whose inner names were not in the head is still fine.
    let zip_family = |m: &str| m == "application/zip" || m.starts_with("application/vnd.openxmlformats") || m == "application/epub+zip";
    a == b || (zip_family(&a) && zip_family(&b) && (a == "application/zip" || b == "application/zip"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_png_that_is_html_becomes_html() {
        let (mime, warning) = reconcile(Some("image/png"), b"<!DOCTYPE html><script>alert(1)</script>");
        assert_eq!(mime, "text/html");
        assert!(warning.unwrap().contains("declared as image/png"));
        let (mime, _) = reconcile(Some("image/png"), b"<svg xmlns='http://www.w3.org/2000/svg'><script/></svg>");
        assert_eq!(mime, "image/svg+xml");
    }

    #[test]
    fn agreeing_and_unverifiable_declarations_stand() {
        assert_eq!(reconcile(Some("image/png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), ("image/png".into(), None));
        assert_eq!(reconcile(Some("image/jpg"), b"\xff\xd8\xff\xe0\0\x10JFIF"), ("image/jpg".into(), None));
        assert_eq!(reconcile(Some("text/csv"), b"a,b\n1,2\n"), ("text/csv".into(), None));
        assert_eq!(reconcile(Some("text/markdown"), b"<html><body>x</body></html>"), ("text/markdown".into(), None));
        assert_eq!(reconcile(Some("application/x-custom"), b"\x00\x01binary"), ("application/x-custom".into(), None));
        assert_eq!(reconcile(None, b"%PDF-1.7\n"), ("application/pdf".into(), None));
    }

    #[test]
    fn declared_pdf_that_is_text_is_not_a_pdf() {
        let (mime, warning) = reconcile(Some("application/pdf"), b"just some words");
        assert_eq!(mime, "text/plain");
        assert!(warning.is_some());
    }

    #[test]
    fn text_documents_by_content() {
        assert_eq!(identify_text_document(b"<?xml version='1.0'?>\n<!-- c -->\n<svg width='1'/>"), Some("image/svg+xml"));
        assert_eq!(identify_text_document(b"name,qty,price\napple,3,1.5\npear,1,2\nfig,9,3\n"), Some("text/csv"));
        assert_eq!(identify_text_document(b"Hello there, friend.\nHow are you, today.\nFine, thanks.\n"), None);
        assert_eq!(identify_text_document(b"The quick brown fox jumps over the lazy dog"), None);
        assert_eq!(identify_text_document(&[0u8; 64]), None);
    }
}
