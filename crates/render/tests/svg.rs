//! SVG drawn into pixels (`rasterize_svg`): the size it is drawn at, bounded; shapes and text
//! where they belong; nothing outside the document read; refusals that are errors.

#[path = "support/crafted.rs"]
mod crafted;

use std::io::Cursor;

use image::{ImageFormat as Codec, Rgba, RgbaImage};
use mcp_canvas_render::{MAX_SVG_BYTES, RenderError, rasterize_svg};

const MAX: u32 = 2048;

fn svg(width: u32, height: u32, body: &str) -> Vec<u8> {
    format!(r#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{width}" height="{height}" viewBox="0 0 {width} {height}">{body}</svg>"#).into_bytes()
}

fn png(image: &RgbaImage) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::new());
    image.write_to(&mut bytes, Codec::Png).unwrap();
    bytes.into_inner()
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

const RED: Rgba<u8> = Rgba([255, 0, 0, 255]);
const WHITE: Rgba<u8> = Rgba([255, 255, 255, 255]);

#[test]
fn shapes_are_drawn_where_they_are_at_a_bounded_size() {
    // A small drawing is drawn at 1024 on its longest side, in proportion.
    let small = svg(100, 50, r#"<rect width="100" height="50" fill="white"/><rect x="50" width="50" height="50" fill="red"/>"#);
    let image = rasterize_svg(&small, MAX).unwrap();
    assert_eq!(image.dimensions(), (1024, 512));
    assert_eq!(*image.get_pixel(100, 256), WHITE);
    assert_eq!(*image.get_pixel(900, 256), RED);
    // A large one is scaled down to the bound; a smaller bound is kept too.
    let large = svg(10_000, 5_000, r#"<rect x="5000" width="5000" height="5000" fill="red"/>"#);
    let image = rasterize_svg(&large, MAX).unwrap();
    assert_eq!(image.dimensions(), (2048, 1024));
    assert_eq!(*image.get_pixel(2000, 500), RED);
    assert_eq!(image.get_pixel(10, 500)[3], 0, "what is not drawn stays transparent");
    assert_eq!(rasterize_svg(&small, 64).unwrap().dimensions(), (64, 32));
    // A drawing at its size between the two stays at it.
    assert_eq!(rasterize_svg(&svg(1500, 300, ""), MAX).unwrap().dimensions(), (1500, 300));
}

#[test]
fn text_is_drawn_with_the_systems_fonts() {
    let text = svg(200, 60, r#"<rect width="200" height="60" fill="white"/><text x="10" y="45" font-family="sans-serif" font-size="40" fill="black">Chart</text>"#);
    let image = rasterize_svg(&text, MAX).unwrap();
    let dark = image.pixels().filter(|p| p[0] < 100 && p[3] == 255).count();
    assert!(dark > 1000, "the text's strokes are drawn ({dark} dark pixels)");
}

#[test]
fn an_image_is_drawn_only_from_the_document_never_from_a_file() {
    let red = png(&RgbaImage::from_pixel(4, 4, RED));
    // The same PNG on disk, named by a path and by a file URL: neither is read.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("red.png");
    std::fs::write(&path, &red).unwrap();
    for href in [path.display().to_string(), format!("file://{}", path.display()), "red.png".to_owned()] {
        let document = svg(10, 10, &format!(r#"<rect width="10" height="10" fill="white"/><image href="{href}" width="10" height="10"/>"#));
        let image = rasterize_svg(&document, 10).unwrap();
        assert_eq!(*image.get_pixel(5, 5), WHITE, "{href} was read");
    }
    // Embedded as a data: URL, it is drawn.
    let embedded = svg(10, 10, &format!(r#"<rect width="10" height="10" fill="white"/><image href="data:image/png;base64,{}" width="10" height="10"/>"#, base64(&red)));
    assert_eq!(*rasterize_svg(&embedded, 10).unwrap().get_pixel(5, 5), RED);
    // An embedded image claiming 100000 × 100000 pixels is left out, never decoded.
    let bomb = svg(10, 10, &format!(r#"<rect width="10" height="10" fill="white"/><image href="data:image/png;base64,{}" width="10" height="10"/>"#, base64(&crafted::png_claiming(100_000, 100_000))));
    assert_eq!(*rasterize_svg(&bomb, 10).unwrap().get_pixel(5, 5), WHITE);
}

#[test]
fn a_script_in_the_drawing_is_never_run_and_the_rest_is_drawn() {
    let document = br#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" onload="parent.postMessage('pwned','*')"><script>parent.postMessage('pwned','*')</script><rect width="40" height="40" fill="red"/></svg>"#;
    let image = rasterize_svg(document, 40).unwrap();
    assert_eq!(image.dimensions(), (40, 40));
    assert!(image.pixels().all(|p| *p == RED));
}

#[test]
fn what_cannot_be_drawn_is_an_error() {
    let huge = vec![b' '; MAX_SVG_BYTES + 1];
    assert!(matches!(rasterize_svg(&huge, MAX), Err(RenderError::SvgTooLarge { .. })));
    for bytes in [&b"not an svg"[..], b"<svg xmlns=\"http://www.w3.org/2000/svg\"", b"\xff\xfe<svg/>"] {
        let error = rasterize_svg(bytes, MAX).unwrap_err();
        assert!(matches!(error, RenderError::Svg(_)), "{error}");
        assert!(error.to_string().starts_with("could not draw the SVG"), "{error}");
    }
}
