//! The process-wide PDFium binding. pdfium-render keeps its bindings in a global that can be set
//! once, and PDFium itself is not thread-safe, so there is exactly one [`Library`] per process
//! and every use of it holds its lock.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use pdfium_render::prelude::{Pdfium, PdfiumError};

use super::locate::{ENV_LIBRARY, pdfium_search_paths};
use crate::{RenderError, Result};

/// The bound library.
pub(crate) struct Library {
    pdfium: Mutex<Pdfium>,
    path: PathBuf,
}

impl Library {
    /// Exclusive access to PDFium for the duration of one operation.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Pdfium> {
        // A panic while locked leaves PDFium itself consistent (no half-done call survives it).
        self.pdfium
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The file the library was loaded from.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

static BOUND: OnceLock<Library> = OnceLock::new();
static BINDING: Mutex<()> = Mutex::new(());

/// The process's library, binding it on first use from `explicit` or else the search paths.
/// A failure is not remembered: a later call searches again (say, after `scripts/setup.sh`).
pub(crate) fn library(explicit: Option<&Path>) -> Result<&'static Library> {
    if let Some(library) = BOUND.get() {
        return Ok(library);
    }
    let _guard = BINDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(library) = BOUND.get() {
        return Ok(library);
    }
    let searched = match explicit {
        Some(path) => vec![path.to_path_buf()],
        None => pdfium_search_paths(),
    };
    let mut failures = Vec::new();
    for path in &searched {
        if !path.is_file() {
            continue;
        }
        let pdfium = match Pdfium::bind_to_library(path) {
            Ok(bindings) => Pdfium::new(bindings),
            // Something else in this process bound PDFium first: share its binding.
            Err(PdfiumError::PdfiumLibraryBindingsAlreadyInitialized) => Pdfium::default(),
            Err(error) => {
                failures.push(format!(
                    "{} exists but failed to load ({error:?})",
                    path.display()
                ));
                continue;
            }
        };
        return Ok(BOUND.get_or_init(|| Library {
            pdfium: Mutex::new(pdfium),
            path: path.clone(),
        }));
    }
    let mut hint = format!(
        "Run scripts/setup.sh (it puts libpdfium.so into .deps/pdfium), or set {ENV_LIBRARY} to the \
         path of libpdfium.so."
    );
    for failure in failures {
        hint.push(' ');
        hint.push_str(&failure);
        hint.push('.');
    }
    Err(RenderError::PdfiumUnavailable { searched, hint })
}
