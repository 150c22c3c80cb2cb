//! Types that cross to the UI and out of `mcp-canvas-cli --json`, and the typed error every app
//! command returns ([`CommandError`]). TypeScript declarations are generated from these (ts-rs)
//! into `ui/src/wire/`; `scripts/check-wire-types.sh` fails on drift. Light on purpose: types
//! and what follows from them alone — no store, connection, team or provider beneath it; the
//! kind of a lower crate's error is decided by the host (`mcp_canvas_host::error`), and the
//! window's own events by the app (`mcp_canvas_app::window`).
#![deny(missing_docs)]

pub mod apps;
mod error;
pub mod offers;

pub use error::{CommandError, ErrorKind};
pub use apps::{ToolUi, Visibility};

use mcp_canvas_contract::ToolOutcome;

use mcp_canvas_elicitation::FormField;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// A configured server as the UI lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ServerView {
    /// The name it is configured under.
    pub name: String,
    /// `stdio` or `http`, or `invalid` when the entry cannot be used.
    pub transport: String,
    /// The command line or URL.
    pub target: String,
    /// Why the entry cannot be used, when it cannot.
    pub problem: Option<String>,
    /// Its own limit for one tool call (`timeout_seconds`), when it has one.
    pub timeout_seconds: Option<f64>,
    /// Where it stands with signing in (HTTP servers only).
    pub sign_in: Option<SignInView>,
}

/// An HTTP server's sign-in state (OAuth), as the UI and `mcp-canvas-cli servers` show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SignInView {
    /// Tokens are stored for it.
    pub signed_in: bool,
    /// Its last answer asked for a sign-in.
    pub needed: bool,
    /// ... for more permission than was granted (403 `insufficient_scope`).
    pub more_scope: bool,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// Where the tokens are kept, in words.
    pub storage: String,
    /// Whether that is the OS keyring (else a 0600 file in the data dir).
    pub in_keyring: bool,
    /// Why the stored sign-in cannot be read, when it cannot.
    pub problem: Option<String>,
    /// How its tokens are got when no one signs in for them (`oauth.grant`: "client
    /// credentials", "workload identity (JWT bearer)", "enterprise-managed authorization"),
    /// with ", DPoP-bound" when its tokens are; `None` for a browser sign-in without DPoP.
    pub method: Option<String>,
}

/// A tool as the UI lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolView {
    /// Its name on the server.
    pub name: String,
    /// Human title, when it has one.
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
    /// `readOnlyHint` annotation.
    pub read_only: Option<bool>,
    /// `destructiveHint` annotation.
    pub destructive: Option<bool>,
    /// The MCP App view it declares and who may call it (`_meta.ui`), when it declares one.
    pub ui: Option<ToolUi>,
    /// The arguments it declares as files (SEP-2356 `x-mcp-file`, `openai/fileParams`): the
    /// window shows each as a file field whose value is a stored file's reference.
    pub file_arguments: Vec<FileArgument>,
}

/// One argument a tool declares as a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct FileArgument {
    /// The argument's name.
    pub name: String,
    /// A list of files.
    pub multiple: bool,
    /// Accepted types: `type/subtype`, `type/*`, `.ext` (empty: any).
    pub accept: Vec<String>,
    /// The largest file it takes, in bytes.
    #[ts(type = "number | null")]
    pub max_size: Option<u64>,
}

/// The result of one tool call: which call it was, and the normalized outcome (summary,
/// artifacts, display intent, needs_input, error, warnings, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CallOutcome {
    /// Id of this call.
    pub call_id: String,
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// What the call returned, normalized.
    #[serde(flatten)]
    #[ts(flatten)]
    pub outcome: ToolOutcome,
}

/// A server's question to the user, as the desktop window shows it (the `elicitation-request`
/// event). The window answers with an [`ElicitationAnswer`] for the same `id`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "mode", rename_all = "snake_case")]
#[ts(export)]
pub enum ElicitationPrompt {
    /// Fill in a form.
    Form {
        /// Which question this is (echoed in the answer).
        id: String,
        /// The server asking.
        server: String,
        /// What the server says the form is for.
        message: String,
        /// The fields, required ones first.
        fields: Vec<FormField>,
        /// 1 the first time; more when an earlier answer did not match the schema.
        attempt: u32,
        /// Why the previous answer was refused (empty on the first attempt).
        problems: Vec<String>,
        /// The server's `requestedSchema` as sent (a window may draw its form from it; `fields`
        /// is the same schema read for simple front ends).
        #[ts(type = "Record<string, unknown>")]
        requested_schema: serde_json::Map<String, Value>,
    },
    /// Open a web page. Nothing is opened unless the user accepts.
    Url {
        /// Which question this is (echoed in the answer).
        id: String,
        /// The server asking.
        server: String,
        /// What the server says the page is for.
        message: String,
        /// The full URL (show all of it).
        url: String,
        /// Its host (show it prominently).
        domain: String,
        /// Things about the URL the user should know before agreeing.
        warnings: Vec<String>,
    },
}

/// What the user chose in an elicitation dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ElicitationChoice {
    /// Send the form (or open the page).
    Accept,
    /// Say no.
    Decline,
    /// Dismiss without choosing.
    Cancel,
}

/// The window's answer to an [`ElicitationPrompt`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ElicitationAnswer {
    /// What the user chose.
    pub action: ElicitationChoice,
    /// The form's values, for an accepted form.
    #[serde(default)]
    #[ts(optional, type = "Record<string, unknown>")]
    pub content: Option<serde_json::Map<String, Value>>,
}

/// Another process (the proxy) asks, through the app link, whether a tool that may change or
/// delete data may run, as the desktop window shows it (the `confirm-request` event). The window
/// answers with the app's `answer_confirmation` command for the same `id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ConfirmPrompt {
    /// Which question this is (echoed in the answer).
    pub id: String,
    /// The server whose tool would run.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The exact arguments it would get.
    #[ts(type = "Record<string, unknown>")]
    pub arguments: serde_json::Map<String, Value>,
    /// Who is asking (`the MCP Canvas proxy`).
    pub on_behalf_of: String,
}

/// Progress a server reported for a running call, as the window shows it (the app's
/// `call-progress` event). `call_token` is the token the window chose for the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CallProgressEvent {
    /// The window's token for the call.
    pub call_token: String,
    /// How far it is; grows with each report.
    pub progress: f64,
    /// Where it ends, when the server knows.
    pub total: Option<f64>,
    /// What it is doing.
    pub message: Option<String>,
}

/// A sign-in started: the authorization page was handed to the browser. The window shows that the
/// sign-in waits for the browser, with the URL for a user whose browser did not open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct SignInStartedEvent {
    /// The server's configured name.
    pub server: String,
    /// The authorization page.
    pub url: String,
}

/// What an MCP App hears about a call (`ui/notifications/tool-input` and `…/tool-result`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AppCall {
    /// The view the tool declares, when it declares one.
    pub resource_uri: Option<String>,
    /// The tool's title.
    pub tool_title: Option<String>,
    /// The arguments as sent.
    pub arguments: Value,
    /// The `CallToolResult`.
    pub result: Value,
}
