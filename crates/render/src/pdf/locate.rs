//! Where libpdfium is looked for, in order.

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variable naming libpdfium (a file, or a directory holding it).
pub(crate) const ENV_LIBRARY: &str = "MCP_CANVAS_PDFIUM";
/// pdfium-render's conventional variable: a directory holding libpdfium.
pub(crate) const ENV_LIBRARY_DIR: &str = "PDFIUM_DYNAMIC_LIB_PATH";

/// The places searched for libpdfium, in order:
///
/// 1. `$MCP_CANVAS_PDFIUM` — the library file, or a directory holding it;
/// 2. `$PDFIUM_DYNAMIC_LIB_PATH` — a directory holding it;
/// 3. the directory of the current executable (and its parent when that is Cargo's `deps/`);
/// 4. `../lib/mcp-canvas/` relative to the executable (the installed-package layout);
/// 5. `.deps/pdfium/` in the source tree this crate was compiled from (filled by
///    `scripts/setup.sh`).
pub fn pdfium_search_paths() -> Vec<PathBuf> {
    let name = library_name();
    let mut paths = Vec::new();
    if let Some(value) = env::var_os(ENV_LIBRARY).filter(|value| !value.is_empty()) {
        let path = PathBuf::from(value);
        paths.push(if path.is_dir() {
            path.join(&name)
        } else {
            path
        });
    }
    if let Some(dir) = env::var_os(ENV_LIBRARY_DIR).filter(|value| !value.is_empty()) {
        paths.push(PathBuf::from(dir).join(&name));
    }
    if let Some(dir) = env::current_exe().ok().as_deref().and_then(Path::parent) {
        paths.push(dir.join(&name));
        if let Some(parent) = dir
            .parent()
            .filter(|_| dir.file_name().is_some_and(|last| last == "deps"))
        {
            paths.push(parent.join(&name));
        }
        if let Some(prefix) = dir.parent() {
            paths.push(prefix.join("lib").join("mcp-canvas").join(&name));
        }
    }
    if let Some(root) = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
    {
        paths.push(root.join(".deps").join("pdfium").join(&name));
    }
    let mut unique = Vec::with_capacity(paths.len());
    for path in paths {
        if !unique.contains(&path) {
            unique.push(path);
        }
    }
    unique
}

/// `libpdfium.so`, `libpdfium.dylib` or `pdfium.dll`.
pub(crate) fn library_name() -> OsString {
    pdfium_render::prelude::Pdfium::pdfium_platform_library_name()
}
