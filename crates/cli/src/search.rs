//! `mcp-canvas-cli artifacts search` and `artifacts reindex`: full-text search over the store.
//!
//! A one-shot command has no indexer running beside it: it indexes what is pending first (unless
//! another process of this data dir is indexing: the app or a proxy; then it searches what that
//! one has written so far and says how much is left).

use std::{
    io::IsTerminal,
    process::ExitCode,
    time::{Duration, Instant},
};

use mcp_canvas_host::{search, Host};
use mcp_canvas_store::{HitPlace, SearchHit, SearchQuery};
use serde_json::json;

use crate::fail;

pub fn run(host: &Host, query: &SearchQuery, index_for: u64, json: bool) -> ExitCode {
    let store = host.store();
    if index_for > 0 {
        let pending = store.search_status().map(|s| s.pending).unwrap_or(0);
        if pending > 0 && !json {
            eprintln!("indexing {pending} artifacts first…");
        }
        let deadline = Instant::now() + Duration::from_secs(index_for);
        match search::index_pending_now(host.data_dir(), store, deadline) {
            Ok(Some(run)) if run.unfinished => eprintln!("indexing stopped after {index_for} s; the rest is indexed next time"),
            Ok(_) => {}
            Err(e) => return fail(json, &format!("indexing the artifacts failed: {e}")),
        }
    }
    let results = match host.search(query) {
        Ok(results) => results,
        Err(e) => return fail(json, &e.to_string()),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&results).expect("serializes"));
        return ExitCode::SUCCESS;
    }
    let bold = std::io::stdout().is_terminal();
    for hit in &results.hits {
        outln!("{}\t{}\t{}\t{}", hit.artifact.id, hit.artifact.name, place(hit), snippet(hit, bold));
    }
    let mut left = if results.pending > 0 { format!(" ({} artifacts not indexed yet: only their names were searched)", results.pending) } else { String::new() };
    if results.partial {
        left.push_str(" (the phrase's words are in many places: only the newest were checked for the phrase; narrow the search with --server, --kind or more words to reach older files)");
    }
    eprintln!("{} hits{left}", results.hits.len());
    ExitCode::SUCCESS
}

/// `--team`: the team catalog's search (the text its members wrote), what this member may see.
pub fn run_team(host: &Host, query: &SearchQuery, json: bool) -> ExitCode {
    let hits = match tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(host.team_search(query))) {
        Ok(hits) => hits,
        Err(e) => return fail(json, &e.to_string()),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&json!({ "hits": hits })).expect("serializes"));
        return ExitCode::SUCCESS;
    }
    let bold = std::io::stdout().is_terminal();
    for hit in &hits {
        let member = hit.member.as_deref().unwrap_or("");
        outln!("{}\t{}\t{member}\t{}\t{}", hit.artifact.id, hit.artifact.name, place(hit), snippet(hit, bold));
    }
    eprintln!("{} hits in the team's artifacts", hits.len());
    ExitCode::SUCCESS
}

pub fn reindex(host: &Host, json: bool) -> ExitCode {
    let started = Instant::now();
    match search::rebuild(host.data_dir(), host.store()) {
        Ok(run) => {
            if json {
                outln!("{}", json!({ "artifacts": run.artifacts, "segments": run.segments, "seconds": started.elapsed().as_secs_f64(), "peak_rss_kb": peak_rss_kb() }));
            } else {
                outln!("indexed {} artifacts ({} segments) in {:.1} s", run.artifacts, run.segments, started.elapsed().as_secs_f64());
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(json, &format!("rebuilding the search index failed: {e}")),
    }
}

/// This process's peak resident memory in KiB (`VmHWM`; Linux only, else `None`): what
/// `scripts/bench-search.sh` reports for an indexing run.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|line| line.strip_prefix("VmHWM:"))?.trim().strip_suffix("kB")?.trim().parse().ok()
}

/// `page 12`, `row 340`, `line 7`, `name`, `call`.
pub fn place(hit: &SearchHit) -> String {
    match hit.place {
        HitPlace::Name => "name".into(),
        HitPlace::Call => "call".into(),
        HitPlace::Page => format!("page {}", hit.position),
        HitPlace::Row => format!("row {}", hit.position),
        HitPlace::Line => format!("line {}", hit.position),
    }
}

/// The snippet on one line, matching words in bold on a terminal.
fn snippet(hit: &SearchHit, bold: bool) -> String {
    hit.snippet
        .iter()
        .map(|part| {
            // Tabs would break the columns; the snippet has no other control characters.
            let text = part.text.replace('\t', " ");
            if part.hit && bold { format!("\x1b[1m{text}\x1b[0m") } else { text }
        })
        .collect()
}
