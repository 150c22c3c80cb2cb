//! Without a loadable libpdfium, PDF calls fail with a message that says what is wrong and how to
//! fix it. This binary never binds PDFium successfully (it only ever offers bad paths), so it can
//! test the failure paths even on a machine that has the library. One test function: it changes
//! environment variables.

use mcp_canvas_render::{PdfRenderer, PdfRendererConfig, RenderError, pdfium_search_paths};

#[test]
fn missing_or_broken_library_is_a_clear_typed_error() {
    let dir = tempfile::tempdir().unwrap();

    // Nothing at the path.
    let missing = dir.path().join("nowhere").join("libpdfium.so");
    let config = PdfRendererConfig {
        library: Some(missing.clone()),
        ..Default::default()
    };
    let error = PdfRenderer::with_config(config).unwrap_err();
    let RenderError::PdfiumUnavailable { searched, hint } = &error else {
        panic!("{error}")
    };
    assert_eq!(searched, &vec![missing.clone()]);
    assert!(
        hint.contains("scripts/setup.sh") && hint.contains("MCP_CANVAS_PDFIUM"),
        "{hint}"
    );
    let message = error.to_string();
    println!("{message}");
    assert!(
        message.starts_with("PDF preview is unavailable: libpdfium could not be loaded"),
        "{message}"
    );
    assert!(
        message.contains(&missing.display().to_string()),
        "{message}"
    );

    // Something at the path that is not a loadable library: the hint says so.
    let broken = dir.path().join("libpdfium.so");
    std::fs::write(&broken, b"not an ELF file").unwrap();
    let config = PdfRendererConfig {
        library: Some(broken.clone()),
        ..Default::default()
    };
    let error = PdfRenderer::with_config(config).unwrap_err();
    let message = error.to_string();
    println!("{message}");
    assert!(
        matches!(error, RenderError::PdfiumUnavailable { .. }),
        "{message}"
    );
    assert!(
        message.contains(&format!("{} exists but failed to load", broken.display())),
        "{message}"
    );

    // The search order.
    let library_dir = dir.path().join("pdfium-dir");
    std::fs::create_dir(&library_dir).unwrap();
    // SAFETY: this test binary has a single test, so no other thread reads the environment.
    unsafe {
        std::env::set_var("MCP_CANVAS_PDFIUM", &library_dir);
        std::env::set_var("PDFIUM_DYNAMIC_LIB_PATH", dir.path().join("lib-dir"));
    }
    let paths = pdfium_search_paths();
    assert_eq!(
        paths[0],
        library_dir.join("libpdfium.so"),
        "a directory in MCP_CANVAS_PDFIUM"
    );
    assert_eq!(paths[1], dir.path().join("lib-dir").join("libpdfium.so"));
    let exe_dir = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    assert_eq!(
        paths[2],
        exe_dir.join("libpdfium.so"),
        "next to the executable"
    );
    assert!(
        paths.last().unwrap().ends_with(".deps/pdfium/libpdfium.so"),
        "{paths:?}"
    );
    unsafe {
        std::env::set_var("MCP_CANVAS_PDFIUM", &broken);
        std::env::remove_var("PDFIUM_DYNAMIC_LIB_PATH");
    }
    assert_eq!(
        pdfium_search_paths()[0],
        broken,
        "a file in MCP_CANVAS_PDFIUM"
    );
}
