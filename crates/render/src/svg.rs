//! Recognising SVG, and drawing it into pixels. SVG can carry script and external references,
//! so this crate never inlines it into an HTML document: a viewer shows SVG only through
//! `<img src="artifact:…">`, where the browser runs no script and loads nothing external — or,
//! where a view may load no image at all (an AI host's CSP), as pixels ([`rasterize_svg`]).

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

use crate::{RenderError, Result};

/// The largest SVG document [`rasterize_svg`] reads.
pub const MAX_SVG_BYTES: usize = 8 * 1024 * 1024;
/// The longest side [`rasterize_svg`] draws a small drawing at (so an icon is not a smudge of
/// 16 pixels), unless asked for less.
const MIN_SVG_SIDE: u32 = 1024;
/// A raster image embedded in an SVG (a `data:` URL) with more pixels than this is left out
/// rather than decoded: a few kilobytes may declare gigabytes of pixels.
const MAX_EMBEDDED_PIXELS: u64 = 16 * 1024 * 1024;

/// How far into the bytes to look for the root element.
const SNIFF_LEN: usize = 4096;

/// True when `bytes` is an SVG document: after an optional BOM, whitespace, XML declaration,
/// comments, processing instructions and doctype, the root element is `<svg` (optionally with a
/// namespace prefix, e.g. `<svg:svg`).
pub fn is_svg(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_LEN)];
    let text = String::from_utf8_lossy(head);
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("<?") {
            let Some(end) = after.find("?>") else {
                return false;
            };
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix("<!--") {
            let Some(end) = after.find("-->") else {
                return false;
            };
            rest = &after[end + 3..];
        } else if rest
            .get(..9)
            .is_some_and(|start| start.eq_ignore_ascii_case("<!doctype"))
        {
            let Some(end) = doctype_end(&rest[9..]) else {
                return false;
            };
            rest = &rest[9 + end..];
        } else {
            return root_is_svg(rest);
        }
    }
}

/// Index just past the doctype's closing `>`, skipping an internal subset `[...]`.
fn doctype_end(doctype: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (index, c) in doctype.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '>' if depth == 0 => return Some(index + 1),
            _ => {}
        }
    }
    None
}

fn root_is_svg(rest: &str) -> bool {
    let Some(tag) = rest.strip_prefix('<') else {
        return false;
    };
    let name_end = tag
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(tag.len());
    let name = &tag[..name_end];
    let local = name.rsplit(':').next().unwrap_or(name);
    local == "svg" && name_end < tag.len()
}

/// Draws an SVG document into RGBA pixels, its longest side at most `max_side` (at least 1):
/// its own size, scaled down to fit, and a small drawing scaled up to 1024 pixels (or
/// `max_side`). Nothing outside the document is read — `<image>` elements may only embed
/// `data:` URLs (raster images of at most 16 megapixels, or SVG), never a file or a URL — and
/// text uses the system's fonts (found once per process; with none, text is left out). Refused: more than [`MAX_SVG_BYTES`], bytes that are not an SVG
/// document, one with no size.
pub fn rasterize_svg(bytes: &[u8], max_side: u32) -> Result<image::RgbaImage> {
    if bytes.len() > MAX_SVG_BYTES {
        return Err(RenderError::SvgTooLarge { bytes: bytes.len() as u64, max_bytes: MAX_SVG_BYTES as u64 });
    }
    let options = svg_options();
    let tree = usvg::Tree::from_data(bytes, &options).map_err(|e| RenderError::Svg(e.to_string()))?;
    let size = tree.size();
    let longest = size.width().max(size.height());
    if !longest.is_finite() || longest <= 0.0 {
        return Err(RenderError::Svg("the drawing has no size".to_owned()));
    }
    let max_side = max_side.max(1) as f32;
    let target = longest.max(MIN_SVG_SIDE as f32).min(max_side);
    let scale = target / longest;
    let width = ((size.width() * scale).round() as u32).clamp(1, max_side as u32);
    let height = ((size.height() * scale).round() as u32).clamp(1, max_side as u32);
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or_else(|| RenderError::Svg(format!("cannot draw {width} × {height} pixels")))?;
    resvg::render(&tree, tiny_skia::Transform::from_scale(width as f32 / size.width(), height as f32 / size.height()), &mut pixmap.as_mut());
    // tiny-skia keeps premultiplied alpha; an image wants it straight.
    let mut rgba = Vec::with_capacity(pixmap.data().len());
    for pixel in pixmap.pixels() {
        let c = pixel.demultiply();
        rgba.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
    }
    image::RgbaImage::from_raw(width, height, rgba).ok_or_else(|| RenderError::Svg("the drawing's pixels do not add up".to_owned()))
}

/// How SVG is read: the system's fonts (found once per process), no file or URL ever.
fn svg_options() -> usvg::Options<'static> {
    static FONTS: OnceLock<(Arc<usvg::fontdb::Database>, String)> = OnceLock::new();
    let (fontdb, sans) = FONTS.get_or_init(|| {
        let mut fonts = usvg::fontdb::Database::new();
        fonts.load_system_fonts();
        // The generic families default to Windows' fonts; name ones this system has.
        let present = |candidates: &[&str]| {
            candidates.iter().find(|name| fonts.faces().any(|face| face.families.iter().any(|(family, _)| family == *name))).map(|name| (*name).to_owned())
        };
        let serif = present(&["Times New Roman", "DejaVu Serif", "Liberation Serif", "Noto Serif", "Nimbus Roman"]);
        let sans = present(&["Arial", "Helvetica", "DejaVu Sans", "Liberation Sans", "Noto Sans", "Nimbus Sans"]);
        let mono = present(&["Courier New", "DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono", "Nimbus Mono PS"]);
        if let Some(serif) = &serif {
            fonts.set_serif_family(serif.as_str());
        }
        if let Some(sans) = &sans {
            fonts.set_sans_serif_family(sans.as_str());
        }
        if let Some(mono) = &mono {
            fonts.set_monospace_family(mono.as_str());
        }
        let default = sans.or(serif).unwrap_or_else(|| "sans-serif".to_owned());
        (Arc::new(fonts), default)
    });
    let data = usvg::ImageHrefResolver::default_data_resolver();
    let image_href_resolver = usvg::ImageHrefResolver {
        // An embedded raster image is decoded whole when drawn: its header is checked first.
        resolve_data: Box::new(move |mime, bytes, options| match data(mime, bytes.clone(), options)? {
            usvg::ImageKind::SVG(tree) => Some(usvg::ImageKind::SVG(tree)),
            raster => match crate::image_info(&bytes) {
                Ok(info) if u64::from(info.width) * u64::from(info.height) <= MAX_EMBEDDED_PIXELS => Some(raster),
                _ => None,
            },
        }),
        // A path or URL: never read.
        resolve_string: Box::new(|_, _| None),
    };
    usvg::Options { fontdb: fontdb.clone(), image_href_resolver, resources_dir: None, font_family: sans.clone(), ..usvg::Options::default() }
}
