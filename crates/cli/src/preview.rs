//! `mcp-canvas-cli sanitize` and `preview`: exactly what the canvas would show, without a window.

use std::{path::Path, process::ExitCode};

use mcp_canvas_host::Host;
use mcp_canvas_render::{render_markdown, sanitize_html, to_display_png, HtmlOptions, PdfRenderer, PdfSource};

use crate::fail;

/// Prints the sanitized document the canvas displays for an HTML (or, with `markdown`, a
/// markdown) file; `-` or nothing reads stdin.
pub fn sanitize(file: Option<&Path>, markdown: bool) -> ExitCode {
    let text = match file.filter(|f| f.as_os_str() != "-") {
        Some(path) => std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display())),
        None => {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map(|_| bytes).map_err(|e| format!("cannot read stdin: {e}"))
        }
    };
    let text = match text {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return fail(false, &e),
    };
    let document = if markdown { render_markdown(&text) } else { sanitize_html(&text, &HtmlOptions::default()) };
    out!("{}", document.html);
    if !document.removed.is_empty() {
        eprintln!("removed: {:?}", document.removed);
    }
    ExitCode::SUCCESS
}

/// Writes what the canvas shows for artifact `id`: a PDF page or an image as PNG at `width`,
/// or the sanitized document for HTML and markdown.
pub fn preview(host: &Host, id: &str, page: u32, width: u32, out: &Path) -> ExitCode {
    let (record, bytes) = match host.store().read(id) {
        Ok(found) => found,
        Err(e) => return fail(false, &e.to_string()),
    };
    let written = match record.mime.as_str() {
        "application/pdf" => PdfRenderer::shared()
            .and_then(|renderer| renderer.render_page(PdfSource::Bytes(&bytes), page.saturating_sub(1), width))
            .map_err(|e| e.to_string()),
        "text/html" => Ok(sanitize_html(&String::from_utf8_lossy(&bytes), &HtmlOptions::default()).html.into_bytes()),
        "text/markdown" => Ok(render_markdown(&String::from_utf8_lossy(&bytes)).html.into_bytes()),
        mime if mime.starts_with("image/") && mime != "image/svg+xml" => to_display_png(&bytes, Some(width)).map(|png| png.png).map_err(|e| e.to_string()),
        other => Err(format!("`{id}` is {other}; preview renders PDFs, raster images, HTML and markdown")),
    };
    match written.and_then(|data| std::fs::write(out, data).map_err(|e| format!("cannot write {}: {e}", out.display()))) {
        Ok(()) => {
            outln!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(false, &format!("preview of `{id}`: {e}")),
    }
}

/// Writes page `page` of a teammate's PDF as PNG, PDFium reading it by ranges from the team's
/// bucket; says on stderr how much of the file that took.
pub async fn preview_by_ranges(file: std::sync::Arc<mcp_canvas_team::RemoteFile>, page: u32, width: u32, out: &Path) -> ExitCode {
    let (reader, sha256, id, size) = (file.reader(), file.record().sha256.clone(), file.record().id.clone(), file.record().size);
    // The reader blocks on the bucket: off the async workers.
    let rendered = tokio::task::spawn_blocking(move || PdfRenderer::shared().and_then(|r| r.render_page_from_reader(reader, &sha256, page.saturating_sub(1), width)).map_err(|e| e.to_string())).await;
    let written = rendered.map_err(|e| e.to_string()).and_then(|r| r).and_then(|png| std::fs::write(out, png).map_err(|e| format!("cannot write {}: {e}", out.display())));
    match written {
        Ok(()) => {
            eprintln!("read {} of {size} bytes of `{id}` from the team store by range", file.bytes_fetched());
            outln!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(false, &format!("preview of `{id}`: {e}")),
    }
}
