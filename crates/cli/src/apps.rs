//! `mcp-canvas-cli apps SERVER [--json]`: the server's tools that declare an MCP App view, each
//! view read and checked as the app would load it (MIME type, size, the CSP that will apply).
//! Exit 1 when a view cannot be shown, naming the tool and why.

use std::process::ExitCode;

use mcp_canvas_wire::apps::Visibility;
use mcp_canvas_host::Host;
use serde_json::json;

use crate::fail;

/// One tool with a view, as checked.
struct AppCheck {
    tool: String,
    resource_uri: String,
    visibility: Vec<Visibility>,
    /// The view's size in bytes, when it could be read.
    bytes: Option<usize>,
    /// The Content-Security-Policy it will be served with.
    csp: Option<String>,
    /// The frame's `allow` attribute from its permissions.
    allow: Option<String>,
    /// Why it cannot be shown.
    problem: Option<String>,
}

pub async fn run(host: &Host, server: &str, json: bool) -> ExitCode {
    let tools = match host.tool_uis(server).await {
        Ok(tools) => tools,
        Err(e) => return fail(json, &e.to_string()),
    };
    let mut checks = Vec::new();
    for (tool, ui) in tools {
        let Some(uri) = ui.resource_uri.clone() else { continue };
        let check = match host.app_view(server, &uri).await {
            Ok(view) => AppCheck { tool, resource_uri: uri, visibility: ui.visibility, bytes: Some(view.html.len()), csp: Some(view.csp.header()), allow: Some(view.allow_attribute()), problem: None },
            Err(e) => AppCheck { tool, resource_uri: uri, visibility: ui.visibility, bytes: None, csp: None, allow: None, problem: Some(e.to_string()) },
        };
        checks.push(check);
    }
    let broken = checks.iter().filter(|c| c.problem.is_some()).count();
    if json {
        let listed: Vec<_> = checks
            .iter()
            .map(|c| json!({ "tool": c.tool, "resource_uri": c.resource_uri, "visibility": c.visibility, "bytes": c.bytes, "csp": c.csp, "allow": c.allow, "problem": c.problem }))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&listed).expect("checks serialize"));
    } else if checks.is_empty() {
        outln!("`{server}` has no tools with an MCP App view");
    } else {
        for check in &checks {
            match (&check.problem, check.bytes, &check.csp) {
                (Some(problem), _, _) => outln!("{}\t{}\tBROKEN: {problem}", check.tool, check.resource_uri),
                (None, Some(bytes), Some(csp)) => outln!("{}\t{}\t{bytes} bytes\tCSP: {csp}", check.tool, check.resource_uri),
                _ => {}
            }
        }
    }
    if broken > 0 {
        eprintln!("error: {broken} of {} App views of `{server}` cannot be shown", checks.len());
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
