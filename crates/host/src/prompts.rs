//! MCP prompts: a server's prompt templates (`prompts/list`, every page) and filling one in
//! (`prompts/get`). Prompts are text for the model that the user picks; nothing is stored.

use rmcp::model::{GetPromptRequestParams, GetPromptResult, PaginatedRequestParams, Prompt};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::{error::HostError, host::Host};

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
            Ok(Err(e)) => Err(HostError::from(connection.request_error(&what, e.to_string()))),
            Err(_) => Err(HostError::Timeout { server: server.to_owned(), tool: format!("prompts/get {name}"), seconds: self.call_timeout.as_secs() }),
        }
    }
}
