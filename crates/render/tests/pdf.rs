//! PDF through the real libpdfium: page count, title, sizes, renders checked by pixel statistics,
//! errors for bad input, the cache, concurrent use.
//!
//! These tests FAIL when libpdfium cannot be loaded (run `scripts/setup.sh`, or set
//! `MCP_CANVAS_PDFIUM`). Set `MCP_CANVAS_ALLOW_NO_PDFIUM=1` to skip them instead on a machine
//! that deliberately has no PDFium.

#[path = "support/pdf.rs"]
mod pdf;

use image::RgbImage;
use mcp_canvas_render::{PdfRenderer, PdfRendererConfig, RenderError};

fn renderer_with(config: PdfRendererConfig) -> Option<PdfRenderer> {
    match PdfRenderer::with_config(config) {
        Ok(renderer) => Some(renderer),
        Err(error @ RenderError::PdfiumUnavailable { .. })
            if std::env::var("MCP_CANVAS_ALLOW_NO_PDFIUM").as_deref() == Ok("1") =>
        {
            eprintln!("skipped (MCP_CANVAS_ALLOW_NO_PDFIUM=1): {error}");
            None
        }
        Err(error) => panic!(
            "{error}\n(set MCP_CANVAS_ALLOW_NO_PDFIUM=1 to skip the PDF tests on a machine without libpdfium)"
        ),
    }
}

fn renderer() -> Option<PdfRenderer> {
    renderer_with(PdfRendererConfig::default())
}

fn decode(png: &[u8]) -> RgbImage {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "render is not a PNG");
    image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .expect("render decodes")
        .to_rgb8()
}

/// Mean luminance (0 black – 255 white) and the share of near-white pixels in a rectangle.
fn stats(image: &RgbImage, x: std::ops::Range<u32>, y: std::ops::Range<u32>) -> (f64, f64) {
    let (mut sum, mut white, mut count) = (0f64, 0usize, 0usize);
    for py in y {
        for px in x.clone() {
            let [r, g, b] = image.get_pixel(px, py).0;
            let luma = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
            sum += luma;
            white += usize::from(r > 245 && g > 245 && b > 245);
            count += 1;
        }
    }
    (sum / count as f64, white as f64 / count as f64)
}

#[test]
fn page_count_title_and_sizes() {
    let Some(renderer) = renderer() else { return };
    let info = renderer.page_count_and_title(&pdf::sample()).unwrap();
    assert_eq!(info.page_count, 3);
    assert_eq!(info.title.as_deref(), Some(pdf::SAMPLE_TITLE));
    let sizes: Vec<(f32, f32)> = info
        .page_sizes
        .iter()
        .map(|size| (size.width, size.height))
        .collect();
    assert_eq!(sizes, vec![(200.0, 300.0), (200.0, 300.0), (300.0, 200.0)]);

    let untitled = pdf::build(
        None,
        &[pdf::Page {
            width: 100.0,
            height: 100.0,
            content: String::new(),
        }],
    );
    let info = renderer.page_count_and_title(&untitled).unwrap();
    assert_eq!((info.page_count, info.title), (1, None));
}

#[test]
fn first_page_at_300px_has_white_background_and_dark_shapes_where_drawn() {
    let Some(renderer) = renderer() else { return };
    let image = decode(&renderer.render_page(&pdf::sample(), 0, 300).unwrap());
    // 200 × 300 pt at 300 px wide: scale 1.5.
    assert_eq!(image.dimensions(), (300, 450));
    // Square at 20–100 pt from the left and the top → 30–150 px; sample inside its edges.
    let (square, _) = stats(&image, 40..140, 40..140);
    assert!(
        square < 10.0,
        "square should be black, mean luminance {square}"
    );
    // Right of the square, above the text: nothing drawn.
    let (blank, blank_white) = stats(&image, 170..295, 5..340);
    assert!(
        blank > 250.0 && blank_white > 0.99,
        "background should be white: {blank}, {blank_white}"
    );
    // "Page 1", 24 pt Helvetica with its baseline 40 pt from the bottom: ink in that band.
    let (_, text_white) = stats(&image, 25..160, 350..395);
    assert!(
        text_white < 0.95 && text_white > 0.4,
        "text band should hold some ink: {text_white} white"
    );
    // The whole page: mostly white.
    let (_, page_white) = stats(&image, 0..300, 0..450);
    assert!(
        page_white > 0.8,
        "page should be mostly white: {page_white}"
    );
}

#[test]
fn any_page_renders_its_own_content() {
    let Some(renderer) = renderer() else { return };
    let bytes = pdf::sample();
    let second = decode(&renderer.render_page(&bytes, 1, 300).unwrap());
    assert_eq!(second.dimensions(), (300, 450));
    // Page 2's square is bottom-right: 100–180 pt from the left, 200–280 pt from the top.
    let (square, _) = stats(&second, 160..260, 310..410);
    assert!(square < 10.0, "page 2 square: {square}");
    // Below its "Page 2" heading, where page 1 has its square: nothing.
    let (top_left, _) = stats(&second, 30..150, 90..150);
    assert!(
        top_left > 250.0,
        "page 2 has nothing where page 1 has its square: {top_left}"
    );

    let third = decode(&renderer.render_page(&bytes, 2, 600).unwrap());
    assert_eq!(third.dimensions(), (600, 400));
    let [r, g, b] = third.get_pixel(300, 200).0;
    assert!(
        b > 200 && r < 60 && g < 60,
        "page 3 is blue in the middle: {r},{g},{b}"
    );
    let [r, g, b] = third.get_pixel(3, 3).0;
    assert!(
        r > 245 && g > 245 && b > 245,
        "page 3 margin is white: {r},{g},{b}"
    );
}

#[test]
#[ignore = "writes target/pdf-render-preview/*.png to look at"]
fn write_previews() {
    let Some(renderer) = renderer() else { return };
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pdf-render-preview");
    std::fs::create_dir_all(&dir).unwrap();
    for page in 0..3 {
        let png = renderer.render_page(&pdf::sample(), page, 300).unwrap();
        std::fs::write(dir.join(format!("sample-{page}.png")), png).unwrap();
    }
    let png = renderer.render_page(&pdf::report(2), 0, 1275).unwrap();
    std::fs::write(dir.join("report-0.png"), png).unwrap();
}

#[test]
fn widths_are_honoured_and_bounded() {
    let Some(renderer) = renderer() else { return };
    let bytes = pdf::sample();
    for width in [1, 37, 1000] {
        let image = decode(&renderer.render_page(&bytes, 0, width).unwrap());
        assert_eq!(image.width(), width);
        assert!(
            image.height().abs_diff(width * 3 / 2) <= 1,
            "{width}: {}",
            image.height()
        );
    }
    for width in [0, 4001, u32::MAX] {
        let error = renderer.render_page(&bytes, 0, width).unwrap_err();
        assert!(
            matches!(error, RenderError::InvalidRenderWidth { max: 4000, .. }),
            "{error}"
        );
    }
}

#[test]
fn page_out_of_range_is_an_error() {
    let Some(renderer) = renderer() else { return };
    let error = renderer.render_page(&pdf::sample(), 3, 100).unwrap_err();
    assert!(
        matches!(
            error,
            RenderError::PdfPageOutOfRange {
                index: 3,
                page_count: 3
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("has 3 page"), "{error}");
}

#[test]
fn damaged_input_is_a_clear_error_not_a_panic() {
    let Some(renderer) = renderer() else { return };
    let bytes = pdf::sample();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("not a PDF", b"GIF89a this is not a PDF at all".to_vec()),
        ("header only", bytes[..16].to_vec()),
        ("truncated to a third", bytes[..bytes.len() / 3].to_vec()),
        (
            "garbage after the header",
            [b"%PDF-1.7\n".as_slice(), &[0xA5; 2000]].concat(),
        ),
    ];
    for (name, case) in cases {
        let error = renderer.render_page(&case, 0, 100).expect_err(name);
        assert!(
            matches!(error, RenderError::PdfOpen { .. }),
            "{name}: {error}"
        );
        assert!(
            error.to_string().starts_with("could not open the PDF: "),
            "{name}: {error}"
        );
        let error = renderer.page_count_and_title(&case).expect_err(name);
        assert!(
            matches!(error, RenderError::PdfOpen { .. }),
            "{name}: {error}"
        );
    }
}

#[test]
fn files_are_read_from_disk() {
    let Some(renderer) = renderer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.pdf");
    std::fs::write(&path, pdf::sample()).unwrap();
    assert_eq!(renderer.page_count_and_title(&path).unwrap().page_count, 3);
    let from_file = renderer.render_page(&path, 0, 120).unwrap();
    assert_eq!(
        from_file,
        renderer.render_page(&pdf::sample(), 0, 120).unwrap()
    );
    let missing = dir.path().join("missing.pdf");
    let error = renderer.render_page(&missing, 0, 120).unwrap_err();
    assert!(matches!(error, RenderError::Io { .. }), "{error}");
    assert!(error.to_string().contains("missing.pdf"), "{error}");
}

#[test]
fn renders_are_cached_by_content_page_and_width() {
    let Some(renderer) = renderer() else { return };
    let bytes = pdf::sample();
    let first = renderer.render_page(&bytes, 0, 200).unwrap();
    let stats = renderer.cache_stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (0, 1, 1));
    assert_eq!(renderer.render_page(&bytes.clone(), 0, 200).unwrap(), first);
    assert_eq!(renderer.cache_stats().hits, 1);
    renderer.render_page(&bytes, 0, 201).unwrap();
    renderer.render_page(&bytes, 1, 200).unwrap();
    let stats = renderer.cache_stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (1, 3, 3));
    assert!(stats.bytes > 0);

    // Least recently used goes first.
    let small = renderer_with(PdfRendererConfig {
        cache_entries: 2,
        ..Default::default()
    })
    .unwrap();
    small.render_page(&bytes, 0, 50).unwrap();
    small.render_page(&bytes, 1, 50).unwrap();
    small.render_page(&bytes, 0, 50).unwrap(); // hit, now most recent
    small.render_page(&bytes, 2, 50).unwrap(); // evicts page 1
    small.render_page(&bytes, 0, 50).unwrap(); // still there
    small.render_page(&bytes, 1, 50).unwrap(); // gone: a miss
    let stats = small.cache_stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (2, 4, 2));

    let off = renderer_with(PdfRendererConfig {
        cache_entries: 0,
        ..Default::default()
    })
    .unwrap();
    off.render_page(&bytes, 0, 50).unwrap();
    off.render_page(&bytes, 0, 50).unwrap();
    assert_eq!(off.cache_stats().entries, 0);
}

#[test]
fn concurrent_renders_are_serialized_and_correct() {
    let Some(renderer) = renderer_with(PdfRendererConfig {
        cache_entries: 0,
        ..Default::default()
    }) else {
        return;
    };
    let bytes = pdf::sample();
    let expected: Vec<Vec<u8>> = (0..3)
        .map(|page| renderer.render_page(&bytes, page, 150).unwrap())
        .collect();
    std::thread::scope(|scope| {
        for thread in 0..6u32 {
            let (renderer, bytes, expected) = (&renderer, &bytes, &expected);
            scope.spawn(move || {
                for round in 0..5u32 {
                    let page = (thread + round) % 3;
                    assert_eq!(
                        renderer.render_page(bytes, page, 150).unwrap(),
                        expected[page as usize]
                    );
                    assert_eq!(renderer.page_count_and_title(bytes).unwrap().page_count, 3);
                }
            });
        }
    });
}

/// A reader PDFium reads as it needs (a teammate's file by HTTP ranges) gives the same facts and
/// pixels as the bytes given whole, reads only part of a file padded with a large unused object,
/// and a damaged one is an error, not a panic.
#[test]
fn a_document_read_through_a_reader_renders_as_its_bytes_do() {
    use std::io::{Cursor, Read, Seek, SeekFrom};
    use std::sync::{Arc, atomic::{AtomicU64, Ordering}};
    struct Counting(Cursor<Vec<u8>>, Arc<AtomicU64>);
    impl Read for Counting {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.read(buf)?;
            self.1.fetch_add(n as u64, Ordering::Relaxed);
            Ok(n)
        }
    }
    impl Seek for Counting {
        fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
            self.0.seek(to)
        }
    }
    let Some(renderer) = renderer() else { return };
    let bytes = pdf::sample();
    let info = renderer.info_from_reader(Cursor::new(bytes.clone())).unwrap();
    assert_eq!((info.page_count, info.title.as_deref()), (3, Some(pdf::SAMPLE_TITLE)));
    let whole = renderer.render_page(&bytes, 2, 300).unwrap();
    let read = Arc::new(AtomicU64::new(0));
    let by_reader = renderer.render_page_from_reader(Counting(Cursor::new(bytes.clone()), read.clone()), "sample", 2, 300).unwrap();
    assert_eq!(decode(&by_reader), decode(&whole));

    // The same document with 8 MB of an object no page uses before its cross-reference table.
    let xref = bytes.windows(6).position(|w| w == b"\nxref\n").expect("the sample has an xref table") + 1;
    let mut filler = format!("999 0 obj\n<< /Length {} >>\nstream\n", 8 << 20).into_bytes();
    filler.extend(std::iter::repeat_n(b'x', 8 << 20));
    filler.extend_from_slice(b"\nendstream\nendobj\n");
    // The objects before the table keep their offsets; startxref moves by the filler's length.
    let tail = String::from_utf8(bytes[xref..].to_vec()).expect("the table and trailer are text");
    let (table, after) = tail.split_once("startxref\n").unwrap();
    let old: usize = after.lines().next().unwrap().trim().parse().unwrap();
    let mut padded = bytes[..xref].to_vec();
    padded.extend_from_slice(&filler);
    padded.extend_from_slice(format!("{table}startxref\n{}\n%%EOF\n", old + filler.len()).as_bytes());
    let read = Arc::new(AtomicU64::new(0));
    let page = renderer.render_page_from_reader(Counting(Cursor::new(padded.clone()), read.clone()), "padded", 0, 200).unwrap();
    assert_eq!(decode(&page), decode(&renderer.render_page(&bytes, 0, 200).unwrap()));
    assert!(read.load(Ordering::Relaxed) < (padded.len() / 4) as u64, "{} of {}", read.load(Ordering::Relaxed), padded.len());

    let damaged = renderer.render_page_from_reader(Cursor::new(b"%PDF-1.4\nnot a pdf".to_vec()), "damaged", 0, 200);
    assert!(matches!(damaged, Err(RenderError::PdfOpen { .. })), "{damaged:?}");
}
