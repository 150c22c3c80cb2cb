//! Inline `style` attributes: a deny-list of anything that can fetch, run or hide code, then
//! (in ammonia) an allow-list of properties.

/// Substrings (compared in ASCII lowercase) that drop the whole `style` attribute.
const FORBIDDEN: &[&str] = &[
    "url(",
    "expression",
    "@import",
    "javascript:",
    "vbscript:",
    "behavior",
    "-moz-binding",
    "image(",
    "image-set(",
    "element(",
    "\\",
    "/*",
    "*/",
    "<",
    ">",
];

/// Properties kept in a safe `style` attribute: typography and box model. Nothing that
/// positions content over the page (`position`, `z-index`, `top`, …) or loads anything.
pub(crate) const ALLOWED_PROPERTIES: &[&str] = &[
    "color",
    "background-color",
    "opacity",
    "font",
    "font-family",
    "font-size",
    "font-style",
    "font-variant",
    "font-weight",
    "letter-spacing",
    "line-height",
    "text-align",
    "text-decoration",
    "text-indent",
    "text-transform",
    "vertical-align",
    "white-space",
    "word-spacing",
    "word-break",
    "overflow-wrap",
    "direction",
    "margin",
    "margin-top",
    "margin-right",
    "margin-bottom",
    "margin-left",
    "padding",
    "padding-top",
    "padding-right",
    "padding-bottom",
    "padding-left",
    "border",
    "border-top",
    "border-right",
    "border-bottom",
    "border-left",
    "border-color",
    "border-style",
    "border-width",
    "border-radius",
    "border-collapse",
    "border-spacing",
    "width",
    "height",
    "min-width",
    "max-width",
    "min-height",
    "max-height",
    "display",
    "float",
    "clear",
    "list-style-type",
    "caption-side",
    "table-layout",
];

/// True when `value` may stay (it is then reduced to [`ALLOWED_PROPERTIES`]).
pub(crate) fn is_safe(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    !lower
        .chars()
        .any(|c| c.is_control() && !c.is_ascii_whitespace())
        && !FORBIDDEN.iter().any(|needle| lower.contains(needle))
}
