//! The team store against real parts started here: PostgreSQL (Debian's) and an S3-compatible
//! server (moto from PyPI), with members as separate data dirs and real `mcp-canvas-cli`
//! processes (and, for the race, this test binary run again as children).
//!
//! moto does not verify checksums (it echoes them), does not check signatures, and keeps its
//! state in memory (a restart loses the bucket); what the code does that moto cannot prove is
//! said in docs/team-store.md and checked against the protocol where it can be: create-only
//! writes (moto enforces `If-None-Match: *`, also on completing a multipart upload).

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use base64::Engine as _;
use mcp_canvas_e2e::{
    binary,
    team::{join, member, member_env, store_settings, Postgres, S3Server},
    Run,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// A tool result carrying `bytes` as an embedded PDF.
fn result_with(bytes: &[u8], name: &str) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    serde_json::to_vec(&json!({"content": [{"type": "resource", "resource": {"uri": format!("file:///{name}"), "mimeType": "application/pdf", "blob": b64}}]})).unwrap()
}

fn pdfish(seed: u64, len: usize) -> Vec<u8> {
    let mut bytes = format!("%PDF-1.4\n% team store test {seed}\n").into_bytes();
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    while bytes.len() < len {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        bytes.push((x >> 33) as u8);
    }
    bytes
}

/// Stores `bytes` through `normalize` (the same path as a call's result); returns the id the
/// call was told.
fn store(dir: &Path, bytes: &[u8], name: &str) -> String {
    let run = member(dir, &["normalize", "--server", "reports", "--tool", "render", "--json"], &result_with(bytes, name));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    outcome["artifacts"][0]["id"].as_str().unwrap_or_else(|| panic!("no artifact in {outcome}")).to_owned()
}

/// A file to export into.
fn scratch(dir: &Path) -> String {
    dir.join("exported.bin").display().to_string()
}

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr))
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_teammates_artifact_opens_identical_bytes_are_one_object_and_private_stays_private() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let (ada, bo, cy) = (join(&s3, &pg, "ada"), join(&s3, &pg, "bo"), join(&s3, &pg, "cy"));
    let report = pdfish(1, 300_000);
    let ada_id = store(ada.path(), &report, "q3.pdf");
    // The call's process drained its outbox before exiting.
    let status = json_of(&member(ada.path(), &["store", "status", "--json"], b""));
    assert_eq!(status["backlog"]["count"], 0, "{status}");
    assert_eq!((status["bucket_error"].clone(), status["catalog_error"].clone()), (Value::Null, Value::Null), "{status}");
    assert_eq!(status["schema_version"], 4);

    // Bo gets the same bytes from the same server: the same artifact (ids are the server and the
    // hash), still Ada's. From another server: another artifact, the same object in the bucket.
    assert_eq!(store(bo.path(), &report, "q3.pdf"), ada_id);
    let bo_run = member(bo.path(), &["normalize", "--server", "mirror", "--tool", "fetch", "--json"], &result_with(&report, "copy-of-q3.pdf"));
    assert_eq!(bo_run.code, 0, "{}", bo_run.stderr);
    let other = pdfish(2, 5_000);
    store(bo.path(), &other, "notes.pdf");
    assert_eq!(s3.keys("canvas/blobs/").len(), 2, "{:?}", s3.keys("canvas/"));
    assert_eq!(s3.keys("canvas/blobs/").iter().filter(|k| k.ends_with(&hex(&report))).count(), 1);
    assert_eq!(pg.admin("SELECT COUNT(*) FROM artifacts"), "3");
    assert_eq!(pg.admin(&format!("SELECT member FROM artifacts WHERE id = '{ada_id}'")), "ada");

    // Cy (a fresh data dir) sees who produced what, and opens Ada's artifact from the bucket.
    let listed = json_of(&member(cy.path(), &["store", "list", "--json"], b""));
    let members: Vec<(&str, &str)> = listed.as_array().unwrap().iter().map(|a| (a["member"].as_str().unwrap(), a["record"]["name"].as_str().unwrap())).collect();
    assert!(members.contains(&("ada", "q3.pdf")) && members.contains(&("bo", "copy-of-q3.pdf")) && members.contains(&("bo", "notes.pdf")), "{members:?}");
    let only_bo = json_of(&member(cy.path(), &["store", "list", "--member", "bo", "--json"], b""));
    assert_eq!(only_bo.as_array().unwrap().len(), 2);
    let out = cy.path().join("q3.pdf");
    let pulled = member(cy.path(), &["store", "pull", &ada_id, "--out", out.to_str().unwrap()], b"");
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), report);
    // Now in Cy's cache: the local store has it (and never queued it to upload again).
    assert_eq!(json_of(&member(cy.path(), &["artifacts", "show", &ada_id, "--json"], b""))["sha256"], hex(&report));
    assert_eq!(json_of(&member(cy.path(), &["store", "status", "--json"], b""))["backlog"]["count"], 0);

    // Ada keeps hers private: Cy no longer sees or opens it; Bo's copy of the same bytes stays.
    assert_eq!(member(ada.path(), &["store", "private", &ada_id], b"").code, 0);
    let listed = json_of(&member(cy.path(), &["store", "list", "--json"], b""));
    assert!(!listed.as_array().unwrap().iter().any(|a| a["record"]["id"] == ada_id.as_str()), "{listed}");
    let cy2 = join(&s3, &pg, "cy");
    let refused = member(cy2.path(), &["store", "pull", &ada_id], b"");
    assert_ne!(refused.code, 0);
    assert!(refused.stderr.contains(&format!("no team artifact with id `{ada_id}`")), "{}", refused.stderr);
    assert!(member(bo.path(), &["store", "list", "--json"], b"").stdout.contains("mirror"), "Bo's copy from another server stays");
    // Bo stored those very bytes from the same server (the same id): he holds it too, and still
    // opens it from a fresh machine of his.
    let bo2 = join(&s3, &pg, "bo");
    let pulled = member(bo2.path(), &["store", "pull", &ada_id], b"");
    assert_eq!(pulled.code, 0, "a holder keeps his artifact: {}", pulled.stderr);
    // Only its member may change it.
    let not_hers = member(cy.path(), &["store", "share", &ada_id], b"");
    assert_ne!(not_hers.code, 0);
}

#[test]
fn offline_calls_store_locally_and_upload_in_order_when_the_bucket_and_catalog_are_back() {
    let (mut s3, mut pg) = (S3Server::start(), Postgres::start());
    let ada = join(&s3, &pg, "ada");
    store(ada.path(), &pdfish(10, 1000), "first.pdf"); // creates the schema
    s3.stop();
    let mut ids = Vec::new();
    for i in 0..3 {
        ids.push(store(ada.path(), &pdfish(11 + i, 20_000), &format!("offline-{i}.pdf")));
    }
    let status = member(ada.path(), &["store", "status", "--json"], b"");
    assert_eq!(status.code, 1, "the bucket is away: {}", status.stdout);
    let status = json_of(&status);
    assert_eq!(status["backlog"]["count"], 3, "{status}");
    assert!(status["bucket_error"].as_str().unwrap().contains("s3://team/canvas"), "{status}");
    assert!(status["backlog"]["last_error"].as_str().is_some_and(|e| e.contains("team bucket s3://team/canvas")), "{status}");
    // What is queued is readable here meanwhile, and survives the local quota.
    std::fs::write(ada.path().join("settings.toml"), store_settings(&s3, &pg, "ada") + "cache_quota_bytes = 1\n").unwrap();
    store(ada.path(), &pdfish(20, 20_000), "offline-3.pdf");
    ids.push(json_of(&member(ada.path(), &["artifacts", "list", "--json"], b""))["items"][0]["id"].as_str().unwrap().to_owned());
    for id in &ids {
        assert_eq!(member(ada.path(), &["artifacts", "export", id, &scratch(ada.path())], b"").code, 0, "{id} is readable while offline");
    }

    // The bucket is back (moto forgot everything: a new bucket) but the catalog is away.
    s3.restart();
    s3.request("PUT", "/team", b"");
    pg.stop();
    let sync = member(ada.path(), &["store", "sync"], b"");
    assert_eq!(sync.code, 1);
    assert!(sync.stderr.contains("team catalog postgres://canvas@127.0.0.1"), "{}", sync.stderr);
    assert!(!sync.stderr.contains(mcp_canvas_e2e::team::PASSWORD), "no password in errors");
    pg.restart();
    let sync = json_of(&member(ada.path(), &["store", "sync", "--json"], b""));
    assert_eq!(sync["registered"], 4, "{sync}");
    assert_eq!(json_of(&member(ada.path(), &["store", "status", "--json"], b""))["backlog"]["count"], 0);
    // Registered in the order they were stored.
    let order = pg.admin("SELECT string_agg(name, ',' ORDER BY registered_seq) FROM artifacts WHERE name LIKE 'offline-%'");
    assert_eq!(order, "offline-0.pdf,offline-1.pdf,offline-2.pdf,offline-3.pdf");
    // Nothing twice: syncing again registers nothing, and `migrate` queues everything again
    // but uploads nothing the bucket has.
    assert_eq!(json_of(&member(ada.path(), &["store", "sync", "--json"], b""))["registered"], 0);
    let migrate = json_of(&member(ada.path(), &["store", "migrate", "--json"], b""));
    assert_eq!(migrate["uploaded"], 0, "{migrate}");
    assert_eq!(pg.admin("SELECT COUNT(*) FROM artifacts"), pg.admin("SELECT COUNT(DISTINCT id) FROM artifacts"));
}

#[test]
fn a_process_killed_mid_upload_loses_nothing_and_registers_nothing_half_done() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let ada = join(&s3, &pg, "ada");
    store(ada.path(), &pdfish(30, 1000), "warmup.pdf");
    // Stored while the bucket refuses (a wrong endpoint), so the upload happens in `store sync`.
    let good = std::fs::read_to_string(ada.path().join("settings.toml")).unwrap();
    std::fs::write(ada.path().join("settings.toml"), good.replace(&s3.endpoint(), "http://127.0.0.1:9")).unwrap();
    let big = pdfish(31, 48 << 20);
    let id = store(ada.path(), &big, "big.pdf");
    std::fs::write(ada.path().join("settings.toml"), &good).unwrap();

    let mut killed_during_upload = false;
    for delay_ms in [150u64, 400, 900, 1500, 2500] {
        let mut command = Command::new(binary("mcp-canvas-cli"));
        command.arg("--data-dir").arg(ada.path()).args(["store", "sync"]).stdout(Stdio::null()).stderr(Stdio::null());
        for (k, v) in member_env() {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let finished = child.try_wait().unwrap().is_some();
        let _ = Command::new("kill").args(["-KILL", &child.id().to_string()]).status();
        let _ = child.wait();
        if finished {
            break;
        }
        // Killed mid-way: nothing half-registered (a row only with its complete object).
        let rows = pg.admin(&format!("SELECT COUNT(*) FROM artifacts WHERE id = '{id}'"));
        let objects = s3.keys("canvas/blobs/").iter().filter(|k| k.ends_with(&hex(&big))).count();
        if rows == "1" {
            assert_eq!(objects, 1, "a registered row always has its object");
        } else {
            killed_during_upload = true;
        }
        // Still queued and readable here.
        assert_eq!(member(ada.path(), &["artifacts", "export", &id, &scratch(ada.path())], b"").code, 0);
    }
    assert!(killed_during_upload, "no kill landed before the registration: the test proved nothing");
    let sync = json_of(&member(ada.path(), &["store", "sync", "--json"], b""));
    assert_eq!(sync["error"], Value::Null, "{sync}");
    let bo = join(&s3, &pg, "bo");
    let out = bo.path().join("big.pdf");
    assert_eq!(member(bo.path(), &["store", "pull", &id, "--out", out.to_str().unwrap()], b"").code, 0);
    assert_eq!(hex(&std::fs::read(&out).unwrap()), hex(&big));
    // Killed uploads' parts never became an object of their own: one blob.
    assert_eq!(s3.keys("canvas/blobs/").iter().filter(|k| k.ends_with(&hex(&big))).count(), 1);
}

/// Takes a schema-4 catalog back to what 0001–0003 left of the audit tables (empty, unused) and
/// the artifacts (no bucket).
const SCHEMA_3_AUDIT: &str = "DROP TABLE audit, sampling_exchanges, private_artifacts; ALTER TABLE artifacts DROP COLUMN bucket;
    CREATE TABLE audit (id BIGSERIAL PRIMARY KEY, team TEXT NOT NULL, member TEXT NOT NULL, at_ms BIGINT NOT NULL, record JSONB NOT NULL);
    CREATE INDEX audit_team_at ON audit (team, at_ms DESC);
    CREATE TABLE sampling_exchanges (id BIGSERIAL PRIMARY KEY, team TEXT NOT NULL, member TEXT NOT NULL, at_ms BIGINT NOT NULL, exchange JSONB NOT NULL)";

#[test]
fn bad_settings_credentials_and_schemas_get_errors_naming_the_fix() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let ada = join(&s3, &pg, "ada");
    let settings = std::fs::read_to_string(ada.path().join("settings.toml")).unwrap();
    // A wrong bucket: the call still completes and stores locally; status names the bucket.
    std::fs::write(ada.path().join("settings.toml"), settings.replace("s3://team/", "s3://no-such-bucket/")).unwrap();
    let id = store(ada.path(), &pdfish(40, 1000), "a.pdf");
    let status = member(ada.path(), &["store", "status"], b"");
    assert_eq!(status.code, 1);
    assert!(status.stdout.contains("s3://no-such-bucket/canvas") && status.stdout.contains("check s3_url's bucket name"), "{}", status.stdout);
    assert_eq!(member(ada.path(), &["artifacts", "export", &id, &scratch(ada.path())], b"").code, 0);

    // A wrong password: named, never printed.
    std::fs::write(ada.path().join("settings.toml"), &settings).unwrap();
    let mut command = Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(ada.path()).args(["store", "sync"]);
    for (k, v) in member_env() {
        command.env(k, v);
    }
    let wrong = command.env("MCP_CANVAS_CATALOG_PASSWORD", "not-the-password").output().unwrap();
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success() && stderr.contains("password authentication failed") && stderr.contains("store set-password"), "{stderr}");
    assert!(!stderr.contains("not-the-password"));

    // A password in settings.toml is refused before anything runs.
    std::fs::write(ada.path().join("settings.toml"), settings.replace("postgres://canvas@", "postgres://canvas:hunter2@")).unwrap();
    let run = member(ada.path(), &["store", "status"], b"");
    assert!(run.code != 0 && run.stderr.contains("carries a password") && !run.stderr.contains("hunter2"), "{}", run.stderr);
    std::fs::write(ada.path().join("settings.toml"), &settings).unwrap();

    // The catalog at a newer schema (a teammate's newer build): named, and calls still store.
    assert_eq!(member(ada.path(), &["store", "sync"], b"").code, 0);
    assert_eq!(pg.admin("SELECT version FROM mcp_canvas_schema"), "4");
    pg.admin("UPDATE mcp_canvas_schema SET version = 99");
    let newer = store(ada.path(), &pdfish(41, 1000), "b.pdf");
    let sync = member(ada.path(), &["store", "sync"], b"");
    assert!(sync.stderr.contains("schema version 99, newer than this build's 4: update MCP Canvas"), "{}", sync.stderr);
    assert_eq!(member(ada.path(), &["artifacts", "export", &newer, &scratch(ada.path())], b"").code, 0);
    // At schema 3 (as a build before 0004 left it: no audit trail, no bucket per artifact):
    // `store upgrade` is named, and upgrades; what was registered before has no bucket, what
    // is registered after has its own.
    pg.admin("UPDATE mcp_canvas_schema SET version = 3");
    pg.admin(SCHEMA_3_AUDIT);
    let sync = member(ada.path(), &["store", "sync"], b"");
    assert!(sync.code != 0 && sync.stderr.contains("schema version 3; this build needs 4: run `mcp-canvas-cli store upgrade`"), "{}", sync.stderr);
    assert_eq!(member(ada.path(), &["store", "upgrade"], b"").code, 0);
    assert_eq!(pg.admin("SELECT version FROM mcp_canvas_schema"), "4");
    assert_eq!(pg.admin("SELECT COUNT(*) FROM artifacts WHERE bucket IS NULL"), pg.admin("SELECT COUNT(*) FROM artifacts"));
    let after = store(ada.path(), &pdfish(42, 1000), "c.pdf");
    assert_eq!(pg.admin(&format!("SELECT bucket FROM artifacts WHERE id = '{after}'")), "s3://team/canvas");
    let listed = json_of(&member(ada.path(), &["store", "list", "--json"], b""));
    assert!(listed.as_array().unwrap().iter().any(|a| a["record"]["id"] == after.as_str() && a["bucket"] == "s3://team/canvas"), "{listed}");
    // At an older one (as a build before 0003 left it, without search): upgraded through 3 and 4.
    pg.admin("UPDATE mcp_canvas_schema SET version = 2");
    pg.admin(SCHEMA_3_AUDIT);
    pg.admin("DROP TABLE artifact_text; ALTER TABLE artifacts DROP COLUMN text_indexed_at_ms, DROP COLUMN text_note");
    let sync = member(ada.path(), &["store", "sync"], b"");
    assert!(sync.code != 0 && sync.stderr.contains("schema version 2; this build needs 4: run `mcp-canvas-cli store upgrade`"), "{}", sync.stderr);
    let upgrade = member(ada.path(), &["store", "upgrade"], b"");
    assert_eq!(upgrade.code, 0, "{}", upgrade.stderr);
    assert_eq!(pg.admin("SELECT COUNT(*) FROM pg_indexes WHERE indexname IN ('artifact_text_tsv', 'audit_artifact_ids')"), "2");
    let sync = json_of(&member(ada.path(), &["store", "sync", "--json"], b""));
    assert_eq!(sync["error"], Value::Null, "{sync}");
    assert_eq!(pg.admin(&format!("SELECT COUNT(*) FROM artifacts WHERE id = '{newer}'")), "1", "the artifact stored meanwhile went up");
    // Artifacts registered before the catalog had search got their text (or a note) too.
    assert_eq!(pg.admin("SELECT COUNT(*) FROM artifacts WHERE text_indexed_at_ms IS NULL"), "0", "{} {sync}", pg.admin("SELECT id, name, member, mime FROM artifacts WHERE text_indexed_at_ms IS NULL"));
}

#[test]
fn a_blob_whose_bytes_do_not_match_its_hash_is_refused_and_nothing_is_cached() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let (ada, bo) = (join(&s3, &pg, "ada"), join(&s3, &pg, "bo"));
    let bytes = pdfish(50, 10_000);
    let id = store(ada.path(), &bytes, "x.pdf");
    // Someone overwrites the object behind the catalog's back.
    let key = s3.keys("canvas/blobs/").into_iter().find(|k| k.ends_with(&hex(&bytes))).unwrap();
    s3.put_raw(&key, b"%PDF-1.4 not the same bytes");
    let pulled = member(bo.path(), &["store", "pull", &id], b"");
    assert_ne!(pulled.code, 0);
    assert!(pulled.stderr.contains("the bucket's copy is damaged") && pulled.stderr.contains(&id), "{}", pulled.stderr);
    let listed = json_of(&member(bo.path(), &["artifacts", "list", "--json"], b""));
    assert_eq!(listed["total"], 0, "nothing damaged was cached: {listed}");
    // A file over one ranged GET (16 MiB) is fetched by ranges: other bytes of the same size are
    // refused by the hash, a shorter object by its size (ranges would read only part of it).
    let big = pdfish(51, 17 << 20);
    let big_id = store(ada.path(), &big, "big.pdf");
    let big_key = s3.keys("canvas/blobs/").into_iter().find(|k| k.ends_with(&hex(&big))).unwrap();
    let mut flipped = big.clone();
    flipped[(17 << 20) - 10] ^= 1;
    for damaged in [flipped, big[..(16 << 20) + 5].to_vec()] {
        s3.put_raw(&big_key, &damaged);
        let pulled = member(bo.path(), &["store", "pull", &big_id], b"");
        assert_ne!(pulled.code, 0);
        assert!(pulled.stderr.contains("the bucket's copy is damaged") && pulled.stderr.contains(&big_id), "{}", pulled.stderr);
    }
    let listed = json_of(&member(bo.path(), &["artifacts", "list", "--json"], b""));
    assert_eq!(listed["total"], 0, "nothing damaged was cached: {listed}");
    s3.put_raw(&big_key, &big);
    let out = bo.path().join("big.pdf");
    assert_eq!(member(bo.path(), &["store", "pull", &big_id, "--out", out.to_str().unwrap()], b"").code, 0);
    assert_eq!(hex(&std::fs::read(&out).unwrap()), hex(&big));
}

#[test]
fn a_bucket_that_ignores_conditional_writes_is_refused_by_name_and_nothing_is_uploaded() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let ada = join(&s3, &pg, "ada");
    let status = json_of(&member(ada.path(), &["store", "status", "--json"], b""));
    assert_eq!(status["bucket_error"], Value::Null, "moto enforces create-only writes: {status}");
    let (mut proxy, careless) = s3.ignoring_conditions();
    let settings = std::fs::read_to_string(ada.path().join("settings.toml")).unwrap();
    std::fs::write(ada.path().join("settings.toml"), settings.replace(&s3.endpoint(), &careless)).unwrap();
    let status = member(ada.path(), &["store", "status"], b"");
    assert_eq!(status.code, 1);
    assert!(status.stdout.contains("ignores conditional writes"), "{}", status.stdout);
    // A call still stores here; its upload is refused by name, and nothing reaches the bucket.
    let before = s3.keys("canvas/blobs/").len();
    let id = store(ada.path(), &pdfish(60, 5_000), "c.pdf");
    let sync = member(ada.path(), &["store", "sync"], b"");
    let _ = proxy.kill();
    assert!(sync.code != 0 && sync.stderr.contains("ignores conditional writes"), "{}", sync.stderr);
    assert_eq!(s3.keys("canvas/blobs/").len(), before);
    assert_eq!(pg.admin(&format!("SELECT COUNT(*) FROM artifacts WHERE id = '{id}'")), "0");
    assert_eq!(member(ada.path(), &["artifacts", "export", &id, &scratch(ada.path())], b"").code, 0);
    // Away entirely: named as unreachable, quickly.
    std::fs::write(ada.path().join("settings.toml"), settings.replace(&s3.endpoint(), "http://127.0.0.1:9")).unwrap();
    let started = Instant::now();
    let status = json_of(&member(ada.path(), &["store", "status", "--json"], b""));
    assert!(status["bucket_error"].as_str().unwrap().contains("cannot be reached"), "{status}");
    assert!(started.elapsed() < Duration::from_secs(30), "status waited {:?}", started.elapsed());
}

/// The race of two members' processes and a third running retention, each a child process
/// (this test binary run again, `team_race_child`). Bo stores the same bytes as Ada under another
/// server and removes his artifacts again right away, so their blobs keep becoming orphans that
/// retention deletes, while Ada stores and registers those very bytes (pausing 40 ms between
/// finding the blob and registering it). Without the reservations this loses artifacts (tried:
/// deleting orphans without looking at reservations fails it). Every artifact Ada was
/// told is stored must open afterwards from a fresh data dir, byte for byte.
#[test]
fn two_members_writing_while_retention_runs_lose_nothing_acknowledged() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let root = tempfile::tempdir().unwrap();
    let stop = root.path().join("stop");
    let spawn = |role: &str, name: &str| {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let mut command = Command::new(std::env::current_exe().unwrap());
        // The child test by its full name in this binary (`team_store::team_race_child` in e2e).
        let child = match module_path!().split_once("::") {
            Some((_, module)) => format!("{module}::team_race_child"),
            None => "team_race_child".to_owned(),
        };
        command.args([child.as_str(), "--exact", "--ignored", "--nocapture", "--test-threads=1"]);
        for (k, v) in member_env() {
            command.env(k, v);
        }
        command
            .env("TEAM_RACE_ROLE", role)
            .env("TEAM_RACE_DIR", &dir)
            .env("TEAM_RACE_MEMBER", name)
            .env("TEAM_RACE_STOP", &stop)
            .env("TEAM_RACE_S3", s3.endpoint())
            .env("TEAM_RACE_PG", pg.url())
            // Between Ada's upload (or finding the blob there) and her registration: the window
            // in which retention would delete a blob no row references yet.
            .env("MCP_CANVAS_TEAM_TEST_PAUSE_MS", if role == "writer" { "40" } else { "0" })
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap()
    };
    // The schema first, so the children do not all create it at once (they could: it is locked).
    let ada_setup = join(&s3, &pg, "setup");
    store(ada_setup.path(), &pdfish(99, 100), "schema.pdf");

    let retention = spawn("retention", "cy");
    let churner = spawn("churner", "bo");
    let writer = spawn("writer", "ada");
    let writer_out = writer.wait_with_output().unwrap();
    let churner_out = churner.wait_with_output().unwrap();
    std::fs::write(&stop, b"").unwrap();
    let retention_out = retention.wait_with_output().unwrap();
    let text = |out: &std::process::Output| String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(writer_out.status.success() && churner_out.status.success() && retention_out.status.success(), "{}\n{}\n{}", text(&writer_out), text(&churner_out), text(&retention_out));
    let stored: Vec<(String, String)> = text(&writer_out)
        .lines()
        .filter_map(|l| l.strip_prefix("stored "))
        .map(|l| l.split_once(' ').map(|(id, sha)| (id.to_owned(), sha.to_owned())).unwrap())
        .collect();
    let deleted: u32 = text(&retention_out).lines().filter_map(|l| l.strip_prefix("deleted ")).map(|n| n.parse::<u32>().unwrap()).sum();
    let removed = text(&churner_out).lines().filter(|l| l.starts_with("removed ")).count();
    assert!(stored.len() >= 60, "the writer stored {}", stored.len());
    assert!(removed > 20 && deleted > 0, "the race did not happen: Bo removed {removed}, retention deleted {deleted} blobs");
    assert!(text(&writer_out).contains("backlog 0"), "Ada's outbox drained: {}", text(&writer_out));

    // A fresh member opens every one of them from the bucket.
    let dave = join(&s3, &pg, "dave");
    let mut distinct: Vec<&(String, String)> = stored.iter().collect();
    distinct.sort();
    distinct.dedup();
    for (id, sha) in distinct {
        let out = dave.path().join("out.bin");
        let pulled = member(dave.path(), &["store", "pull", id, "--out", out.to_str().unwrap()], b"");
        assert_eq!(pulled.code, 0, "acknowledged {id} is lost: {}", pulled.stderr);
        assert_eq!(&hex(&std::fs::read(&out).unwrap()), sha);
    }
    eprintln!("race: Ada stored {} artifacts, Bo removed {removed}, retention deleted {deleted} orphan blobs; none lost", stored.len());
}

#[test]
#[ignore = "a child process of two_members_writing_while_retention_runs_lose_nothing_acknowledged"]
fn team_race_child() {
    use mcp_canvas_config::settings::{StoreBackend, StoreSettings};
    use mcp_canvas_store::{ArtifactStore, NewArtifact, Persistence};
    let Ok(role) = std::env::var("TEAM_RACE_ROLE") else { return };
    let env = |k: &str| std::env::var(k).unwrap();
    let settings = StoreSettings {
        backend: StoreBackend::Team,
        s3_url: Some("s3://team/canvas".into()),
        s3_endpoint: Some(env("TEAM_RACE_S3")),
        s3_region: Some("us-east-1".into()),
        catalog_url: Some(env("TEAM_RACE_PG")),
        team: Some("t".into()),
        ..Default::default()
    };
    let local = std::sync::Arc::new(ArtifactStore::open(env("TEAM_RACE_DIR").as_ref()).unwrap());
    let team = mcp_canvas_team::TeamStore::new(&settings, &env("TEAM_RACE_MEMBER"), local.clone()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    // The same 72 payloads for both members, each stored once by each: a blob Ada finds in the
    // bucket is Bo's, and nothing of Ada's stores it again later (which would heal a loss).
    let payload = |i: usize| pdfish(1000 + i as u64, 2_000 + i * 37);
    let put = |server: &str, i: usize| {
        let bytes = payload(i);
        let new = NewArtifact { name: "r.pdf", mime: "application/pdf", server, tool: "t", call_id: "c", session_id: "s", description: None, persistence: Persistence::Session, now_ms: now() };
        local.put(new, &bytes[..]).unwrap()
    };
    runtime.block_on(async {
        match role.as_str() {
            "writer" => {
                for i in 0..72 {
                    let record = put("writer", i);
                    println!("stored {} {}", record.id, record.sha256);
                    if i % 3 == 2 {
                        let report = team.sync(now()).await;
                        assert!(report.error.is_none(), "{report:?}");
                    }
                }
                for _ in 0..20 {
                    let report = team.sync(now()).await;
                    if report.error.is_none() && local.team_backlog().unwrap().count == 0 {
                        break;
                    }
                }
                println!("backlog {}", local.team_backlog().unwrap().count);
            }
            "churner" => {
                let catalog = team.catalog().await.unwrap();
                for i in 0..72 {
                    let record = put("churn", i);
                    let report = team.sync(now()).await;
                    assert!(report.error.is_none(), "{report:?}");
                    catalog.remove("t", "bo", &record.id).await.unwrap();
                    local.remove(&record.id).unwrap();
                    println!("removed {}", record.id);
                }
            }
            "retention" => {
                let stop = env("TEAM_RACE_STOP");
                while !std::path::Path::new(&stop).exists() {
                    if let Some(report) = team.retention(None, now()).await.unwrap() {
                        if report.blobs_deleted > 0 {
                            println!("deleted {}", report.blobs_deleted);
                        }
                    }
                }
            }
            other => panic!("unknown role {other}"),
        }
    });
}

/// The app, the proxy and the CLI on one data dir drain one outbox: two `store sync` processes
/// at once (and a call storing meanwhile) register every queued artifact exactly once, each
/// readable by a teammate.
#[test]
fn two_processes_on_one_data_dir_drain_one_outbox_without_loss_or_duplicates() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let ada = join(&s3, &pg, "ada");
    store(ada.path(), &pdfish(70, 1000), "schema.pdf");
    let good = std::fs::read_to_string(ada.path().join("settings.toml")).unwrap();
    std::fs::write(ada.path().join("settings.toml"), good.replace(&s3.endpoint(), "http://127.0.0.1:9")).unwrap();
    let mut expected = Vec::new();
    for i in 0..12 {
        let bytes = pdfish(71 + i, 300_000 + i as usize * 1000);
        expected.push((store(ada.path(), &bytes, &format!("q-{i}.pdf")), hex(&bytes)));
    }
    std::fs::write(ada.path().join("settings.toml"), &good).unwrap();
    let spawn = |args: &[&str]| {
        let mut command = Command::new(binary("mcp-canvas-cli"));
        command.arg("--data-dir").arg(ada.path()).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in member_env() {
            command.env(k, v);
        }
        command
    };
    let first = spawn(&["store", "sync", "--json"]).spawn().unwrap();
    let second = spawn(&["store", "sync", "--json"]).spawn().unwrap();
    let meanwhile = pdfish(99, 2000);
    let mut call = spawn(&["normalize", "--server", "reports", "--tool", "render", "--json"]).stdin(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(&mut call.stdin.take().unwrap(), &result_with(&meanwhile, "meanwhile.pdf")).unwrap();
    for child in [first, second, call] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }
    let _ = member(ada.path(), &["store", "sync"], b"");
    assert_eq!(json_of(&member(ada.path(), &["store", "status", "--json"], b""))["backlog"]["count"], 0);
    assert_eq!(pg.admin("SELECT COUNT(*) FROM artifacts"), "14", "each artifact registered once");
    let bo = join(&s3, &pg, "bo");
    for (id, sha) in &expected {
        let out = bo.path().join("x.pdf");
        assert_eq!(member(bo.path(), &["store", "pull", id, "--out", out.to_str().unwrap()], b"").code, 0, "{id}");
        assert_eq!(&hex(&std::fs::read(&out).unwrap()), sha);
    }
}

/// A tool result carrying `text` as a stored file of type `mime`.
fn text_result(text: &str, name: &str, mime: &str) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    serde_json::to_vec(&json!({"content": [{"type": "resource", "resource": {"uri": format!("file:///{name}"), "mimeType": mime, "blob": b64}}]})).unwrap()
}

fn team_search(dir: &Path, args: &[&str]) -> Vec<(String, String, String, u64, String)> {
    let mut all = vec!["artifacts", "search", "--team", "--json"];
    all.extend_from_slice(args);
    let found = json_of(&member(dir, &all, b""));
    found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let marked: Vec<String> = h["snippet"].as_array().unwrap().iter().filter(|p| p["hit"] == true).map(|p| p["text"].as_str().unwrap().to_lowercase()).collect();
            (h["artifact"]["name"].as_str().unwrap().to_owned(), h["member"].as_str().unwrap().to_owned(), h["place"].as_str().unwrap().to_owned(), h["position"].as_u64().unwrap(), marked.join(","))
        })
        .collect()
}

#[test]
fn the_team_finds_each_others_files_by_their_text_and_private_stays_private() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    let (ada, bo) = (join(&s3, &pg, "ada"), join(&s3, &pg, "bo"));
    let store_text = |dir: &Path, text: &str, name: &str, mime: &str| {
        let run = member(dir, &["normalize", "--server", "crm", "--tool", "export", "--json"], &text_result(text, name, mime));
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        json_of(&run)["artifacts"][0]["id"].as_str().unwrap().to_owned()
    };
    // Ada's table and notes; the one-shot command drains and writes their text before exiting.
    store_text(ada.path(), "customer,city,churn\nInitech,Austin,0.12\nGlobex,Springfield,0.31\n", "churn.csv", "text/csv");
    let secret = store_text(ada.path(), "# Plans\n\nThe zebracorn acquisition closes in May.\n", "plans.md", "text/markdown");
    assert_eq!(member(ada.path(), &["store", "private", &secret], b"").code, 0);

    // Bo has neither file here, and finds Ada's table by a word in a row, with its snippet.
    let hits = team_search(bo.path(), &["springfield"]);
    assert_eq!(hits, vec![("churn.csv".into(), "ada".into(), "row".into(), 2, "springfield".into())]);
    // A phrase, and a prefix.
    assert_eq!(team_search(bo.path(), &["\"Initech Austin\""]).len(), 1);
    assert_eq!(team_search(bo.path(), &["globe*"]).len(), 1);
    // Private stays private: Bo finds nothing of Ada's plans; Ada does.
    assert!(team_search(bo.path(), &["zebracorn"]).is_empty());
    assert_eq!(team_search(ada.path(), &["zebracorn"]).iter().map(|h| h.0.as_str()).collect::<Vec<_>>(), vec!["plans.md"]);
    // Filters: by member, by kind.
    assert!(team_search(bo.path(), &["springfield", "--member", "bo"]).is_empty());
    assert_eq!(team_search(bo.path(), &["springfield", "--kind", "text"]).len(), 1);
    assert!(team_search(bo.path(), &["springfield", "--kind", "pdf"]).is_empty());
    // The engine's syntax is only words.
    for query in ["\"", "a & b", "!x", "x:*", "(", "<->"] {
        let run = member(bo.path(), &["artifacts", "search", "--team", "--", query], b"");
        assert_eq!(run.code, 0, "{query}: {}", run.stderr);
    }
    // Removed from the team: its text goes with it.
    let table = team_search(ada.path(), &["springfield"]);
    assert_eq!(table.len(), 1);
    pg.admin("DELETE FROM artifacts WHERE name = 'churn.csv'");
    assert!(team_search(bo.path(), &["springfield"]).is_empty());
}
