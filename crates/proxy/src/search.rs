//! `search_artifacts`: the model finds what earlier calls returned, by what is in it, and gets
//! references it can hand to the next tool — names, where the text is and short snippets, never
//! a file's bytes.
//!
//! What it covers is `proxy.toml`'s `search` ([`SearchScope`]): by default only the files the
//! proxy gave AI hosts' models (recorded as each result goes up; not files annotated for the user
//! only), so a model cannot read snippets of what the person did in the desktop app or of what a
//! server meant for the person alone; `all` widens it, `off` removes the tool.

use mcp_canvas_host::Host;
use mcp_canvas_store::{HitPlace, SearchHit, SearchQuery};
use serde_json::{json, Value};

use crate::policy::SearchScope;

/// The tool's name: letters and `_` only, and never `<server>__<tool>` (no `__`), so it cannot
/// shadow a forwarded tool and every host accepts it.
pub const NAME: &str = "search_artifacts";

/// Most hits in one answer.
const MAX_HITS: u64 = 50;

/// The tool's definition.
pub fn definition() -> rmcp::model::Tool {
    serde_json::from_value(json!({
        "name": NAME,
        "title": "Search earlier tool outputs",
        "description": "Full-text search over the files earlier tool calls returned through MCP Canvas: PDF pages, tables, reports, text and code, and each file's name and the call that produced it. Answers with references (pass one to a tool that takes a file, or mention it to the user), file names, where the words are (page, row, line) and short snippets, never file contents. All words are required; \"quoted words\" are a phrase; word* is a prefix.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": { "type": "string", "description": "Words to find, e.g. `net revenue 2026` or `\"churn rate\"`." },
                "server": { "type": "string", "description": "Only files from this server (optional)." },
                "limit": { "type": "integer", "minimum": 1, "maximum": MAX_HITS, "description": "At most this many hits (default 10)." }
            },
            "required": ["query"],
            "additionalProperties": false
        },
        "annotations": { "readOnlyHint": true, "openWorldHint": false, "idempotentHint": true }
    }))
    .expect("the search tool's definition is a tool")
}

/// Runs a search for the model; the result as JSON (`content` and `structuredContent`), or a
/// tool error the model can read.
pub fn call(host: &Host, scope: SearchScope, max_base64_run: usize, arguments: &Value) -> Value {
    let Some(text) = arguments.get("query").and_then(Value::as_str).filter(|q| !q.trim().is_empty()) else {
        return tool_error("`query` is required: the words to find, e.g. `net revenue`.");
    };
    // A finished word, not a prefix: the model does not type as it goes.
    let text = format!("{} ", text.chars().take(1000).collect::<String>());
    let limit = arguments.get("limit").and_then(Value::as_u64).unwrap_or(10).clamp(1, MAX_HITS) as u32;
    let query = SearchQuery {
        text,
        shared_with_model: scope == SearchScope::Proxy,
        server: arguments.get("server").and_then(Value::as_str).map(str::to_owned),
        limit,
        ..Default::default()
    };
    let results = match host.search(&query) {
        Ok(results) => results,
        Err(e) => return tool_error(&format!("MCP Canvas could not search: {e}")),
    };
    let mut lines = Vec::new();
    let hits: Vec<Value> = results
        .hits
        .iter()
        .map(|hit| {
            let snippet = crate::shape::redact_base64_runs(&plain_snippet(hit), max_base64_run);
            lines.push(format!(
                "- {} ({}, from {}/{}) — {}: {}\n  Reference: {}",
                hit.artifact.name,
                hit.artifact.mime,
                hit.artifact.server,
                hit.artifact.tool,
                place(hit),
                snippet,
                hit.artifact.id
            ));
            json!({
                "reference": hit.artifact.id,
                "name": hit.artifact.name,
                "mime": hit.artifact.mime,
                "server": hit.artifact.server,
                "tool": hit.artifact.tool,
                "created_at_ms": hit.artifact.created_at_ms,
                "place": hit.place,
                "position": hit.position,
                "snippet": snippet,
            })
        })
        .collect();
    let scope_note = match scope {
        SearchScope::Proxy => "files returned through this proxy",
        _ => "all stored files",
    };
    let mut summary = if hits.is_empty() {
        format!("No match for {} among the {scope_note}.", query.text.trim())
    } else {
        format!("{} hits for {} among the {scope_note}:\n{}", hits.len(), query.text.trim(), lines.join("\n"))
    };
    if results.partial {
        summary.push_str("\n(The phrase's words are in many places: only the newest were checked for the phrase; add words or a server to reach older files.)");
    }
    if results.pending > 0 {
        summary.push_str(&format!("\n({} files are still being indexed; searched by name only.)", results.pending));
    }
    json!({
        "content": [{ "type": "text", "text": summary }],
        "structuredContent": { "hits": hits, "pending": results.pending },
        "isError": false,
    })
}

fn tool_error(message: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": message }], "isError": true })
}

fn place(hit: &SearchHit) -> String {
    match hit.place {
        HitPlace::Name => "in its name".into(),
        HitPlace::Call => "in the call (its arguments or its answer)".into(),
        HitPlace::Page => format!("page {}", hit.position),
        HitPlace::Row => format!("row {}", hit.position),
        HitPlace::Line => format!("line {}", hit.position),
    }
}

/// The snippet as text, matching words in `**`.
fn plain_snippet(hit: &SearchHit) -> String {
    hit.snippet.iter().map(|part| if part.hit { format!("**{}**", part.text) } else { part.text.clone() }).collect()
}
