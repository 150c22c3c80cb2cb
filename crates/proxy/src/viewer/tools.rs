//! The view's app-only tools (`_meta.ui.visibility: ["app"]`: hosts offer them to views, never to
//! the model). Each takes the call's capability and one of its artifact ids; anything else is
//! refused with a message the view shows.

use std::sync::Arc;

use rmcp::model::Tool;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{files, CallFiles, ViewFile, Viewer};

/// The prefix of our tools' names (no `__`: never taken for `<server>__<tool>`).
pub const PREFIX: &str = "mcp-canvas.view.";
/// The largest image or audio file sent to a view whole.
pub const MAX_INLINE_BYTES: u64 = 16 * 1024 * 1024;
/// The most rows one `rows` call returns.
pub const MAX_ROWS: u64 = 500;

/// Whether `name` is one of ours.
pub fn is_ours(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// Our tools' definitions, for `tools/list`.
pub fn definitions() -> Vec<Tool> {
    let base = |extra: Value| {
        let mut properties = json!({
            "capability": { "type": "string", "description": "The call's capability, from the result's _meta" },
            "id": { "type": "string", "description": "An artifact id of that call" }
        });
        if let (Some(p), Some(e)) = (properties.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        json!({ "type": "object", "properties": properties, "required": ["capability", "id"], "additionalProperties": false })
    };
    let tool = |name: &str, description: &str, schema: Value| -> Tool {
        serde_json::from_value(json!({
            "name": format!("{PREFIX}{name}"),
            "description": description,
            "inputSchema": schema,
            "_meta": { "ui": { "visibility": ["app"] } },
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }))
        .expect("our tool definitions are valid")
    };
    vec![
        tool("file", "MCP Canvas view: what a file of the call holds, for its viewer (image or audio bytes, sanitized HTML, bounded text, PDF page count).", base(json!({}))),
        tool(
            "page",
            "MCP Canvas view: one PDF page rendered to PNG at the given width.",
            base(json!({ "page": { "type": "integer", "minimum": 0 }, "width": { "type": "integer", "minimum": 1, "maximum": 4000 } })),
        ),
        tool(
            "rows",
            "MCP Canvas view: a window of a CSV/TSV table's rows.",
            base(json!({ "offset": { "type": "integer", "minimum": 0 }, "limit": { "type": "integer", "minimum": 1, "maximum": MAX_ROWS } })),
        ),
        tool("share", "MCP Canvas view: records that the person showed this part of a file to the model.", base(json!({ "what": { "type": "string", "maxLength": 200 } }))),
        tool("open", "MCP Canvas view: shows the file in the MCP Canvas desktop app running on the same data dir.", base(json!({}))),
    ]
}

#[derive(Deserialize)]
struct Args {
    capability: String,
    id: String,
    #[serde(default)]
    page: u32,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    offset: u64,
    #[serde(default)]
    limit: Option<u64>,
    #[serde(default)]
    what: Option<String>,
}

/// What the proxy lends the tools.
pub struct ToolEnv<'a> {
    /// The view's state.
    pub viewer: &'a Viewer,
    /// The host (store, audit).
    pub host: &'a mcp_canvas_host::Host,
    /// The desktop app, when it runs.
    pub app: &'a mcp_canvas_host::app_link::AppLink,
}

/// Runs our tool `name`: the `CallToolResult` as JSON, an error result when refused.
pub async fn call(env: ToolEnv<'_>, name: &str, arguments: Value) -> Value {
    match run(env, name, arguments).await {
        Ok(result) => result,
        Err(message) => json!({ "content": [{ "type": "text", "text": message }], "isError": true }),
    }
}

async fn run(env: ToolEnv<'_>, name: &str, arguments: Value) -> Result<Value, String> {
    let args: Args = serde_json::from_value(arguments).map_err(|e| format!("MCP Canvas view: bad arguments for {name}: {e}"))?;
    let call = env.viewer.call(&args.capability).ok_or_else(|| {
        "This view's access has ended (the MCP Canvas proxy was restarted, or the call is too old) or was never granted. Call the tool again to see its files.".to_owned()
    })?;
    let file = call.file(&args.id).cloned().ok_or_else(|| format!("`{}` is not a file of this call; a view opens only the files of the call it was shown for.", args.id))?;
    let store = env.host.store().clone();
    let jobs = env.viewer.jobs.clone();
    match name.strip_prefix(PREFIX).unwrap_or_default() {
        "file" => blocking(jobs, move || files::open(&store, &file)).await,
        "page" => {
            let width = args.width.unwrap_or(800);
            blocking(jobs, move || files::pdf_page(&store, &file, args.page, width)).await
        }
        "rows" => {
            let limit = args.limit.unwrap_or(100).clamp(1, MAX_ROWS);
            let cache = env.viewer.rows.clone();
            blocking(jobs, move || cache.window(&store, &file, args.offset, limit)).await
        }
        "share" => {
            let what: String = args.what.unwrap_or_else(|| "the file".to_owned()).chars().take(200).collect();
            audit(env.host, &call, &file, "show-to-model", &what);
            Ok(json!({ "content": [{ "type": "text", "text": format!("Recorded: {what} of {} shown to the model.", file.name) }] }))
        }
        "open" => open_in_app(env, &call, &file).await,
        other => Err(format!("MCP Canvas view: no tool `{PREFIX}{other}`")),
    }
}

/// Runs a view's reading on a blocking thread, at most [`super::VIEW_JOBS`] at a time: a view that
/// asks for page after page queues, instead of holding a file's bytes per request.
async fn blocking<F>(jobs: Arc<tokio::sync::Semaphore>, work: F) -> Result<Value, String>
where
    F: FnOnce() -> Result<Value, String> + Send + 'static,
{
    let _permit = jobs.acquire_owned().await.map_err(|e| format!("MCP Canvas view: {e}"))?;
    tokio::task::spawn_blocking(work).await.map_err(|e| format!("MCP Canvas view: reading the file failed: {e}"))?
}

fn audit(host: &mcp_canvas_host::Host, call: &CallFiles, file: &ViewFile, action: &str, what: &str) {
    host.audit_app(
        &call.call.server,
        "mcp-canvas-view",
        action,
        json!({ "tool": call.call.tool, "call_id": call.call.call_id, "artifact": file.id, "what": what }),
        "ok",
        None,
    );
}

async fn open_in_app(env: ToolEnv<'_>, call: &Arc<CallFiles>, file: &ViewFile) -> Result<Value, String> {
    let mut focused = call.call.clone();
    focused.outcome.display.primary = Some(file.id.clone());
    focused.outcome.display.open_canvas = true;
    let shown = tokio::time::timeout(std::time::Duration::from_secs(2), env.app.show(&focused, None)).await.unwrap_or(false);
    if !shown {
        return Err("MCP Canvas is not running on this data dir: start it (mcp-canvas) and try again.".to_owned());
    }
    audit(env.host, call, file, "open-in-app", &file.name);
    Ok(json!({ "content": [{ "type": "text", "text": format!("Opened {} in MCP Canvas.", file.name) }] }))
}
