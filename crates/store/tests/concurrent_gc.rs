//! Two real processes on one data dir, as the app and the proxy (or the CLI) run: one stores
//! artifacts, the other runs `gc` in a tight loop. Every artifact the writer was told is stored
//! must still be readable afterwards, and `verify` must be clean.
//!
//! For every other payload the writer first lays the blob in the blob directory as an orphan (as
//! a blob whose row was just removed lies waiting for gc), so half the writes take the "the blob
//! already exists, only the row is new" path, racing gc for that very file.
//!
//! Both sides are this test binary run again as children (`*_child`, ignored unless asked).

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
};

use mcp_canvas_store::{ArtifactStore, NewArtifact, Persistence};
use sha2::{Digest, Sha256};

const WRITES: u64 = 240;

fn payload(i: u64) -> Vec<u8> {
    // Small and distinct: the race is between the rename and the row, not in the copying.
    let mut bytes = format!("concurrent-gc payload {i}\n").into_bytes();
    bytes.resize(512 + (i as usize % 7) * 100, (i % 251) as u8);
    bytes
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
#[ignore = "a child process of the test below"]
fn writer_child() {
    let Ok(dir) = std::env::var("STORE_TEST_DIR") else { return };
    let store = ArtifactStore::open(dir.as_ref()).unwrap();
    for i in 0..WRITES {
        let new = NewArtifact {
            name: "image.png",
            mime: "image/png",
            server: "writer",
            tool: "t",
            call_id: "c",
            session_id: "s",
            description: None,
            persistence: Persistence::Session,
            now_ms: i as i64,
        };
        if i % 2 == 0 {
            let bytes = payload(i);
            let path = store.blob_path(&hex(&Sha256::digest(&bytes)));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let _ = std::fs::write(&path, &bytes);
        }
        match store.put(new, &payload(i)[..]) {
            Ok(record) => println!("stored {} {}", record.id, record.sha256),
            Err(e) => println!("failed {e}"),
        }
    }
}

#[test]
#[ignore = "a child process of the test below"]
fn gc_child() {
    let Ok(dir) = std::env::var("STORE_TEST_DIR") else { return };
    let store = ArtifactStore::open(dir.as_ref()).unwrap();
    let stop = std::path::Path::new(&dir).join("stop-gc");
    let ready = std::path::Path::new(&dir).join("gc-running");
    let mut rounds = 0u64;
    while !stop.exists() {
        store.gc().unwrap();
        rounds += 1;
        if rounds == 1 {
            std::fs::write(&ready, b"").unwrap();
        }
    }
    println!("rounds {rounds}");
}

fn spawn(dir: &std::path::Path, child: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([child, "--exact", "--ignored", "--nocapture", "--test-threads=1", "--quiet"])
        .env("STORE_TEST_DIR", dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

#[test]
fn a_gc_loop_in_another_process_loses_no_acknowledged_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();

    let gc = spawn(dir.path(), "gc_child");
    // The writer starts once gc is looping, however slow the machine is.
    while !dir.path().join("gc-running").exists() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let writer = spawn(dir.path(), "writer_child");
    let written = writer.wait_with_output().unwrap();
    std::fs::write(dir.path().join("stop-gc"), b"").unwrap();
    let gc = gc.wait_with_output().unwrap();
    assert!(written.status.success() && gc.status.success(), "a child failed: writer {:?}, gc {:?}", written.status, gc.status);
    let rounds: u64 = String::from_utf8_lossy(&gc.stdout).lines().find_map(|l| l.strip_prefix("rounds ")?.parse().ok()).expect("gc reports its rounds");
    assert!(rounds > 0, "gc never ran");

    let mut acknowledged = Vec::new();
    for line in BufReader::new(&written.stdout[..]).lines() {
        let line = line.unwrap();
        let fields: Vec<&str> = line.split(' ').collect();
        match fields[..] {
            ["stored", id, sha] => acknowledged.push((id.to_owned(), sha.to_owned())),
            ["failed", ..] => panic!("the writer could not store: {line}"),
            _ => {} // the test harness's own lines
        }
    }
    assert_eq!(acknowledged.len() as u64, WRITES, "every write was acknowledged");

    let lost: Vec<&str> = acknowledged.iter().filter(|(id, _)| store.read(id).is_err()).map(|(id, _)| id.as_str()).collect();
    assert!(lost.is_empty(), "{} of {WRITES} acknowledged artifacts were lost to a concurrent gc ({rounds} gc rounds), e.g. {:?}", lost.len(), &lost[..lost.len().min(5)]);
    for (id, sha) in &acknowledged {
        let (record, bytes) = store.read(id).unwrap();
        assert_eq!(&record.sha256, sha);
        assert_eq!(hex(&Sha256::digest(&bytes)), *sha);
    }
    let report = store.verify().unwrap();
    assert!(report.missing.is_empty() && report.corrupt.is_empty(), "verify: {report:?}");
}
