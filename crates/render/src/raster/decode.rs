//! Decoding with limits checked against the header first, so an image "bomb" (a tiny file that
//! declares a gigantic canvas) is refused before any pixel buffer is allocated.

use image::{DynamicImage, ImageDecoder};

use super::info::open_decoder;
use crate::{RenderError, Result};

/// Limits for [`decode_limited`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest `width × height` accepted. Default: 100 megapixels.
    pub max_pixels: u64,
    /// Largest decoded buffer, and largest total the decoder may allocate, in bytes.
    /// Default: 512 MiB.
    pub max_alloc: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_pixels: 100_000_000,
            max_alloc: 512 * 1024 * 1024,
        }
    }
}

/// Decodes `bytes` (the first frame of an animation) after checking `limits` against the
/// header: [`RenderError::ImageTooLarge`] or [`RenderError::ImageAllocationTooLarge`] come
/// back before any pixel memory is allocated.
pub fn decode_limited(bytes: &[u8], limits: Limits) -> Result<DynamicImage> {
    let (_, mut decoder) = open_decoder(bytes)?;
    let (width, height) = decoder.dimensions();
    check_pixels(width, height, &limits)?;
    let needed = decoder.total_bytes();
    if needed > limits.max_alloc {
        return Err(RenderError::ImageAllocationTooLarge {
            bytes: needed,
            max_bytes: limits.max_alloc,
        });
    }
    let mut decoder_limits = image::Limits::default();
    decoder_limits.max_alloc = Some(limits.max_alloc);
    decoder
        .set_limits(decoder_limits)
        .map_err(RenderError::ImageDecode)?;
    DynamicImage::from_decoder(decoder).map_err(RenderError::ImageDecode)
}

/// Refuses images with more pixels than `limits` allow, before anything is allocated.
pub(crate) fn check_pixels(width: u32, height: u32, limits: &Limits) -> Result<()> {
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_pixels {
        return Err(RenderError::ImageTooLarge { width, height, pixels, max_pixels: limits.max_pixels });
    }
    Ok(())
}
