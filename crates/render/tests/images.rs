//! Images: header facts for every supported format, PNG conversion checked pixel by pixel,
//! thumbnails, SVG recognition, and errors that are errors (not panics).

use std::io::Cursor;

use image::{DynamicImage, ImageFormat as Codec, RgbImage, RgbaImage};
use mcp_canvas_render::{
    ImageFormat, Limits, RenderError, decode_limited, image_info, is_svg, to_display_png,
};

fn pattern(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([
            (x * 37 % 256) as u8,
            (y * 53 % 256) as u8,
            ((x + y) * 11 % 256) as u8,
        ])
    })
}

fn pattern_rgba(width: u32, height: u32) -> RgbaImage {
    RgbaImage::from_fn(width, height, |x, y| {
        image::Rgba([
            (x * 37 % 256) as u8,
            (y * 53 % 256) as u8,
            ((x + y) * 11 % 256) as u8,
            (x * 20 % 256) as u8,
        ])
    })
}

fn encode(image: &DynamicImage, codec: Codec) -> Vec<u8> {
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), codec).unwrap();
    bytes
}

fn decode_png(png: &[u8]) -> DynamicImage {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    image::load_from_memory_with_format(png, Codec::Png).unwrap()
}

#[test]
fn header_facts_for_every_format() {
    let rgb = DynamicImage::ImageRgb8(pattern(23, 17));
    let rgba = DynamicImage::ImageRgba8(pattern_rgba(23, 17));
    let cases = [
        (Codec::Png, &rgba, ImageFormat::Png, "image/png", true),
        (Codec::Jpeg, &rgb, ImageFormat::Jpeg, "image/jpeg", true),
        (Codec::Gif, &rgba, ImageFormat::Gif, "image/gif", true),
        (Codec::WebP, &rgba, ImageFormat::WebP, "image/webp", true),
        (Codec::Bmp, &rgb, ImageFormat::Bmp, "image/bmp", false),
        (Codec::Tiff, &rgb, ImageFormat::Tiff, "image/tiff", false),
        (Codec::Ico, &rgba, ImageFormat::Ico, "image/x-icon", false),
    ];
    for (codec, image, format, mime, shows) in cases {
        let bytes = encode(image, codec);
        let info = image_info(&bytes).unwrap_or_else(|error| panic!("{codec:?}: {error}"));
        assert_eq!(
            (info.width, info.height, info.format),
            (23, 17, format),
            "{codec:?}"
        );
        assert_eq!(format.mime(), mime);
        assert_eq!(format.webview_can_show(), shows, "{codec:?}");
        let decoded = decode_limited(&bytes, Limits::default()).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (23, 17), "{codec:?}");
    }
}

#[test]
fn tiff_and_bmp_become_pixel_exact_pngs() {
    let original = pattern(41, 29);
    for (codec, format) in [
        (Codec::Tiff, ImageFormat::Tiff),
        (Codec::Bmp, ImageFormat::Bmp),
    ] {
        let bytes = encode(&DynamicImage::ImageRgb8(original.clone()), codec);
        let display = to_display_png(&bytes, None).unwrap();
        assert_eq!((display.width, display.height), (41, 29));
        assert_eq!(display.source_format, format);
        let decoded = decode_png(&display.png).to_rgb8();
        assert_eq!(decoded.dimensions(), (41, 29));
        assert!(
            decoded.pixels().eq(original.pixels()),
            "{codec:?}: pixels differ after conversion"
        );
    }
}

#[test]
fn ico_with_alpha_becomes_a_pixel_exact_png() {
    let original = pattern_rgba(32, 32);
    let bytes = encode(&DynamicImage::ImageRgba8(original.clone()), Codec::Ico);
    let display = to_display_png(&bytes, None).unwrap();
    assert_eq!(display.source_format, ImageFormat::Ico);
    let decoded = decode_png(&display.png).to_rgba8();
    assert!(
        decoded.pixels().eq(original.pixels()),
        "ICO pixels differ after conversion"
    );
}

#[test]
fn thumbnails_keep_the_aspect_ratio_and_never_enlarge() {
    let wide = DynamicImage::ImageRgb8(pattern(400, 200));
    for codec in [Codec::Png, Codec::Jpeg, Codec::Tiff] {
        let bytes = encode(&wide, codec);
        let thumb = to_display_png(&bytes, Some(100)).unwrap();
        assert_eq!((thumb.width, thumb.height), (100, 50), "{codec:?}");
        let decoded = decode_png(&thumb.png);
        assert_eq!((decoded.width(), decoded.height()), (100, 50), "{codec:?}");
    }
    // A solid colour stays that colour when scaled down.
    let red = DynamicImage::ImageRgb8(RgbImage::from_pixel(300, 90, image::Rgb([200, 10, 10])));
    let thumb = decode_png(
        &to_display_png(&encode(&red, Codec::Bmp), Some(30))
            .unwrap()
            .png,
    )
    .to_rgb8();
    assert_eq!(thumb.dimensions(), (30, 9));
    assert!(thumb.pixels().all(|p| p.0 == [200, 10, 10]));
    // Odd ratios round; tiny results keep at least one pixel.
    let tall = encode(&DynamicImage::ImageRgb8(pattern(1000, 3)), Codec::Png);
    let thumb = to_display_png(&tall, Some(10)).unwrap();
    assert_eq!((thumb.width, thumb.height), (10, 1));
    // Wider than the image, or no limit: the PNG comes back byte for byte.
    let png = encode(&wide, Codec::Png);
    for max_width in [None, Some(400), Some(5000), Some(0)] {
        let same = to_display_png(&png, max_width).unwrap();
        assert_eq!(same.png, png, "{max_width:?}");
        assert_eq!((same.width, same.height), (400, 200));
    }
}

#[test]
fn bad_bytes_are_errors_not_panics() {
    let not_image = b"%PDF-1.7 this is a PDF, not an image";
    assert!(matches!(
        image_info(not_image),
        Err(RenderError::UnrecognizedImage)
    ));
    assert!(matches!(
        decode_limited(not_image, Limits::default()),
        Err(RenderError::UnrecognizedImage)
    ));
    assert!(matches!(
        to_display_png(b"", None),
        Err(RenderError::UnrecognizedImage)
    ));
    assert!(
        RenderError::UnrecognizedImage
            .to_string()
            .contains("PNG, JPEG, GIF, WebP, BMP, TIFF or ICO")
    );

    let image = DynamicImage::ImageRgb8(pattern(64, 64));
    for codec in [
        Codec::Png,
        Codec::Jpeg,
        Codec::Gif,
        Codec::WebP,
        Codec::Bmp,
        Codec::Tiff,
    ] {
        let bytes = encode(&image, codec);
        for cut in [8, 30, bytes.len() / 2, bytes.len() - 3] {
            let truncated = &bytes[..cut];
            // Any outcome but a panic; a decode of truncated data must not claim full success
            // with garbage dimensions.
            if let Ok(decoded) = decode_limited(truncated, Limits::default()) {
                assert_eq!(
                    (decoded.width(), decoded.height()),
                    (64, 64),
                    "{codec:?} cut at {cut}"
                );
            }
            let _ = to_display_png(truncated, Some(16));
            let _ = image_info(truncated);
        }
    }
    let mut garbage = b"\x89PNG\r\n\x1a\n".to_vec();
    garbage.extend((0..5000u32).map(|i| (i * 7919 % 251) as u8));
    assert!(decode_limited(&garbage, Limits::default()).is_err());
}

#[test]
fn svg_is_recognised_by_content() {
    let cases: &[(&[u8], bool)] = &[
        (b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>", true),
        (b"<svg>", true),
        (b"\xef\xbb\xbf  <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- by a tool -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg width=\"10\">", true),
        (b"<!DOCTYPE svg [ <!ENTITY a \"b\"> ]><svg>", true),
        (b"<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\">", true),
        (b"<?xml version=\"1.0\"?><svg\n  viewBox=\"0 0 1 1\">", true),
        (b"<html><body><svg></svg></body></html>", false),
        (b"<svgfoo>", false),
        (b"<SVG>", false),
        (b"<?xml version=\"1.0\"?><rss>", false),
        (b"<!-- unterminated comment <svg>", false),
        (b"\x89PNG\r\n\x1a\n", false),
        (b"", false),
        (b"svg", false),
        (b"<!doctype \xe2\x82\xac", false),
    ];
    for (bytes, expected) in cases {
        assert_eq!(
            is_svg(bytes),
            *expected,
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}
