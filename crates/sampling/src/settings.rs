//! `[sampling]` in settings.toml: the providers, and per server whether to ask, always answer or
//! never answer, with which provider and model, how many tokens and how often.
//!
//! ```toml
//! [sampling]
//! policy = "ask"                 # default for servers not listed: ask | always | never
//! provider = "local"             # default provider (else the first one listed)
//! requests_per_minute = 20       # per server; more is refused with a clear error
//! max_request_bytes = 4194304    # a bigger request is refused
//!
//! [[sampling.providers]]
//! name = "local"
//! kind = "openai"                # openai | anthropic | ollama
//! base_url = "http://127.0.0.1:8080/v1"
//! models = ["smollm2"]
//! max_tokens = 512
//! structured = "json_object_schema"   # native | json_object_schema | none
//! # api_key_env = "OPENAI_API_KEY" or api_key_keyring = true — never the key itself
//!
//! [sampling.servers.demo]
//! policy = "always"
//! model = "smollm2"
//! max_tokens = 256
//! tools = false                  # do not advertise sampling.tools to this server
//! review = true                  # show the completion before it is returned
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::provider::ProviderConfig;

/// Whether a server's sampling requests are asked about, answered, or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum PolicyMode {
    /// Show each request to the user, who approves, edits or rejects it.
    #[default]
    Ask,
    /// Answer without asking (within the caps).
    Always,
    /// Refuse, with the reason.
    Never,
}

impl std::str::FromStr for PolicyMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ask" => Ok(Self::Ask),
            "always" => Ok(Self::Always),
            "never" => Ok(Self::Never),
            other => Err(format!("`{other}` is not a sampling policy: use ask, always or never")),
        }
    }
}

/// `[sampling.servers.<name>]`: one server's policy. Unset fields fall back to `[sampling]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default, deny_unknown_fields)]
#[ts(export)]
pub struct ServerPolicy {
    /// Ask, always or never.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub policy: Option<PolicyMode>,
    /// Which provider answers this server.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provider: Option<String>,
    /// Which of its models, unless a hint names another configured one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    /// At most this many tokens per request.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_tokens: Option<u32>,
    /// Advertise `sampling.tools` to this server (off for strict servers that break on it).
    pub tools: bool,
    /// Show the completion to the user before it is returned.
    pub review: bool,
    /// At most this many requests a minute (else `[sampling]`'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub requests_per_minute: Option<u32>,
}

impl Default for ServerPolicy {
    fn default() -> Self {
        Self { policy: None, provider: None, model: None, max_tokens: None, tools: true, review: false, requests_per_minute: None }
    }
}

/// `[sampling]` (also what the app's Settings → Sampling shows and saves whole).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default, deny_unknown_fields)]
#[ts(export)]
pub struct SamplingSettings {
    /// The default policy.
    pub policy: PolicyMode,
    /// The default provider's name (else the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provider: Option<String>,
    /// Per server, requests a minute.
    pub requests_per_minute: u32,
    /// Largest request accepted, as JSON bytes.
    #[ts(type = "number")]
    pub max_request_bytes: usize,
    /// The configured providers.
    pub providers: Vec<ProviderConfig>,
    /// Per-server policies.
    pub servers: BTreeMap<String, ServerPolicy>,
}

impl Default for SamplingSettings {
    fn default() -> Self {
        Self { policy: PolicyMode::Ask, provider: None, requests_per_minute: 20, max_request_bytes: 4 << 20, providers: Vec::new(), servers: BTreeMap::new() }
    }
}

/// One server's policy with the defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective<'a> {
    /// Ask, always or never.
    pub mode: PolicyMode,
    /// The provider, if one is configured.
    pub provider: Option<&'a ProviderConfig>,
    /// The preferred model.
    pub model: Option<&'a str>,
    /// The token cap (policy and provider).
    pub max_tokens: u32,
    /// Whether `sampling.tools` is advertised.
    pub tools: bool,
    /// Whether completions are reviewed.
    pub review: bool,
    /// Requests a minute.
    pub requests_per_minute: u32,
}

impl SamplingSettings {
    /// `server`'s policy, defaults filled in.
    pub fn effective(&self, server: &str) -> Effective<'_> {
        let own = self.servers.get(server).cloned().unwrap_or_default();
        let wanted = own.provider.as_deref().or(self.provider.as_deref());
        let provider = match wanted {
            Some(name) => self.providers.iter().find(|p| p.name == name),
            None => self.providers.first(),
        };
        let provider_cap = provider.map_or(u32::MAX, |p| p.max_tokens);
        Effective {
            mode: own.policy.unwrap_or(self.policy),
            provider,
            model: self.servers.get(server).and_then(|p| p.model.as_deref()),
            max_tokens: own.max_tokens.unwrap_or(u32::MAX).min(provider_cap),
            // With no provider yet, offered anyway: the server then hears how to set one up.
            tools: own.tools && provider.is_none_or(|p| p.tools),
            review: own.review,
            requests_per_minute: own.requests_per_minute.unwrap_or(self.requests_per_minute),
        }
    }

    /// Problems a user must fix: a policy naming a provider that does not exist, duplicate names.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let known = |name: &str| self.providers.iter().any(|p| p.name == name);
        if let Some(name) = &self.provider {
            if !known(name) {
                problems.push(format!("[sampling] provider = \"{name}\" names no [[sampling.providers]] entry"));
            }
        }
        for (server, policy) in &self.servers {
            if let Some(name) = &policy.provider {
                if !known(name) {
                    problems.push(format!("[sampling.servers.{server}] provider = \"{name}\" names no [[sampling.providers]] entry"));
                }
            }
        }
        for (i, p) in self.providers.iter().enumerate() {
            if self.providers[..i].iter().any(|q| q.name == p.name) {
                problems.push(format!("two [[sampling.providers]] are named \"{}\"", p.name));
            }
            if p.models.is_empty() {
                problems.push(format!("[[sampling.providers]] \"{}\" lists no models", p.name));
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(toml_like: serde_json::Value) -> SamplingSettings {
        serde_json::from_value(toml_like).unwrap()
    }

    #[test]
    fn server_policies_fall_back_to_the_defaults() {
        let s = settings(serde_json::json!({
            "policy": "never",
            "providers": [
                {"name": "a", "kind": "openai", "base_url": "http://a", "models": ["m1"], "max_tokens": 300},
                {"name": "b", "kind": "ollama", "base_url": "http://b", "models": ["m2"], "tools": false}
            ],
            "servers": {"demo": {"policy": "always", "provider": "b", "model": "m2", "max_tokens": 100, "review": true}}
        }));
        let other = s.effective("other");
        assert_eq!((other.mode, other.provider.map(|p| p.name.as_str()), other.max_tokens, other.tools), (PolicyMode::Never, Some("a"), 300, true));
        let demo = s.effective("demo");
        assert_eq!((demo.mode, demo.provider.map(|p| p.name.as_str()), demo.model, demo.max_tokens, demo.tools, demo.review), (PolicyMode::Always, Some("b"), Some("m2"), 100, false, true));
        assert!(s.problems().is_empty());
    }

    #[test]
    fn a_policy_naming_a_missing_provider_is_a_problem() {
        let s = settings(serde_json::json!({"servers": {"x": {"provider": "gone"}}}));
        assert_eq!(s.effective("x").provider, None);
        assert!(s.problems()[0].contains("\"gone\""));
    }
}
