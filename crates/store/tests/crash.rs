//! The store under hostile conditions, with real processes: writers killed with SIGKILL at random
//! points, and a writer whose files may not grow (RLIMIT_FSIZE: the disk is "full").
//!
//! The writer is this test binary run again as a child (`writer_child`, ignored unless asked).

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    time::Duration,
};

use mcp_canvas_store::{ArtifactStore, NewArtifact, Persistence};

fn new_artifact(now_ms: i64) -> NewArtifact<'static> {
    NewArtifact { name: "blob.bin", mime: "application/octet-stream", server: "crash", tool: "t", call_id: "c", session_id: "s", description: None, persistence: Persistence::Session, now_ms }
}

/// Deterministic bytes of a size that varies from a few bytes to ~300 KB.
fn payload(seed: u64) -> Vec<u8> {
    let len = (seed.wrapping_mul(2_654_435_761) % 300_000) as usize + 1_000;
    let mut state = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

#[test]
#[ignore = "a child process of the tests below"]
fn writer_child() {
    let Ok(dir) = std::env::var("STORE_TEST_DIR") else { return };
    let start: u64 = std::env::var("STORE_TEST_SEED").unwrap().parse().unwrap();
    let big = std::env::var("STORE_TEST_BIG").is_ok();
    let count: u64 = std::env::var("STORE_TEST_COUNT").ok().and_then(|c| c.parse().ok()).unwrap_or(u64::MAX);
    let store = ArtifactStore::open(dir.as_ref()).unwrap();
    for i in (start..).take(count.min(u64::MAX - start) as usize) {
        let bytes = match (big, i - start) {
            (true, 3) => vec![7u8; 1 << 20],
            (true, n) if n > 3 => return,
            (true, _) => payload(i)[..1_000].to_vec(),
            (false, _) => payload(i),
        };
        match store.put(new_artifact(i as i64), &bytes[..]) {
            Ok(record) => println!("stored {} {}", record.id, record.sha256),
            Err(e) => {
                println!("failed {e}");
                return;
            }
        }
    }
}

fn spawn_writer(dir: &std::path::Path, seed: u64, extra: &[(&str, &str)], shell_prefix: Option<&str>) -> std::process::Child {
    let exe = std::env::current_exe().unwrap();
    let args = ["writer_child", "--exact", "--ignored", "--nocapture", "--test-threads=1", "--quiet"];
    let mut command = match shell_prefix {
        Some(prefix) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(format!("{prefix}; exec \"$0\" \"$@\"")).arg(&exe).args(args);
            c
        }
        None => {
            let mut c = Command::new(&exe);
            c.args(args);
            c
        }
    };
    command.env("STORE_TEST_DIR", dir).env("STORE_TEST_SEED", seed.to_string()).stdout(Stdio::piped()).stderr(Stdio::null());
    for (k, v) in extra {
        command.env(k, v);
    }
    command.spawn().unwrap()
}

#[test]
fn killed_writers_never_leave_half_written_artifacts() {
    let dir = tempfile::tempdir().unwrap();
    let mut reported = Vec::new();
    let mut seed = 1u64;
    for round in 0..10u64 {
        let mut child = spawn_writer(dir.path(), seed, &[], None);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Kill after a varying number of reports plus a varying delay, so the kill lands at
        // different points of a write: mid-copy, before fsync, between rename and insert.
        let target = 20 + (round * 7) % 40;
        let mut seen = 0;
        while seen < target {
            let Some(Ok(line)) = lines.next() else { break };
            if let Some(rest) = line.strip_prefix("stored ") {
                let (id, sha) = rest.split_once(' ').unwrap();
                reported.push((id.to_owned(), sha.to_owned()));
                seen += 1;
            }
        }
        std::thread::sleep(Duration::from_micros(round * 1_700 % 9_000));
        child.kill().unwrap(); // SIGKILL
        // Lines written before the kill count too: the writer had reported them as stored.
        for line in lines.map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("stored ") {
                let (id, sha) = rest.split_once(' ').unwrap();
                reported.push((id.to_owned(), sha.to_owned()));
            }
        }
        child.wait().unwrap();
        seed += 1_000;
    }
    assert!(reported.len() >= 200, "only {} writes reported", reported.len());

    let store = ArtifactStore::open(dir.path()).unwrap();
    for (id, sha) in &reported {
        let (record, bytes) = store.read(id).unwrap_or_else(|e| panic!("{id} was reported stored: {e}"));
        assert_eq!(&record.sha256, sha);
        assert!(!bytes.is_empty());
    }
    let before_gc = store.verify().unwrap();
    assert!(before_gc.missing.is_empty() && before_gc.corrupt.is_empty(), "{before_gc:?}");
    // What a kill can leave: a temp file, or a blob renamed into place whose row was never
    // inserted. Neither is visible as an artifact; gc (run at app start) reclaims both.
    store.gc().unwrap();
    let after_gc = store.verify().unwrap();
    assert!(after_gc.is_clean(), "{after_gc:?}");
    assert_eq!(after_gc.checked, store.query(&Default::default()).unwrap().total as usize);
}

#[test]
fn a_full_disk_is_a_clear_error_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    drop(ArtifactStore::open(dir.path()).unwrap());
    // Files of this process may not grow beyond 512 KB; SIGXFSZ is ignored so writes fail with
    // EFBIG instead of killing the writer. Payloads 1-3 are small; the fourth is 1 MB.
    let child = spawn_writer(dir.path(), 0, &[("STORE_TEST_BIG", "1")], Some("trap '' XFSZ; ulimit -f 512"));
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stored: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("stored ")).map(|r| r.split(' ').next().unwrap()).collect();
    let failure = stdout.lines().find_map(|l| l.strip_prefix("failed ")).unwrap_or_else(|| panic!("no failure reported: {stdout}"));
    assert!(failure.contains("writing") && failure.contains("too large"), "{failure}");
    assert!(stored.len() >= 2, "{stdout}");

    let store = ArtifactStore::open(dir.path()).unwrap();
    assert_eq!(store.query(&Default::default()).unwrap().total as usize, stored.len(), "catalog holds exactly what was stored");
    for id in &stored {
        store.read(id).unwrap();
    }
    let report = store.verify().unwrap();
    assert!(report.is_clean(), "temp file cleaned, nothing orphaned: {report:?}");
}

#[test]
fn two_processes_writing_at_once_both_succeed() {
    let dir = tempfile::tempdir().unwrap();
    drop(ArtifactStore::open(dir.path()).unwrap());
    let children: Vec<_> = [10_000u64, 20_000].iter().map(|&seed| spawn_writer(dir.path(), seed, &[("STORE_TEST_COUNT", "60")], None)).collect();
    let mut reported = Vec::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(!stdout.lines().any(|l| l.starts_with("failed ")), "{stdout}");
        reported.extend(stdout.lines().filter_map(|l| l.strip_prefix("stored ")).map(|r| r.split(' ').next().unwrap().to_owned()));
    }
    assert_eq!(reported.len(), 120, "every write of both processes succeeded");
    let store = ArtifactStore::open(dir.path()).unwrap();
    for id in &reported {
        store.read(id).unwrap();
    }
    assert!(store.verify().unwrap().is_clean());
}
