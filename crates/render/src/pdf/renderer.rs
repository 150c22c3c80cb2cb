//! [`PdfRenderer`]: document facts and page renders, serialized through the one PDFium binding.

use std::io::{Cursor, Read, Seek};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{DynamicImage, ImageEncoder};
use pdfium_render::prelude::{PdfDocument, PdfDocumentMetadataTagType, PdfRenderConfig, Pdfium};
use sha2::{Digest, Sha256};

use super::cache::{CacheStats, RenderCache};
use super::errors::open_reason;
use super::library::{Library, library};
use super::source::PdfSource;
use crate::{RenderError, Result};

/// Widest page render accepted, in pixels.
pub const MAX_RENDER_WIDTH: u32 = 4000;
/// Tallest page render produced, in pixels; a very tall page is rendered narrower to fit.
pub const MAX_RENDER_HEIGHT: u32 = 16000;

/// How a [`PdfRenderer`] is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfRendererConfig {
    /// Load libpdfium from exactly this file instead of searching
    /// ([`pdfium_search_paths`](crate::pdfium_search_paths)). Ignored when the process has
    /// already bound PDFium: there is one binding per process.
    pub library: Option<PathBuf>,
    /// Rendered pages kept in memory (0 turns the cache off). Default 32.
    pub cache_entries: usize,
    /// PNG bytes kept in memory at most. Default 64 MiB.
    pub cache_bytes: usize,
}

impl Default for PdfRendererConfig {
    fn default() -> Self {
        PdfRendererConfig {
            library: None,
            cache_entries: 32,
            cache_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Facts about a document.
#[derive(Debug, Clone, PartialEq)]
pub struct PdfInfo {
    /// Number of pages.
    pub page_count: u32,
    /// The document's `/Title`, if set and not blank.
    pub title: Option<String>,
    /// Size of each page, in PDF points (1/72 inch).
    pub page_sizes: Vec<PageSize>,
}

/// A page size in PDF points (1/72 inch).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageSize {
    /// Width in points.
    pub width: f32,
    /// Height in points.
    pub height: f32,
}

/// Renders PDF pages to PNG. Cheap to share (`Send + Sync`); all renderers in a process use the
/// same PDFium binding and take turns on it.
pub struct PdfRenderer {
    library: &'static Library,
    cache: Mutex<RenderCache>,
}

impl std::fmt::Debug for PdfRenderer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PdfRenderer")
            .field("library", &self.library.path())
            .finish()
    }
}

impl PdfRenderer {
    /// One renderer for the whole process, bound on first success. While the library cannot be
    /// found, every call reports why and tries again (installing it while running is enough).
    pub fn shared() -> Result<&'static PdfRenderer> {
        static SHARED: std::sync::OnceLock<PdfRenderer> = std::sync::OnceLock::new();
        if let Some(renderer) = SHARED.get() {
            return Ok(renderer);
        }
        let renderer = PdfRenderer::new()?;
        Ok(SHARED.get_or_init(|| renderer))
    }

    /// A renderer with the default configuration, binding libpdfium if this process has not yet.
    /// Fails with [`RenderError::PdfiumUnavailable`] when the library cannot be loaded.
    pub fn new() -> Result<Self> {
        Self::with_config(PdfRendererConfig::default())
    }

    /// A renderer with `config`.
    pub fn with_config(config: PdfRendererConfig) -> Result<Self> {
        let library = library(config.library.as_deref())?;
        let cache = Mutex::new(RenderCache::new(config.cache_entries, config.cache_bytes));
        Ok(PdfRenderer { library, cache })
    }

    /// The libpdfium file in use.
    pub fn library_path(&self) -> &Path {
        self.library.path()
    }

    /// Page count, title and page sizes.
    pub fn page_count_and_title<'a>(&self, source: impl Into<PdfSource<'a>>) -> Result<PdfInfo> {
        let bytes = source.into().bytes()?;
        self.with_document(&bytes, document_info)
    }

    /// The page count for a summary line, found without holding the caller up: only when the
    /// file's trailer says where its cross-reference section is (else `None`: PDFium would
    /// rebuild the table by scanning the whole file), read from the file lazily (PDFium reads the
    /// trailer, the table and the page tree, not the pages). A file without a usable trailer
    /// costs a few small reads; one whose trailer points at a damaged table can still make
    /// PDFium rebuild it (not seen from servers, but possible).
    pub fn quick_page_count(&self, path: &Path) -> Option<u32> {
        if !super::trailer::looks_intact(path) {
            return None;
        }
        let pdfium = self.library.lock();
        catch_unwind(AssertUnwindSafe(|| {
            let document = pdfium.load_pdf_from_file(path, None).ok()?;
            Some(page_count(&document))
        }))
        .ok()
        .flatten()
    }

    /// The text of pages from `first` (from 0) of the PDF at `path`, each given to `each` with its
    /// index, until `count` pages or until `budget` has passed (at least one page); returns the
    /// page count and the next page to read. PDFium reads the file as it needs it (the pages
    /// asked for, not the whole file), and the lock is held for this run only, so a page the
    /// window asks for waits at most about `budget`.
    pub fn page_texts(
        &self,
        path: &Path,
        first: u32,
        count: u32,
        budget: std::time::Duration,
        each: &mut dyn FnMut(u32, String),
    ) -> Result<(u32, u32)> {
        let pdfium = self.library.lock();
        let started = std::time::Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<(u32, u32)> {
            let document =
                pdfium
                    .load_pdf_from_file(path, None)
                    .map_err(|error| RenderError::PdfOpen {
                        reason: open_reason(&error),
                    })?;
            let total = page_count(&document);
            let pages = document.pages();
            let end = first.saturating_add(count).min(total);
            let mut index = first;
            while index < end {
                let text = i32::try_from(index)
                    .ok()
                    .and_then(|i| pages.get(i).ok())
                    .and_then(|page| page.text().ok().map(|text| text.all()))
                    .unwrap_or_default();
                each(index, text);
                index += 1;
                if started.elapsed() >= budget {
                    break;
                }
            }
            Ok((total, index))
        }));
        outcome.unwrap_or_else(|_| {
            Err(RenderError::PdfOpen {
                reason: "PDFium failed on this document".to_owned(),
            })
        })
    }

    /// Page `page_index` (from 0) as a PNG `width_px` pixels wide (1 to [`MAX_RENDER_WIDTH`]),
    /// white background, forms and annotations drawn. Repeated requests for the same bytes, page
    /// and width come from the cache.
    pub fn render_page<'a>(
        &self,
        source: impl Into<PdfSource<'a>>,
        page_index: u32,
        width_px: u32,
    ) -> Result<Vec<u8>> {
        check_width(width_px)?;
        let bytes = source.into().bytes()?;
        let key = (Sha256::digest(&bytes).into(), page_index, width_px);
        if let Some(png) = self.lock_cache().get(&key) {
            return Ok(png.as_ref().clone());
        }
        let image =
            self.with_document(&bytes, |document| render(document, page_index, width_px))?;
        let png = encode_png(&image, page_index)?;
        self.lock_cache().insert(key, Arc::new(png.clone()));
        Ok(png)
    }

    /// Page `page_index` (from 0) of a PDF PDFium reads through `reader` as it needs it (the
    /// trailer, the cross-reference table, the page tree and that page's objects, not the whole
    /// file): a teammate's file read by ranges from the team's bucket. `content_sha256` (the
    /// file's hash, hex) keys the render cache, as the bytes' own hash does for
    /// [`Self::render_page`].
    pub fn render_page_from_reader(
        &self,
        reader: impl Read + Seek + Send + 'static,
        content_sha256: &str,
        page_index: u32,
        width_px: u32,
    ) -> Result<Vec<u8>> {
        check_width(width_px)?;
        let key = (reader_key(content_sha256), page_index, width_px);
        if let Some(png) = self.lock_cache().get(&key) {
            return Ok(png.as_ref().clone());
        }
        let image = self.with_loaded(
            |pdfium| pdfium.load_pdf_from_reader(reader, None),
            |document| render(document, page_index, width_px),
        )?;
        let png = encode_png(&image, page_index)?;
        self.lock_cache().insert(key, Arc::new(png.clone()));
        Ok(png)
    }

    /// Page count, title and page sizes of a PDF PDFium reads through `reader` as it needs it.
    pub fn info_from_reader(&self, reader: impl Read + Seek + Send + 'static) -> Result<PdfInfo> {
        self.with_loaded(
            |pdfium| pdfium.load_pdf_from_reader(reader, None),
            document_info,
        )
    }

    /// Cache counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.lock_cache().stats()
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, RenderCache> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Opens `bytes` and runs `work` on the document, holding the PDFium lock throughout. A panic
    /// inside pdfium-render becomes an error, never reaches the caller.
    fn with_document<T>(
        &self,
        bytes: &[u8],
        work: impl FnOnce(&PdfDocument<'_>) -> Result<T>,
    ) -> Result<T> {
        let pdfium = self.library.lock();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let document = open(&pdfium, bytes)?;
            work(&document)
        }));
        outcome.unwrap_or_else(|_| {
            Err(RenderError::PdfOpen {
                reason: "PDFium failed on this document".to_owned(),
            })
        })
    }

    /// As [`Self::with_document`], the document loaded by `load` (from a reader).
    fn with_loaded<T>(
        &self,
        load: impl for<'p> FnOnce(
            &'p Pdfium,
        ) -> std::result::Result<PdfDocument<'p>, pdfium_render::prelude::PdfiumError>,
        work: impl FnOnce(&PdfDocument<'_>) -> Result<T>,
    ) -> Result<T> {
        let pdfium = self.library.lock();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let document = load(&pdfium).map_err(|error| RenderError::PdfOpen {
                reason: open_reason(&error),
            })?;
            work(&document)
        }));
        outcome.unwrap_or_else(|_| {
            Err(RenderError::PdfOpen {
                reason: "PDFium failed on this document".to_owned(),
            })
        })
    }
}

/// Facts about an open document.
fn document_info(document: &PdfDocument<'_>) -> Result<PdfInfo> {
    let pages = document.pages();
    let page_sizes = pages
        .page_sizes()
        .map_err(|error| RenderError::PdfOpen {
            reason: open_reason(&error),
        })?
        .into_iter()
        .map(|rect| PageSize {
            width: rect.width().value,
            height: rect.height().value,
        })
        .collect();
    let title = document
        .metadata()
        .get(PdfDocumentMetadataTagType::Title)
        .map(|tag| tag.value().trim().to_owned())
        .filter(|title| !title.is_empty());
    Ok(PdfInfo {
        page_count: page_count(document),
        title,
        page_sizes,
    })
}

/// The render cache's key for a document read through a reader: its content hash, hashed once
/// more (never equal to the digest of some bytes given whole).
fn reader_key(content_sha256: &str) -> [u8; 32] {
    Sha256::digest(format!("reader:{content_sha256}")).into()
}

fn open<'a>(pdfium: &'a Pdfium, bytes: &'a [u8]) -> Result<PdfDocument<'a>> {
    if bytes.is_empty() {
        return Err(RenderError::PdfOpen {
            reason: "the file is empty".to_owned(),
        });
    }
    pdfium
        .load_pdf_from_byte_slice(bytes, None)
        .map_err(|error| RenderError::PdfOpen {
            reason: open_reason(&error),
        })
}

fn page_count(document: &PdfDocument<'_>) -> u32 {
    u32::try_from(document.pages().len()).unwrap_or(0)
}

fn render(document: &PdfDocument<'_>, index: u32, width: u32) -> Result<DynamicImage> {
    let page_count = page_count(document);
    if index >= page_count {
        return Err(RenderError::PdfPageOutOfRange { index, page_count });
    }
    let failed = |error: pdfium_render::prelude::PdfiumError| RenderError::PdfRender {
        index,
        reason: format!("{error:?}"),
    };
    let page = document.pages().get(index as i32).map_err(failed)?;
    let config = PdfRenderConfig::new()
        .set_target_width(width as i32)
        .set_maximum_height(MAX_RENDER_HEIGHT as i32)
        .render_form_data(true);
    let bitmap = page.render_with_config(&config).map_err(failed)?;
    bitmap.as_image().map_err(failed)
}

/// Pages are opaque (rendered on white), so RGB; fast compression keeps preview latency low.
fn encode_png(image: &DynamicImage, index: u32) -> Result<Vec<u8>> {
    let rgb = image.to_rgb8();
    let mut png = Vec::new();
    PngEncoder::new_with_quality(
        Cursor::new(&mut png),
        CompressionType::Fast,
        FilterType::Adaptive,
    )
    .write_image(
        rgb.as_raw(),
        rgb.width(),
        rgb.height(),
        image::ExtendedColorType::Rgb8,
    )
    .map_err(|error| RenderError::PdfRender {
        index,
        reason: format!("PNG encoding: {error}"),
    })?;
    Ok(png)
}

/// A render width PDFium is asked for: 1 to [`MAX_RENDER_WIDTH`] pixels.
fn check_width(width_px: u32) -> Result<()> {
    if width_px == 0 || width_px > MAX_RENDER_WIDTH {
        return Err(RenderError::InvalidRenderWidth { width: width_px, max: MAX_RENDER_WIDTH });
    }
    Ok(())
}
