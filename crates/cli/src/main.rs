//! `mcp-canvas-cli`: the same host as the desktop app, driven from a terminal.
//!
//! Exit codes: 0 success, 1 the call could not be made (bad config, server, tool, arguments,
//! unreadable input, timeout), 2 the tool ran and reported an error, 130 the call was cancelled
//! with Ctrl-C. A reader that closes stdout early (`| head -1`) is not an error: the output ends
//! there, quietly, and the exit code is what it would have been (see `out`).

#[macro_use]
mod out;

mod allowlist;
mod apps;
mod artifacts;
mod audit;
mod preview;
mod prompts;
mod proxy;
mod interactive;
mod resources;
mod search;
mod servers;
mod sampling;
mod settings;
mod store;

use std::{path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use clap::{Parser, Subcommand};
use std::io::IsTerminal as _;

use mcp_canvas_config::data_dir;
use mcp_canvas_sampling::PolicyMode;
use mcp_canvas_wire::CallOutcome;
use mcp_canvas_host::{CallControl, CallOptions, Host, HostError, HostOptions};
use tokio_util::sync::CancellationToken;

/// How long `call` waits for a tool unless the server's `timeout_seconds` or `--timeout` says
/// otherwise.
const DEFAULT_CALL_TIMEOUT_S: u64 = 60;

#[derive(Parser)]
#[command(name = "mcp-canvas-cli", version, about = "MCP Canvas from the command line")]
struct Cli {
    /// Data directory (server config, artifacts, logs). Default: $MCP_CANVAS_DATA_DIR, else the
    /// platform data dir (~/.local/share/mcp-canvas).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Session the artifacts of `call`/`normalize` belong to (cleared together). Default: `cli`
    /// (the proxy: `proxy`). With `artifacts list`: only that session's artifacts (default: all).
    // No clap default: it would reach `artifacts list --session` (same id) as a filter.
    #[arg(long, global = true)]
    session: Option<String>,
    /// Servers' LLM requests (sampling): `ask` on the terminal, answer them `always`, or `never`.
    /// Default: settings.toml's [sampling] policy, asked on the terminal when there is one.
    #[arg(long, global = true, env = "MCP_CANVAS_SAMPLING", value_name = "ask|always|never")]
    sampling: Option<PolicyMode>,
    /// Append every JSON-RPC message to and from every server to FILE, one JSON line each (time,
    /// direction, method, id, size, latency; secrets redacted, base64 runs as a note naming the
    /// artifact they become), as the app's protocol view shows them.
    #[arg(long, global = true, value_name = "FILE")]
    trace: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Call a tool and store what it returns; prints a model-safe summary.
    Call {
        /// Server name from the config (the bundled one is `demo`).
        server: String,
        /// Tool name.
        tool: String,
        /// Arguments as a JSON object.
        #[arg(long, default_value = "{}")]
        args: String,
        /// A file for the tool's file argument NAME (SEP-2356 `x-mcp-file`, `openai/fileParams`):
        /// a path on this machine (stored first) or a stored artifact's id. Repeat it; giving the
        /// same NAME again fills a list.
        #[arg(long = "file", value_name = "NAME=PATH_OR_ARTIFACT_ID")]
        files: Vec<String>,
        /// Print the outcome as JSON (summary, artifacts, warnings, error).
        #[arg(long)]
        json: bool,
        /// Seconds to wait for the tool (time spent answering the server's questions does not
        /// count). Overrides the server's `timeout_seconds` in servers.json; default 60.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<u64>,
        /// Run tools that may change or delete data without asking (otherwise asked on a TTY,
        /// refused when there is none).
        #[arg(long)]
        yes: bool,
        /// Ask the server to run the call as a task and wait for it, with its status as progress
        /// (2025-11-25 servers, for tools that may run as tasks; a tool that must gets a task
        /// anyway, and on 2026-07-28 the server decides).
        #[arg(long)]
        task: bool,
        /// Answers to the server's questions (elicitation), as JSON: an object used as the
        /// answer to every form, or {"form": [answers in order, or "decline"/"cancel"], "url":
        /// "accept"|"decline"|"cancel"}. Without it questions are asked on the terminal, and
        /// declined (with the reason printed) when there is none.
        #[arg(long, value_name = "FILE")]
        answers: Option<PathBuf>,
    },
    /// Normalize a raw CallToolResult (JSON, from FILE or stdin) exactly as `call` would:
    /// store its artifacts in the data dir and print the model-safe summary.
    Normalize {
        /// Server name the result is attributed to (the artifact id namespace).
        #[arg(long)]
        server: String,
        /// Tool name the result came from (per-tool rules match on it).
        #[arg(long)]
        tool: String,
        /// File holding the raw result; `-` or nothing reads stdin.
        file: Option<PathBuf>,
        /// Print the whole outcome as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The audit log: every call, newest first (secrets redacted); with --team the team's
    /// audit trail (every member's calls and sampling exchanges).
    Audit(audit::AuditArgs),
    /// Print the sanitized HTML the canvas would display for FILE (or stdin).
    Sanitize {
        /// The HTML file; `-` or nothing reads stdin.
        file: Option<PathBuf>,
        /// The input is markdown (rendered, then sanitized).
        #[arg(long)]
        markdown: bool,
    },
    /// Write what the canvas shows for an artifact: a PDF page or image as PNG, or sanitized HTML.
    Preview {
        /// Artifact id.
        id: String,
        /// PDF page, from 1.
        #[arg(long, default_value_t = 1)]
        page: u32,
        /// Width in pixels.
        #[arg(long, default_value_t = 1200)]
        width: u32,
        /// Output file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Browse and manage stored artifacts.
    Artifacts {
        #[command(subcommand)]
        command: artifacts::ArtifactsCommand,
    },
    /// List the tools of a server.
    Tools {
        /// Server name from the config.
        server: String,
        /// Print JSON (per tool: name, title, description, input_schema, read_only, destructive).
        #[arg(long)]
        json: bool,
    },
    /// List a server's tools that have an MCP App view, each view read and checked (MIME type,
    /// size, the CSP it will be served with); exit 1 when one cannot be shown.
    Apps {
        /// Server name from the config.
        server: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List a server's resources and resource templates.
    Resources {
        /// Server name from the config.
        server: String,
        /// Print JSON (server, supported, resources, templates).
        #[arg(long)]
        json: bool,
    },
    /// Read a resource, store its contents as artifacts and print a model-safe summary.
    Read {
        /// Server name from the config.
        server: String,
        /// The resource URI (from `resources`, a template filled in, or a resource link).
        uri: String,
        /// Print the outcome as JSON (summary, artifacts, warnings); with --watch one line each.
        #[arg(long)]
        json: bool,
        /// Keep watching: read it again (and store what changed) each time the server says it
        /// changed, until Ctrl-C. Needs a server that offers resource subscriptions.
        #[arg(long)]
        watch: bool,
        /// With --watch: stop after this many changes.
        #[arg(long, value_name = "N", requires = "watch")]
        changes: Option<u32>,
    },
    /// Servers' sampling transcript: `log SERVER`, `export SERVER`.
    Sampling {
        #[command(subcommand)]
        command: sampling::SamplingCommand,
    },
    /// List a server's prompts and their arguments.
    Prompts {
        /// Server name from the config.
        server: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Fill in a server's prompt and print its messages.
    Prompt {
        /// Server name from the config.
        server: String,
        /// Prompt name (from `prompts`).
        name: String,
        /// Arguments as a JSON object (values are sent as strings).
        #[arg(long, default_value = "{}")]
        args: String,
        /// Print the prompt result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run as the one MCP server an AI host starts (Claude Desktop, Cursor, VS Code), in front of
    /// the configured servers: tools named <server>__<tool>, results model-safe (a summary,
    /// artifact:// links readable with resources/read, small images inline).
    Proxy {
        /// Expose only these servers (comma-separated; default: all configured).
        #[arg(long, value_delimiter = ',')]
        servers: Vec<String>,
        /// Serve Streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio (0 picks a free port).
        #[arg(long, value_name = "PORT")]
        http: Option<u16>,
        /// Print the config snippet for an AI host (claude, cursor, vscode) and exit.
        #[arg(long, value_name = "HOST")]
        print_config: Option<String>,
        /// Do not give forwarded tools MCP Canvas's own MCP App view of their files (on by
        /// default where the AI host renders MCP Apps; proxy.toml: viewer = false, per server or
        /// tool in a [[rule]]).
        #[arg(long)]
        no_viewer: bool,
    },
    /// The dashboard origin allowlist: list [--json] | add ORIGIN | rm ORIGIN | check URL.
    Allowlist {
        #[command(subcommand)]
        command: allowlist::AllowlistCommand,
    },
    /// Show or change the settings (settings.toml in the data dir).
    Settings {
        #[command(subcommand)]
        command: settings::SettingsCommand,
    },
    /// The team store (`[store] backend = "team"`): status | sync | migrate | upgrade | list |
    /// pull ID | private ID | share ID | gc | set-password.
    Store {
        #[command(subcommand)]
        command: store::StoreCommand,
    },
    /// Work with the server config.
    Servers {
        #[command(subcommand)]
        command: servers::ServersCommand,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = if matches!(cli.command, Command::Proxy { .. }) {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
    }
    .expect("tokio runtime starts");
    let code = runtime.block_on(run(cli));
    // A terminal prompt cancelled by Ctrl-C may still be blocked reading stdin; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(200));
    // Output that could not be written (other than to a reader that went away) is a failure.
    if out::failed() { ExitCode::from(1) } else { code }
}

async fn run(cli: Cli) -> ExitCode {
    if let Command::Proxy { print_config: Some(ai_host), servers, .. } = &cli.command {
        return proxy::print_config(ai_host, cli.data_dir.as_deref(), servers);
    }
    // Proxied calls keep their artifacts in their own session unless one is named.
    let session = match (&cli.command, &cli.session) {
        (_, Some(named)) => named.clone(),
        (Command::Proxy { .. }, None) => "proxy".to_owned(),
        (_, None) => "cli".to_owned(),
    };
    let (json, timeout) = match &cli.command {
        Command::Call { json, .. } => (*json, DEFAULT_CALL_TIMEOUT_S),
        Command::Normalize { json, .. } => (*json, 120),
        _ => (false, 120),
    };
    let host = match open_host(cli.data_dir.as_deref(), timeout, session) {
        Ok(host) => host,
        Err(e) => return fail(json, &e.to_string()),
    };
    let host = match &cli.trace {
        Some(path) => match host.with_trace(path) {
            Ok(host) => host,
            Err(e) => return fail(json, &e.to_string()),
        },
        None => host,
    };
    let proxy = matches!(cli.command, Command::Proxy { .. });
    // Only the proxy lives long enough for servers' list changes; a one-shot command leaves no
    // `subscriptions/listen` request open behind it (a server may wait for it before exiting).
    let host = if proxy { host } else { host.without_list_changes() };
    // `call` answers the server's questions: from --answers FILE, else on the terminal, else it
    // declines and says why.
    let host = match &cli.command {
        Command::Call { answers, .. } => match interactive::CliElicitation::new(answers.as_deref()) {
            Ok(handler) => host.with_elicitation(Arc::new(handler)),
            Err(e) => return fail(json, &e),
        },
        _ => host,
    };
    // `servers login` opens the system browser (and prints the URL); nothing else signs in
    // unasked: a call to a server that wants a sign-in fails and says to run it.
    let host = match &cli.command {
        Command::Servers { command: servers::ServersCommand::Login { .. } } => host.with_browser(Arc::new(mcp_canvas_client::oauth::SystemBrowser), Default::default()),
        _ => host,
    };
    // Servers' sampling requests: asked on the terminal when there is one (with --sampling ask
    // or settings' `ask`); without one, `ask` means `never` (not offered), `always` still answers.
    // Not for the proxy: its stdin is the AI host's stream (and its sampling goes to the AI host
    // or the app), and a terminal prompt would block its single-threaded runtime.
    let terminal = if proxy { None } else { sampling::approver() };
    let host = match terminal {
        Some(approver) => host.with_sampling(approver, cli.sampling),
        None => host.with_unattended_sampling(cli.sampling),
    };
    let code = match cli.command {
        // Its keys are in the OS keyring (D-Bus): this worker's other tasks move elsewhere meanwhile.
        Command::Sampling { command } => tokio::task::block_in_place(|| sampling::run(&host, command)),
        Command::Proxy { servers, http, no_viewer, .. } => return proxy::serve(host, servers, http, !no_viewer).await,
        Command::Call { server, tool, args, files, json, yes, task, timeout, .. } => {
            call(&host, &server, &tool, &args, &files, json, CallOptions { confirmed: yes, as_task: task, ..CallOptions::default() }, timeout).await
        }
        Command::Artifacts { command } => artifacts::run(&host, command),
        Command::Store { command } => store::run(&host, command).await,
        Command::Sanitize { file, markdown } => preview::sanitize(file.as_deref(), markdown),
        Command::Preview { id, page, width, out } => match host.team_remote_pdf(&id).await {
            // A teammate's PDF this data dir does not have: the page is read by ranges, the
            // file is not fetched whole (`store pull` does that).
            Ok(Some(file)) => preview::preview_by_ranges(file, page, width, &out).await,
            Ok(None) | Err(_) => match host.ensure_local(&id).await {
            // A team artifact this data dir does not have is fetched into the cache first.
            Ok(_) => preview::preview(&host, &id, page, width, &out),
            Err(e) => fail(false, &e.to_string()),
            },
        },
        Command::Audit(args) => audit::run(&host, args).await,
        Command::Normalize { server, tool, file, json } => normalize(&host, &server, &tool, file.as_deref(), json),
        Command::Apps { server, json } => apps::run(&host, &server, json).await,
        Command::Tools { server, json } => match host.tools(&server).await {
            Ok(tools) if json => {
                outln!("{}", serde_json::to_string_pretty(&tools).expect("tool views serialize"));
                ExitCode::SUCCESS
            }
            Ok(tools) => {
                for tool in tools {
                    let title = tool.title.map(|t| format!(" — {t}")).unwrap_or_default();
                    outln!("{}{title}", tool.name);
                    if let Some(description) = tool.description {
                        outln!("    {description}");
                    }
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(json, &e.to_string()),
        },
        Command::Servers { command: servers::ServersCommand::Check { json } } => servers::check(&host, json).await,
        Command::Servers { command: servers::ServersCommand::Login { name, client_secret_stdin, private_key_file, json } } => servers::login(&host, &name, client_secret_stdin, private_key_file.as_deref(), json).await,
        Command::Servers { command: servers::ServersCommand::Logout { name, json } } => servers::logout(&host, &name, json).await,
        Command::Servers { command } => servers::run(&host, command).await,
        Command::Allowlist { command } => allowlist::run(&host, command),
        Command::Settings { command } => settings::run(&host, command),
        Command::Resources { server, json } => resources::list(&host, &server, json).await,
        Command::Prompts { server, json } => prompts::list(&host, &server, json).await,
        Command::Prompt { server, name, args, json } => prompts::get(&host, &server, &name, &args, json).await,
        Command::Read { server, uri, json, watch: false, .. } => resources::read(&host, &server, &uri, json).await,
        Command::Read { server, uri, json, watch: true, changes } => resources::watch(&host, &server, &uri, json, changes).await,
    };
    // Artifacts this command stored that could not go up to the team store stay queued: say so.
    if let Some(note) = host.shutdown().await {
        eprintln!("{note}");
    }
    code
}

fn open_host(explicit: Option<&std::path::Path>, timeout: u64, session: String) -> Result<Host, HostError> {
    let data_dir = data_dir::resolve(explicit)?;
    Host::open(HostOptions { data_dir, call_timeout: Duration::from_secs(timeout), session: Some(session) })
}

/// `--file NAME=PATH_OR_ARTIFACT_ID`: each file as a reference in `arguments` (a path stored
/// first); a name given twice, or one the tool declares as a list, becomes a list.
async fn with_files(host: &Host, server: &str, tool: &str, arguments: &mut serde_json::Value, files: &[String]) -> Result<(), String> {
    if files.is_empty() {
        return Ok(());
    }
    let definitions = host.tool_definitions(server).await.map_err(|e| e.to_string())?;
    let declared = definitions.iter().find(|t| t.name == tool).map(mcp_canvas_host::files_in::params).unwrap_or_default();
    let Some(object) = arguments.as_object_mut() else { return Err("--args must be a JSON object to add --file to".into()) };
    let mut given: Vec<(String, Vec<String>)> = Vec::new();
    for file in files {
        let Some((name, value)) = file.split_once('=').filter(|(n, v)| !n.is_empty() && !v.is_empty()) else {
            return Err(format!("--file `{file}`: give NAME=PATH or NAME=ARTIFACT_ID"));
        };
        if !declared.iter().any(|p| p.name == name) {
            let names: Vec<&str> = declared.iter().map(|p| p.name.as_str()).collect();
            return Err(format!(
                "--file {name}: `{server}`/`{tool}` declares no file argument `{name}` ({})",
                if names.is_empty() { "it declares none".to_owned() } else { format!("its file arguments: {}", names.join(", ")) }
            ));
        }
        let path = std::path::Path::new(value);
        let reference = match mcp_canvas_host::files_in::reference_id(value) {
            Some(id) if !path.exists() => id.to_owned(),
            _ => {
                let (store, path, session) = (host.store().clone(), path.to_owned(), host.session_id().to_owned());
                let record = tokio::task::spawn_blocking(move || mcp_canvas_host::files_in::store_local_file(&store, &path, &session, Host::now_ms()))
                    .await
                    .map_err(|e| e.to_string())??;
                eprintln!("stored {} as {}", value, record.id);
                record.id
            }
        };
        match given.iter_mut().find(|(n, _)| n == name) {
            Some((_, values)) => values.push(reference),
            None => given.push((name.to_owned(), vec![reference])),
        }
    }
    for (name, mut values) in given {
        let multiple = declared.iter().any(|p| p.name == name && p.multiple);
        let value = if multiple || values.len() > 1 { serde_json::Value::from(values) } else { serde_json::Value::from(values.remove(0)) };
        object.insert(name, value);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
async fn call(host: &Host, server: &str, tool: &str, args: &str, files: &[String], json: bool, options: CallOptions, timeout: Option<u64>) -> ExitCode {
    let mut arguments = match Host::parse_arguments(server, tool, args) {
        Ok(arguments) => arguments,
        Err(e) => return fail(json, &e.to_string()),
    };
    if let Err(message) = with_files(host, server, tool, &mut arguments, files).await {
        return fail(json, &message);
    }
    // Ctrl-C cancels the call: the server gets notifications/cancelled, we exit with 130.
    let cancel = CancellationToken::new();
    let on_ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let control = CallControl {
        timeout: timeout.map(Duration::from_secs),
        cancel: Some(cancel),
        progress: Some(Arc::new(|report| interactive::terminal().progress(report))),
        call_id: None,
    };
    let mut outcome = host.call_tool_controlled(server, tool, arguments.clone(), options, control.clone()).await;
    if matches!(outcome, Err(HostError::NeedsConfirmation { .. })) && std::io::stdin().is_terminal() && ask_confirmation(server, tool, &arguments) {
        outcome = host.call_tool_controlled(server, tool, arguments, CallOptions { confirmed: true, ..options }, control).await;
    }
    on_ctrl_c.abort();
    interactive::terminal().finish();
    if let Err(e @ HostError::Cancelled { .. }) = &outcome {
        let message = format!("interrupted (Ctrl-C): {e}");
        fail(json, &message);
        return ExitCode::from(130);
    }
    report(outcome, json)
}

/// Shows the exact arguments and asks on the terminal.
fn ask_confirmation(server: &str, tool: &str, arguments: &serde_json::Value) -> bool {
    eprintln!("Tool `{tool}` on server `{server}` may change or delete data.");
    eprintln!("Arguments: {}", serde_json::to_string_pretty(arguments).unwrap_or_default());
    eprint!("Run it? [y/N] ");
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer).is_ok() && matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes")
}

fn normalize(host: &Host, server: &str, tool: &str, file: Option<&std::path::Path>, json: bool) -> ExitCode {
    let outcome = match file.filter(|f| f.as_os_str() != "-") {
        Some(path) => match std::fs::File::open(path) {
            Ok(file) => host.normalize_reader(server, tool, file, &path.display().to_string()),
            Err(e) => return fail(json, &format!("cannot read {}: {e}", path.display())),
        },
        None => host.normalize_reader(server, tool, std::io::stdin().lock(), "stdin"),
    };
    report(outcome, json)
}

/// Prints an outcome: the summary (or the whole outcome with `--json`). Exit code 2 when the
/// tool reported an error.
fn report(outcome: Result<CallOutcome, HostError>, json: bool) -> ExitCode {
    match outcome {
        Err(e) => fail(json, &e.to_string()),
        Ok(outcome) => {
            if json {
                outln!("{}", serde_json::to_string_pretty(&outcome).expect("outcome serializes"));
            } else {
                outln!("{}", outcome.outcome.summary);
                resources::offer_links(&outcome);
            }
            if let Some(error) = &outcome.outcome.error {
                if !json {
                    eprintln!("error: tool `{}` on server `{}` reported {}: {}", outcome.tool, outcome.server, error.code, error.message);
                }
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
    }
}

/// Reports an error that prevented the call: one line on stderr, and with `--json` an outcome
/// object with `error` set on stdout so scripts always get JSON.
pub(crate) fn fail(json: bool, message: &str) -> ExitCode {
    if json {
        let error = serde_json::json!({ "code": "CALL_FAILED", "message": message, "retryable": null, "details": null });
        let outcome = serde_json::json!({ "summary": null, "artifacts": [], "warnings": [], "error": error });
        outln!("{outcome}");
    }
    eprintln!("error: {message}");
    ExitCode::from(1)
}

