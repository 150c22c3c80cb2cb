//! The one error type of the crate. Every message says what happened in words a user can act on.

use std::path::PathBuf;

/// Everything that can go wrong while turning bytes into something displayable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The bytes are not an image in a format this crate reads
    /// (PNG, JPEG, GIF, WebP, BMP, TIFF, ICO).
    #[error("not an image in a supported format (PNG, JPEG, GIF, WebP, BMP, TIFF or ICO)")]
    UnrecognizedImage,

    /// The image header declares more pixels than allowed; refused before decoding.
    #[error(
        "image is {width} × {height} pixels ({pixels} in all), over the limit of {max_pixels}; \
         refused before decoding"
    )]
    ImageTooLarge {
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
        /// `width × height`.
        pixels: u64,
        /// The configured limit.
        max_pixels: u64,
    },

    /// Decoding the image would need more memory than allowed; refused before decoding.
    #[error(
        "decoding the image would need {bytes} bytes, over the limit of {max_bytes}; \
         refused before decoding"
    )]
    ImageAllocationTooLarge {
        /// Bytes the decoded image needs.
        bytes: u64,
        /// The configured limit.
        max_bytes: u64,
    },

    /// The image header was readable but the image data is damaged or unsupported.
    #[error("could not decode the image: {0}")]
    ImageDecode(#[source] image::ImageError),

    /// Encoding the display PNG failed.
    #[error("could not encode the PNG: {0}")]
    ImageEncode(#[source] image::ImageError),

    /// An SVG document too large to draw; refused before it is read.
    #[error("the SVG document is {bytes} bytes, over the limit of {max_bytes} for drawing it")]
    SvgTooLarge {
        /// Its size.
        bytes: u64,
        /// The limit.
        max_bytes: u64,
    },

    /// The bytes are not an SVG document that can be drawn.
    #[error("could not draw the SVG: {0}")]
    Svg(String),

    /// libpdfium could not be loaded from any of the places searched.
    #[error(
        "PDF preview is unavailable: libpdfium could not be loaded (searched: {}). {hint}",
        display_paths(searched)
    )]
    PdfiumUnavailable {
        /// Every path that was tried, in order.
        searched: Vec<PathBuf>,
        /// How to fix it, plus why a library that exists failed to load.
        hint: String,
    },

    /// PDFium could not open the document.
    #[error("could not open the PDF: {reason}")]
    PdfOpen {
        /// Why, in words ("the file is damaged or not a PDF", "it is password-protected", …).
        reason: String,
    },

    /// The requested page does not exist.
    #[error("page {index} does not exist: the PDF has {page_count} page(s) (pages count from 0)")]
    PdfPageOutOfRange {
        /// The zero-based index asked for.
        index: u32,
        /// Pages in the document.
        page_count: u32,
    },

    /// The requested render width is 0 or too large.
    #[error("render width must be between 1 and {max} pixels, got {width}")]
    InvalidRenderWidth {
        /// What was asked for.
        width: u32,
        /// The largest width allowed.
        max: u32,
    },

    /// PDFium failed while rendering a page that it could open.
    #[error("could not render page {index} of the PDF: {reason}")]
    PdfRender {
        /// The zero-based page index.
        index: u32,
        /// Why.
        reason: String,
    },

    /// Reading a file failed.
    #[error("could not read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

fn display_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "nowhere".to_owned();
    }
    paths
        .iter()
        .map(|path| path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
