//! Markdown → HTML with pulldown-cmark (tables, strikethrough, task lists, a leading YAML
//! frontmatter block shown as code), then the HTML sanitizer: raw HTML inside Markdown gets
//! exactly the same treatment as an HTML artifact.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd, html};

use crate::html::{HtmlOptions, SanitizedHtml, sanitize_html};

/// Renders Markdown with the default [`HtmlOptions`] (no remote images).
pub fn render_markdown(input: &str) -> SanitizedHtml {
    render_markdown_with(input, &HtmlOptions::default())
}

/// Renders Markdown, then sanitizes the HTML under `options`.
///
/// Task-list markers become the characters ☐ and ☑ (the policy keeps no `<input>`).
pub fn render_markdown_with(input: &str, options: &HtmlOptions) -> SanitizedHtml {
    let parser = Parser::new_ext(
        input,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS,
    )
    .map(|event| match event {
        Event::TaskListMarker(done) => Event::Text(if done { "☑ " } else { "☐ " }.into()),
        // Frontmatter (a skill's SKILL.md, a static site's page) as the code it is; its text
        // stays text, escaped by the writer.
        Event::Start(Tag::MetadataBlock(_)) => Event::Html("<pre class=\"frontmatter\"><code>".into()),
        Event::End(TagEnd::MetadataBlock(_)) => Event::Html("</code></pre>".into()),
        other => other,
    });
    let mut markup = String::with_capacity(input.len() + input.len() / 2);
    html::push_html(&mut markup, parser);
    sanitize_html(&markup, options)
}
