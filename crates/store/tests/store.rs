//! The store against a real SQLite file and a real directory.

use mcp_canvas_store::{ArtifactQuery, ArtifactSource, ArtifactStore, Limits, MimeFamily, NewArtifact, Persistence, SortKey, StorageUsage, StoreError};
use sha2::{Digest, Sha256};

fn new_artifact<'a>(name: &'a str, server: &'a str, now_ms: i64) -> NewArtifact<'a> {
    NewArtifact {
        name,
        mime: "image/png",
        server,
        tool: "render_chart",
        call_id: "call-1",
        session_id: "session-1",
        description: None,
        persistence: Persistence::Session,
        now_ms,
    }
}

#[test]
fn stores_bytes_under_their_hash_and_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let bytes = b"\x89PNG fake but distinct".to_vec();
    let record = store.put(new_artifact("chart.png", "demo", 1_000), &bytes[..]).unwrap();

    let sha = format!("{:x}", Sha256::digest(&bytes));
    assert_eq!(record.sha256, sha);
    assert_eq!(record.id, format!("demo_{}", &sha[..12]));
    assert_eq!(record.size, bytes.len() as u64);
    assert_eq!(record.created_at_ms, 1_000);
    let path = store.blob_path(&sha);
    assert!(path.ends_with(format!("artifacts/blobs/{}/{}/{sha}", &sha[..2], &sha[2..4])), "{}", path.display());
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(store.read(&record.id).unwrap(), (record.clone(), bytes));
}

#[test]
fn identical_bytes_are_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let first = store.put(new_artifact("a.png", "demo", 1), &b"same"[..]).unwrap();
    let second = store.put(new_artifact("b.png", "demo", 2), &b"same"[..]).unwrap();
    assert_eq!(first.id, second.id);
    assert_eq!(second.name, "a.png", "the first name stays");
    assert_eq!(second.last_used_at_ms, 2, "storing again counts as a use");
    let blob_files = walk(&dir.path().join("artifacts/blobs"));
    assert_eq!(blob_files, 1);
    assert_eq!(walk(&dir.path().join("artifacts/tmp")), 0, "temp files left behind");
}

#[test]
fn catalog_survives_reopen_and_lists_by_session() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = ArtifactStore::open(dir.path()).unwrap();
        store.put(new_artifact("a.png", "demo", 5), &b"one"[..]).unwrap().id
    };
    let store = ArtifactStore::open(dir.path()).unwrap();
    assert_eq!(store.get(&id).unwrap().name, "a.png");
    let listed = store.list_session("session-1").unwrap();
    assert_eq!(listed.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), vec![id.as_str()]);
    assert!(store.list_session("other").unwrap().is_empty());
}

#[test]
fn unknown_id_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let err = store.get("demo_000000000000").unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)));
    assert_eq!(err.to_string(), "no artifact with id `demo_000000000000`");
}

#[test]
fn failing_reader_leaves_no_blob_and_no_row() {
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("connection reset"))
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let err = store.put(new_artifact("x.png", "demo", 1), Broken).unwrap_err();
    assert!(err.to_string().contains("connection reset"), "{err}");
    assert_eq!(walk(&dir.path().join("artifacts")), 0);
    assert!(store.list_session("session-1").unwrap().is_empty());
}

fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() { walk(&p) } else { 1 }
        })
        .sum()
}

fn artifact<'a>(name: &'a str, mime: &'a str, session: &'a str, now_ms: i64) -> NewArtifact<'a> {
    NewArtifact { name, mime, server: "demo", tool: "t", call_id: "c", session_id: session, description: None, persistence: Persistence::Session, now_ms }
}

#[test]
fn clearing_a_session_keeps_pinned_and_shared_artifacts() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let only_a = store.put(artifact("a.png", "image/png", "A", 1), &b"only in A"[..]).unwrap();
    let pinned = store.put(artifact("p.pdf", "application/pdf", "A", 2), &b"pinned"[..]).unwrap();
    store.set_pinned(&pinned.id, true).unwrap();
    let shared = store.put(artifact("s.txt", "text/plain", "A", 3), &b"shared"[..]).unwrap();
    store.put(artifact("s.txt", "text/plain", "B", 4), &b"shared"[..]).unwrap();

    let removed: Vec<String> = store.clear_session("A").unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(removed, vec![only_a.id.clone()]);
    assert!(matches!(store.get(&only_a.id), Err(StoreError::NotFound(_))));
    assert!(!store.blob_path(&only_a.sha256).exists(), "its blob is deleted");
    assert_eq!(store.get(&pinned.id).unwrap().persistence, Persistence::Pinned);
    assert!(store.get(&shared.id).is_ok(), "session B still links to it");
    assert!(store.list_session("A").unwrap().is_empty());
    assert_eq!(store.list_session("B").unwrap().len(), 1);
    assert!(store.verify().unwrap().is_clean());
}

#[test]
fn quota_evicts_least_recently_used_unpinned_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let old = store.put(artifact("old", "text/plain", "S", 10), &[1u8; 400][..]).unwrap();
    let used = store.put(artifact("used", "text/plain", "S", 20), &[2u8; 400][..]).unwrap();
    let pinned = store.put(artifact("pin", "text/plain", "S", 5), &[3u8; 400][..]).unwrap();
    store.set_pinned(&pinned.id, true).unwrap();
    let newest = store.put(artifact("new", "text/plain", "S", 30), &[4u8; 400][..]).unwrap();
    store.touch(&used.id, 40).unwrap();
    assert_eq!(store.total_bytes().unwrap(), 1600);

    let eviction = store.enforce(&Limits { quota_bytes: 1000, ..Limits::default() }, 50).unwrap();
    assert_eq!(eviction.over_quota, vec![old.id.clone(), newest.id.clone()], "LRU order; the pinned one is never evicted");
    assert_eq!(store.total_bytes().unwrap(), 800);
    assert!(store.get(&used.id).is_ok() && store.get(&pinned.id).is_ok());
    assert!(store.verify().unwrap().is_clean());
}

#[test]
fn age_limit_evicts_unused_unpinned_artifacts() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let day = 86_400_000;
    let stale = store.put(artifact("stale", "text/plain", "S", 0), &b"stale"[..]).unwrap();
    let fresh = store.put(artifact("fresh", "text/plain", "S", 9 * day), &b"fresh"[..]).unwrap();
    let eviction = store.enforce(&Limits { max_age_days: Some(7), ..Limits::default() }, 10 * day).unwrap();
    assert_eq!(eviction.expired, vec![stale.id]);
    assert!(store.get(&fresh.id).is_ok());
}

#[test]
fn queries_filter_sort_and_paginate() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let rows = [
        ("Chart.png", "image/png", "render_chart"),
        ("report.pdf", "application/pdf", "download"),
        ("page.html", "text/html", "make_report"),
        ("data.csv", "text/csv", "make_report"),
        ("big_chart.png", "image/png", "render_chart"),
    ];
    for (i, (name, mime, tool)) in rows.iter().enumerate() {
        let new = NewArtifact { tool, ..artifact(name, mime, if i < 3 { "S1" } else { "S2" }, i as i64) };
        store.put(new, name.as_bytes()).unwrap();
    }
    let names = |q: ArtifactQuery| store.query(&q).unwrap().items.into_iter().map(|r| r.name).collect::<Vec<_>>();
    assert_eq!(names(ArtifactQuery { family: Some(MimeFamily::Image), ..Default::default() }), vec!["big_chart.png", "Chart.png"]);
    assert_eq!(names(ArtifactQuery { family: Some(MimeFamily::Text), ..Default::default() }), vec!["data.csv"]);
    assert_eq!(names(ArtifactQuery { name_contains: Some("CHART".into()), sort: SortKey::Name, descending: false, ..Default::default() }), vec!["big_chart.png", "Chart.png"]);
    assert_eq!(names(ArtifactQuery { name_contains: Some("%".into()), ..Default::default() }), Vec::<String>::new(), "LIKE wildcards are literal");
    assert_eq!(names(ArtifactQuery { tool: Some("make_report".into()), session: Some("S1".into()), ..Default::default() }), vec!["page.html"]);
    let page = store.query(&ArtifactQuery { limit: 2, offset: 2, descending: false, ..Default::default() }).unwrap();
    assert_eq!((page.total, page.items.iter().map(|r| r.name.as_str()).collect::<Vec<_>>()), (5, vec!["page.html", "data.csv"]));
}

#[test]
fn sources_and_usage_for_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    assert_eq!(store.usage(1000).unwrap(), StorageUsage { used_bytes: 0, pinned_bytes: 0, quota_bytes: 1000, artifacts: 0, pinned: 0 });
    assert!(store.sources().unwrap().is_empty());
    let a = store.put(NewArtifact { tool: "render_chart", ..artifact("a.png", "image/png", "S", 1) }, &[1u8; 100][..]).unwrap();
    store.put(NewArtifact { tool: "render_chart", ..artifact("b.png", "image/png", "S", 2) }, &[2u8; 50][..]).unwrap();
    store.put(NewArtifact { server: "other", tool: "fetch", ..artifact("same.bin", "application/zip", "S", 3) }, &[1u8; 100][..]).unwrap();
    store.set_pinned(&a.id, true).unwrap();
    let usage = store.usage(1000).unwrap();
    assert_eq!(usage, StorageUsage { used_bytes: 150, pinned_bytes: 100, quota_bytes: 1000, artifacts: 3, pinned: 1 }, "shared bytes count once");
    assert_eq!(usage.used_bytes, store.total_bytes().unwrap());
    let source = |server: &str, tool: &str, count| ArtifactSource { server: server.into(), tool: tool.into(), count };
    assert_eq!(store.sources().unwrap(), vec![source("demo", "render_chart", 2), source("other", "fetch", 1)]);
    store.remove(&a.id).unwrap();
    assert_eq!(store.usage(1000).unwrap().pinned_bytes, 0, "the blob stays for the other artifact, no longer pinned");
    assert_eq!(store.usage(1000).unwrap().used_bytes, 150);
}

#[test]
fn verify_names_missing_corrupt_and_orphaned_blobs_and_reads_refuse_wrong_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let corrupt = store.put(artifact("c.bin", "application/octet-stream", "S", 1), &b"original bytes"[..]).unwrap();
    let missing = store.put(artifact("m.bin", "application/octet-stream", "S", 2), &b"will vanish"[..]).unwrap();
    std::fs::write(store.blob_path(&corrupt.sha256), b"tampered bytes").unwrap();
    std::fs::remove_file(store.blob_path(&missing.sha256)).unwrap();
    let orphan = store.blob_path(&"ab".repeat(32));
    std::fs::create_dir_all(orphan.parent().unwrap()).unwrap();
    std::fs::write(&orphan, b"nobody's").unwrap();

    let report = store.verify().unwrap();
    assert_eq!(report.corrupt, vec![corrupt.id.clone()]);
    assert_eq!(report.missing, vec![missing.id.clone()]);
    assert_eq!(report.orphaned, vec![orphan.clone()]);
    assert!(!report.is_clean());
    let err = store.read(&corrupt.id).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains(&corrupt.id));
    assert!(matches!(store.read(&missing.id), Err(StoreError::Corrupt { .. })));
    let out = dir.path().join("exported.bin");
    assert!(store.export(&corrupt.id, &out).is_err());
    assert!(!out.exists(), "a failed export leaves no file");
    assert_eq!(store.gc().unwrap(), 1, "gc removes the orphan");
    assert!(!orphan.exists());
}

#[test]
fn export_writes_the_verified_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let record = store.put(artifact("x.txt", "text/plain", "S", 1), &b"exported"[..]).unwrap();
    let out = dir.path().join("x.txt");
    store.export(&record.id, &out).unwrap();
    assert_eq!(std::fs::read(out).unwrap(), b"exported");
}

#[test]
fn export_never_replaces_what_is_not_a_file() {
    // Found by the team store's tests: `artifacts export ID /dev/null` as root renamed the copy
    // over /dev/null. A socket stands in for the device here.
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let record = store.put(artifact("x.txt", "text/plain", "S", 1), &b"exported"[..]).unwrap();
    let socket = dir.path().join("a.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let err = store.export(&record.id, &socket).unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    assert!(!std::fs::metadata(&socket).unwrap().is_file(), "the socket is still a socket");
    let err = store.export(&record.id, dir.path()).unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    // A file in place is replaced, as before.
    let out = dir.path().join("x.txt");
    std::fs::write(&out, b"old").unwrap();
    store.export(&record.id, &out).unwrap();
    assert_eq!(std::fs::read(out).unwrap(), b"exported");
}

#[test]
fn a_catalog_from_a_newer_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    drop(ArtifactStore::open(dir.path()).unwrap());
    let conn = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let err = ArtifactStore::open(dir.path()).err().expect("refused");
    assert!(err.to_string().contains("schema version 99 is newer"), "{err}");
}

#[test]
fn two_stores_on_one_directory_write_at_once() {
    let dir = tempfile::tempdir().unwrap();
    drop(ArtifactStore::open(dir.path()).unwrap());
    let handles: Vec<_> = (0..2)
        .map(|writer| {
            let path = dir.path().to_owned();
            std::thread::spawn(move || {
                let store = ArtifactStore::open(&path).unwrap();
                for i in 0..100 {
                    let bytes = format!("writer {writer} item {i}");
                    let session = format!("w{writer}");
                    store.put(artifact("x.txt", "text/plain", &session, i), bytes.as_bytes()).unwrap();
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    let store = ArtifactStore::open(dir.path()).unwrap();
    assert_eq!(store.list_session("w0").unwrap().len(), 100);
    assert_eq!(store.list_session("w1").unwrap().len(), 100);
    assert!(store.verify().unwrap().is_clean());
}

#[test]
fn sampling_exchanges_are_kept_per_server_newest_first_across_reopening() {
    use mcp_canvas_store::SamplingRow;
    let dir = tempfile::tempdir().unwrap();
    let row = |server: &str, at_ms: i64, decision: &str| SamplingRow {
        id: 0,
        server: server.into(),
        at_ms,
        decision: decision.into(),
        provider: "local".into(),
        model: "smollm2".into(),
        latency_ms: 12,
        input_tokens: 30,
        output_tokens: 7,
        record: format!(r#"{{"at":{at_ms}}}"#),
    };
    {
        let store = ArtifactStore::open(dir.path()).unwrap();
        let first = store.record_sampling(&row("demo", 1, "approved")).unwrap();
        let second = store.record_sampling(&row("other", 2, "rejected")).unwrap();
        store.record_sampling(&row("demo", 3, "edited")).unwrap();
        assert!(second > first);
    }
    let store = ArtifactStore::open(dir.path()).unwrap();
    let demo = store.sampling_log(Some("demo"), 10).unwrap();
    assert_eq!(demo.iter().map(|r| (r.at_ms, r.decision.as_str())).collect::<Vec<_>>(), [(3, "edited"), (1, "approved")]);
    assert_eq!(demo[0].record, r#"{"at":3}"#);
    assert_eq!(store.sampling_log(None, 10).unwrap().len(), 3);
    assert_eq!(store.sampling_log(None, 1).unwrap()[0].at_ms, 3);
    assert!(store.sampling_log(Some("nobody"), 10).unwrap().is_empty());
}

/// With a team store, each audit row and sampling exchange is queued for the team catalog in the
/// transaction that writes it (none before queueing starts), oldest first, each with a key of its
/// own; the queue survives reopening and empties as the team store acknowledges.
#[test]
fn audit_rows_and_sampling_exchanges_are_queued_for_the_team_with_their_rows() {
    use mcp_canvas_store::{AuditRecord, LogEntry, SamplingRow};
    let dir = tempfile::tempdir().unwrap();
    let call = |id: &str| AuditRecord {
        call_id: id.into(),
        session_id: "s".into(),
        server: "demo".into(),
        tool: "render".into(),
        arguments: serde_json::json!({"q": 1}),
        identity: None,
        started_ms: 5,
        duration_ms: 1,
        outcome: "ok".into(),
        detail: None,
        artifact_ids: vec!["demo_1".into()],
        result_text: None,
    };
    let exchange = SamplingRow { id: 0, server: "demo".into(), at_ms: 6, decision: "automatic".into(), provider: "p".into(), model: "m".into(), latency_ms: 1, input_tokens: 2, output_tokens: 3, record: "{}".into() };
    {
        let store = ArtifactStore::open(dir.path()).unwrap();
        store.audit(&call("before")).unwrap();
        assert_eq!(store.team_backlog().unwrap().records, 0, "nothing is queued without a team store");
        store.queue_for_team(true);
        store.audit(&call("c1")).unwrap();
        store.record_sampling(&exchange).unwrap();
        store.audit_all(&[call("c2"), call("c3")]).unwrap();
    }
    let store = ArtifactStore::open(dir.path()).unwrap();
    assert_eq!(store.team_backlog().unwrap().records, 4);
    let queued = store.team_log_queue(0, 10).unwrap();
    let what: Vec<String> = queued
        .iter()
        .map(|q| match &q.entry {
            LogEntry::Call(c) => c.call_id.clone(),
            LogEntry::Sampling(s) => format!("sampling {}", s.decision),
        })
        .collect();
    assert_eq!(what, ["c1", "sampling automatic", "c2", "c3"]);
    let uids: std::collections::HashSet<&str> = queued.iter().map(|q| q.uid.as_str()).collect();
    assert!(uids.len() == 4 && uids.iter().all(|u| u.len() == 32), "{uids:?}");
    // The same entries (and keys) until acknowledged.
    assert_eq!(store.team_log_queue(0, 10).unwrap(), queued);
    store.team_log_failed(&[queued[0].seq], "catalog away").unwrap();
    assert_eq!(store.team_backlog().unwrap().last_error.as_deref(), Some("catalog away"));
    store.team_log_done(&[queued[0].seq, queued[1].seq]).unwrap();
    assert_eq!(store.team_log_queue(0, 10).unwrap(), queued[2..]);
    assert_eq!(store.team_log_queue(queued[2].seq, 10).unwrap(), queued[3..]);
    assert_eq!(store.team_backlog().unwrap().records, 2);
}

/// A damaged catalog (rows whose ids are not their own hash's prefix) is an error naming the
/// catalog, never a panic: every id new bytes could take already holds other bytes.
#[test]
fn a_catalog_holding_other_bytes_under_every_id_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let bytes = b"bytes whose every id is taken".to_vec();
    let sha = format!("{:x}", Sha256::digest(&bytes));
    let hostile = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
    for len in [12, 16, 24, 64] {
        hostile
            .execute(
                "INSERT INTO artifacts (id, sha256, name, mime, size, server, tool, call_id, session_id, created_at_ms, last_used_at_ms, persistence)
                 VALUES (?1, ?2, 'x', 'image/png', 1, 'demo', 't', 'c', 's', 1, 1, 'session')",
                rusqlite::params![format!("demo_{}", &sha[..len]), "0".repeat(64)],
            )
            .unwrap();
    }
    let err = store.put(new_artifact("chart.png", "demo", 1_000), &bytes[..]).unwrap_err();
    assert!(matches!(&err, StoreError::Corrupt { reason, .. } if reason.contains("catalog.sqlite")), "{err}");
    // The store still works for other bytes.
    store.put(new_artifact("other.png", "demo", 1_000), &b"other bytes"[..]).unwrap();
}
