//! The policy keeps useful content: exact expected outputs for benign markup, the document
//! shell, remote images, inline styles, and the removal counts.

#[path = "support/checker.rs"]
mod checker;

use mcp_canvas_render::{HtmlOptions, RemovalCounts, sanitize_html};

const LINK: &str = r#"target="_blank" rel="noopener noreferrer""#;

fn clean(input: &str) -> String {
    sanitize_html(input, &HtmlOptions::default()).body
}

#[test]
fn benign_markup_is_kept_exactly() {
    let cases: &[(&str, &str)] = &[
        (
            "<table><caption>Q3</caption><thead><tr><th colspan=\"2\">Region</th><th align=\"right\">Sales</th></tr></thead><tbody><tr><td>EU</td><td>West</td><td align=\"right\">42</td></tr></tbody><tfoot><tr><td rowspan=\"1\">Total</td></tr></tfoot></table>",
            "<table><caption>Q3</caption><thead><tr><th colspan=\"2\">Region</th><th align=\"right\">Sales</th></tr></thead><tbody><tr><td>EU</td><td>West</td><td align=\"right\">42</td></tr></tbody><tfoot><tr><td rowspan=\"1\">Total</td></tr></tfoot></table>",
        ),
        // The parser adds the implied <tbody>.
        (
            "<table><tr><td>1</td></tr></table>",
            "<table><tbody><tr><td>1</td></tr></tbody></table>",
        ),
        (
            "<ul><li>one</li><li><em>two</em> <strong>2</strong></li></ul><ol start=\"3\" reversed><li>three</li></ol><dl><dt>t</dt><dd>d</dd></dl>",
            "<ul><li>one</li><li><em>two</em> <strong>2</strong></li></ul><ol start=\"3\" reversed=\"\"><li>three</li></ol><dl><dt>t</dt><dd>d</dd></dl>",
        ),
        (
            "<a href=\"https://example.com/a?b=1&amp;c=2#d\" title=\"Example\">link</a>",
            &format!(
                "<a href=\"https://example.com/a?b=1&amp;c=2#d\" title=\"Example\" {LINK}>link</a>"
            ),
        ),
        (
            "<a href=\"mailto:a@example.com\">mail</a>",
            &format!("<a href=\"mailto:a@example.com\" {LINK}>mail</a>"),
        ),
        (
            "<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\" width=\"10\" height=\"12\">",
            "<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\" width=\"10\" height=\"12\">",
        ),
        (
            "<img src=\"artifact://localhost/demo_1f0c2b7e9a41\" alt=\"chart\">",
            "<img src=\"artifact://localhost/demo_1f0c2b7e9a41\" alt=\"chart\">",
        ),
        (
            "<img src=\"data:image/webp;base64,UklGRg==\">",
            "<img src=\"data:image/webp;base64,UklGRg==\">",
        ),
        (
            "<h1>Title</h1><h2 lang=\"en\">Sub</h2><p>Text with <code>code</code>, <kbd>Ctrl</kbd>, <sub>2</sub>, <sup>3</sup>, <mark>hi</mark>, <del>old</del> <ins>new</ins>.</p><hr><pre>pre  formatted</pre><blockquote>quoted</blockquote>",
            "<h1>Title</h1><h2 lang=\"en\">Sub</h2><p>Text with <code>code</code>, <kbd>Ctrl</kbd>, <sub>2</sub>, <sup>3</sup>, <mark>hi</mark>, <del>old</del> <ins>new</ins>.</p><hr><pre>pre  formatted</pre><blockquote>quoted</blockquote>",
        ),
        (
            "<details open><summary>More</summary><p>Hidden</p></details><figure><figcaption>Fig</figcaption></figure>",
            "<details open=\"\"><summary>More</summary><p>Hidden</p></details><figure><figcaption>Fig</figcaption></figure>",
        ),
        (
            "<section><article><header>h</header><main>m</main><footer>f</footer></article></section>",
            "<section><article><header>h</header><main>m</main><footer>f</footer></article></section>",
        ),
        (
            "<p style=\"color: red; font-weight: bold\">styled</p>",
            "<p style=\"color:red;font-weight:bold\">styled</p>",
        ),
        (
            "<pre><code class=\"language-rust\">fn main() {}</code></pre>",
            "<pre><code class=\"language-rust\">fn main() {}</code></pre>",
        ),
        (
            "Plain &lt;text&gt; &amp; entities",
            "Plain &lt;text&gt; &amp; entities",
        ),
    ];
    for (input, expected) in cases {
        let output = sanitize_html(input, &HtmlOptions::default());
        assert_eq!(output.body, *expected, "input: {input}");
        assert!(
            checker::document_problems(&output.html, false).is_empty(),
            "{input}"
        );
    }
}

#[test]
fn benign_markup_reports_nothing_removed() {
    for input in [
        "<table><tbody><tr><td>1</td></tr></tbody></table>",
        "<ul><li>one</li></ul>",
        "<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\">",
        "<p style=\"color:red\">x</p>",
    ] {
        assert!(
            sanitize_html(input, &HtmlOptions::default())
                .removed
                .is_empty(),
            "{input}"
        );
    }
}

#[test]
fn dangerous_parts_go_and_text_stays() {
    let cases: &[(&str, &str)] = &[
        ("<p onclick=\"steal()\">hello</p>", "<p>hello</p>"),
        ("before<script>alert(1)</script>after", "beforeafter"),
        ("<style>body{display:none}</style><p>x</p>", "<p>x</p>"),
        (
            "<form action=\"https://evil.example\"><label>Name</label><input name=q><button>Go</button></form>",
            "NameGo",
        ),
        (
            "<iframe src=\"https://evil.example\">fallback</iframe>text",
            "text",
        ),
        (
            "<a href=\"javascript:alert(1)\">x</a>",
            &format!("<a {LINK}>x</a>"),
        ),
        (
            "<a href=\"/relative\">x</a><a href=\"#frag\">y</a>",
            &format!("<a {LINK}>x</a><a {LINK}>y</a>"),
        ),
        (
            "<img src=\"data:image/svg+xml;base64,PHN2Zz4=\" alt=\"svg\">",
            "<img alt=\"svg\">",
        ),
        (
            "<p style=\"color:red;background:url(https://evil.example/x.png)\">x</p>",
            "<p>x</p>",
        ),
        (
            "<p style=\"color:red;position:fixed;z-index:99\">x</p>",
            "<p style=\"color:red\">x</p>",
        ),
        ("<svg><circle r=\"5\"/></svg>after", "after"),
        (
            "<html><head><title>T</title><meta http-equiv=refresh content=\"0;url=https://evil.example\"><base href=\"https://evil.example/\"></head><body onload=\"x()\"><h1>Kept</h1></body></html>",
            "<h1>Kept</h1>",
        ),
        ("<!-- comment --><p>x</p>", "<p>x</p>"),
    ];
    for (input, expected) in cases {
        // Attribute order can change when attributes are dropped; compare ignoring it.
        assert_eq!(
            checker::canonical(&clean(input)),
            checker::canonical(expected),
            "input: {input}"
        );
    }
    // Existing rel/target are replaced, not merged.
    let body = clean("<a href=\"https://example.com\" target=\"_self\" rel=\"opener\">x</a>");
    assert!(
        body.contains("target=\"_blank\"")
            && body.contains("rel=\"noopener noreferrer\"")
            && !body.contains("opener\""),
        "{body}"
    );
    assert!(!body.contains("_self"), "{body}");
}

#[test]
fn remote_images_are_blocked_and_counted_unless_allowed() {
    let input = "<img src=\"https://example.com/a.png\" alt=\"a\"><img src=\"http://example.com/b.png\"><img src=\"//example.com/c.png\"><img src=\"artifact://localhost/x\">";
    let blocked = sanitize_html(input, &HtmlOptions::default());
    assert_eq!(
        blocked.body,
        "<img alt=\"a\"><img><img><img src=\"artifact://localhost/x\">"
    );
    assert_eq!(blocked.removed.remote_images_blocked, 3);
    assert_eq!(blocked.removed.urls, 0);
    assert!(blocked.html.contains(checker::EXPECTED_CSP));

    let allowed = sanitize_html(
        input,
        &HtmlOptions {
            allow_remote_images: true,
        },
    );
    assert_eq!(
        allowed.body,
        "<img src=\"https://example.com/a.png\" alt=\"a\"><img src=\"http://example.com/b.png\"><img><img src=\"artifact://localhost/x\">"
    );
    assert_eq!(allowed.removed.remote_images_blocked, 0);
    assert_eq!(allowed.removed.urls, 1, "scheme-relative stays removed");
    assert!(
        allowed
            .html
            .contains("img-src data: artifact: https: http:;"),
        "{}",
        allowed.html
    );
    assert!(checker::document_problems(&allowed.html, true).is_empty());
}

#[test]
fn removal_counts_by_kind() {
    let output = sanitize_html(
        "<p onclick=\"a()\" onmouseover=\"b()\">a</p><script>x()</script><script src=\"y.js\"></script>\
         <style>p{}</style><b style=\"x:expression(1)\">b</b><img src=\"javascript:1\"><iframe></iframe>\
         <img src=\"https://example.com/t.png\">",
        &HtmlOptions::default(),
    );
    assert_eq!(
        output.removed,
        RemovalCounts {
            elements: 4, // 2 scripts, style, iframe
            scripts: 2,
            styles: 2,     // the <style> element and the style attribute
            attributes: 6, // onclick, onmouseover, script src, style, 2 × img src
            event_handlers: 2,
            urls: 2, // javascript: img src, script src
            remote_images_blocked: 1,
        }
    );
}

#[test]
fn the_document_is_complete_and_locked_down() {
    let output = sanitize_html("<p>hi</p>", &HtmlOptions::default());
    let html = &output.html;
    assert!(
        html.starts_with("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"),
        "{html}"
    );
    assert!(html.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        checker::EXPECTED_CSP
    )));
    assert!(html.contains("<meta name=\"referrer\" content=\"no-referrer\">"));
    assert!(
        html.contains("<body>\n<p>hi</p>\n</body>\n</html>\n"),
        "{html}"
    );
    assert!(checker::document_problems(html, false).is_empty());
}

#[test]
fn deep_nesting_up_to_the_limit_is_parsed() {
    let n = mcp_canvas_render::MAX_NESTING - 1; // plus the <b> inside
    let deep = "<div>".repeat(n) + "<b>x</b>" + &"</div>".repeat(n);
    let output = sanitize_html(&deep, &HtmlOptions::default());
    assert_eq!(output.body, deep);
    // Unclosed <p>/<li> do not nest, so long lists without end tags are ordinary HTML.
    let list = "<ul>".to_owned() + &"<li>item".repeat(5_000) + "</ul>";
    assert!(
        sanitize_html(&list, &HtmlOptions::default())
            .body
            .starts_with("<ul><li>item</li>")
    );
}

/// Shown as text, not parsed (the parser is quadratic in depth); how fast is measured by
/// `cargo bench -p mcp-canvas-render --bench sanitize_nesting`, against a flat page of the same
/// size in the same run.
#[test]
fn pathological_nesting_is_shown_as_text() {
    let n = 50_000;
    let deep = "<div>".repeat(n) + "<img src=x onerror=alert(1)>" + &"</div>".repeat(n);
    let output = sanitize_html(&deep, &HtmlOptions::default());
    assert!(
        output
            .body
            .starts_with("<p>This HTML nests elements 50000 levels deep (more than 512)"),
        "{}",
        &output.body[..200]
    );
    assert!(output.body.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert_eq!(output.removed.elements, n + 1);
    assert!(checker::document_problems(&output.html, false).is_empty());
}

#[test]
fn wide_input_is_fine() {
    let wide = "<p onclick=x>a</p>".repeat(20_000);
    let output = sanitize_html(&wide, &HtmlOptions::default());
    assert_eq!(output.removed.event_handlers, 20_000);
    assert_eq!(output.body, "<p>a</p>".repeat(20_000));
}
