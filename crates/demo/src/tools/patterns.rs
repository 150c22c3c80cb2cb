//! Pattern tools: `search_patterns` and `get_pattern` over a catalog of Effect-TS patterns
//! (`patterns/data.rs`), answering in the shapes of the "MCP advanced presentation features"
//! contract (seed 004):
//!
//! - markdown blocks for people, with `<!-- kind:pattern-index:v1 -->` and
//!   `<!-- kind:pattern-card:v1 -->` markers for machines;
//! - a JSON text block (the canonical structured payload) only when `format` is `json` or `both`,
//!   always last;
//! - `structuredContent` always, with a `kind` discriminator: `patternSearchResults:v1`,
//!   `patternDetails:v1`, `needsInput:v1` (an empty query, a too-broad search, an unknown id) or
//!   `toolError:v1` (bad arguments, a simulated failure; `isError: true`).
//!
//! 004 also puts `mimeType` (`text/markdown`, `application/json`) on text blocks. rmcp 3.9's
//! `TextContent` has no such field, so it cannot go on the wire from here; 004 makes it
//! best-effort and tells clients not to rely on it.

mod data;

use std::{collections::BTreeMap, sync::Arc};

use rmcp::{
    handler::server::wrapper::Parameters,
    model::{CallToolResult, ContentBlock, JsonObject},
    schemars, tool, tool_router, ErrorData,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::DemoServer;
use data::{Pattern, CATEGORIES, DIFFICULTIES, PATTERNS};

/// More matches than this, without a category or difficulty filter, asks to narrow the search.
/// Independent of `limit`.
pub(crate) const SEARCH_TOO_BROAD_THRESHOLD: usize = 20;
const DEFAULT_LIMIT: usize = 5;
const MAX_LIMIT: u64 = 100;
const INDEX_MARKER: &str = "<!-- kind:pattern-index:v1 -->";
const CARD_MARKER: &str = "<!-- kind:pattern-card:v1 -->";
const MARKER_VERSION: &str = "v1";
const FORMATS: &[&str] = &["markdown", "json", "both"];
/// Suggested queries when the query is empty (each finds patterns in the catalog).
const EXAMPLE_QUERIES: &[&str] = &["error handling", "service pattern", "concurrency", "resource management"];
const CATALOG_SOURCE: &str = "MCP Canvas demo pattern catalog";
const CATALOG_VERSION: &str = "demo-catalog-2025.11";
/// Longest accepted `q` and `id`, in characters.
const MAX_QUERY_CHARS: usize = 500;
/// Words that say nothing about which pattern is meant.
const STOPWORDS: &[&str] = &["a", "an", "and", "for", "how", "in", "of", "on", "pattern", "patterns", "the", "to", "with"];

/// The `toolError:v1` codes (004): code, retryable, the message of a simulated failure, and the
/// HTTP status such a failure would have had.
const ERROR_CODES: &[(&str, bool, &str, u16)] = &[
    ("NETWORK_ERROR", true, "Could not reach the pattern catalog (simulated network failure).", 0),
    ("SERVER_ERROR", true, "The pattern catalog failed to answer (simulated server error).", 503),
    ("CLIENT_ERROR", false, "The pattern catalog rejected the request (simulated client error).", 400),
    ("NOT_FOUND", false, "The pattern catalog endpoint was not found (simulated).", 404),
    ("AUTHENTICATION_ERROR", false, "The pattern catalog refused the credentials (simulated).", 401),
    ("UNKNOWN_ERROR", false, "The pattern search failed for an unknown reason (simulated).", 500),
];

// ── input schemas (documentation for clients; arguments are validated by hand below) ─────────

/// Output format of a pattern tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum Format {
    /// Markdown blocks only (the default: clean for people).
    #[default]
    Markdown,
    /// Only the JSON block (the canonical structured payload).
    Json,
    /// Markdown blocks, then the JSON block.
    Both,
}

impl Format {
    fn parse(value: &str) -> Option<Self> {
        match value {
            "markdown" => Some(Self::Markdown),
            "json" => Some(Self::Json),
            "both" => Some(Self::Both),
            _ => None,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            Self::Markdown => "markdown",
            Self::Json => "json",
            Self::Both => "both",
        }
    }
    fn has_markdown(self) -> bool {
        self != Self::Json
    }
    fn has_json(self) -> bool {
        self != Self::Markdown
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(inline)]
pub enum Category {
    ErrorHandling,
    Service,
    Validation,
    Concurrency,
    ResourceManagement,
    Streams,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum Difficulty {
    Beginner,
    Intermediate,
    Advanced,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schemars(inline)]
pub enum SimulatedError {
    NetworkError,
    ServerError,
    ClientError,
    NotFound,
    AuthenticationError,
    UnknownError,
}

fn default_limit() -> u32 {
    DEFAULT_LIMIT as u32
}

/// Arguments of `search_patterns`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "only its schema is used; arguments are validated field by field")]
pub struct SearchPatternsArgs {
    /// Search words, matched against each pattern's title, id, tags, category, summary and
    /// description; every word must match (case-insensitive). An empty query asks for one.
    #[serde(default)]
    #[schemars(length(max = MAX_QUERY_CHARS))]
    pub q: String,
    /// Only patterns of this category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Category")]
    pub category: Option<Category>,
    /// Only patterns of this difficulty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Difficulty")]
    pub difficulty: Option<Difficulty>,
    /// How many pattern cards the markdown shows, from the top of the results (1-100). The
    /// structured result always lists every match. Searches with more than 20 matches and no
    /// category or difficulty filter ask to be narrowed, whatever the limit.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: u32,
    /// `markdown` (default): markdown blocks only; `json`: only the JSON block; `both`: markdown
    /// blocks, then the JSON block. The structured result is always in `structuredContent` too.
    #[serde(default)]
    pub format: Format,
    /// Testing aid: fail with this `toolError:v1` code instead of searching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SimulatedError")]
    pub simulate_error: Option<SimulatedError>,
}

/// Arguments of `get_pattern`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "only its schema is used; arguments are validated field by field")]
pub struct GetPatternArgs {
    /// The pattern id, as `search_patterns` lists it (for example `effect-service`). An unknown
    /// or empty id answers with the closest ids to choose from.
    #[schemars(length(max = MAX_QUERY_CHARS))]
    pub id: String,
    /// `markdown` (default): markdown blocks only; `json`: only the JSON block; `both`: markdown
    /// blocks, then the JSON block.
    #[serde(default)]
    pub format: Format,
}

fn input_schema<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<T>().unwrap_or_else(|reason| {
        eprintln!("mcp-canvas-demo: input schema of {}: {reason}", std::any::type_name::<T>());
        rmcp::handler::server::common::schema_for_empty_input()
    })
}

// ── output schemas ──────────────────────────────────────────────────────────────────────────

fn shared_defs() -> Value {
    json!({
        "needsInput": {
            "type": "object",
            "description": "The tool needs more input before it can answer (an elicitation-like prompt).",
            "required": ["kind", "type", "message", "needsInput"],
            "properties": {
                "kind": {"const": "needsInput:v1"},
                "type": {"const": "elicitation"},
                "message": {"type": "string", "description": "The prompt for the user."},
                "needsInput": {
                    "type": "object",
                    "required": ["fields", "reason"],
                    "properties": {
                        "fields": {"type": "array", "items": {"type": "string"}, "description": "Argument names that need a value."},
                        "reason": {"type": "string"},
                        "suggestions": {
                            "type": "object",
                            "description": "Suggested values, keyed by field name.",
                            "additionalProperties": {"type": "array", "items": {"type": "string"}}
                        }
                    }
                },
                "options": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["label", "value"],
                        "properties": {
                            "label": {"type": "string"},
                            "value": {"type": "string"},
                            "description": {"type": "string"},
                            "field": {"type": "string", "description": "The field this option fills."}
                        }
                    }
                }
            }
        },
        "toolError": {
            "type": "object",
            "description": "The tool failed; the result has isError: true.",
            "required": ["kind", "code", "message"],
            "properties": {
                "kind": {"const": "toolError:v1"},
                "code": {"enum": ERROR_CODES.iter().map(|(code, ..)| *code).collect::<Vec<_>>()},
                "message": {"type": "string"},
                "retryable": {"type": "boolean"},
                "details": {"type": "object"}
            }
        }
    })
}

fn output_schema(description: &str, kinds: &[&str], extra_defs: Value) -> Arc<JsonObject> {
    let mut defs = shared_defs();
    if let (Some(defs), Value::Object(extra)) = (defs.as_object_mut(), extra_defs) {
        defs.extend(extra);
    }
    let variants: Vec<Value> = kinds.iter().map(|kind| json!({"$ref": format!("#/$defs/{}", kind.trim_end_matches(":v1"))})).collect();
    let schema = json!({
        "type": "object",
        "description": description,
        "required": ["kind"],
        "properties": {"kind": {"type": "string", "enum": kinds}},
        "oneOf": variants,
        "$defs": defs,
    });
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn card_summary_schema() -> Value {
    json!({
        "type": "object",
        "required": ["id", "title", "category", "difficulty", "description", "tags"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "category": {"enum": CATEGORIES},
            "difficulty": {"enum": DIFFICULTIES},
            "description": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}}
        }
    })
}

fn search_output_schema() -> Arc<JsonObject> {
    let results = json!({
        "patternSearchResults": {
            "type": "object",
            "required": ["kind", "query", "metadata", "patterns"],
            "properties": {
                "kind": {"const": "patternSearchResults:v1"},
                "query": {
                    "type": "object",
                    "description": "The request, echoed: keys not given are omitted; `format` is the one used.",
                    "required": ["format"],
                    "properties": {
                        "q": {"type": "string"},
                        "category": {"enum": CATEGORIES},
                        "difficulty": {"enum": DIFFICULTIES},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                        "format": {"enum": FORMATS}
                    }
                },
                "metadata": {
                    "type": "object",
                    "required": ["totalCount", "categories", "difficulties", "renderedCards", "renderedCardIds", "contractMarkers"],
                    "properties": {
                        "totalCount": {"type": "integer", "minimum": 0},
                        "categories": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Matches per category."},
                        "difficulties": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Matches per difficulty."},
                        "renderedCards": {"type": "integer", "minimum": 0, "description": "Pattern cards in the markdown."},
                        "renderedCardIds": {"type": "array", "items": {"type": "string"}, "description": "Ids of the carded patterns: the first `renderedCards` of `patterns`."},
                        "contractMarkers": {
                            "type": "object",
                            "required": ["index", "cards", "version"],
                            "properties": {
                                "index": {"type": "integer", "description": "`<!-- kind:pattern-index:v1 -->` markers in the markdown."},
                                "cards": {"type": "integer", "description": "`<!-- kind:pattern-card:v1 -->` markers in the markdown."},
                                "version": {"const": MARKER_VERSION}
                            }
                        }
                    }
                },
                "patterns": {"type": "array", "description": "Every match, best first, in card-summary form.", "items": card_summary_schema()}
            }
        }
    });
    output_schema(
        "Search results (patternSearchResults:v1), a request for more input (needsInput:v1), or an error (toolError:v1).",
        &["patternSearchResults:v1", "needsInput:v1", "toolError:v1"],
        results,
    )
}

fn get_output_schema() -> Arc<JsonObject> {
    let details = json!({
        "patternDetails": {
            "type": "object",
            "required": ["kind", "id", "title", "category", "difficulty", "summary", "description", "tags", "useGuidance", "sections", "examples", "provenance"],
            "properties": {
                "kind": {"const": "patternDetails:v1"},
                "id": {"type": "string"},
                "title": {"type": "string"},
                "category": {"enum": CATEGORIES},
                "difficulty": {"enum": DIFFICULTIES},
                "summary": {"type": "string", "description": "Brief, about 200 characters."},
                "description": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "useGuidance": {
                    "type": "object",
                    "required": ["useWhen", "avoidWhen"],
                    "properties": {"useWhen": {"type": "string"}, "avoidWhen": {"type": "string"}}
                },
                "sections": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["title", "content", "type"],
                        "properties": {"title": {"type": "string"}, "content": {"type": "string"}, "type": {"type": "string"}}
                    }
                },
                "examples": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["code", "language"],
                        "properties": {"code": {"type": "string"}, "language": {"type": "string"}, "description": {"type": "string"}}
                    }
                },
                "provenance": {
                    "type": "object",
                    "required": ["source", "timestamp", "version", "marker"],
                    "properties": {
                        "source": {"type": "string"},
                        "timestamp": {"type": "string", "format": "date-time", "description": "ISO 8601, UTC."},
                        "version": {"type": "string"},
                        "marker": {"const": MARKER_VERSION}
                    }
                }
            }
        }
    });
    output_schema(
        "Pattern details (patternDetails:v1), a request for a valid id (needsInput:v1), or an error (toolError:v1).",
        &["patternDetails:v1", "needsInput:v1", "toolError:v1"],
        details,
    )
}

// ── structured payloads ─────────────────────────────────────────────────────────────────────

#[derive(Debug, Serialize)]
struct CardSummary {
    id: &'static str,
    title: &'static str,
    category: &'static str,
    difficulty: &'static str,
    description: &'static str,
    tags: &'static [&'static str],
}

impl CardSummary {
    fn of(pattern: &'static Pattern) -> Self {
        Self {
            id: pattern.id,
            title: pattern.title,
            category: pattern.category,
            difficulty: pattern.difficulty,
            description: pattern.description,
            tags: pattern.tags,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SearchResults {
    kind: &'static str,
    query: QueryEcho,
    metadata: SearchMetadata,
    patterns: Vec<CardSummary>,
}

/// The request as given: absent arguments are omitted; `format` is the resolved one.
#[derive(Debug, Serialize)]
struct QueryEcho {
    #[serde(skip_serializing_if = "Option::is_none")]
    q: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    difficulty: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<usize>,
    format: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SearchMetadata {
    total_count: usize,
    categories: BTreeMap<&'static str, usize>,
    difficulties: BTreeMap<&'static str, usize>,
    rendered_cards: usize,
    rendered_card_ids: Vec<&'static str>,
    contract_markers: ContractMarkers,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct ContractMarkers {
    index: usize,
    cards: usize,
    version: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NeedsInputPayload {
    kind: &'static str,
    #[serde(rename = "type")]
    kind_of_prompt: &'static str,
    message: String,
    needs_input: NeedsInputBody,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    options: Vec<InputOption>,
}

#[derive(Debug, Serialize)]
struct NeedsInputBody {
    fields: Vec<&'static str>,
    reason: String,
    suggestions: BTreeMap<&'static str, Vec<String>>,
}

#[derive(Debug, Serialize)]
struct InputOption {
    label: String,
    value: String,
    description: String,
    field: &'static str,
}

impl NeedsInputPayload {
    fn new(message: String, fields: Vec<&'static str>, reason: String, suggestions: BTreeMap<&'static str, Vec<String>>, options: Vec<InputOption>) -> Self {
        Self { kind: "needsInput:v1", kind_of_prompt: "elicitation", message, needs_input: NeedsInputBody { fields, reason, suggestions }, options }
    }
}

#[derive(Debug, Serialize)]
struct ToolErrorPayload {
    kind: &'static str,
    code: &'static str,
    message: String,
    retryable: bool,
    details: Value,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PatternDetails {
    kind: &'static str,
    id: &'static str,
    title: &'static str,
    category: &'static str,
    difficulty: &'static str,
    summary: &'static str,
    description: &'static str,
    tags: &'static [&'static str],
    use_guidance: UseGuidance,
    sections: Vec<SectionOut>,
    examples: Vec<ExampleOut>,
    provenance: Provenance,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct UseGuidance {
    use_when: &'static str,
    avoid_when: &'static str,
}

#[derive(Debug, Serialize)]
struct SectionOut {
    title: String,
    content: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Debug, Serialize)]
struct ExampleOut {
    code: &'static str,
    language: &'static str,
    description: &'static str,
}

#[derive(Debug, Serialize)]
struct Provenance {
    source: &'static str,
    timestamp: &'static str,
    version: &'static str,
    marker: &'static str,
}

// ── replies ─────────────────────────────────────────────────────────────────────────────────

/// One tool answer before it becomes a `CallToolResult`.
#[derive(Debug)]
struct Reply {
    /// Human-readable blocks (markdown, or plain text for errors); left out for `format: json`.
    texts: Vec<String>,
    /// The structured payload: `structuredContent`.
    structured: Value,
    /// The same payload as pretty JSON with its fields in declaration order (`kind` first): the
    /// JSON block for `json`/`both`.
    json_text: String,
    is_error: bool,
    format: Format,
}

impl Reply {
    fn new(texts: Vec<String>, payload: &impl Serialize, is_error: bool, format: Format) -> Self {
        let (structured, json_text) = match (serde_json::to_value(payload), serde_json::to_string_pretty(payload)) {
            (Ok(value), Ok(text)) => (value, text),
            (Err(e), _) | (_, Err(e)) => {
                let value = json!({"kind": "toolError:v1", "code": "UNKNOWN_ERROR", "message": format!("cannot serialize the result: {e}"), "retryable": false});
                let text = value.to_string();
                return Self { texts: vec![format!("Internal error: cannot serialize the result: {e}")], structured: value, json_text: text, is_error: true, format };
            }
        };
        Self { texts: if format.has_markdown() { texts } else { Vec::new() }, structured, json_text, is_error, format }
    }

    /// The content blocks in order: the text blocks, then (for `json`/`both`) the JSON block.
    fn blocks(&self) -> Vec<String> {
        let mut blocks = self.texts.clone();
        if self.format.has_json() {
            blocks.push(self.json_text.clone());
        }
        blocks
    }

    fn into_result(self) -> CallToolResult {
        let content = self.blocks().into_iter().map(ContentBlock::text).collect();
        let mut result = if self.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
        result.structured_content = Some(self.structured);
        result
    }
}

// ── argument validation ─────────────────────────────────────────────────────────────────────

#[derive(Debug)]
struct Problem {
    field: &'static str,
    expected: String,
    accepted: Value,
    received: Value,
}

/// Reads arguments field by field, collecting every problem instead of stopping at the first.
struct ArgReader<'a> {
    args: &'a JsonObject,
    problems: Vec<Problem>,
}

impl<'a> ArgReader<'a> {
    fn new(args: &'a JsonObject) -> Self {
        Self { args, problems: Vec::new() }
    }

    /// The value, unless absent or `null`.
    fn get(&self, field: &str) -> Option<&'a Value> {
        self.args.get(field).filter(|v| !v.is_null())
    }

    /// A string of at most [`MAX_QUERY_CHARS`] characters, with runs of whitespace (newlines
    /// included) made single spaces and the ends trimmed.
    fn string(&mut self, field: &'static str) -> Option<String> {
        let expected = format!("a string of at most {MAX_QUERY_CHARS} characters");
        match self.get(field)? {
            Value::String(s) if s.chars().count() <= MAX_QUERY_CHARS => Some(s.split_whitespace().collect::<Vec<_>>().join(" ")),
            Value::String(s) => {
                let received = json!(format!("{} characters", s.chars().count()));
                self.problems.push(Problem { field, expected, accepted: json!({"type": "string", "maxLength": MAX_QUERY_CHARS}), received });
                None
            }
            other => {
                self.problems.push(Problem { field, expected, accepted: json!({"type": "string", "maxLength": MAX_QUERY_CHARS}), received: other.clone() });
                None
            }
        }
    }

    /// One of `allowed` (case-insensitive, trimmed); an empty string counts as not given.
    fn choice(&mut self, field: &'static str, allowed: &[&'static str]) -> Option<&'static str> {
        let value = self.get(field)?;
        if let Some(text) = value.as_str() {
            let wanted = text.trim();
            if wanted.is_empty() {
                return None;
            }
            if let Some(found) = allowed.iter().find(|a| a.eq_ignore_ascii_case(wanted)) {
                return Some(found);
            }
        }
        self.problems.push(Problem { field, expected: format!("one of {}", allowed.join(", ")), accepted: json!(allowed), received: value.clone() });
        None
    }

    fn limit(&mut self, field: &'static str) -> Option<usize> {
        let value = self.get(field)?;
        let as_int = value.as_u64().or_else(|| value.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u32::MAX as f64).map(|f| f as u64));
        match as_int {
            Some(n) if (1..=MAX_LIMIT).contains(&n) => Some(n as usize),
            _ => {
                self.problems.push(Problem {
                    field,
                    expected: format!("an integer from 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"),
                    accepted: json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}),
                    received: value.clone(),
                });
                None
            }
        }
    }

    fn format(&mut self) -> Format {
        self.choice("format", FORMATS).and_then(Format::parse).unwrap_or_default()
    }

    /// A `toolError:v1` naming every bad argument, or `None` when all were fine.
    fn error_reply(self, tool: &str, format: Format) -> Option<Reply> {
        if self.problems.is_empty() {
            return None;
        }
        let described: Vec<String> = self
            .problems
            .iter()
            .map(|p| format!("`{}` must be {} (got {})", p.field, p.expected, short_json(&p.received)))
            .collect();
        let message = format!("Invalid arguments for {tool}: {}.", described.join("; "));
        let details = json!({
            "invalidArguments": self.problems.iter().map(|p| json!({"field": p.field, "accepted": p.accepted, "received": p.received})).collect::<Vec<_>>()
        });
        let payload = ToolErrorPayload { kind: "toolError:v1", code: "CLIENT_ERROR", message: message.clone(), retryable: false, details };
        Some(Reply::new(vec![message], &payload, true, format))
    }
}

fn short_json(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 { format!("{}…", text.chars().take(60).collect::<String>()) } else { text }
}

// ── search ──────────────────────────────────────────────────────────────────────────────────

fn tokens(query: &str) -> Vec<String> {
    query
        .to_lowercase()
        .split(|c: char| c.is_whitespace() || matches!(c, '-' | '_' | ',' | '/' | ';' | ':'))
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '@').trim_end_matches('.').to_owned())
        .filter(|t| !t.is_empty() && !STOPWORDS.contains(&t.as_str()))
        .collect()
}

/// Lowercase, with `-` as a space, so `error-handling` matches `error handling`.
fn norm(text: &str) -> String {
    text.to_lowercase().replace('-', " ")
}

/// Whether `token` occurs in `text`: as a substring, or as a whole word for tokens of one or two
/// characters (so `io` does not match `validation`).
fn hits(text: &str, token: &str) -> bool {
    if token.chars().count() <= 2 {
        text.split(|c: char| !c.is_alphanumeric()).any(|word| word == token)
    } else {
        text.contains(token)
    }
}

/// How well `pattern` matches every token; `None` when some token matches nowhere.
fn score(pattern: &Pattern, tokens: &[String]) -> Option<u32> {
    let title = norm(pattern.title);
    let id = norm(pattern.id);
    let category = norm(pattern.category);
    let summary = norm(pattern.summary);
    let description = norm(pattern.description);
    let tags: Vec<String> = pattern.tags.iter().map(|t| norm(t)).collect();
    let mut total = 0;
    for token in tokens {
        let mut points = 0;
        if hits(&title, token) {
            points += 6;
        }
        if tags.iter().any(|t| t == token) {
            points += 5;
        } else if tags.iter().any(|t| hits(t, token)) {
            points += 3;
        }
        if hits(&id, token) {
            points += 3;
        }
        if hits(&category, token) {
            points += 3;
        }
        if hits(&summary, token) {
            points += 1;
        }
        if hits(&description, token) {
            points += 1;
        }
        if points == 0 {
            return None;
        }
        total += points;
    }
    if tokens.len() > 1 && title.contains(&tokens.join(" ")) {
        total += 4;
    }
    Some(total)
}

/// Every pattern matching the query and filters, best first (catalog order among equals). A query
/// of stopwords only matches everything.
fn find(query: &str, category: Option<&str>, difficulty: Option<&str>) -> Vec<&'static Pattern> {
    let tokens = tokens(query);
    let mut scored: Vec<(u32, &'static Pattern)> = PATTERNS
        .iter()
        .filter(|p| category.is_none_or(|c| p.category == c) && difficulty.is_none_or(|d| p.difficulty == d))
        .filter_map(|p| score(p, &tokens).map(|s| (s, p)))
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().map(|(_, p)| p).collect()
}

fn is_too_broad(total: usize, filtered: bool) -> bool {
    !filtered && total > SEARCH_TOO_BROAD_THRESHOLD
}

/// Counts per value of `key`, and the values ordered by count (then by `order`).
fn distribution(matches: &[&'static Pattern], key: fn(&Pattern) -> &'static str, order: &[&'static str]) -> (BTreeMap<&'static str, usize>, Vec<&'static str>) {
    let mut counts = BTreeMap::new();
    for pattern in matches {
        *counts.entry(key(pattern)).or_insert(0) += 1;
    }
    let mut ranked: Vec<&'static str> = order.iter().copied().filter(|v| counts.contains_key(v)).collect();
    ranked.sort_by_key(|v| std::cmp::Reverse(counts[v]));
    (counts, ranked)
}

fn md_escape(text: &str) -> String {
    text.replace('|', "\\|")
}

/// User input shown in markdown: quoted safely, and unable to forge a contract marker (or any
/// HTML comment) that would throw off the marker counts.
fn shown(text: &str) -> String {
    text.replace('"', "'").replace('<', "&lt;").replace('>', "&gt;")
}

fn tag_list(tags: &[&str]) -> String {
    tags.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
}

fn count_markers(blocks: &[String], marker: &str) -> usize {
    blocks.iter().map(|b| b.matches(marker).count()).sum()
}

/// The index block and one card block for each of the first `cards` matches.
fn render_search_markdown(query: &str, filters: &str, matches: &[&'static Pattern], cards: usize) -> Vec<String> {
    let mut index = format!("# Search Results for \"{}\"\n\n{INDEX_MARKER}\n", shown(query));
    if matches.is_empty() {
        index.push_str(&format!("No patterns matched{filters}. Try fewer or broader words, or remove the filters.\n"));
        return vec![index];
    }
    let noun = if matches.len() == 1 { "pattern" } else { "patterns" };
    index.push_str(&format!("Found **{}** {noun}{filters}.", matches.len()));
    if cards < matches.len() {
        index.push_str(&format!(" Details below for the top **{cards}**."));
    }
    index.push_str("\n\n| # | Pattern | Id | Category | Difficulty |\n|---:|---|---|---|---|\n");
    for (i, p) in matches.iter().enumerate() {
        index.push_str(&format!("| {} | {} | `{}` | {} | {} |\n", i + 1, md_escape(p.title), p.id, p.category, p.difficulty));
    }
    let mut blocks = vec![index];
    for (i, p) in matches.iter().take(cards).enumerate() {
        blocks.push(format!(
            "## {}. {}\n\n{CARD_MARKER}\n`{}` · **{}** · *{}*\n\n{}\n\n**Tags:** {}\n",
            i + 1,
            p.title,
            p.id,
            p.category,
            p.difficulty,
            p.description,
            tag_list(p.tags)
        ));
    }
    blocks
}

struct SearchRequest {
    q: String,
    category: Option<&'static str>,
    difficulty: Option<&'static str>,
    limit: Option<usize>,
    format: Format,
    simulate_error: Option<&'static str>,
}

fn search_patterns_reply(args: &JsonObject) -> Reply {
    let mut reader = ArgReader::new(args);
    let q = reader.string("q");
    let category = reader.choice("category", CATEGORIES);
    let difficulty = reader.choice("difficulty", DIFFICULTIES);
    let limit = reader.limit("limit");
    let format = reader.format();
    let codes: Vec<&'static str> = ERROR_CODES.iter().map(|(code, ..)| *code).collect();
    let simulate_error = reader.choice("simulate_error", &codes);
    if let Some(reply) = reader.error_reply("search_patterns", format) {
        return reply;
    }
    let request = SearchRequest { q: q.unwrap_or_default().trim().to_owned(), category, difficulty, limit, format, simulate_error };

    if let Some(code) = request.simulate_error {
        return simulated_error(code, &request);
    }
    if request.q.is_empty() {
        return empty_query(format);
    }
    let matches = find(&request.q, request.category, request.difficulty);
    if is_too_broad(matches.len(), request.category.is_some() || request.difficulty.is_some()) {
        return too_broad(&request, &matches);
    }
    search_results(&request, &matches)
}

fn simulated_error(code: &'static str, request: &SearchRequest) -> Reply {
    let (_, retryable, message, status) = ERROR_CODES.iter().find(|(c, ..)| *c == code).copied().unwrap_or(ERROR_CODES[ERROR_CODES.len() - 1]);
    let mut details = json!({"simulated": true, "tool": "search_patterns", "q": request.q});
    if status != 0 {
        details["status"] = json!(status);
    }
    if retryable {
        details["retryAfterMs"] = json!(1000);
    }
    let payload = ToolErrorPayload { kind: "toolError:v1", code, message: message.to_owned(), retryable, details };
    let advice = if retryable { " Retrying may help." } else { "" };
    Reply::new(vec![format!("Pattern search failed ({code}): {message}{advice}")], &payload, true, request.format)
}

fn empty_query(format: Format) -> Reply {
    let message = "What pattern are you looking for? Please provide a search query.";
    let examples = EXAMPLE_QUERIES.iter().map(|q| format!("*{q}*")).collect::<Vec<_>>().join(", ");
    let markdown = format!("## Search Query Needed\n\n{message}\n\nFor example: {examples}.\n");
    let suggestions = BTreeMap::from([("q", EXAMPLE_QUERIES.iter().map(|q| q.to_string()).collect())]);
    let payload = NeedsInputPayload::new(message.into(), vec!["q"], "Search query is required to find relevant patterns".into(), suggestions, Vec::new());
    Reply::new(vec![markdown], &payload, false, format)
}

fn too_broad(request: &SearchRequest, matches: &[&'static Pattern]) -> Reply {
    let total = matches.len();
    let (category_counts, categories) = distribution(matches, |p| p.category, CATEGORIES);
    let (difficulty_counts, _) = distribution(matches, |p| p.difficulty, DIFFICULTIES);
    // Difficulties read best in their natural order.
    let difficulties: Vec<&'static str> = DIFFICULTIES.iter().copied().filter(|d| difficulty_counts.contains_key(d)).collect();
    let message = format!("Found {total} patterns. Would you like to narrow your search by category or difficulty?");
    let listing = |values: &[&str], counts: &BTreeMap<&str, usize>| values.iter().map(|v| format!("`{v}` ({})", counts[v])).collect::<Vec<_>>().join(", ");
    let markdown = format!(
        "## Narrow Your Search\n\nFound {total} patterns for \"{}\". Would you like to narrow your search by category or difficulty?\n\n**Categories:** {}\n\n**Difficulties:** {}\n",
        shown(&request.q),
        listing(&categories, &category_counts),
        listing(&difficulties, &difficulty_counts)
    );
    let mut options: Vec<InputOption> = categories
        .iter()
        .map(|c| InputOption { label: c.to_string(), value: c.to_string(), description: format!("Filter by {c} category"), field: "category" })
        .collect();
    options.extend(difficulties.iter().map(|d| InputOption { label: d.to_string(), value: d.to_string(), description: format!("Filter by {d} difficulty"), field: "difficulty" }));
    let suggestions = BTreeMap::from([
        ("category", categories.iter().map(|c| c.to_string()).collect()),
        ("difficulty", difficulties.iter().map(|d| d.to_string()).collect()),
    ]);
    let payload = NeedsInputPayload::new(
        message,
        vec!["category", "difficulty"],
        format!("Too many results ({total}). Narrowing filters will help find the right pattern."),
        suggestions,
        options,
    );
    Reply::new(vec![markdown], &payload, false, request.format)
}

fn search_results(request: &SearchRequest, matches: &[&'static Pattern]) -> Reply {
    let cards = request.limit.unwrap_or(DEFAULT_LIMIT).min(matches.len());
    let mut filters = String::new();
    if let Some(category) = request.category {
        filters.push_str(&format!(" in category `{category}`"));
    }
    if let Some(difficulty) = request.difficulty {
        filters.push_str(&format!(" at difficulty `{difficulty}`"));
    }
    let markdown = render_search_markdown(&request.q, &filters, matches, cards);
    let rendered_card_ids: Vec<&'static str> = matches.iter().take(cards).map(|p| p.id).collect();
    let markers = ContractMarkers { index: count_markers(&markdown, INDEX_MARKER), cards: count_markers(&markdown, CARD_MARKER), version: MARKER_VERSION };
    if markers.cards != rendered_card_ids.len() || markers.index != 1 {
        // 004's policy: warn, never fail the call.
        eprintln!("mcp-canvas-demo: search_patterns contract markers {markers:?} disagree with {} rendered cards", rendered_card_ids.len());
    }
    let payload = SearchResults {
        kind: "patternSearchResults:v1",
        query: QueryEcho { q: Some(request.q.clone()), category: request.category, difficulty: request.difficulty, limit: request.limit, format: request.format.as_str() },
        metadata: SearchMetadata {
            total_count: matches.len(),
            categories: distribution(matches, |p| p.category, CATEGORIES).0,
            difficulties: distribution(matches, |p| p.difficulty, DIFFICULTIES).0,
            rendered_cards: rendered_card_ids.len(),
            rendered_card_ids,
            contract_markers: markers,
        },
        patterns: matches.iter().map(|p| CardSummary::of(p)).collect(),
    };
    Reply::new(markdown, &payload, false, request.format)
}

// ── get_pattern ─────────────────────────────────────────────────────────────────────────────

fn bigrams(text: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Sørensen–Dice similarity of character bigrams (0 to 1).
fn dice(a: &str, b: &str) -> f64 {
    let (a, mut b) = (bigrams(a), bigrams(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let total = a.len() + b.len();
    let mut shared = 0;
    for pair in &a {
        if let Some(i) = b.iter().position(|p| p == pair) {
            b.swap_remove(i);
            shared += 1;
        }
    }
    2.0 * shared as f64 / total as f64
}

/// Up to five ids close to `wanted`: by spelling (id or title) and by searching for its words.
/// For an empty `wanted`, the first beginner patterns.
fn similar_ids(wanted: &str) -> Vec<&'static str> {
    let wanted = wanted.trim().to_lowercase();
    if wanted.is_empty() {
        return PATTERNS.iter().filter(|p| p.difficulty == "beginner").take(5).map(|p| p.id).collect();
    }
    let searched = find(&wanted, None, None);
    let searched = if tokens(&wanted).is_empty() { Vec::new() } else { searched };
    let mut scored: Vec<(f64, &'static str)> = PATTERNS
        .iter()
        .map(|p| {
            let spelling = dice(&wanted, p.id).max(dice(&wanted, &p.title.to_lowercase()));
            let bonus = match searched.iter().position(|s| s.id == p.id) {
                Some(rank) => 0.5 - (rank as f64 * 0.01).min(0.2),
                None => 0.0,
            };
            (spelling + bonus, p.id)
        })
        .filter(|(score, _)| *score >= 0.4)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(5).map(|(_, id)| id).collect()
}

fn get_pattern_reply(args: &JsonObject) -> Reply {
    let mut reader = ArgReader::new(args);
    let id = reader.string("id").unwrap_or_default();
    let format = reader.format();
    if let Some(reply) = reader.error_reply("get_pattern", format) {
        return reply;
    }
    let wanted = id.trim();
    match PATTERNS.iter().find(|p| p.id.eq_ignore_ascii_case(wanted)) {
        Some(pattern) if !wanted.is_empty() => details(pattern, format),
        _ => pattern_not_found(wanted, format),
    }
}

fn pattern_not_found(wanted: &str, format: Format) -> Reply {
    let ids = similar_ids(wanted);
    let (message, reason, mut markdown) = if wanted.is_empty() {
        (
            "Which pattern do you want? Please provide a pattern ID.".to_owned(),
            "Pattern ID is required".to_owned(),
            "## Pattern ID Needed\n\nWhich pattern do you want? Please provide a pattern ID.\n".to_owned(),
        )
    } else {
        let quoted = wanted.replace('"', "'");
        (
            format!("Pattern \"{quoted}\" not found. Please provide a valid pattern ID."),
            format!("Pattern ID \"{quoted}\" is invalid or does not exist"),
            format!("## Pattern Not Found\n\nPattern \"{}\" not found. Please provide a valid pattern ID.\n", shown(wanted)),
        )
    };
    if !ids.is_empty() {
        markdown.push_str(if wanted.is_empty() { "\nSome patterns to start with:\n\n" } else { "\nDid you mean:\n\n" });
        for id in &ids {
            let title = PATTERNS.iter().find(|p| p.id == *id).map_or("", |p| p.title);
            markdown.push_str(&format!("- `{id}` — {title}\n"));
        }
    }
    let options = ids.iter().map(|id| InputOption { label: id.to_string(), value: id.to_string(), description: format!("Pattern ID: {id}"), field: "id" }).collect();
    let suggestions = BTreeMap::from([("id", ids.iter().map(|id| id.to_string()).collect())]);
    let payload = NeedsInputPayload::new(message, vec!["id"], reason, suggestions, options);
    Reply::new(vec![markdown], &payload, false, format)
}

fn details(pattern: &'static Pattern, format: Format) -> Reply {
    let mut sections = vec![SectionOut { title: "Description".into(), content: pattern.description, kind: "description" }];
    sections.extend(pattern.sections.iter().map(|s| SectionOut { title: s.title.into(), content: s.content, kind: s.kind }));
    sections.extend(pattern.examples.iter().map(|e| SectionOut { title: format!("Example: {}", e.description), content: e.code, kind: "example" }));
    let payload = PatternDetails {
        kind: "patternDetails:v1",
        id: pattern.id,
        title: pattern.title,
        category: pattern.category,
        difficulty: pattern.difficulty,
        summary: pattern.summary,
        description: pattern.description,
        tags: pattern.tags,
        use_guidance: UseGuidance { use_when: pattern.use_when, avoid_when: pattern.avoid_when },
        sections,
        examples: pattern.examples.iter().map(|e| ExampleOut { code: e.code, language: "typescript", description: e.description }).collect(),
        provenance: Provenance { source: CATALOG_SOURCE, timestamp: pattern.updated, version: CATALOG_VERSION, marker: MARKER_VERSION },
    };

    let mut markdown = vec![format!(
        "# {}\n\n{CARD_MARKER}\n`{}` · **{}** · *{}*\n\n{}\n\n**Use when:** {}\n\n**Avoid when:** {}\n\n**Tags:** {}\n",
        pattern.title,
        pattern.id,
        pattern.category,
        pattern.difficulty,
        pattern.summary,
        pattern.use_when,
        pattern.avoid_when,
        tag_list(pattern.tags)
    )];
    let mut body = format!("## Description\n\n{}\n", pattern.description);
    for section in pattern.sections {
        body.push_str(&format!("\n## {}\n\n{}\n", section.title, section.content));
    }
    markdown.push(body);
    for example in pattern.examples {
        markdown.push(format!("## Example: {}\n\n```typescript\n{}\n```\n", example.description, example.code));
    }
    Reply::new(markdown, &payload, false, format)
}

// ── tools ───────────────────────────────────────────────────────────────────────────────────

#[tool_router(router = patterns_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        title = "Search Effect-TS patterns",
        description = "Searches a catalog of 30 Effect-TS patterns (error handling, services, validation, concurrency, \
            resource management, streams) by words, optionally filtered by category and difficulty. Answers with a \
            markdown index and pattern cards for the top `limit` matches; with format `json` or `both`, also a JSON \
            block (kind patternSearchResults:v1) listing every match. An empty query, or more than 20 matches \
            without a filter, answers with a needsInput:v1 prompt instead.",
        input_schema = input_schema::<SearchPatternsArgs>(),
        output_schema = search_output_schema(),
        annotations(title = "Search Effect-TS patterns", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn search_patterns(&self, Parameters(args): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        Ok(search_patterns_reply(&args).into_result())
    }

    #[tool(
        title = "Get an Effect-TS pattern",
        description = "Returns one Effect-TS pattern by id: summary, description, when to use and avoid it, sections and \
            TypeScript examples (kind patternDetails:v1). An unknown or empty id answers with a needsInput:v1 prompt \
            listing up to five similar ids.",
        input_schema = input_schema::<GetPatternArgs>(),
        output_schema = get_output_schema(),
        annotations(title = "Get an Effect-TS pattern", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_pattern(&self, Parameters(args): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        Ok(get_pattern_reply(&args).into_result())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn search(value: Value) -> Reply {
        search_patterns_reply(&args(value))
    }

    fn ids(value: &Value) -> Vec<String> {
        value.as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_owned()).collect()
    }

    #[test]
    fn catalog_is_well_formed() {
        assert_eq!(PATTERNS.len(), 30);
        let mut seen = std::collections::BTreeSet::new();
        for p in PATTERNS {
            assert!(seen.insert(p.id), "duplicate id {}", p.id);
            assert!(CATEGORIES.contains(&p.category), "{}: category {}", p.id, p.category);
            assert!(DIFFICULTIES.contains(&p.difficulty), "{}: difficulty {}", p.id, p.difficulty);
            assert!(p.summary.chars().count() <= 220, "{}: summary is {} chars", p.id, p.summary.chars().count());
            assert!(p.description.len() > p.summary.len() / 2 && p.description.chars().count() <= 400, "{}", p.id);
            assert!(!p.tags.is_empty() && !p.examples.is_empty(), "{}", p.id);
            assert!(p.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", p.id);
            let t = p.updated.as_bytes();
            let iso = t.len() == 24
                && [4, 7].iter().all(|&i| t[i] == b'-')
                && t[10] == b'T'
                && [13, 16].iter().all(|&i| t[i] == b':')
                && t[19] == b'.'
                && t[23] == b'Z'
                && t.iter().enumerate().all(|(i, b)| [4, 7, 10, 13, 16, 19, 23].contains(&i) || b.is_ascii_digit());
            assert!(iso, "{}: updated {} is not ISO 8601 with milliseconds", p.id, p.updated);
        }
        for category in CATEGORIES {
            assert!(PATTERNS.iter().filter(|p| p.category == *category).count() >= 4, "{category}");
        }
    }

    #[test]
    fn broad_query_really_matches_more_than_the_threshold() {
        assert!(find("effect", None, None).len() > SEARCH_TOO_BROAD_THRESHOLD);
        for query in EXAMPLE_QUERIES {
            let n = find(query, None, None).len();
            assert!(n > 0 && n <= SEARCH_TOO_BROAD_THRESHOLD, "suggested query {query:?} finds {n}");
        }
    }

    #[test]
    fn threshold_is_strictly_greater_and_only_without_filters() {
        assert!(!is_too_broad(SEARCH_TOO_BROAD_THRESHOLD, false));
        assert!(is_too_broad(SEARCH_TOO_BROAD_THRESHOLD + 1, false));
        assert!(!is_too_broad(SEARCH_TOO_BROAD_THRESHOLD + 1, true));
    }

    #[test]
    fn contract_markers_match_the_markdown_and_the_rendered_cards() {
        let cases = [
            json!({"q": "error handling"}),
            json!({"q": "error handling", "limit": 2}),
            json!({"q": "error handling", "limit": 100, "format": "both"}),
            json!({"q": "stream", "format": "json", "limit": 1}),
            json!({"q": "effect", "difficulty": "advanced", "limit": 3}),
            json!({"q": "effect", "category": "streams"}),
            json!({"q": "no such thing anywhere"}),
        ];
        for case in cases {
            let reply = search(case.clone());
            let s = &reply.structured;
            assert_eq!(s["kind"], "patternSearchResults:v1", "{case}: {s}");
            let meta = &s["metadata"];
            let total = meta["totalCount"].as_u64().unwrap() as usize;
            let limit = case["limit"].as_u64().map_or(DEFAULT_LIMIT, |l| l as usize);
            let cards = limit.min(total);
            assert_eq!(meta["renderedCards"], cards, "{case}");
            assert_eq!(meta["contractMarkers"], json!({"index": 1, "cards": cards, "version": "v1"}), "{case}");
            let all = ids(&s["patterns"]);
            assert_eq!(all.len(), total, "{case}: patterns lists every match");
            let rendered: Vec<String> = meta["renderedCardIds"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
            assert_eq!(rendered, all[..cards], "{case}: cards are the first K in index order");
            let counted: usize = meta["categories"].as_object().unwrap().values().map(|v| v.as_u64().unwrap() as usize).sum();
            assert_eq!(counted, total, "{case}");
            // The markdown (built even when format=json leaves it out) has exactly these markers.
            let markdown = render_search_markdown("x", "", &find(case["q"].as_str().unwrap(), case["category"].as_str(), case["difficulty"].as_str()), cards);
            assert_eq!(count_markers(&markdown, INDEX_MARKER), 1);
            assert_eq!(count_markers(&markdown, CARD_MARKER), cards);
            if reply.format.has_markdown() {
                assert_eq!(count_markers(&reply.texts, INDEX_MARKER), 1, "{case}");
                assert_eq!(count_markers(&reply.texts, CARD_MARKER), cards, "{case}");
            }
        }
    }

    #[test]
    fn format_gates_the_blocks() {
        let markdown = search(json!({"q": "retry"}));
        let blocks = markdown.blocks();
        assert!(!blocks.is_empty() && blocks.iter().all(|b| serde_json::from_str::<Value>(b).is_err()), "no JSON block in markdown mode");
        let json = search(json!({"q": "retry", "format": "json"}));
        let blocks = json.blocks();
        assert_eq!(blocks.len(), 1);
        assert_eq!(serde_json::from_str::<Value>(&blocks[0]).unwrap(), json.structured);
        let both = search(json!({"q": "retry", "format": "both"}));
        let blocks = both.blocks();
        assert!(blocks.len() >= 2);
        assert_eq!(serde_json::from_str::<Value>(blocks.last().unwrap()).unwrap(), both.structured, "JSON block last");
        assert!(blocks[..blocks.len() - 1].iter().all(|b| b.starts_with('#')));
        for reply in [&markdown, &json, &both] {
            assert_eq!(reply.structured["kind"], "patternSearchResults:v1");
            assert!(!reply.is_error);
        }
    }

    #[test]
    fn query_echo_omits_what_was_not_given() {
        let reply = search(json!({"q": "  retry  "}));
        assert_eq!(reply.structured["query"], json!({"q": "retry", "format": "markdown"}));
        let reply = search(json!({"q": "effect", "category": "Streams", "difficulty": "advanced", "limit": 3, "format": "both", "simulate_error": null}));
        assert_eq!(reply.structured["query"], json!({"q": "effect", "category": "streams", "difficulty": "advanced", "limit": 3, "format": "both"}));
    }

    #[test]
    fn empty_query_asks_for_q() {
        for q in [json!(""), json!("   "), Value::Null] {
            for format in ["markdown", "json", "both"] {
                let reply = search(json!({"q": q, "format": format}));
                let s = &reply.structured;
                assert_eq!(s["kind"], "needsInput:v1");
                assert_eq!(s["type"], "elicitation");
                assert_eq!(s["needsInput"]["fields"], json!(["q"]));
                assert_eq!(s["needsInput"]["suggestions"]["q"], json!(EXAMPLE_QUERIES));
                assert!(!reply.is_error);
                assert_eq!(reply.blocks().len(), if format == "both" { 2 } else { 1 }, "{format}");
            }
        }
        assert_eq!(search(json!({})).structured["kind"], "needsInput:v1");
    }

    #[test]
    fn too_broad_search_offers_filters_from_the_results() {
        let reply = search(json!({"q": "effect", "limit": 50}));
        let s = &reply.structured;
        assert_eq!(s["kind"], "needsInput:v1", "{s}");
        assert_eq!(s["needsInput"]["fields"], json!(["category", "difficulty"]));
        let matches = find("effect", None, None);
        let suggested: Vec<&str> = s["needsInput"]["suggestions"]["category"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let mut present: Vec<&str> = CATEGORIES.iter().copied().filter(|c| matches.iter().any(|p| p.category == *c)).collect();
        assert_eq!(suggested.len(), present.len());
        present.sort();
        let mut sorted = suggested.clone();
        sorted.sort();
        assert_eq!(sorted, present, "suggested categories are those in the results");
        let counts: Vec<usize> = suggested.iter().map(|c| matches.iter().filter(|p| p.category == *c).count()).collect();
        assert!(counts.windows(2).all(|w| w[0] >= w[1]), "most frequent first: {counts:?}");
        let options = s["options"].as_array().unwrap();
        assert!(options.iter().any(|o| o["field"] == "category" && o["description"] == "Filter by error-handling category"));
        assert!(options.iter().any(|o| o["field"] == "difficulty" && o["value"] == "beginner"));
        assert!(reply.texts[0].contains(&format!("Found {} patterns", matches.len())));
        // A filter (or a narrower query) gives results again.
        assert_eq!(search(json!({"q": "effect", "category": "service"})).structured["kind"], "patternSearchResults:v1");
        assert_eq!(search(json!({"q": "effect", "difficulty": "beginner"})).structured["kind"], "patternSearchResults:v1");
        // Stopword-only queries match everything, so they are too broad as well.
        assert_eq!(search(json!({"q": "pattern"})).structured["kind"], "needsInput:v1");
    }

    #[test]
    fn simulated_errors_are_tool_errors() {
        for (code, retryable, ..) in ERROR_CODES {
            let reply = search(json!({"q": "retry", "simulate_error": code.to_lowercase(), "format": "both"}));
            assert!(reply.is_error);
            let s = &reply.structured;
            assert_eq!(s["kind"], "toolError:v1");
            assert_eq!(s["code"], *code);
            assert_eq!(s["retryable"], *retryable);
            assert_eq!(s["details"]["simulated"], true);
            assert_eq!(reply.blocks().len(), 2, "message, then the JSON block");
        }
    }

    #[test]
    fn bad_arguments_name_the_field_and_what_is_accepted() {
        let cases = [
            (json!({"q": "x", "format": "xml"}), "`format` must be one of markdown, json, both"),
            (json!({"q": "x", "difficulty": "expert"}), "`difficulty` must be one of beginner, intermediate, advanced"),
            (json!({"q": "x", "category": "testing"}), "`category` must be one of error-handling"),
            (json!({"q": "x", "limit": 0}), "`limit` must be an integer from 1 to 100"),
            (json!({"q": "x", "limit": 101}), "`limit` must be an integer from 1 to 100"),
            (json!({"q": "x", "limit": 2.5}), "`limit` must be an integer"),
            (json!({"q": "x", "limit": "5"}), "`limit` must be an integer"),
            (json!({"q": 42}), "`q` must be a string"),
            (json!({"q": "x", "simulate_error": "TIMEOUT"}), "`simulate_error` must be one of NETWORK_ERROR"),
        ];
        for (case, needle) in cases {
            let reply = search(case.clone());
            assert!(reply.is_error, "{case}");
            let s = &reply.structured;
            assert_eq!(s["kind"], "toolError:v1");
            assert_eq!(s["code"], "CLIENT_ERROR");
            assert_eq!(s["retryable"], false);
            assert!(s["message"].as_str().unwrap().contains(needle), "{case}: {}", s["message"]);
            assert!(reply.texts[0].contains(needle));
        }
        let reply = search(json!({"q": "x", "format": "xml", "limit": 500}));
        assert_eq!(reply.structured["details"]["invalidArguments"].as_array().unwrap().len(), 2, "every problem is reported");
        assert_eq!(search(json!({"q": "retry", "limit": 5.0, "format": " JSON "})).structured["kind"], "patternSearchResults:v1");
    }

    #[test]
    fn get_pattern_details() {
        let reply = get_pattern_reply(&args(json!({"id": "effect-service", "format": "both"})));
        let s = &reply.structured;
        assert_eq!(s["kind"], "patternDetails:v1");
        assert_eq!(s["category"], "service");
        assert_eq!(s["useGuidance"]["useWhen"].as_str().map(|w| !w.is_empty()), Some(true));
        assert_eq!(s["sections"][0]["type"], "description");
        assert!(s["sections"].as_array().unwrap().iter().any(|x| x["type"] == "example"));
        assert_eq!(s["examples"][0]["language"], "typescript");
        assert_eq!(s["provenance"]["timestamp"], "2025-11-04T10:00:00.000Z");
        assert_eq!(s["provenance"]["marker"], "v1");
        assert_eq!(count_markers(&reply.texts, CARD_MARKER), 1);
        assert!(reply.texts[0].starts_with("# Effect.Service Pattern\n\n<!-- kind:pattern-card:v1 -->"));
        assert_eq!(serde_json::from_str::<Value>(reply.blocks().last().unwrap()).unwrap(), *s);
        // Deterministic.
        assert_eq!(get_pattern_reply(&args(json!({"id": "effect-service", "format": "both"}))).structured, *s);
    }

    #[test]
    fn unknown_or_empty_id_suggests_similar_ids() {
        let reply = get_pattern_reply(&args(json!({"id": "effect-servce"})));
        let s = &reply.structured;
        assert_eq!(s["kind"], "needsInput:v1");
        assert_eq!(s["needsInput"]["fields"], json!(["id"]));
        assert_eq!(s["message"], "Pattern \"effect-servce\" not found. Please provide a valid pattern ID.");
        let suggested = s["needsInput"]["suggestions"]["id"].as_array().unwrap();
        assert!(!suggested.is_empty() && suggested.len() <= 5);
        assert_eq!(suggested[0], "effect-service");
        assert_eq!(s["options"][0], json!({"label": "effect-service", "value": "effect-service", "description": "Pattern ID: effect-service", "field": "id"}));

        let retry = get_pattern_reply(&args(json!({"id": "retry"})));
        assert_eq!(retry.structured["needsInput"]["suggestions"]["id"][0], "error-handling-retry-schedule");

        for empty in [json!({"id": ""}), json!({"id": "  "}), json!({})] {
            let reply = get_pattern_reply(&args(empty));
            assert_eq!(reply.structured["kind"], "needsInput:v1");
            assert_eq!(reply.structured["needsInput"]["suggestions"]["id"].as_array().unwrap().len(), 5);
        }
        let nothing = get_pattern_reply(&args(json!({"id": "zzzzqqqq"})));
        assert_eq!(nothing.structured["needsInput"]["suggestions"]["id"], json!([]));
        assert!(nothing.structured.get("options").is_none());

        let bad = get_pattern_reply(&args(json!({"id": "effect-service", "format": "html"})));
        assert!(bad.is_error);
        assert!(bad.structured["message"].as_str().unwrap().contains("`format` must be one of markdown, json, both"));
    }

    #[test]
    fn schemas_describe_the_kinds() {
        let search = search_output_schema();
        assert_eq!(search["type"], "object");
        assert_eq!(search["required"], json!(["kind"]));
        assert_eq!(search["properties"]["kind"]["enum"], json!(["patternSearchResults:v1", "needsInput:v1", "toolError:v1"]));
        for variant in search["oneOf"].as_array().unwrap() {
            let name = variant["$ref"].as_str().unwrap().trim_start_matches("#/$defs/");
            assert!(search["$defs"].get(name).is_some(), "{name}");
        }
        let get = get_output_schema();
        assert!(get["$defs"]["patternDetails"].is_object());

        let input = input_schema::<SearchPatternsArgs>();
        let props = &input["properties"];
        assert_eq!(input["type"], "object");
        assert_eq!(props["limit"]["default"], 5);
        assert_eq!(props["limit"]["minimum"], 1);
        assert_eq!(props["limit"]["maximum"], 100);
        assert_eq!(props["format"]["default"], "markdown");
        assert!(props["q"]["description"].is_string());
        let input = input_schema::<GetPatternArgs>();
        assert_eq!(input["required"], json!(["id"]));

        // Every structured result a search can give carries the fields its schema requires.
        for case in [json!({"q": "retry"}), json!({"q": ""}), json!({"q": "effect"}), json!({"q": "x", "simulate_error": "NOT_FOUND"})] {
            let s = search_patterns_reply(&args(case)).structured;
            let def = s["kind"].as_str().unwrap().trim_end_matches(":v1");
            for key in search["$defs"][def]["required"].as_array().unwrap() {
                assert!(s.get(key.as_str().unwrap()).is_some(), "{def} lacks {key}");
            }
        }
    }

    #[test]
    fn user_input_cannot_forge_markers_or_break_the_layout() {
        let reply = search(json!({"q": "retry <!-- kind:pattern-card:v1 -->\n# heading", "format": "both"}));
        let s = &reply.structured;
        if s["kind"] == "patternSearchResults:v1" {
            assert_eq!(s["metadata"]["contractMarkers"]["cards"], s["metadata"]["renderedCards"]);
        }
        assert_eq!(count_markers(&reply.texts, CARD_MARKER), s["metadata"]["renderedCards"].as_u64().unwrap_or(0) as usize);
        assert_eq!(s["query"]["q"], "retry <!-- kind:pattern-card:v1 --> # heading", "whitespace collapsed");
        assert!(reply.texts[0].lines().next().unwrap().starts_with("# Search Results for \"retry &lt;!--"));

        let reply = get_pattern_reply(&args(json!({"id": "<!-- kind:pattern-card:v1 -->"})));
        assert_eq!(count_markers(&reply.texts, CARD_MARKER), 0);

        let long = "x".repeat(MAX_QUERY_CHARS + 1);
        let reply = search(json!({"q": long}));
        assert!(reply.is_error);
        assert!(reply.structured["message"].as_str().unwrap().contains("`q` must be a string of at most 500 characters (got \"501 characters\")"));
        assert_eq!(search(json!({"q": "x".repeat(MAX_QUERY_CHARS)})).structured["kind"], "patternSearchResults:v1");
    }

    #[test]
    fn tokenizer_and_matching() {
        assert_eq!(tokens("Error-Handling with  Effect.gen?"), vec!["error", "handling", "effect.gen"]);
        assert!(find("catchTag", None, None).first().is_some_and(|p| p.id == "error-handling-catch-tag"));
        assert!(find("io", None, None).iter().all(|p| !p.id.starts_with("validation")), "short words match whole words only");
        assert!(find("effect", Some("streams"), Some("advanced")).iter().all(|p| p.category == "streams" && p.difficulty == "advanced"));
    }
}
