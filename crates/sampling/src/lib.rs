//! Sampling as a smart client (seed 001): servers' `sampling/createMessage` requests answered
//! with the user's own model.
//!
//! - [`message`]: the MCP request and result, as they travel and as the window shows them.
//! - [`provider`]: the models behind one trait (OpenAI-compatible, Anthropic, Ollama).
//! - [`schema`]: `__schema__` structured output, checked against its schema, one repair round.
//! - [`exchange`]: the [`SampleExchange`] kept in the transcript.
//! - [`fit`]: whether a request fits its provider (images, tools), and notes on what it changes.
//! - [`settings`]: providers and per-server policy from settings.toml.
//! - [`keys`]: API keys from the OS keyring or an environment variable, never printed.
//! - [`record`]: the [`record::ExchangeRecord`] every request ends in, and the [`record::Transcript`].
//! - [`sampler`]: one request from arrival to answer: limits, policy, the user's approval,
//!   the provider, the review, the transcript.
//!
//! Nothing here knows rmcp or a window: the client crate hands requests in as JSON, a front end
//! answers through [`sampler::Approver`], the host keeps the transcript through
//! [`sampler::Transcript`].
#![deny(missing_docs)]

pub mod exchange;
pub mod fit;
pub mod keys;
pub mod message;
pub mod provider;
pub mod record;
pub mod sampler;
pub mod schema;
pub mod settings;

pub use exchange::SampleExchange;
pub use message::{Block, Message, Role, SamplingRequest, SamplingResult, StopReason};
pub use provider::{Provider, ProviderConfig, ProviderError, ProviderKind};
pub use sampler::{Approver, Sampler, SamplingError, SamplingService, Transcript};
pub use settings::{PolicyMode, SamplingSettings, ServerPolicy};
