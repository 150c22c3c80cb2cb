//! Raster images: header facts, decoding under limits, and PNGs the webview can always show.

mod decode;
mod display;
mod format;
mod info;

pub use decode::{Limits, decode_limited};
pub use display::{DisplayPng, to_display_png};
pub use format::ImageFormat;
pub use info::{ImageInfo, image_info};
