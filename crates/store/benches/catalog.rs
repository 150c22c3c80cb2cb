//! Catalog queries at 100,000 rows, with the schema's indexes and (the baseline, same run) with
//! them dropped. Prints a table; asserts nothing. `cargo bench -p mcp-canvas-store --bench catalog`
//! (`ROWS=N` to change the size).

use std::time::Instant;

use mcp_canvas_store::{ArtifactQuery, ArtifactStore, MimeFamily, NewArtifact, Persistence, SortKey};

const SERVERS: [&str; 5] = ["demo", "tableau", "github", "files", "charts"];
const MIMES: [(&str, &str); 5] = [("png", "image/png"), ("pdf", "application/pdf"), ("html", "text/html"), ("csv", "text/csv"), ("json", "application/json")];

fn main() {
    let rows: usize = std::env::var("ROWS").ok().and_then(|r| r.parse().ok()).unwrap_or(100_000);
    let base = if std::path::Path::new("/dev/shm").is_dir() { tempfile::tempdir_in("/dev/shm") } else { tempfile::tempdir() }.unwrap();
    let store = ArtifactStore::open(base.path()).unwrap();
    let started = Instant::now();
    for i in 0..rows {
        let (ext, mime) = MIMES[i % MIMES.len()];
        let name = format!("report-{i}.{ext}");
        let session = format!("session-{}", i / 1_000);
        let new = NewArtifact {
            name: &name,
            mime,
            server: SERVERS[i % SERVERS.len()],
            tool: "tool",
            call_id: "call",
            session_id: &session,
            description: None,
            persistence: Persistence::Session,
            now_ms: i as i64,
        };
        store.put(new, format!("payload {i}").as_bytes()).unwrap();
    }
    let ingest = started.elapsed();
    println!("ingested {rows} artifacts in {:.1} s ({:.0} rows/s, tmpfs)", ingest.as_secs_f64(), rows as f64 / ingest.as_secs_f64());

    let queries: Vec<(&str, ArtifactQuery)> = vec![
        ("newest 50", ArtifactQuery::default()),
        ("server=tableau, page 20", ArtifactQuery { server: Some("tableau".into()), offset: 1_000, ..Default::default() }),
        ("images, newest 50", ArtifactQuery { family: Some(MimeFamily::Image), ..Default::default() }),
        ("one session", ArtifactQuery { session: Some("session-42".into()), ..Default::default() }),
        ("name contains '-4242'", ArtifactQuery { name_contains: Some("-4242".into()), ..Default::default() }),
        ("largest 50", ArtifactQuery { sort: SortKey::Size, ..Default::default() }),
        ("by name A-Z", ArtifactQuery { sort: SortKey::Name, descending: false, ..Default::default() }),
    ];
    let indexed: Vec<f64> = queries.iter().map(|(_, q)| time_query(&store, q)).collect();

    // Baseline: the same store without the secondary indexes.
    drop(store);
    let conn = rusqlite::Connection::open(base.path().join("catalog.sqlite")).unwrap();
    for index in ["artifacts_by_server", "artifacts_by_tool", "artifacts_by_mime", "artifacts_by_created", "artifacts_by_last_used", "artifacts_by_size", "artifacts_by_name", "artifacts_by_session", "session_artifacts_by_artifact"] {
        conn.execute(&format!("DROP INDEX {index}"), []).unwrap();
    }
    drop(conn);
    let store = ArtifactStore::open(base.path()).unwrap();
    let unindexed: Vec<f64> = queries.iter().map(|(_, q)| time_query(&store, q)).collect();

    println!("\n{:<28} {:>14} {:>18} {:>9}", "query (median of 15)", "indexed ms", "no indexes ms", "speed-up");
    for (((label, _), with), without) in queries.iter().zip(&indexed).zip(&unindexed) {
        println!("{label:<28} {with:>14.3} {without:>18.3} {:>8.1}x", without / with);
    }
}

fn time_query(store: &ArtifactStore, query: &ArtifactQuery) -> f64 {
    let mut samples: Vec<f64> = (0..15)
        .map(|_| {
            let start = Instant::now();
            let page = store.query(query).unwrap();
            std::hint::black_box(page);
            start.elapsed().as_secs_f64() * 1_000.0
        })
        .collect();
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}
