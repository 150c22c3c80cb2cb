//! Markdown: GitHub-style extensions render, and raw HTML / `javascript:` links inside Markdown
//! get the same sanitizer as HTML.

#[path = "support/checker.rs"]
mod checker;

use mcp_canvas_render::{HtmlOptions, render_markdown, render_markdown_with};

const LINK: &str = r#"target="_blank" rel="noopener noreferrer""#;

#[test]
fn extensions_render() {
    let cases: &[(&str, &str)] = &[
        (
            "| a | b |\n|---|:-:|\n| 1 | **2** |",
            "<table><thead><tr><th>a</th><th style=\"text-align:center\">b</th></tr></thead><tbody>\n<tr><td>1</td><td style=\"text-align:center\"><strong>2</strong></td></tr>\n</tbody></table>\n",
        ),
        (
            "~~gone~~ and `code`",
            "<p><del>gone</del> and <code>code</code></p>\n",
        ),
        (
            "- [x] done\n- [ ] todo",
            "<ul>\n<li>☑ done</li>\n<li>☐ todo</li>\n</ul>\n",
        ),
        (
            "# Title\n\n> quote",
            "<h1>Title</h1>\n<blockquote>\n<p>quote</p>\n</blockquote>\n",
        ),
        (
            "```rust\nfn main() { println!(\"<b>\"); }\n```",
            "<pre><code class=\"language-rust\">fn main() { println!(\"&lt;b&gt;\"); }\n</code></pre>\n",
        ),
        (
            "1. one\n2. two",
            "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n",
        ),
        (
            "[site](https://example.com \"T\") <https://auto.example>",
            &format!(
                "<p><a href=\"https://example.com\" title=\"T\" {LINK}>site</a> <a href=\"https://auto.example\" {LINK}>https://auto.example</a></p>\n"
            ),
        ),
        (
            "![d](data:image/png;base64,iVBORw0KGgo=)",
            "<p><img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"d\"></p>\n",
        ),
    ];
    for (input, expected) in cases {
        let output = render_markdown(input);
        assert_eq!(output.body, *expected, "input: {input}");
        assert!(output.removed.is_empty(), "{input}: {:?}", output.removed);
        assert!(
            checker::document_problems(&output.html, false).is_empty(),
            "{input}"
        );
    }
}

#[test]
fn raw_html_is_sanitized() {
    let output = render_markdown(
        "Hello\n\n<script>alert(1)</script>\n\n<b onclick=\"x()\">bold</b> <img src=x onerror=alert(1)>",
    );
    assert_eq!(output.body, "<p>Hello</p>\n\n<p><b>bold</b> <img></p>\n");
    assert_eq!(output.removed.scripts, 1);
    assert_eq!(output.removed.event_handlers, 2);
    assert!(checker::document_problems(&output.html, false).is_empty());

    let output = render_markdown(
        "<iframe src=\"https://evil.example\"></iframe>\n\n<style>*{}</style>\n\ntext",
    );
    assert_eq!(output.body, "\n\n<p>text</p>\n");
}

#[test]
fn javascript_links_lose_their_href() {
    for input in [
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](javascript&#58;alert(1))",
        "[x](<javascript:alert(1)>)",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    ] {
        let output = render_markdown(input);
        // Attribute order may differ when the filter drops `href`; compare ignoring it.
        assert_eq!(
            checker::canonical(&output.body),
            checker::canonical(&format!("<p><a {LINK}>x</a></p>\n")),
            "input: {input}"
        );
        assert_eq!(output.removed.urls, 1, "{input}");
    }
    let autolink = render_markdown("<javascript:alert(1)>");
    assert_eq!(
        autolink.body,
        format!("<p><a {LINK}>javascript:alert(1)</a></p>\n")
    );
    assert!(checker::document_problems(&autolink.html, false).is_empty());
}

#[test]
fn remote_images_follow_the_options() {
    let input = "![chart](https://example.com/chart.png)";
    let blocked = render_markdown(input);
    assert_eq!(blocked.body, "<p><img alt=\"chart\"></p>\n");
    assert_eq!(blocked.removed.remote_images_blocked, 1);
    let allowed = render_markdown_with(
        input,
        &HtmlOptions {
            allow_remote_images: true,
        },
    );
    assert_eq!(
        allowed.body,
        "<p><img src=\"https://example.com/chart.png\" alt=\"chart\"></p>\n"
    );
}

#[test]
fn frontmatter_is_shown_as_code_not_as_a_rule_and_a_heading() {
    let html = render_markdown("---\nname: a <b>\ndescription: d\n---\n# Title\n").html;
    assert!(html.contains("<code>name: a &lt;b&gt;\ndescription: d\n</code></pre>"), "{html}");
    assert!(html.contains("<h1>Title</h1>"), "{html}");
    assert!(!html.contains("<hr"), "{html}");
}
