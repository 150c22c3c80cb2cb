//! The store against a real SQLite file and a real directory.

use mcp_canvas_store::{ArtifactStore, NewArtifact, Persistence, StoreError};
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
    assert_eq!(first, second);
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
