//! The app in a real window, driven through WebDriver: tauri-driver in front of WebKitWebDriver,
//! one `thirtyfour` session. Shared by `gui.rs` (the built app) and `package.rs` (the installed
//! one). Needs a display (`xvfb-run -a`) and tauri-driver (`scripts/setup.sh --tests`).

use std::{
    ffi::OsString,
    future::Future,
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::json;
use thirtyfour::prelude::*;

use crate::target_dir;

/// How long anything in the window may take to appear.
pub const WAIT: Duration = Duration::from_secs(30);
/// How often a wait looks again.
pub const POLL: Duration = Duration::from_millis(150);

/// tauri-driver in its own process group, killed (with its WebKitWebDriver) when dropped.
pub struct TauriDriver {
    child: Child,
    port: u16,
}

impl TauriDriver {
    /// Starts tauri-driver; the app it launches gets `MCP_CANVAS_DATA_DIR=data_dir` (a fresh one
    /// means a first run).
    pub fn start(data_dir: &Path) -> Self {
        Self::start_with_env(data_dir, &[])
    }

    /// As [`TauriDriver::start`], with more environment variables for the app (tauri-driver and
    /// WebKitWebDriver pass their environment on to it).
    pub fn start_with_env(data_dir: &Path, env: &[(&str, OsString)]) -> Self {
        let port = free_port();
        let native_port = free_port();
        let program = which("tauri-driver").expect("tauri-driver not found: `cargo install tauri-driver --locked` (scripts/setup.sh --tests does)");
        let child = Command::new(program)
            // Its own process group, so that dropping it also stops the WebKitWebDriver it starts.
            .process_group(0)
            .args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .env("MCP_CANVAS_DATA_DIR", data_dir)
            .envs(env.iter().map(|(key, value)| (key, value)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tauri-driver starts");
        let driver = Self { child, port };
        driver.wait_ready();
        driver
    }

    /// Where WebDriver sessions are made.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// tauri-driver accepts connections before WebKitWebDriver is ready: poll `/status`.
    fn wait_ready(&self) {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = stream.write_all(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
                let mut response = String::new();
                let _ = stream.read_to_string(&mut response);
                if response.starts_with("HTTP/1.1 200") && response.contains("\"ready\":true") {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("tauri-driver on port {} was not ready within {WAIT:?}", self.port);
    }
}

impl Drop for TauriDriver {
    fn drop(&mut self) {
        // tauri-driver does not stop WebKitWebDriver when killed; an orphan would keep the test's
        // output pipes open. Signal the whole group.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        std::thread::sleep(Duration::from_millis(300));
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        let _ = self.child.wait();
    }
}

/// Launches `application` on `data_dir` in a WebDriver session, runs `drive` with it, and always
/// ends the session (which closes the app) — also when `drive` panics, whose panic is passed on.
pub async fn with_app<F, Fut>(application: &Path, data_dir: &Path, drive: F)
where
    F: FnOnce(WebDriver, PathBuf) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    with_app_env(application, data_dir, &[], drive).await;
}

/// As [`with_app`], with more environment variables for the app (say, a `PATH` that puts a
/// stand-in for the system opener first).
pub async fn with_app_env<F, Fut>(application: &Path, data_dir: &Path, env: &[(&str, OsString)], drive: F)
where
    F: FnOnce(WebDriver, PathBuf) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let tauri_driver = TauriDriver::start_with_env(data_dir, env);
    let mut capabilities = Capabilities::new();
    capabilities.set("tauri:options", json!({ "application": application })).unwrap();
    let driver = WebDriver::new(tauri_driver.url(), capabilities).await.expect("WebDriver session starts");
    let outcome = tokio::spawn(drive(driver.clone(), data_dir.to_owned())).await;
    let _ = driver.quit().await;
    drop(tauri_driver);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic.into_panic());
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn which(program: &str) -> Option<PathBuf> {
    let home_cargo = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin"));
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(home_cargo)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The first element matching `css`, waiting for it; on failure the window is saved as
/// `failed_wait.png` for whoever reads the failure.
pub async fn wait_for(driver: &WebDriver, css: &str) -> WebElement {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now()).max(POLL);
        match driver.query(By::Css(css)).wait(left, POLL).first().await {
            Ok(element) => return element,
            // Found, then replaced by a re-render before it could be read (a busy machine makes
            // this likelier): look again.
            Err(e) if e.to_string().contains("stale") && Instant::now() < deadline => tokio::time::sleep(POLL).await,
            Err(e) => {
                screenshot(driver, "failed_wait.png").await;
                panic!("`{css}` did not appear within {WAIT:?}: {e}")
            }
        }
    }
}

/// Polls a script until it returns something truthy; returns that value.
pub async fn wait_for_script(driver: &WebDriver, script: &str, args: Vec<serde_json::Value>) -> serde_json::Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let value = driver.execute(script, args.clone()).await.expect("script runs").json().clone();
        let truthy = !(value.is_null() || value == json!(false) || value == json!(0) || value == json!(""));
        if truthy {
            return value;
        }
        assert!(Instant::now() < deadline, "script stayed falsy for {WAIT:?}: {script}");
        tokio::time::sleep(POLL).await;
    }
}

/// Clicks `css` until `condition` (a JS expression in the current frame) holds, at most three
/// times: WebKit sometimes takes a click right after a frame had the focus as a focus change.
pub async fn click_until(driver: &WebDriver, css: &str, condition: &str) {
    for _ in 0..3 {
        wait_for(driver, css).await.click().await.unwrap();
        for _ in 0..60 {
            if driver.execute(&format!("return Boolean({condition});"), vec![]).await.unwrap().json() == &json!(true) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
    screenshot(driver, "failed_click.png").await;
    panic!("three clicks on {css} did not make {condition} true");
}

/// Saves the window as `target/gui-screenshots/<name>` (after a second, so the frame after a DOM
/// change is painted) and returns the path.
pub async fn screenshot(driver: &WebDriver, name: &str) -> PathBuf {
    tokio::time::sleep(Duration::from_secs(1)).await;
    let dir = target_dir().parent().unwrap().join("gui-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    driver.screenshot(&path).await.unwrap();
    eprintln!("screenshot: {}", path.display());
    path
}

// The tool panel, as a person uses it.

/// Switches the tool panel's arguments editor to `mode`: `form` (drawn from the inputSchema) or `json`.
pub async fn arguments_mode(driver: &WebDriver, mode: &str) {
    let button = wait_for(driver, &format!(r#"button.arguments-mode[data-mode="{mode}"]"#)).await;
    if button.attr("aria-selected").await.unwrap().as_deref() != Some("true") {
        button.click().await.unwrap();
    }
    wait_for(driver, &format!(r#"button.arguments-mode[data-mode="{mode}"][aria-selected="true"]"#)).await;
}

/// Replaces what a text or number input holds with `text`, in one edit (select all, type): the
/// form would put a field's default back if it were cleared first.
pub async fn replace_text(input: &WebElement, text: &str) {
    input.click().await.unwrap();
    input.send_keys(Key::Control + "a").await.unwrap();
    input.send_keys(text).await.unwrap();
}

/// The `data-tool` names of the tool buttons shown in the sidebar.
pub async fn listed_tools(driver: &WebDriver) -> Vec<String> {
    let names = driver.execute("return [...document.querySelectorAll('.servers button[data-tool]')].map(b => b.dataset.tool);", vec![]).await.unwrap().json().clone();
    serde_json::from_value(names).unwrap()
}

/// Puts `json_text` into the JSON arguments editor.
pub async fn set_arguments(driver: &WebDriver, json_text: &str) {
    arguments_mode(driver, "json").await;
    let textarea = wait_for(driver, "textarea.arguments").await;
    textarea.clear().await.unwrap();
    textarea.send_keys(json_text).await.unwrap();
}

/// Types `keys` into whatever has focus in the window, as a person at the keyboard would.
pub async fn press(driver: &WebDriver, keys: impl Into<TypingData>) {
    driver.active_element().await.unwrap().send_keys(keys).await.unwrap();
}

/// Waits until the focused element matches `css`.
pub async fn wait_for_focus(driver: &WebDriver, css: &str) {
    wait_for_script(driver, "const a = document.activeElement; return !!a && a.matches(arguments[0]);", vec![json!(css)]).await;
}

/// How many results the tool panel lists.
pub async fn result_count(driver: &WebDriver) -> u64 {
    driver.execute("return document.querySelectorAll('.history .result').length;", vec![]).await.unwrap().json().as_u64().unwrap()
}

/// Waits for a result newer than the `before` ones; returns its text (summary, error, warnings).
pub async fn newest_result_after(driver: &WebDriver, before: u64) -> String {
    let text = wait_for_script(
        driver,
        "const r = document.querySelectorAll('.history .result'); return r.length > arguments[0] ? r[0].textContent : null;",
        vec![json!(before)],
    )
    .await;
    text.as_str().unwrap().to_owned()
}

/// Calls the selected tool with `arguments` (JSON text) and waits for its result's text.
pub async fn call_with(driver: &WebDriver, arguments: &str) -> String {
    set_arguments(driver, arguments).await;
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    newest_result_after(driver, before).await
}

/// RSS and PSS in KiB of the running `app` and each process under it, by name (largest RSS
/// first): the benchmarks' memory figures.
pub fn idle_footprint(app: &std::path::Path) -> Vec<(String, u64, u64)> {
    let app = std::fs::canonicalize(app).unwrap_or_else(|_| app.to_owned());
    let mut processes = Vec::new(); // (pid, ppid, name, rss KiB)
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else { continue };
        let field = |key: &str| status.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_owned());
        let ppid = field("PPid:").and_then(|v| v.parse::<u32>().ok()).unwrap_or(0);
        let rss = field("VmRSS:").and_then(|v| v.trim_end_matches(" kB").trim().parse::<u64>().ok()).unwrap_or(0);
        let name = field("Name:").unwrap_or_default();
        let exe = std::fs::read_link(entry.path().join("exe")).ok();
        processes.push((pid, ppid, name, rss, exe));
    }
    let mut tree: Vec<u32> = processes.iter().filter(|p| p.4.as_deref() == Some(app.as_path())).map(|p| p.0).collect();
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(processes.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    let pss = |pid: u32| {
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
        rollup.lines().find_map(|l| l.strip_prefix("Pss:")).and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok()).unwrap_or(0)
    };
    let mut found: Vec<(String, u64, u64)> = processes.iter().filter(|p| tree.contains(&p.0)).map(|p| (p.2.clone(), p.3, pss(p.0))).collect();
    found.sort_by_key(|p| std::cmp::Reverse(p.1));
    found
}

/// Runs `script` until it returns something truthy (not null, false, 0 or ""), for a minute;
/// returns that. On failure the window is saved as `failed_<what>.png`.
pub async fn until(driver: &WebDriver, what: &str, script: &str) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let value = driver.execute(script, vec![]).await.expect("script runs").json().clone();
        if !(value.is_null() || value == json!(false) || value == json!(0) || value == json!("")) {
            return value;
        }
        if Instant::now() > deadline {
            screenshot(driver, &format!("failed_{what}.png")).await;
            panic!("stayed falsy for a minute: {script}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
