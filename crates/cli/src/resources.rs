//! `mcp-canvas-cli resources SERVER [--json]` and `mcp-canvas-cli read SERVER URI [--json]
//! [--watch]`.
//!
//! `resources` lists a server's resources and resource templates (every page). `read` reads one
//! resource, stores its contents (text or blob) as artifacts exactly as `call` stores a tool's
//! binaries, and prints the model-safe summary (or, with `--json`, the whole outcome: `read_id`,
//! `server`, `uri`, summary, artifacts, warnings). Exit codes as for `call`: 0 read, 1 not read.

use std::process::ExitCode;

use mcp_canvas_wire::{offers::{resource_links, ResourceList}, CallOutcome};
use mcp_canvas_host::Host;

use crate::fail;

/// `resources SERVER [--json]`.
pub async fn list(host: &Host, server: &str, json: bool) -> ExitCode {
    let list = match host.resources(server).await {
        Ok(list) => list,
        Err(e) => return fail(json, &e.to_string()),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&list).expect("resource list serializes"));
    } else {
        print_list(&list);
    }
    ExitCode::SUCCESS
}

fn print_list(list: &ResourceList) {
    if !list.supported {
        outln!("server `{}` does not offer resources", list.server);
        return;
    }
    outln!("{} resource(s):", list.resources.len());
    for resource in &list.resources {
        let mime = resource.mime.as_deref().unwrap_or("-");
        let size = resource.size.map(|s| format!("\t{s} bytes")).unwrap_or_default();
        outln!("  {}\t{mime}{size}", resource.uri);
        if let Some(about) = about(resource.title.as_deref(), resource.description.as_deref()) {
            outln!("      {about}");
        }
    }
    outln!("{} template(s):", list.templates.len());
    for template in &list.templates {
        outln!("  {}\t{}", template.uri_template, template.mime.as_deref().unwrap_or("-"));
        if let Some(about) = about(template.title.as_deref(), template.description.as_deref()) {
            outln!("      {about}");
        }
    }
    if !list.resources.is_empty() || !list.templates.is_empty() {
        outln!("read one with: mcp-canvas-cli read {} URI", list.server);
    }
}

fn about(title: Option<&str>, description: Option<&str>) -> Option<String> {
    match (title, description) {
        (Some(t), Some(d)) => Some(format!("{t} — {d}")),
        (Some(one), None) | (None, Some(one)) => Some(one.to_owned()),
        (None, None) => None,
    }
}

/// `read SERVER URI [--json]`.
pub async fn read(host: &Host, server: &str, uri: &str, json: bool) -> ExitCode {
    match host.read_resource(server, uri).await {
        Err(e) => fail(json, &e.to_string()),
        Ok(read) => {
            if json {
                outln!("{}", serde_json::to_string_pretty(&read).expect("read outcome serializes"));
            } else {
                outln!("{}", read.outcome.summary);
                for warning in &read.outcome.warnings {
                    eprintln!("warning: {warning}");
                }
            }
            ExitCode::SUCCESS
        }
    }
}

/// `read SERVER URI --watch [--changes N] [--json]`: the first read, then one more each time the
/// server says the resource changed (each stored; unchanged contents are the same artifact).
pub async fn watch(host: &Host, server: &str, uri: &str, json: bool, changes: Option<u32>) -> ExitCode {
    // Watch first, then read: a change between the two is not missed.
    let mut watch = match host.watch_resource(server, uri).await {
        Ok(watch) => watch,
        Err(e) => return fail(json, &e.to_string()),
    };
    let show = |read: &mcp_canvas_wire::offers::ResourceRead| {
        if json {
            outln!("{}", serde_json::to_string(read).expect("read outcome serializes"));
        } else {
            outln!("{}", read.outcome.summary);
        }
    };
    match host.read_resource(server, uri).await {
        Ok(read) => show(&read),
        Err(e) => return fail(json, &e.to_string()),
    }
    if !json {
        eprintln!("watching {uri} on {server}; Ctrl-C stops");
    }
    let mut seen = 0u32;
    // One Ctrl-C future for the whole watch, so one pressed during a read is not lost.
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    while changes.is_none_or(|n| seen < n) {
        tokio::select! {
            changed = watch.changed() => {
                if changed.is_none() {
                    return fail(json, &format!("server `{server}` stopped the watch of `{uri}` (the connection ended)"));
                }
            }
            _ = &mut ctrl_c => return ExitCode::SUCCESS,
        }
        seen += 1;
        tokio::select! {
            read = host.read_resource(server, uri) => match read {
                Ok(read) => show(&read),
                Err(e) => eprintln!("warning: {uri} changed but reading it failed: {e}"),
            },
            _ = &mut ctrl_c => return ExitCode::SUCCESS,
        }
    }
    ExitCode::SUCCESS
}

/// After a call's summary: the `resource_link`s it returned can be read (stderr, so stdout stays
/// the summary).
pub fn offer_links(outcome: &CallOutcome) {
    let links = resource_links(&outcome.outcome);
    if let Some(first) = links.first() {
        eprintln!("{} resource link(s); read one with: mcp-canvas-cli read {} '{}'", links.len(), outcome.server, first.uri);
    }
}
