//! Sampling from the command line: `--sampling ask|always|never` (servers' LLM requests asked
//! about on the terminal, answered, or refused), and `sampling log SERVER [--json]` /
//! `sampling export SERVER` over the transcript in the data dir's catalog, and `sampling set-key
//! / delete-key PROVIDER` for API keys in the OS keyring.

use std::{
    io::{BufRead, IsTerminal, Write},
    sync::{Arc, Mutex},
};

use clap::Subcommand;
use mcp_canvas_sampling::{keys::ApiKey, provider::BoxFuture, sampler::{Approval, ApprovalRequest, Review, ReviewRequest}, Approver, Block, Message};
use mcp_canvas_host::Host;

/// `mcp-canvas-cli sampling …`
#[derive(Subcommand)]
pub enum SamplingCommand {
    /// A server's sampling exchanges, newest first: decision, provider/model, latency, tokens.
    Log {
        /// Server name.
        server: String,
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Print the exchanges as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A server's exchanges as one conversation: their MCP content-block messages, oldest first, as JSON.
    Export {
        /// Server name.
        server: String,
    },
    /// Stores a provider's API key in the OS keyring (asked without echo on a terminal, else one
    /// line from standard input) and marks the provider as taking its key from there.
    SetKey {
        /// The provider's name in `[[sampling.providers]]`.
        provider: String,
    },
    /// Removes a provider's API key from the OS keyring.
    DeleteKey {
        /// The provider's name in `[[sampling.providers]]`.
        provider: String,
    },
}

/// Runs a `sampling` subcommand; the exit code.
pub fn run(host: &Host, command: SamplingCommand) -> std::process::ExitCode {
    std::process::ExitCode::from(run_code(host, command))
}

fn run_code(host: &Host, command: SamplingCommand) -> u8 {
    match command {
        SamplingCommand::Log { server, limit, json } => match host.sampling_log(Some(&server), limit) {
            Ok(records) if json => {
                outln!("{}", serde_json::to_string_pretty(&records).expect("records serialize"));
                0
            }
            Ok(records) if records.is_empty() => {
                outln!("{}", format!("`{server}` has made no sampling requests in this data dir."));
                0
            }
            Ok(records) => {
                for r in records {
                    let answer = r.response.as_ref().map(|res| one_line(&res.message())).or(r.error.clone()).unwrap_or_default();
                    let when = chrono_like(r.at_ms);
                    let model = if r.model.is_empty() { "-".to_owned() } else { format!("{}/{}", r.provider, r.model) };
                    outln!(
                        "{}",
                        format!(
                        "{when}  {:<15} {model:<24} {:>6} ms  {:>5}→{:<5} {}  {}",
                        serde_json::to_value(r.decision).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
                        r.latency_ms,
                        r.usage.input_tokens,
                        r.usage.output_tokens,
                        if r.structured { "schema" } else { "      " },
                        cut(&answer, 60)
                        )
                    );
                }
                0
            }
            Err(e) => {
                eprintln!("mcp-canvas-cli: {e}");
                1
            }
        },
        SamplingCommand::SetKey { provider } => {
            let key = match read_key(&provider) {
                Ok(key) if !key.trim().is_empty() => key,
                Ok(_) => {
                    eprintln!("mcp-canvas-cli: no key given; nothing stored");
                    return 2;
                }
                Err(e) => {
                    eprintln!("mcp-canvas-cli: cannot read the key: {e}");
                    return 1;
                }
            };
            match host.set_provider_key(&provider, Some(ApiKey::new(key.trim()))) {
                Ok(_) => {
                    outln!("{}", format!("The API key of `{provider}` is in the OS keyring; settings.toml now says api_key_keyring = true."));
                    0
                }
                Err(e) => {
                    eprintln!("mcp-canvas-cli: {e}");
                    1
                }
            }
        }
        SamplingCommand::DeleteKey { provider } => match host.set_provider_key(&provider, None) {
            Ok(_) => {
                outln!("{}", format!("The API key of `{provider}` is no longer in the OS keyring."));
                0
            }
            Err(e) => {
                eprintln!("mcp-canvas-cli: {e}");
                1
            }
        },
        SamplingCommand::Export { server } => match host.sampling_log(Some(&server), u32::MAX) {
            Ok(records) => {
                let messages: Vec<&Message> = records.iter().rev().filter_map(|r| r.exchange.as_ref()).flat_map(|e| &e.messages).collect();
                outln!("{}", serde_json::to_string_pretty(&messages).expect("messages serialize"));
                0
            }
            Err(e) => {
                eprintln!("mcp-canvas-cli: {e}");
                1
            }
        },
    }
}

/// The key: typed without echo on a terminal, else the first line of standard input.
fn read_key(provider: &str) -> std::io::Result<String> {
    if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("API key for `{provider}` (not shown): "))
    } else {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        Ok(line)
    }
}

/// `YYYY-MM-DD HH:MM:SS` UTC from ms since the epoch (no date crate for one column).
fn chrono_like(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60)
}

fn cut(text: &str, max: usize) -> String {
    let line = text.replace('\n', " ");
    if line.chars().count() <= max { line } else { format!("{}…", line.chars().take(max).collect::<String>()) }
}

/// A message on one line: text as is, other blocks named.
fn one_line(message: &Message) -> String {
    message
        .content
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.clone(),
            Block::Image { mime_type, data } => format!("[image {mime_type}, {} base64 chars]", data.len()),
            Block::Audio { mime_type, .. } => format!("[audio {mime_type}]"),
            Block::ToolUse { name, input, .. } => format!("{name}({})", serde_json::Value::Object(input.clone())),
            Block::ToolResult { tool_use_id, .. } => format!("[result of {tool_use_id}]"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asks on the terminal (questions and the request to stderr, answers from stdin).
pub struct TerminalApprover<R> {
    input: Mutex<R>,
    output: Mutex<Box<dyn Write + Send>>,
}

impl TerminalApprover<std::io::BufReader<std::io::Stdin>> {
    /// On this process's terminal, when stdin and stderr are one.
    pub fn on_terminal() -> Option<Self> {
        (std::io::stdin().is_terminal() && std::io::stderr().is_terminal()).then(|| Self::new(std::io::BufReader::new(std::io::stdin()), Box::new(std::io::stderr())))
    }
}

impl<R: BufRead + Send> TerminalApprover<R> {
    /// Reads answers from `input`, writes to `output`.
    pub fn new(input: R, output: Box<dyn Write + Send>) -> Self {
        Self { input: Mutex::new(input), output: Mutex::new(output) }
    }

    fn say(&self, text: &str) {
        let mut out = self.output.lock().unwrap();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    fn ask(&self, question: &str) -> String {
        {
            let mut out = self.output.lock().unwrap();
            let _ = write!(out, "{question} ");
            let _ = out.flush();
        }
        let mut line = String::new();
        let _ = self.input.lock().unwrap().read_line(&mut line);
        line.trim().to_owned()
    }

    fn show(&self, ask: &ApprovalRequest) {
        self.say(&format!("\n`{}` asks for an LLM completion ({} / {}):", ask.server, ask.provider, ask.model));
        for note in &ask.notes {
            self.say(&format!("  note: {note}"));
        }
        if let Some(system) = &ask.request.system_prompt {
            self.say(&format!("  system: {system}"));
        }
        for message in &ask.request.messages {
            self.say(&format!("  {:?}: {}", message.role, one_line(message)).to_lowercase().replacen("user:", "user:", 1));
        }
        if !ask.request.tools.is_empty() {
            let names: Vec<&str> = ask.request.tools.iter().map(|t| t.name.as_str()).collect();
            self.say(&format!("  tools: {} (choice: {:?})", names.join(", "), ask.request.choice()));
        }
        self.say(&format!("  max tokens: {}", ask.request.max_tokens));
    }

    /// The approval flow, synchronous (tests drive it with a byte buffer).
    pub fn decide(&self, ask: &ApprovalRequest) -> Approval {
        self.show(ask);
        loop {
            match self.ask("Approve? [y]es / [n]o / [e]dit prompt / [r]eview the answer too:").as_str() {
                "y" | "yes" => return Approval::Approve { request: None, model: None, review: false },
                "r" => return Approval::Approve { request: None, model: None, review: true },
                "e" => {
                    let text = self.ask("New prompt (one line):");
                    let mut request = ask.request.clone();
                    if let Some(last) = request.messages.iter_mut().rev().find(|m| m.content.iter().any(|b| matches!(b, Block::Text { .. }))) {
                        last.content.retain(|b| !matches!(b, Block::Text { .. }));
                        last.content.insert(0, Block::text(text));
                    }
                    return Approval::Approve { request: Some(request), model: None, review: false };
                }
                "n" | "no" | "" => {
                    let reason = self.ask("Why (sent to the server)?");
                    return Approval::Reject { reason: if reason.is_empty() { "rejected at the terminal".to_owned() } else { reason } };
                }
                _ => self.say("Answer y, n, e or r."),
            }
        }
    }

    /// The review flow.
    pub fn check(&self, review: &ReviewRequest) -> Review {
        self.say(&format!("\nThe model's answer for `{}`: {}", review.server, one_line(&review.result.message())));
        match self.ask("Send it? [y]es / [n]o / [e]dit:").as_str() {
            "y" | "yes" => Review::Send { result: None },
            "e" => {
                let mut result = review.result.clone();
                result.content = vec![Block::text(self.ask("Answer to send (one line):"))];
                Review::Send { result: Some(result) }
            }
            _ => Review::Reject { reason: "rejected at the terminal".to_owned() },
        }
    }
}

impl<R: BufRead + Send + 'static> Approver for TerminalApprover<R> {
    fn approve<'a>(&'a self, ask: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        Box::pin(async move { tokio::task::block_in_place(|| self.decide(ask)) })
    }
    fn review<'a>(&'a self, review: &'a ReviewRequest) -> BoxFuture<'a, Review> {
        Box::pin(async move { tokio::task::block_in_place(|| self.check(review)) })
    }
}

/// The approver for this run: the terminal when there is one (an Arc, shareable).
pub fn approver() -> Option<Arc<dyn Approver>> {
    TerminalApprover::on_terminal().map(|t| Arc::new(t) as Arc<dyn Approver>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_canvas_sampling::SamplingRequest;

    fn ask() -> ApprovalRequest {
        ApprovalRequest {
            server: "demo".into(),
            request: SamplingRequest::user("Name a fruit.", 50),
            provider: "local".into(),
            model: "m".into(),
            models: vec!["m".into()],
            structured: false,
            notes: vec![],
            review: false,
        }
    }

    fn terminal(answers: &str) -> TerminalApprover<std::io::Cursor<Vec<u8>>> {
        TerminalApprover::new(std::io::Cursor::new(answers.as_bytes().to_vec()), Box::new(std::io::sink()))
    }

    #[test]
    fn approve_edit_reject_and_review_from_typed_answers() {
        assert_eq!(terminal("y\n").decide(&ask()), Approval::Approve { request: None, model: None, review: false });
        assert_eq!(terminal("what\nr\n").decide(&ask()), Approval::Approve { request: None, model: None, review: true });
        let Approval::Approve { request: Some(edited), .. } = terminal("e\nName a vegetable.\n").decide(&ask()) else { panic!("edited") };
        assert_eq!(edited.messages[0].text(), "Name a vegetable.");
        assert_eq!(terminal("n\ntoo costly\n").decide(&ask()), Approval::Reject { reason: "too costly".into() });
        assert_eq!(terminal("n\n\n").decide(&ask()), Approval::Reject { reason: "rejected at the terminal".into() });
        let result = serde_json::from_value(serde_json::json!({"model": "m", "role": "assistant", "content": {"type": "text", "text": "Apple"}})).unwrap();
        let review = ReviewRequest { server: "demo".into(), request: SamplingRequest::user("x", 5), result, provider: "local".into() };
        assert_eq!(terminal("y\n").check(&review), Review::Send { result: None });
        let Review::Send { result: Some(edited) } = terminal("e\nPear\n").check(&review) else { panic!("edited") };
        assert_eq!(edited.content, vec![Block::text("Pear")]);
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(chrono_like(0), "1970-01-01 00:00:00");
        assert_eq!(chrono_like(1_795_564_800_000), "2026-11-25 00:00:00");
        assert_eq!(chrono_like(951_782_400_000 + 3_723_000), "2000-02-29 01:02:03");
    }
}
