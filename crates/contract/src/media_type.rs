//! Declared media types are data, not headers: a server's `mimeType` (of a block, of a resource's
//! contents), a v2 artifact's `mime`, a `data:` URL's type and a rule's `mime` are parsed where
//! they enter the contract, so nothing downstream — the summary, the catalog, a response header
//! the window's file request gets — ever holds one as the server wrote it.
//!
//! Kept: `type "/" subtype *( OWS ";" OWS [ name "=" value ] )`, where `type` and `subtype` are
//! RFC 6838 restricted names (a letter or digit, then at most 126 of letters, digits and
//! `!#$&-^_.+`), a parameter's name an RFC 9110 token and its value a token or a quoted string of
//! printable ASCII, the whole at most [`MAX_MEDIA_TYPE_LEN`] bytes. The result is canonical: type,
//! subtype and parameter names lowercased, empty parameters (`text/html;;`, which RFC 9110's
//! grammar allows) dropped, parameters joined by `"; "`. Anything else — control characters,
//! CR/LF, non-ASCII, a missing subtype, a dangling `=` — is refused; the caller then uses the
//! type sniffed from the bytes and records a warning.

use std::fmt;

/// The longest declared media type kept, parameters included (RFC 6838 bounds each of type and
/// subtype to 127 characters; nothing registered comes near this).
pub const MAX_MEDIA_TYPE_LEN: usize = 255;

/// The type a stored or declared media type falls back to when it cannot be used.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// Why a declared media type was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaTypeError {
    /// Nothing but white space.
    Empty,
    /// Longer than [`MAX_MEDIA_TYPE_LEN`] bytes.
    TooLong(usize),
    /// No valid `type/subtype` at the start.
    NotTypeSlashSubtype,
    /// A parameter that is not `name=value` (token or quoted string), or stray characters.
    BadParameter,
}

impl fmt::Display for MediaTypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "it is empty"),
            Self::TooLong(len) => write!(f, "{len} bytes, more than {MAX_MEDIA_TYPE_LEN}"),
            Self::NotTypeSlashSubtype => write!(f, "not a type/subtype"),
            Self::BadParameter => write!(f, "a malformed parameter or a character no media type has"),
        }
    }
}

impl std::error::Error for MediaTypeError {}

/// Parses a declared media type into its canonical form (see the module docs).
///
/// ```
/// use mcp_canvas_contract::parse_media_type;
/// assert_eq!(parse_media_type("IMAGE/PNG").unwrap(), "image/png");
/// assert_eq!(parse_media_type("text/plain ;Charset=UTF-8").unwrap(), "text/plain; charset=UTF-8");
/// assert!(parse_media_type("image/png\r\nX-Evil: 1").is_err());
/// ```
pub fn parse_media_type(declared: &str) -> Result<String, MediaTypeError> {
    if declared.len() > MAX_MEDIA_TYPE_LEN {
        return Err(MediaTypeError::TooLong(declared.len()));
    }
    let text = declared.trim_matches(is_ows).as_bytes();
    if text.is_empty() {
        return Err(MediaTypeError::Empty);
    }
    let mut at = 0;
    let kind = restricted_name(text, &mut at).ok_or(MediaTypeError::NotTypeSlashSubtype)?;
    if text.get(at) != Some(&b'/') {
        return Err(MediaTypeError::NotTypeSlashSubtype);
    }
    at += 1;
    let subtype = restricted_name(text, &mut at).ok_or(MediaTypeError::NotTypeSlashSubtype)?;
    let mut out = format!("{}/{}", kind.to_ascii_lowercase(), subtype.to_ascii_lowercase());
    loop {
        skip_ows(text, &mut at);
        match text.get(at) {
            // Canonical form adds a space after each `;`: what is kept is bounded too, so it
            // parses again to itself.
            None if out.len() > MAX_MEDIA_TYPE_LEN => return Err(MediaTypeError::TooLong(out.len())),
            None => return Ok(out),
            Some(b';') => at += 1,
            Some(_) => return Err(MediaTypeError::BadParameter),
        }
        skip_ows(text, &mut at);
        if matches!(text.get(at), None | Some(b';')) {
            continue; // an empty parameter
        }
        let name = token(text, &mut at).ok_or(MediaTypeError::BadParameter)?;
        if text.get(at) != Some(&b'=') {
            return Err(MediaTypeError::BadParameter);
        }
        at += 1;
        let value = match text.get(at) {
            Some(b'"') => quoted_string(text, &mut at),
            _ => token(text, &mut at),
        }
        .ok_or(MediaTypeError::BadParameter)?;
        out.push_str("; ");
        out.push_str(&name.to_ascii_lowercase());
        out.push('=');
        out.push_str(value);
    }
}

/// A stored media type fit for a `Content-Type` header: itself when it parses, else
/// [`OCTET_STREAM`]. For responders serving what is in a store, which may hold anything.
pub fn media_type_or_octet_stream(stored: &str) -> String {
    parse_media_type(stored).unwrap_or_else(|_| OCTET_STREAM.to_owned())
}

/// A declared media type shown in a message: escaped and cut, never repeated as given.
pub(crate) fn quoted_for_message(declared: &str) -> String {
    let cut: String = declared.chars().take(40).collect();
    let more = if cut.len() < declared.len() { "…" } else { "" };
    format!("{cut:?}{more}")
}

fn is_ows(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn skip_ows(text: &[u8], at: &mut usize) {
    while matches!(text.get(*at), Some(b' ' | b'\t')) {
        *at += 1;
    }
}

/// RFC 6838 `restricted-name`.
fn restricted_name<'a>(text: &'a [u8], at: &mut usize) -> Option<&'a str> {
    let start = *at;
    if !text.get(start)?.is_ascii_alphanumeric() {
        return None;
    }
    let len = text[start..].iter().take_while(|&&b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b)).count();
    if len > 127 {
        return None;
    }
    *at = start + len;
    std::str::from_utf8(&text[start..*at]).ok()
}

/// RFC 9110 `token`.
fn token<'a>(text: &'a [u8], at: &mut usize) -> Option<&'a str> {
    let start = *at;
    let len = text[start..].iter().take_while(|&&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)).count();
    if len == 0 {
        return None;
    }
    *at = start + len;
    std::str::from_utf8(&text[start..*at]).ok()
}

/// RFC 9110 `quoted-string`, printable ASCII only (no tab, no obs-text), quotes included.
fn quoted_string<'a>(text: &'a [u8], at: &mut usize) -> Option<&'a str> {
    let start = *at;
    let mut i = start + 1;
    loop {
        match *text.get(i)? {
            b'"' => break,
            b'\\' => {
                let next = *text.get(i + 1)?;
                if !(b' '..=b'~').contains(&next) {
                    return None;
                }
                i += 2;
            }
            b if (b' '..=b'~').contains(&b) => i += 1,
            _ => return None,
        }
    }
    *at = i + 1;
    std::str::from_utf8(&text[start..*at]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        for (declared, canonical) in [
            ("image/png", "image/png"),
            ("IMAGE/PNG", "image/png"),
            ("  Text/Markdown  ", "text/markdown"),
            ("image/png; charset=\"x\"", "image/png; charset=\"x\""),
            ("text/plain;CHARSET=utf-8", "text/plain; charset=utf-8"),
            ("text/html;;", "text/html"),
            ("text/html ; ; profile=mcp-app", "text/html; profile=mcp-app"),
            ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
            ("image/svg+xml", "image/svg+xml"),
            ("text/plain; title=\"a \\\"b\\\" ;c\"", "text/plain; title=\"a \\\"b\\\" ;c\""),
        ] {
            assert_eq!(parse_media_type(declared).as_deref(), Ok(canonical), "{declared:?}");
        }
    }

    #[test]
    fn refusals() {
        let long = format!("image/{}", "x".repeat(10 * 1024));
        // Within the bound as declared, past it once canonical (a space after each `;`).
        let packed = format!("a/b{}", ";p=1".repeat(63));
        assert!(packed.len() <= MAX_MEDIA_TYPE_LEN);
        assert!(matches!(parse_media_type(&packed), Err(MediaTypeError::TooLong(n)) if n > MAX_MEDIA_TYPE_LEN), "{:?}", parse_media_type(&packed));
        for (declared, error) in [
            ("", MediaTypeError::Empty),
            (" \t ", MediaTypeError::Empty),
            (long.as_str(), MediaTypeError::TooLong(long.len())),
            ("image/png\r\nX-Evil: 1", MediaTypeError::BadParameter),
            ("image/png\n", MediaTypeError::BadParameter),
            ("image/\u{1b}[31mpng", MediaTypeError::NotTypeSlashSubtype),
            ("image/png\0", MediaTypeError::BadParameter),
            ("image/pñg", MediaTypeError::BadParameter),
            ("image", MediaTypeError::NotTypeSlashSubtype),
            ("image/", MediaTypeError::NotTypeSlashSubtype),
            ("/png", MediaTypeError::NotTypeSlashSubtype),
            ("not a mime", MediaTypeError::NotTypeSlashSubtype),
            ("image/png extra", MediaTypeError::BadParameter),
            ("text/plain; charset", MediaTypeError::BadParameter),
            ("text/plain; charset=", MediaTypeError::BadParameter),
            ("text/plain; charset = utf-8", MediaTypeError::BadParameter),
            ("text/plain; title=\"unterminated", MediaTypeError::BadParameter),
            ("text/plain; title=\"tab\there\"", MediaTypeError::BadParameter),
            ("text/plain; title=\"line\r\nbreak\"", MediaTypeError::BadParameter),
        ] {
            assert_eq!(parse_media_type(declared), Err(error), "{declared:?}");
        }
        assert_eq!(parse_media_type(&format!("a/{}", "b".repeat(200))), Err(MediaTypeError::NotTypeSlashSubtype), "a subtype over 127 characters");
        assert!(parse_media_type(&format!("text/plain; a=\"{}\"", "x".repeat(230))).is_ok(), "255 bytes in all is fine");
    }

    #[test]
    fn whatever_is_kept_is_printable_ascii_and_parses_again_to_itself() {
        for declared in ["IMAGE/PNG", "text/html;;", "image/png; charset=\"x\"", "text/plain ;Charset=UTF-8"] {
            let once = parse_media_type(declared).unwrap();
            assert!(once.bytes().all(|b| (b' '..=b'~').contains(&b)), "{once:?}");
            assert_eq!(parse_media_type(&once).as_deref(), Ok(once.as_str()));
        }
        assert_eq!(media_type_or_octet_stream("image/png\r\nSet-Cookie: x"), OCTET_STREAM);
        assert_eq!(media_type_or_octet_stream("image/png"), "image/png");
        assert_eq!(quoted_for_message("a\r\nb"), "\"a\\r\\nb\"");
        assert_eq!(quoted_for_message(&"x".repeat(100)), format!("{:?}…", "x".repeat(40)));
    }
}
