//! Turns artifact bytes into something the locked-down MCP Canvas webview can show safely:
//! sanitized HTML documents, Markdown, images (checked, converted, thumbnailed) and PDF pages
//! rendered to PNG. No Tauri, no async, no network.
//!
//! | input | entry point | output |
//! | --- | --- | --- |
//! | HTML | [`sanitize_html`] | [`SanitizedHtml`]: a complete document + what was removed |
//! | Markdown | [`render_markdown`], [`render_markdown_with`] | the same, via the same sanitizer |
//! | SVG | [`is_svg`], [`rasterize_svg`] | never inlined; shown only through `<img src="artifact:…">`, or drawn as pixels |
//! | raster image | [`image_info`], [`decode_limited`], [`to_display_png`] | header facts, bounded decode, PNG |
//! | PDF | [`PdfRenderer`] | page count, title, page sizes; any page as PNG at any width ≤ 4000 px |
//!
//! # Sanitization policy
//!
//! Tool output is untrusted. HTML (and the HTML that Markdown turns into) is parsed by html5ever
//! and rebuilt by [ammonia] under an allow-list; anything not listed below is removed. The policy,
//! in full:
//!
//! * **Elements.** Only presentational/structural ones are kept: headings, paragraphs, lists,
//!   tables (`table`, `thead`, `tbody`, `tfoot`, `tr`, `th`, `td`, `caption`, `col`, `colgroup`),
//!   `a`, `img`, `figure`, `blockquote`, `pre`, `code`, inline text markup (`b`, `strong`, `em`,
//!   `i`, `u`, `s`, `del`, `ins`, `mark`, `sub`, `sup`, `small`, `kbd`, …), `details`/`summary`,
//!   sectioning (`article`, `section`, `header`, `footer`, `nav`, `aside`, `main`), `div`, `span`,
//!   `hr`, `br`. Other elements are unwrapped (their text stays). These are removed **with their
//!   content**: `script`, `style`, `iframe`, `frame`, `frameset`, `object`, `embed`, `applet`,
//!   `noscript`, `noembed`, `noframes`, `template`, `textarea`, `select`, `title`, `svg`, `math`.
//!   So there is never a script, frame, object, embed, form, input, button, `base`, `meta`
//!   (refresh or otherwise), `link` or `<style>` element in the output.
//! * **Attributes.** Only listed ones survive (`title`, `lang`, `dir`, `style`; `href` and
//!   `hreflang` on `a`; `src`, `alt`, `width`, `height` on `img`; table layout attributes such as
//!   `colspan`/`rowspan`/`align`; `start`/`reversed`/`type` on `ol`; `open` on `details`; `class`
//!   on `code` for a fenced block's language, …).
//!   No event handler (`on*`) is ever allowed, and neither are `srcset`, `background`, `poster`,
//!   `action`, `formaction`, `xlink:href`, `cite` or `ping`.
//! * **URLs.** `href` accepts `http`, `https`, `mailto` and `tel`. `img src` accepts `artifact:`
//!   (other stored artifacts), `data:image/png`, `data:image/jpeg`, `data:image/gif` and
//!   `data:image/webp` — never `data:image/svg+xml` or `data:text/html` — and `http(s)` only
//!   when [`HtmlOptions::allow_remote_images`] is set.
//!   `javascript:`, `vbscript:`, every other scheme and every relative URL (fragments and
//!   scheme-relative `//host/…` included: they would resolve against the app) are removed
//!   (schemes are read the way a browser reads them: whitespace, tabs and newlines inside the
//!   scheme don't hide it). A blocked remote image keeps its `alt` text and loses its `src`; the
//!   number blocked is reported.
//! * **Links** always get `rel="noopener noreferrer"` and `target="_blank"`.
//! * **Inline `style` attributes** are kept only if they contain none of `url(`, `expression`,
//!   `@import`, `javascript:`, `vbscript:`, `behavior`, `-moz-binding`, `image(`, `image-set(`,
//!   `element(`, a backslash (CSS escape) or a comment; otherwise the whole attribute is dropped.
//!   What is kept is reduced to an allow-list of typographic/box properties (colour, font, text,
//!   margin, padding, border, width/height, display, …) — never `position`, `z-index` or any
//!   background image — so content cannot overlay the page or fetch anything.
//! * **Comments, doctypes and processing instructions** are dropped.
//! * **Pathological nesting.** Input nested more than [`MAX_NESTING`] (512) elements deep is not
//!   parsed at all — the HTML tree builder needs time quadratic in the depth — and is shown as
//!   escaped source text in a `<pre>`.
//! * **The document.** The kept fragment is wrapped in a complete document with
//!   `<meta charset="utf-8">`, `<meta name="referrer" content="no-referrer">`, a small built-in
//!   stylesheet and a CSP meta tag: `default-src 'none'; img-src data: artifact:;
//!   style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'` (`img-src` also gets
//!   `https: http:` when remote images are allowed). The CSP is a second line of defence: even a
//!   sanitizer bug could not run a script or load anything but images from the allowed sources.
//!
//! Counts of what was removed ([`RemovalCounts`]) come from tokenizing the input and the output
//! and comparing; they are for display ("3 scripts removed"), not a security boundary.
//!
//! SVG is a script-capable document format, so it is **never inlined** into HTML. Viewers show it
//! only through `<img>` (where browsers run no script and load nothing external); use [`is_svg`]
//! to recognise it.
//!
//! # PDF
//!
//! PDF rendering uses PDFium through `pdfium-render`, loaded at run time. Where the library is
//! looked for, in order: the `MCP_CANVAS_PDFIUM` environment variable (a file or a directory),
//! `PDFIUM_DYNAMIC_LIB_PATH` (a directory), next to the current executable, `../lib/mcp-canvas/`
//! relative to it (the .deb layout), then `.deps/pdfium/` of the source tree this crate was built
//! from (what `scripts/setup.sh` fills). When none loads, every PDF call returns
//! [`RenderError::PdfiumUnavailable`], which says that PDF preview is unavailable and how to fix it;
//! nothing else in the crate is affected. PDFium is not thread-safe: one process-wide binding is
//! shared and every call holds a lock for its whole duration.
//!
//! Tests: `cargo test -p mcp-canvas-render`. The PDF tests fail (they do not skip) when libpdfium
//! cannot be loaded, unless `MCP_CANVAS_ALLOW_NO_PDFIUM=1` is set.
#![deny(missing_docs)]

mod error;
mod html;
mod markdown;
mod pdf;
mod raster;
mod svg;
pub mod text;

pub use error::RenderError;
pub use html::{HtmlOptions, MAX_NESTING, RemovalCounts, SanitizedHtml, sanitize_html};
pub use markdown::{render_markdown, render_markdown_with};
pub use pdf::{
    CacheStats, MAX_RENDER_HEIGHT, MAX_RENDER_WIDTH, PageSize, PdfInfo, PdfRenderer,
    PdfRendererConfig, PdfSource, pdfium_search_paths,
};
pub use raster::{
    DisplayPng, ImageFormat, ImageInfo, Limits, decode_limited, image_info, to_display_png,
};
pub use svg::{MAX_SVG_BYTES, is_svg, rasterize_svg};

/// The `image` crate this crate decodes with ([`decode_limited`] returns its `DynamicImage`).
pub use image;

/// Result type of this crate.
pub type Result<T, E = RenderError> = std::result::Result<T, E>;
