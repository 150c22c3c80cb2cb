//! Elicitation: a server asking the user for input in the middle of a call.
//!
//! Two modes (MCP 2025-11-25): *form* (a message and a flat JSON Schema of primitive fields) and
//! *URL* (a message and a web page the user should open themselves, for OAuth, payments and the
//! like). They reach us either as server→client `elicitation/create` requests (protocol versions
//! up to 2025-11-25) or, on 2026-07-28, inside an `input_required` result the call step answers
//! and retries; both paths end in [`Elicitor::answer`].
//!
//! A front end answers through an [`ElicitationHandler`]; the host does the checks around it,
//! whatever the front end is:
//! - a form answer is validated against the `requestedSchema` before it is sent; an invalid one
//!   is asked again (when the handler can ask again) or declined with the problems named;
//! - a URL is parsed, only `http(s)` is offered, and the handler is given the full URL *and* its
//!   domain (with warnings for look-alike or credential-carrying URLs); nothing is opened here;
//! - every decline carries a reason, recorded as a warning of the call — never silently.

use std::{
    future::Future,
    pin::Pin,
    sync::Arc,
};

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde::Serialize;
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::{call_context::CallContext, validation};

/// A boxed, sendable future (what [`ElicitationHandler`] methods return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How many times an invalid form answer is asked again before it is declined.
const MAX_FORM_ATTEMPTS: u32 = 3;

/// Which elicitation modes a handler can answer; the host advertises exactly these in
/// `initialize` (the `elicitation` client capability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ElicitationModes {
    /// Form mode: fill in fields.
    pub form: bool,
    /// URL mode: open a page out of band.
    pub url: bool,
}

impl ElicitationModes {
    /// Both modes.
    pub const ALL: Self = Self { form: true, url: true };
    /// Neither: the capability is not advertised.
    pub const NONE: Self = Self { form: false, url: false };
}

/// A server wants the user to fill in a form.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct FormRequest {
    /// The server asking.
    pub server: String,
    /// What the server says the form is for (show it as is).
    pub message: String,
    /// The `requestedSchema`: an object schema of primitive fields (see [`form_fields`]).
    pub schema: Map<String, Value>,
    /// 1 the first time; more when an earlier answer did not match the schema.
    pub attempt: u32,
    /// Why the previous answer was refused (empty on the first attempt).
    pub problems: Vec<String>,
}

/// The user's answer to a [`FormRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "action", content = "value", rename_all = "snake_case")]
pub enum FormAnswer {
    /// Send these field values (checked against the schema before they are sent).
    Accept(Map<String, Value>),
    /// The user (or the front end, when it cannot ask) said no; the reason is recorded.
    Decline(String),
    /// The user dismissed the form without choosing.
    Cancel,
}

/// A server wants the user to open a web page (URL-mode elicitation).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct UrlRequest {
    /// The server asking.
    pub server: String,
    /// What the server says the page is for.
    pub message: String,
    /// The full URL, exactly as the server sent it (show all of it).
    pub url: String,
    /// Its host, as the browser would resolve it (show it prominently).
    pub domain: String,
    /// The server's id for this elicitation (it may later say the step is complete).
    pub elicitation_id: String,
    /// Things about the URL the user should know before agreeing (plain HTTP, punycode, ...).
    pub warnings: Vec<String>,
}

/// The user's answer to a [`UrlRequest`]. Accept means the user agreed to open the page; a
/// handler must not open it before that.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "action", content = "value", rename_all = "snake_case")]
pub enum UrlAnswer {
    /// The user agreed (and the page was opened, or the user opens it themselves).
    Accept,
    /// The user (or the front end, when it cannot ask) said no; the reason is recorded.
    Decline(String),
    /// The user dismissed the request without choosing.
    Cancel,
}

/// Things a front end may want to show besides the questions themselves.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationEvent<'a> {
    /// The host declined on the user's behalf (invalid answer, unusable URL, mode not
    /// supported, no way to ask).
    Declined {
        /// The server that asked.
        server: &'a str,
        /// `form` or `url`.
        mode: &'a str,
        /// Why.
        reason: &'a str,
    },
    /// The server says the out-of-band step of a URL elicitation is finished.
    Completed {
        /// The server.
        server: &'a str,
        /// The elicitation it refers to.
        elicitation_id: &'a str,
    },
}

/// Answers elicitation requests for a front end (terminal prompts, a dialog in the window, a
/// file of canned answers, a test).
pub trait ElicitationHandler: Send + Sync {
    /// The modes this handler can answer. The capability is advertised only for these; a
    /// handler that may have to decline (no terminal, say) should still list a mode it would
    /// otherwise answer, so servers ask and hear a reasoned decline rather than "unsupported".
    fn modes(&self) -> ElicitationModes;

    /// Asks the user to fill in a form.
    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer>;

    /// Asks the user whether to open a URL.
    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer>;

    /// Whether an answer that does not match the schema should be asked again (a person at a
    /// prompt) rather than declined at once (canned answers).
    fn reask_invalid(&self) -> bool {
        false
    }

    /// Why a mode missing from [`Self::modes`] cannot be answered (`mode` is `form` or `url`).
    fn unavailable(&self, mode: &str) -> String {
        format!("this front end does not answer {mode}-mode requests")
    }

    /// Something the user may want to know (see [`ElicitationEvent`]).
    fn event(&self, event: &ElicitationEvent<'_>) {
        let _ = event;
    }
}

/// The default handler: advertises nothing and declines anything a server asks anyway, saying
/// why.
#[derive(Debug, Clone)]
pub struct DeclineElicitation {
    reason: String,
}

impl DeclineElicitation {
    /// Declines with this reason.
    pub fn new(reason: impl Into<String>) -> Self {
        Self { reason: reason.into() }
    }
}

impl Default for DeclineElicitation {
    fn default() -> Self {
        Self::new("this MCP Canvas front end has no way to ask the user for input")
    }
}

impl ElicitationHandler for DeclineElicitation {
    fn modes(&self) -> ElicitationModes {
        ElicitationModes::NONE
    }

    fn form<'a>(&'a self, _request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(std::future::ready(FormAnswer::Decline(self.reason.clone())))
    }

    fn url<'a>(&'a self, _request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(std::future::ready(UrlAnswer::Decline(self.reason.clone())))
    }

    fn unavailable(&self, _mode: &str) -> String {
        self.reason.clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Form fields, for front ends that draw or prompt a form
// ---------------------------------------------------------------------------------------------

/// One field of a form's `requestedSchema`, read for a front end (the desktop window draws these;
/// a wire type, see `wire::ElicitationPrompt`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct FormField {
    /// The property name (the key in the answer).
    pub name: String,
    /// `title`, else the name.
    pub title: String,
    /// `description`, when given.
    pub description: Option<String>,
    /// Listed in `required`.
    pub required: bool,
    /// `default`, when given.
    #[ts(type = "unknown")]
    pub default: Option<Value>,
    /// What kind of value it takes.
    pub kind: FieldKind,
}

/// The kind of value a [`FormField`] takes (on the wire: tagged by `type`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub enum FieldKind {
    /// Free text, with its limits.
    Text {
        /// `format` (email, uri, date, date-time).
        format: Option<String>,
        /// `minLength`.
        #[ts(type = "number | null")]
        min_length: Option<u64>,
        /// `maxLength`.
        #[ts(type = "number | null")]
        max_length: Option<u64>,
    },
    /// A number (`integer: true` for whole numbers), with its bounds.
    Number {
        /// `type: integer`.
        integer: bool,
        /// `minimum`.
        minimum: Option<f64>,
        /// `maximum`.
        maximum: Option<f64>,
    },
    /// Yes or no.
    Boolean,
    /// One (or, with `multiple`, several) of fixed options: (value, label).
    Choice {
        /// The options.
        options: Vec<(String, String)>,
        /// An array of options (`type: array`) rather than one.
        multiple: bool,
    },
    /// Something this reader does not know; the user types JSON.
    Other,
}

/// The fields of a form schema: the required ones first (in the order `required` lists them),
/// then the others by name (JSON object order does not survive parsing).
pub fn form_fields(schema: &Map<String, Value>) -> Vec<FormField> {
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get("properties") else { return Vec::new() };
    let mut fields: Vec<FormField> = properties
        .iter()
        .map(|(name, property)| {
            let text = |key: &str| property.get(key).and_then(Value::as_str).map(str::to_owned);
            FormField {
                name: name.clone(),
                title: text("title").unwrap_or_else(|| name.clone()),
                description: text("description"),
                required: required.contains(&name.as_str()),
                default: property.get("default").cloned(),
                kind: field_kind(property),
            }
        })
        .collect();
    fields.sort_by_key(|f| required.iter().position(|r| *r == f.name).unwrap_or(usize::MAX));
    fields
}

fn field_kind(property: &Value) -> FieldKind {
    if let Some(options) = choice_options(property) {
        return FieldKind::Choice { options, multiple: false };
    }
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    match property.get("type").and_then(Value::as_str) {
        Some("string") => FieldKind::Text {
            format: property.get("format").and_then(Value::as_str).map(str::to_owned),
            min_length: property.get("minLength").and_then(Value::as_u64),
            max_length: property.get("maxLength").and_then(Value::as_u64),
        },
        Some(kind @ ("number" | "integer")) => FieldKind::Number { integer: kind == "integer", minimum: number("minimum"), maximum: number("maximum") },
        Some("boolean") => FieldKind::Boolean,
        Some("array") => match property.get("items").and_then(choice_options) {
            Some(options) => FieldKind::Choice { options, multiple: true },
            None => FieldKind::Other,
        },
        _ => FieldKind::Other,
    }
}

/// `enum` (+ legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}`.
fn choice_options(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let value = v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
                    let label = names.and_then(|n| n.get(i)).and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| value.clone());
                    (value, label)
                })
                .collect(),
        );
    }
    let alternatives = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    let options: Vec<_> = alternatives
        .iter()
        .filter_map(|alt| {
            let value = alt.get("const")?.as_str()?.to_owned();
            let label = alt.get("title").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| value.clone());
            Some((value, label))
        })
        .collect();
    (!options.is_empty()).then_some(options)
}

/// Why a typed answer does not fit its field; shown to the user, who types it again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidAnswer(pub String);

impl From<String> for InvalidAnswer {
    fn from(reason: String) -> Self {
        Self(reason)
    }
}

impl FormField {
    /// Reads what the user typed for this field: `Ok(None)` leaves it out (empty input for an
    /// optional field without a default). Choices take the option's number, value or label;
    /// several are separated by commas. The host validates the whole answer afterwards.
    pub fn parse(&self, input: &str) -> Result<Option<Value>, InvalidAnswer> {
        let input = input.trim();
        if input.is_empty() {
            return match (&self.default, self.required) {
                (Some(default), _) => Ok(Some(default.clone())),
                (None, false) => Ok(None),
                (None, true) => Err(format!("`{}` is required", self.name).into()),
            };
        }
        match &self.kind {
            FieldKind::Text { min_length, max_length, .. } => {
                let length = input.chars().count() as u64;
                match (min_length, max_length) {
                    (Some(min), _) if length < *min => Err(format!("`{}` needs at least {min} characters", self.name).into()),
                    (_, Some(max)) if length > *max => Err(format!("`{}` takes at most {max} characters", self.name).into()),
                    _ => Ok(Some(Value::String(input.to_owned()))),
                }
            }
            FieldKind::Boolean => match input.to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" | "1" | "on" => Ok(Some(Value::Bool(true))),
                "n" | "no" | "false" | "0" | "off" => Ok(Some(Value::Bool(false))),
                _ => Err(format!("`{}` takes yes or no, not {input:?}", self.name).into()),
            },
            FieldKind::Number { integer, minimum, maximum } => {
                let number = match input.parse::<f64>() {
                    Ok(n) if n.is_finite() && (!integer || n.fract() == 0.0) => n,
                    _ => return Err(format!("`{}` takes a {}, not {input:?}", self.name, if *integer { "whole number" } else { "number" }).into()),
                };
                if minimum.is_some_and(|min| number < min) || maximum.is_some_and(|max| number > max) {
                    let bound = |b: &Option<f64>| b.map(|b| Value::from(b).to_string().trim_end_matches(".0").to_owned()).unwrap_or_else(|| "…".to_owned());
                    return Err(format!("`{}` must be between {} and {}", self.name, bound(minimum), bound(maximum)).into());
                }
                Ok(Some(if number.fract() == 0.0 && number.abs() < 1e15 { Value::from(number as i64) } else { Value::from(number) }))
            }
            FieldKind::Choice { options, multiple } => {
                let pick = |text: &str| -> Result<Value, String> {
                    let text = text.trim();
                    let by_number = text.parse::<usize>().ok().filter(|n| (1..=options.len()).contains(n)).map(|n| &options[n - 1]);
                    let found = by_number
                        .or_else(|| options.iter().find(|(value, _)| value == text))
                        .or_else(|| options.iter().find(|(value, label)| value.eq_ignore_ascii_case(text) || label.eq_ignore_ascii_case(text)));
                    let names: Vec<&str> = options.iter().map(|(v, _)| v.as_str()).collect();
                    found.map(|(value, _)| Value::String(value.clone())).ok_or_else(|| format!("`{}` takes one of {}, not {text:?}", self.name, names.join(", ")))
                };
                if *multiple {
                    input.split(',').filter(|s| !s.trim().is_empty()).map(pick).collect::<Result<Vec<_>, _>>().map(|v| Some(Value::Array(v))).map_err(InvalidAnswer)
                } else {
                    pick(input).map(Some).map_err(InvalidAnswer)
                }
            }
            FieldKind::Other => serde_json::from_str(input).map(Some).map_err(|e| InvalidAnswer(format!("`{}` takes JSON here: {e}", self.name))),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the host does around the handler
// ---------------------------------------------------------------------------------------------

/// Answers one server's elicitation requests through the installed handler, with the host's
/// checks around it.
#[derive(Clone)]
pub struct Elicitor {
    /// The server's configured name.
    pub server: String,
    /// The front end's handler (dialogs, the terminal, or declining).
    pub handler: Arc<dyn ElicitationHandler>,
}

impl Elicitor {
    /// The modes the handler answers (and the host advertises).
    pub fn modes(&self) -> ElicitationModes {
        self.handler.modes()
    }

    /// The answer to one `elicitation/create` (or `input_required` elicitation) asked for
    /// `calls`: their clocks pause while the user decides, and what became of the question is
    /// noted on each of them (see [`crate::call_context`]).
    pub async fn answer(&self, params: ElicitRequestParams, calls: &[Arc<CallContext>]) -> ElicitResult {
        let _asking: Vec<_> = calls.iter().map(|call| call.asking()).collect();
        let asked = Asked { elicitor: self, calls };
        match params {
            ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => match serde_json::to_value(&requested_schema) {
                Ok(Value::Object(schema)) => asked.form(message, schema).await,
                _ => asked.host_declines("form", &message, "its requestedSchema could not be read".to_owned()),
            },
            ElicitRequestParams::UrlElicitationParams { message, url, elicitation_id, .. } => asked.url(message, url, elicitation_id).await,
            _ => asked.host_declines("unknown", "", "it uses an elicitation mode MCP Canvas does not know".to_owned()),
        }
    }

    /// The server said a URL-mode step is finished.
    pub fn completed(&self, elicitation_id: &str) {
        self.handler.event(&ElicitationEvent::Completed { server: &self.server, elicitation_id });
    }
}

/// One question being answered, with the calls it belongs to.
struct Asked<'a> {
    elicitor: &'a Elicitor,
    calls: &'a [Arc<CallContext>],
}

impl std::ops::Deref for Asked<'_> {
    type Target = Elicitor;
    fn deref(&self) -> &Elicitor {
        self.elicitor
    }
}

impl Asked<'_> {

    async fn form(&self, message: String, schema: Map<String, Value>) -> ElicitResult {
        if !self.handler.modes().form {
            let reason = self.unsupported_reason("form");
            return self.host_declines("form", &message, reason);
        }
        let mut request = FormRequest { server: self.server.clone(), message, schema, attempt: 1, problems: Vec::new() };
        loop {
            match self.handler.form(&request).await {
                FormAnswer::Accept(content) => {
                    let content = Value::Object(content);
                    let problems = match validation::problems(&request.schema, &content) {
                        Ok(problems) => problems,
                        Err(e) => return self.host_declines("form", &request.message, format!("the server's requestedSchema is not a valid JSON Schema ({})", e.0)),
                    };
                    if problems.is_empty() {
                        return ElicitResult::new(ElicitationAction::Accept).with_content(content);
                    }
                    if self.handler.reask_invalid() && request.attempt < MAX_FORM_ATTEMPTS {
                        request.attempt += 1;
                        request.problems = problems;
                        continue;
                    }
                    let reason = format!("the answer does not match the form's schema: {}", problems.join("; "));
                    return self.host_declines("form", &request.message, reason);
                }
                FormAnswer::Decline(reason) => {
                    self.note(&request.message, &format!("declined: {reason}"));
                    return ElicitResult::new(ElicitationAction::Decline);
                }
                FormAnswer::Cancel => {
                    self.note(&request.message, "cancelled by the user");
                    return ElicitResult::new(ElicitationAction::Cancel);
                }
            }
        }
    }

    async fn url(&self, message: String, url: String, elicitation_id: String) -> ElicitResult {
        if !self.handler.modes().url {
            let reason = self.unsupported_reason("url");
            return self.host_declines("url", &message, reason);
        }
        let (domain, warnings) = match inspect_url(&url) {
            Ok(found) => found,
            Err(reason) => return self.host_declines("url", &message, reason),
        };
        let request = UrlRequest { server: self.server.clone(), message, url, domain, elicitation_id, warnings };
        match self.handler.url(&request).await {
            UrlAnswer::Accept => ElicitResult::new(ElicitationAction::Accept),
            UrlAnswer::Decline(reason) => {
                // The domain, not the URL: URLs often carry one-time tokens, and notes reach the model.
                self.note(&request.message, &format!("declined to open the page on {}: {reason}", request.domain));
                ElicitResult::new(ElicitationAction::Decline)
            }
            UrlAnswer::Cancel => {
                self.note(&request.message, &format!("cancelled by the user (the page at {} was not opened)", request.domain));
                ElicitResult::new(ElicitationAction::Cancel)
            }
        }
    }

    /// Why a mode the handler did not advertise is declined.
    fn unsupported_reason(&self, mode: &str) -> String {
        format!("MCP Canvas did not advertise {mode}-mode elicitation to this server: {}", self.handler.unavailable(mode))
    }

    fn host_declines(&self, mode: &str, message: &str, reason: String) -> ElicitResult {
        self.handler.event(&ElicitationEvent::Declined { server: &self.server, mode, reason: &reason });
        self.note(message, &format!("declined: {reason}"));
        ElicitResult::new(ElicitationAction::Decline)
    }

    fn note(&self, message: &str, what: &str) {
        let message: String = message.chars().take(80).collect();
        let asked = if message.is_empty() { String::new() } else { format!(" (\"{message}\")") };
        let note = format!("server `{}` asked for input{asked}: {what}", self.server);
        for call in self.calls {
            call.note(note.clone());
        }
    }
}

/// The domain to show for a URL and what to warn about, or why it is not offered at all.
pub fn inspect_url(raw: &str) -> Result<(String, Vec<String>), String> {
    let url = url::Url::parse(raw).map_err(|e| format!("the URL {raw:?} is not valid ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("only http(s) pages are offered to the user, and this URL is `{}:`", url.scheme()));
    }
    let domain = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| format!("the URL {raw:?} names no host"))?.to_owned();
    let mut warnings = Vec::new();
    if !url.username().is_empty() || url.password().is_some() {
        warnings.push(format!("the URL carries a user name before the host; the page is really on {domain}"));
    }
    if domain.split('.').any(|label| label.starts_with("xn--")) {
        warnings.push(format!("the domain {domain} is internationalized (punycode) and may imitate another one"));
    }
    let loopback = matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
        || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
        || domain == "localhost";
    if url.scheme() == "http" && !loopback {
        warnings.push("the page is not encrypted (http, not https)".to_owned());
    }
    Ok((domain, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "theme": {"type": "string", "title": "Theme", "enum": ["light", "dark"]},
                "size": {"type": "number", "minimum": 8, "maximum": 32, "default": 14},
                "count": {"type": "integer"},
                "notify": {"type": "boolean", "description": "Tell me"},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]}},
                "name": {"type": "string", "maxLength": 4}
            },
            "required": ["theme"]
        })
        .as_object()
        .unwrap()
        .clone()
    }

    /// Answers forms from a list, records what it was asked.
    struct Scripted {
        answers: std::sync::Mutex<std::collections::VecDeque<FormAnswer>>,
        url: UrlAnswer,
        reask: bool,
        asked: std::sync::Mutex<Vec<FormRequest>>,
        urls: std::sync::Mutex<Vec<UrlRequest>>,
    }

    impl Scripted {
        fn new(answers: Vec<FormAnswer>, reask: bool) -> Arc<Self> {
            Arc::new(Self { answers: std::sync::Mutex::new(answers.into()), url: UrlAnswer::Accept, reask, asked: Default::default(), urls: Default::default() })
        }
    }

    impl ElicitationHandler for Scripted {
        fn modes(&self) -> ElicitationModes {
            ElicitationModes::ALL
        }
        fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
            self.asked.lock().unwrap().push(request.clone());
            let answer = self.answers.lock().unwrap().pop_front().unwrap_or(FormAnswer::Decline("no more answers".into()));
            Box::pin(std::future::ready(answer))
        }
        fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
            self.urls.lock().unwrap().push(request.clone());
            Box::pin(std::future::ready(self.url.clone()))
        }
        fn reask_invalid(&self) -> bool {
            self.reask
        }
    }

    /// An elicitor answering for one call, whose notes the tests read.
    struct OneCall {
        elicitor: Elicitor,
        notes: Notes,
    }

    struct Notes(Arc<CallContext>);

    impl Notes {
        fn mark(&self) -> usize {
            self.0.notes().len()
        }
        fn since(&self, mark: usize) -> Vec<String> {
            self.0.notes()[mark..].to_vec()
        }
    }

    impl OneCall {
        async fn answer(&self, params: ElicitRequestParams) -> ElicitResult {
            self.elicitor.answer(params, std::slice::from_ref(&self.notes.0)).await
        }
    }

    fn elicitor(handler: Arc<dyn ElicitationHandler>) -> OneCall {
        OneCall { elicitor: Elicitor { server: "demo".into(), handler }, notes: Notes(Arc::default()) }
    }

    fn form_params(schema: Map<String, Value>) -> ElicitRequestParams {
        serde_json::from_value(json!({"mode": "form", "message": "Prefs?", "requestedSchema": schema})).unwrap()
    }

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn fields_are_read_from_the_schema() {
        let fields = form_fields(&schema());
        let names: Vec<_> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["theme", "size", "count", "notify", "tags", "name"], "required first, then in the order the server declared them");
        let theme = fields.iter().find(|f| f.name == "theme").unwrap();
        assert!(theme.required);
        assert_eq!(theme.title, "Theme");
        assert_eq!(theme.kind, FieldKind::Choice { options: vec![("light".into(), "light".into()), ("dark".into(), "dark".into())], multiple: false });
        let tags = fields.iter().find(|f| f.name == "tags").unwrap();
        assert!(matches!(&tags.kind, FieldKind::Choice { multiple: true, options } if options[1] == ("b".into(), "Beta".into())));
        assert_eq!(fields.iter().find(|f| f.name == "notify").unwrap().description.as_deref(), Some("Tell me"));
    }

    #[test]
    fn typed_parsing_of_answers() {
        let fields = form_fields(&schema());
        let field = |name: &str| fields.iter().find(|f| f.name == name).unwrap().clone();
        assert_eq!(field("theme").parse("2").unwrap(), Some(json!("dark")));
        assert_eq!(field("theme").parse("LIGHT").unwrap(), Some(json!("light")));
        assert!(field("theme").parse("neon").unwrap_err().0.contains("light, dark"));
        assert!(field("theme").parse("").unwrap_err().0.contains("required"));
        assert_eq!(field("size").parse("").unwrap(), Some(json!(14)));
        assert_eq!(field("size").parse("12.5").unwrap(), Some(json!(12.5)));
        assert!(field("size").parse("big").is_err());
        assert!(field("size").parse("99").unwrap_err().0.contains("between 8 and 32"), "bounds are checked at once");
        assert!(field("name").parse("Adelaide").unwrap_err().0.contains("at most 4"));
        assert_eq!(field("count").parse("3").unwrap(), Some(json!(3)));
        assert!(field("count").parse("3.5").is_err());
        assert_eq!(field("notify").parse("y").unwrap(), Some(json!(true)));
        assert_eq!(field("notify").parse("").unwrap(), None);
        assert_eq!(field("tags").parse("Alpha, 2").unwrap(), Some(json!(["a", "b"])));
    }

    #[tokio::test]
    async fn valid_answers_are_sent_invalid_ones_declined_with_the_problem() {
        let handler = Scripted::new(vec![FormAnswer::Accept(object(json!({"theme": "dark", "size": 9})))], false);
        let result = elicitor(handler).answer(form_params(schema())).await;
        assert_eq!(result.action, ElicitationAction::Accept);
        assert_eq!(result.content.unwrap()["theme"], "dark");

        let handler = Scripted::new(vec![FormAnswer::Accept(object(json!({"theme": "neon", "size": 99})))], false);
        let elicitor = elicitor(handler.clone());
        let result = elicitor.answer(form_params(schema())).await;
        assert_eq!(result.action, ElicitationAction::Decline);
        assert!(result.content.is_none());
        let notes = elicitor.notes.since(0);
        assert!(notes[0].contains("does not match") && notes[0].contains("theme") && notes[0].contains("size"), "{notes:?}");
        assert_eq!(handler.asked.lock().unwrap().len(), 1, "canned answers are not asked again");
    }

    #[tokio::test]
    async fn invalid_answers_are_asked_again_with_the_problems() {
        let handler = Scripted::new(
            vec![FormAnswer::Accept(object(json!({"theme": "neon"}))), FormAnswer::Accept(object(json!({"theme": "light"})))],
            true,
        );
        let result = elicitor(handler.clone()).answer(form_params(schema())).await;
        assert_eq!(result.action, ElicitationAction::Accept);
        let asked = handler.asked.lock().unwrap();
        assert_eq!(asked.len(), 2);
        assert_eq!(asked[1].attempt, 2);
        assert!(asked[1].problems[0].contains("theme"), "{:?}", asked[1].problems);
    }

    #[tokio::test]
    async fn declines_carry_reasons_and_the_default_handler_says_why() {
        let elicitor_default = elicitor(Arc::new(DeclineElicitation::default()));
        let result = elicitor_default.answer(form_params(schema())).await;
        assert_eq!(result.action, ElicitationAction::Decline);
        let notes = elicitor_default.notes.since(0);
        assert!(notes[0].contains("did not advertise form-mode") && notes[0].contains("no way to ask"), "{notes:?}");

        let url: ElicitRequestParams = serde_json::from_value(json!({"mode": "url", "message": "Link", "url": "https://example.com/x", "elicitationId": "e1"})).unwrap();
        let result = elicitor_default.answer(url).await;
        assert_eq!(result.action, ElicitationAction::Decline);
        assert!(elicitor_default.notes.since(1)[0].contains("url-mode"));
    }

    #[tokio::test]
    async fn urls_are_shown_with_their_domain_and_unusable_ones_declined() {
        let handler = Scripted::new(Vec::new(), false);
        let elicitor = elicitor(handler.clone());
        let ask = |url: &str| serde_json::from_value::<ElicitRequestParams>(json!({"mode": "url", "message": "Open", "url": url, "elicitationId": "e"})).unwrap();
        assert_eq!(elicitor.answer(ask("https://good.example@evil.example/pay?x=1")).await.action, ElicitationAction::Accept);
        let shown = handler.urls.lock().unwrap().pop().unwrap();
        assert_eq!(shown.domain, "evil.example");
        assert_eq!(shown.url, "https://good.example@evil.example/pay?x=1");
        assert!(shown.warnings[0].contains("really on evil.example"), "{:?}", shown.warnings);

        elicitor.answer(ask("http://xn--pple-43d.com/")).await;
        let shown = handler.urls.lock().unwrap().pop().unwrap();
        assert!(shown.warnings.iter().any(|w| w.contains("punycode")) && shown.warnings.iter().any(|w| w.contains("not encrypted")), "{:?}", shown.warnings);
        elicitor.answer(ask("http://127.0.0.1:9/link")).await;
        assert!(handler.urls.lock().unwrap().pop().unwrap().warnings.is_empty());

        for bad in ["file:///etc/passwd", "javascript:alert(1)", "not a url"] {
            let mark = elicitor.notes.mark();
            assert_eq!(elicitor.answer(ask(bad)).await.action, ElicitationAction::Decline, "{bad}");
            assert!(elicitor.notes.since(mark)[0].contains("declined"), "{bad}");
        }
        assert!(handler.urls.lock().unwrap().is_empty(), "unusable URLs never reach the user");
    }
}
