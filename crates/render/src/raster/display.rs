//! PNGs for display: converts what a webview cannot show (TIFF, BMP, ICO) and makes thumbnails.

use std::io::Cursor;

use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder};

use super::info::open_decoder;
use super::{ImageFormat, Limits, decode_limited};
use crate::{RenderError, Result};

/// A PNG ready for `<img>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayPng {
    /// The PNG bytes.
    pub png: Vec<u8>,
    /// Width of the PNG.
    pub width: u32,
    /// Height of the PNG.
    pub height: u32,
    /// The format of the input.
    pub source_format: ImageFormat,
}

/// Turns any supported image into a PNG no wider than `max_width` (aspect ratio kept; never
/// enlarged). The default [`Limits`] apply, also to a PNG that needs no resizing (which then comes
/// back byte for byte); animations keep their first frame.
pub fn to_display_png(bytes: &[u8], max_width: Option<u32>) -> Result<DisplayPng> {
    let (source_format, decoder) = open_decoder(bytes)?;
    let (width, height) = decoder.dimensions();
    drop(decoder);
    let limits = Limits::default();
    // Refused even when the bytes could be passed through: the webview would decode them.
    super::decode::check_pixels(width, height, &limits)?;
    let target = target_size(width, height, max_width);
    if source_format == ImageFormat::Png && target == (width, height) {
        return Ok(DisplayPng {
            png: bytes.to_vec(),
            width,
            height,
            source_format,
        });
    }
    let mut image = decode_limited(bytes, limits)?;
    if target != (width, height) {
        image = image.resize_exact(target.0, target.1, FilterType::Triangle);
    }
    let image = png_compatible(image);
    let mut png = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(RenderError::ImageEncode)?;
    Ok(DisplayPng {
        png,
        width: image.width(),
        height: image.height(),
        source_format,
    })
}

fn target_size(width: u32, height: u32, max_width: Option<u32>) -> (u32, u32) {
    match max_width {
        Some(max) if max > 0 && width > max => {
            let scaled =
                (u64::from(height) * u64::from(max) + u64::from(width) / 2) / u64::from(width);
            (max, scaled.clamp(1, u64::from(u32::MAX)) as u32)
        }
        _ => (width, height),
    }
}

/// PNG stores 8/16-bit gray, gray+alpha, RGB and RGBA; anything else (float TIFFs) becomes RGBA8.
fn png_compatible(image: DynamicImage) -> DynamicImage {
    match image {
        DynamicImage::ImageLuma8(_)
        | DynamicImage::ImageLumaA8(_)
        | DynamicImage::ImageRgb8(_)
        | DynamicImage::ImageRgba8(_)
        | DynamicImage::ImageLuma16(_)
        | DynamicImage::ImageLumaA16(_)
        | DynamicImage::ImageRgb16(_)
        | DynamicImage::ImageRgba16(_) => image,
        other => DynamicImage::ImageRgba8(other.to_rgba8()),
    }
}
