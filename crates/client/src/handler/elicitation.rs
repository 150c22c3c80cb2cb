//! Elicitation: a server asking the user for input in the middle of a call.
//!
//! Two modes (MCP 2025-11-25): *form* (a message and a flat JSON Schema of primitive fields) and
//! *URL* (a message and a web page the user should open themselves, for OAuth, payments and the
//! like). They reach us either as server→client `elicitation/create` requests (protocol versions
//! up to 2025-11-25) or, on 2026-07-28, inside an `input_required` result the call step answers
//! and retries; both paths end in [`Elicitor::answer`]. The questions and answers as data, the
//! handler trait and the checks are `mcp-canvas-elicitation`'s (re-exported here).
//!
//! A front end answers through an [`ElicitationHandler`]; the host does the checks around it,
//! whatever the front end is:
//! - a form answer is validated against the `requestedSchema` before it is sent; an invalid one
//!   is asked again (when the handler can ask again) or declined with the problems named;
//! - a URL is parsed, only `http(s)` is offered, and the handler is given the full URL *and* its
//!   domain (with warnings for look-alike or credential-carrying URLs); nothing is opened here;
//! - every decline carries a reason, recorded as a warning of the call — never silently.

use std::sync::Arc;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use mcp_canvas_elicitation::*;

use crate::call_context::CallContext;

/// How many times an invalid form answer is asked again before it is declined.
const MAX_FORM_ATTEMPTS: u32 = 3;

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
                    let problems = match mcp_canvas_elicitation::validation::problems(&request.schema, &content) {
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
            Err(reason) => return self.host_declines("url", &message, reason.0),
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
