//! Signing in from the real window (Xvfb, WebDriver) to a real OAuth-protected server: FastMCP
//! behind its own authorization server (`tests/fastmcp/oauth_server.py`). The server's row says
//! it needs a sign-in; Sign in hands the authorization page to the system browser (`$BROWSER`:
//! here curl following the redirects, as a browser does after "Allow") and the loopback redirect
//! brings the code back; the tools appear and a call carries the token; Sign out forgets it.
//!
//! Ignored by plain `cargo test` (needs a display and tauri-driver); `scripts/test.sh` runs it
//! under `xvfb-run`.

use std::ffi::OsString;

use mcp_canvas_e2e::{
    binary,
    fastmcp::OAuthServer,
    webdriver::{call_with, screenshot, wait_for, with_app_env},
};
use serde_json::json;
use thirtyfour::prelude::*;

async fn drive(driver: WebDriver) {
    let row = r#"section.server[data-server="notes"]"#;
    wait_for(&driver, &format!(r#"{row} .sign-in[data-sign-in="needed"]"#)).await;
    let words = wait_for(&driver, &format!("{row} .sign-in-words")).await.text().await.unwrap();
    assert_eq!(words, "Sign-in needed");
    screenshot(&driver, "sign_in_needed.png").await;

    wait_for(&driver, &format!("{row} button.sign-in-button")).await.click().await.unwrap();
    wait_for(&driver, &format!(r#"{row} .sign-in[data-sign-in="signed-in"]"#)).await;
    let words = wait_for(&driver, &format!("{row} .sign-in-words")).await.text().await.unwrap();
    assert!(words.starts_with("Signed in (") && words.contains("notes:read"), "{words}");
    let storage = wait_for(&driver, &format!("{row} .sign-in-storage")).await.text().await.unwrap();
    assert!(storage.contains("a file only you can read"), "the UI says where tokens are when no keyring is used: {storage}");

    wait_for(&driver, &format!(r#"{row} button.tool-item[data-tool="whoami"]"#)).await.click().await.unwrap();
    let result = call_with(&driver, "{}").await;
    assert!(result.contains("client ") && result.contains("notes:read"), "the call carried the token: {result}");
    screenshot(&driver, "signed_in.png").await;

    wait_for(&driver, &format!("{row} button.sign-out-button")).await.click().await.unwrap();
    wait_for(&driver, &format!(r#"{row} .sign-in[data-sign-in="signed-out"]"#)).await;
    wait_for(&driver, &format!("{row} button.sign-in-button")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn signing_in_to_an_oauth_server_from_the_window() {
    let server = OAuthServer::start();
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::write(data_dir.path().join("servers.json"), json!({ "mcpServers": { "notes": { "type": "http", "url": server.url } } }).to_string()).unwrap();
    let browser = data_dir.path().join("browser.sh");
    std::fs::write(&browser, "#!/bin/sh\nexec curl -s -L -o /dev/null \"$1\"\n").unwrap();
    std::fs::set_permissions(&browser, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let env: [(&str, OsString); 2] = [("BROWSER", browser.into_os_string()), ("MCP_CANVAS_TOKEN_STORE", "file".into())];
    with_app_env(&binary("mcp-canvas"), data_dir.path(), &env, |driver, _| async move { drive(driver).await }).await;
    // The window's sign-out removed the record.
    let records = std::fs::read_dir(data_dir.path().join("oauth")).map(|d| d.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "json")).count()).unwrap_or(0);
    assert_eq!(records, 0);
}

/// A server that signs the app in as a machine (`oauth.grant: "client_credentials"`, its secret
/// kept with `mcc servers login --client-secret-stdin`): the row says how its tokens are got,
/// a call goes through with a token no one signed in for, and after Sign out the row offers
/// "Get token" — which gets one without a browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn a_machine_grant_gets_its_token_without_a_browser() {
    use std::io::{BufRead as _, Write as _};
    let faults = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/auth_faults.py");
    let mut server = std::process::Command::new("python3").args([faults, "short-lived"]).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let url = std::io::BufReader::new(server.stdout.take().unwrap()).lines().next().unwrap().unwrap();
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::write(data_dir.path().join("servers.json"), json!({ "mcpServers": { "billing": { "type": "http", "url": url, "oauth": { "grant": "client_credentials", "client_id": "canvas-batch" } } } }).to_string()).unwrap();
    let mut login = std::process::Command::new(binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(data_dir.path())
        .args(["servers", "login", "billing", "--client-secret-stdin"])
        .env("MCP_CANVAS_TOKEN_STORE", "file")
        .env_remove("MCP_CANVAS_DATA_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    login.stdin.take().unwrap().write_all(b"a-secret\n").unwrap();
    let said = login.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&said.stdout);
    assert!(said.contains("signed in") && said.contains("(client credentials)"), "{said}");
    let env: [(&str, OsString); 1] = [("MCP_CANVAS_TOKEN_STORE", "file".into())];
    with_app_env(&binary("mcp-canvas"), data_dir.path(), &env, |driver, _| async move {
        let row = r#"section.server[data-server="billing"]"#;
        wait_for(&driver, &format!(r#"{row} .sign-in[data-sign-in="signed-in"]"#)).await;
        let method = wait_for(&driver, &format!("{row} .sign-in-method")).await.text().await.unwrap();
        assert!(method.contains("client credentials"), "{method}");
        wait_for(&driver, &format!(r#"{row} button.tool-item[data-tool="whoami"]"#)).await.click().await.unwrap();
        let result = call_with(&driver, "{}").await;
        assert!(result.contains("token-"), "the call carried a token: {result}");
        screenshot(&driver, "machine_grant_signed_in.png").await;
        wait_for(&driver, &format!("{row} button.sign-out-button")).await.click().await.unwrap();
        wait_for(&driver, &format!(r#"{row} .sign-in[data-sign-in="signed-out"]"#)).await;
        let button = wait_for(&driver, &format!("{row} button.sign-in-button")).await;
        assert_eq!(button.text().await.unwrap(), "Get token");
        button.click().await.unwrap();
        wait_for(&driver, &format!(r#"{row} .sign-in[data-sign-in="signed-in"]"#)).await;
    })
    .await;
    let _ = server.kill();
    let _ = server.wait();
}
