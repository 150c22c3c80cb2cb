//! Argument completion (`completion/complete`): suggestions for a resource template's variable or
//! a prompt's argument while the user types. Asked on every keystroke, so it is bounded hard: a
//! short timeout (a hanging server gives no suggestions, not a stuck form), at most
//! [`MAX_SUGGESTIONS`] values of at most [`MAX_SUGGESTION_CHARS`] characters each.

use std::{collections::HashMap, time::Duration};

use rmcp::model::{ArgumentInfo, CompleteRequestParams, CompletionContext, Reference};

use crate::{error::HostError, host::Host};

use mcp_canvas_wire::offers::{CompletionTarget, Suggestions};

/// How long one completion may take before the form goes on without it.
pub const COMPLETION_TIMEOUT: Duration = Duration::from_secs(3);
/// At most this many suggestions are kept (MCP allows 100 per response).
pub const MAX_SUGGESTIONS: usize = 100;
/// A longer suggestion is dropped, not cut (a cut value would be wrong to pick).
pub const MAX_SUGGESTION_CHARS: usize = 1000;

impl Host {
    /// Suggestions for `argument` (typed so far: `value`) of `target` on `server`; `context` holds
    /// the other arguments already filled in. A server without the `completions` capability, a
    /// slow one and a failing one all give no suggestions with a `note` saying why; only an
    /// unknown or unreachable server is an error.
    pub async fn complete(&self, server: &str, target: &CompletionTarget, argument: &str, value: &str, context: HashMap<String, String>) -> Result<Suggestions, HostError> {
        let connection = self.connection(server).await?;
        let supported = connection.peer.peer_info().is_some_and(|info| info.capabilities.completions.is_some());
        if !supported {
            return Ok(Suggestions::with_note(format!("server `{server}` does not offer completions")));
        }
        let reference = match target {
            CompletionTarget::ResourceTemplate { uri_template } => Reference::for_resource(uri_template.clone()),
            CompletionTarget::Prompt { name } => Reference::for_prompt(name.clone()),
        };
        let mut request = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if !context.is_empty() {
            request = request.with_context(CompletionContext::with_arguments(context));
        }
        Ok(match tokio::time::timeout(COMPLETION_TIMEOUT, connection.peer.complete(request)).await {
            Err(_) => Suggestions::with_note(format!("server `{server}` did not suggest anything within {} s", COMPLETION_TIMEOUT.as_secs())),
            Ok(Err(e)) => Suggestions::with_note(format!("server `{server}` could not complete `{argument}`: {e}")),
            Ok(Ok(result)) => bounded(result.completion.values, result.completion.total, result.completion.has_more.unwrap_or(false)),
        })
    }
}

fn bounded(values: Vec<String>, total: Option<u32>, has_more: bool) -> Suggestions {
    let count = values.len();
    let mut kept: Vec<String> = values.into_iter().filter(|v| v.chars().count() <= MAX_SUGGESTION_CHARS).collect();
    let dropped_long = count - kept.len();
    let cut = kept.len() > MAX_SUGGESTIONS;
    kept.truncate(MAX_SUGGESTIONS);
    let note = (dropped_long > 0).then(|| format!("{dropped_long} suggestion(s) longer than {MAX_SUGGESTION_CHARS} characters left out"));
    Suggestions { values: kept, total, has_more: has_more || cut, note }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_bounded_in_count_and_length() {
        let many: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let s = bounded(many, Some(150), false);
        assert_eq!(s.values.len(), MAX_SUGGESTIONS);
        assert!(s.has_more, "a cut list says there is more");
        assert_eq!(s.note, None);

        let s = bounded(vec!["a".into(), "x".repeat(MAX_SUGGESTION_CHARS + 1), "b".into()], None, false);
        assert_eq!(s.values, vec!["a", "b"]);
        assert!(!s.has_more);
        assert!(s.note.unwrap().contains("1 suggestion(s) longer than 1000"));
    }
}
