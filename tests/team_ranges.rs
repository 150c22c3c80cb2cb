//! Team storage without limits, against PostgreSQL and moto started here: a teammate's big PDF
//! shows a page by range reads (bytes counted by a proxy in front of the S3 server), a large
//! blob uploaded straight at its key, and retention cleaning what interrupted uploads leave.

use std::{io::Write as _, path::Path};

use base64::Engine as _;
use mcp_canvas_e2e::{
    team::{join, member, noise_pdf, settings_at, store_settings, CountingProxy, Postgres, S3Server, S3sFs},
    Run,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr))
}

/// A tool result embedding the file at `path` (base64, streamed) as `mime`, written to `out`.
fn result_file(path: &Path, name: &str, mime: &str, out: &Path) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    write!(file, r#"{{"content": [{{"type": "resource", "resource": {{"uri": "file:///{name}", "mimeType": "{mime}", "blob": ""#).unwrap();
    let bytes = std::fs::read(path).unwrap();
    for chunk in bytes.chunks(3 << 20) {
        file.write_all(base64::engine::general_purpose::STANDARD.encode(chunk).as_bytes()).unwrap();
    }
    file.write_all(b"\"}}]}").unwrap();
    file.flush().unwrap();
}

/// Stores the file as Ada's call result and uploads it (`store sync`); returns its id.
fn store_and_upload(dir: &Path, file: &Path, name: &str, mime: &str) -> String {
    let result = dir.join("result.json");
    result_file(file, name, mime, &result);
    let run = member(dir, &["normalize", "--server", "reports", "--tool", "render", result.to_str().unwrap(), "--json"], b"");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    std::fs::remove_file(&result).unwrap();
    let id = json_of(&run)["artifacts"][0]["id"].as_str().unwrap().to_owned();
    let sync = member(dir, &["store", "sync", "--json"], b"");
    assert_eq!(sync.code, 0, "{}{}", sync.stdout, sync.stderr);
    assert_eq!(json_of(&member(dir, &["store", "status", "--json"], b""))["backlog"]["count"], 0, "everything is uploaded");
    id
}

#[test]
fn a_teammates_100_mb_pdf_shows_its_first_page_after_a_small_part_of_it_is_read() {
    let (pg, s3) = (Postgres::start(), S3Server::start());
    let ada = join(&s3, &pg, "ada");
    let pdf = ada.path().join("report.pdf");
    let size = noise_pdf(&pdf, 100, 1 << 20);
    assert!(size > 100_000_000, "{size}");
    let id = store_and_upload(ada.path(), &pdf, "report.pdf", "application/pdf");

    // Bo reaches the bucket through a proxy that counts what the server sends.
    let proxy = CountingProxy::start(s3.port);
    let bo = join_through(&s3, &pg, &proxy, "bo");
    let page = bo.path().join("page1.png");
    let run = member(bo.path(), &["preview", &id, "--page", "1", "--width", "400", "--out", page.to_str().unwrap()], b"");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let read = proxy.bytes_down();
    eprintln!("page 1 of a {size}-byte PDF: {read} bytes from the bucket; {}", run.stderr.trim());
    assert!(read < size / 20, "page 1 took {read} bytes from the bucket, of {size}");
    assert!(run.stderr.contains("by range"), "{}", run.stderr);

    // The page is the one Ada sees from her local copy, pixel for pixel.
    let local = ada.path().join("local1.png");
    assert_eq!(member(ada.path(), &["preview", &id, "--page", "1", "--width", "400", "--out", local.to_str().unwrap()], b"").code, 0);
    assert_eq!(std::fs::read(&page).unwrap(), std::fs::read(&local).unwrap());
    // The last page too: its own image, read from the other end of the file.
    let last = bo.path().join("page100.png");
    assert_eq!(member(bo.path(), &["preview", &id, "--page", "100", "--width", "400", "--out", last.to_str().unwrap()], b"").code, 0);
    let local_last = ada.path().join("local100.png");
    assert_eq!(member(ada.path(), &["preview", &id, "--page", "100", "--width", "400", "--out", local_last.to_str().unwrap()], b"").code, 0);
    assert_eq!(std::fs::read(&last).unwrap(), std::fs::read(&local_last).unwrap());

    // Nothing was put in Bo's cache by the previews; a pull fetches the whole file, checked.
    assert_eq!(json_of(&member(bo.path(), &["artifacts", "list", "--json"], b""))["items"].as_array().unwrap().len(), 0);
    let before = proxy.bytes_down();
    let out = bo.path().join("report.pdf");
    let pulled = member(bo.path(), &["store", "pull", &id, "--out", out.to_str().unwrap()], b"");
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    assert!(proxy.bytes_down() - before >= size);
    let hash = |p: &Path| Sha256::digest(std::fs::read(p).unwrap());
    assert_eq!(hash(&out), hash(&pdf));
}

/// A member whose bucket is reached through `proxy`.
fn join_through(s3: &S3Server, pg: &Postgres, proxy: &CountingProxy, name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.toml"), store_settings(s3, pg, name).replace(&s3.endpoint(), &proxy.endpoint())).unwrap();
    dir
}

/// `size` random bytes (xorshift from `seed`) stored by the member at `dir` as a tool's result
/// and uploaded (`store sync`, nothing left queued): the bytes and the artifact's id.
fn store_and_sync(dir: &Path, size: usize, seed: u64) -> (Vec<u8>, String) {
    let file = dir.join("big.bin");
    let mut bytes = vec![0u8; size];
    let mut x = seed;
    for chunk in bytes.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
    }
    std::fs::write(&file, &bytes).unwrap();
    let id = store_and_upload(dir, &file, "big.bin", "application/octet-stream");
    (bytes, id)
}

/// A blob over one part (8 MiB) goes up as a multipart upload straight at its blob key and is
/// completed there create-only: no staging key, no copy, nothing left unfinished; a teammate
/// gets the same bytes. (Before, it was staged and copied into place, in ranged part copies
/// over 5 GiB: twice the server's work.)
#[test]
fn a_large_blob_goes_up_at_its_key_without_a_copy() {
    let (pg, s3) = (Postgres::start(), S3Server::start());
    let proxy = CountingProxy::start(s3.port);
    let ada = join_through(&s3, &pg, &proxy, "ada");
    let (bytes, id) = store_and_sync(ada.path(), 20 << 20, 0x2545_f491_4f6c_dd1d);
    assert_eq!(proxy.copies(), 0, "no copy: the parts went to the blob's key");
    assert_eq!(s3.keys("canvas/uploads/"), Vec::<String>::new(), "no staging key");
    assert_eq!(unfinished(&s3), Vec::<String>::new(), "nothing left unfinished");
    let sha = format!("{:x}", Sha256::digest(&bytes));
    assert_eq!(s3.keys("canvas/blobs/"), vec![format!("canvas/blobs/{}/{sha}", &sha[..2])]);

    let bo = join(&s3, &pg, "bo");
    let out = bo.path().join("big.bin");
    let pulled = member(bo.path(), &["store", "pull", &id, "--out", out.to_str().unwrap()], b"");
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    assert_eq!(Sha256::digest(std::fs::read(&out).unwrap()), Sha256::digest(&bytes));
}

/// A completion the server answers with 503 (a busy S3) is tried again, not given up with every
/// part sent: the upload succeeds and the blob is placed, nothing left unfinished.
#[test]
fn a_completion_refused_as_busy_is_tried_again() {
    let (pg, s3) = (Postgres::start(), S3Server::start());
    let (mut busy, endpoint) = s3.failing_first_completion();
    let ada = tempfile::tempdir().unwrap();
    std::fs::write(ada.path().join("settings.toml"), settings_at(&endpoint, &pg, "ada")).unwrap();
    let file = ada.path().join("big.bin");
    let bytes: Vec<u8> = (0..(9u32 << 20)).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(&file, &bytes).unwrap();
    let result = ada.path().join("result.json");
    result_file(&file, "big.bin", "application/octet-stream", &result);
    // The one-shot command drains its own upload before it exits: through the 503, once.
    let run = member(ada.path(), &["normalize", "--server", "reports", "--tool", "render", result.to_str().unwrap(), "--json"], b"");
    let _ = busy.kill();
    let _ = busy.wait();
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let status = json_of(&member(ada.path(), &["store", "status", "--json"], b""));
    assert_eq!(status["backlog"]["count"], 0, "the upload went through the busy answer: {status}");
    let sha = format!("{:x}", Sha256::digest(&bytes));
    assert_eq!(s3.keys("canvas/blobs/"), vec![format!("canvas/blobs/{}/{sha}", &sha[..2])]);
    assert_eq!(unfinished(&s3), Vec::<String>::new());
}

/// The same against s3s-fs, which checks every request's signature and that each body hashes to
/// what was signed (moto checks neither): a 20 MiB artifact goes up at its blob key, a teammate
/// pulls identical bytes, and retention runs (s3s-fs does not list unfinished uploads: the run
/// says so and goes on without that step).
#[test]
fn a_large_blob_goes_up_and_comes_back_through_a_server_that_checks_signatures() {
    let (pg, s3) = (Postgres::start(), S3sFs::start());
    let member_at = |name: &str| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.toml"), settings_at(&s3.endpoint(), &pg, name)).unwrap();
        dir
    };
    let ada = member_at("ada");
    let (bytes, id) = store_and_sync(ada.path(), (20 << 20) + 3, 0x9e37_79b9_7f4a_7c15);
    let sha = format!("{:x}", Sha256::digest(&bytes));
    assert_eq!(std::fs::read(s3.file(&format!("canvas/blobs/{}/{sha}", &sha[..2]))).unwrap(), bytes, "the object is the bytes");
    assert!(!s3.file("canvas/uploads").exists(), "no staging key");

    let bo = member_at("bo");
    let out = bo.path().join("big.bin");
    let pulled = member(bo.path(), &["store", "pull", &id, "--out", out.to_str().unwrap()], b"");
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    assert_eq!(Sha256::digest(std::fs::read(&out).unwrap()), Sha256::digest(&bytes));

    let gc = member(bo.path(), &["store", "gc", "--json"], b"");
    assert_eq!(gc.code, 0, "{}{}", gc.stdout, gc.stderr);
    let report = json_of(&gc);
    assert_eq!(report["uploads_aborted"], 0, "{report}");
    assert!(report["warnings"][0].as_str().unwrap().contains("does not list unfinished multipart uploads"), "{report}");
}

/// The keys of the bucket's unfinished uploads under `canvas/`.
fn unfinished(s3: &S3Server) -> Vec<String> {
    let (status, body) = s3.request("GET", "/team?uploads&prefix=canvas/", b"");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let body = String::from_utf8_lossy(&body).into_owned();
    body.split("<Upload>").skip(1).filter_map(|u| u.split("<Key>").nth(1)?.split("</Key>").next().map(str::to_owned)).collect()
}

/// What an interrupted upload leaves — an unfinished multipart upload, a staging copy, a
/// reservation past its time — is removed by retention once older than
/// `abandoned_upload_hours`; younger ones (an upload that may still be going) stay. An upload
/// goes up at its blob's key, its age told by the blob's reservation (made by the member's
/// clock just before the upload): moto reports a fixed date for every unfinished upload. Older
/// clients' staging keys say when their upload started (`uploads/<sha256>.<ms>.<random>`).
#[test]
fn retention_cleans_what_interrupted_uploads_left_and_keeps_what_is_young() {
    let (pg, s3) = (Postgres::start(), S3Server::start());
    let ada = join(&s3, &pg, "ada");
    let settings = ada.path().join("settings.toml");
    std::fs::write(&settings, std::fs::read_to_string(&settings).unwrap() + "abandoned_upload_hours = 1\n").unwrap();
    assert_eq!(member(ada.path(), &["store", "status"], b"").code, 0, "the catalog's schema is made");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let sha = |n: u8| format!("{n:x}").repeat(64);
    let key = |n: u8, age_ms: i64| format!("canvas/uploads/{}.{}.0123abcd", sha(n), now - age_ms);
    let blob = |n: u8| format!("canvas/blobs/{n:x}{n:x}/{}", sha(n));
    let (old_upload, young_upload) = (key(1, 2 * 3_600_000), key(2, 60_000));
    let (old_staging, young_staging) = (key(3, 5 * 3_600_000), key(4, 60_000));
    // At blob keys: one reserved a minute ago (an upload under way), one reserved two hours ago
    // by a member killed mid-upload, one whose reservation is gone.
    let (young_blob, old_blob, unreserved_blob) = (blob(5), blob(6), blob(7));
    for upload in [&old_upload, &young_upload, &young_blob, &old_blob, &unreserved_blob] {
        let (status, body) = s3.request("POST", &format!("/team/{upload}?uploads"), b"");
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    }
    let day = 24 * 3_600_000;
    pg.admin(&format!("INSERT INTO blob_reservations (token, sha256, until_ms) VALUES ('uploading', '{}', {})", sha(5), now - 60_000 + day));
    pg.admin(&format!("INSERT INTO blob_reservations (token, sha256, until_ms) VALUES ('killed-uploader', '{}', {})", sha(6), now - 2 * 3_600_000 + day));
    s3.put_raw(&old_staging, b"left behind by a process killed after placing its blob");
    s3.put_raw(&young_staging, b"an upload placing its blob right now");
    pg.admin("INSERT INTO blob_reservations (token, sha256, until_ms) VALUES ('killed-writer', 'ab', 1)");
    pg.admin(&format!("INSERT INTO blob_reservations (token, sha256, until_ms) VALUES ('writing', 'cd', {})", now + 3_600_000));

    let gc = member(ada.path(), &["store", "gc", "--json"], b"");
    assert_eq!(gc.code, 0, "{}{}", gc.stdout, gc.stderr);
    let report = json_of(&gc);
    assert_eq!((report["uploads_aborted"].as_u64(), report["staging_deleted"].as_u64(), report["reservations_dropped"].as_u64()), (Some(3), Some(1), Some(1)), "{report}; left unfinished: {:?}", unfinished(&s3));
    let mut left = unfinished(&s3);
    left.sort();
    assert_eq!(left, vec![young_blob, young_upload]);
    let mut staging = s3.keys("canvas/uploads/");
    staging.sort();
    assert_eq!(staging, vec![young_staging]);
    assert_eq!(pg.admin("SELECT string_agg(token, ',' ORDER BY token) FROM blob_reservations"), "killed-uploader,uploading,writing");
}

/// The proxy runs team retention by itself (here every second instead of every 6 hours): a
/// reservation a killed writer left past its time goes without anyone typing `store gc`.
#[test]
fn the_proxy_runs_team_retention_by_itself() {
    let (pg, s3) = (Postgres::start(), S3Server::start());
    let ada = join(&s3, &pg, "ada");
    assert_eq!(member(ada.path(), &["store", "status"], b"").code, 0, "the catalog's schema is made");
    pg.admin("INSERT INTO blob_reservations (token, sha256, until_ms) VALUES ('killed-writer', 'ab', 1)");
    let mut proxy = std::process::Command::new(mcp_canvas_e2e::binary("mcp-canvas-cli"));
    proxy.arg("--data-dir").arg(ada.path()).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR").env("MCP_CANVAS_TEAM_RETENTION_EVERY_SECS", "1");
    let mut proxy = proxy.envs(mcp_canvas_e2e::team::member_env()).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while pg.admin("SELECT count(*) FROM blob_reservations") != "0" {
        assert!(std::time::Instant::now() < deadline, "the proxy did not run retention within 60 s");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let _ = proxy.kill();
    let _ = proxy.wait();
}
