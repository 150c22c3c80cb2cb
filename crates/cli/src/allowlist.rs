//! `mcp-canvas-cli allowlist ...`: the dashboard origin allowlist (`[dashboards]
//! allowed_origins` in `settings.toml` in the data dir), with the same decision as the app.
//!
//! - `list [--json]`: the allowed origins, one a line (entries that are not origins: on stderr);
//!   with `--json`, `{"origins", "ignored": [{"entry", "reason"}], "settings_path"}`.
//! - `add ORIGIN`: allow an origin (`scheme://host[:port]`, normalized: lowercase, punycode,
//!   default port dropped). The rest of `settings.toml` is kept as written.
//! - `rm ORIGIN`: stop allowing it (exit 1 when it was not on the list).
//! - `check URL`: prints `allowed` (exit 0) or `refused: <reason>` (exit 1).

use std::process::ExitCode;

use clap::Subcommand;
use mcp_canvas_config::{allowlist, allowlist::Allowlist, data_dir::DataPaths};
use mcp_canvas_host::Host;

#[derive(Subcommand)]
pub enum AllowlistCommand {
    /// List the origins dashboards may load from.
    List {
        /// Print JSON (origins, ignored entries with the reason, settings_path).
        #[arg(long)]
        json: bool,
    },
    /// Allow dashboards from ORIGIN (scheme://host[:port], e.g. http://127.0.0.1:8765).
    Add {
        /// The origin.
        origin: String,
    },
    /// Stop allowing ORIGIN.
    Rm {
        /// The origin (or an entry that is not one, exactly as written in settings.toml).
        origin: String,
    },
    /// Whether a dashboard at URL would load: prints `allowed` or `refused: <reason>`; exit 0 or 1.
    Check {
        /// The dashboard URL.
        url: String,
    },
}

pub fn run(host: &Host, command: AllowlistCommand) -> ExitCode {
    let path = DataPaths::new(host.data_dir().to_owned()).settings();
    let json = matches!(command, AllowlistCommand::List { json: true });
    let list = match Allowlist::load(&path) {
        Ok(list) => list,
        Err(e) => return crate::fail(json, &e.to_string()),
    };
    match command {
        AllowlistCommand::List { json: true } => {
            outln!("{}", serde_json::to_string_pretty(&list.view(&path)).expect("allowlist view serializes"));
            warn_ignored(&list);
            ExitCode::SUCCESS
        }
        AllowlistCommand::List { json: false } => {
            for origin in list.origins() {
                outln!("{origin}");
            }
            warn_ignored(&list);
            ExitCode::SUCCESS
        }
        AllowlistCommand::Check { url } => match list.check(&url) {
            Ok(_) => {
                outln!("allowed");
                ExitCode::SUCCESS
            }
            Err(refusal) => {
                outln!("refused: {refusal}");
                ExitCode::from(1)
            }
        },
        AllowlistCommand::Add { origin } => match allowlist::add_origin(&path, &origin) {
            Ok(edit) if edit.changed => {
                outln!("allowed {}", edit.origin);
                ExitCode::SUCCESS
            }
            Ok(edit) => {
                outln!("{} was already allowed", edit.origin);
                ExitCode::SUCCESS
            }
            Err(e) => crate::fail(false, &e.to_string()),
        },
        AllowlistCommand::Rm { origin } => match allowlist::remove_origin(&path, &origin) {
            Ok(edit) => {
                outln!("removed {}", edit.origin);
                ExitCode::SUCCESS
            }
            Err(e) => crate::fail(false, &e.to_string()),
        },
    }
}

fn warn_ignored(list: &Allowlist) {
    for ignored in list.ignored() {
        eprintln!("warning: ignored entry `{}` in settings.toml: {}", ignored.entry, ignored.reason);
    }
}
