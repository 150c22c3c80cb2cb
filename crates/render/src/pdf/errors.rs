//! PDFium's errors in words.

use pdfium_render::prelude::{PdfiumError, PdfiumInternalError};

/// Why a document could not be opened.
pub(crate) fn open_reason(error: &PdfiumError) -> String {
    match error {
        PdfiumError::PdfiumLibraryInternalError(internal) => match internal {
            PdfiumInternalError::FormatError => {
                "the file is damaged, truncated or not a PDF".to_owned()
            }
            PdfiumInternalError::PasswordError => "it is password-protected".to_owned(),
            PdfiumInternalError::SecurityError => {
                "its security settings do not allow opening it".to_owned()
            }
            PdfiumInternalError::FileError => "PDFium could not read the data".to_owned(),
            PdfiumInternalError::PageError => "a page could not be loaded".to_owned(),
            PdfiumInternalError::Unknown => "PDFium reported an unknown error".to_owned(),
        },
        other => format!("PDFium error: {other:?}"),
    }
}
