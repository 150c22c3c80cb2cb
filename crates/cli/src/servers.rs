//! `mcp-canvas-cli servers ...`: the server config (`servers.json` in the data dir).
//!
//! - `list [--json]`: the configured servers.
//! - `import FILE [--workspace DIR] [--input ID=VALUE]... [--replace] [--dry-run] [--json]`:
//!   merge the servers of a Claude Desktop, Cursor or VS Code config file (or an exported
//!   `mcp.json`) into `servers.json`. Exit 0 when the import ran, even with conflicts or skipped
//!   servers (the report says which); 1 when the file cannot be imported, nothing written.
//! - `export [--out FILE [--force]] [--json]`: `{"mcpServers": {...}}` for Claude Desktop and Cursor.
//! - `check [--json]`: start every server, list its tools, and report each one's state (and, for
//!   one that failed, why and where its log is). Exit 0 when all run, 1 otherwise.
//! - `login NAME [--client-secret-stdin] [--json]`: sign in to an HTTP server (OAuth) in the
//!   system browser; the tokens go to the OS keyring (else a 0600 file in the data dir).
//! - `logout NAME [--json]`: forget its tokens.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Subcommand;
use mcp_canvas_config::{data_dir::DataPaths, import as config_import, import::{ImportReport, ImportStatus, MergeOptions, Variables}, servers::ServersConfig};
use mcp_canvas_host::Host;
use serde_json::json;

#[derive(Subcommand)]
pub enum ServersCommand {
    /// List configured servers.
    List {
        /// Print a JSON array (name, transport, target, problem).
        #[arg(long)]
        json: bool,
    },
    /// Import servers from another app's config into servers.json. The format is told from the
    /// content: `mcpServers` (Claude Desktop, Cursor, an exported mcp.json) or `servers` +
    /// `inputs` (VS Code; comments and trailing commas allowed). Existing servers with a
    /// different definition are kept unless --replace.
    Import {
        /// The config file (claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json, ...);
        /// `-` reads stdin.
        file: PathBuf,
        /// Value of `${workspaceFolder}`. Default: the folder holding `.vscode/` or `.cursor/`
        /// when FILE is `<folder>/.vscode/mcp.json`, else the current directory.
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
        /// Value of the VS Code input `${input:ID}`; repeat for several. Required for password
        /// inputs and inputs without a default. Values are never printed.
        #[arg(long = "input", value_name = "ID=VALUE")]
        inputs: Vec<String>,
        /// Overwrite existing servers whose definition differs.
        #[arg(long)]
        replace: bool,
        /// Report what would happen without writing servers.json.
        #[arg(long)]
        dry_run: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Start every configured server and report whether it runs (tool count) or why not.
    Check {
        /// Print JSON (per server: status and tool count).
        #[arg(long)]
        json: bool,
    },
    /// Sign in to an HTTP server that uses OAuth: the authorization page opens in the system
    /// browser (its URL is also printed), and the tokens go to the OS keyring.
    Login {
        /// The server's name in servers.json.
        name: String,
        /// Read the secret of the pre-registered client (`oauth.client_id` in servers.json) from
        /// stdin and keep it with the tokens.
        #[arg(long)]
        client_secret_stdin: bool,
        /// Keep the client's private key for `private_key_jwt` (`oauth.client_auth`) from this PEM
        /// file in the OS keyring with the tokens; refused when others can read the file.
        #[arg(long, value_name = "FILE")]
        private_key_file: Option<std::path::PathBuf>,
        /// Print the sign-in state as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Forget an HTTP server's tokens (a stored client secret stays).
    Logout {
        /// The server's name in servers.json.
        name: String,
        /// Print the sign-in state as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the servers as an mcp.json (`{"mcpServers": {...}}`) that Claude Desktop and Cursor
    /// read, or write it to a file.
    Export {
        /// Write to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Overwrite FILE if it exists.
        #[arg(long, requires = "out")]
        force: bool,
        /// With --out: print a JSON report (file, servers, warnings) instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// `servers check [--json]`: every server started (one after the other, each bounded by the
/// host's timeouts) and reported.
pub async fn check(host: &Host, json: bool) -> ExitCode {
    let mut report = Vec::new();
    let mut all_ok = true;
    for server in host.server_names() {
        let tools = host.tools(&server).await;
        all_ok &= tools.is_ok();
        report.push((server, tools));
    }
    let statuses = host.server_statuses().await;
    if json {
        let entries: Vec<_> = report
            .iter()
            .map(|(name, tools)| {
                let status = statuses.iter().find(|s| &s.server == name);
                json!({ "status": status, "tools": tools.as_ref().ok().map(Vec::len), "error": tools.as_ref().err().map(ToString::to_string) })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&entries).expect("reports serialize"));
    } else {
        for (name, tools) in &report {
            match tools {
                Ok(tools) => outln!("{name}\trunning\t{} tool(s)", tools.len()),
                Err(e) => {
                    let log = statuses.iter().find(|s| &s.server == name).map(|s| s.log.clone()).unwrap_or_default();
                    outln!("{name}\tfailed\t{e}\n\tlog: {log}");
                }
            }
        }
    }
    if all_ok { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

pub async fn run(host: &Host, command: ServersCommand) -> ExitCode {
    let config_path = DataPaths::new(host.data_dir().to_owned()).servers_config();
    match command {
        ServersCommand::List { json } => {
            let servers = match host.servers().await {
                Ok(servers) => servers,
                Err(e) => return fail(json, "SERVERS_FAILED", &e.to_string()),
            };
            if json {
                outln!("{}", serde_json::to_string_pretty(&servers).expect("server views serialize"));
            } else {
                for server in servers {
                    let problem = server.problem.map(|p| format!("\t(unusable: {p})")).unwrap_or_default();
                    let sign_in = server.sign_in.map(|s| format!("\t{}", sign_in_words(&s))).unwrap_or_default();
                    outln!("{}\t{}\t{}{problem}{sign_in}", server.name, server.transport, server.target);
                }
            }
            ExitCode::SUCCESS
        }
        ServersCommand::Import { file, workspace, inputs, replace, dry_run, json } => {
            import(&config_path, &file, workspace, &inputs, MergeOptions { replace, dry_run }, json)
        }
        ServersCommand::Export { out, force, json } => export(&config_path, out.as_deref(), force, json),
        ServersCommand::Check { .. } | ServersCommand::Login { .. } | ServersCommand::Logout { .. } => unreachable!("async; dispatched by main"),
    }
}

/// `servers login NAME`: the secret or private key first (when given), then the sign-in — in
/// the browser, or with the server's machine grant (`oauth.grant`).
pub async fn login(host: &Host, name: &str, client_secret_stdin: bool, private_key_file: Option<&std::path::Path>, json: bool) -> ExitCode {
    if let Some(path) = private_key_file {
        let pem = match mcp_canvas_client::oauth::machine::read_private_key(path) {
            Ok(pem) => pem,
            Err(e) => return fail(json, "SIGN_IN_FAILED", &format!("--private-key-file: {e}")),
        };
        if let Err(e) = host.set_private_key(name, Some(pem)).await {
            return fail(json, "SIGN_IN_FAILED", &e.to_string());
        }
    }
    if client_secret_stdin {
        let secret = match std::io::read_to_string(std::io::stdin()) {
            Ok(secret) if !secret.trim().is_empty() => secret.trim().to_owned(),
            Ok(_) => return fail(json, "SIGN_IN_FAILED", "--client-secret-stdin: stdin was empty"),
            Err(e) => return fail(json, "SIGN_IN_FAILED", &format!("--client-secret-stdin: cannot read stdin: {e}")),
        };
        if let Err(e) = host.set_client_secret(name, Some(secret)).await {
            return fail(json, "SIGN_IN_FAILED", &e.to_string());
        }
    }
    match host.sign_in(name).await {
        Ok(view) => {
            if json {
                outln!("{}", serde_json::to_string_pretty(&view).expect("views serialize"));
            } else {
                outln!("{name}\t{}", sign_in_words(&view));
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(json, "SIGN_IN_FAILED", &e.to_string()),
    }
}

/// `servers logout NAME`.
pub async fn logout(host: &Host, name: &str, json: bool) -> ExitCode {
    match host.sign_out(name).await {
        Ok(view) if json => {
            outln!("{}", serde_json::to_string_pretty(&view).expect("views serialize"));
            ExitCode::SUCCESS
        }
        Ok(view) => {
            outln!("{name}\t{}", sign_in_words(&view));
            ExitCode::SUCCESS
        }
        Err(e) => fail(json, "SIGN_OUT_FAILED", &e.to_string()),
    }
}

/// "signed in (read write) — tokens in the OS keyring", "needs sign-in", "signed out".
fn sign_in_words(view: &mcp_canvas_wire::SignInView) -> String {
    let state = match (view.signed_in, view.needed, view.more_scope) {
        (_, true, true) => "needs more permission: sign in again".to_owned(),
        (false, true, _) => "needs sign-in".to_owned(),
        (true, _, _) if view.scopes.is_empty() => "signed in".to_owned(),
        (true, _, _) => format!("signed in ({})", view.scopes.join(" ")),
        (false, false, _) => "signed out".to_owned(),
    };
    let state = match &view.method {
        Some(method) => format!("{state} ({method})"),
        None => state,
    };
    match &view.problem {
        Some(problem) => format!("{state} — {problem}"),
        None => format!("{state} — tokens in {}", view.storage),
    }
}

/// One line on stderr; with `--json` also `{"error": {"code", "message"}}` on stdout.
fn fail(json: bool, code: &str, message: &str) -> ExitCode {
    if json {
        outln!("{}", json!({ "error": { "code": code, "message": message } }));
    }
    eprintln!("error: {message}");
    ExitCode::from(1)
}

/// `--input ID=VALUE` options. Errors never echo the argument: it may be a secret.
fn parse_inputs(inputs: &[String]) -> Result<BTreeMap<String, String>, String> {
    let mut values = BTreeMap::new();
    for (index, input) in inputs.iter().enumerate() {
        match input.split_once('=') {
            Some((id, value)) if !id.trim().is_empty() => {
                if values.insert(id.trim().to_owned(), value.to_owned()).is_some() {
                    return Err(format!("--input `{}` is given twice", id.trim()));
                }
            }
            _ => return Err(format!("--input #{} is not ID=VALUE", index + 1)),
        }
    }
    Ok(values)
}

fn import(config_path: &Path, file: &Path, workspace: Option<PathBuf>, inputs: &[String], options: MergeOptions, json: bool) -> ExitCode {
    let inputs = match parse_inputs(inputs) {
        Ok(inputs) => inputs,
        Err(e) => return fail(json, "IMPORT_FAILED", &e.to_string()),
    };
    let from_stdin = file.as_os_str() == "-";
    let (label, text) = if from_stdin {
        ("stdin".to_owned(), std::io::read_to_string(std::io::stdin()))
    } else {
        (file.display().to_string(), std::fs::read_to_string(file))
    };
    let text = match text {
        Ok(text) => text,
        Err(e) => return fail(json, "IMPORT_FAILED", &format!("cannot import {label}: cannot read it: {e}")),
    };
    let workspace = match workspace {
        Some(dir) => std::path::absolute(&dir).unwrap_or(dir),
        None => config_import::default_workspace_folder((!from_stdin).then_some(file)),
    };
    let vars = Variables::from_process(workspace, inputs);
    let report = match config_import::import_text(&label, &text, config_path, &vars, options) {
        Ok(report) => report,
        Err(e) => return fail(json, "IMPORT_FAILED", &e.to_string()),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report).expect("report serializes"));
    } else {
        print_report(&report);
    }
    ExitCode::SUCCESS
}

fn print_report(report: &ImportReport) {
    outln!("{} ({}) → {}", report.source, report.format.label(), report.config);
    let width = report.servers.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for server in &report.servers {
        let transport = server.transport.as_deref().unwrap_or("-");
        let reason = server.reason.as_deref().map(|r| format!("  {r}")).unwrap_or_default();
        outln!("  {:<9}  {:<width$}  {transport}{reason}", server.status.as_str(), server.name);
        if !server.unknown_keys.is_empty() {
            outln!("             unknown keys kept: {}", server.unknown_keys.join(", "));
        }
        for note in &server.notes {
            outln!("             note: {note}");
        }
    }
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    let counts: Vec<String> = [ImportStatus::Added, ImportStatus::Replaced, ImportStatus::Unchanged, ImportStatus::Conflict, ImportStatus::Skipped]
        .into_iter()
        .map(|status| (status, report.count(status)))
        .filter(|(_, n)| *n > 0)
        .map(|(status, n)| format!("{n} {}", status.as_str()))
        .collect();
    let counts = if counts.is_empty() { "no servers in the file".to_owned() } else { counts.join(", ") };
    let outcome = match (report.dry_run, report.written) {
        (true, _) => "dry run, nothing written",
        (false, true) => "servers.json updated",
        (false, false) => "servers.json unchanged",
    };
    outln!("{counts} ({outcome})");
}

fn export(config_path: &Path, out: Option<&Path>, force: bool, json: bool) -> ExitCode {
    let config = match ServersConfig::load_or_create(config_path) {
        Ok(config) => config,
        Err(e) => return fail(json, "EXPORT_FAILED", &e.to_string()),
    };
    let (document, warnings) = config.to_mcp_json();
    let text = serde_json::to_string_pretty(&document).expect("mcp.json serializes") + "\n";
    let Some(out) = out else {
        out!("{text}");
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
        return ExitCode::SUCCESS;
    };
    if out.exists() && !force {
        return fail(json, "EXPORT_FAILED", &format!("{} already exists; pass --force to overwrite it", out.display()));
    }
    if let Err(e) = write_atomically(out, &text) {
        return fail(json, "EXPORT_FAILED", &format!("cannot write {}: {e}", out.display()));
    }
    let servers: Vec<&String> = config.servers.keys().collect();
    if json {
        let report = json!({ "file": out.display().to_string(), "servers": servers, "warnings": warnings });
        outln!("{}", serde_json::to_string_pretty(&report).expect("report serializes"));
    } else {
        outln!("wrote {} server(s) to {}", servers.len(), out.display());
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
    }
    ExitCode::SUCCESS
}

/// Temp file next to `path`, then rename, so a reader never sees half a file.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path.file_name().ok_or_else(|| std::io::Error::other("not a file path"))?;
    let temp = path.with_file_name(format!(".{}.tmp", name.to_string_lossy()));
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
