//! [`Sampler`]: one sampling request from arrival to answer.
//!
//! 1. Checked: size (`max_request_bytes`), shape (tool blocks in the right roles, a tool choice
//!    with tools), the server's policy (`never` refuses), its rate (`requests_per_minute`).
//! 2. Fitted: the provider and model (hints matched to configured models), `maxTokens` capped by
//!    policy and provider, images only to vision-capable providers, tools only to tool-capable ones
//!    ([`crate::fit`]): what does not fit is refused here, before anyone is asked.
//! 3. Asked (`ask`): the front end shows it all and the user approves, edits or rejects; the
//!    time the user takes is reported through [`Waiting`] so the call's timeout pauses.
//! 4. Answered: `__schema__` through the provider's structured mode (checked, one repair round),
//!    anything else as it is; optionally reviewed and edited by the user before it is returned.
//! 5. Kept: every request, answered or not, becomes one [`ExchangeRecord`] in the [`Transcript`].
//!
//! A refusal or failure is a [`SamplingError`] (a JSON-RPC error with a reason); never invented
//! assistant text.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex, RwLock},
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use crate::record::{Decision, ExchangeRecord, Transcript};
use crate::{
    fit, keys,
    message::{Block, Role, SamplingRequest, SamplingResult, StopReason},
    provider::{self, BoxFuture, Completion, Provider, ProviderConfig, ProviderError, ProviderRequest, StructuredMode},
    schema,
    settings::{PolicyMode, SamplingSettings},
};

/// JSON-RPC code for a request the user (or policy) rejected (the MCP spec's example uses -1).
pub const REJECTED: i32 = -1;
/// JSON-RPC invalid params: a request that is malformed or too big.
pub const INVALID: i32 = -32602;
/// JSON-RPC internal error: the provider failed.
pub const FAILED: i32 = -32603;

/// A sampling request not answered, as the JSON-RPC error the server gets.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SamplingError {
    /// The JSON-RPC error code.
    pub code: i32,
    /// Why, naming what to do about it.
    pub message: String,
}

impl SamplingError {
    /// An error with this code and message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
    pub(crate) fn rejected(message: impl Into<String>) -> Self {
        Self { code: REJECTED, message: message.into() }
    }
    fn invalid(message: impl Into<String>) -> Self {
        Self { code: INVALID, message: message.into() }
    }
    fn failed(message: impl Into<String>) -> Self {
        Self { code: FAILED, message: message.into() }
    }
}

/// What the user is shown before a request goes to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ApprovalRequest {
    /// The server asking.
    pub server: String,
    /// The request as the server sent it (`maxTokens` already capped).
    pub request: SamplingRequest,
    /// The provider that would answer.
    pub provider: String,
    /// The model it would use.
    pub model: String,
    /// The models the user may pick instead.
    pub models: Vec<String>,
    /// Whether it is `__schema__` structured output through the provider's own mode.
    pub structured: bool,
    /// What the host changed or noticed (caps applied, hints not matched).
    pub notes: Vec<String>,
    /// Whether the completion will be shown before it is returned (the user may turn it on).
    pub review: bool,
}

/// The user's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "action", rename_all = "snake_case")]
#[ts(export)]
#[allow(clippy::large_enum_variant)] // one per request, crossing a wire: its size does not matter
pub enum Approval {
    /// Send it, possibly edited.
    Approve {
        /// The edited request, when the user changed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        request: Option<SamplingRequest>,
        /// Another of the provider's models, when the user picked one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        model: Option<String>,
        /// Show the completion before it is returned.
        #[serde(default)]
        review: bool,
    },
    /// Do not send it.
    Reject {
        /// Why (goes to the server).
        reason: String,
    },
}

/// What the user is shown after the model answered, when the completion is reviewed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReviewRequest {
    /// The server asking.
    pub server: String,
    /// The request as it went to the model.
    pub request: SamplingRequest,
    /// The model's answer as it would be returned.
    pub result: SamplingResult,
    /// The provider.
    pub provider: String,
}

/// The user's answer to a [`ReviewRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "action", rename_all = "snake_case")]
#[ts(export)]
pub enum Review {
    /// Return it, possibly edited.
    Send {
        /// The edited result, when the user changed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        result: Option<SamplingResult>,
    },
    /// Return an error instead.
    Reject {
        /// Why (goes to the server).
        reason: String,
    },
}

/// Asks the user about sampling (a dialog in the window, a terminal prompt).
pub trait Approver: Send + Sync {
    /// Approve, edit or reject a request. A front end that cannot ask rejects with the reason.
    fn approve<'a>(&'a self, ask: &'a ApprovalRequest) -> BoxFuture<'a, Approval>;
    /// Review a completion before it is returned.
    fn review<'a>(&'a self, review: &'a ReviewRequest) -> BoxFuture<'a, Review>;
}

/// Tells the caller the user is being asked (the call's timeout pauses) until the guard drops.
pub trait Waiting: Send + Sync {
    /// Starts a wait.
    fn begin(&self) -> Box<dyn Send>;
}

/// No call to pause (tests, requests outside calls).
pub struct NoCall;

impl Waiting for NoCall {
    fn begin(&self) -> Box<dyn Send> {
        Box::new(())
    }
}

/// Builds a provider from its configuration (the real one resolves keys; tests may swap it).
pub type ProviderFactory = dyn Fn(&ProviderConfig) -> Result<Arc<dyn Provider>, keys::KeyError> + Send + Sync;

/// The real factory: the key from the keyring or the environment, then [`provider::build`].
pub fn real_provider(config: &ProviderConfig) -> Result<Arc<dyn Provider>, keys::KeyError> {
    let key = keys::resolve(config)?;
    Ok(Arc::from(provider::build(config.clone(), key)))
}

/// What the client advertises to a server (`sampling` capability).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capability {
    /// `sampling.tools`: tools and toolChoice are understood.
    pub tools: bool,
}

/// Whoever answers a connection's sampling requests: the [`Sampler`] itself, or the proxy's
/// router (the AI host upstream, else the desktop app, else a reasoned refusal).
pub trait SamplingService: Send + Sync {
    /// What to advertise to `server`; `None`: sampling is not offered.
    fn capability(&self, server: &str) -> Option<Capability>;
    /// Answers `server`'s request, or says why not.
    fn create_message<'a>(&'a self, server: &'a str, request: SamplingRequest, waiting: &'a dyn Waiting) -> BoxFuture<'a, Result<SamplingResult, SamplingError>>;
}

impl SamplingService for Sampler {
    fn capability(&self, server: &str) -> Option<Capability> {
        Sampler::capability(self, server)
    }

    fn create_message<'a>(&'a self, server: &'a str, request: SamplingRequest, waiting: &'a dyn Waiting) -> BoxFuture<'a, Result<SamplingResult, SamplingError>> {
        Box::pin(Sampler::create_message(self, server, request, waiting))
    }
}

/// A provider built, with the configuration it was built from.
type Built = (ProviderConfig, Arc<dyn Provider>);

/// Answers sampling requests for every server of one host.
pub struct Sampler {
    settings: RwLock<Arc<SamplingSettings>>,
    approver: Arc<dyn Approver>,
    transcript: Arc<dyn Transcript>,
    /// Called on the blocking pool: the real one reads the OS keyring (a D-Bus round trip).
    factory: Arc<ProviderFactory>,
    /// A policy that overrides settings for every server (the CLI's `--sampling`).
    mode_override: Option<PolicyMode>,
    /// Nobody can be asked (the CLI without a terminal): `ask` means `never`.
    unattended: bool,
    recent: Mutex<HashMap<String, VecDeque<Instant>>>,
    providers: Mutex<HashMap<String, Built>>,
}

impl Sampler {
    /// A sampler with these settings, asking through `approver`, keeping exchanges in `transcript`.
    pub fn new(settings: SamplingSettings, approver: Arc<dyn Approver>, transcript: Arc<dyn Transcript>) -> Self {
        Self {
            settings: RwLock::new(Arc::new(settings)),
            approver,
            transcript,
            factory: Arc::new(real_provider),
            mode_override: None,
            unattended: false,
            recent: Mutex::default(),
            providers: Mutex::default(),
        }
    }

    /// Builds providers with `factory` instead (tests).
    pub fn with_factory(mut self, factory: Box<ProviderFactory>) -> Self {
        self.factory = Arc::from(factory);
        self
    }

    /// Every server gets `mode`, whatever settings say (the CLI's `--sampling`).
    pub fn with_mode(mut self, mode: Option<PolicyMode>) -> Self {
        self.mode_override = mode;
        self
    }

    /// Nobody can be asked (the CLI with no terminal): a server whose policy is `ask` is treated
    /// as `never` — sampling is not offered to it — while `always` still answers.
    pub fn unattended(mut self) -> Self {
        self.unattended = true;
        self
    }

    /// New settings (after the user changed them); providers are rebuilt when their config changed.
    pub fn set_settings(&self, settings: SamplingSettings) {
        *self.settings.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(settings);
    }

    /// The settings in force.
    pub fn settings(&self) -> Arc<SamplingSettings> {
        self.settings.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The policy for `server` as chosen: the CLI's `--sampling` when given, else settings
    /// (before `ask` turns into `never` for want of a terminal). For front ends that route
    /// requests elsewhere (the proxy).
    pub fn chosen_mode(&self, server: &str) -> PolicyMode {
        self.mode_override.unwrap_or_else(|| self.settings().effective(server).mode)
    }

    fn mode(&self, settings: &SamplingSettings, server: &str) -> PolicyMode {
        match self.mode_override.unwrap_or_else(|| settings.effective(server).mode) {
            PolicyMode::Ask if self.unattended => PolicyMode::Never,
            mode => mode,
        }
    }

    /// What to advertise to `server`: nothing under policy `never`; otherwise sampling (also with
    /// no provider yet, so the server hears how to set one up), with `tools` when the provider can
    /// and the server's switch allows.
    pub fn capability(&self, server: &str) -> Option<Capability> {
        let settings = self.settings();
        if self.mode(&settings, server) == PolicyMode::Never {
            return None;
        }
        Some(Capability { tools: settings.effective(server).tools })
    }

    /// The provider for `config`, built once per configuration. Building it reads its key (the
    /// OS keyring: a D-Bus round trip), so that happens on the blocking pool.
    async fn provider(&self, config: &ProviderConfig) -> Result<Arc<dyn Provider>, String> {
        if let Some((known, provider)) = self.providers.lock().unwrap_or_else(|p| p.into_inner()).get(&config.name)
            && known == config
        {
            return Ok(provider.clone());
        }
        let (factory, wanted) = (self.factory.clone(), config.clone());
        let built = tokio::task::spawn_blocking(move || factory(&wanted)).await;
        let provider = built.map_err(|e| format!("building it failed: {e} (a bug in MCP Canvas: please report it)"))?.map_err(|e| e.to_string())?;
        self.providers.lock().unwrap_or_else(|p| p.into_inner()).insert(config.name.clone(), (config.clone(), provider.clone()));
        Ok(provider)
    }

    /// Rate limit: `per_minute` requests in any 60 s window, per server.
    fn admit(&self, server: &str, per_minute: u32) -> bool {
        let now = Instant::now();
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        let times = recent.entry(server.to_owned()).or_default();
        while times.front().is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60)) {
            times.pop_front();
        }
        if times.len() >= per_minute as usize {
            return false;
        }
        times.push_back(now);
        true
    }

    /// Answers `server`'s request, or says why not. Every outcome is recorded.
    pub async fn create_message(&self, server: &str, request: SamplingRequest, waiting: &dyn Waiting) -> Result<SamplingResult, SamplingError> {
        let mut record = ExchangeRecord::new(server, request.clone());
        let outcome = self.answer(server, request, waiting, &mut record).await;
        record.finish(&outcome);
        // Kept on the blocking pool (the host's transcript is SQLite), and waited for: the
        // exchange is in the transcript when its answer goes back.
        let transcript = self.transcript.clone();
        // (A transcript that panicked was reported by the panic hook; the answer still goes back.)
        let _ = tokio::task::spawn_blocking(move || transcript.record(&record)).await;
        outcome
    }

    async fn answer(&self, server: &str, request: SamplingRequest, waiting: &dyn Waiting, record: &mut ExchangeRecord) -> Result<SamplingResult, SamplingError> {
        let settings = self.settings();
        let policy = settings.effective(server);
        let size = serde_json::to_vec(&request).map_or(usize::MAX, |b| b.len());
        if size > settings.max_request_bytes {
            return Err(SamplingError::invalid(format!(
                "the sampling request of `{server}` is {size} bytes, more than the {} MCP Canvas accepts ([sampling] max_request_bytes)",
                settings.max_request_bytes
            )));
        }
        check_shape(&request).map_err(|e| SamplingError::invalid(format!("the sampling request of `{server}` is malformed: {e}")))?;
        let mode = self.mode(&settings, server);
        if mode == PolicyMode::Never && self.unattended && self.mode_override.unwrap_or(settings.effective(server).mode) == PolicyMode::Ask {
            return Err(SamplingError::rejected(format!(
                "nobody is there to approve a sampling request from `{server}` (policy `ask`, no terminal); pass --sampling always, or set [sampling.servers.{server}] policy = \"always\" in settings.toml"
            )));
        }
        if mode == PolicyMode::Never {
            return Err(SamplingError::rejected(format!(
                "MCP Canvas does not answer sampling requests from `{server}` (its sampling policy is `never`; change it in Settings → Sampling)"
            )));
        }
        if !self.admit(server, policy.requests_per_minute) {
            return Err(SamplingError::rejected(format!(
                "`{server}` asked for more than {} completions in a minute ([sampling] requests_per_minute); try again later",
                policy.requests_per_minute
            )));
        }
        let Some(config) = policy.provider else {
            let reason = match settings.providers.is_empty() {
                true => "no LLM provider is configured: add one in Settings → Sampling, or a [[sampling.providers]] entry in settings.toml (see docs/sampling.md)".to_owned(),
                false => format!("the provider named for `{server}` is not configured ({})", settings.problems().join("; ")),
            };
            return Err(SamplingError::failed(format!("MCP Canvas cannot answer `{server}`'s sampling request: {reason}")));
        };
        record.provider = config.name.clone();
        let mut notes = Vec::new();
        let mut model = config.pick_model(request.hints(), policy.model).unwrap_or_default().to_owned();
        let hints: Vec<&str> = request.hints().collect();
        if !hints.is_empty() && !config.models.iter().any(|m| hints.iter().any(|h| !h.is_empty() && m.to_lowercase().contains(&h.to_lowercase()))) {
            notes.push(format!("model hints {hints:?} match no configured model; using {model}"));
        }
        record.model = model.clone();
        let mut sent = capped(&request, policy.max_tokens, &mut notes);
        // What the provider cannot take is refused before the user is asked about it.
        fit::check(server, config, &sent)?;
        notes.extend(fit::notes(config, &sent));
        let mut review = policy.review;
        let mut decision = Decision::Automatic;
        if mode == PolicyMode::Ask {
            let ask = ApprovalRequest {
                server: server.to_owned(),
                request: sent.clone(),
                provider: config.name.clone(),
                model: model.clone(),
                models: config.models.clone(),
                structured: fit::structured(config, &sent),
                notes: notes.clone(),
                review,
            };
            let answer = {
                let _waiting = waiting.begin();
                self.approver.approve(&ask).await
            };
            match answer {
                Approval::Reject { reason } => {
                    record.decision = Decision::Rejected;
                    return Err(SamplingError::rejected(format!("the user rejected `{server}`'s sampling request: {reason}")));
                }
                Approval::Approve { request: edited, model: picked, review: wants_review } => {
                    decision = Decision::Approved;
                    if let Some(edited) = edited.filter(|e| *e != sent) {
                        check_shape(&edited).map_err(|e| SamplingError::invalid(format!("the edited request is malformed: {e}")))?;
                        sent = capped(&edited, policy.max_tokens, &mut notes);
                        fit::check(server, config, &sent)?;
                        decision = Decision::Edited;
                    }
                    if let Some(picked) = picked.filter(|p| *p != model) {
                        if !config.models.contains(&picked) {
                            return Err(SamplingError::invalid(format!("the model {picked} is not one of provider `{}`'s models", config.name)));
                        }
                        model = picked;
                        decision = Decision::Edited;
                    }
                    review |= wants_review;
                }
            }
        }
        if sent != request {
            record.edited_request = Some(sent.clone());
        }
        record.model = model.clone();
        record.decision = decision;
        let provider = self.provider(config).await.map_err(|e| {
            record.decision = Decision::Failed;
            SamplingError::failed(format!("provider `{}` is not usable: {e}", config.name))
        })?;
        let started = Instant::now();
        let result = self.complete(provider.as_ref(), &sent, &model, record).await;
        record.latency_ms = started.elapsed().as_millis() as u64;
        let mut result = result.inspect_err(|_| record.decision = Decision::Failed)?;
        if review {
            let ask = ReviewRequest { server: server.to_owned(), request: sent.clone(), result: result.clone(), provider: config.name.clone() };
            let answer = {
                let _waiting = waiting.begin();
                self.approver.review(&ask).await
            };
            match answer {
                Review::Reject { reason } => {
                    record.decision = Decision::Rejected;
                    return Err(SamplingError::rejected(format!("the user rejected the completion for `{server}`: {reason}")));
                }
                Review::Send { result: Some(edited) } if edited != result => {
                    if edited.role != Role::Assistant {
                        return Err(SamplingError::invalid("the edited completion must be an assistant message"));
                    }
                    result = edited;
                    record.decision = Decision::ResponseEdited;
                }
                Review::Send { .. } => {}
            }
        }
        Ok(result)
    }

    /// The provider's answer: structured (with one repair round) or as it is.
    async fn complete(&self, provider: &dyn Provider, sent: &SamplingRequest, model: &str, record: &mut ExchangeRecord) -> Result<SamplingResult, SamplingError> {
        let config = provider.config();
        let max_tokens = sent.max_tokens;
        let failed = |e: ProviderError| SamplingError::failed(format!("sampling failed: {e}"));
        let structured = schema::structured_schema(sent).filter(|_| config.structured != StructuredMode::None);
        let Some(schema) = structured else {
            let completion = provider.complete(ProviderRequest { request: sent, model, max_tokens, schema: None }).await.map_err(failed)?;
            record.usage = completion.usage;
            return Ok(plain_result(completion));
        };
        record.structured = true;
        let plain = schema::without_schema_tool(sent);
        let first = provider.complete(ProviderRequest { request: &plain, model, max_tokens, schema: Some(schema) }).await.map_err(failed)?;
        record.usage = first.usage;
        let text = structured_text(&first);
        let problems = match schema::check(schema, &text) {
            Ok(parsed) => return Ok(schema::answer(call_id(), parsed, first.model)),
            Err(problems) => problems,
        };
        let repair = schema::repair_request(&plain, &text, &problems);
        let second = provider.complete(ProviderRequest { request: &repair, model, max_tokens, schema: Some(schema) }).await.map_err(failed)?;
        record.usage.input_tokens += second.usage.input_tokens;
        record.usage.output_tokens += second.usage.output_tokens;
        let text = structured_text(&second);
        match schema::check(schema, &text) {
            Ok(parsed) => Ok(schema::answer(call_id(), parsed, second.model)),
            Err(problems) => Err(SamplingError::failed(format!(
                "provider `{}` (model {model}) did not produce output matching the __schema__ schema after one repair round: {}",
                config.name,
                problems.join("; ")
            ))),
        }
    }
}

/// The structured answer's text: what the provider put there, else its text blocks.
fn structured_text(completion: &Completion) -> String {
    completion.structured_text.clone().unwrap_or_else(|| completion.content.iter().filter_map(Block::as_text).collect::<Vec<_>>().join(""))
}

fn plain_result(completion: Completion) -> SamplingResult {
    SamplingResult { model: completion.model, stop_reason: Some(completion.stop_reason), role: Role::Assistant, content: completion.content }
}

/// A fresh tool-use id for a structured answer.
fn call_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("call_{nanos:08x}{:04x}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// `request` with `maxTokens` at most `cap` (a note says so when it was cut).
fn capped(request: &SamplingRequest, cap: u32, notes: &mut Vec<String>) -> SamplingRequest {
    let mut sent = request.clone();
    if sent.max_tokens > cap {
        notes.push(format!("maxTokens {} capped to {cap} by policy", sent.max_tokens));
        sent.max_tokens = cap;
    }
    sent
}

/// Tool blocks where MCP allows them; a tool choice only with tools; something to answer.
fn check_shape(request: &SamplingRequest) -> Result<(), String> {
    if request.messages.is_empty() {
        return Err("it has no messages".to_owned());
    }
    if request.max_tokens == 0 {
        return Err("maxTokens is 0".to_owned());
    }
    for (i, message) in request.messages.iter().enumerate() {
        for block in &message.content {
            match (block, message.role) {
                (Block::ToolUse { .. }, Role::User) => return Err(format!("message {i} is a user message with a tool_use block (only assistant messages call tools)")),
                (Block::ToolResult { .. }, Role::Assistant) => return Err(format!("message {i} is an assistant message with a tool_result block (tool results are user messages)")),
                _ => {}
            }
        }
    }
    if request.choice() == crate::message::ToolChoiceMode::Required && request.tools.is_empty() {
        return Err("toolChoice is required but no tools are offered".to_owned());
    }
    Ok(())
}

/// The stop reason of a completion with tool calls.
pub fn stop_reason_for(content: &[Block], otherwise: StopReason) -> StopReason {
    if content.iter().any(|b| matches!(b, Block::ToolUse { .. })) { StopReason::ToolUse } else { otherwise }
}
