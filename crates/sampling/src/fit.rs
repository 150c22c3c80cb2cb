//! Whether a request fits the provider chosen for it, decided before the user is asked (the user
//! never approves what is then refused): images go only to a vision-capable provider, tools only
//! to one that calls tools. What a provider takes differently from what the server asked becomes
//! a note the user reads in the approval dialog.

use crate::{
    message::{Block, SamplingRequest, ToolChoiceMode},
    provider::{ProviderConfig, ProviderKind, StructuredMode},
    sampler::SamplingError,
    schema,
};

/// Whether `request` is `__schema__` structured output through `config`'s own structured mode.
pub fn structured(config: &ProviderConfig, request: &SamplingRequest) -> bool {
    config.structured != StructuredMode::None && schema::structured_schema(request).is_some()
}

/// `Ok` when `config` can take `server`'s `request`, else the refusal naming the provider and
/// what to change.
pub fn check(server: &str, config: &ProviderConfig, request: &SamplingRequest) -> Result<(), SamplingError> {
    let name = &config.name;
    if request.has_images() && !config.vision {
        return Err(SamplingError::rejected(format!(
            "the request of `{server}` carries images, and provider `{name}` is not configured as vision-capable (set vision = true for it if its models read images, or have a vision-capable provider answer `{server}`)"
        )));
    }
    if !request.tools.is_empty() && request.choice() != ToolChoiceMode::None && !config.tools && !structured(config, request) {
        return Err(SamplingError::rejected(format!(
            "the request of `{server}` offers the model tools, and provider `{name}` is configured without tool calling (set tools = true for it if its models call tools, or have a tool-capable provider answer `{server}`)"
        )));
    }
    Ok(())
}

/// What `config` will do differently with `request` than the server asked.
pub fn notes(config: &ProviderConfig, request: &SamplingRequest) -> Vec<String> {
    let mut notes = Vec::new();
    let name = &config.name;
    let text_only_results = matches!(config.kind, ProviderKind::Openai | ProviderKind::Ollama);
    if text_only_results && request.messages.iter().flat_map(|m| &m.content).any(Block::result_has_images) {
        notes.push(format!("provider `{name}` takes only text in tool results: the images inside tool results are not sent to the model"));
    }
    let offers_tools = !request.tools.is_empty() && !structured(config, request);
    if config.kind == ProviderKind::Ollama && offers_tools && request.choice() == ToolChoiceMode::Required {
        notes.push(format!(
            "provider `{name}` (Ollama) cannot force a tool call: toolChoice `required` is sent as an instruction in the system prompt, and the model may still answer without calling a tool"
        ));
    }
    notes
}
