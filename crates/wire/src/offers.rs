//! What a server offers besides tools, as the window and `mcp-canvas-cli --json` show it:
//! resources and templates, completion suggestions for their arguments, resource reads and the `resource_link`s a result offers, prompts and
//! a prompt filled in, skills and a verified skill file. The host fills these in
//! (`mcp_canvas_host::{resources, prompts, skills}`).

use mcp_canvas_contract::ToolOutcome;
use rmcp::model::Prompt;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A resource a server lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ResourceView {
    /// Its URI, what `Host::read_resource` takes.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Human title, when it has one.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// MIME type the server declares (checked against the bytes when read).
    pub mime: Option<String>,
    /// Size in bytes the server declares.
    #[ts(type = "number | null")]
    pub size: Option<u64>,
}

/// A resource template (RFC 6570 URI template) a server lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ResourceTemplateView {
    /// The URI template, e.g. `demo://chart/{values}`.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// Human title, when it has one.
    pub title: Option<String>,
    /// What it produces.
    pub description: Option<String>,
    /// MIME type of what it produces.
    pub mime: Option<String>,
}

/// Everything a server offers to read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ResourceList {
    /// Server name.
    pub server: String,
    /// Whether the server advertises the `resources` capability at all; when it does not, both
    /// lists are empty and nothing was asked.
    pub supported: bool,
    /// Its resources (every page).
    pub resources: Vec<ResourceView>,
    /// Its resource templates (every page).
    pub templates: Vec<ResourceTemplateView>,
}

/// One resource read: what was read and the normalized outcome (summary, stored artifacts,
/// warnings), exactly like a tool call's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ResourceRead {
    /// Id of this read (the `call_id` of its artifacts).
    pub read_id: String,
    /// Server name.
    pub server: String,
    /// The URI read.
    pub uri: String,
    /// What came back, normalized and stored.
    #[serde(flatten)]
    #[ts(flatten)]
    pub outcome: ToolOutcome,
}

/// A `resource_link` a tool result offered for reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ResourceLink {
    /// The link's name.
    pub name: String,
    /// The URI to pass to `Host::read_resource`.
    pub uri: String,
    /// Its description, when it had one.
    pub description: Option<String>,
    /// Where it was in the result (`content[2]`).
    pub source: String,
}

/// The `resource_link` blocks of a tool result, in order: the contract turns each into a text
/// `Resource link: <name> <<uri>>[ — <description>]`; this reads them back.
pub fn resource_links(outcome: &ToolOutcome) -> Vec<ResourceLink> {
    outcome.texts.iter().filter_map(|text| parse_link(&text.text).map(|(name, uri, description)| ResourceLink { name, uri, description, source: text.source.clone() })).collect()
}

fn parse_link(text: &str) -> Option<(String, String, Option<String>)> {
    let rest = text.strip_prefix("Resource link: ")?;
    // The name may contain ` <`; the URI is the first `<...>` that looks like an absolute URI.
    let mut from = 0;
    while let Some(at) = rest[from..].find(" <").map(|i| from + i) {
        let after = &rest[at + 2..];
        if let Some(end) = after.find('>') {
            let uri = &after[..end];
            if uri.contains(':') && !uri.contains(char::is_whitespace) {
                let description = after[end + 1..].strip_prefix(" — ").map(str::to_owned);
                return Some((rest[..at].to_owned(), uri.to_owned(), description));
            }
        }
        from = at + 2;
    }
    None
}

/// A prompt filled in, as the window shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PromptRead {
    /// Id of this read (the `call_id` of its artifacts).
    pub read_id: String,
    /// Server name.
    pub server: String,
    /// The prompt's name.
    pub name: String,
    /// The prompt's description, as the result gives it.
    pub description: Option<String>,
    /// How many messages it returned.
    pub messages: u32,
    /// The messages as Markdown (images and resources named, their bytes in artifacts); cut at
    /// `MAX_SHOWN_BYTES`.
    pub markdown: String,
    /// The messages as JSON, every binary replaced by `{"artifact": id}`; cut at
    /// `MAX_SHOWN_BYTES` (then not valid JSON, and `cut` says so).
    pub json: String,
    /// Whether `markdown` or `json` was cut.
    pub cut: bool,
    /// The transcript (first) and every image, audio and resource, stored.
    #[serde(flatten)]
    #[ts(flatten)]
    pub outcome: ToolOutcome,
}

/// A prompt a server offers, as the CLI and the window list it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PromptView {
    /// Its name on the server (what `prompts/get` takes).
    pub name: String,
    /// Human title, when it has one.
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments.
    pub arguments: Vec<PromptArgumentView>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PromptArgumentView {
    /// The argument's name.
    pub name: String,
    /// What to give.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

impl From<&Prompt> for PromptView {
    fn from(prompt: &Prompt) -> Self {
        Self {
            name: prompt.name.clone(),
            title: prompt.title.clone(),
            description: prompt.description.clone(),
            arguments: prompt
                .arguments
                .iter()
                .flatten()
                .map(|a| PromptArgumentView { name: a.name.clone(), description: a.description.clone(), required: a.required.unwrap_or(false) })
                .collect(),
        }
    }
}

/// One file of a skill's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SkillFileView {
    /// Its URI (`skill://<skill>/<path>`).
    pub uri: String,
    /// Its path inside the skill.
    pub path: String,
    /// Its size in bytes, as the manifest says.
    #[ts(type = "number")]
    pub size: u64,
    /// `sha256:<hex>`, as the manifest says.
    pub digest: String,
}

/// A skill as its server lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SkillView {
    /// Its `SKILL.md` URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its files (`SKILL.md` first), or null when the server lists them only on request
    /// (`"dynamic"`).
    pub files: Option<Vec<SkillFileView>>,
    /// Why it cannot be read (invalid listing, over the limits), when it cannot.
    pub problem: Option<String>,
}

/// Everything a server offers as skills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SkillList {
    /// Server name.
    pub server: String,
    /// Whether the server declares the skills extension; when it does not, nothing was asked.
    pub supported: bool,
    /// Its skills.
    pub skills: Vec<SkillView>,
}

/// One verified file of a skill, stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SkillRead {
    /// Id of this read (the `call_id` of its artifact).
    pub read_id: String,
    /// Server name.
    pub server: String,
    /// The skill's `SKILL.md` URI.
    pub skill: String,
    /// The file read.
    pub uri: String,
    /// What was checked: size, digest, frontmatter.
    pub verified: Vec<String>,
    /// The file, stored.
    #[serde(flatten)]
    #[ts(flatten)]
    pub outcome: ToolOutcome,
}

/// What is being completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum CompletionTarget {
    /// A variable of a resource template.
    ResourceTemplate {
        /// The template, e.g. `demo://chart/{values}`.
        uri_template: String,
    },
    /// An argument of a prompt.
    Prompt {
        /// The prompt's name.
        name: String,
    },
}

/// The server's suggestions for one argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Suggestions {
    /// Values to offer, in the server's order.
    pub values: Vec<String>,
    /// How many the server says there are in all, when it says.
    pub total: Option<u32>,
    /// Whether there are more than `values`.
    pub has_more: bool,
    /// Why there are none, when it is not "the server had none": no `completions` capability,
    /// too slow, or its error.
    pub note: Option<String>,
}

impl Suggestions {
    /// No suggestions, and why.
    pub fn with_note(note: impl Into<String>) -> Self {
        Self { values: Vec::new(), total: None, has_more: false, note: Some(note.into()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_read_back_from_the_contract_texts() {
        assert_eq!(
            parse_link("Resource link: guide.md <demo://guide.md> — What each demo tool returns"),
            Some(("guide.md".into(), "demo://guide.md".into(), Some("What each demo tool returns".into())))
        );
        assert_eq!(parse_link("Resource link: a <b> <file:///x%20y>"), Some(("a <b>".into(), "file:///x%20y".into(), None)));
        assert_eq!(parse_link("Resource link: x <>"), None);
        assert_eq!(parse_link("Some text <demo://guide.md>"), None);
    }
}
