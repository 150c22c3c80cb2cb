//! HTML sanitizing: the public entry point and its types. The policy itself is in `policy.rs`
//! (written out in the crate documentation), the counting in `census.rs`, the wrapping document
//! in `document.rs`.

mod census;
mod document;
mod policy;
mod style;
mod urls;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Choices the caller makes per document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HtmlOptions {
    /// Keep `http(s)` image sources (and allow them in the CSP). Off by default: a remote image
    /// tells its server that the document was opened, and from where.
    pub allow_remote_images: bool,
}

/// What [`sanitize_html`] removed, by kind. Counts come from comparing the tokens of the input
/// with those of the output: they are for telling the user, not a security boundary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RemovalCounts {
    /// Elements removed (unwrapped or dropped with their content), all kinds together.
    pub elements: usize,
    /// `<script>` elements among [`elements`](Self::elements).
    pub scripts: usize,
    /// `<style>` elements and `style` attributes removed.
    pub styles: usize,
    /// Attributes removed, all kinds together.
    pub attributes: usize,
    /// Event-handler (`on…`) attributes among [`attributes`](Self::attributes).
    pub event_handlers: usize,
    /// URL attributes removed for their scheme or because they were relative
    /// (not counting [`remote_images_blocked`](Self::remote_images_blocked)).
    pub urls: usize,
    /// Remote images whose `src` was removed because remote images are not allowed.
    pub remote_images_blocked: usize,
}

impl RemovalCounts {
    /// True when nothing at all was removed.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The result of sanitizing: a complete document ready for the webview, the sanitized body
/// alone, and what was removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanitizedHtml {
    /// A complete HTML document: doctype, `<meta charset>`, the CSP meta tag, a small built-in
    /// stylesheet and [`body`](Self::body).
    pub html: String,
    /// The sanitized markup alone, as it appears inside `<body>`.
    pub body: String,
    /// What was removed.
    pub removed: RemovalCounts,
}

/// Sanitizes untrusted HTML (a fragment or a whole document) under the crate's written policy
/// and wraps the result in a complete, CSP-locked document. Never fails: anything that cannot be
/// kept safely is removed.
///
/// Input nested more than [`MAX_NESTING`] elements deep is not parsed as HTML (the HTML tree
/// builder needs time quadratic in the depth): it is shown as escaped source text instead.
pub fn sanitize_html(input: &str, options: &HtmlOptions) -> SanitizedHtml {
    let before = census::Tally::of(input);
    if before.max_depth > MAX_NESTING {
        let body = document::as_source_text(input, before.max_depth, MAX_NESTING);
        let removed = census::removed(&before, "", 0);
        return SanitizedHtml {
            html: document::wrap(&body, options),
            body,
            removed,
        };
    }
    let blocked = Arc::new(AtomicUsize::new(0));
    let body = policy::builder(options, Arc::clone(&blocked))
        .clean(input)
        .to_string();
    let remote_images_blocked = blocked.load(Ordering::Relaxed);
    let removed = census::removed(&before, &body, remote_images_blocked);
    SanitizedHtml {
        html: document::wrap(&body, options),
        body,
        removed,
    }
}

/// Deepest element nesting [`sanitize_html`] parses as HTML (browsers flatten beyond 512 too).
pub const MAX_NESTING: usize = 512;
