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
    if let Ok(exe) = env::current_exe() {
        paths.extend(near_executable(&exe, &name));
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

/// The candidates that depend on where the executable is: its directory (and the parent of
/// Cargo's `deps/`, where test binaries live), then `<prefix>/lib/mcp-canvas/` for an executable
/// in `<prefix>/bin/` — `/usr/lib/mcp-canvas/libpdfium.so` for `/usr/bin/mcp-canvas`, where the
/// .deb puts it (`bundle.linux.deb.files` in tauri.conf.json).
fn near_executable(exe: &Path, name: &OsString) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let Some(dir) = exe.parent() else {
        return paths;
    };
    paths.push(dir.join(name));
    if let Some(parent) = dir
        .parent()
        .filter(|_| dir.file_name().is_some_and(|last| last == "deps"))
    {
        paths.push(parent.join(name));
    }
    if let Some(prefix) = dir.parent() {
        paths.push(prefix.join("lib").join("mcp-canvas").join(name));
    }
    paths
}

/// `libpdfium.so`, `libpdfium.dylib` or `pdfium.dll`.
pub(crate) fn library_name() -> OsString {
    pdfium_render::prelude::Pdfium::pdfium_platform_library_name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_installed_layout_finds_the_packaged_library() {
        let name = OsString::from("libpdfium.so");
        assert_eq!(
            near_executable(Path::new("/usr/bin/mcp-canvas"), &name),
            [
                PathBuf::from("/usr/bin/libpdfium.so"),
                PathBuf::from("/usr/lib/mcp-canvas/libpdfium.so"),
            ],
            "next to the binary first, then where the .deb installs it"
        );
        assert_eq!(
            near_executable(Path::new("/opt/mcp-canvas/bin/mcp-canvas-cli"), &name)[1],
            PathBuf::from("/opt/mcp-canvas/lib/mcp-canvas/libpdfium.so"),
            "any <prefix>/bin has <prefix>/lib/mcp-canvas"
        );
    }

    #[test]
    fn cargo_test_binaries_also_look_beside_the_target_profile_dir() {
        let name = OsString::from("libpdfium.so");
        assert_eq!(
            near_executable(Path::new("/repo/target/debug/deps/pdf-0123"), &name),
            [
                PathBuf::from("/repo/target/debug/deps/libpdfium.so"),
                PathBuf::from("/repo/target/debug/libpdfium.so"),
                PathBuf::from("/repo/target/debug/lib/mcp-canvas/libpdfium.so"),
            ]
        );
    }

    #[test]
    fn the_search_holds_the_installed_location_before_the_source_tree() {
        let paths = pdfium_search_paths();
        let exe = env::current_exe().unwrap();
        let packaged = near_executable(&exe, &library_name()).pop().unwrap();
        let installed = paths
            .iter()
            .position(|p| *p == packaged)
            .expect("packaged location searched");
        let source_tree = paths
            .iter()
            .position(|p| p.ends_with(Path::new(".deps/pdfium").join(library_name())))
            .expect(".deps/pdfium searched");
        assert!(installed < source_tree, "{paths:?}");
    }
}
