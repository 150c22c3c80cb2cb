//! The demo server's MCP resources: a markdown guide, a PNG chart, a sample PDF, and the template
//! `demo://chart/{values}` that renders a chart for comma-separated values. Content is generated
//! on first use and is the same every time.

use std::sync::OnceLock;

use base64::Engine as _;
use rmcp::{
    model::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate},
    ErrorData,
};

use crate::chart;

pub(super) const GUIDE_URI: &str = "demo://guide.md";
pub(super) const CHART_URI: &str = "demo://chart.png";
pub(super) const SAMPLE_PDF_URI: &str = "demo://sample.pdf";
pub(super) const CHART_TEMPLATE: &str = "demo://chart/{values}";
const CHART_PREFIX: &str = "demo://chart/";
/// The example the `list_files` tool links for the template.
const CHART_EXAMPLE_URI: &str = "demo://chart/3,1,4,1,5,9";

const GUIDE: &str = "# MCP Canvas demo server

This server returns the result shapes MCP Canvas is built to handle. Everything is generated at
run time and is the same for the same arguments (`seed` picks the numbers and words).

## Tools

| Tool | Returns |
| --- | --- |
| `render_chart` | a PNG as an MCP `image` block |
| `make_report` | the v2 contract: `results`, `meta_data`, `artifacts` (HTML, PNG, CSV), `display` |
| `download_workbook` | plain JSON `{content: <base64 PDF>, name, format}` in a text block (the RFC 003 incident) |
| `get_view_as_pdf` | plain JSON `{pdf_data, view_name, generated_at}` |
| `list_workbooks` | plain JSON with no binary, to pass through untouched |
| `legacy_embeddings` | the v1 `returned_file_names` / `returned_file_contents` arrays |
| `big_output` | text or binary of a requested size (up to 200 MB) |
| `annotated` | blocks annotated for the user only, the assistant only, and by priority |
| `list_files` | `resource_link` blocks pointing at the resources below |

## Resources

- `demo://guide.md` — this guide.
- `demo://chart.png` — a bar chart.
- `demo://sample.pdf` — a two-page sample workbook.
- `demo://chart/{values}` — a bar chart of comma-separated values, e.g. `demo://chart/3,1,4,1,5`.

## Prompts

- `describe_chart` — a chart described for an audience, with the chart attached.
- `read_the_guide` — this guide, embedded.
";

/// The guide's Markdown (`demo://guide.md`).
pub(super) fn guide() -> &'static str {
    GUIDE
}

/// A chart of comma-separated values, as the template renders it.
pub(super) fn chart_png_for(values: &str) -> Result<Vec<u8>, String> {
    chart_for(values)
}

/// The default chart (`demo://chart.png`), also the PNG `big_output` starts with.
pub(super) fn chart_png() -> &'static [u8] {
    static PNG: OnceLock<Vec<u8>> = OnceLock::new();
    PNG.get_or_init(|| chart::bar_chart_png(&[3.0, 7.0, 4.0, 9.0, 5.0]).unwrap_or_default())
}

fn sample_pdf() -> &'static [u8] {
    static PDF: OnceLock<Vec<u8>> = OnceLock::new();
    PDF.get_or_init(|| super::documents::workbook_pdf("Sample workbook", "Sample", 2, 1).unwrap_or_default())
}

/// The fixed resources, with their sizes.
fn fixed() -> Vec<Resource> {
    vec![
        Resource::new(GUIDE_URI, "guide.md")
            .with_title("Demo server guide")
            .with_description("What each demo tool returns, and the resources")
            .with_mime_type("text/markdown")
            .with_size(GUIDE.len() as u64),
        Resource::new(CHART_URI, "chart.png")
            .with_title("Bar chart")
            .with_description("A bar chart of 3, 7, 4, 9, 5")
            .with_mime_type("image/png")
            .with_size(chart_png().len() as u64),
        Resource::new(SAMPLE_PDF_URI, "sample.pdf")
            .with_title("Sample workbook (PDF)")
            .with_description("A two-page PDF with a table and a chart")
            .with_mime_type("application/pdf")
            .with_size(sample_pdf().len() as u64),
    ]
}

pub(super) fn list() -> ListResourcesResult {
    ListResourcesResult::with_all_items(fixed())
}

pub(super) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![ResourceTemplate::new(CHART_TEMPLATE, "chart")
        .with_title("Bar chart of given values")
        .with_description("A PNG bar chart of comma-separated numbers >= 0 (1 to 64 of them), e.g. demo://chart/3,1,4")
        .with_mime_type("image/png")])
}

/// What `list_files` links to: the fixed resources and one instance of the template.
pub(super) fn links() -> Vec<Resource> {
    let mut links = fixed();
    links.push(
        Resource::new(CHART_EXAMPLE_URI, "chart-3-1-4-1-5-9.png")
            .with_title("Chart from the template")
            .with_description("demo://chart/{values} rendered for 3,1,4,1,5,9")
            .with_mime_type("image/png"),
    );
    links
}

pub(super) fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let blob = |bytes: &[u8], mime: &str| {
        ReadResourceResult::new(vec![
            ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri).with_mime_type(mime),
        ])
    };
    match uri {
        GUIDE_URI => Ok(ReadResourceResult::new(vec![ResourceContents::text(GUIDE, uri).with_mime_type("text/markdown")])),
        CHART_URI => Ok(blob(chart_png(), "image/png")),
        SAMPLE_PDF_URI => Ok(blob(sample_pdf(), "application/pdf")),
        _ => match uri.strip_prefix(CHART_PREFIX) {
            Some(values) => {
                let png = chart_for(values).map_err(|reason| ErrorData::invalid_params(format!("{uri}: {reason}"), None))?;
                Ok(blob(&png, "image/png"))
            }
            None => Err(ErrorData::resource_not_found(
                format!("no resource `{uri}`; available: {GUIDE_URI}, {CHART_URI}, {SAMPLE_PDF_URI}, {CHART_TEMPLATE}"),
                None,
            )),
        },
    }
}

/// Renders the template: `values` is comma-separated numbers, possibly percent-encoded.
fn chart_for(values: &str) -> Result<Vec<u8>, String> {
    let decoded = percent_decode(values);
    if decoded.len() > 2048 {
        return Err("`values` is longer than 2048 characters".into());
    }
    let numbers = decoded
        .split(',')
        .map(|v| v.trim().parse::<f64>().map_err(|_| format!("`values` must be comma-separated numbers; `{}` is not a number", v.trim())))
        .collect::<Result<Vec<f64>, String>>()?;
    chart::bar_chart_png(&numbers)
}

/// `%XX` escapes decoded (invalid ones left as written).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_resource_reads() {
        for resource in list().resources {
            let result = read(&resource.uri).unwrap();
            assert_eq!(result.contents.len(), 1, "{}", resource.uri);
        }
        assert!(read(CHART_EXAMPLE_URI).is_ok());
        assert!(read("demo://chart/1%2C2%2C3").is_ok());
    }

    #[test]
    fn bad_uris_are_errors() {
        assert!(read("demo://nope").is_err());
        assert!(read("demo://chart/1,x").unwrap_err().message.contains("`x` is not a number"));
        assert!(read("demo://chart/-1").is_err());
        assert!(read("demo://chart/").is_err());
        assert!(read("demo://chart/%4").is_err());
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("1%2C2%2c3"), "1,2,3");
        assert_eq!(percent_decode("%"), "%");
        assert_eq!(percent_decode("%4"), "%4");
        assert_eq!(percent_decode("a%zzb"), "a%zzb");
        assert_eq!(percent_decode("%é1"), "%é1");
    }
}
