//! The installed Debian package: `/usr/bin/mcp-canvas` (or `$MCP_CANVAS_APP`) in a real window
//! under Xvfb, driven through tauri-driver + WebKitWebDriver like `gui.rs`. It must come up on a
//! fresh data dir with the bundled demo server (`/usr/bin/mcp-canvas-demo`, started by the app)
//! connected, call a tool, and render a PDF page with the packaged libpdfium
//! (`/usr/lib/mcp-canvas/libpdfium.so`).
//!
//! Ignored by plain `cargo test`: `scripts/test-package.sh` builds and installs the .deb, runs
//! `xvfb-run -a cargo test -p mcp-canvas-e2e --test package -- --ignored`, then removes it.

use std::path::{Path, PathBuf};

use mcp_canvas_e2e::webdriver::{screenshot, wait_for, wait_for_script, with_app};
use serde_json::json;
use thirtyfour::prelude::*;

/// The installed app, and where the package puts the rest.
fn installed_app() -> PathBuf {
    PathBuf::from(std::env::var_os("MCP_CANVAS_APP").unwrap_or_else(|| "/usr/bin/mcp-canvas".into()))
}

fn installed_sibling(name: &str) -> PathBuf {
    installed_app().parent().unwrap().join(name)
}

fn packaged_pdfium() -> PathBuf {
    installed_app().parent().unwrap().parent().unwrap().join("lib/mcp-canvas/libpdfium.so")
}

async fn call_tool(driver: &WebDriver, tool: &str, arguments: &str) {
    wait_for(driver, &format!(r#"[data-server="demo"] button[data-tool="{tool}"]"#)).await.click().await.unwrap();
    wait_for(driver, "button.call-button").await;
    // Where the tool panel offers a form and a JSON editor, take the JSON editor.
    if let Some(json_mode) = driver.find_all(By::Css(r#"button.arguments-mode[data-mode="json"]"#)).await.unwrap().into_iter().next() {
        if json_mode.attr("aria-selected").await.unwrap().as_deref() != Some("true") {
            json_mode.click().await.unwrap();
        }
    }
    let textarea = wait_for(driver, "textarea.arguments").await;
    textarea.clear().await.unwrap();
    textarea.send_keys(arguments).await.unwrap();
    wait_for(driver, "button.call-button").await.click().await.unwrap();
}

/// Processes whose executable is `exe`: (pid, parent pid, environment).
fn processes_of(exe: &Path) -> Vec<(u32, u32, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if std::fs::read_link(entry.path().join("exe")).ok().as_deref() != Some(exe) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid ...`; comm may hold spaces, so split after the last ')'.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)).and_then(|p| p.parse().ok()).unwrap_or(0);
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        found.push((pid, ppid, environ));
    }
    found
}

/// The installed app serving `data_dir` (other instances may run on the machine).
fn app_pid(data_dir: &Path) -> u32 {
    let wanted = format!("MCP_CANVAS_DATA_DIR={}", data_dir.display()).into_bytes();
    let apps = processes_of(&installed_app());
    apps.iter()
        .find(|(_, _, environ)| environ.split(|b| *b == 0).any(|var| var == wanted.as_slice()))
        .map(|(pid, _, _)| *pid)
        .unwrap_or_else(|| panic!("no {} process on this data dir ({} running)", installed_app().display(), apps.len()))
}

async fn drive(driver: &WebDriver, data_dir: &Path) {
    // First run: the demo server is configured as a bare `mcp-canvas-demo`, found next to the
    // installed app, started, and its tools listed.
    wait_for(driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await;
    let title = driver.title().await.unwrap();
    assert_eq!(title, "MCP Canvas", "the document title");
    let pid = app_pid(data_dir);
    let demo = processes_of(&installed_sibling("mcp-canvas-demo"));
    assert!(
        demo.iter().any(|(_, ppid, _)| *ppid == pid),
        "the app (pid {pid}) started the packaged demo server {}: {:?}",
        installed_sibling("mcp-canvas-demo").display(),
        demo.iter().map(|(p, pp, _)| (p, pp)).collect::<Vec<_>>()
    );
    screenshot(driver, "package_first_run.png").await;

    // A call: the chart comes back through the artifact: scheme and renders.
    call_tool(driver, "render_chart", r#"{"values": [3, 8, 5, 12], "title": "Installed"}"#).await;
    let image = wait_for(driver, "img.artifact-image").await;
    let natural = wait_for_script(
        driver,
        "const img = arguments[0]; return img.complete && img.naturalWidth > 0 ? [img.naturalWidth, img.naturalHeight] : null;",
        vec![image.to_json().unwrap()],
    )
    .await;
    assert_eq!(natural, json!([480, 300]));
    let summary = wait_for(driver, ".result .summary").await.text().await.unwrap();
    assert!(summary.contains("Installed: 4 bars, highest 12."), "{summary}");

    // A PDF page rendered by the packaged libpdfium, which the app process has mapped.
    call_tool(driver, "download_workbook", r#"{"pages": 2}"#).await;
    let page = wait_for(driver, "img.pdf-page").await;
    wait_for_script(driver, "const i = arguments[0]; return i.complete && i.naturalWidth > 0;", vec![page.to_json().unwrap()]).await;
    assert_eq!(wait_for(driver, ".pdf-page-number").await.text().await.unwrap(), "Page 1 of 2");
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
    let pdfium: std::collections::BTreeSet<&str> = maps.lines().filter_map(|l| l.split_whitespace().nth(5)).filter(|p| p.contains("pdfium")).collect();
    assert_eq!(
        pdfium.into_iter().collect::<Vec<_>>(),
        [packaged_pdfium().to_str().unwrap()],
        "the app uses the libpdfium the package installed, and no other"
    );
    screenshot(driver, "package_pdf.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the installed .deb, a display and tauri-driver; scripts/test-package.sh runs it"]
async fn the_installed_app_comes_up_with_the_bundled_demo_server() {
    let app = installed_app();
    assert!(app.is_file(), "{} is not installed: scripts/test-package.sh installs the .deb first", app.display());
    let data_dir = tempfile::tempdir().unwrap();
    with_app(&app, data_dir.path(), |driver, data_dir| async move { drive(&driver, &data_dir).await }).await;
    let config = std::fs::read_to_string(data_dir.path().join("servers.json")).expect("the app wrote its first-run config");
    assert!(config.contains("\"mcp-canvas-demo\""), "the demo server is configured by its bare name: {config}");
}
