//! The auth extensions against servers that misbehave (`fault_servers/auth_faults.py`): a token
//! endpoint answering garbage, and DPoP nonces that change on every request — at the
//! authorization server and at the MCP server. Each ends with a clear error naming the server and
//! what to fix, within a bounded number of requests (no loop), and the client secret is in no
//! error and no file but the token record. (The six extension scenarios of the conformance suite
//! are in `conformance.rs`.)

use std::{path::Path, process::{Child, Command, Stdio}, time::Duration};

use mcp_canvas_client::oauth::TokenStorage;
use mcp_canvas_host::{Host, HostOptions};
use serde_json::{json, Value};

const FAULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/auth_faults.py");
const SECRET: &str = "s3cret-never-shown-4711";

struct Faulty {
    child: Child,
    url: String,
}

impl Faulty {
    fn start(mode: &str) -> Self {
        use std::io::BufRead as _;
        let mut child = Command::new("python3").arg(FAULTS).arg(mode).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("python3 runs");
        let url = std::io::BufReader::new(child.stdout.take().unwrap()).lines().next().and_then(Result::ok).expect("the fault server prints its URL");
        Self { child, url }
    }

    async fn counts(&self) -> Value {
        reqwest::get(self.url.replace("/mcp", "/counts")).await.unwrap().json().await.unwrap()
    }
}

impl Drop for Faulty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn host_for(dir: &Path, url: &str, oauth: Value) -> Host {
    std::fs::write(dir.join("servers.json"), json!({ "mcpServers": { "machine": { "type": "http", "url": url, "oauth": oauth } } }).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.to_owned(), call_timeout: Duration::from_secs(20), session: None }).unwrap().with_token_storage(TokenStorage::File);
    host.set_client_secret("machine", Some(SECRET.to_owned())).await.unwrap();
    host
}

/// Every file under `dir` but the token records, searched for the secret.
fn leaks(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if !(path.parent().is_some_and(|p| p.ends_with("oauth")) && path.extension().is_some_and(|e| e == "json")) && std::fs::read(&path).is_ok_and(|b| b.windows(SECRET.len()).any(|w| w == SECRET.as_bytes())) {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

/// Connecting (and so getting a token), bounded by a deadline that only guards against a hang.
async fn connect_error(host: &Host) -> String {
    let tools = tokio::time::timeout(Duration::from_secs(120), host.tools("machine")).await.expect("connecting ends (no loop)");
    let err = tools.expect_err("the server cannot be used").to_string();
    eprintln!("{err}");
    err
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_endpoint_answering_garbage_is_named_with_the_setting_to_check() {
    let server = Faulty::start("garbage-token");
    let dir = tempfile::tempdir().unwrap();
    let host = host_for(dir.path(), &server.url, json!({ "grant": "client_credentials", "client_id": "canvas-batch" })).await;
    let err = connect_error(&host).await;
    assert!(err.contains("`machine`") && err.contains("/token") && err.contains("not a token response") && err.contains("oauth.client_id"), "{err}");
    assert!(!err.contains(SECRET) && !err.contains("Welcome to the portal"), "{err}");
    host.shutdown().await;
    assert!(leaks(dir.path()).is_empty(), "the secret is only in the token record: {:?}", leaks(dir.path()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dpop_nonce_changing_on_every_token_request_ends_in_an_error_not_a_loop() {
    let server = Faulty::start("as-nonce-rotates");
    let dir = tempfile::tempdir().unwrap();
    let host = host_for(dir.path(), &server.url, json!({ "grant": "client_credentials", "client_id": "canvas-batch", "dpop": true })).await;
    let err = connect_error(&host).await;
    assert!(err.contains("`machine`") && err.contains("nonce") && err.contains("twice"), "{err}");
    let counts = server.counts().await;
    eprintln!("{counts}");
    // One try and one with the nonce per attempt to connect; every one with a proof.
    let tokens = counts["token"].as_u64().unwrap();
    assert!((2..=4).contains(&tokens), "a bounded number of token requests: {counts}");
    assert!(counts["dpop_proofs"].as_u64().unwrap() >= tokens, "{counts}");
    assert!(!err.contains(SECRET), "{err}");
    host.shutdown().await;
    assert!(leaks(dir.path()).is_empty(), "{:?}", leaks(dir.path()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dpop_nonce_changing_on_every_mcp_request_ends_in_an_error_not_a_loop() {
    let server = Faulty::start("rs-nonce-rotates");
    let dir = tempfile::tempdir().unwrap();
    let host = host_for(dir.path(), &server.url, json!({ "grant": "client_credentials", "client_id": "canvas-batch", "dpop": true })).await;
    let err = connect_error(&host).await;
    assert!(err.contains("`machine`") && err.contains("nonce") && err.contains("twice"), "{err}");
    let counts = server.counts().await;
    eprintln!("{counts}");
    // The request, the ping the nonce is read from, the request again: per attempt to connect.
    let mcp = counts["mcp"].as_u64().unwrap();
    assert!((3..=9).contains(&mcp), "a bounded number of MCP requests: {counts}");
    assert!(!err.contains(SECRET) && !err.contains("token-1"), "no secret, no token: {err}");
    host.shutdown().await;
    assert!(leaks(dir.path()).is_empty(), "{:?}", leaks(dir.path()));
}

#[test]
fn the_cli_keeps_a_private_key_only_from_a_file_no_one_else_can_read() {
    use std::os::unix::fs::PermissionsExt as _;
    let server = Faulty::start("garbage-token");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "machine": { "type": "http", "url": server.url, "oauth": { "grant": "client_credentials", "client_id": "canvas-batch", "client_auth": "private_key_jwt" } } } }).to_string()).unwrap();
    let key = dir.path().join("key.pem");
    let made = Command::new("openssl").args(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out"]).arg(&key).output().expect("openssl runs");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let pem = std::fs::read_to_string(&key).unwrap();
    let body = pem.lines().nth(1).unwrap().to_owned();
    let login = || {
        let output = Command::new(mcp_canvas_e2e::binary("mcp-canvas-cli"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(["servers", "login", "machine", "--private-key-file"])
            .arg(&key)
            .env_remove("MCP_CANVAS_DATA_DIR")
            .env("MCP_CANVAS_TOKEN_STORE", "file")
            .output()
            .unwrap();
        (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
    };
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (ok, said) = login();
    assert!(!ok && said.contains("can be read by others") && said.contains("chmod 600") && !said.contains(&body), "{said}");
    assert!(!dir.path().join("oauth").exists() || leaks(dir.path()).is_empty(), "nothing kept");
    // Owner-only: kept with the tokens, and the sign-in goes on (to a token endpoint that
    // answers garbage, named).
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (ok, said) = login();
    assert!(!ok && said.contains("not a token response") && !said.contains(&body), "{said}");
    let records: Vec<String> = std::fs::read_dir(dir.path().join("oauth")).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "json")).map(|p| std::fs::read_to_string(p).unwrap()).collect();
    assert!(records.iter().any(|r| r.contains("private_key") && r.contains(&body)), "the key is in the token record: {records:?}");
    let logs = dir.path().join("logs");
    if logs.exists() {
        for entry in std::fs::read_dir(&logs).unwrap().flatten() {
            assert!(!std::fs::read_to_string(entry.path()).unwrap_or_default().contains(&body), "no key in {}", entry.path().display());
        }
    }
}

/// Client-credentials tokens come without refresh tokens: one about to run out is replaced
/// before the request that would carry it (the server's tokens last 2 s, so every call gets a
/// new one), the connection stays up, and no call is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_token_about_to_run_out_is_replaced_before_the_request() {
    let server = Faulty::start("short-lived");
    let dir = tempfile::tempdir().unwrap();
    let host = host_for(dir.path(), &server.url, json!({ "grant": "client_credentials", "client_id": "canvas-batch" })).await;
    let mut seen = Vec::new();
    for _ in 0..3 {
        let done = tokio::time::timeout(Duration::from_secs(120), host.call_tool("machine", "whoami", json!({}))).await.expect("no hang").expect("the call goes through");
        seen.push(done.outcome.texts.iter().map(|t| t.text.clone()).collect::<String>());
    }
    eprintln!("{seen:?} {}", server.counts().await);
    assert!(seen.iter().all(|t| t.starts_with("token-")), "{seen:?}");
    assert_ne!(seen[0], seen[2], "a new token for a later call: {seen:?}");
    host.shutdown().await;
    assert!(leaks(dir.path()).is_empty(), "{:?}", leaks(dir.path()));
}
