//! Cold start to a painted window with the demo server connected, measured through WebDriver
//! under Xvfb: `scripts/bench-startup.sh` builds the release app and runs this with
//! `xvfb-run -a cargo run --release -p mcp-canvas-e2e --example bench_startup -- [--runs N] [APP]`.
//!
//! Each run starts the app on a fresh data dir (a first run: config written, demo server
//! started) and times, from the WebDriver "new session" request:
//! - `window`: the session is up (the window exists and its page has loaded);
//! - `painted`: the React shell is drawn (`.app`);
//! - `demo`: the demo server's tools are listed in the sidebar.
//!
//! Baseline in the same run: `mcp-canvas-cli tools demo` on a fresh data dir, the same work
//! (first-run config, start the demo server, list its tools) without a window.
//!
//! Where the time goes, from the page's own Performance entries (read through WebDriver once
//! the tools are listed), each from the same clock as the above: the page's time origin (the
//! process and WebKit started, navigation began), the HTML and each script and style sheet
//! fetched (with their sizes), DOMContentLoaded (the bundle parsed and run), the first paint, the
//! first IPC answer (`ipc://` requests) and the last one before the tools were listed, and the
//! fonts fetched (a stage the page does not report is left out).
//!
//! Then, idle: 3 s after the tools are listed (empty canvas, demo connected), the resident memory
//! (RSS, from /proc) of the app and every process under it — WebKit's web and network processes,
//! the demo server — each and in total, and their proportional share (PSS, from
//! `/proc/PID/smaps_rollup`: a page shared by three processes counts a third in each, so the
//! total is the memory they take together; RSS counts it three times).
//!
//! Baseline of the idle memory, in the same run: WebKitGTK alone (the `bare_webkit` example: a
//! GTK window of the same size with one web view showing one heading, no Tauri, no app code),
//! started on the same display after each run and measured the same way 5 s later. The app's
//! figure minus this one is what the app itself adds. Environment variables reach both (e.g.
//! `WEBKIT_DISABLE_COMPOSITING_MODE=1` to see either without GL compositing).

use std::{
    path::PathBuf,
    process::Command,
    time::{Duration, Instant},
};

use mcp_canvas_e2e::{
    target_dir,
    webdriver::{idle_footprint, TauriDriver},
};
use serde_json::json;
use thirtyfour::prelude::*;

const WAIT: Duration = Duration::from_secs(60);

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 }
}

async fn wait_css(driver: &WebDriver, css: &str) {
    driver.query(By::Css(css)).wait(WAIT, Duration::from_millis(10)).first().await.unwrap_or_else(|e| panic!("{css}: {e}"));
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut runs = 5usize;
    let mut app: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).expect("--runs N"),
            other => app = Some(PathBuf::from(other)),
        }
    }
    let app = app.unwrap_or_else(|| target_dir().join("mcp-canvas"));
    let cli = app.with_file_name("mcp-canvas-cli");
    let bare = std::env::current_exe().unwrap().with_file_name("bare_webkit");
    assert!(bare.is_file(), "{} is needed: scripts/bench-startup.sh builds it", bare.display());
    assert!(app.is_file() && cli.is_file(), "{} and mcp-canvas-cli next to it are needed: scripts/bench-startup.sh builds them", app.display());
    println!("app: {}", app.display());

    let (mut window, mut painted, mut demo, mut baseline, mut idle, mut idle_pss) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut bare_rss, mut bare_pss) = (Vec::new(), Vec::new());
    let mut stages: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    // One warm-up run each (page cache, fontconfig), not counted.
    for run in 0..=runs {
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let status = Command::new(&cli).arg("--data-dir").arg(dir.path()).args(["tools", "demo"]).env_remove("MCP_CANVAS_DATA_DIR").output().unwrap();
        let cli_ms = started.elapsed().as_secs_f64() * 1000.0;
        assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));

        let dir = tempfile::tempdir().unwrap();
        let tauri_driver = TauriDriver::start(dir.path());
        let mut capabilities = Capabilities::new();
        capabilities.set("tauri:options", json!({ "application": app })).unwrap();
        let started = Instant::now();
        let started_epoch_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0;
        let driver = WebDriver::new(tauri_driver.url(), capabilities).await.expect("WebDriver session starts");
        let window_ms = started.elapsed().as_secs_f64() * 1000.0;
        wait_css(&driver, ".app").await;
        let painted_ms = started.elapsed().as_secs_f64() * 1000.0;
        wait_css(&driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await;
        let demo_ms = started.elapsed().as_secs_f64() * 1000.0;
        let timeline = page_timeline(&driver).await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        let footprint = idle_footprint(&app);
        let _ = driver.quit().await;
        drop(tauri_driver);
        if run == 0 {
            continue;
        }
        println!("run {run}: window {window_ms:.0} ms, painted {painted_ms:.0} ms, demo tools listed {demo_ms:.0} ms; cli tools demo {cli_ms:.0} ms");
        let total: u64 = footprint.iter().map(|(_, kb, _)| kb).sum();
        let origin = timeline["origin"].as_f64().unwrap_or(0.0) - started_epoch_ms;
        let mut line = vec![format!("page time origin {origin:.0}")];
        for (key, label) in STAGES {
            if let Some(at) = timeline[key].as_f64() {
                stages.entry((*label).to_owned()).or_default().push(origin + at);
                line.push(format!("{label} {:.0}", origin + at));
            }
        }
        stages.entry("page time origin (the app's page starts to load)".into()).or_default().push(origin);
        println!("       {}", line.join(", "));
        if run == 1 {
            for resource in timeline["resources"].as_array().into_iter().flatten() {
                println!("       fetched {} ({} KB) by {:.0} ms", resource["name"].as_str().unwrap_or("?"), resource["size"].as_f64().unwrap_or(0.0) as u64 / 1024, origin + resource["end"].as_f64().unwrap_or(0.0));
            }
        }
        let proportional: u64 = footprint.iter().map(|(_, _, kb)| kb).sum();
        println!("       idle RSS {} MB: {}", total / 1024, footprint.iter().map(|(name, kb, _)| format!("{name} {}", kb / 1024)).collect::<Vec<_>>().join(", "));
        println!("       idle PSS {} MB: {}", proportional / 1024, footprint.iter().map(|(name, _, kb)| format!("{name} {}", kb / 1024)).collect::<Vec<_>>().join(", "));
        let floor = bare_footprint(&bare);
        let (floor_rss, floor_pss): (u64, u64) = (floor.iter().map(|p| p.1).sum(), floor.iter().map(|p| p.2).sum());
        println!("       WebKitGTK alone: RSS {} MB, PSS {} MB: {}", floor_rss / 1024, floor_pss / 1024, floor.iter().map(|(name, rss, pss)| format!("{name} {}/{}", rss / 1024, pss / 1024)).collect::<Vec<_>>().join(", "));
        bare_rss.push(floor_rss as f64 / 1024.0);
        bare_pss.push(floor_pss as f64 / 1024.0);
        idle.push(total as f64 / 1024.0);
        idle_pss.push(proportional as f64 / 1024.0);
        window.push(window_ms);
        painted.push(painted_ms);
        demo.push(demo_ms);
        baseline.push(cli_ms);
    }
    let (w, p, d, b) = (median(&mut window), median(&mut painted), median(&mut demo), median(&mut baseline));
    println!();
    println!("median of {runs} runs (after one warm-up)            ms");
    println!("window up (WebDriver session created)          {w:>8.0}");
    println!("shell painted (.app drawn)                     {p:>8.0}");
    println!("demo server connected, tools listed            {d:>8.0}");
    println!("baseline: mcp-canvas-cli tools demo            {b:>8.0}");
    println!("the window's own cost (demo listed − baseline) {:>8.0}", d - b);
    let (rss, pss, floor_rss, floor_pss) = (median(&mut idle), median(&mut idle_pss), median(&mut bare_rss), median(&mut bare_pss));
    println!("idle, all processes (RSS, MB)                  {rss:>8.0}");
    println!("baseline: WebKitGTK alone, bare window (RSS)   {floor_rss:>8.0}");
    println!("the app's own share (RSS − baseline)           {:>8.0}", rss - floor_rss);
    println!("idle, all processes (PSS, MB)                  {pss:>8.0}");
    println!("baseline: WebKitGTK alone, bare window (PSS)   {floor_pss:>8.0}");
    println!("the app's own share (PSS − baseline)           {:>8.0}", pss - floor_pss);
    println!("  (RSS counts a shared library's pages once in every process that maps them — WebKit's");
    println!("   libraries are in three; PSS divides each shared page among them: the memory taken)");
    println!();
    println!("where the time goes (median ms from the WebDriver request, the same clock as above)");
    let mut rows: Vec<(String, f64)> = stages.into_iter().map(|(label, mut values)| (label, median(&mut values))).collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    for (label, at) in rows {
        println!("  {at:>6.0}  {label}");
    }
    println!("  {p:>6.0}  shell painted (.app drawn)");
    println!("  {d:>6.0}  demo tools listed");
    let assets = app.parent().and_then(|_| std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/dist/assets")).ok());
    let mut sizes: Vec<(String, u64)> = assets.into_iter().flatten().flatten().filter_map(|e| Some((e.file_name().to_string_lossy().into_owned(), e.metadata().ok()?.len()))).collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1));
    let total: u64 = sizes.iter().map(|(_, n)| n).sum();
    println!("bundle (ui/dist/assets, what the page parses): {} KB in {} files, largest {}", total / 1024, sizes.len(), sizes.iter().take(3).map(|(n, s)| format!("{n} {} KB", s / 1024)).collect::<Vec<_>>().join(", "));
}

/// Starts `bare` (the `bare_webkit` example) in its own process group, waits 5 s and returns its
/// footprint ([`idle_footprint`]: it and WebKit's processes under it), then stops them all.
fn bare_footprint(bare: &std::path::Path) -> Vec<(String, u64, u64)> {
    use std::os::unix::process::CommandExt as _;
    let mut child = Command::new(bare).process_group(0).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().expect("bare_webkit starts");
    std::thread::sleep(Duration::from_secs(5));
    let footprint = idle_footprint(bare);
    let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
    let _ = child.wait();
    assert!(footprint.len() >= 3, "WebKitGTK alone should be a window with a web and a network process: {footprint:?}");
    footprint
}

/// The page's stages, as keys of [`page_timeline`]'s answer and their labels.
const STAGES: &[(&str, &str)] = &[
    ("html", "HTML fetched"),
    ("scripts", "scripts and styles fetched"),
    ("dom", "DOMContentLoaded (bundle parsed and run)"),
    ("paint", "first paint"),
    ("ipc_first", "first IPC answer"),
    ("fonts", "fonts fetched"),
    ("ipc_last", "last IPC answer before the tools were listed"),
];

/// The page's Performance entries, relative to its time origin (`origin`, epoch ms).
async fn page_timeline(driver: &WebDriver) -> serde_json::Value {
    let script = r#"
        const nav = performance.getEntriesByType("navigation")[0] || performance.timing;
        const res = performance.getEntriesByType("resource");
        const assets = res.filter(r => /\.(js|css)(\?|$)/.test(r.name));
        const fonts = res.filter(r => /\.(woff2?|ttf|otf)(\?|$)/.test(r.name));
        const ipc = res.filter(r => r.name.startsWith("ipc:") || r.name.includes("ipc.localhost"));
        const paint = performance.getEntriesByType("paint")[0];
        const last = (list) => list.length ? Math.max(...list.map(r => r.responseEnd)) : null;
        return {
            origin: performance.timeOrigin,
            html: nav.responseEnd,
            scripts: last(assets),
            dom: nav.domContentLoadedEventEnd,
            paint: paint ? paint.startTime : null,
            ipc_first: ipc.length ? Math.min(...ipc.map(r => r.responseEnd)) : null,
            ipc_last: last(ipc),
            fonts: last(fonts),
            ipc_count: ipc.length,
            resources: assets.concat(fonts).map(r => ({ name: r.name.split("/").pop(), size: r.decodedBodySize || r.encodedBodySize || 0, end: r.responseEnd })),
        };
    "#;
    match driver.execute(script, Vec::new()).await {
        Ok(value) => value.json().clone(),
        Err(e) => {
            eprintln!("the page's Performance entries could not be read: {e}");
            json!({})
        }
    }
}

