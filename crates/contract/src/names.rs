//! Artifact file names: sanitized, never a path, bounded, unique within one result.

use std::collections::HashSet;

const MAX_NAME_CHARS: usize = 120;

/// A safe file name from whatever the server said: the last path component, no control
/// characters, no bidirectional overrides (`report\u{202e}fdp.exe` would read as `reportexe.pdf`),
/// no `..`, no leading dots, bounded length (the extension is kept).
pub(crate) fn sanitize(raw: &str) -> Option<String> {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = last
        .chars()
        .map(|c| if c.is_control() || is_bidi_control(c) || matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|') { '_' } else { c })
        .collect();
    let cleaned = cleaned.replace("..", "_");
    let cleaned = cleaned.trim().trim_start_matches('.').trim();
    if cleaned.is_empty() || cleaned.chars().all(|c| c == '_') {
        return None;
    }
    if cleaned.chars().count() <= MAX_NAME_CHARS {
        return Some(cleaned.to_owned());
    }
    let (stem, ext) = match cleaned.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.chars().count() <= 10 => (stem, Some(ext)),
        _ => (cleaned, None),
    };
    let budget = MAX_NAME_CHARS - ext.map_or(0, |e| e.chars().count() + 1);
    let stem: String = stem.chars().take(budget).collect();
    Some(match ext {
        Some(ext) => format!("{stem}.{ext}"),
        None => stem,
    })
}

/// Unicode format characters that reorder how text is displayed.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `<tool>.<ext>` for the first nameless binary of a result, then `<tool>-2.<ext>`, ...
pub(crate) fn default_name(tool: &str, ordinal: usize, mime: &str) -> String {
    let stem = sanitize(tool).unwrap_or_else(|| "artifact".to_owned()).replace('.', "_");
    match ordinal {
        0 | 1 => format!("{stem}.{}", extension_for(mime)),
        n => format!("{stem}-{n}.{}", extension_for(mime)),
    }
}

/// Makes names unique within one result: `report.html`, `report (2).html`, ...
#[derive(Default)]
pub(crate) struct UniqueNames(HashSet<String>);

impl UniqueNames {
    pub fn claim(&mut self, name: String) -> String {
        if self.0.insert(name.to_ascii_lowercase()) {
            return name;
        }
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s.to_owned(), format!(".{e}")),
            _ => (name.clone(), String::new()),
        };
        (2..).map(|n| format!("{stem} ({n}){ext}")).find(|c| self.0.insert(c.to_ascii_lowercase())).expect("unbounded")
    }
}

/// A file extension for a MIME type.
pub fn extension_for(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "image/bmp" => "bmp",
        "image/tiff" => "tiff",
        "image/x-icon" | "image/vnd.microsoft.icon" => "ico",
        "application/pdf" => "pdf",
        "application/zip" => "zip",
        "application/gzip" => "gz",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "docx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation" => "pptx",
        "audio/x-wav" | "audio/wav" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "audio/x-flac" | "audio/flac" => "flac",
        "video/mp4" => "mp4",
        "video/webm" => "webm",
        "text/html" => "html",
        "text/csv" => "csv",
        "text/markdown" => "md",
        "application/json" => "json",
        "text/plain" => "txt",
        _ => "bin",
    }
}

/// The MIME type an extension suggests, for artifacts that came without one.
pub(crate) fn mime_for_name(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "bmp" => "image/bmp",
        "tif" | "tiff" => "image/tiff",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "html" | "htm" => "text/html",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "json" => "application/json",
        "txt" | "log" => "text/plain",
        "wav" => "audio/x-wav",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        "zip" => "application/zip",
        "py" | "rs" | "ts" | "tsx" | "js" | "sh" | "toml" | "yaml" | "yml" | "sql" | "go" | "java" | "c" | "h" | "cpp" => "text/plain",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_are_defused() {
        assert_eq!(sanitize("../../etc/passwd").as_deref(), Some("passwd"));
        assert_eq!(sanitize("..\\..\\boot.ini").as_deref(), Some("boot.ini"));
        assert_eq!(sanitize("a..b.txt").as_deref(), Some("a_b.txt"));
        assert_eq!(sanitize("..").as_deref(), None);
        assert_eq!(sanitize(".bashrc").as_deref(), Some("bashrc"));
        assert_eq!(sanitize("re\u{0}port\n.pdf").as_deref(), Some("re_port_.pdf"));
        assert_eq!(sanitize("   ").as_deref(), None);
        assert_eq!(sanitize("invoice\u{202e}fdp.exe").as_deref(), Some("invoice_fdp.exe"));
        let long = format!("{}.pdf", "x".repeat(500));
        let cut = sanitize(&long).unwrap();
        assert_eq!(cut.chars().count(), 120);
        assert!(cut.ends_with(".pdf"));
    }

    #[test]
    fn duplicates_get_numbered() {
        let mut names = UniqueNames::default();
        assert_eq!(names.claim("a.png".into()), "a.png");
        assert_eq!(names.claim("a.png".into()), "a (2).png");
        assert_eq!(names.claim("A.PNG".into()), "A (3).PNG");
        assert_eq!(names.claim("noext".into()), "noext");
        assert_eq!(names.claim("noext".into()), "noext (2)");
    }
}
