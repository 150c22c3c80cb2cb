//! An independent safety checker for sanitized output. It re-parses with a real HTML parser
//! (html5ever through `scraper`), walks every node and lists every way the output could run
//! script, load something, or break out of the policy. It shares no code with the sanitizer.
#![allow(dead_code)]

use scraper::{Html, Node};

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// Elements that must never appear in a sanitized body.
const FORBIDDEN_ELEMENTS: &[&str] = &[
    "script", "iframe", "frame", "frameset", "object", "embed", "applet", "param", "form", "input",
    "button", "textarea", "select", "option", "keygen", "isindex", "style", "link", "base", "meta",
    "title", "svg", "math", "template", "noscript", "video", "audio", "source", "track", "portal",
    "image", "bgsound", "xml", "comment", "marquee", "picture", "area", "map",
];

/// Every element the policy may keep. Anything else in a body is a policy failure.
const KEPT_ELEMENTS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "address",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "i",
    "img",
    "ins",
    "kbd",
    "li",
    "main",
    "mark",
    "nav",
    "ol",
    "p",
    "pre",
    "q",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "samp",
    "section",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
    // Inserted by the parser around a fragment.
    "html",
    "head",
    "body",
];

/// Attributes that hold a URL somewhere in HTML, SVG or MathML.
const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "background",
    "poster",
    "srcset",
    "data",
    "codebase",
    "cite",
    "dynsrc",
    "lowsrc",
    "longdesc",
    "ping",
    "manifest",
    "icon",
    "classid",
    "archive",
    "profile",
    "usemap",
    "itemtype",
    "to",
    "from",
    "values",
    "by",
];

/// CSS that can run code or fetch.
const FORBIDDEN_CSS: &[&str] = &[
    "url(",
    "expression",
    "@import",
    "behavior",
    "-moz-binding",
    "javascript:",
    "vbscript:",
    "\\",
    "image-set(",
    "position",
];

/// The CSP every sanitized document carries (remote images off).
pub const EXPECTED_CSP: &str = "default-src 'none'; img-src data: artifact:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// The scheme a browser would see: tabs and newlines removed, C0 controls and spaces trimmed.
fn browser_scheme(value: &str) -> String {
    let cleaned: String = value
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let trimmed = cleaned.trim_matches(|c: char| c <= ' ');
    match trimmed.find(':') {
        Some(end)
            if trimmed[..end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            trimmed[..end].to_ascii_lowercase()
        }
        _ => String::new(),
    }
}

fn is_allowed_data_image(value: &str) -> bool {
    let lower = value.trim().to_ascii_lowercase();
    [
        "data:image/png",
        "data:image/jpeg",
        "data:image/gif",
        "data:image/webp",
    ]
    .iter()
    .any(|prefix| {
        lower
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with([';', ',']))
    })
}

/// Problems with a URL value, by the brief's rules (dangerous schemes) and by the policy's
/// (what each attribute may point to).
fn url_problems(element: &str, attribute: &str, value: &str, remote_images: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let candidates: Vec<&str> = if attribute == "srcset" {
        value
            .split(',')
            .map(|candidate| candidate.trim().split(' ').next().unwrap_or(""))
            .collect()
    } else {
        vec![value]
    };
    for candidate in candidates {
        let scheme = browser_scheme(candidate);
        if ["javascript", "vbscript", "livescript", "mocha"].contains(&scheme.as_str()) {
            problems.push(format!(
                "{element}[{attribute}] has a {scheme}: URL: {value:?}"
            ));
        }
        if scheme == "data" && !is_allowed_data_image(candidate) {
            problems.push(format!(
                "{element}[{attribute}] has a non-image data: URL: {value:?}"
            ));
        }
        let allowed: &[&str] = match (element, attribute) {
            ("a", "href") => &["http", "https", "mailto", "tel"],
            ("img", "src") if remote_images => &["data", "artifact", "http", "https"],
            ("img", "src") => &["data", "artifact"],
            _ => &[],
        };
        if !allowed.contains(&scheme.as_str()) {
            problems.push(format!(
                "{element}[{attribute}] is not allowed to hold {value:?}"
            ));
        }
    }
    problems
}

/// Everything wrong with a parsed body (`root` is the document or fragment).
fn tree_problems(html: &Html, remote_images: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for node in html.tree.nodes() {
        let Node::Element(element) = node.value() else {
            continue;
        };
        let name = element.name();
        if element.name.ns.to_string() != HTML_NS {
            problems.push(format!("<{name}> in namespace {}", element.name.ns));
        }
        if FORBIDDEN_ELEMENTS.contains(&name) {
            problems.push(format!("forbidden element <{name}>"));
        } else if !KEPT_ELEMENTS.contains(&name) {
            problems.push(format!("element <{name}> outside the policy"));
        }
        for (qualified, value) in &element.attrs {
            let attribute = match &qualified.prefix {
                Some(prefix) => format!("{prefix}:{}", qualified.local),
                None => qualified.local.to_string(),
            };
            let lower = attribute.to_ascii_lowercase();
            if lower.starts_with("on") {
                problems.push(format!("event handler {name}[{attribute}={value:?}]"));
            }
            if URL_ATTRIBUTES.contains(&lower.as_str()) {
                problems.extend(url_problems(name, &lower, value, remote_images));
            }
            if lower == "style" {
                let css = value.to_ascii_lowercase();
                for needle in FORBIDDEN_CSS {
                    if css.contains(needle) {
                        problems.push(format!("{name}[style] contains {needle:?}: {value:?}"));
                    }
                }
            }
            if name == "a" && lower == "target" && &**value != "_blank" {
                problems.push(format!("a[target={value:?}]"));
            }
        }
        if name == "a" {
            let rel = element.attr("rel").unwrap_or("");
            if !(rel.contains("noopener") && rel.contains("noreferrer"))
                || element.attr("target") != Some("_blank")
            {
                problems.push(format!(
                    "link without rel=noopener noreferrer / target=_blank: {element:?}"
                ));
            }
        }
    }
    problems
}

/// Everything wrong with a complete sanitized document: the head must be exactly ours, the
/// body must pass [`tree_problems`].
pub fn document_problems(document: &str, remote_images: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if !document.starts_with("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"") {
        problems.push("document does not start with doctype, charset and CSP".to_owned());
    }
    let parsed = Html::parse_document(document);
    let mut head = Vec::new();
    let mut in_body = Vec::new();
    for node in parsed.tree.nodes() {
        let Node::Element(element) = node.value() else {
            continue;
        };
        let inside_head = node
            .ancestors()
            .any(|a| a.value().as_element().is_some_and(|e| e.name() == "head"));
        if inside_head {
            head.push(element.clone());
        } else if element.name() != "html" && element.name() != "head" {
            in_body.push(element.name().to_owned());
        }
    }
    for name in &in_body {
        if FORBIDDEN_ELEMENTS.contains(&name.as_str()) {
            problems.push(format!("forbidden element <{name}> outside the head"));
        }
    }
    let head_names: Vec<&str> = head.iter().map(|element| element.name()).collect();
    if head_names != ["meta", "meta", "meta", "style"] {
        problems.push(format!("head is {head_names:?}"));
    } else {
        let csp = head[1].attr("content").unwrap_or("");
        let expected = if remote_images {
            EXPECTED_CSP.replace(
                "img-src data: artifact:",
                "img-src data: artifact: https: http:",
            )
        } else {
            EXPECTED_CSP.to_owned()
        };
        if head[0].attr("charset") != Some("utf-8")
            || head[1].attr("http-equiv") != Some("Content-Security-Policy")
            || csp != expected
            || head[2].attr("name") != Some("referrer")
        {
            problems.push(format!("unexpected head metas: {head:?}"));
        }
    }
    // The body part of the same parse (head elements excluded by construction).
    let body_only = {
        let start = document.find("<body>").map(|i| i + 6).unwrap_or(0);
        let end = document.rfind("</body>").unwrap_or(document.len());
        &document[start..end]
    };
    problems.extend(tree_problems(
        &Html::parse_fragment(body_only),
        remote_images,
    ));
    problems.extend(
        tree_problems(&parsed, remote_images)
            .into_iter()
            .filter(|problem| !is_head_element_problem(problem)),
    );
    problems
}

/// The whole-document walk sees our own head; those are checked exactly above.
fn is_head_element_problem(problem: &str) -> bool {
    ["forbidden element <meta>", "forbidden element <style>"].contains(&problem)
}

/// A fragment as a string that ignores attribute order: for comparing two sanitized outputs.
pub fn canonical(fragment: &str) -> String {
    fn walk(node: ego_tree::NodeRef<'_, Node>, out: &mut String) {
        match node.value() {
            Node::Element(element) => {
                let mut attributes: Vec<String> = element
                    .attrs()
                    .map(|(name, value)| format!("{name}={value:?}"))
                    .collect();
                attributes.sort();
                out.push_str(&format!("<{} {}>", element.name(), attributes.join(" ")));
                node.children().for_each(|child| walk(child, out));
                out.push_str(&format!("</{}>", element.name()));
            }
            Node::Text(text) => out.push_str(&format!("{:?}", text.to_string())),
            _ => node.children().for_each(|child| walk(child, out)),
        }
    }
    let parsed = Html::parse_fragment(fragment);
    let mut out = String::new();
    walk(parsed.tree.root(), &mut out);
    out
}
