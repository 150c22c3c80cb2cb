//! `mcp-canvas-cli artifacts ...`: browse and manage the artifact store.

use std::{path::PathBuf, process::ExitCode};

use clap::{Subcommand, ValueEnum};
use mcp_canvas_host::Host;
use mcp_canvas_store::{ArtifactQuery, ArtifactRecord, MimeFamily, SearchQuery, SortKey};
use serde_json::json;

use crate::fail;

#[derive(Subcommand)]
pub enum ArtifactsCommand {
    /// List artifacts, newest first.
    List {
        #[command(flatten)]
        filters: Filters,
        /// Sort key.
        #[arg(long, value_enum, default_value = "created")]
        sort: Sort,
        /// Oldest / smallest / A first.
        #[arg(long)]
        asc: bool,
        /// Page size.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Rows to skip.
        #[arg(long, default_value_t = 0)]
        offset: u32,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one artifact's record.
    Show { id: String, #[arg(long)] json: bool },
    /// Copy an artifact's bytes to a file (verified against its sha256).
    Export { id: String, path: PathBuf, #[arg(long)] json: bool },
    /// Keep an artifact through session clears, the quota and the age limit.
    Pin { id: String, #[arg(long)] json: bool },
    /// Undo `pin`.
    Unpin { id: String, #[arg(long)] json: bool },
    /// Let AI hosts' models behind the proxy find this file (`search_artifacts`) and send it to
    /// tools by reference, as if the proxy had returned it to one.
    ShareWithModels { id: String, #[arg(long)] json: bool },
    /// Undo `share-with-models` (also for a file the proxy returned to a model).
    UnshareWithModels { id: String, #[arg(long)] json: bool },
    /// Delete an artifact (its blob goes when nothing else shares it).
    Rm { id: String, #[arg(long)] json: bool },
    /// Re-hash every blob; report missing, corrupt and orphaned files. Exit 1 when any.
    Verify { #[arg(long)] json: bool },
    /// Apply the quota and age limit, then delete orphaned blobs and abandoned temp files.
    Gc { #[arg(long)] json: bool },
    /// Find artifacts by what is in them: words (all required), "a phrase", prefix*. Each hit
    /// with the artifact id, name, where it is (page, row, line, name, call) and a snippet.
    /// Artifacts not indexed yet are indexed first (for at most `--index-for` seconds).
    Search {
        /// What to find.
        query: String,
        #[command(flatten)]
        filters: Filters,
        /// At most this many hits (at most 200).
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Index what is not indexed yet for at most this many seconds first (0: search as is).
        #[arg(long, default_value_t = 60)]
        index_for: u64,
        /// Search the team's artifacts (team store): everyone's shared ones and your private ones.
        #[arg(long)]
        team: bool,
        /// With --team: only this member's.
        #[arg(long, requires = "team")]
        member: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Empty the search index and index every artifact again (a damaged index, a new version).
    Reindex { #[arg(long)] json: bool },
}

/// The filters `artifacts list` and `artifacts search` share.
#[derive(clap::Args)]
pub struct Filters {
    /// Only this session's (`cli` is the CLI's own, `proxy` the proxy's); default: every session's.
    #[arg(long)]
    session: Option<String>,
    /// Only from this server.
    #[arg(long)]
    server: Option<String>,
    /// Only from this tool.
    #[arg(long)]
    tool: Option<String>,
    /// Only this kind of content.
    #[arg(long, value_enum)]
    kind: Option<Family>,
    /// Name contains this (case-insensitive).
    #[arg(long)]
    name: Option<String>,
    /// Only pinned artifacts.
    #[arg(long)]
    pinned: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Family {
    Image,
    Pdf,
    Html,
    Text,
    Audio,
    Video,
    Other,
}

impl Family {
    fn mime_family(self) -> MimeFamily {
        match self {
            Family::Image => MimeFamily::Image,
            Family::Pdf => MimeFamily::Pdf,
            Family::Html => MimeFamily::Html,
            Family::Text => MimeFamily::Text,
            Family::Audio => MimeFamily::Audio,
            Family::Video => MimeFamily::Video,
            Family::Other => MimeFamily::Other,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Sort {
    Created,
    LastUsed,
    Name,
    Size,
}

pub fn run(host: &Host, command: ArtifactsCommand) -> ExitCode {
    let store = host.store();
    let print_record = |record: &ArtifactRecord, json: bool, verb: &str| {
        if json {
            outln!("{}", serde_json::to_string_pretty(record).expect("serializes"));
        } else {
            outln!("{verb}{}", line(record));
        }
        ExitCode::SUCCESS
    };
    let now = Host::now_ms();
    match command {
        ArtifactsCommand::List { filters: Filters { session, server, tool, kind, name, pinned }, sort, asc, limit, offset, json } => {
            let query = ArtifactQuery {
                session,
                server,
                tool,
                family: kind.map(Family::mime_family),
                name_contains: name,
                pinned_only: pinned,
                sort: match sort {
                    Sort::Created => SortKey::Created,
                    Sort::LastUsed => SortKey::LastUsed,
                    Sort::Name => SortKey::Name,
                    Sort::Size => SortKey::Size,
                },
                descending: !asc,
                limit,
                offset,
            };
            match store.query(&query) {
                Ok(page) if json => {
                    outln!("{}", serde_json::to_string_pretty(&page).expect("serializes"));
                    ExitCode::SUCCESS
                }
                Ok(page) => {
                    for record in &page.items {
                        outln!("{}", line(record));
                    }
                    eprintln!("{} of {} artifacts", page.items.len(), page.total);
                    ExitCode::SUCCESS
                }
                Err(e) => fail(json, &e.to_string()),
            }
        }
        ArtifactsCommand::Show { id, json } => match store.get(&id) {
            Ok(record) => print_record(&record, json, ""),
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::Export { id, path, json } => match store.export(&id, &path) {
            Ok(record) => {
                let _ = store.touch(&id, now);
                if json {
                    outln!("{}", json!({ "id": record.id, "path": path, "size": record.size, "sha256": record.sha256 }));
                } else {
                    outln!("exported {} to {}", record.id, path.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::Pin { id, json } => match store.set_pinned(&id, true) {
            Ok(record) => print_record(&record, json, "pinned "),
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::ShareWithModels { id, json } => match store.get(&id).and_then(|record| store.share_with_model(std::slice::from_ref(&record.id), now).map(|()| record)) {
            Ok(record) => print_record(&record, json, "AI hosts' models may use "),
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::UnshareWithModels { id, json } => match store.get(&id).and_then(|record| store.unshare_with_model(&record.id).map(|()| record)) {
            Ok(record) => print_record(&record, json, "AI hosts' models may no longer use "),
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::Unpin { id, json } => match store.set_pinned(&id, false) {
            Ok(record) => print_record(&record, json, "unpinned "),
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::Rm { id, json } => match store.remove(&id) {
            Ok(record) => print_record(&record, json, "removed "),
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::Verify { json } => match store.verify() {
            Ok(report) => {
                if json {
                    outln!("{}", serde_json::to_string_pretty(&report).expect("serializes"));
                } else {
                    outln!("checked {} artifacts", report.checked);
                    for id in &report.missing {
                        outln!("missing blob: {id}");
                    }
                    for id in &report.corrupt {
                        outln!("corrupt blob: {id}");
                    }
                    for path in &report.orphaned {
                        outln!("orphaned blob: {} (gc removes it)", path.display());
                    }
                    for path in &report.abandoned_temp_files {
                        outln!("abandoned temp file: {} (gc removes it)", path.display());
                    }
                }
                if report.is_clean() { ExitCode::SUCCESS } else { ExitCode::from(1) }
            }
            Err(e) => fail(json, &e.to_string()),
        },
        ArtifactsCommand::Search { query, filters: Filters { session, server, tool, kind, name, pinned }, limit, index_for, team, member, json } => {
            let query = SearchQuery {
                // Whole words: the last one is not a prefix as in the window's box (`word*` is).
                text: format!("{query} "),
                session,
                server,
                tool,
                family: kind.map(Family::mime_family),
                name_contains: name,
                pinned_only: pinned,
                member,
                limit,
                ..Default::default()
            };
            if team {
                return crate::search::run_team(host, &query, json);
            }
            crate::search::run(host, &query, index_for, json)
        }
        ArtifactsCommand::Reindex { json } => crate::search::reindex(host, json),
        ArtifactsCommand::Gc { json } => {
            let limits = &host.settings().artifacts;
            let result = store.enforce(limits, now).and_then(|eviction| Ok((eviction, store.gc()?)));
            match result {
                Ok((eviction, files)) => {
                    if json {
                        outln!("{}", json!({ "expired": eviction.expired, "over_quota": eviction.over_quota, "files_removed": files }));
                    } else {
                        outln!("evicted {} expired and {} over-quota artifacts; removed {files} unreferenced files", eviction.expired.len(), eviction.over_quota.len());
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(json, &e.to_string()),
            }
        }
    }
}

fn line(record: &ArtifactRecord) -> String {
    let pin = if record.persistence == mcp_canvas_store::Persistence::Pinned { " [pinned]" } else { "" };
    format!("{}\t{}\t{}\t{}\t{}/{}{pin}", record.id, record.name, record.mime, record.size, record.server, record.tool)
}
