//! MCP prompts: a server's prompt templates (`prompts/list`, every page) and filling one in
//! (`prompts/get`). [`Host::get_prompt`] returns the messages as the server sent them (the CLI,
//! the proxy); [`Host::read_prompt`] is the window's: the messages become a Markdown transcript
//! stored as an artifact, their images, audio and embedded resources stored beside it through
//! the same contract path as a tool result, so the canvas shows them with the same rules.

use rmcp::model::{GetPromptRequestParams, GetPromptResult, PaginatedRequestParams, Prompt};
use serde_json::{json, Map, Value};

use crate::{audit, error::HostError, host::Host, ids};

use mcp_canvas_wire::offers::{PromptRead, PromptView};


/// The name prompt reads are stored and audited under (the `tool` of their artifacts).
pub const GET_PROMPT_TOOL: &str = "prompts/get";
/// The transcript and JSON handed to the window are cut at this many bytes each (the stored
/// transcript is whole).
pub const MAX_SHOWN_BYTES: usize = 256 * 1024;

impl Host {
    /// The prompts of `server` exactly as it lists them (every page), connecting first if
    /// needed; empty when it has no `prompts` capability.
    pub async fn prompt_definitions(&self, server: &str) -> Result<Vec<Prompt>, HostError> {
        let connection = self.connection(server).await?;
        let supported = connection.peer.peer_info().is_some_and(|info| info.capabilities.prompts.is_some());
        if !supported {
            return Ok(Vec::new());
        }
        let timeout = self.call_timeout;
        let listing = crate::resources::paginate(&connection, "listing prompts", |cursor| async {
            let page = connection.peer.list_prompts(Some(PaginatedRequestParams::default().with_cursor(cursor))).await?;
            Ok((page.prompts, page.next_cursor))
        });
        tokio::time::timeout(timeout, listing)
            .await
            .map_err(|_| HostError::Timeout { server: server.to_owned(), tool: "prompts/list".to_owned(), seconds: timeout.as_secs() })?
    }

    /// The prompts of `server`, for listing.
    pub async fn prompts(&self, server: &str) -> Result<Vec<PromptView>, HostError> {
        Ok(self.prompt_definitions(server).await?.iter().map(PromptView::from).collect())
    }

    /// Fills in prompt `name` of `server` with `arguments` (string values, as MCP requires).
    /// A required argument that is missing is refused here, naming it.
    pub async fn get_prompt(&self, server: &str, name: &str, arguments: Map<String, Value>) -> Result<GetPromptResult, HostError> {
        let prompts = self.prompt_definitions(server).await?;
        let invalid = |reason: String| HostError::InvalidArguments { server: server.to_owned(), tool: format!("prompt {name}"), reason };
        let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
            let known: Vec<_> = prompts.iter().map(|p| p.name.as_str()).collect();
            return Err(invalid(format!("name no prompt of this server (it has: {})", if known.is_empty() { "none".to_owned() } else { known.join(", ") })));
        };
        let missing: Vec<_> = prompt.arguments.iter().flatten().filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name)).map(|a| a.name.as_str()).collect();
        if !missing.is_empty() {
            return Err(invalid(format!("miss the required argument(s): {}", missing.join(", "))));
        }
        let mut strings = Map::new();
        for (key, value) in arguments {
            // MCP prompt arguments are strings; numbers and booleans are given as their text.
            let text = match value {
                Value::String(text) => text,
                Value::Null => continue,
                other => other.to_string(),
            };
            strings.insert(key, Value::String(text));
        }
        let connection = self.connection(server).await?;
        let what = format!("getting prompt `{name}`");
        let request = connection.peer.get_prompt(GetPromptRequestParams::new(name).with_arguments(strings));
        match tokio::time::timeout(self.call_timeout, request).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(HostError::from(connection.service_error(&what, &e))),
            Err(_) => Err(HostError::Timeout { server: server.to_owned(), tool: format!("prompts/get {name}"), seconds: self.call_timeout.as_secs() }),
        }
    }

    /// Fills in prompt `name` of `server` and stores what it returns (see the module docs).
    /// Audited as `prompts/get`.
    pub async fn read_prompt(&self, server: &str, name: &str, arguments: Map<String, Value>) -> Result<PromptRead, HostError> {
        let started_ms = Self::now_ms();
        let read_id = ids::fresh("prompt");
        let audited_arguments = json!({ "name": name, "arguments": arguments });
        let result = match self.get_prompt(server, name, arguments).await {
            Ok(result) => self.store_prompt(server, name, result, &read_id).await,
            Err(e) => Err(e),
        };
        let stored = result.as_ref().map(|read| read.outcome.artifacts.iter().map(|a| a.id.clone()).collect());
        audit::audit_read(self, &read_id, server, GET_PROMPT_TOOL, &audited_arguments, started_ms, stored).await;
        result
    }

    async fn store_prompt(&self, server: &str, name: &str, result: GetPromptResult, read_id: &str) -> Result<PromptRead, HostError> {
        let description = result.description.clone();
        let messages = crate::resources::array_field(result, "messages");
        let transcript = Transcript::of(server, name, description.as_deref(), messages);
        // content[0] is the transcript, content[1..] the attachments, in message order.
        let mut content = vec![json!({ "type": "resource", "resource": {
            "uri": format!("prompt://{}/{}.md", sanitize(server), sanitize(name)),
            "mimeType": "text/markdown",
            "text": transcript.markdown,
        }})];
        content.extend(transcript.attachments);
        let mut outcome = self.store_result(server, GET_PROMPT_TOOL, json!({ "content": content }), None, read_id).await?;
        outcome.summary = format!("Prompt `{name}` of `{server}`: {} message(s). {}", transcript.messages.len(), outcome.summary);
        // The JSON shows each attachment as the artifact it became.
        let mut shown = transcript.messages;
        for (at, path) in transcript.attachment_paths.iter().enumerate() {
            let source = format!("content[{}]", at + 1);
            let id = outcome.artifacts.iter().find(|a| a.source == source || a.source.starts_with(&format!("{source}."))).map(|a| a.id.clone());
            if let Some(slot) = pointer_mut(&mut shown, path) {
                *slot = json!({ "type": slot.get("type").cloned().unwrap_or(Value::Null), "artifact": id });
            }
        }
        let json = serde_json::to_string_pretty(&shown).unwrap_or_default();
        let (markdown, cut_markdown) = cut(&transcript.shown_markdown);
        let (json, cut_json) = cut(&json);
        Ok(PromptRead {
            read_id: read_id.to_owned(),
            server: server.to_owned(),
            name: name.to_owned(),
            description,
            messages: shown.len() as u32,
            markdown,
            json,
            cut: cut_markdown || cut_json,
            outcome,
        })
    }
}

/// The messages of a prompt as Markdown, and the blocks that become artifacts.
struct Transcript {
    /// What is stored.
    markdown: String,
    /// The same, for the window (equal; kept apart so the stored one can move into the content).
    shown_markdown: String,
    /// Every non-text block, in order.
    attachments: Vec<Value>,
    /// Where each attachment was: (message index, content index or None for a single block).
    attachment_paths: Vec<(usize, Option<usize>)>,
    /// The messages as sent.
    messages: Vec<Value>,
}

impl Transcript {
    fn of(server: &str, name: &str, description: Option<&str>, messages: Vec<Value>) -> Self {
        let mut markdown = format!("# Prompt `{name}`\n\n");
        if let Some(description) = description {
            markdown.push_str(description);
            markdown.push_str("\n\n");
        }
        let mut attachments = Vec::new();
        let mut attachment_paths = Vec::new();
        for (m, message) in messages.iter().enumerate() {
            let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
            markdown.push_str(&format!("## {role}\n\n"));
            // 2025-06-18 and later: `content` is one block; newer drafts allow a list.
            let blocks: Vec<(Option<usize>, &Value)> = match message.get("content") {
                Some(Value::Array(blocks)) => blocks.iter().enumerate().map(|(i, b)| (Some(i), b)).collect(),
                Some(block) => vec![(None, block)],
                None => Vec::new(),
            };
            for (index, block) in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        markdown.push_str(block.get("text").and_then(Value::as_str).unwrap_or(""));
                        markdown.push_str("\n\n");
                    }
                    kind => {
                        let kind = kind.unwrap_or("unknown");
                        let what = match kind {
                            "resource_link" => format!("link to `{}`", block.get("uri").and_then(Value::as_str).unwrap_or("?")),
                            "resource" => format!("resource `{}`", block.pointer("/resource/uri").and_then(Value::as_str).unwrap_or("?")),
                            other => format!("{other} ({})", block.get("mimeType").and_then(Value::as_str).unwrap_or("no type")),
                        };
                        markdown.push_str(&format!("*[{what}: attachment {}, in the tab beside this one]*\n\n", attachments.len() + 1));
                        attachments.push(named(block, server, name, attachments.len() + 1));
                        attachment_paths.push((m, index));
                    }
                }
            }
        }
        Self { shown_markdown: markdown.clone(), markdown, attachments, attachment_paths, messages }
    }
}

/// An image or audio block as an embedded resource named `<prompt>-<n>.<ext>` (a bare block would
/// be named after the pseudo tool, `get.<ext>`); an embedded resource named from its URI as a
/// read's contents are (`demo://notes/scratch` → `scratch.md`); other blocks as they are.
fn named(block: &Value, server: &str, prompt: &str, n: usize) -> Value {
    match (block.get("type").and_then(Value::as_str), block.get("data"), block.get("mimeType").and_then(Value::as_str)) {
        (Some("resource"), _, _) => {
            let mut block = block.clone();
            if let Some(resource) = block.get_mut("resource") {
                *resource = crate::resources::with_name(resource.take());
            }
            block
        }
        (Some("image" | "audio"), Some(data), Some(mime)) => json!({ "type": "resource", "resource": {
            "uri": format!("prompt://{}/{}-{n}.{}", sanitize(server), sanitize(prompt), mcp_canvas_contract::extension_for(mime)),
            "mimeType": mime,
            "blob": data,
        }}),
        _ => block.clone(),
    }
}

fn pointer_mut<'a>(messages: &'a mut [Value], &(message, index): &(usize, Option<usize>)) -> Option<&'a mut Value> {
    let content = messages.get_mut(message)?.get_mut("content")?;
    match index {
        Some(i) => content.get_mut(i),
        None => Some(content),
    }
}

fn cut(text: &str) -> (String, bool) {
    if text.len() <= MAX_SHOWN_BYTES {
        return (text.to_owned(), false);
    }
    let mut end = MAX_SHOWN_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (format!("{}\n… cut at {} KB of {} KB; the whole transcript is the stored file", &text[..end], MAX_SHOWN_BYTES / 1024, text.len() / 1024), true)
}

/// A URI path segment from a name: letters, digits, `-`, `_` and `.` kept, the rest `_`.
fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transcript_names_attachments_and_keeps_text() {
        let messages = vec![
            json!({ "role": "user", "content": { "type": "text", "text": "Describe this chart." } }),
            json!({ "role": "user", "content": { "type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo=" } }),
            json!({ "role": "assistant", "content": [{ "type": "text", "text": "A bar chart." }, { "type": "resource", "resource": { "uri": "demo://guide.md", "text": "x" } }] }),
        ];
        let t = Transcript::of("demo", "describe", Some("Asks about a chart"), messages);
        assert!(t.markdown.starts_with("# Prompt `describe`\n\nAsks about a chart\n\n## user\n\nDescribe this chart."), "{}", t.markdown);
        assert!(t.markdown.contains("*[image (image/png): attachment 1, in the tab beside this one]*"), "{}", t.markdown);
        assert!(t.markdown.contains("## assistant\n\nA bar chart."));
        assert!(t.markdown.contains("resource `demo://guide.md`: attachment 2"));
        assert!(!t.markdown.contains("iVBOR"), "no base64 in the transcript");
        assert_eq!(t.attachments.len(), 2);
        assert_eq!(t.attachments[0], json!({ "type": "resource", "resource": { "uri": "prompt://demo/describe-1.png", "mimeType": "image/png", "blob": "iVBORw0KGgo=" } }));
        assert_eq!(t.attachment_paths, vec![(1, None), (2, Some(1))]);
    }

    #[test]
    fn an_embedded_resource_is_named_from_its_uri_not_after_prompts_get() {
        let messages = vec![json!({ "role": "user", "content": [
            { "type": "resource", "resource": { "uri": "demo://notes/scratch", "mimeType": "text/markdown", "text": "# Notes" } },
            { "type": "resource", "resource": { "uri": "demo://items/1", "text": "one" } },
            { "type": "resource", "resource": { "uri": "demo://users/1", "mimeType": "text/plain", "text": "someone" } },
            { "type": "resource", "resource": { "uri": "demo://kept", "name": "given.txt", "text": "x" } },
        ] })];
        let t = Transcript::of("demo", "p", None, messages);
        let names: Vec<&str> = t.attachments.iter().map(|a| a.pointer("/resource/name").and_then(Value::as_str).unwrap_or("(none)")).collect();
        assert_eq!(names, ["scratch.md", "items-1.txt", "users-1.txt", "given.txt"]);
        // What the contract then stores them as (the pseudo tool's `get.txt` only for a nameless one).
        let config = mcp_canvas_contract::ExtractionConfig::default();
        let raw = mcp_canvas_contract::RawToolResult { server: "demo", tool: GET_PROMPT_TOOL, result: json!({ "content": t.attachments }), output_schema: None };
        let normalized = mcp_canvas_contract::Normalizer::new(&config).normalize(raw).unwrap();
        let stored: Vec<String> = normalized.pending.iter().map(|p| p.name.clone()).collect();
        assert_eq!(stored, ["scratch.md", "items-1.txt", "users-1.txt", "given.txt"]);
    }

    #[test]
    fn what_the_window_gets_is_cut_on_a_char_boundary() {
        let long = "é".repeat(MAX_SHOWN_BYTES);
        let (shown, was_cut) = cut(&long);
        assert!(was_cut);
        assert!(shown.len() < MAX_SHOWN_BYTES + 200);
        assert!(shown.ends_with("the whole transcript is the stored file"));
        assert_eq!(cut("short"), ("short".to_owned(), false));
        assert_eq!(sanitize("../a b"), ".._a_b");
    }
}
