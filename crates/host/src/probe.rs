//! Facts about a stored artifact for its summary line: image dimensions (read from the header
//! only, never decoding pixels). PDF page counts arrive with the render crate.

use std::path::Path;

#[derive(Debug, Default, PartialEq)]
pub(crate) struct ProbeFacts {
    pub pages: Option<u32>,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

pub(crate) fn probe(blob: &Path, mime: &str) -> ProbeFacts {
    if matches!(mime, "image/png" | "image/jpeg" | "image/gif" | "image/webp") {
        if let Ok((width, height)) = image::ImageReader::open(blob).and_then(|r| r.with_guessed_format()).map_err(image::ImageError::IoError).and_then(|r| r.into_dimensions()) {
            return ProbeFacts { width: Some(width), height: Some(height), ..Default::default() };
        }
    }
    ProbeFacts::default()
}
