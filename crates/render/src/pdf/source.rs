//! Where a PDF comes from.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::{RenderError, Result};

/// A PDF as a file or as bytes already in memory.
#[derive(Debug, Clone, Copy)]
pub enum PdfSource<'a> {
    /// A file, read whole on each call.
    Path(&'a Path),
    /// Bytes in memory.
    Bytes(&'a [u8]),
}

impl<'a> PdfSource<'a> {
    pub(crate) fn bytes(self) -> Result<Cow<'a, [u8]>> {
        match self {
            PdfSource::Bytes(bytes) => Ok(Cow::Borrowed(bytes)),
            PdfSource::Path(path) => {
                std::fs::read(path)
                    .map(Cow::Owned)
                    .map_err(|source| RenderError::Io {
                        path: path.to_path_buf(),
                        source,
                    })
            }
        }
    }
}

impl<'a> From<&'a Path> for PdfSource<'a> {
    fn from(path: &'a Path) -> Self {
        PdfSource::Path(path)
    }
}

impl<'a> From<&'a PathBuf> for PdfSource<'a> {
    fn from(path: &'a PathBuf) -> Self {
        PdfSource::Path(path)
    }
}

impl<'a> From<&'a [u8]> for PdfSource<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        PdfSource::Bytes(bytes)
    }
}

impl<'a> From<&'a Vec<u8>> for PdfSource<'a> {
    fn from(bytes: &'a Vec<u8>) -> Self {
        PdfSource::Bytes(bytes)
    }
}
