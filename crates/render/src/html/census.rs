//! Counts what the sanitizer removed by tokenizing input and output with html5ever's tokenizer
//! (raw-text elements handled as a browser would) and comparing the tallies.

use std::cell::RefCell;
use std::collections::HashMap;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use super::RemovalCounts;

/// Attributes that carry a URL somewhere in HTML or SVG.
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
    "longdesc",
    "lowsrc",
    "dynsrc",
    "ping",
    "manifest",
    "icon",
];

/// Elements that never have content, and so never nest.
const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img",
    "input", "isindex", "keygen", "link", "meta", "param", "source", "track", "wbr",
];

/// Elements whose end tag may be left out: an unclosed one does not deepen the tree.
const OPTIONAL_END: &[&str] = &[
    "body", "caption", "colgroup", "dd", "dt", "head", "html", "li", "optgroup", "option", "p",
    "rb", "rp", "rt", "rtc", "tbody", "td", "tfoot", "th", "thead", "tr",
];

/// Token counts of one piece of HTML.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Deepest element nesting seen (an estimate from tokens: elements that need an end tag).
    pub(crate) max_depth: usize,
    depth: usize,
    elements: HashMap<String, usize>,
    attributes: usize,
    event_handlers: usize,
    style_attributes: usize,
    url_attributes: usize,
}

impl Tally {
    pub(crate) fn of(html: &str) -> Tally {
        let tokenizer = Tokenizer::new(Counter::default(), TokenizerOpts::default());
        let queue = BufferQueue::default();
        queue.push_back(StrTendril::from_slice(html));
        let _ = tokenizer.feed(&queue);
        tokenizer.end();
        tokenizer.sink.0.into_inner()
    }

    fn element(&self, name: &str) -> usize {
        self.elements.get(name).copied().unwrap_or(0)
    }

    fn total_elements(&self) -> usize {
        self.elements.values().sum()
    }
}

#[derive(Debug, Default)]
struct Counter(RefCell<Tally>);

impl TokenSink for Counter {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        let mut tally = self.0.borrow_mut();
        let nests = !VOID.contains(&&*tag.name) && !OPTIONAL_END.contains(&&*tag.name);
        if tag.kind == TagKind::EndTag {
            if nests {
                tally.depth = tally.depth.saturating_sub(1);
            }
            return TokenSinkResult::Continue;
        }
        if nests && !tag.self_closing {
            tally.depth += 1;
            tally.max_depth = tally.max_depth.max(tally.depth);
        }
        *tally.elements.entry(tag.name.to_string()).or_default() += 1;
        for attribute in &tag.attrs {
            let name = attribute.name.local.to_string().to_ascii_lowercase();
            tally.attributes += 1;
            tally.event_handlers += usize::from(name.starts_with("on"));
            tally.style_attributes += usize::from(name == "style");
            tally.url_attributes += usize::from(URL_ATTRIBUTES.contains(&name.as_str()));
        }
        match &*tag.name {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }
}

/// What disappeared between the input (`before`) and `output`.
pub(crate) fn removed(before: &Tally, output: &str, remote_images_blocked: usize) -> RemovalCounts {
    let after = Tally::of(output);
    let elements = before
        .elements
        .iter()
        .map(|(name, count)| count.saturating_sub(after.element(name)))
        .sum::<usize>()
        .min(before.total_elements());
    // Kept links gain `rel` and `target`; they are not in the input, so compare without them.
    let added = after.element("a") * 2;
    RemovalCounts {
        elements,
        scripts: before
            .element("script")
            .saturating_sub(after.element("script")),
        styles: before
            .element("style")
            .saturating_sub(after.element("style"))
            + before
                .style_attributes
                .saturating_sub(after.style_attributes),
        attributes: (before.attributes + added).saturating_sub(after.attributes),
        event_handlers: before.event_handlers.saturating_sub(after.event_handlers),
        urls: before
            .url_attributes
            .saturating_sub(after.url_attributes)
            .saturating_sub(remote_images_blocked),
        remote_images_blocked,
    }
}
