//! First page of a 10-page PDF at 150 dpi: our renderer (PDFium, PNG out) against poppler's
//! `pdftoppm -r 150 -f 1 -l 1 -png` on the same file in the same run. Prints numbers, asserts
//! nothing. `cargo bench -p mcp-canvas-render --bench pdf_first_page`
//!
//! Ours is timed in-process with the cache off (every render calls PDFium and encodes a PNG);
//! pdftoppm is timed as a whole process (spawn, load, render, write the file), which is what
//! replacing it would save. Needs libpdfium (see the crate docs); pdftoppm is optional
//! (`apt-get install -y poppler-utils`).

#[path = "../tests/support/pdf.rs"]
mod pdf;

use std::process::Command;
use std::time::{Duration, Instant};

use mcp_canvas_render::{PdfRenderer, PdfRendererConfig};

const RUNS: usize = 15;
const DPI: f32 = 150.0;

struct Summary {
    median: Duration,
    min: Duration,
    max: Duration,
}

fn summarize(mut times: Vec<Duration>) -> Summary {
    times.sort();
    Summary {
        median: times[times.len() / 2],
        min: times[0],
        max: times[times.len() - 1],
    }
}

fn ms(duration: Duration) -> String {
    format!("{:8.2} ms", duration.as_secs_f64() * 1000.0)
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("report.pdf");
    let bytes = pdf::report(10);
    std::fs::write(&path, &bytes).expect("write PDF");

    let started = Instant::now();
    let renderer = match PdfRenderer::with_config(PdfRendererConfig {
        cache_entries: 0,
        ..Default::default()
    }) {
        Ok(renderer) => renderer,
        Err(error) => {
            println!("pdf_first_page: cannot run: {error}");
            return;
        }
    };
    let bind = started.elapsed();
    let info = renderer.page_count_and_title(&path).expect("PDF opens");
    let size = info.page_sizes[0];
    let width_px = (size.width / 72.0 * DPI).round() as u32;
    println!(
        "pdf_first_page: {} pages, {} bytes, page 1 is {} × {} pt → {width_px} px wide at {DPI} dpi; library {}",
        info.page_count,
        bytes.len(),
        size.width,
        size.height,
        renderer.library_path().display()
    );
    println!("  bind libpdfium (first use in the process): {}", ms(bind));

    for _ in 0..2 {
        renderer.render_page(&path, 0, width_px).expect("render");
    }
    let mut ours = Vec::with_capacity(RUNS);
    let mut png_len = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        let png = renderer.render_page(&path, 0, width_px).expect("render");
        ours.push(started.elapsed());
        png_len = png.len();
    }
    let first =
        image::load_from_memory(&renderer.render_page(&path, 0, width_px).unwrap()).unwrap();
    let ours = summarize(ours);
    println!(
        "  ours (read file + PDFium render + PNG encode, cache off), {RUNS} runs: median {} min {} max {}  → {}×{} PNG, {png_len} bytes",
        ms(ours.median),
        ms(ours.min),
        ms(ours.max),
        first.width(),
        first.height()
    );

    let cached = PdfRenderer::new().expect("renderer");
    cached.render_page(&path, 0, width_px).unwrap();
    let started = Instant::now();
    cached.render_page(&path, 0, width_px).unwrap();
    println!(
        "  ours, cache hit (read file + sha256 + copy):  {}",
        ms(started.elapsed())
    );

    let available = Command::new("pdftoppm").arg("-v").output().is_ok();
    if !available {
        println!(
            "  pdftoppm: not installed (apt-get install -y poppler-utils); only our numbers above"
        );
        return;
    }
    let mut theirs = Vec::with_capacity(RUNS);
    let out_dir = dir.path().join("pdftoppm");
    std::fs::create_dir_all(&out_dir).unwrap();
    let prefix = out_dir.join("page");
    let mut produced = None;
    for run in 0..RUNS + 2 {
        for entry in std::fs::read_dir(&out_dir).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
        let started = Instant::now();
        let status = Command::new("pdftoppm")
            .args(["-r", "150", "-f", "1", "-l", "1", "-png"])
            .arg(&path)
            .arg(&prefix)
            .status()
            .expect("pdftoppm runs");
        let elapsed = started.elapsed();
        assert!(status.success(), "pdftoppm failed");
        if run >= 2 {
            theirs.push(elapsed);
        }
        produced = std::fs::read_dir(&out_dir)
            .unwrap()
            .next()
            .map(|entry| entry.unwrap().path());
    }
    let produced = produced.expect("pdftoppm wrote a PNG");
    let their_png = std::fs::read(&produced).unwrap();
    let their_image = image::load_from_memory(&their_png).unwrap();
    let theirs = summarize(theirs);
    println!(
        "  pdftoppm -r 150 -f 1 -l 1 -png (whole process), {RUNS} runs: median {} min {} max {}  → {}×{} PNG, {} bytes",
        ms(theirs.median),
        ms(theirs.min),
        ms(theirs.max),
        their_image.width(),
        their_image.height(),
        their_png.len()
    );
    println!(
        "  ratio (pdftoppm median / ours median): {:.2}×",
        theirs.median.as_secs_f64() / ours.median.as_secs_f64()
    );
}
