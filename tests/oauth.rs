//! Signing in to a real OAuth-protected server: FastMCP from PyPI behind its own authorization
//! server (`tests/fastmcp/oauth_server.py`: metadata discovery, dynamic registration, PKCE,
//! refresh tokens), over Streamable HTTP, through the host as the CLI drives it.
//!
//! The "browser" follows the authorization server's redirects to our loopback listener
//! (`oauth::Headless` for the host; for the CLI, `$BROWSER` set to a curl command): the path a
//! user's browser takes after they click "Allow".

use std::{path::Path, sync::Arc, time::Duration};

use mcp_canvas_e2e::{cli, fastmcp::OAuthServer};
use mcp_canvas_client::{oauth::{Headless, TokenStorage}, ClientError};
use mcp_canvas_host::{signin::SignInPolicy, Host, HostError, HostOptions};
use serde_json::{json, Value};

fn configure(dir: &Path, url: &str) {
    std::fs::write(dir.join("servers.json"), json!({ "mcpServers": { "notes": { "type": "http", "url": url } } }).to_string()).unwrap();
}

fn open_host(dir: &Path, policy: SignInPolicy) -> Host {
    Host::open(HostOptions { data_dir: dir.to_owned(), call_timeout: Duration::from_secs(60), session: None })
        .unwrap()
        .with_token_storage(TokenStorage::File)
        .with_browser(Arc::new(Headless), policy)
}

/// The one token record in the data dir, as stored.
fn record(dir: &Path) -> (std::path::PathBuf, Value) {
    let files: Vec<_> = std::fs::read_dir(dir.join("oauth")).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    (files[0].clone(), serde_json::from_str(&text).unwrap())
}

/// Every file under `dir` except the token record, searched for `secret`.
fn leaks(dir: &Path, record: &Path, secret: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path != record && std::fs::read(&path).is_ok_and(|bytes| bytes.windows(secret.len()).any(|w| w == secret.as_bytes())) {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_call_refresh_and_sign_out_against_a_real_authorization_server() {
    let server = OAuthServer::start();
    let dir = tempfile::tempdir().unwrap();
    configure(dir.path(), &server.url);

    // Not signed in: the call fails and says how to sign in; the state says it is needed.
    let host = open_host(dir.path(), SignInPolicy::default());
    let err = host.call_tool("notes", "whoami", json!({})).await.unwrap_err();
    assert!(matches!(err, HostError::Server(ClientError::SignInRequired { more_scope: false, .. })), "{err}");
    assert!(err.to_string().contains("mcp-canvas-cli servers login notes"), "{err}");
    let view = host.sign_in_view("notes").await.unwrap().unwrap();
    assert!(view.needed && !view.signed_in, "{view:?}");
    assert_eq!(host.servers().await.unwrap()[0].sign_in.as_ref(), Some(&view));

    // Sign in: registration, PKCE, the loopback redirect, tokens stored; then calls carry them.
    let view = host.sign_in("notes").await.unwrap();
    assert!(view.signed_in && !view.needed, "{view:?}");
    assert!(view.scopes.iter().any(|s| s == "notes:read"), "{view:?}");
    let done = host.call_tool("notes", "whoami", json!({})).await.unwrap();
    let said = &done.outcome.texts[0].text;
    assert!(said.starts_with("client ") && said.contains("notes:read"), "{said}");
    host.shutdown().await;

    // The record is private, and its tokens are nowhere else: not in the audit rows, the
    // server's log, the artifacts or servers.json.
    let (path, stored) = record(dir.path());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let access = stored["credentials"]["token_response"]["access_token"].as_str().unwrap().to_owned();
    let refresh = stored["credentials"]["token_response"]["refresh_token"].as_str().expect("FastMCP issues refresh tokens").to_owned();
    assert!(leaks(dir.path(), &path, &access).is_empty(), "the access token leaked into {:?}", leaks(dir.path(), &path, &access));
    assert!(leaks(dir.path(), &path, &refresh).is_empty(), "the refresh token leaked");

    // Another process (a new host on the same data dir) uses the stored token without a sign-in.
    let again = open_host(dir.path(), SignInPolicy::default());
    again.call_tool("notes", "whoami", json!({})).await.unwrap();
    again.shutdown().await;

    // An expired token is refreshed with the refresh token, with no sign-in.
    let mut aged = stored.clone();
    aged["credentials"]["token_received_at"] = json!(1);
    std::fs::write(&path, aged.to_string()).unwrap();
    let refreshed = open_host(dir.path(), SignInPolicy::default());
    refreshed.call_tool("notes", "whoami", json!({})).await.expect("the expired token is refreshed");
    refreshed.shutdown().await;
    let (_, now) = record(dir.path());
    assert_ne!(now["credentials"]["token_response"]["access_token"].as_str().unwrap(), access, "a new access token was stored");

    // Sign out: the tokens are gone, the next call needs a sign-in again.
    let out = open_host(dir.path(), SignInPolicy::default());
    let view = out.sign_out("notes").await.unwrap();
    assert!(!view.signed_in, "{view:?}");
    assert!(!dir.path().join("oauth").read_dir().unwrap().flatten().any(|e| e.path().extension().is_some_and(|x| x == "json")), "no record is left");
    let err = out.call_tool("notes", "whoami", json!({})).await.unwrap_err();
    assert!(matches!(err, HostError::Server(ClientError::SignInRequired { .. })), "{err}");

    // A stdio server has no sign-in.
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": "mcp-canvas-demo" } } }).to_string()).unwrap();
    let stdio = open_host(dir.path(), SignInPolicy::default());
    assert!(stdio.sign_in_view("demo").await.unwrap().is_none());
    let err = stdio.sign_in("demo").await.unwrap_err().to_string();
    assert!(err.contains("only HTTP servers sign in"), "{err}");
}

/// With the policy allowing it (the conformance adapter's), a connection that meets a 401 signs
/// in by itself and goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_front_end_may_let_the_host_sign_in_when_connecting() {
    let server = OAuthServer::start();
    let dir = tempfile::tempdir().unwrap();
    configure(dir.path(), &server.url);
    let host = open_host(dir.path(), SignInPolicy { when_connecting: true, during_calls: true });
    let done = host.call_tool("notes", "note", json!({ "title": "Hello" })).await.unwrap();
    assert!(done.outcome.texts[0].text.contains("signed-in user"), "{:?}", done.outcome.texts);
    assert!(host.sign_in_view("notes").await.unwrap().unwrap().signed_in);
    host.shutdown().await;
}

/// `mcp-canvas-cli servers login NAME` opens `$BROWSER` with the authorization URL and waits for
/// the loopback redirect; `servers list` and `logout` show and end it.
#[test]
fn the_cli_signs_in_through_the_browser_and_out() {
    let server = OAuthServer::start();
    let dir = tempfile::tempdir().unwrap();
    configure(dir.path(), &server.url);
    let run = cli(dir.path(), &["call", "notes", "whoami"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("asks you to sign in") && run.stderr.contains("servers login notes"), "{}", run.stderr);

    // The "browser": curl following the redirects, as a browser does after "Allow".
    let browser = dir.path().join("browser.sh");
    std::fs::write(&browser, "#!/bin/sh\nexec curl -s -L -o /dev/null \"$1\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let output = std::process::Command::new(mcp_canvas_e2e::binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["servers", "login", "notes", "--json"])
        .env("BROWSER", &browser)
        .env("MCP_CANVAS_TOKEN_STORE", "file")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("Signing in to `notes`: opening http://127.0.0.1:"), "the URL is shown: {stderr}");
    let view: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(view["signed_in"], true, "{view}");

    let run = cli(dir.path(), &["call", "notes", "whoami"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    let list = cli(dir.path(), &["servers", "list"]);
    assert!(list.stdout.contains("signed in (notes:read"), "{}", list.stdout);
    let out = cli(dir.path(), &["servers", "logout", "notes"]);
    assert!(out.stdout.contains("signed out"), "{}", out.stdout);
    assert_eq!(cli(dir.path(), &["call", "notes", "whoami"]).code, 1);
}

/// The auth extensions (machine grants, DPoP) against misbehaving servers.
#[path = "auth_extensions.rs"]
mod auth_extensions;
