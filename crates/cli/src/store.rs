//! `mcp-canvas-cli store ...`: the team store (`[store] backend = "team"`): status, sync,
//! migrate, the team's artifacts, retention, the catalog's password.

use std::{path::PathBuf, process::ExitCode};

use clap::Subcommand;
use mcp_canvas_host::Host;

use crate::fail;

#[derive(Subcommand)]
pub enum StoreCommand {
    /// What is connected (bucket, catalog, schema) and how far behind this data dir is. Exit 1
    /// when the bucket or catalog cannot be used.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Upload and register what is queued, now.
    Sync {
        #[arg(long)]
        json: bool,
    },
    /// Upload this data dir's artifacts into the team store (nothing it has is sent twice).
    Migrate {
        #[arg(long)]
        json: bool,
    },
    /// Bring an older team catalog to this build's schema (once, by one member).
    Upgrade,
    /// The team's artifacts you may see, newest first.
    List {
        /// Only this member's.
        #[arg(long)]
        member: Option<String>,
        #[arg(long, default_value_t = 50)]
        limit: i64,
        #[arg(long, default_value_t = 0)]
        offset: i64,
        #[arg(long)]
        json: bool,
    },
    /// Fetch a team artifact into this data dir's cache (checked against its sha256); with
    /// --out, also copy it there.
    Pull {
        id: String,
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Keep one of your artifacts to yourself.
    Private { id: String },
    /// Share one of your private artifacts with the team again.
    Share { id: String },
    /// Team retention: unpinned artifacts unused for --max-age-days (default `[store]
    /// retention_days`), then blobs nothing references, then what interrupted uploads left
    /// (older than `[store] abandoned_upload_hours`). One process of the team at a time (the
    /// others skip).
    Gc {
        #[arg(long)]
        max_age_days: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// Keep the catalog's password in the OS keyring (read from stdin, one line).
    SetPassword,
}

fn print<T: serde::Serialize>(value: &T) {
    outln!("{}", serde_json::to_string_pretty(value).expect("serializes"));
}

pub async fn run(host: &Host, command: StoreCommand) -> ExitCode {
    let json = match &command {
        StoreCommand::Status { json } | StoreCommand::Sync { json } | StoreCommand::Migrate { json } | StoreCommand::List { json, .. } | StoreCommand::Pull { json, .. } | StoreCommand::Gc { json, .. } => *json,
        _ => false,
    };
    let team = match host.team() {
        Ok(team) => team.clone(),
        Err(e) => return fail(json, &e.to_string()),
    };
    let now = Host::now_ms();
    match command {
        StoreCommand::Status { json } => match team.status().await {
            Ok(status) => {
                let ok = status.bucket_error.is_none() && status.catalog_error.is_none();
                if json {
                    print(&status);
                } else {
                    outln!("team     {} (you: {})", status.team, status.member);
                    outln!("bucket   {}  {}", status.bucket, status.bucket_error.as_deref().unwrap_or("ok"));
                    let schema = status.schema_version.map(|v| format!(" (schema {v})")).unwrap_or_default();
                    outln!("catalog  {}  {}{schema}", status.catalog, status.catalog_error.as_deref().unwrap_or("ok"));
                    let backlog = &status.backlog;
                    if backlog.count == 0 && backlog.records == 0 {
                        outln!("pending  nothing: every artifact and audit row stored here is in the team store");
                    } else {
                        if backlog.count > 0 {
                            let age = backlog.oldest_queued_at_ms.map(|t| format!(", oldest queued {} s ago", (now - t).max(0) / 1000)).unwrap_or_default();
                            outln!("pending  {} artifacts, {} bytes{age}", backlog.count, backlog.bytes);
                        }
                        if backlog.records > 0 {
                            outln!("pending  {} audit rows and sampling exchanges for the team's audit trail", backlog.records);
                        }
                        if let Some(error) = &backlog.last_error {
                            outln!("         last attempt: {error}");
                        }
                    }
                }
                if ok { ExitCode::SUCCESS } else { ExitCode::from(1) }
            }
            Err(e) => fail(json, &e.to_string()),
        },
        // Also writes the text the team's search lacks of artifacts this member holds.
        StoreCommand::Sync { json } => match host.team_sync_now().await {
            Ok(report) => report_sync(&report, json, 0),
            Err(e) => fail(json, &e.to_string()),
        },
        StoreCommand::Migrate { json } => match team.migrate(now).await {
            Ok((queued, report)) => report_sync(&report, json, queued),
            Err(e) => fail(json, &e.to_string()),
        },
        StoreCommand::Upgrade => match team.upgrade().await {
            Ok(version) => {
                outln!("team catalog at schema version {version}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(false, &e.to_string()),
        },
        StoreCommand::List { member, limit, offset, json } => match team.list(member.as_deref(), limit, offset).await {
            Ok(items) if json => {
                print(&items);
                ExitCode::SUCCESS
            }
            Ok(items) => {
                for a in &items {
                    let private = if a.private { "\tprivate" } else { "" };
                    outln!("{}\t{}\t{}\t{} B\t{}\t{}/{}{private}", a.record.id, a.member, a.record.name, a.record.size, a.record.created_at_ms, a.record.server, a.record.tool);
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(json, &e.to_string()),
        },
        StoreCommand::Pull { id, out, json } => match host.ensure_local(&id).await {
            Ok(record) => {
                if let Some(out) = out {
                    if let Err(e) = host.store().export(&record.id, &out) {
                        return fail(json, &e.to_string());
                    }
                }
                if json {
                    print(&record);
                } else {
                    outln!("{}\t{}\t{} B\tin the cache", record.id, record.name, record.size);
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(json, &e.to_string()),
        },
        StoreCommand::Private { id } => set_private(&team, &id, true).await,
        StoreCommand::Share { id } => set_private(&team, &id, false).await,
        StoreCommand::Gc { max_age_days, json } => match team.retention(max_age_days.or(team.retention_days()), now).await {
            Ok(Some(report)) if json => {
                print(&report);
                ExitCode::SUCCESS
            }
            Ok(Some(report)) => {
                outln!("{report}");
                for warning in &report.warnings {
                    eprintln!("warning: {warning}");
                }
                ExitCode::SUCCESS
            }
            Ok(None) => {
                if json {
                    outln!("null");
                }
                eprintln!("another process of the team is running retention; skipped");
                ExitCode::SUCCESS
            }
            Err(e) => fail(json, &e.to_string()),
        },
        StoreCommand::SetPassword => {
            let mut line = String::new();
            if std::io::stdin().read_line(&mut line).is_err() || line.trim_end_matches(['\r', '\n']).is_empty() {
                return fail(false, "give the catalog's password on stdin (one line)");
            }
            let url = host.settings().store.catalog_url.clone().unwrap_or_default();
            // The OS keyring is a D-Bus round trip: this worker's other tasks move elsewhere meanwhile.
            match tokio::task::block_in_place(|| mcp_canvas_team::set_catalog_password(&url, line.trim_end_matches(['\r', '\n']))) {
                Ok(()) => {
                    outln!("kept in the OS keyring for {}", mcp_canvas_team::catalog::shown_url(&url));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(false, &e.to_string()),
            }
        }
    }
}

async fn set_private(team: &mcp_canvas_team::TeamStore, id: &str, private: bool) -> ExitCode {
    match team.set_private(id, private).await {
        Ok(()) => {
            outln!("{id} is {}", if private { "private: only you see it" } else { "shared with the team" });
            ExitCode::SUCCESS
        }
        Err(e) => fail(false, &e.to_string()),
    }
}

fn report_sync(report: &mcp_canvas_team::SyncReport, json: bool, queued: usize) -> ExitCode {
    if json {
        print(report);
    } else {
        if queued > 0 {
            outln!("queued {queued} artifacts of this data dir");
        }
        outln!("registered {} artifacts ({} uploaded, {} already in the bucket)", report.registered, report.uploaded, report.already_there);
        if let Some(error) = &report.error {
            eprintln!("stopped: {error}");
        }
    }
    if report.error.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
