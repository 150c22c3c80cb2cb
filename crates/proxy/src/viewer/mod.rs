//! The proxy's own MCP App view (`ui://mcp-canvas/files`): what the canvas would show of a
//! call's files, inside any AI host that renders MCP Apps, while the model still gets only the
//! summary.
//!
//! - [`Viewer::decorate_tool`] gives every forwarded tool without a view of its own
//!   `_meta.ui.resourceUri` = [`VIEW_URI`] (only for AI hosts that declare the UI extension, and
//!   unless the policy turns it off for the server or tool).
//! - [`Viewer::attach`] gives a call's upstream result a per-call capability in
//!   `_meta["io.github.mcp-canvas/view"]` — an unguessable token and the files in the canvas's
//!   opening order (the primary file first). The result's `content` is not touched.
//! - The view reads what it shows only through the app-only tools of [`tools`] (`visibility:
//!   ["app"]`, which hosts never offer the model), each taking that token: a page of a PDF
//!   rendered by our pdfium at the view's width, sanitized HTML, a window of a table's rows,
//!   bounded text, an image. A token opens only the artifacts of its call.
//!
//! The view itself (`ui/src/view/`, built by Vite into `ui/dist-view/`) is embedded at build
//! time and served by `resources/read` with the spec's MIME type and no network access.

mod files;
mod rows;
pub mod tools;

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
};

use mcp_canvas_wire::CallOutcome;
use rmcp::model::Tool;
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

/// The view's resource.
pub const VIEW_URI: &str = "ui://mcp-canvas/files";
/// The MIME type of an MCP App view, and the extension an AI host declares when it renders views
/// (the host crate's, which our own client advertises).
use mcp_canvas_client::handler::{APPS_EXTENSION as UI_EXTENSION, APPS_MIME as VIEW_MIME};
/// Where in a result's `_meta` the view finds its capability and files.
pub const META_KEY: &str = "io.github.mcp-canvas/view";
/// How many calls' capabilities are kept (the oldest are forgotten; their views say so).
const KEPT_CALLS: usize = 4096;

/// The view's HTML: the script and style Vite built, in one document.
fn view_html() -> String {
    const SCRIPT: &str = include_str!(concat!(env!("OUT_DIR"), "/view.js"));
    const STYLE: &str = include_str!(concat!(env!("OUT_DIR"), "/view.css"));
    // `</script` inside the script would end the element: written `<\/script`, which JavaScript
    // reads the same in strings, templates and regular expressions.
    let script = SCRIPT.replace("</script", "<\\/script");
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>MCP Canvas</title><style>{STYLE}</style></head><body><div id=\"root\"></div><script type=\"module\">{script}</script></body></html>\n"
    )
}

/// One file of a call, as the view lists it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ViewFile {
    /// The artifact id.
    pub id: String,
    /// File name.
    pub name: String,
    /// MIME type (checked against the bytes).
    pub mime: String,
    /// Size in bytes.
    pub size: u64,
    /// How the canvas shows it (never [`Viewer::File`](mcp_canvas_contract::Viewer::File)).
    pub viewer: mcp_canvas_contract::Viewer,
    /// The server's label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// PDF page count, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
    /// Image size, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Image size, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(skip)]
    pub(crate) sha256: String,
}

/// What a capability opens: one call's files.
#[derive(Debug)]
pub struct CallFiles {
    /// The call (for "Open in MCP Canvas" and the audit).
    pub call: CallOutcome,
    /// Its files, the primary one first.
    pub files: Vec<ViewFile>,
}

impl CallFiles {
    /// The file `id` of this call.
    pub fn file(&self, id: &str) -> Option<&ViewFile> {
        self.files.iter().find(|f| f.id == id)
    }
}

#[derive(Default)]
struct Capabilities {
    /// By the SHA-256 of the token: a lookup's timing says nothing about a token.
    by_digest: HashMap<[u8; 32], Arc<CallFiles>>,
    order: VecDeque<[u8; 32]>,
}

/// The view's state in one proxy: the capabilities handed out, the tables being read.
pub struct Viewer {
    capabilities: Mutex<Capabilities>,
    rows: rows::RowCache,
    jobs: Arc<tokio::sync::Semaphore>,
    html: String,
}

/// How many view readings (a PDF page, a table window, a file) run at once.
pub const VIEW_JOBS: usize = 2;

impl Default for Viewer {
    fn default() -> Self {
        Self { capabilities: Mutex::default(), rows: rows::RowCache::default(), jobs: Arc::new(tokio::sync::Semaphore::new(VIEW_JOBS)), html: view_html() }
    }
}

impl Viewer {
    /// The view document.
    pub fn html(&self) -> &str {
        &self.html
    }

    /// Whether an AI host whose `initialize` declared `capabilities` renders our view: it
    /// declares the UI extension, with our MIME type when it lists any.
    pub fn host_renders_views(capabilities: &rmcp::model::ClientCapabilities) -> bool {
        let Some(extensions) = capabilities.extensions.as_ref() else { return false };
        let Some(ui) = extensions.get(UI_EXTENSION) else { return false };
        match ui.get("mimeTypes").and_then(Value::as_array) {
            Some(types) => types.iter().any(|t| t.as_str() == Some(VIEW_MIME)),
            None => true,
        }
    }

    /// Gives `tool` our view when it has none of its own (its own `_meta.ui` is kept unchanged);
    /// whether it did.
    pub fn decorate_tool(tool: &mut Tool) -> bool {
        if has_own_view(tool) {
            return false;
        }
        let meta = tool.meta.get_or_insert_with(Default::default);
        match meta.get_mut("ui").and_then(Value::as_object_mut) {
            // A visibility of its own stays.
            Some(ui) => {
                ui.insert("resourceUri".to_owned(), Value::String(VIEW_URI.to_owned()));
            }
            None => {
                meta.insert("ui".to_owned(), json!({ "resourceUri": VIEW_URI }));
            }
        }
        true
    }

    /// Adds the view's capability and the call's files to `result["_meta"]`, when the call has
    /// files the canvas would open. A result without any gets nothing: its view shows nothing.
    pub fn attach(&self, result: &mut Value, call: &CallOutcome) {
        let files: Vec<ViewFile> = mcp_canvas_canvas::opening_order(&call.outcome)
            .into_iter()
            .filter(|(_, viewer)| *viewer != mcp_canvas_contract::Viewer::File)
            .map(|(artifact, viewer)| {
                ViewFile {
                    id: artifact.id.clone(),
                    name: artifact.name.clone(),
                    mime: artifact.mime.clone(),
                    size: artifact.size,
                    viewer,
                    description: artifact.description.clone(),
                    pages: artifact.pages,
                    width: artifact.width,
                    height: artifact.height,
                    sha256: artifact.sha256.clone(),
                }
            })
            .collect();
        if files.is_empty() {
            return;
        }
        let token = fresh_token();
        let listed = serde_json::to_value(&files).expect("files serialize");
        // What `open` needs of the call, not its texts and structured results (kept for 4096 calls).
        let mut lean = call.clone();
        lean.outcome.results = None;
        lean.outcome.texts.clear();
        lean.outcome.meta = None;
        self.remember(&token, CallFiles { call: lean, files });
        let meta = result.as_object_mut().expect("results are objects").entry("_meta").or_insert_with(|| json!({}));
        meta[META_KEY] = json!({ "capability": token, "files": listed, "server": call.server, "tool": call.tool });
    }

    fn remember(&self, token: &str, files: CallFiles) {
        let digest = digest(token);
        let mut capabilities = self.capabilities.lock().unwrap();
        capabilities.by_digest.insert(digest, Arc::new(files));
        capabilities.order.push_back(digest);
        while capabilities.order.len() > KEPT_CALLS {
            if let Some(oldest) = capabilities.order.pop_front() {
                capabilities.by_digest.remove(&oldest);
            }
        }
    }

    /// The call a capability opens.
    pub fn call(&self, token: &str) -> Option<Arc<CallFiles>> {
        self.capabilities.lock().unwrap().by_digest.get(&digest(token)).cloned()
    }
}

/// Whether `tool` declares a view of its own (`mcp_canvas_host`'s reading of `_meta.ui`).
pub fn has_own_view(tool: &Tool) -> bool {
    mcp_canvas_wire::apps::ToolUi::of(tool).and_then(|ui| ui.resource_uri).is_some()
}

/// The view in `resources/list`.
pub fn resource_listing() -> Value {
    json!({
        "uri": VIEW_URI,
        "name": "mcp-canvas-files",
        "title": "MCP Canvas: the files of a result",
        "mimeType": VIEW_MIME,
        "_meta": view_meta(),
    })
}

/// The view in `resources/read`: the document, loading nothing from the network (no `csp`
/// domains: the spec's default policy).
pub fn resource_contents(viewer: &Viewer) -> Value {
    json!({ "contents": [{ "uri": VIEW_URI, "mimeType": VIEW_MIME, "text": viewer.html(), "_meta": view_meta() }] })
}

fn view_meta() -> Value {
    json!({ "ui": { "csp": { "connectDomains": [], "resourceDomains": [] }, "prefersBorder": false } })
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// 32 random bytes, hex.
fn fresh_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random number generator is available");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
