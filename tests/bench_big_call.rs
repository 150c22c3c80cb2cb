//! A very large answer to a call made from the window, with the window open: does the window stay
//! responsive, how much memory do the processes take, does the machine swap?
//! `scripts/bench-big-call.sh [--mb 1000]` builds the release app and runs this under Xvfb with
//! `cargo run --release -p mcp-canvas-e2e --example bench_big_call -- [--mb N] [APP]`.
//!
//! The answer: `scripts/bench-normalize.py`'s result with an N MB base64 PDF in a JSON text block,
//! streamed by its replay server (a stdio MCP server, the same as that benchmark's `call` side).
//! The window calls it like a person would (select the tool, Call); meanwhile, every 100 ms, a
//! trivial script runs in the page through WebDriver (one round trip into the page's JavaScript and
//! back) and the resident memory of the app and its processes is read.
//!
//! Baselines in the same run: the same script's round trip in the idle window before the call, and
//! the same call by `mcp-canvas-cli call` (no window) on a fresh data dir.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use mcp_canvas_e2e::{
    target_dir,
    webdriver::{idle_footprint, newest_result_after, result_count, wait_for, with_app},
};
use serde_json::{json, Value};
use thirtyfour::prelude::*;

fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Pages swapped out so far (`/proc/vmstat`).
fn swapped_out_pages() -> u64 {
    std::fs::read_to_string("/proc/vmstat").unwrap_or_default().lines().find_map(|l| l.strip_prefix("pswpout ")).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

fn servers_json(dir: &Path, script: &Path, message: &Path) {
    let servers = json!({ "mcpServers": { "bench": {
        "command": "python3", "args": [script, "--replay-server", message],
        "max_message_bytes": 1u64 << 30, "timeout_seconds": 3600,
    }}});
    std::fs::write(dir.join("servers.json"), servers.to_string()).unwrap();
}

/// One page round trip through WebDriver, in ms.
async fn round_trip(driver: &WebDriver) -> f64 {
    let started = Instant::now();
    driver.execute("return document.querySelectorAll('.history .result').length;", Vec::new()).await.unwrap();
    started.elapsed().as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut mb = 1000u64;
    let mut app: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mb" => mb = args.next().and_then(|n| n.parse().ok()).expect("--mb N"),
            other => app = Some(PathBuf::from(other)),
        }
    }
    let app = std::fs::canonicalize(app.unwrap_or_else(|| target_dir().join("mcp-canvas"))).expect("the app binary");
    let cli = app.with_file_name("mcp-canvas-cli");
    let script = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/bench-normalize.py")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let message = work.path().join("answer.json");
    let generated = Command::new("python3").arg(&script).args(["--generate-only"]).arg(&message).args(["--mb", &mb.to_string(), "--variants", "text"]).output().unwrap();
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
    let expected: Value = serde_json::from_slice(&generated.stdout).unwrap();
    let message_mb = std::fs::metadata(&message).unwrap().len() as f64 / 1e6;
    println!("app: {}", app.display());
    println!("the answer: {message_mb:.0} MB of JSON, a {:.0} MB PDF as base64 in a text block", expected["size"].as_f64().unwrap() / 1e6);

    // Baseline: the same call without a window.
    let cli_dir = tempfile::tempdir().unwrap();
    servers_json(cli_dir.path(), &script, &message);
    let started = Instant::now();
    let run = Command::new(&cli).arg("--data-dir").arg(cli_dir.path()).args(["call", "bench", "download_workbook", "--json", "--timeout", "3600"]).env_remove("MCP_CANVAS_DATA_DIR").output().unwrap();
    let cli_s = started.elapsed().as_secs_f64();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let outcome: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(outcome["artifacts"][0]["sha256"], expected["sha256"], "the CLI stored the PDF");
    drop(cli_dir);

    let data = tempfile::tempdir().unwrap();
    servers_json(data.path(), &script, &message);
    let expected_sha = expected["sha256"].as_str().unwrap().to_owned();
    let measured = app.clone();
    with_app(&app, data.path(), move |driver, data_dir| async move {
        wait_for(&driver, r#"[data-server="bench"] button[data-tool="download_workbook"]"#).await.click().await.unwrap();
        let call = wait_for(&driver, "button.call-button").await;
        let mut idle = Vec::new();
        for _ in 0..20 {
            idle.push(round_trip(&driver).await);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let before = result_count(&driver).await;
        let swapped_before = swapped_out_pages();
        let started = Instant::now();
        call.click().await.unwrap();
        let (mut during, mut peak_rss, mut peak_pss, mut peak_app) = (Vec::new(), 0u64, 0u64, 0u64);
        loop {
            during.push(round_trip(&driver).await);
            let footprint = idle_footprint(&measured);
            peak_rss = peak_rss.max(footprint.iter().map(|p| p.1).sum());
            peak_pss = peak_pss.max(footprint.iter().map(|p| p.2).sum());
            peak_app = peak_app.max(footprint.iter().filter(|p| p.0 == "mcp-canvas").map(|p| p.1).sum());
            let done: bool = driver.execute("return document.querySelectorAll('.history .result').length > arguments[0];", vec![json!(before)]).await.unwrap().json().as_bool().unwrap();
            if done {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(3600), "the call answered within an hour");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let window_s = started.elapsed().as_secs_f64();
        let result = newest_result_after(&driver, before).await;
        let swapped = swapped_out_pages() - swapped_before;
        // The store as another process sees it (the app keeps it open).
        let run = mcp_canvas_e2e::cli(&data_dir, &["artifacts", "list", "--server", "bench", "--json"]);
        let listed: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {} {}", run.stdout, run.stderr));
        let stored = listed["items"].as_array().into_iter().flatten().any(|a| a["sha256"] == expected_sha.as_str());
        assert!(stored, "the PDF is in the store under its sha256; the window said: {result}; the store lists {listed}");
        println!();
        println!("                                              MCP Canvas window   baseline");
        println!("call to answer shown (s)                      {window_s:>17.2}   {cli_s:>8.2}  (mcp-canvas-cli call, no window)");
        println!("page round trip during the call, median (ms)  {:>17.1}   {:>8.1}  (the idle window, before the call)", percentile(&during, 0.5), percentile(&idle, 0.5));
        println!("page round trip during the call, p95 (ms)     {:>17.1}   {:>8.1}", percentile(&during, 0.95), percentile(&idle, 0.95));
        println!("page round trip during the call, max (ms)     {:>17.1}   {:>8.1}", percentile(&during, 1.0), percentile(&idle, 1.0));
        println!("round trips during the call                   {:>17}", during.len());
        println!("peak RSS of the app process (MB)              {:>17.0}", peak_app as f64 / 1024.0);
        println!("peak RSS, all processes summed (MB)           {:>17.0}", peak_rss as f64 / 1024.0);
        println!("peak PSS, all processes (MB)                  {:>17.0}", peak_pss as f64 / 1024.0);
        println!("the message (MB)                              {message_mb:>17.0}");
        println!("pages swapped out meanwhile                   {swapped:>17}");
        println!("the window's result: {}", result.chars().take(160).collect::<String>());
    })
    .await;
}

