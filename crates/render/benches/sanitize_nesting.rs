//! Sanitizing HTML nested 50,000 levels deep (shown as text instead of parsed) against a flat
//! page of the same size, in the same run. Prints medians, asserts nothing.
//! `cargo bench -p mcp-canvas-render --bench sanitize_nesting`

use std::time::{Duration, Instant};

use mcp_canvas_render::{sanitize_html, HtmlOptions};

const RUNS: usize = 7;

fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn main() {
    let n = 50_000;
    let deep = "<div>".repeat(n) + "<img src=x onerror=alert(1)>" + &"</div>".repeat(n);
    // The same bytes, flat: siblings instead of nesting.
    let flat = "<div></div>".repeat(n) + "<img src=x onerror=alert(1)>";
    let options = HtmlOptions::default();
    let deep_time = median(|| {
        std::hint::black_box(sanitize_html(&deep, &options));
    });
    let flat_time = median(|| {
        std::hint::black_box(sanitize_html(&flat, &options));
    });
    println!("sanitize {} KB, median of {RUNS}:", deep.len() / 1024);
    println!("  nested {n} deep (shown as text): {:8.2} ms", deep_time.as_secs_f64() * 1000.0);
    println!("  flat, same size (baseline):      {:8.2} ms", flat_time.as_secs_f64() * 1000.0);
    println!("  ratio: {:.2}x", deep_time.as_secs_f64() / flat_time.as_secs_f64());
}
