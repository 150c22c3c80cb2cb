//! Image facts from the header alone.

use std::io::Cursor;

use image::{ImageDecoder, ImageReader};

use super::ImageFormat;
use crate::{RenderError, Result};

/// What the header of an image says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageInfo {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The format, recognised from the bytes.
    pub format: ImageFormat,
}

/// Reads format and dimensions from the header only; pixel data is neither decoded nor
/// allocated, so this is safe on any input size.
pub fn image_info(bytes: &[u8]) -> Result<ImageInfo> {
    let (format, decoder) = open_decoder(bytes)?;
    let (width, height) = decoder.dimensions();
    Ok(ImageInfo {
        width,
        height,
        format,
    })
}

/// A decoder positioned after the header, with no limits yet (the caller checks them).
pub(super) fn open_decoder(bytes: &[u8]) -> Result<(ImageFormat, impl ImageDecoder + '_)> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|error| RenderError::ImageDecode(image::ImageError::IoError(error)))?;
    let format = reader
        .format()
        .and_then(ImageFormat::from_image)
        .ok_or(RenderError::UnrecognizedImage)?;
    reader.no_limits();
    let decoder = reader.into_decoder().map_err(RenderError::ImageDecode)?;
    Ok((format, decoder))
}
