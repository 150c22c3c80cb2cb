//! The user's models, behind one trait: [`Provider::complete`] takes an MCP-shaped request and
//! gives an MCP-shaped completion; each implementation converts to and from its own wire format.
//!
//! - [`openai`]: OpenAI-compatible chat completions (OpenAI, llama.cpp's server, LM Studio, vLLM,
//!   Ollama's `/v1`): `tool_calls` / role `tool`; structured output by `response_format`.
//! - [`anthropic`]: the Messages API: `tool_use` / `tool_result` blocks; structured output by a
//!   forced tool choice.
//! - [`ollama`]: Ollama's native `/api/chat`: structured output by `format` with the schema.
//!
//! Plain HTTP (reqwest, already in the tree through rmcp) and serde: each provider is two small
//! conversions and one POST; SDK crates cover one provider each, pull their own HTTP stacks and
//! none exposes all three structured modes.

pub mod anthropic;
pub mod ollama;
pub mod openai;

use std::{future::Future, pin::Pin, time::Duration};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::{
    keys::ApiKey,
    message::{Block, SamplingRequest, StopReason, ToolDef},
};

/// The most of a provider's answer MCP Canvas reads (a completion is kilobytes; this is a guard
/// against a misbehaving endpoint, not a limit a real answer meets).
pub const MAX_ANSWER_BYTES: usize = 16 << 20;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ProviderKind {
    /// OpenAI-compatible `/chat/completions`.
    Openai,
    /// Anthropic `/v1/messages`.
    Anthropic,
    /// Ollama native `/api/chat`.
    Ollama,
}

/// How an OpenAI-compatible server does structured output (`__schema__`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum StructuredMode {
    /// The provider's native mode: OpenAI `response_format` `json_schema` (strict), Anthropic a
    /// forced tool choice, Ollama `format` with the schema.
    #[default]
    Native,
    /// llama.cpp's servers: `response_format` `{"type": "json_object", "schema": …}`.
    JsonObjectSchema,
    /// No structured mode: `__schema__` goes to the model as a normal tool (the naive path).
    None,
}

/// One configured provider (`[[sampling.providers]]` in settings.toml). Holds no key: only where
/// the key is ([`crate::keys`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ProviderConfig {
    /// What the user calls it; policies name it.
    pub name: String,
    /// Its wire format.
    pub kind: ProviderKind,
    /// Where it listens, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`,
    /// `https://api.anthropic.com`, `http://127.0.0.1:11434`.
    pub base_url: String,
    /// The models to use, first is the default; `modelPreferences` hints are matched against these.
    pub models: Vec<String>,
    /// No request asks it for more tokens than this.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Whether its models read images (else a request with images is refused, with the reason).
    #[serde(default)]
    pub vision: bool,
    /// Whether it can call tools (else `sampling.tools` is not advertised through it).
    #[serde(default = "yes")]
    pub tools: bool,
    /// How it does `__schema__`.
    #[serde(default)]
    pub structured: StructuredMode,
    /// The environment variable that holds its API key, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub api_key_env: Option<String>,
    /// Whether its API key is in the OS keyring (entry `mcp-canvas` / `provider:<name>`).
    #[serde(default)]
    pub api_key_keyring: bool,
    /// How long one completion may take.
    #[serde(default = "default_timeout")]
    #[ts(type = "number")]
    pub timeout_seconds: u64,
}

fn default_max_tokens() -> u32 {
    1024
}
fn yes() -> bool {
    true
}
fn default_timeout() -> u64 {
    120
}

impl ProviderConfig {
    /// The model for a request: the first configured model a hint names (case-insensitive
    /// substring, in hint order), else the policy's, else the first configured.
    pub fn pick_model<'a>(&'a self, hints: impl IntoIterator<Item = &'a str>, preferred: Option<&'a str>) -> Option<&'a str> {
        for hint in hints {
            let hint = hint.to_lowercase();
            if hint.is_empty() {
                continue;
            }
            if let Some(model) = self.models.iter().find(|m| m.to_lowercase().contains(&hint)) {
                return Some(model);
            }
        }
        preferred.or(self.models.first().map(String::as_str))
    }

    /// The timeout as a duration.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_seconds.max(1))
    }
}

/// What a provider is asked: the (edited, capped) request, the model, and for `__schema__` on the
/// structured path, the schema the answer must match.
#[derive(Debug, Clone)]
pub struct ProviderRequest<'a> {
    /// The request (tools and tool choice as they should reach the model; on the structured path
    /// the `__schema__` tool is already taken out).
    pub request: &'a SamplingRequest,
    /// Which model.
    pub model: &'a str,
    /// At most this many tokens.
    pub max_tokens: u32,
    /// Structured output: the answer must be one JSON object matching this schema.
    pub schema: Option<&'a Map<String, Value>>,
}

/// Tokens used by one completion, as the provider counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Usage {
    /// Prompt tokens.
    #[ts(type = "number")]
    pub input_tokens: u64,
    /// Completion tokens.
    #[ts(type = "number")]
    pub output_tokens: u64,
}

/// What a provider answered, in MCP terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The assistant's blocks (text, tool_use).
    pub content: Vec<Block>,
    /// Why it stopped.
    pub stop_reason: StopReason,
    /// The model, as the provider names it.
    pub model: String,
    /// Tokens used.
    pub usage: Usage,
    /// On the structured path: the text the provider produced for the schema (parsed by the caller).
    pub structured_text: Option<String>,
}

/// Why a request cannot be written in a provider's format, or its answer cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The request asks for something this provider's format cannot say.
    #[error("{0}")]
    Unsupported(String),
    /// The provider's answer is not what its format promises.
    #[error("{0}")]
    Unreadable(String),
}

/// A provider could not answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// The provider answered with an HTTP error.
    #[error("{provider} answered HTTP {status}: {message}")]
    Status {
        /// Which provider.
        provider: String,
        /// The status code.
        status: u16,
        /// Its error message (never the request, never the key).
        message: String,
    },
    /// It did not answer in time.
    #[error("{provider} did not answer within {seconds} s")]
    Timeout {
        /// Which provider.
        provider: String,
        /// The limit.
        seconds: u64,
    },
    /// It could not be reached.
    #[error("{provider} could not be reached at {url}: {reason}")]
    Unreachable {
        /// Which provider.
        provider: String,
        /// Where.
        url: String,
        /// Why.
        reason: String,
    },
    /// Its answer could not be read.
    #[error("{provider} sent an answer MCP Canvas could not read: {reason}")]
    BadAnswer {
        /// Which provider.
        provider: String,
        /// What was wrong.
        reason: String,
    },
    /// The request cannot go to this provider as it is (an image to a text-only model, say).
    #[error("{provider} cannot take this request: {reason}")]
    Unsupported {
        /// Which provider.
        provider: String,
        /// Why.
        reason: String,
    },
}

/// A model endpoint.
pub trait Provider: Send + Sync {
    /// Its configuration.
    fn config(&self) -> &ProviderConfig;
    /// One completion.
    fn complete<'a>(&'a self, request: ProviderRequest<'a>) -> BoxFuture<'a, Result<Completion, ProviderError>>;
}

/// The provider for `config`, with its key.
pub fn build(config: ProviderConfig, key: Option<ApiKey>) -> Box<dyn Provider> {
    let http = Http::new(&config, key);
    match config.kind {
        ProviderKind::Openai => Box::new(openai::OpenAi { config, http }),
        ProviderKind::Anthropic => Box::new(anthropic::Anthropic { config, http }),
        ProviderKind::Ollama => Box::new(ollama::Ollama { config, http }),
    }
}

/// The HTTP side every provider shares: one client, the key, errors named after the provider.
pub struct Http {
    client: reqwest::Client,
    name: String,
    timeout: Duration,
    /// The API key (never logged, never in an error).
    pub key: Option<ApiKey>,
}

impl Http {
    fn new(config: &ProviderConfig, key: Option<ApiKey>) -> Self {
        let client = reqwest::Client::builder().connect_timeout(Duration::from_secs(10)).build().expect("a plain reqwest client builds");
        Self { client, name: config.name.clone(), timeout: config.timeout(), key }
    }

    /// POSTs `body` as JSON to `url` with `headers`, and reads a JSON answer; HTTP errors carry the
    /// provider's own error message.
    pub async fn post(&self, url: &str, headers: &[(&str, String)], body: &Value) -> Result<Value, ProviderError> {
        let mut request = self.client.post(url).json(body).timeout(self.timeout);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let mut response = request.send().await.map_err(|e| self.transport_error(url, &e))?;
        let status = response.status();
        let too_large = format!("the answer is larger than {} MiB, the most MCP Canvas reads from a provider", MAX_ANSWER_BYTES >> 20);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.transport_error(url, &e))? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(match status.is_success() {
                    true => self.bad(too_large),
                    false => ProviderError::Status { provider: self.name.clone(), status: status.as_u16(), message: format!("({too_large})") },
                });
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(ProviderError::Status { provider: self.name.clone(), status: status.as_u16(), message: without_key(error_message(&String::from_utf8_lossy(&body)), self.key.as_ref()) });
        }
        serde_json::from_slice(&body).map_err(|e| self.bad(format!("not JSON ({e})")))
    }

    /// An answer that did not have the expected shape.
    pub fn bad(&self, reason: impl Into<String>) -> ProviderError {
        ProviderError::BadAnswer { provider: self.name.clone(), reason: reason.into() }
    }

    /// A request this provider cannot take.
    pub fn unsupported(&self, reason: impl Into<String>) -> ProviderError {
        ProviderError::Unsupported { provider: self.name.clone(), reason: reason.into() }
    }

    fn transport_error(&self, url: &str, e: &reqwest::Error) -> ProviderError {
        if e.is_timeout() {
            return ProviderError::Timeout { provider: self.name.clone(), seconds: self.timeout.as_secs() };
        }
        // reqwest's Display may include the URL, never headers: the key stays out.
        let mut reason = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(inner) = source {
            reason = format!("{reason}: {inner}");
            source = inner.source();
        }
        ProviderError::Unreachable { provider: self.name.clone(), url: url.to_owned(), reason }
    }
}

/// The provider's own error message from an error body (`{"error": {"message": …}}`,
/// `{"error": "…"}`), else the body's start.
/// `message` with the API key cut out: a gateway may echo the key it was given in its error,
/// and provider errors reach the transcript, the call's notes and the server.
fn without_key(message: String, key: Option<&ApiKey>) -> String {
    match key.map(ApiKey::expose).filter(|k| k.len() >= 4) {
        Some(key) if message.contains(key) => message.replace(key, "<redacted>"),
        _ => message,
    }
}

fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let found = parsed.as_ref().and_then(|v| {
        let error = v.get("error")?;
        error.get("message").and_then(Value::as_str).or_else(|| error.as_str()).map(str::to_owned)
    });
    let message = found.unwrap_or_else(|| body.trim().to_owned());
    let mut cut: String = message.chars().take(500).collect();
    if cut.len() < message.len() {
        cut.push('…');
    }
    if cut.is_empty() { "(empty body)".to_owned() } else { cut }
}

/// A tool result as the text of an OpenAI or Ollama `tool` message: its text blocks, with
/// `Error: ` first when the tool failed (those messages have no error flag). Images cannot ride
/// there; the sampler says so in its notes.
pub fn tool_message_text(content: &[Value], is_error: Option<bool>) -> String {
    let text = content.iter().filter_map(|c| c.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n");
    if is_error == Some(true) { format!("Error: {text}") } else { text }
}

/// A tool as an OpenAI-style function (OpenAI-compatible and Ollama).
pub fn function_tool(tool: &ToolDef) -> Value {
    serde_json::json!({"type": "function", "function": {"name": tool.name, "description": tool.description.clone().unwrap_or_default(), "parameters": tool.input_schema}})
}

/// The id of the `index`th tool call of an answer, when the provider gave it none: distinct per
/// call, so each `tool_result` finds its call.
pub fn fallback_id(given: Option<&str>, prefix: &str, index: usize) -> String {
    // Unique in this process: ids of a tool loop's later rounds never repeat earlier ones.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    given.filter(|id| !id.is_empty()).map_or_else(|| format!("{prefix}_{}_{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed), index + 1), str::to_owned)
}

/// Joins a base URL and a path with exactly one slash.
pub fn join(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(models: &[&str]) -> ProviderConfig {
        serde_json::from_value(serde_json::json!({"name": "p", "kind": "openai", "base_url": "http://x", "models": models})).unwrap()
    }

    #[test]
    fn hints_pick_the_first_configured_model_they_name() {
        let c = config(&["gpt-4o-mini", "claude-3-5-sonnet", "llama3"]);
        assert_eq!(c.pick_model(["claude", "gpt"], None), Some("claude-3-5-sonnet"));
        assert_eq!(c.pick_model(["Sonnet"], None), Some("claude-3-5-sonnet"));
        assert_eq!(c.pick_model(["mistral"], Some("llama3")), Some("llama3"));
        assert_eq!(c.pick_model([""], None), Some("gpt-4o-mini"));
        assert_eq!(config(&[]).pick_model(["x"], None), None);
    }

    #[test]
    fn an_echoed_key_is_cut_out_of_provider_errors() {
        let key = ApiKey::new("sk-live-0123456789");
        let message = error_message(r#"{"error":{"message":"invalid key sk-live-0123456789 for this project"}}"#);
        assert_eq!(without_key(message, Some(&key)), "invalid key <redacted> for this project");
        assert_eq!(without_key("no key here".into(), Some(&key)), "no key here");
        assert_eq!(without_key("sk-live".into(), None), "sk-live");
    }

    #[test]
    fn error_messages_are_the_providers_own_and_short() {
        assert_eq!(error_message(r#"{"error":{"message":"bad key","type":"auth"}}"#), "bad key");
        assert_eq!(error_message(r#"{"error":"model not found"}"#), "model not found");
        assert_eq!(error_message(""), "(empty body)");
        assert_eq!(error_message(&"x".repeat(900)).chars().count(), 501);
    }
}
