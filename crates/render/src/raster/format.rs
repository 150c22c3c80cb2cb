//! The image formats this crate reads, independent of the `image` crate's own enum.

/// A raster format recognised from the bytes (never from a name or a declared MIME type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ImageFormat {
    /// PNG (including APNG).
    Png,
    /// JPEG.
    Jpeg,
    /// GIF.
    Gif,
    /// WebP.
    WebP,
    /// Windows bitmap.
    Bmp,
    /// TIFF.
    Tiff,
    /// Windows icon.
    Ico,
}

impl ImageFormat {
    /// The MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::WebP => "image/webp",
            ImageFormat::Bmp => "image/bmp",
            ImageFormat::Tiff => "image/tiff",
            ImageFormat::Ico => "image/x-icon",
        }
    }

    /// Whether every webview MCP Canvas runs in shows this format in `<img>` as it is. TIFF, BMP
    /// and ICO are not dependable (WebKitGTK shows no TIFF), so they go through
    /// [`to_display_png`](crate::to_display_png).
    pub fn webview_can_show(self) -> bool {
        matches!(
            self,
            ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP
        )
    }

    pub(crate) fn from_image(format: image::ImageFormat) -> Option<Self> {
        Some(match format {
            image::ImageFormat::Png => ImageFormat::Png,
            image::ImageFormat::Jpeg => ImageFormat::Jpeg,
            image::ImageFormat::Gif => ImageFormat::Gif,
            image::ImageFormat::WebP => ImageFormat::WebP,
            image::ImageFormat::Bmp => ImageFormat::Bmp,
            image::ImageFormat::Tiff => ImageFormat::Tiff,
            image::ImageFormat::Ico => ImageFormat::Ico,
            _ => return None,
        })
    }
}
