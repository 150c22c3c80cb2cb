//! The dashboard origin allowlist (000 §3) end to end: the bypass corpus through
//! `mcp-canvas-cli allowlist check` and through the Rust API (0 accepted), `add`/`rm`/`list` round
//! trips that keep the rest of `settings.toml`, and the audit of dashboard events (identity, no
//! token).

use std::path::Path;

use mcp_canvas_e2e::cli;
use mcp_canvas_config::allowlist::{Allowlist, DashboardAccess};
use mcp_canvas_host::{audit::{audit_dashboard, DashboardEvent}, Host, HostOptions};

/// What the corpus is checked against.
const ALLOWED: &[&str] = &["https://allowed.com", "http://127.0.0.1:8765"];

/// URLs that try to pass for an allowed origin without being one. None may be accepted.
/// URLs that try to pass for an allowed origin without being one. None may be accepted.
/// One file, shared with the allowlist's unit tests.
static BYPASS: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(|| serde_json::from_str(include_str!("../crates/config/tests/fixtures/allowlist_bypass.json")).expect("a JSON list of URLs"));

/// Spellings WHATWG parses to exactly an allowed origin; accepted, because the window is handed
/// the serialized URL (`http://127.0.0.1:8765/...`), never this text.
const SAME_ORIGIN: &[&str] = &[
    "https://allowed.com",
    "https://allowed.com/dash?x=1#y",
    "HTTPS://ALLOWED.COM:443/",
    "https://allowed.com:0443/",
    "https://ａｌｌｏｗｅｄ．ｃｏｍ/",
    "https://allowed%2ecom/",
    "https://allowed.com\\@evil.com/",
    "https:///allowed.com",
    "https:\\\\allowed.com/",
    "http://127.0.0.1:8765/dashboard?token=abc",
    "http://2130706433:8765/",
    "http://0x7f.1:8765/",
];

fn settings_with_allowed(dir: &Path) {
    std::fs::write(
        dir.join("settings.toml"),
        format!("[dashboards]\nallowed_origins = [{}]\n", ALLOWED.iter().map(|o| format!("\"{o}\"")).collect::<Vec<_>>().join(", ")),
    )
    .unwrap();
}

#[test]
fn the_bypass_corpus_is_refused_by_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    settings_with_allowed(dir.path());
    let mut accepted = Vec::new();
    for url in BYPASS.iter() {
        let run = cli(dir.path(), &["allowlist", "check", url]);
        if run.code == 0 || run.stdout.trim() == "allowed" {
            accepted.push(url.as_str());
            continue;
        }
        assert_eq!(run.code, 1, "{url:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stdout.starts_with("refused: "), "{url:?}: {}", run.stdout);
    }
    assert!(accepted.is_empty(), "accepted by the CLI: {accepted:?}");
    for url in SAME_ORIGIN {
        let run = cli(dir.path(), &["allowlist", "check", url]);
        assert_eq!((run.code, run.stdout.as_str()), (0, "allowed\n"), "{url:?}: {}", run.stderr);
    }
}

#[test]
fn the_bypass_corpus_is_refused_by_the_rust_api() {
    let dir = tempfile::tempdir().unwrap();
    settings_with_allowed(dir.path());
    let list = Allowlist::load(&dir.path().join("settings.toml")).unwrap();
    assert_eq!(list.origins(), ALLOWED);
    let accepted: Vec<_> = BYPASS.iter().filter(|url| list.check(url).is_ok()).collect();
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
    // What the window would get is decided the same way: no iframe src for any of them.
    for url in BYPASS.iter() {
        assert!(matches!(DashboardAccess::decide(&list, url, Some("tok")), DashboardAccess::Refused { .. }), "{url:?}");
    }
    for url in SAME_ORIGIN {
        let origin = list.check(url).unwrap_or_else(|e| panic!("{url:?}: {e}"));
        assert!(ALLOWED.contains(&origin.as_str()), "{url:?} → {origin}");
    }
}

#[test]
fn an_empty_allowlist_refuses_everything() {
    let dir = tempfile::tempdir().unwrap();
    let run = cli(dir.path(), &["allowlist", "list"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    for url in SAME_ORIGIN.iter().copied().chain(BYPASS.iter().map(String::as_str)) {
        let run = cli(dir.path(), &["allowlist", "check", url]);
        assert_eq!(run.code, 1, "{url:?}");
    }
    let run = cli(dir.path(), &["allowlist", "check", "http://127.0.0.1:8765/dashboard?token=s3cret"]);
    assert_eq!(run.stdout, "refused: origin http://127.0.0.1:8765 is not on the dashboard allowlist\n");
    assert!(!format!("{}{}", run.stdout, run.stderr).contains("s3cret"), "the token is never printed");
}

#[test]
fn add_rm_list_round_trip_and_keep_the_rest_of_settings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.toml");
    let original = "# Settings of MCP Canvas\n\n[artifacts]\nquota_bytes = 1048576   # 1 MiB\nmax_age_days = 3\n\n[identity]\nusername = \"ada\" # me\n";
    std::fs::write(&path, original).unwrap();

    let run = cli(dir.path(), &["allowlist", "add", "HTTP://127.0.0.1:8765/"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "allowed http://127.0.0.1:8765\n"), "{}", run.stderr);
    let run = cli(dir.path(), &["allowlist", "add", "https://Bücher.example:443"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "allowed https://xn--bcher-kva.example\n"), "{}", run.stderr);
    let run = cli(dir.path(), &["allowlist", "add", "http://127.0.0.1:8765"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "http://127.0.0.1:8765 was already allowed\n"));

    let run = cli(dir.path(), &["allowlist", "list"]);
    assert_eq!(run.stdout, "http://127.0.0.1:8765\nhttps://xn--bcher-kva.example\n");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(original), "the rest of the file is kept as written:\n{text}");
    assert_eq!(cli(dir.path(), &["allowlist", "check", "http://127.0.0.1:8765/dashboard?token=x"]).stdout, "allowed\n");
    assert_eq!(cli(dir.path(), &["allowlist", "check", "https://bücher.example/"]).code, 0);

    // The rest of the settings still load as they were.
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: std::time::Duration::from_secs(5), session: None }).unwrap();
    assert_eq!(host.settings().artifacts.quota_bytes, 1_048_576);
    assert_eq!(host.settings().artifacts.max_age_days, Some(3));
    assert_eq!(host.settings().identity.username, "ada");
    assert_eq!(host.settings().dashboards.allowed_origins, ["http://127.0.0.1:8765", "https://xn--bcher-kva.example"]);
    drop(host);

    let run = cli(dir.path(), &["allowlist", "rm", "http://127.0.0.1:8765/"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "removed http://127.0.0.1:8765\n"), "{}", run.stderr);
    let run = cli(dir.path(), &["allowlist", "rm", "http://127.0.0.1:8765"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("is not on the dashboard allowlist"), "{}", run.stderr);
    assert_eq!(cli(dir.path(), &["allowlist", "check", "http://127.0.0.1:8765/"]).code, 1);
    let run = cli(dir.path(), &["allowlist", "rm", "https://xn--bcher-kva.example"]);
    assert_eq!(run.code, 0);
    assert_eq!(cli(dir.path(), &["allowlist", "list"]).stdout, "");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(original), "{text}");
    assert!(text.contains("allowed_origins = []"), "{text}");
}

#[test]
fn add_refuses_what_is_not_an_origin() {
    let dir = tempfile::tempdir().unwrap();
    for (entry, why) in [
        ("https://allowed.com@evil.com", "credentials"),
        ("https://user:pw@allowed.com", "credentials"),
        ("https://allowed.com/dashboard", "did you mean https://allowed.com?"),
        ("https://allowed.com/?q=1", "no path, query or fragment"),
        ("https://*.allowed.com", "wildcards"),
        ("javascript:alert(1)", "scheme `javascript`"),
        ("data:text/html,x", "scheme `data`"),
        ("file:///etc", "scheme `file`"),
        ("http://allowed.com", "plain http is allowed only for loopback"),
        ("allowed.com", "not a valid absolute URL"),
    ] {
        let run = cli(dir.path(), &["allowlist", "add", entry]);
        assert_eq!(run.code, 1, "{entry}");
        assert!(run.stderr.contains(why), "{entry}: {}", run.stderr);
    }
    assert!(!dir.path().join("settings.toml").exists(), "nothing was written");
    // A typo written by hand is ignored (it allows nothing), reported, and removable as written.
    std::fs::write(dir.path().join("settings.toml"), "[dashboards]\nallowed_origins = [\"https://ok.example\", \"127.0.0.1:8765\"]\n").unwrap();
    let run = cli(dir.path(), &["allowlist", "list"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "https://ok.example\n"));
    assert!(run.stderr.contains("ignored entry `127.0.0.1:8765`"), "{}", run.stderr);
    assert_eq!(cli(dir.path(), &["allowlist", "check", "http://127.0.0.1:8765/"]).code, 1);
    assert_eq!(cli(dir.path(), &["allowlist", "rm", "127.0.0.1:8765"]).code, 0);
    assert_eq!(cli(dir.path(), &["allowlist", "list"]).stderr, "");
}

#[test]
fn dashboard_events_are_audited_with_the_identity_and_without_the_token() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.toml"), "[identity]\nusername = \"grace\"\n").unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: std::time::Duration::from_secs(5), session: None }).unwrap();
    let token = "68b666496aa56a3e9cb1566f606928b4";
    let url = format!("http://127.0.0.1:8765/dashboard?token={token}&view=cpu");
    for (action, outcome) in [("open", "refused"), ("allow", "ok"), ("close", "ok")] {
        audit_dashboard(
            &host,
            &DashboardEvent {
                action,
                server: Some("demo"),
                dashboard_id: Some("demo-dashboard-1"),
                url: Some(&url),
                token: Some(token),
                origin: Some("http://127.0.0.1:8765"),
                outcome,
                detail: Some(format!("looked at {url}")),
                ..Default::default()
            },
        )
        .unwrap();
    }
    let records = host.store().audit_log(10).unwrap();
    let tools: Vec<_> = records.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(tools, ["dashboard:close", "dashboard:allow", "dashboard:open"]);
    for record in &records {
        assert_eq!(record.identity.as_deref(), Some("grace"));
        assert_eq!(record.server, "demo");
        assert_eq!(record.arguments["origin"], "http://127.0.0.1:8765");
        assert_eq!(record.arguments["dashboard_id"], "demo-dashboard-1");
        let all = serde_json::to_string(record).unwrap();
        assert!(!all.contains(token), "{all}");
        assert!(all.contains("view=cpu"), "the rest of the URL is kept: {all}");
    }
    // And through the CLI's audit listing.
    let run = cli(dir.path(), &["audit", "--json"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("dashboard:allow") && !run.stdout.contains(token));
}
