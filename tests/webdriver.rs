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
    match driver.query(By::Css(css)).wait(WAIT, POLL).first().await {
        Ok(element) => element,
        Err(e) => {
            screenshot(driver, "failed_wait.png").await;
            panic!("`{css}` did not appear within {WAIT:?}: {e}")
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
