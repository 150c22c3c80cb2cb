//! A file inline as a data URI (`files_in::data_uri`: read from the store, sha256-checked,
//! base64-encoded into the URI) against its baseline in the same run: base64-encoding the same
//! bytes already in memory (the target: ≤ 1.2× that), and reading the file then encoding
//! it (what any client must do at least).
//!
//! `cargo bench -p mcp-canvas-host --bench data_uri [-- --mb 10 --runs 15]`

use std::time::Instant;

use base64::Engine as _;
use mcp_canvas_host::files_in;
use mcp_canvas_store::{ArtifactStore, NewArtifact, Persistence};

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default);
    let (mb, runs) = (arg("--mb", 10), arg("--runs", 15));
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let mut bytes = vec![0u8; mb << 20];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in bytes.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let new = NewArtifact { name: "data.bin", mime: "application/octet-stream", server: "bench", tool: "make", call_id: "c", session_id: "s", description: None, persistence: Persistence::Session, now_ms: 1 };
    let record = store.put(new, &bytes[..]).unwrap();
    let path = store.blob_path(&record.sha256);

    let (mut ours, mut in_memory, mut read_then_encode) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let started = Instant::now();
        let uri = files_in::data_uri(&store, &record).unwrap();
        ours.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(uri.len() > bytes.len());

        let started = Instant::now();
        let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
        in_memory.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(encoded.len(), uri.len() - uri.find(',').unwrap() - 1);

        let started = Instant::now();
        let read = std::fs::read(&path).unwrap();
        let encoded = base64::engine::general_purpose::STANDARD.encode(&read);
        read_then_encode.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(encoded.len(), uri.len() - uri.find(',').unwrap() - 1);
    }
    let (ours, in_memory, read_then_encode) = (median(ours), median(in_memory), median(read_then_encode));
    println!("a {mb} MB file as a data URI, median of {runs} runs:");
    println!("  files_in::data_uri (read from the store, sha256 checked, encoded): {ours:.1} ms");
    println!("  baseline: base64 of the bytes already in memory:                   {in_memory:.1} ms  (ours {:.2}×; target ≤ 1.2×)", ours / in_memory);
    println!("  baseline: read the file, then base64:                             {read_then_encode:.1} ms  (ours {:.2}×)", ours / read_then_encode);
}
