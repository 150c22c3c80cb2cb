//! PDF through PDFium: finding and binding the library once per process, opening documents,
//! rendering pages to PNG with a small in-memory LRU cache.

mod cache;
mod errors;
mod library;
mod locate;
mod renderer;
mod source;
mod trailer;

pub use cache::CacheStats;
pub use locate::pdfium_search_paths;
pub use renderer::{
    MAX_RENDER_HEIGHT, MAX_RENDER_WIDTH, PageSize, PdfInfo, PdfRenderer, PdfRendererConfig,
};
pub use source::PdfSource;
