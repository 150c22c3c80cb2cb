//! The allow-list, as an ammonia `Builder`. Keep this file and the policy section of the crate
//! documentation in step.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use ammonia::{Builder, UrlRelative};

use super::HtmlOptions;
use super::{style, urls};

/// Elements kept (attributes filtered). Everything else is unwrapped, or dropped with its
/// content when it is in [`DROPPED_WITH_CONTENT`].
const TAGS: &[&str] = &[
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
];

/// Elements removed together with everything inside them: active content, raw-text containers
/// whose text would otherwise show up as markup, and foreign (SVG/MathML) content.
pub(crate) const DROPPED_WITH_CONTENT: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "noscript",
    "noembed", "noframes", "template", "textarea", "select", "title", "svg", "math",
];

/// Attributes allowed on every kept element.
const GENERIC_ATTRIBUTES: &[&str] = &["title", "lang", "dir", "style"];

/// Attributes allowed on one element.
const TAG_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href", "hreflang"]),
    ("img", &["src", "alt", "width", "height", "align"]),
    (
        "table",
        &[
            "align",
            "border",
            "cellpadding",
            "cellspacing",
            "summary",
            "width",
        ],
    ),
    ("thead", &["align", "valign"]),
    ("tbody", &["align", "valign"]),
    ("tfoot", &["align", "valign"]),
    ("tr", &["align", "valign"]),
    (
        "td",
        &["align", "valign", "colspan", "rowspan", "headers", "width"],
    ),
    (
        "th",
        &[
            "align", "valign", "colspan", "rowspan", "headers", "scope", "width",
        ],
    ),
    ("col", &["align", "span", "width"]),
    ("colgroup", &["align", "span", "width"]),
    ("ol", &["start", "reversed", "type"]),
    // `language-rust` from fenced code blocks; inert without a stylesheet that uses it.
    ("code", &["class"]),
    ("ul", &["type"]),
    ("li", &["value"]),
    ("details", &["open"]),
    ("time", &["datetime"]),
    ("data", &["value"]),
    ("del", &["datetime"]),
    ("ins", &["datetime"]),
    ("hr", &["align", "size", "width"]),
];

/// Schemes ammonia lets through to [`urls::filter`], which narrows them per attribute.
const URL_SCHEMES: &[&str] = &["http", "https", "mailto", "tel", "data", "artifact"];

/// The ammonia builder for one document. `blocked` counts remote images whose `src` is removed.
pub(crate) fn builder(options: &HtmlOptions, blocked: Arc<AtomicUsize>) -> Builder<'static> {
    let allow_remote_images = options.allow_remote_images;
    let mut builder = Builder::empty();
    builder
        .tags(TAGS.iter().copied().collect())
        .clean_content_tags(DROPPED_WITH_CONTENT.iter().copied().collect())
        .generic_attributes(GENERIC_ATTRIBUTES.iter().copied().collect())
        .tag_attributes(
            TAG_ATTRIBUTES
                .iter()
                .map(|(tag, attributes)| (*tag, attributes.iter().copied().collect::<HashSet<_>>()))
                .collect::<HashMap<_, _>>(),
        )
        .url_schemes(URL_SCHEMES.iter().copied().collect())
        // Relative URLs (fragments included) would resolve against the app that hosts the
        // document; they are removed. (Not `UrlRelative::Deny`: that drops them before the
        // attribute filter, which must see scheme-relative images to count them as blocked.)
        .url_relative(UrlRelative::Custom(Box::new(remove_relative)))
        .link_rel(Some("noopener noreferrer"))
        .set_tag_attribute_value("a", "target", "_blank")
        .strip_comments(true)
        .filter_style_properties(style::ALLOWED_PROPERTIES.iter().copied().collect())
        .attribute_filter(move |element, attribute, value| match attribute {
            "style" => style::is_safe(value).then_some(Cow::Borrowed(value)),
            "href" | "src" => {
                urls::filter(element, attribute, value, allow_remote_images, &blocked)
            }
            _ => Some(Cow::Borrowed(value)),
        });
    builder
}

fn remove_relative(_url: &str) -> Option<Cow<'_, str>> {
    None
}
