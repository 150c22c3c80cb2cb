//! Recognising SVG. SVG can carry script and external references, so this crate never inlines
//! it into an HTML document: a viewer shows SVG only through `<img src="artifact:…">`, where the
//! browser runs no script and loads nothing external.

/// How far into the bytes to look for the root element.
const SNIFF_LEN: usize = 4096;

/// True when `bytes` is an SVG document: after an optional BOM, whitespace, XML declaration,
/// comments, processing instructions and doctype, the root element is `<svg` (optionally with a
/// namespace prefix, e.g. `<svg:svg`).
pub fn is_svg(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_LEN)];
    let text = String::from_utf8_lossy(head);
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("<?") {
            let Some(end) = after.find("?>") else {
                return false;
            };
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix("<!--") {
            let Some(end) = after.find("-->") else {
                return false;
            };
            rest = &after[end + 3..];
        } else if rest
            .get(..9)
            .is_some_and(|start| start.eq_ignore_ascii_case("<!doctype"))
        {
            let Some(end) = doctype_end(&rest[9..]) else {
                return false;
            };
            rest = &rest[9 + end..];
        } else {
            return root_is_svg(rest);
        }
    }
}

/// Index just past the doctype's closing `>`, skipping an internal subset `[...]`.
fn doctype_end(doctype: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (index, c) in doctype.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '>' if depth == 0 => return Some(index + 1),
            _ => {}
        }
    }
    None
}

fn root_is_svg(rest: &str) -> bool {
    let Some(tag) = rest.strip_prefix('<') else {
        return false;
    };
    let name_end = tag
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(tag.len());
    let name = &tag[..name_end];
    let local = name.rsplit(':').next().unwrap_or(name);
    local == "svg" && name_end < tag.len()
}
