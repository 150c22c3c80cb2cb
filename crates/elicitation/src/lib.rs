//! The questions a server may ask the user in the middle of a call (MCP elicitation), as data
//! and checks, whatever asks them: the two modes' requests and answers, the [`ElicitationHandler`]
//! a front end implements (dialogs, the terminal, declining), the flat form fields a terminal
//! asks one by one, checking a URL before it is offered ([`inspect_url`]), and JSON Schema
//! checks of arguments and answers ([`validation`]). The client's handler
//! (`mcp_canvas_client::elicitation::Elicitor`) puts them to work on a connection.

pub mod validation;

use std::{future::Future, pin::Pin};

use serde::Serialize;
use serde_json::{Map, Value};
use ts_rs::TS;

/// A boxed, sendable future (what [`ElicitationHandler`] methods return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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

/// The domain to show for a URL and what to warn about, or why it is not offered at all.
pub fn inspect_url(raw: &str) -> Result<(String, Vec<String>), UrlRefused> {
    let url = url::Url::parse(raw).map_err(|e| UrlRefused(format!("the URL {raw:?} is not valid ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UrlRefused(format!("only http(s) pages are offered to the user, and this URL is `{}:`", url.scheme())));
    }
    let domain = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| UrlRefused(format!("the URL {raw:?} names no host")))?.to_owned();
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

/// Why a URL is not offered to the user (not a URL, not http(s), no host).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UrlRefused(pub String);
