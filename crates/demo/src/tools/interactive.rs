//! Interactive tools: a live dashboard in an iframe (000 §3), form and URL elicitation (001),
//! injected identity and file URLs (000 §4), a destructive tool hosts must confirm (002), and a
//! long job with progress and cancellation.
//!
//! Arguments go through [`super::arguments`], so every bad argument becomes an `isError` result
//! naming the field.

use std::{
    collections::BTreeMap,
    io::Read,
    sync::atomic::Ordering,
    time::{Duration, Instant},
};

use rmcp::{
    handler::server::tool::{InputResponses, RequestState},
    model::{
        CallToolResponse, CallToolResult, ClientCapabilities, ClientResult, ContentBlock, CustomNotification,
        ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
        EnumSchema, InputRequest, InputRequiredResult, JsonObject, ProgressNotificationParam,
        ProtocolVersion, ServerNotification, ServerRequest,
    },
    schemars,
    service::{PeerRequestOptions, RequestContext},
    tool, tool_router, ErrorData, RoleServer,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::{
    arguments::{parse as parse_args, schema},
    DemoServer,
};
use crate::dashboard::{self, DashboardServer, TOKEN_TTL};

/// How long a form or URL elicitation may wait for the user.
const ELICITATION_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// Per-download limits for `summarize_file(s)`.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(60);
const DOWNLOAD_CAP: u64 = 200 * 1024 * 1024;
const MAX_FILES: usize = 20;
/// `slow_job` reports progress this often.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum Persistence {
    #[default]
    Session,
    Ephemeral,
    Pinned,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum CanvasMode {
    #[default]
    Replace,
    Append,
    Split,
}

fn default_dashboard_title() -> String {
    "Live metrics".to_owned()
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenDashboardArgs {
    /// Heading of the dashboard and title of its canvas tab (1–120 characters). The dashboard's
    /// `id` is derived from it, so the same title reopens the same tab.
    #[serde(default = "default_dashboard_title")]
    #[schemars(length(min = 1, max = 120))]
    pub title: String,
    /// How long the host should keep the dashboard tab: `session` (this session, the default),
    /// `ephemeral` (until another result replaces it) or `pinned` (until the user closes it).
    #[serde(default)]
    pub persistence: Persistence,
    /// Where the canvas should put it (a hint): `replace` what it shows (the default), `append` a
    /// tab, or `split` the view.
    #[serde(default)]
    pub mode: CanvasMode,
}

fn default_wait_seconds() -> u64 {
    120
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkAccountArgs {
    /// After the user agrees to open the page, how many seconds to wait for them to finish there
    /// (5–600).
    #[serde(default = "default_wait_seconds")]
    #[schemars(range(min = 5, max = 600))]
    pub wait_seconds: u64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoamiArgs {
    /// Who is calling. The host injects the configured local identity here and overrides
    /// whatever the model passed.
    #[schemars(length(min = 1, max = 256))]
    pub username: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummarizeFileArgs {
    /// The file to summarize, as an http(s) URL. The host rewrites an artifact name into a URL
    /// the tool can download.
    pub filename: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummarizeFilesArgs {
    /// The files to summarize (1–20), each an http(s) URL. The host rewrites artifact names into
    /// URLs the tool can download.
    #[schemars(length(min = 1, max = 20))]
    pub file_names: Vec<String>,
}

fn default_seconds() -> u64 {
    5
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlowJobArgs {
    /// How long the job runs, in seconds (1–60).
    #[serde(default = "default_seconds")]
    #[schemars(range(min = 1, max = 60))]
    pub seconds: u64,
}

fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// The output schema every tool here declares: the v2 envelope (000 §1), `results` required.
fn v2_output_schema() -> std::sync::Arc<rmcp::model::JsonObject> {
    let schema = json!({
        "type": "object",
        "properties": {
            "results": {"description": "What the tool did, for the model and the user."},
            "meta_data": {"type": "object", "description": "Small structured facts."},
            "canvas": {"type": "object", "description": "A dashboard envelope (000 §3)."}
        },
        "required": ["results"]
    });
    std::sync::Arc::new(schema.as_object().expect("an object").clone())
}

/// A v2 envelope (000 §1) as the last JSON text block and as `structuredContent`, after an
/// optional sentence for people.
fn envelope(sentence: Option<String>, value: Value) -> CallToolResult {
    let mut content = Vec::new();
    if let Some(sentence) = sentence {
        content.push(ContentBlock::text(sentence));
    }
    content.push(ContentBlock::text(value.to_string()));
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(value);
    result
}

// ---------------------------------------------------------------------------------------------
// Elicitation plumbing
// ---------------------------------------------------------------------------------------------

struct ElicitationModes {
    form: bool,
    url: bool,
}

/// What the client declared (same reading as rmcp's: an empty `elicitation` object means form).
fn elicitation_modes(capabilities: Option<&ClientCapabilities>) -> ElicitationModes {
    match capabilities.and_then(|c| c.elicitation.as_ref()) {
        None => ElicitationModes { form: false, url: false },
        Some(e) if e.form.is_none() && e.url.is_none() => ElicitationModes { form: true, url: false },
        Some(e) => ElicitationModes { form: e.form.is_some(), url: e.url.is_some() },
    }
}

/// Protocol 2026-07-28 forbids server→client requests; elicitation goes through an
/// `InputRequiredResult` the client answers by retrying the call (MRTR).
pub(super) fn uses_input_required(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

enum Elicited {
    Answer(ElicitResult),
    /// Return this to the client; it retries with the answer.
    NeedInput(InputRequiredResult),
}

/// Asks the client for `params`: a server→client `elicitation/create` request on legacy protocol
/// versions, an `InputRequiredResult` round trip on 2026-07-28. `state` is echoed back on retry.
async fn elicit(
    context: &RequestContext<RoleServer>,
    responses: Option<&BTreeMap<String, Value>>,
    key: &str,
    params: ElicitRequestParams,
    state: Option<String>,
) -> Result<Elicited, CallToolResult> {
    if uses_input_required(context) {
        if let Some(answer) = responses.and_then(|r| r.get(key)) {
            return serde_json::from_value(answer.clone())
                .map(Elicited::Answer)
                .map_err(|e| tool_error(format!("The client's answer to `{key}` is not an elicitation result: {e}.")));
        }
        let requests = BTreeMap::from([(key.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)))]);
        return Ok(Elicited::NeedInput(InputRequiredResult::new(Some(requests), state)));
    }
    // `Peer::create_elicitation` needs rmcp's `elicitation` feature, which pulls in `url` and the
    // ICU crates; the plain request is the same message (and the same outbound-request checks).
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
    let asked = async {
        let handle = context
            .peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(ELICITATION_TIMEOUT))
            .await?;
        handle.await_response().await
    };
    tokio::select! {
        answer = asked => match answer {
            Ok(ClientResult::ElicitResult(answer)) => Ok(Elicited::Answer(answer)),
            Ok(_) => Err(tool_error("Asking the user failed: the client answered with something other than an elicitation result.")),
            Err(e) => Err(tool_error(format!("Asking the user failed: {e}."))),
        },
        () = context.ct.cancelled() => Err(tool_error("The call was cancelled while waiting for the user.")),
    }
}

fn preferences_schema() -> Result<ElicitationSchema, &'static str> {
    ElicitationSchema::builder()
        .required_enum_schema(
            "theme",
            EnumSchema::builder(vec!["light".into(), "dark".into(), "system".into()])
                .title("Theme")
                .description("Colour theme for the canvas")
                .build(),
        )
        .required_number_property("font_size", |n| {
            n.range(8.0, 32.0).title("Font size").description("Text size in points (8–32)").with_default(14.0)
        })
        .bool_property("notifications", |b| {
            b.title("Notifications").description("Show a notification when a long job finishes").with_default(true)
        })
        .string_property("display_name", |s| {
            s.title("Display name")
                .description("How the canvas greets you (up to 64 characters)")
                .max_length(64)
                .with_default("Canvas user")
        })
        .description("Preferences for the MCP Canvas demo")
        .build()
}

#[derive(Debug, Serialize)]
struct Preferences {
    theme: String,
    font_size: f64,
    notifications: bool,
    display_name: String,
}

/// Checks what the user sent against the schema we asked with (clients need not validate).
fn validate_preferences(content: Option<&Value>) -> Result<Preferences, String> {
    let Some(Value::Object(map)) = content else {
        return Err("the client accepted but sent no form content".to_owned());
    };
    let theme = match map.get("theme") {
        Some(Value::String(s)) if ["light", "dark", "system"].contains(&s.as_str()) => s.clone(),
        Some(other) => return Err(format!("`theme` must be light, dark or system, got {other}")),
        None => return Err("`theme` is missing".to_owned()),
    };
    let font_size = match map.get("font_size") {
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if (8.0..=32.0).contains(&f) => f,
            _ => return Err(format!("`font_size` must be between 8 and 32, got {n}")),
        },
        Some(other) => return Err(format!("`font_size` must be a number, got {other}")),
        None => return Err("`font_size` is missing".to_owned()),
    };
    let notifications = match map.get("notifications") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`notifications` must be true or false, got {other}")),
    };
    let display_name = match map.get("display_name") {
        None => "Canvas user".to_owned(),
        Some(Value::String(s)) if s.chars().count() <= 64 => s.clone(),
        Some(Value::String(_)) => return Err("`display_name` is longer than 64 characters".to_owned()),
        Some(other) => return Err(format!("`display_name` must be a string, got {other}")),
    };
    Ok(Preferences { theme, font_size, notifications, display_name })
}

fn action_name(action: &ElicitationAction) -> &'static str {
    match action {
        ElicitationAction::Accept => "accept",
        ElicitationAction::Decline => "decline",
        ElicitationAction::Cancel => "cancel",
        _ => "unknown",
    }
}

// ---------------------------------------------------------------------------------------------
// Downloads
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Serialize)]
struct FileSummary {
    url: String,
    name: String,
    size: u64,
    sha256: String,
    content_type: Option<String>,
}

/// The URL as it may be shown to the model: the value of a `token` query parameter (a capability
/// the host minted) is replaced by `…`.
fn display_url(url: &str) -> String {
    let Some((base, query)) = url.split_once('?') else {
        return url.to_owned();
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if key.eq_ignore_ascii_case("token") => format!("{key}=…"),
            _ => pair.to_owned(),
        })
        .collect();
    format!("{base}?{}", query.join("&"))
}

/// Checks that `url` is an absolute http(s) URL; returns its host.
fn check_url(url: &str) -> Result<String, String> {
    let lower = url.trim_start().to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(match url.split_once(':') {
            Some((scheme, _)) if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) => {
                format!("`{}` uses `{scheme}:`; only http and https URLs can be downloaded", display_url(url))
            }
            _ => format!("`{}` is not an http(s) URL", display_url(url)),
        });
    }
    let uri: ureq::http::Uri = url.parse().map_err(|e| format!("`{}` is not a valid URL: {e}", display_url(url)))?;
    uri.host().map(str::to_owned).ok_or_else(|| format!("`{}` has no host", display_url(url)))
}

/// Downloads `url` (blocking) and returns its size and SHA-256, failing beyond [`DOWNLOAD_CAP`].
fn download(url: &str) -> Result<FileSummary, String> {
    let shown = display_url(url);
    let host = check_url(url)?;
    let loopback = host == "localhost" || host == "127.0.0.1" || host == "[::1]" || host == "::1";
    let mut config = ureq::Agent::config_builder()
        .timeout_global(Some(DOWNLOAD_TIMEOUT))
        .timeout_connect(Some(Duration::from_secs(10)))
        .max_redirects(5);
    if loopback {
        // A proxy from the environment cannot reach this machine's loopback.
        config = config.proxy(None);
    }
    let agent: ureq::Agent = config.build().into();
    let response = agent.get(url).call().map_err(|e| match e {
        ureq::Error::StatusCode(code) => format!("downloading `{shown}` failed: HTTP {code}"),
        other => format!("downloading `{shown}` failed: {other}"),
    })?;
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(length) = response.body().content_length()
        && length > DOWNLOAD_CAP
    {
        return Err(format!("`{shown}` is {length} bytes, over the {} MB limit", DOWNLOAD_CAP / (1024 * 1024)));
    }
    let mut reader = response.into_body().into_reader();
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buffer).map_err(|e| format!("reading `{shown}` failed: {e}"))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        if size > DOWNLOAD_CAP {
            return Err(format!("`{shown}` is over the {} MB limit", DOWNLOAD_CAP / (1024 * 1024)));
        }
        hasher.update(&buffer[..n]);
    }
    dashboard::CACHE_ENTRIES.fetch_add(1, Ordering::Relaxed);
    let name = url
        .split(['?', '#'])
        .next()
        .and_then(|path| path.rsplit('/').next())
        .filter(|segment| !segment.is_empty())
        .unwrap_or("download")
        .to_owned();
    Ok(FileSummary { url: shown, name, size, sha256: dashboard::hex(&hasher.finalize()), content_type })
}

async fn download_all(urls: Vec<String>) -> Vec<Result<FileSummary, String>> {
    let tasks: Vec<_> = urls.into_iter().map(|url| tokio::task::spawn_blocking(move || download(&url))).collect();
    let mut results = Vec::with_capacity(tasks.len());
    for task in tasks {
        results.push(task.await.unwrap_or_else(|e| Err(format!("the download task failed: {e}"))));
    }
    results
}

fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1024 * 1024 => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
        b if b >= 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

#[tool_router(router = interactive_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        title = "Open a live dashboard",
        output_schema = v2_output_schema(),
        description = "Opens a live metrics dashboard in the canvas: returns a `canvas` envelope \
            (type iframe) whose URL is served by this server on 127.0.0.1 and refreshes every \
            second. The URL carries a capability token valid for 10 minutes; calling again with \
            the same title reopens the same dashboard with a fresh token.",
        input_schema = schema::<OpenDashboardArgs>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn open_dashboard(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let args: OpenDashboardArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        let title = args.title.trim();
        if title.is_empty() || title.chars().count() > 120 {
            return Ok(tool_error("Invalid argument `title`: give 1 to 120 characters."));
        }
        let server = match DashboardServer::get().await {
            Ok(server) => server,
            Err(error) => return Ok(tool_error(error)),
        };
        let issued = match server.open_dashboard(title) {
            Ok(issued) => issued,
            Err(error) => return Ok(tool_error(error)),
        };
        let id = format!("demo-dashboard-{}", &dashboard::hex(&Sha256::digest(title.as_bytes()))[..12]);
        let value = json!({
            "results": {
                "status": "opened",
                "dashboard": title,
                "token_expires_in_s": TOKEN_TTL.as_secs(),
            },
            "meta_data": { "server": format!("127.0.0.1:{}", server.port()), "refresh_ms": 1000 },
            "canvas": {
                "open": true,
                "id": id,
                "persistence": args.persistence,
                "type": "iframe",
                "url": issued.url,
                "token": issued.token,
                "title": title,
                "mode": args.mode,
            },
        });
        Ok(envelope(None, value))
    }

    #[tool(
        title = "Ask for display preferences",
        output_schema = v2_output_schema(),
        description = "Asks the user, through an elicitation form, for a theme, a font size, \
            whether to show notifications and a display name, and returns the answers (or that \
            the user declined or cancelled). Needs a client that supports form elicitation.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn ask_preferences(
        &self,
        context: RequestContext<RoleServer>,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        if !elicitation_modes(context.client_capabilities().as_ref()).form {
            return Ok(tool_error(
                "This client did not advertise form elicitation (the `elicitation` capability) when \
                 it connected, so `ask_preferences` cannot ask the user anything. Use a client that \
                 supports MCP elicitation.",
            )
            .into());
        }
        let schema = match preferences_schema() {
            Ok(schema) => schema,
            Err(error) => return Ok(tool_error(format!("Could not build the form: {error}.")).into()),
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "How would you like MCP Canvas to look?".to_owned(),
            requested_schema: schema,
        };
        let answer = match elicit(&context, responses.as_ref(), "preferences", params, None).await {
            Ok(Elicited::Answer(answer)) => answer,
            Ok(Elicited::NeedInput(input)) => return Ok(input.into()),
            Err(error) => return Ok(error.into()),
        };
        let result = match answer.action {
            ElicitationAction::Accept => match validate_preferences(answer.content.as_ref()) {
                Ok(prefs) => envelope(
                    Some(format!(
                        "The user chose theme {}, font size {}, notifications {}, display name \"{}\".",
                        prefs.theme,
                        prefs.font_size,
                        if prefs.notifications { "on" } else { "off" },
                        prefs.display_name
                    )),
                    json!({ "results": { "action": "accept", "preferences": prefs } }),
                ),
                Err(error) => tool_error(format!("The user's answer is invalid: {error}.")),
            },
            ElicitationAction::Decline => envelope(
                Some("The user declined to share their preferences.".to_owned()),
                json!({ "results": { "action": "decline" } }),
            ),
            ElicitationAction::Cancel => envelope(
                Some("The user cancelled the preferences form without answering.".to_owned()),
                json!({ "results": { "action": "cancel" } }),
            ),
            ref other => tool_error(format!("The client answered with an unknown action ({}).", action_name(other))),
        };
        Ok(result.into())
    }

    #[tool(
        title = "Link an account",
        output_schema = v2_output_schema(),
        description = "Asks the client to open a local account-linking page (URL elicitation), \
            then waits until the user confirms there, and reports the outcome: linked, declined, \
            cancelled or not finished in time. Needs a client that supports URL elicitation.",
        input_schema = schema::<LinkAccountArgs>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn link_account(
        &self,
        arguments: JsonObject,
        context: RequestContext<RoleServer>,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Result<CallToolResponse, ErrorData> {
        let args: LinkAccountArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error.into()),
        };
        if !(5..=600).contains(&args.wait_seconds) {
            return Ok(tool_error(format!(
                "Invalid argument `wait_seconds`: must be between 5 and 600, got {}.",
                args.wait_seconds
            ))
            .into());
        }
        if !elicitation_modes(context.client_capabilities().as_ref()).url {
            return Ok(tool_error(
                "This client did not advertise URL elicitation (the `elicitation.url` capability) \
                 when it connected, so `link_account` cannot send the user to the linking page. \
                 Use a client that supports URL-mode elicitation.",
            )
            .into());
        }
        let server = match DashboardServer::get().await {
            Ok(server) => server,
            Err(error) => return Ok(tool_error(error).into()),
        };
        // On an MRTR retry the link was issued in the first round; its token is the request state.
        let (token, url, mut linked) = match state.as_deref() {
            Some(token) => match server.watch_link(token) {
                Some(linked) => (token.to_owned(), server.link_url(token), linked),
                None => {
                    return Ok(tool_error(
                        "The linking page of this call has expired or is unknown; call `link_account` again.",
                    )
                    .into());
                }
            },
            None => match server.open_link() {
                Ok(link) => (link.token, link.url, link.linked),
                Err(error) => return Ok(tool_error(error).into()),
            },
        };
        let elicitation_id = format!("link-{}", token.get(..12).unwrap_or(&token));
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: "Open this page to link your (pretend) demo account, then press “Link account”.".to_owned(),
            url: url.clone(),
            elicitation_id: elicitation_id.clone(),
        };
        let answer = match elicit(&context, responses.as_ref(), "link", params, Some(token.clone())).await {
            Ok(Elicited::Answer(answer)) => answer,
            Ok(Elicited::NeedInput(input)) => return Ok(input.into()),
            Err(error) => {
                server.revoke(&token);
                return Ok(error.into());
            }
        };
        let outcome = match answer.action {
            ElicitationAction::Accept => {
                let waited = tokio::select! {
                    done = tokio::time::timeout(Duration::from_secs(args.wait_seconds), linked.wait_for(|v| *v)) => {
                        matches!(done, Ok(Ok(_)))
                    }
                    () = context.ct.cancelled() => false,
                };
                if waited {
                    // Tell the client the out-of-band step is over (MCP 2025-11-25).
                    let _ = context
                        .peer
                        .send_notification(ServerNotification::CustomNotification(CustomNotification::new(
                            "notifications/elicitation/complete",
                            Some(json!({ "elicitationId": elicitation_id })),
                        )))
                        .await;
                    "linked"
                } else if context.ct.is_cancelled() {
                    "cancelled"
                } else {
                    "timeout"
                }
            }
            ElicitationAction::Decline => "declined",
            ElicitationAction::Cancel => "cancelled",
            _ => "unknown",
        };
        server.revoke(&token);
        let sentence = match outcome {
            "linked" => "The account is linked: the user confirmed on the linking page.".to_owned(),
            "declined" => "The user declined to open the linking page.".to_owned(),
            "cancelled" => "Linking was cancelled.".to_owned(),
            "timeout" => format!(
                "The user agreed to open the linking page but did not confirm there within {} s.",
                args.wait_seconds
            ),
            _ => "The client answered with an unknown action.".to_owned(),
        };
        Ok(envelope(
            Some(sentence),
            json!({ "results": { "outcome": outcome, "action": action_name(&answer.action), "elicitation_id": elicitation_id } }),
        )
        .into())
    }

    #[tool(
        title = "Who am I",
        output_schema = v2_output_schema(),
        description = "Reports the identity the tool received in `username`. Hosts inject the \
            configured local identity into this argument, so it shows what the host sends.",
        input_schema = schema::<WhoamiArgs>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn whoami(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let args: WhoamiArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        if args.username.trim().is_empty() {
            return Ok(tool_error("Invalid argument `username`: it is empty."));
        }
        Ok(envelope(
            Some(format!("You are {}.", args.username)),
            json!({ "results": { "username": args.username } }),
        ))
    }

    #[tool(
        title = "Summarize a file",
        output_schema = v2_output_schema(),
        description = "Downloads one file from an http(s) URL (the host turns an artifact name \
            into such a URL) and reports its size and SHA-256. At most 200 MB, 60 s.",
        input_schema = schema::<SummarizeFileArgs>(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn summarize_file(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let args: SummarizeFileArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        if let Err(error) = check_url(&args.filename) {
            return Ok(tool_error(format!("Invalid argument `filename`: {error}.")));
        }
        let mut results = download_all(vec![args.filename]).await;
        Ok(match results.pop() {
            Some(Ok(file)) => envelope(
                Some(format!("{}: {} ({} bytes), sha256 {}.", file.name, human_size(file.size), file.size, file.sha256)),
                json!({ "results": file }),
            ),
            Some(Err(error)) => tool_error(format!("{error}.")),
            None => tool_error("Nothing was downloaded."),
        })
    }

    #[tool(
        title = "Summarize files",
        output_schema = v2_output_schema(),
        description = "Downloads several files from http(s) URLs (the host turns artifact names \
            into such URLs) and reports the size and SHA-256 of each. 1–20 files, each at most \
            200 MB and 60 s.",
        input_schema = schema::<SummarizeFilesArgs>(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn summarize_files(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let args: SummarizeFilesArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        if args.file_names.is_empty() || args.file_names.len() > MAX_FILES {
            return Ok(tool_error(format!(
                "Invalid argument `file_names`: give 1 to {MAX_FILES} URLs, got {}.",
                args.file_names.len()
            )));
        }
        for (i, url) in args.file_names.iter().enumerate() {
            if let Err(error) = check_url(url) {
                return Ok(tool_error(format!("Invalid argument `file_names[{i}]`: {error}.")));
            }
        }
        let results = download_all(args.file_names).await;
        let errors: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
        if !errors.is_empty() {
            let ok = results.len() - errors.len();
            let list: Vec<String> = errors.iter().map(|e| format!("- {e}")).collect();
            return Ok(tool_error(format!(
                "{} of {} downloads failed ({ok} succeeded):\n{}",
                errors.len(),
                results.len(),
                list.join("\n")
            )));
        }
        let files: Vec<FileSummary> = results.into_iter().filter_map(Result::ok).collect();
        let total: u64 = files.iter().map(|f| f.size).sum();
        let lines: Vec<String> =
            files.iter().map(|f| format!("- {}: {} bytes, sha256 {}", f.name, f.size, f.sha256)).collect();
        Ok(envelope(
            Some(format!("{} files, {} in total:\n{}", files.len(), human_size(total), lines.join("\n"))),
            json!({ "results": { "files": files, "total_size": total } }),
        ))
    }

    #[tool(
        title = "Purge the cache",
        output_schema = v2_output_schema(),
        description = "Empties the demo server's in-memory cache and reports how many entries \
            it held. Harmless, but marked destructive so that hosts ask before running it.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn purge_cache(&self) -> Result<CallToolResult, ErrorData> {
        let purged = dashboard::CACHE_ENTRIES.swap(0, Ordering::Relaxed);
        Ok(envelope(
            Some(format!("Purged {purged} cache entries.")),
            json!({ "results": { "purged_entries": purged } }),
        ))
    }

    #[tool(
        title = "Run a slow job",
        output_schema = v2_output_schema(),
        description = "Runs for the given number of seconds, reporting progress every 250 ms when \
            the request carries a progress token, and stops promptly when cancelled. Returns how \
            far it got.",
        input_schema = schema::<SlowJobArgs>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn slow_job(
        &self,
        arguments: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let args: SlowJobArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        if !(1..=60).contains(&args.seconds) {
            return Ok(tool_error(format!(
                "Invalid argument `seconds`: must be between 1 and 60, got {}.",
                args.seconds
            )));
        }
        let token = context.meta.get_progress_token();
        let total_steps = args.seconds * 1000 / PROGRESS_EVERY.as_millis() as u64;
        let started = Instant::now();
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut steps = 0;
        let mut cancelled = false;
        while steps < total_steps {
            tokio::select! {
                _ = ticker.tick() => {}
                () = context.ct.cancelled() => { cancelled = true; break; }
            }
            steps += 1;
            if let Some(token) = &token {
                let _ = context
                    .peer
                    .notify_progress(
                        ProgressNotificationParam::new(token.clone(), steps as f64)
                            .with_total(total_steps as f64)
                            .with_message(format!("step {steps} of {total_steps}")),
                    )
                    .await;
            }
        }
        let elapsed_ms = started.elapsed().as_millis() as u64;
        if cancelled {
            // The client will not read a response to a cancelled request; leave a trace in the log.
            eprintln!("mcp-canvas-demo: slow_job cancelled after {steps} of {total_steps} steps ({elapsed_ms} ms)");
        }
        let sentence = if cancelled {
            format!("The job was cancelled after {steps} of {total_steps} steps ({elapsed_ms} ms).")
        } else {
            format!("The job finished all {total_steps} steps in {elapsed_ms} ms.")
        };
        Ok(envelope(
            Some(sentence),
            json!({ "results": {
                "completed": !cancelled,
                "cancelled": cancelled,
                "steps_done": steps,
                "steps_total": total_steps,
                "elapsed_ms": elapsed_ms,
                "progress_reported": token.is_some(),
            } }),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_arguments_name_the_field() {
        let args = serde_json::from_value::<JsonObject>(json!({ "seconds": "ten" })).unwrap();
        let error = parse_args::<SlowJobArgs>(args).unwrap_err();
        let text = serde_json::to_string(&error.content).unwrap();
        assert!(text.contains("`seconds`"), "{text}");
        assert_eq!(error.is_error, Some(true));

        let args = serde_json::from_value::<JsonObject>(json!({ "persistence": "forever" })).unwrap();
        let error = parse_args::<OpenDashboardArgs>(args).unwrap_err();
        let text = serde_json::to_string(&error.content).unwrap();
        assert!(text.contains("`persistence`"), "{text}");

        let error = parse_args::<WhoamiArgs>(JsonObject::new()).unwrap_err();
        assert!(serde_json::to_string(&error.content).unwrap().contains("username"));
    }

    #[test]
    fn capability_tokens_are_not_shown() {
        assert_eq!(display_url("http://h/a.txt?x=1&token=secret"), "http://h/a.txt?x=1&token=…");
        assert_eq!(display_url("http://h/a.txt"), "http://h/a.txt");
    }

    #[test]
    fn only_http_urls_are_downloaded() {
        assert!(check_url("file:///etc/passwd").unwrap_err().contains("only http"));
        assert!(check_url("report.pdf").is_err());
        assert_eq!(check_url("http://127.0.0.1:8080/x").unwrap(), "127.0.0.1");
    }

    #[test]
    fn preferences_are_checked() {
        assert!(validate_preferences(Some(&json!({ "theme": "dark", "font_size": 12 }))).is_ok());
        let error = validate_preferences(Some(&json!({ "theme": "dark", "font_size": 99 }))).unwrap_err();
        assert!(error.contains("font_size"));
        assert!(validate_preferences(Some(&json!({ "font_size": 12 }))).unwrap_err().contains("theme"));
        assert!(preferences_schema().is_ok());
    }

    #[test]
    fn schemas_describe_defaults_and_ranges() {
        let slow = serde_json::to_value(&*schema::<SlowJobArgs>()).unwrap();
        assert_eq!(slow["properties"]["seconds"]["default"], 5);
        assert_eq!(slow["properties"]["seconds"]["maximum"], 60);
        let dash = serde_json::to_value(&*schema::<OpenDashboardArgs>()).unwrap();
        assert!(dash.to_string().contains("pinned"), "{dash}");
    }
}
