//! What `call` does while a tool runs: answer the server's questions (elicitation) and show its
//! progress.
//!
//! Questions are answered from `--answers FILE` when given, else asked on the terminal (one
//! prompt per form field; consent before any URL), else declined with the reason printed —
//! never silently. Progress is a bar on stderr when stderr is a terminal, a line per second
//! otherwise.

use std::{
    collections::VecDeque,
    io::{IsTerminal as _, Write as _},
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        Mutex, OnceLock,
    },
    time::{Duration, Instant},
};

use indicatif::{ProgressBar, ProgressStyle};
use mcp_canvas_elicitation::{form_fields, BoxFuture, ElicitationEvent, ElicitationHandler, ElicitationModes, FieldKind, FormAnswer, FormField, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_client::CallProgress;
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------------
// Answers file
// ---------------------------------------------------------------------------------------------

/// One scripted answer to a form.
#[derive(Debug, Clone, PartialEq)]
enum FormScript {
    Answer(Map<String, Value>),
    Decline,
    Cancel,
}

/// `--answers FILE`: either an object used as the answer to every form, or
/// `{"form": [answers in order], "url": "accept" | "decline" | "cancel"}` where an answer may also
/// be `"decline"` or `"cancel"`.
#[derive(Debug, Clone, PartialEq)]
struct Answers {
    path: PathBuf,
    every_form: Option<Map<String, Value>>,
    forms: VecDeque<FormScript>,
    url: Option<UrlAnswer>,
    forms_asked: usize,
}

impl Answers {
    fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the answers file {}: {e}", path.display()))?;
        Self::parse(path, &text).map_err(|e| format!("answers file {}: {e}", path.display()))
    }

    fn parse(path: &Path, text: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
        let Value::Object(object) = value else {
            return Err("must be a JSON object: the answer to every form, or {\"form\": [...], \"url\": \"accept\"}".to_owned());
        };
        let mut answers = Self { path: path.to_owned(), every_form: None, forms: VecDeque::new(), url: None, forms_asked: 0 };
        let scripted = !object.is_empty()
            && object.keys().all(|k| k == "form" || k == "url")
            && object.get("form").is_none_or(Value::is_array)
            && object.get("url").is_none_or(Value::is_string);
        if !scripted {
            answers.every_form = Some(object);
            return Ok(answers);
        }
        for (i, item) in object.get("form").and_then(Value::as_array).into_iter().flatten().enumerate() {
            answers.forms.push_back(match item {
                Value::Object(answer) => FormScript::Answer(answer.clone()),
                Value::String(s) if s == "decline" => FormScript::Decline,
                Value::String(s) if s == "cancel" => FormScript::Cancel,
                other => return Err(format!("`form[{i}]` must be an object of field values, \"decline\" or \"cancel\", not {other}")),
            });
        }
        answers.url = match object.get("url").and_then(Value::as_str) {
            None => None,
            Some("accept") => Some(UrlAnswer::Accept),
            Some("decline") => Some(UrlAnswer::Decline(format!("the answers file {} says decline", path.display()))),
            Some("cancel") => Some(UrlAnswer::Cancel),
            Some(other) => return Err(format!("`url` must be \"accept\", \"decline\" or \"cancel\", not {other:?}")),
        };
        Ok(answers)
    }

    fn next_form(&mut self) -> FormAnswer {
        self.forms_asked += 1;
        if let Some(every) = &self.every_form {
            return FormAnswer::Accept(every.clone());
        }
        match self.forms.pop_front() {
            Some(FormScript::Answer(answer)) => FormAnswer::Accept(answer),
            Some(FormScript::Decline) => FormAnswer::Decline(format!("the answers file {} says decline", self.path.display())),
            Some(FormScript::Cancel) => FormAnswer::Cancel,
            None => FormAnswer::Decline(format!("the answers file {} has no answer for form #{}", self.path.display(), self.forms_asked)),
        }
    }

    fn url(&self) -> UrlAnswer {
        self.url.clone().unwrap_or_else(|| UrlAnswer::Decline(format!("the answers file {} has no \"url\" answer (\"accept\" or \"decline\")", self.path.display())))
    }
}

// ---------------------------------------------------------------------------------------------
// The handler
// ---------------------------------------------------------------------------------------------

enum Source {
    File(Mutex<Answers>),
    Terminal,
    Nothing,
}

/// Answers elicitation for `mcp-canvas-cli call`.
pub struct CliElicitation {
    source: Source,
}

impl CliElicitation {
    /// From `--answers FILE` if given, else the terminal if stdin is one, else nothing (decline).
    pub(crate) fn new(answers: Option<&Path>) -> Result<Self, String> {
        let source = match answers {
            Some(path) => Source::File(Mutex::new(Answers::read(path)?)),
            None if std::io::stdin().is_terminal() => Source::Terminal,
            None => Source::Nothing,
        };
        Ok(Self { source })
    }
}

const NO_WAY_TO_ASK: &str = "there is no terminal to ask on (stdin is not a TTY) and no --answers FILE was given";

impl ElicitationHandler for CliElicitation {
    fn modes(&self) -> ElicitationModes {
        // Advertised even without a way to ask, so servers ask and hear a reasoned decline.
        ElicitationModes::ALL
    }

    fn reask_invalid(&self) -> bool {
        matches!(self.source, Source::Terminal)
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(async move {
            let answer = match &self.source {
                Source::File(answers) => answers.lock().unwrap().next_form(),
                Source::Nothing => FormAnswer::Decline(NO_WAY_TO_ASK.to_owned()),
                Source::Terminal => {
                    let request = request.clone();
                    let _paused = terminal().pause();
                    return tokio::task::spawn_blocking(move || prompt_form(&request)).await.unwrap_or(FormAnswer::Cancel);
                }
            };
            let said = match &answer {
                FormAnswer::Accept(_) => "answered from the answers file".to_owned(),
                FormAnswer::Decline(reason) => format!("declined: {reason}"),
                FormAnswer::Cancel => "cancelled (the answers file says cancel)".to_owned(),
            };
            terminal().note(&format!("server `{}` asks: {} — {said}", request.server, one_line(&request.message)));
            answer
        })
    }

    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(async move {
            let answer = match &self.source {
                Source::File(answers) => answers.lock().unwrap().url(),
                Source::Nothing => UrlAnswer::Decline(NO_WAY_TO_ASK.to_owned()),
                Source::Terminal => {
                    let request = request.clone();
                    let _paused = terminal().pause();
                    return tokio::task::spawn_blocking(move || prompt_url(&request)).await.unwrap_or(UrlAnswer::Cancel);
                }
            };
            let said = match &answer {
                UrlAnswer::Accept => format!("accepted by the answers file; open it yourself: {}", request.url),
                UrlAnswer::Decline(reason) => format!("declined, not opened: {reason}"),
                UrlAnswer::Cancel => "cancelled (the answers file says cancel), not opened".to_owned(),
            };
            terminal().note(&format!(
                "server `{}` asks you to open {} (domain {}): {} — {said}",
                request.server,
                request.url,
                request.domain,
                one_line(&request.message)
            ));
            answer
        })
    }

    fn event(&self, event: &ElicitationEvent<'_>) {
        match event {
            ElicitationEvent::Declined { server, mode, reason } => terminal().note(&format!("declined a {mode} request from server `{server}`: {reason}")),
            ElicitationEvent::Completed { server, elicitation_id } => terminal().note(&format!("server `{server}` says the step in the browser is done ({elicitation_id})")),
            _ => {}
        }
    }
}

fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 120 { line.chars().take(119).chain(['…']).collect() } else { line }
}

/// Reads one line from stdin; `None` at end of input.
fn read_line(prompt: &str) -> Option<String> {
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
    }
}

fn prompt_form(request: &FormRequest) -> FormAnswer {
    eprintln!();
    eprintln!("── Server `{}` asks for input ──", request.server);
    eprintln!("{}", request.message);
    if !request.problems.is_empty() {
        eprintln!("The previous answer was refused:");
        for problem in &request.problems {
            eprintln!("  - {problem}");
        }
    }
    loop {
        match read_line("Answer it? [Y]es / [n]o, decline / [c]ancel: ").map(|s| s.trim().to_ascii_lowercase()) {
            None => return FormAnswer::Cancel,
            Some(choice) if choice.is_empty() || choice == "y" || choice == "yes" => break,
            Some(choice) if choice == "n" || choice == "no" => return FormAnswer::Decline("the user declined".to_owned()),
            Some(choice) if choice == "c" || choice == "cancel" => return FormAnswer::Cancel,
            Some(_) => continue,
        }
    }
    let mut content = Map::new();
    for field in form_fields(&request.schema) {
        eprintln!("{}", describe(&field));
        loop {
            let Some(input) = read_line("> ") else { return FormAnswer::Cancel };
            match field.parse(&input) {
                Ok(Some(value)) => {
                    content.insert(field.name.clone(), value);
                    break;
                }
                Ok(None) => break,
                Err(problem) => eprintln!("  {problem}"),
            }
        }
    }
    FormAnswer::Accept(content)
}

/// How a field is introduced: title, required mark, bounds, options, default, description.
fn describe(field: &FormField) -> String {
    let mut head = field.title.clone();
    if field.required {
        head.push_str(" (required)");
    }
    let mut hints = Vec::new();
    match &field.kind {
        FieldKind::Text { format, min_length, max_length } => {
            if let Some(format) = format {
                hints.push(format.clone());
            }
            match (min_length, max_length) {
                (Some(min), Some(max)) => hints.push(format!("{min}–{max} characters")),
                (None, Some(max)) => hints.push(format!("up to {max} characters")),
                (Some(min), None) => hints.push(format!("at least {min} characters")),
                (None, None) => {}
            }
        }
        FieldKind::Number { integer, minimum, maximum } => {
            hints.push(if *integer { "whole number" } else { "number" }.to_owned());
            match (minimum, maximum) {
                (Some(min), Some(max)) => hints.push(format!("{min}–{max}")),
                (Some(min), None) => hints.push(format!("≥ {min}")),
                (None, Some(max)) => hints.push(format!("≤ {max}")),
                (None, None) => {}
            }
        }
        FieldKind::Boolean => hints.push("y/n".to_owned()),
        FieldKind::Choice { multiple: true, .. } => hints.push("numbers or values, separated by commas".to_owned()),
        FieldKind::Choice { multiple: false, .. } => hints.push("number or value".to_owned()),
        FieldKind::Other => hints.push("JSON".to_owned()),
    }
    if let Some(default) = &field.default {
        let shown = match default {
            Value::String(text) => text.clone(),
            Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => format!("{}", n.as_f64().unwrap_or_default() as i64),
            Value::Bool(true) => "yes".to_owned(),
            Value::Bool(false) => "no".to_owned(),
            other => other.to_string(),
        };
        hints.push(format!("Enter for {shown}"));
    } else if !field.required {
        hints.push("Enter to leave out".to_owned());
    }
    let mut text = format!("{head} [{}]", hints.join(", "));
    if let Some(description) = &field.description {
        text.push_str(&format!("\n  {description}"));
    }
    if let FieldKind::Choice { options, .. } = &field.kind {
        let listed: Vec<String> = options
            .iter()
            .enumerate()
            .map(|(i, (value, label))| if value == label { format!("{}) {value}", i + 1) } else { format!("{}) {label} ({value})", i + 1) })
            .collect();
        text.push_str(&format!("\n  {}", listed.join("  ")));
    }
    text
}

fn prompt_url(request: &UrlRequest) -> UrlAnswer {
    eprintln!();
    eprintln!("── Server `{}` asks you to open a web page ──", request.server);
    eprintln!("{}", request.message);
    eprintln!("  URL:    {}", request.url);
    eprintln!("  Domain: {}", request.domain);
    for warning in &request.warnings {
        eprintln!("  Warning: {warning}");
    }
    eprintln!("Nothing is opened automatically.");
    loop {
        match read_line("Will you open it yourself? [y]es / [N]o, decline / [c]ancel: ").map(|s| s.trim().to_ascii_lowercase()) {
            None => return UrlAnswer::Cancel,
            Some(choice) if choice == "y" || choice == "yes" => {
                eprintln!("Open this URL in your browser: {}", request.url);
                return UrlAnswer::Accept;
            }
            Some(choice) if choice.is_empty() || choice == "n" || choice == "no" => return UrlAnswer::Decline("the user declined to open the page".to_owned()),
            Some(choice) if choice == "c" || choice == "cancel" => return UrlAnswer::Cancel,
            Some(_) => continue,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Progress and notes on stderr
// ---------------------------------------------------------------------------------------------

/// stderr while a call runs: the progress bar, and notes printed above it.
pub struct Terminal {
    /// The bar, and whether the call is over (late reports are then ignored).
    bar: Mutex<(Option<ProgressBar>, bool)>,
    last_line: Mutex<Option<Instant>>,
    prompting: AtomicBool,
    is_tty: bool,
}

/// The process's stderr display.
pub fn terminal() -> &'static Terminal {
    static TERMINAL: OnceLock<Terminal> = OnceLock::new();
    TERMINAL.get_or_init(|| Terminal { bar: Mutex::new((None, false)), last_line: Mutex::new(None), prompting: AtomicBool::new(false), is_tty: std::io::stderr().is_terminal() })
}

/// While alive, progress is not drawn (a prompt owns the terminal).
pub struct Paused;

impl Drop for Paused {
    fn drop(&mut self) {
        terminal().prompting.store(false, Ordering::SeqCst);
    }
}

impl Terminal {
    /// Shows one progress report.
    pub fn progress(&self, report: &CallProgress) {
        if self.prompting.load(Ordering::SeqCst) {
            return;
        }
        let text = describe_progress(report);
        if !self.is_tty {
            if self.bar.lock().unwrap().1 {
                return;
            }
            // A log, not an animation: the first report, then at most one a second.
            let mut last = self.last_line.lock().unwrap();
            if last.is_none_or(|at| at.elapsed() >= Duration::from_secs(1)) {
                *last = Some(Instant::now());
                eprintln!("progress: {text}");
            }
            return;
        }
        let mut state = self.bar.lock().unwrap();
        if state.1 {
            return;
        }
        let bar = state.0.get_or_insert_with(|| match report.total {
            Some(_) => ProgressBar::new(1000).with_style(ProgressStyle::with_template("{spinner} [{bar:30}] {msg}").expect("template").progress_chars("=> ")),
            None => ProgressBar::new_spinner().with_style(ProgressStyle::with_template("{spinner} {msg}").expect("template")),
        });
        match report.total.filter(|t| *t > 0.0) {
            Some(total) => bar.set_position(((report.progress / total).clamp(0.0, 1.0) * 1000.0) as u64),
            None => bar.tick(),
        }
        bar.set_message(text);
    }

    /// Prints a line without tearing the bar.
    pub fn note(&self, line: &str) {
        match self.bar.lock().unwrap().0.as_ref() {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// Removes the bar while a prompt needs the terminal.
    fn clear(&self) {
        if let Some(bar) = self.bar.lock().unwrap().0.take() {
            bar.finish_and_clear();
        }
    }

    /// Removes the bar for good: the call is over, reports still in flight are not drawn.
    pub fn finish(&self) {
        let mut state = self.bar.lock().unwrap();
        state.1 = true;
        if let Some(bar) = state.0.take() {
            bar.finish_and_clear();
        }
    }

    fn pause(&self) -> Paused {
        self.prompting.store(true, Ordering::SeqCst);
        self.clear();
        Paused
    }
}

fn describe_progress(report: &CallProgress) -> String {
    let number = |n: f64| if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { format!("{n:.2}") };
    let mut text = match report.total.filter(|t| *t > 0.0) {
        Some(total) => format!("{}/{} ({:.0}%)", number(report.progress), number(total), (report.progress / total * 100.0).clamp(0.0, 100.0)),
        None => number(report.progress),
    };
    if let Some(message) = report.message.as_deref().filter(|m| !m.is_empty()) {
        text.push_str(&format!(" {}", one_line(message)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Result<Answers, String> {
        Answers::parse(Path::new("answers.json"), text)
    }

    #[test]
    fn a_plain_object_answers_every_form() {
        let mut answers = parse(r#"{"theme": "dark", "font_size": 12}"#).unwrap();
        for _ in 0..2 {
            assert_eq!(answers.next_form(), FormAnswer::Accept(json!({"theme": "dark", "font_size": 12}).as_object().unwrap().clone()));
        }
        assert!(matches!(answers.url(), UrlAnswer::Decline(reason) if reason.contains("no \"url\" answer")));
        // A form field that happens to be called `url` is still a plain answer.
        let answers = parse(r#"{"url": "https://example.com", "name": "x"}"#).unwrap();
        assert!(answers.every_form.is_some());
    }

    #[test]
    fn scripted_answers_go_in_order() {
        let mut answers = parse(r#"{"form": [{"a": 1}, "decline", "cancel"], "url": "accept"}"#).unwrap();
        assert_eq!(answers.next_form(), FormAnswer::Accept(json!({"a": 1}).as_object().unwrap().clone()));
        assert!(matches!(answers.next_form(), FormAnswer::Decline(reason) if reason.contains("says decline")));
        assert_eq!(answers.next_form(), FormAnswer::Cancel);
        assert!(matches!(answers.next_form(), FormAnswer::Decline(reason) if reason.contains("no answer for form #4")));
        assert_eq!(answers.url(), UrlAnswer::Accept);
        assert!(matches!(parse(r#"{"url": "decline"}"#).unwrap().url(), UrlAnswer::Decline(_)));
        assert!(parse(r#"{"url": "maybe"}"#).unwrap_err().contains("`url`"));
        assert!(parse(r#"{"form": [3]}"#).unwrap_err().contains("form[0]"));
        assert!(parse("[1]").unwrap_err().contains("JSON object"));
        assert!(parse("{").unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn progress_lines() {
        assert_eq!(describe_progress(&CallProgress { progress: 3.0, total: Some(20.0), message: Some("step 3 of 20".into()) }), "3/20 (15%) step 3 of 20");
        assert_eq!(describe_progress(&CallProgress { progress: 0.5, total: None, message: None }), "0.50");
    }

    #[test]
    fn fields_are_introduced_with_their_hints() {
        let schema = json!({"properties": {
            "theme": {"type": "string", "title": "Theme", "enum": ["light", "dark"], "description": "Colours"},
            "size": {"type": "number", "minimum": 8, "maximum": 32, "default": 14}
        }, "required": ["theme"]});
        let fields = form_fields(schema.as_object().unwrap());
        let theme = describe(&fields.iter().find(|f| f.name == "theme").unwrap().clone());
        assert_eq!(theme, "Theme (required) [number or value]\n  Colours\n  1) light  2) dark");
        let size = describe(&fields.iter().find(|f| f.name == "size").unwrap().clone());
        assert_eq!(size, "size [number, 8–32, Enter for 14]");
    }
}
