//! Nothing hangs: a catalog or a bucket that accepts connections and never answers gets a clear
//! error from every command, and a one-shot call whose result would be shared leaves it queued
//! for the next run, saying so. The real other half is up (moto, PostgreSQL); the silent one is
//! a TCP listener that accepts and reads nothing. The only clock here is a guard against a hang.

use std::{
    io::{Read as _, Write as _},
    net::{TcpListener, TcpStream},
    path::Path,
    process::{Command, Stdio},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use mcp_canvas_e2e::{
    binary,
    team::{member_env, Postgres, S3Server},
    Run,
};

/// A port that accepts connections and never answers (each connection is held open).
fn silent_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

/// `mcp-canvas-cli --data-dir DIR ARGS...` as a member; panics if it has not exited within a
/// generous guard (a hang), killing it first.
fn run_guarded(dir: &Path, args: &[&str]) -> Run {
    let mut command = Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir).args(args).env_remove("MCP_CANVAS_DATA_DIR").env_remove("PGPASSWORD");
    for (k, v) in member_env() {
        command.env(k, v);
    }
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("`{}` hung against a silent server", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().unwrap();
    Run { code: output.status.code().unwrap_or(-1), stdout: String::from_utf8(output.stdout).unwrap(), stderr: String::from_utf8(output.stderr).unwrap() }
}

fn settings(endpoint: &str, catalog: &str) -> String {
    format!("[identity]\nusername = \"ada\"\n\n[store]\nbackend = \"team\"\ns3_url = \"s3://team/canvas\"\ns3_endpoint = \"{endpoint}\"\ns3_region = \"us-east-1\"\ncatalog_url = \"{catalog}\"\nteam = \"t\"\n")
}

fn call_sharing_its_result(dir: &Path) -> Run {
    run_guarded(dir, &["call", "demo", "render_chart", "--json", "--args", r#"{"values": [3, 1, 2]}"#])
}

#[test]
fn a_silent_catalog_gets_a_clear_error_from_every_command_and_a_call_leaves_its_upload_queued() {
    let s3 = S3Server::start();
    let port = silent_port();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.toml"), settings(&s3.endpoint(), &format!("postgres://canvas@127.0.0.1:{port}/canvas"))).unwrap();

    let status = run_guarded(dir.path(), &["store", "status"]);
    assert_eq!(status.code, 1, "{}{}", status.stdout, status.stderr);
    assert!(status.stdout.contains(&format!("team catalog postgres://canvas@127.0.0.1:{port}/canvas: no answer within")), "{}", status.stdout);
    assert!(status.stdout.contains("does not answer like PostgreSQL") && status.stdout.contains("connect_timeout"), "{}", status.stdout);
    assert!(!status.stdout.contains(mcp_canvas_e2e::team::PASSWORD) && !status.stderr.contains(mcp_canvas_e2e::team::PASSWORD));

    let list = run_guarded(dir.path(), &["store", "list"]);
    assert_ne!(list.code, 0);
    assert!(list.stderr.contains("no answer within") && list.stderr.contains(&format!("127.0.0.1:{port}")), "{}", list.stderr);
    // The wait is catalog_url's connect_timeout when it has one (libpq's parameter).
    std::fs::write(dir.path().join("settings.toml"), settings(&s3.endpoint(), &format!("postgres://canvas@127.0.0.1:{port}/canvas?connect_timeout=2"))).unwrap();
    let list = run_guarded(dir.path(), &["store", "list"]);
    assert!(list.code != 0 && list.stderr.contains("no answer within 2 s"), "{}", list.stderr);
    std::fs::write(dir.path().join("settings.toml"), settings(&s3.endpoint(), &format!("postgres://canvas@127.0.0.1:{port}/canvas"))).unwrap();

    // The call itself succeeds (its artifact is stored here); its upload waits, and it says so.
    let call = call_sharing_its_result(dir.path());
    assert_eq!(call.code, 0, "{}{}", call.stdout, call.stderr);
    assert!(call.stderr.contains("not sent to the team store") && call.stderr.contains("store sync") && call.stderr.contains("no answer within"), "{}", call.stderr);
    let status = run_guarded(dir.path(), &["store", "status", "--json"]);
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(status["backlog"]["count"], 1, "{status}");
}

#[test]
fn a_silent_bucket_gets_a_clear_error_from_every_command_and_a_call_leaves_its_upload_queued() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    // Ada shares a chart through the real bucket.
    let ada = tempfile::tempdir().unwrap();
    std::fs::write(ada.path().join("settings.toml"), settings(&s3.endpoint(), &pg.url())).unwrap();
    let shared = call_sharing_its_result(ada.path());
    assert!(shared.code == 0 && !shared.stderr.contains("not sent"), "{}{}", shared.stdout, shared.stderr);
    let id = serde_json::from_str::<serde_json::Value>(&shared.stdout).unwrap()["artifacts"][0]["id"].as_str().unwrap().to_owned();

    // Bo's bucket endpoint accepts connections and never answers.
    let port = silent_port();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.toml"), settings(&format!("http://127.0.0.1:{port}"), &pg.url()).replace("\"ada\"", "\"bo\"")).unwrap();

    let status = run_guarded(dir.path(), &["store", "status"]);
    assert_eq!(status.code, 1, "{}{}", status.stdout, status.stderr);
    assert!(status.stdout.contains("team bucket s3://team/canvas") && status.stdout.contains("cannot be reached"), "{}", status.stdout);
    // The catalog is fine meanwhile.
    assert!(status.stdout.lines().any(|l| l.starts_with("catalog") && l.contains(" ok")), "{}", status.stdout);
    let list = run_guarded(dir.path(), &["store", "list"]);
    assert!(list.code == 0 && list.stdout.contains(&id), "{}{}", list.stdout, list.stderr);
    let pull = run_guarded(dir.path(), &["store", "pull", &id]);
    assert!(pull.code != 0 && pull.stderr.contains("team bucket s3://team/canvas") && pull.stderr.contains("cannot be reached"), "{}", pull.stderr);

    let call = call_sharing_its_result(dir.path());
    assert_eq!(call.code, 0, "{}{}", call.stdout, call.stderr);
    assert!(call.stderr.contains("not sent to the team store") && call.stderr.contains("team bucket s3://team/canvas"), "{}", call.stderr);
    let sync = run_guarded(dir.path(), &["store", "sync"]);
    assert!(sync.code != 0 && sync.stderr.contains("cannot be reached"), "{}", sync.stderr);
}

/// A TCP proxy to `target` that can be frozen: from then on it forwards nothing either way and
/// keeps every connection open (a server that stops answering mid-connection).
fn freezable_proxy(target: u16) -> (u16, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let frozen = Arc::new(AtomicBool::new(false));
    let flag = frozen.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let server = TcpStream::connect(("127.0.0.1", target)).unwrap();
            for (mut from, mut to) in [(client.try_clone().unwrap(), server.try_clone().unwrap()), (server, client)] {
                let flag = flag.clone();
                std::thread::spawn(move || {
                    let mut buffer = [0u8; 16 * 1024];
                    while let Ok(n) = from.read(&mut buffer) {
                        if n == 0 {
                            break;
                        }
                        if !flag.load(Ordering::SeqCst) && to.write_all(&buffer[..n]).is_err() {
                            break;
                        }
                    }
                });
            }
        }
    });
    (port, frozen)
}

/// Connected, then the server goes silent: the waiting request fails by name (instead of
/// waiting forever: PostgreSQL's statement_timeout is the server's, and it is not answering), the
/// connection counts as closed, and the next operation connects again.
#[test]
fn a_catalog_that_stops_answering_mid_connection_fails_the_request_and_is_connected_again() {
    let pg = Postgres::start();
    let (port, frozen) = freezable_proxy(pg.port);
    let url = format!("postgres://canvas@127.0.0.1:{port}/canvas");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let catalog = mcp_canvas_team::Catalog::connect(&url, Some(mcp_canvas_e2e::team::PASSWORD), false).await.unwrap();
        assert!(catalog.list("t", "ada", None, 10, 0).await.unwrap().is_empty());
        frozen.store(true, Ordering::SeqCst);
        // A guard against a hang only: the product's own limit is well inside it.
        let listed = tokio::time::timeout(Duration::from_secs(180), catalog.list("t", "ada", None, 10, 0)).await.expect("the request hung on a silent catalog");
        let error = listed.unwrap_err().to_string();
        assert!(error.contains(&format!("team catalog postgres://canvas@127.0.0.1:{port}/canvas: it stopped answering")) && error.contains("cannot be reached"), "{error}");
        assert!(catalog.is_closed().await, "the silent connection is given up");
        frozen.store(false, Ordering::SeqCst);
        let again = mcp_canvas_team::Catalog::connect(&url, Some(mcp_canvas_e2e::team::PASSWORD), false).await.unwrap();
        assert!(again.list("t", "ada", None, 10, 0).await.unwrap().is_empty());
    });
}
