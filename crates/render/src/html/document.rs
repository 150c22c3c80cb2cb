//! Wraps a sanitized body in the complete document the webview loads.

use super::HtmlOptions;

/// The built-in stylesheet: readable defaults, images never wider than the view.
const BASE_CSS: &str = "body{font-family:system-ui,sans-serif;line-height:1.5;margin:1rem;\
overflow-wrap:anywhere}img{max-width:100%;height:auto}table{border-collapse:collapse}\
th,td{border:1px solid #c8c8c8;padding:.25rem .5rem}pre{overflow:auto}";

/// The Content-Security-Policy of every document this crate produces.
pub(crate) fn content_security_policy(options: &HtmlOptions) -> String {
    let remote = if options.allow_remote_images {
        " https: http:"
    } else {
        ""
    };
    format!(
        "default-src 'none'; img-src data: artifact:{remote}; style-src 'unsafe-inline'; \
         base-uri 'none'; form-action 'none'"
    )
}

/// `body` must already be sanitized.
pub(crate) fn wrap(body: &str, options: &HtmlOptions) -> String {
    let csp = content_security_policy(options);
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <style>{BASE_CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
}

/// The body shown instead of HTML too deeply nested to parse in reasonable time.
pub(crate) fn as_source_text(input: &str, depth: usize, limit: usize) -> String {
    let mut escaped = String::with_capacity(input.len() + input.len() / 8);
    for c in input.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            _ => escaped.push(c),
        }
    }
    format!(
        "<p>This HTML nests elements {depth} levels deep (more than {limit}), so it is shown as \
         source text.</p><pre>{escaped}</pre>"
    )
}
