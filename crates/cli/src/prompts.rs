//! `mcp-canvas-cli prompts SERVER [--json]` and `mcp-canvas-cli prompt SERVER NAME [--args JSON] [--json]`.
//!
//! `prompts` lists a server's prompt templates (every page) with their arguments; `prompt` fills
//! one in and prints its messages (text as is, other content as a one-line description). Exit
//! codes: 0 done, 1 not.

use std::process::ExitCode;

use mcp_canvas_host::Host;
use mcp_canvas_wire::offers::PromptView;

use crate::fail;

/// `prompts SERVER [--json]`.
pub async fn list(host: &Host, server: &str, json: bool) -> ExitCode {
    let prompts = match host.prompts(server).await {
        Ok(prompts) => prompts,
        Err(e) => return fail(json, &e.to_string()),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&prompts).expect("prompts serialize"));
        return ExitCode::SUCCESS;
    }
    outln!("{} prompt(s):", prompts.len());
    for prompt in &prompts {
        print_prompt(prompt);
    }
    if !prompts.is_empty() {
        outln!("fill one in with: mcp-canvas-cli prompt {server} NAME --args '{{\"arg\": \"value\"}}'");
    }
    ExitCode::SUCCESS
}

fn print_prompt(prompt: &PromptView) {
    let title = prompt.title.as_deref().map(|t| format!(" — {t}")).unwrap_or_default();
    outln!("  {}{title}", prompt.name);
    if let Some(description) = &prompt.description {
        outln!("      {description}");
    }
    for argument in &prompt.arguments {
        let required = if argument.required { " (required)" } else { "" };
        let about = argument.description.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
        outln!("      - {}{required}{about}", argument.name);
    }
}

/// `prompt SERVER NAME [--args JSON] [--json]`.
pub async fn get(host: &Host, server: &str, name: &str, args: &str, json: bool) -> ExitCode {
    let arguments = match Host::parse_arguments(server, name, args) {
        Ok(serde_json::Value::Object(arguments)) => arguments,
        Ok(_) => unreachable!("parse_arguments only accepts objects"),
        Err(e) => return fail(json, &e.to_string()),
    };
    let result = match host.get_prompt(server, name, arguments).await {
        Ok(result) => result,
        Err(e) => return fail(json, &e.to_string()),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&result).expect("prompt result serializes"));
        return ExitCode::SUCCESS;
    }
    if let Some(description) = &result.description {
        outln!("{description}");
    }
    for message in serde_json::to_value(&result.messages).expect("messages serialize").as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("?");
        let content = &message["content"];
        let text = match content["type"].as_str() {
            Some("text") => content["text"].as_str().unwrap_or_default().to_owned(),
            Some("resource_link") => format!("[resource link {}]", content["uri"].as_str().unwrap_or_default()),
            Some("resource") => format!("[embedded resource {}]", content.pointer("/resource/uri").and_then(|u| u.as_str()).unwrap_or_default()),
            Some(other) => format!("[{other}, {}]", content["mimeType"].as_str().unwrap_or("?")),
            None => "[content]".to_owned(),
        };
        outln!("[{role}] {text}");
    }
    ExitCode::SUCCESS
}
