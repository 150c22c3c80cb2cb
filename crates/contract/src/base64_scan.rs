//! Recognising base64 and `data:` URLs without false positives: a string is base64 only if every
//! character is in one alphabet, padding is at the end, and the length is possible; whether it is
//! a *binary* is then decided by its decoded head (see `sniff.rs`), never by a prefix table.

use crate::payload::Payload;

/// What validating a base64 string found out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Base64Form {
    pub url_safe: bool,
    pub whitespace: bool,
}

/// If `text` is a whole base64 string (standard or URL-safe; ASCII whitespace allowed, e.g.
/// line-wrapped), the payload for it (a copy of the text; see [`into_base64`] to move it).
pub(crate) fn as_base64(text: &str) -> Option<Payload> {
    let form = check_base64(text)?;
    Some(payload_from(text.to_owned(), form))
}

/// Like [`as_base64`] but takes the string, so a 100 MB payload is moved, not copied. Gives the
/// string back when it is not base64.
pub(crate) fn into_base64(text: String) -> Result<Payload, String> {
    match check_base64(&text) {
        Some(form) => Ok(payload_from(text, form)),
        None => Err(text),
    }
}

/// Whole base64 whose decoded head is a confidently identified binary or document (layer 3):
/// validated and sniffed without copying the text. Returns the form and the MIME type.
pub(crate) fn identify_base64(text: &str) -> Option<(Base64Form, String)> {
    let form = check_base64(text)?;
    let head = if form.whitespace {
        let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).take(crate::sniff::SNIFF_BYTES / 3 * 4 + 8).collect();
        crate::payload::decode_head(&compact, form.url_safe, crate::sniff::SNIFF_BYTES)
    } else {
        crate::payload::decode_head(text, form.url_safe, crate::sniff::SNIFF_BYTES)
    };
    let mime = crate::sniff::identify_confidently(&head)?;
    Some((form, mime))
}

pub(crate) fn payload_from(text: String, form: Base64Form) -> Payload {
    let text = if form.whitespace { text.chars().filter(|c| !c.is_ascii_whitespace()).collect() } else { text };
    Payload::Base64 { text, url_safe: form.url_safe }
}

const STD: u8 = 1; // `+` `/`
const URL: u8 = 2; // `-` `_`
const PAD: u8 = 4; // `=`
const WS: u8 = 8; // ASCII whitespace
const BAD: u8 = 16; // anything else

/// One class per byte; letters and digits are 0. A table lookup and an OR per byte keeps the
/// scan of a 100 MB payload well under the time it takes to decode it.
static CLASSES: [u8; 256] = {
    let mut table = [BAD; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = match c {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => 0,
            b'+' | b'/' => STD,
            b'-' | b'_' => URL,
            b'=' => PAD,
            b' ' | b'\n' | b'\r' | b'\t' => WS,
            _ => BAD,
        };
        b += 1;
    }
    table
};

/// Validates `text` as whole base64 without allocating.
pub(crate) fn check_base64(text: &str) -> Option<Base64Form> {
    let bytes = text.as_bytes();
    // Padding (and whitespace around it) at the end.
    let (mut end, mut padding, mut trailing_ws) = (bytes.len(), 0usize, false);
    while end > 0 {
        match CLASSES[bytes[end - 1] as usize] {
            PAD => padding += 1,
            WS => trailing_ws = true,
            _ => break,
        }
        end -= 1;
    }
    let body_bytes = &bytes[..end];
    let flags = body_bytes.iter().fold(0u8, |acc, &b| acc | CLASSES[b as usize]);
    if flags & (BAD | PAD) != 0 {
        return None;
    }
    let whitespace = trailing_ws || flags & WS != 0;
    let body = if flags & WS != 0 { body_bytes.iter().filter(|&&b| CLASSES[b as usize] != WS).count() } else { body_bytes.len() };
    let (standard, url_safe) = (flags & STD != 0, flags & URL != 0);
    if body == 0 || (standard && url_safe) || padding > 2 || body % 4 == 1 || (padding > 0 && (body + padding) % 4 != 0) {
        return None;
    }
    // The last character of a partial quantum has unused low bits; a strict decoder (the one that
    // will stream the bytes into the store) refuses them when they are not zero.
    let unused_bits_mask = [0u8, 0, 0b1111, 0b11][body % 4];
    let last = body_bytes.iter().rev().find(|&&b| CLASSES[b as usize] != WS);
    if last.is_some_and(|&b| sextet(b) & unused_bits_mask != 0) {
        return None;
    }
    Some(Base64Form { url_safe, whitespace })
}

/// The 6-bit value of a base64 character (either alphabet; the caller has validated it).
fn sextet(b: u8) -> u8 {
    match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' | b'-' => 62,
        _ => 63,
    }
}

/// A `data:` URL split into its parts.
#[derive(Debug, PartialEq)]
pub(crate) struct DataUrl {
    pub mime: Option<String>,
    pub payload: Payload,
}

/// Parses a whole string as a `data:` URL (`data:image/png;base64,...` or percent-encoded).
pub(crate) fn parse_data_url(text: &str) -> Option<DataUrl> {
    let rest = strip_prefix_ignore_case(text.trim(), "data:")?;
    let (header, data) = rest.split_once(',')?;
    let mut parts = header.split(';');
    // The type alone (its parameters and `base64` follow, split on `;`); not one: not a data URL.
    let mime = match parts.next().map(str::trim).filter(|m| !m.is_empty()) {
        Some(declared) => Some(crate::media_type::parse_media_type(declared).ok()?),
        None => None,
    };
    let is_base64 = parts.any(|p| p.trim().eq_ignore_ascii_case("base64"));
    let payload = if is_base64 {
        as_base64(data)?
    } else {
        Payload::Bytes(percent_encoding::percent_decode_str(data).collect())
    };
    Some(DataUrl { mime, payload })
}

/// Every base64 `data:` URL inside a longer text (markdown images, HTML): byte ranges and parses.
pub(crate) fn find_data_urls(text: &str) -> Vec<(std::ops::Range<usize>, DataUrl)> {
    let mut found = Vec::new();
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(offset) = lower[from..].find("data:") {
        let start = from + offset;
        from = start + 5;
        let Some(comma) = text[start..].find(',').map(|c| start + c) else { break };
        let header = &text[start + 5..comma];
        if header.len() > 100 || !header.to_ascii_lowercase().ends_with(";base64") {
            continue;
        }
        let end = text[comma + 1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_')))
            .map_or(text.len(), |e| comma + 1 + e);
        if let Some(parsed) = parse_data_url(&text[start..end]) {
            from = end;
            found.push((start..end, parsed));
        }
    }
    found
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    (text.len() >= prefix.len() && text.is_char_boundary(prefix.len()) && text[..prefix.len()].eq_ignore_ascii_case(prefix))
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_base64_forms() {
        assert!(as_base64("SGVsbG8gd29ybGQ=").is_some());
        assert!(as_base64("SGVsbG8gd29ybGQ").is_some(), "unpadded");
        assert!(as_base64("QQ==").is_some() && as_base64("QUI=").is_some() && as_base64("QUI").is_some());
        assert!(as_base64("SGVs\nbG8g\r\nd29y bGQ=").is_some(), "wrapped");
        assert!(matches!(as_base64("ab-_ab-_"), Some(Payload::Base64 { url_safe: true, .. })));
    }

    #[test]
    fn refuses_what_is_not_base64() {
        // "QR==" and "QUI=" set unused bits after the last byte: a strict decoder refuses them.
        for text in ["", "====", "abcde", "ab+_cd", "a=bc", "abc===", "hello world!", "eyJhbGciOi.eyJzdWIi.sig", "QR==", "QR", "QUJ=", "QUJ"] {
            assert!(as_base64(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn data_urls() {
        let url = parse_data_url("data:image/png;base64,iVBORw0KGgo=").unwrap();
        assert_eq!(url.mime.as_deref(), Some("image/png"));
        assert_eq!(url.payload.head(8), b"\x89PNG\r\n\x1a\n");
        let svg = parse_data_url("data:image/svg+xml,%3Csvg%3E%3C/svg%3E").unwrap();
        assert_eq!(svg.payload, Payload::Bytes(b"<svg></svg>".to_vec()));
        assert!(parse_data_url("data:not a mime;base64,AAAA").is_none());
        assert!(parse_data_url("https://example.com").is_none());

        let text = "see ![chart](data:image/png;base64,iVBORw0KGgo=) and data:text/plain,hi";
        let found = find_data_urls(text);
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].0.clone()], "data:image/png;base64,iVBORw0KGgo=");
    }
}
