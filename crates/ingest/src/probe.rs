//! Facts about a stored artifact for its summary line (pages, pixel size). The contract stays
//! I/O-free; the host asks probes after the bytes are stored. [`ImageHeaderProbe`] reads image
//! dimensions from the header only (never decoding pixels); [`PdfPageProbe`] counts PDF pages.

use std::path::Path;

/// What a probe learned; `None` fields are simply omitted from the summary.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProbeFacts {
    /// PDF page count.
    pub pages: Option<u32>,
    /// Pixel width.
    pub width: Option<u32>,
    /// Pixel height.
    pub height: Option<u32>,
}

/// Reads facts from a stored blob. Probes must be cheap and must never fail loudly: a blob they
/// cannot read gives empty facts.
pub trait ArtifactProbe: Send + Sync {
    /// Facts about the blob at `path`, whose MIME type is `mime`; `None` if this probe does not
    /// handle the type.
    fn probe(&self, path: &Path, mime: &str) -> Option<ProbeFacts>;
}

/// Dimensions of PNG, JPEG, GIF and WebP images from their headers.
pub struct ImageHeaderProbe;

impl ArtifactProbe for ImageHeaderProbe {
    fn probe(&self, path: &Path, mime: &str) -> Option<ProbeFacts> {
        if !matches!(mime, "image/png" | "image/jpeg" | "image/gif" | "image/webp") {
            return None;
        }
        let reader = image::ImageReader::open(path).and_then(|r| r.with_guessed_format()).ok()?;
        let (width, height) = reader.into_dimensions().ok()?;
        Some(ProbeFacts { width: Some(width), height: Some(height), ..Default::default() })
    }
}

/// PDF page counts through pdfium (`mcp-canvas-render`), bounded: only for a file whose trailer
/// points at its cross-reference section, read lazily from the file. Without the library, or for
/// a file that would need its table rebuilt, it answers nothing and the summary omits the count.
pub struct PdfPageProbe;

impl ArtifactProbe for PdfPageProbe {
    fn probe(&self, path: &Path, mime: &str) -> Option<ProbeFacts> {
        if mime != "application/pdf" {
            return None;
        }
        // On the path that acknowledges the call: bounded (a malformed file gets no count rather
        // than a scan of every byte; the viewer counts pages when the PDF is opened).
        let renderer = mcp_canvas_render::PdfRenderer::shared().ok()?;
        Some(ProbeFacts { pages: renderer.quick_page_count(path), ..Default::default() })
    }
}

/// The first probe that handles `mime` decides.
pub fn probe_all(probes: &[Box<dyn ArtifactProbe>], path: &Path, mime: &str) -> ProbeFacts {
    probes.iter().find_map(|p| p.probe(path, mime)).unwrap_or_default()
}
