//! Document tools: the result shapes MCP Canvas must handle, each generated at run time and
//! deterministic for its arguments (a `seed` picks the numbers and words).
//!
//! - `make_report`: the v2 contract (000 §6 example 2) with an HTML report, a PNG chart and a CSV.
//! - `download_workbook`, `get_view_as_pdf`, `list_workbooks`: the Tableau shapes of RFC 003
//!   appendix B — base64 PDFs in plain JSON text, no `mimeType`, no `structuredContent` — and
//!   plain JSON that must pass through untouched.
//! - `legacy_embeddings`: the v1 `returned_file_names`/`returned_file_contents` arrays (000 §6.3).
//! - `big_output`: text or binary of a requested size, for the safety net and benchmarks.
//! - `annotated`: content blocks with `audience` and `priority` annotations.
//! - `list_files`: `resource_link` blocks pointing at the server's resources.
//!
//! Every argument is checked against the tool's input schema ([`super::arguments`]); an invalid
//! one gets a tool error naming the field, and limits are refused before any work is done.

use base64::Engine as _;
use rmcp::{
    handler::server::{common::schema_for_output, wrapper::Parameters},
    model::{Annotations, CallToolResult, ContentBlock, ImageContent, JsonObject, Role, TextContent},
    schemars::{self, JsonSchema},
    tool, tool_router, ErrorData,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    arguments,
    pdf::{self, Section, Table},
    resources, DemoServer,
};
use crate::chart;

const B64: base64::engine::general_purpose::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The largest `big_output`: 200 MB.
pub(super) const MAX_BIG_OUTPUT: u64 = 200 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

fn default_seed() -> u64 {
    1
}
fn default_report_title() -> String {
    "Quarterly sales report".into()
}
fn default_report_rows() -> u32 {
    12
}
fn default_workbook_name() -> String {
    "Sales Dashboard".into()
}
fn default_pages() -> u32 {
    3
}
fn default_view_name() -> String {
    "Revenue by Region".into()
}
fn default_view_pages() -> u32 {
    1
}
fn default_workbook_count() -> u32 {
    2
}
fn default_dimension() -> u32 {
    8
}
fn default_big_size() -> u64 {
    1024 * 1024
}

/// How the canvas should place the report (000 §1 `display.mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum Mode {
    #[default]
    Replace,
    Append,
    Split,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MakeReportArgs {
    /// Title of the report (1 to 120 characters).
    #[serde(default = "default_report_title")]
    #[schemars(default = "default_report_title", length(min = 1, max = 120))]
    pub title: String,
    /// Number of data rows in the table and the CSV (1 to 1000).
    #[serde(default = "default_report_rows")]
    #[schemars(default = "default_report_rows", range(min = 1, max = 1000))]
    pub rows: u32,
    /// Canvas layout hint returned in `display.mode`: replace, append or split.
    #[serde(default)]
    #[schemars(default = "Mode::default")]
    pub mode: Mode,
    /// Seed for the generated numbers; the same seed gives the same report.
    #[serde(default = "default_seed")]
    #[schemars(default = "default_seed")]
    pub seed: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownloadWorkbookArgs {
    /// Name of the workbook (1 to 120 characters); it is the PDF's title and the `name` returned.
    #[serde(default = "default_workbook_name")]
    #[schemars(default = "default_workbook_name", length(min = 1, max = 120))]
    pub name: String,
    /// Number of pages of the PDF (1 to 500).
    #[serde(default = "default_pages")]
    #[schemars(default = "default_pages", range(min = 1, max = 500))]
    pub pages: u32,
    /// Seed for the generated numbers and text; the same seed gives the same PDF.
    #[serde(default = "default_seed")]
    #[schemars(default = "default_seed")]
    pub seed: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewAsPdfArgs {
    /// Name of the view (1 to 120 characters).
    #[serde(default = "default_view_name")]
    #[schemars(default = "default_view_name", length(min = 1, max = 120))]
    pub view_name: String,
    /// Number of pages of the PDF (1 to 50).
    #[serde(default = "default_view_pages")]
    #[schemars(default = "default_view_pages", range(min = 1, max = 50))]
    pub pages: u32,
    /// Seed for the generated numbers, text and `generated_at`.
    #[serde(default = "default_seed")]
    #[schemars(default = "default_seed")]
    pub seed: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListWorkbooksArgs {
    /// How many workbooks to list (1 to 100).
    #[serde(default = "default_workbook_count")]
    #[schemars(default = "default_workbook_count", range(min = 1, max = 100))]
    pub count: u32,
    /// Seed for the generated ids and names.
    #[serde(default = "default_seed")]
    #[schemars(default = "default_seed")]
    pub seed: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingsArgs {
    /// Length of each embedding vector (1 to 1536).
    #[serde(default = "default_dimension")]
    #[schemars(default = "default_dimension", range(min = 1, max = 1536))]
    pub dimension: u32,
    /// Seed for the generated vectors.
    #[serde(default = "default_seed")]
    #[schemars(default = "default_seed")]
    pub seed: u64,
}

/// What `big_output` produces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum BigKind {
    #[default]
    Text,
    Binary,
}

/// Which real header a binary `big_output` starts with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum BigFormat {
    #[default]
    Pdf,
    Png,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BigOutputArgs {
    /// `text`: one plain text block of `size` bytes. `binary`: `size` bytes (a real PDF or PNG
    /// header, then filler) as base64 in the `data` field of a JSON text block.
    #[serde(default)]
    #[schemars(default = "BigKind::default")]
    pub kind: BigKind,
    /// Size in bytes, 1 to 209715200 (200 MB). For `binary` this is the decoded size.
    #[serde(default = "default_big_size")]
    #[schemars(default = "default_big_size", range(min = 1, max = 209_715_200))]
    pub size: u64,
    /// For `binary`: start with a PDF header or with a real PNG (the filler follows its end).
    #[serde(default)]
    #[schemars(default = "BigFormat::default")]
    pub format: BigFormat,
    /// Seed for the filler.
    #[serde(default = "default_seed")]
    #[schemars(default = "default_seed")]
    pub seed: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeedArgs {
    /// Seed for the generated content.
    #[serde(default = "default_seed")]
    #[schemars(default = "default_seed")]
    pub seed: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

// ---------------------------------------------------------------------------------------------
// make_report output (the v2 contract), also its outputSchema
// ---------------------------------------------------------------------------------------------

/// The v2 tool contract (000 §1) as `make_report` fills it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReportContract {
    /// The concise primary result.
    pub results: ReportResults,
    /// Small facts about the run.
    pub meta_data: ReportMeta,
    /// `report.html`, `chart.png` and `data.csv`, base64-encoded.
    pub artifacts: Vec<ContractArtifact>,
    /// Canvas hints.
    pub display: DisplayHints,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReportResults {
    /// One-line outcome.
    pub summary: String,
    /// The report's title.
    pub title: String,
    /// Data rows in the report.
    pub rows: u32,
    /// Sum of each quarter over all rows (Q1 to Q4).
    pub quarter_totals: [u64; 4],
    /// Sum of all quarters.
    pub grand_total: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReportMeta {
    /// Data rows.
    pub rows: u32,
    /// Columns in the CSV.
    pub columns: u32,
    /// The seed used.
    pub seed: u64,
    /// When the data was "generated" (deterministic from the seed), ISO 8601.
    pub generated_at: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ContractArtifact {
    /// File name.
    pub name: String,
    /// Base64 content.
    pub b64: String,
    /// MIME type.
    pub mime: String,
    /// Size in bytes (decoded).
    pub size: u64,
    /// Short human label.
    pub description: String,
    /// Viewer hint (000 §1): image, html, or auto (let the host choose by MIME type).
    pub viewer: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DisplayHints {
    /// Open the canvas.
    pub open_canvas: bool,
    /// The artifact shown first.
    pub primary_file: String,
    /// Layout mode: replace, append or split.
    pub mode: Mode,
    /// Viewer for the primary file.
    pub viewer_hint: String,
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

#[tool_router(router = document_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        title = "Make a report (v2 contract)",
        description = "Generates a sales report as the v2 tool contract: `results`, `meta_data`, three \
            `artifacts` (report.html with a script and an onclick handler the canvas must neutralise, \
            chart.png, data.csv) and `display` {open_canvas, primary_file: report.html, mode}. The JSON \
            is returned both as a text block and as structuredContent.",
        input_schema = arguments::schema::<MakeReportArgs>(),
        output_schema = schema_for_output::<ReportContract>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn make_report(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let args: MakeReportArgs = match arguments::parse(raw) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        if let Err(message) = plain_text("title", &args.title) {
            return Ok(arguments::invalid(message));
        }
        let report = match build_report(&args) {
            Ok(report) => report,
            Err(message) => return Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
        };
        let value = serde_json::to_value(&report).map_err(|e| ErrorData::internal_error(format!("report does not serialize: {e}"), None))?;
        Ok(CallToolResult::structured(value))
    }

    #[tool(
        title = "Download a workbook as PDF (Tableau-style)",
        description = "Returns a generated multi-page PDF the way the Tableau MCP server does (RFC 003 \
            incident): one text block holding plain JSON {\"content\": <base64 PDF>, \"name\", \"format\": \"pdf\"} \
            — no mimeType, no structuredContent. Page 1 has a title, text, a table and a bar chart.",
        input_schema = arguments::schema::<DownloadWorkbookArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn download_workbook(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let args: DownloadWorkbookArgs = match arguments::parse(raw) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        if let Err(message) = plain_text("name", &args.name) {
            return Ok(arguments::invalid(message));
        }
        let pdf = match workbook_pdf(&args.name, "Workbook export", args.pages, args.seed) {
            Ok(pdf) => pdf,
            Err(message) => return Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
        };
        let body = json!({ "content": B64.encode(&pdf), "name": args.name, "format": "pdf" });
        Ok(CallToolResult::success(vec![ContentBlock::text(body.to_string())]))
    }

    #[tool(
        title = "Export a view as PDF (Tableau-style)",
        description = "Returns {\"pdf_data\": <base64 PDF>, \"view_name\", \"generated_at\": <ISO 8601>} as a JSON \
            text block, like Tableau's get_view_as_pdf (RFC 003 appendix B). `generated_at` is derived from the seed.",
        input_schema = arguments::schema::<ViewAsPdfArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_view_as_pdf(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let args: ViewAsPdfArgs = match arguments::parse(raw) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        if let Err(message) = plain_text("view_name", &args.view_name) {
            return Ok(arguments::invalid(message));
        }
        let pdf = match workbook_pdf(&args.view_name, "View export", args.pages, args.seed) {
            Ok(pdf) => pdf,
            Err(message) => return Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
        };
        let body = json!({ "pdf_data": B64.encode(&pdf), "view_name": args.view_name, "generated_at": iso_timestamp(args.seed) });
        Ok(CallToolResult::success(vec![ContentBlock::text(body.to_string())]))
    }

    #[tool(
        title = "List workbooks (Tableau-style)",
        description = "Returns {\"workbooks\": [{\"id\", \"name\", \"project\"}, ...]} as a JSON text block: plain JSON \
            with no binary, which a host must pass through untouched (RFC 003 appendix B).",
        input_schema = arguments::schema::<ListWorkbooksArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_workbooks(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let args: ListWorkbooksArgs = match arguments::parse(raw) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        let body = json!({ "workbooks": workbooks(args.count, args.seed) });
        Ok(CallToolResult::success(vec![ContentBlock::text(body.to_string())]))
    }

    #[tool(
        title = "Generate embeddings (legacy v1 arrays)",
        description = "Returns the legacy v1 contract (000 §6 example 3): `results`, `meta_data` and the \
            `returned_file_names`/`returned_file_contents` arrays holding two small base64 JSON vector files.",
        input_schema = arguments::schema::<EmbeddingsArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn legacy_embeddings(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let args: EmbeddingsArgs = match arguments::parse(raw) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        let files = embedding_files(args.dimension, args.seed);
        let body = json!({
            "results": "Generated embeddings (see files)",
            "returned_file_names": files.iter().map(|(name, _)| name.clone()).collect::<Vec<_>>(),
            "returned_file_contents": files.iter().map(|(_, bytes)| B64.encode(bytes)).collect::<Vec<_>>(),
            "meta_data": { "dimension": args.dimension, "chunks": files.len() },
        });
        Ok(CallToolResult::success(vec![ContentBlock::text(body.to_string())]))
    }

    #[tool(
        title = "Produce a large output",
        description = "Returns `size` bytes (1 to 209715200 = 200 MB; more is refused) for testing size limits \
            and benchmarks. kind=text: one plain text block. kind=binary: a JSON text block \
            {\"name\", \"format\", \"size\", \"data\": <base64>} whose bytes start with a real PDF header or PNG.",
        input_schema = arguments::schema::<BigOutputArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn big_output(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let args: BigOutputArgs = match arguments::parse(raw) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        // The schema says so too; checked here again because the allocation depends on it.
        if args.size == 0 || args.size > MAX_BIG_OUTPUT {
            return Ok(arguments::invalid(format!("`size` must be an integer from 1 to {MAX_BIG_OUTPUT}; got {}", args.size)));
        }
        let size = args.size as usize;
        let block = match args.kind {
            BigKind::Text => big_text(size),
            BigKind::Binary => {
                let (name, format, head) = match args.format {
                    BigFormat::Pdf => ("big_output.pdf", "pdf", b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec()),
                    BigFormat::Png => ("big_output.png", "png", resources::chart_png().to_vec()),
                };
                big_binary_json(name, format, &head, size, args.seed)
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(block)]))
    }

    #[tool(
        title = "Annotated content",
        description = "Returns content blocks with MCP annotations: a text for the user only \
            (audience [\"user\"]), a text for the assistant only (audience [\"assistant\"]) and a bar chart \
            image with priority 0.9.",
        input_schema = arguments::schema::<SeedArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn annotated(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        let args: SeedArgs = match arguments::parse(raw) {
            Ok(args) => args,
            Err(error) => return Ok(error),
        };
        let mut rng = Rng::new(args.seed);
        let values: Vec<f64> = (0..5).map(|_| rng.range(1, 20) as f64).collect();
        let png = match chart::bar_chart_png(&values) {
            Ok(png) => png,
            Err(message) => return Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
        };
        let listed = values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
        let for_user = TextContent::new(format!(
            "For you: the chart below plots {listed}. This note is annotated audience [\"user\"]; the model never sees it."
        ))
        .with_annotations(Annotations::default().with_audience(vec![Role::User]).with_priority(0.5));
        let for_assistant = TextContent::new(format!(
            "For the assistant: values {listed}; the highest bar is {}. Annotated audience [\"assistant\"].",
            values.iter().cloned().fold(0.0, f64::max)
        ))
        .with_annotations(Annotations::default().with_audience(vec![Role::Assistant]));
        let image = ImageContent::new(B64.encode(&png), "image/png").with_annotations(Annotations::default().with_priority(0.9));
        Ok(CallToolResult::success(vec![ContentBlock::Text(for_user), ContentBlock::Text(for_assistant), ContentBlock::Image(image)]))
    }

    #[tool(
        title = "List demo files (resource links)",
        description = "Returns `resource_link` blocks pointing at this server's MCP resources: demo://guide.md, \
            demo://chart.png, demo://sample.pdf and an example of the demo://chart/{values} template.",
        input_schema = arguments::schema::<NoArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_files(&self, Parameters(raw): Parameters<JsonObject>) -> Result<CallToolResult, ErrorData> {
        if let Err(error) = arguments::parse::<NoArgs>(raw) {
            return Ok(error);
        }
        let mut content = vec![ContentBlock::text(
            "The demo server's files, as MCP resources (read them with resources/read):",
        )];
        content.extend(resources::links().into_iter().map(ContentBlock::resource_link));
        Ok(CallToolResult::success(content))
    }
}

/// Names and titles end up in file names and PDF metadata: no control characters, not blank.
fn plain_text(field: &str, text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err(format!("`{field}` must not be blank"));
    }
    if text.chars().any(char::is_control) {
        return Err(format!("`{field}` must not contain control characters (newlines, tabs, ...)"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Generated content
// ---------------------------------------------------------------------------------------------

/// SplitMix64: small, fast, and the same sequence everywhere for a seed.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub(super) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }
}

const REGIONS: [&str; 6] = ["North", "South", "East", "West", "Central", "Online"];
const CITIES: [&str; 24] = [
    "Amsterdam", "Berlin", "Chicago", "Denver", "Edinburgh", "Florence", "Geneva", "Helsinki", "Istanbul", "Jakarta", "Kyoto", "Lisbon",
    "Madrid", "Nairobi", "Oslo", "Prague", "Quito", "Rome", "Seoul", "Toronto", "Utrecht", "Vienna", "Warsaw", "Zurich",
];
const WORDS: [&str; 64] = [
    "revenue", "growth", "quarter", "region", "margin", "forecast", "pipeline", "customer", "segment", "volume", "trend", "target",
    "baseline", "channel", "partner", "product", "market", "demand", "supply", "inventory", "order", "return", "discount", "price",
    "retention", "churn", "cohort", "conversion", "funnel", "budget", "spend", "yield", "ratio", "index", "metric", "signal",
    "season", "campaign", "launch", "renewal", "contract", "account", "territory", "quota", "team", "review", "outlook", "risk",
    "steady", "strong", "modest", "higher", "lower", "flat", "rising", "falling", "overall", "regional", "annual", "weekly",
    "online", "retail", "direct", "indirect",
];

/// A sentence of 8 to 16 words.
fn sentence(rng: &mut Rng) -> String {
    let n = rng.range(8, 16);
    let mut words: Vec<String> = (0..n).map(|_| (*rng.pick(&WORDS)).to_owned()).collect();
    if let Some(first) = words.first_mut() {
        let mut chars = first.chars();
        if let Some(c) = chars.next() {
            *first = c.to_ascii_uppercase().to_string() + chars.as_str();
        }
    }
    words.join(" ") + "."
}

fn paragraph(rng: &mut Rng, sentences: u64) -> String {
    (0..sentences).map(|_| sentence(rng)).collect::<Vec<_>>().join(" ")
}

/// A deterministic ISO 8601 timestamp in 2025 for a seed.
pub(super) fn iso_timestamp(seed: u64) -> String {
    const DAYS: [u64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut rng = Rng::new(seed ^ 0xDA7E);
    let mut day = rng.range(0, 364);
    let seconds = rng.range(0, 86_399);
    let mut month = 0;
    while day >= DAYS[month] {
        day -= DAYS[month];
        month += 1;
    }
    format!("2025-{:02}-{:02}T{:02}:{:02}:{:02}Z", month + 1, day + 1, seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// Rows of `label, q1..q4` sales figures.
fn sales_rows(rng: &mut Rng, labels: &[String]) -> Vec<(String, [u64; 4])> {
    labels.iter().map(|label| (label.clone(), [0; 4].map(|_| rng.range(40, 240)))).collect()
}

fn quarter_totals(rows: &[(String, [u64; 4])]) -> [u64; 4] {
    let mut totals = [0u64; 4];
    for (_, quarters) in rows {
        for (total, q) in totals.iter_mut().zip(quarters) {
            *total += q;
        }
    }
    totals
}

/// A multi-page "workbook" PDF: title, text, a table and the chart on page 1, one section per
/// further page.
pub(super) fn workbook_pdf(title: &str, what: &str, pages: u32, seed: u64) -> Result<Vec<u8>, String> {
    let mut rng = Rng::new(seed);
    let labels: Vec<String> = REGIONS.iter().map(|r| (*r).to_owned()).collect();
    let rows = sales_rows(&mut rng, &labels);
    let totals: Vec<f64> = rows.iter().map(|(_, q)| q.iter().sum::<u64>() as f64).collect();
    let chart_png = chart::bar_chart_png(&totals)?;
    let mut table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|(label, q)| {
            let mut row = vec![label.clone()];
            row.extend(q.iter().map(u64::to_string));
            row.push(q.iter().sum::<u64>().to_string());
            row
        })
        .collect();
    let totals_q = quarter_totals(&rows);
    let mut total_row = vec!["Total".to_owned()];
    total_row.extend(totals_q.iter().map(u64::to_string));
    total_row.push(totals_q.iter().sum::<u64>().to_string());
    table_rows.push(total_row);
    let table = Table { header: ["Region", "Q1", "Q2", "Q3", "Q4", "Total"].map(String::from).to_vec(), rows: table_rows };

    let created = iso_timestamp(seed);
    let subtitle = format!("{what} · {pages} page{} · generated {created} · seed {seed}", if pages == 1 { "" } else { "s" });
    let intro = format!(
        "This document was generated by the MCP Canvas demo server. Totals by region are in the table and the chart below. {}",
        paragraph(&mut rng, 3)
    );
    let sections: Vec<Section> = (2..=pages)
        .map(|page| {
            let (first, second) = (*rng.pick(&WORDS), *rng.pick(&WORDS));
            Section {
                heading: format!("Section {}: {} {second}", page - 1, capitalized(first)),
                paragraphs: (0..5).map(|_| paragraph(&mut rng, 5)).collect(),
            }
        })
        .collect();
    pdf::render(&pdf::Document {
        title,
        subtitle: &subtitle,
        intro: &intro,
        table: &table,
        chart_caption: "Figure 1: total sales by region (units)",
        chart_png: &chart_png,
        sections: &sections,
        created: &created,
    })
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

fn build_report(args: &MakeReportArgs) -> Result<ReportContract, String> {
    let mut rng = Rng::new(args.seed);
    let labels: Vec<String> = (0..args.rows as usize)
        .map(|i| {
            let city = CITIES[i % CITIES.len()];
            if i < CITIES.len() { city.to_owned() } else { format!("{city} {}", i / CITIES.len() + 1) }
        })
        .collect();
    let rows = sales_rows(&mut rng, &labels);
    let totals = quarter_totals(&rows);
    let grand_total: u64 = totals.iter().sum();
    let chart_png = chart::bar_chart_png(&totals.map(|t| t as f64))?;
    let generated_at = iso_timestamp(args.seed);

    let mut csv = String::from("label,q1,q2,q3,q4,total\n");
    for (label, q) in &rows {
        csv.push_str(&format!("{label},{},{},{},{},{}\n", q[0], q[1], q[2], q[3], q.iter().sum::<u64>()));
    }
    let html = report_html(&args.title, &rows, totals, &generated_at, args.seed);

    let artifact = |name: &str, bytes: &[u8], mime: &str, description: &str, viewer: &str| ContractArtifact {
        name: name.to_owned(),
        b64: B64.encode(bytes),
        mime: mime.to_owned(),
        size: bytes.len() as u64,
        description: description.to_owned(),
        viewer: viewer.to_owned(),
    };
    Ok(ReportContract {
        results: ReportResults {
            summary: "Report generated".into(),
            title: args.title.clone(),
            rows: args.rows,
            quarter_totals: totals,
            grand_total,
        },
        meta_data: ReportMeta { rows: args.rows, columns: 6, seed: args.seed, generated_at },
        artifacts: vec![
            artifact("report.html", html.as_bytes(), "text/html", "The report, as HTML", "html"),
            artifact("chart.png", &chart_png, "image/png", "Sales by quarter", "image"),
            artifact("data.csv", csv.as_bytes(), "text/csv", "The data behind the report", "auto"),
        ],
        display: DisplayHints { open_canvas: true, primary_file: "report.html".into(), mode: args.mode, viewer_hint: "html".into() },
    })
}

/// The HTML report. It carries a `<script>` and an `onclick` handler on purpose: the canvas must
/// render it without running either.
fn report_html(title: &str, rows: &[(String, [u64; 4])], totals: [u64; 4], generated_at: &str, seed: u64) -> String {
    let title = escape_html(title);
    let mut body = String::new();
    for (label, q) in rows {
        body.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape_html(label),
            q[0],
            q[1],
            q[2],
            q[3],
            q.iter().sum::<u64>()
        ));
    }
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; color: #1f2330; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
th, td {{ border: 1px solid #d5d9e2; padding: 4px 10px; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
thead {{ background: #eef1f7; }}
tfoot {{ font-weight: bold; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>Generated {generated_at} (seed {seed}) by the MCP Canvas demo server: {n} rows, total {grand}.</p>
<p><button id="alarm" onclick="document.body.style.background='red'; alert('onclick ran: the canvas did not neutralise handlers')">Do not click</button></p>
<table>
<thead><tr><th>Label</th><th>Q1</th><th>Q2</th><th>Q3</th><th>Q4</th><th>Total</th></tr></thead>
<tbody>
{body}</tbody>
<tfoot><tr><td>Total</td><td>{t0}</td><td>{t1}</td><td>{t2}</td><td>{t3}</td><td>{grand}</td></tr></tfoot>
</table>
<p>The chart is attached as <code>chart.png</code> and the data as <code>data.csv</code>.</p>
<script>
document.body.insertAdjacentHTML('beforeend', '<p id="script-ran" style="color:red">SCRIPT RAN: the canvas did not neutralise scripts</p>');
</script>
</body>
</html>
"#,
        n = rows.len(),
        grand = totals.iter().sum::<u64>(),
        t0 = totals[0],
        t1 = totals[1],
        t2 = totals[2],
        t3 = totals[3],
    )
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

const WORKBOOK_NAMES: [&str; 12] = [
    "Sales", "Marketing", "Finance", "Operations", "Supply Chain", "Customer Success", "Executive Overview", "Inventory", "Web Traffic",
    "Pipeline", "Headcount", "Support Tickets",
];
const PROJECTS: [&str; 4] = ["Analytics", "Finance", "Operations", "Executive"];

fn workbooks(count: u32, seed: u64) -> Vec<serde_json::Value> {
    let mut rng = Rng::new(seed);
    let mut next_id = rng.range(100, 199);
    (0..count as usize)
        .map(|i| {
            let base = WORKBOOK_NAMES[i % WORKBOOK_NAMES.len()];
            let name = if i < WORKBOOK_NAMES.len() { base.to_owned() } else { format!("{base} {}", i / WORKBOOK_NAMES.len() + 1) };
            let id = next_id.to_string();
            next_id += rng.range(1, 400);
            json!({ "id": id, "name": name, "project": rng.pick(&PROJECTS) })
        })
        .collect()
}

/// Two small JSON files with one embedding vector each.
fn embedding_files(dimension: u32, seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng::new(seed);
    (1..=2)
        .map(|chunk| {
            let vector: Vec<f64> =
                (0..dimension).map(|_| ((rng.next_u64() % 2_000_001) as f64 / 1_000_000.0 - 1.0) * 1e6).map(|v| v.round() / 1e6).collect();
            let text = paragraph(&mut rng, 1);
            let file = json!({ "chunk": chunk, "text": text, "dimension": dimension, "embedding": vector });
            (format!("vec{chunk}.json"), serde_json::to_vec_pretty(&file).unwrap_or_default())
        })
        .collect()
}

/// Exactly `size` bytes of ASCII text in lines of words.
fn big_text(size: usize) -> String {
    let mut rng = Rng::new(7);
    let mut block = String::with_capacity(64 * 1024 + 256);
    let mut line_no = 1;
    while block.len() < 64 * 1024 {
        block.push_str(&format!("{line_no:06} {}\n", paragraph(&mut rng, 1)));
        line_no += 1;
    }
    let mut out = String::with_capacity(size);
    while out.len() < size {
        let take = (size - out.len()).min(block.len());
        out.push_str(&block[..take]);
    }
    out
}

/// `{"name", "format", "size", "data": <base64 of size bytes>}`: `head` then pseudo-random filler,
/// encoded in 3-byte-aligned chunks so the decoded bytes are never all held at once.
fn big_binary_json(name: &str, format: &str, head: &[u8], size: usize, seed: u64) -> String {
    const CHUNK: usize = 3 * 64 * 1024;
    let mut rng = Rng::new(seed);
    let filler: Vec<u8> = (0..(1 << 17)).flat_map(|_| rng.next_u64().to_le_bytes()).collect();
    let byte_at = |i: usize| if i < head.len() { head[i] } else { filler[(i - head.len()) % filler.len()] };

    let mut out = String::with_capacity(size.div_ceil(3) * 4 + 128);
    out.push_str(&format!("{{\"name\":\"{name}\",\"format\":\"{format}\",\"size\":{size},\"data\":\""));
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut position = 0;
    while position < size {
        let end = (position + CHUNK).min(size);
        chunk.clear();
        if position >= head.len() {
            // Fast path: copy filler runs.
            let mut i = position;
            while i < end {
                let offset = (i - head.len()) % filler.len();
                let run = (filler.len() - offset).min(end - i);
                chunk.extend_from_slice(&filler[offset..offset + run]);
                i += run;
            }
        } else {
            chunk.extend((position..end).map(byte_at));
        }
        B64.encode_string(&chunk, &mut out);
        position = end;
    }
    out.push_str("\"}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_deterministic_iso_8601() {
        for seed in [0, 1, 2, 99, u64::MAX] {
            let t = iso_timestamp(seed);
            assert_eq!(t, iso_timestamp(seed));
            assert_eq!(t.len(), 20, "{t}");
            assert!(t.starts_with("2025-") && t.ends_with('Z') && &t[10..11] == "T", "{t}");
            let month: u32 = t[5..7].parse().unwrap();
            let day: u32 = t[8..10].parse().unwrap();
            assert!((1..=12).contains(&month) && (1..=31).contains(&day), "{t}");
        }
        assert_ne!(iso_timestamp(1), iso_timestamp(2));
    }

    #[test]
    fn workbook_pdf_has_the_requested_pages() {
        for pages in [1, 3, 20] {
            let pdf = workbook_pdf("Sales Dashboard", "Workbook export", pages, 5).unwrap();
            let text = String::from_utf8_lossy(&pdf);
            let count = text.match_indices("/Type /Page").filter(|(i, _)| !text[i + 11..].starts_with('s')).count();
            assert_eq!(count, pages as usize);
        }
    }

    #[test]
    fn big_outputs_have_the_exact_size() {
        for size in [1, 2, 3, 17, 196_608, 196_609, 1_000_000] {
            assert_eq!(big_text(size).len(), size);
            let json: serde_json::Value = serde_json::from_str(&big_binary_json("b.pdf", "pdf", b"%PDF-1.4\n", size, 3)).unwrap();
            let bytes = B64.decode(json["data"].as_str().unwrap()).unwrap();
            assert_eq!(bytes.len(), size);
            assert_eq!(&bytes[..size.min(9)], &b"%PDF-1.4\n"[..size.min(9)]);
        }
    }

    #[test]
    fn report_is_the_v2_contract() {
        let args = MakeReportArgs { title: "T <b>".into(), rows: 30, mode: Mode::Split, seed: 4 };
        let value = serde_json::to_value(build_report(&args).unwrap()).unwrap();
        assert_eq!(value["display"]["mode"], "split");
        assert_eq!(value["display"]["primary_file"], "report.html");
        let names: Vec<&str> = value["artifacts"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["report.html", "chart.png", "data.csv"]);
        let html = String::from_utf8(B64.decode(value["artifacts"][0]["b64"].as_str().unwrap()).unwrap()).unwrap();
        assert!(html.contains("<script>") && html.contains("onclick=") && html.contains("T &lt;b&gt;"));
        let csv = String::from_utf8(B64.decode(value["artifacts"][2]["b64"].as_str().unwrap()).unwrap()).unwrap();
        assert_eq!(csv.lines().count(), 31);
    }

    #[test]
    fn input_schemas_describe_defaults_and_limits() {
        let schema = serde_json::Value::Object((*arguments::schema::<DownloadWorkbookArgs>()).clone());
        let pages = &schema["properties"]["pages"];
        assert_eq!((pages["minimum"].as_u64(), pages["maximum"].as_u64(), pages["default"].as_u64()), (Some(1), Some(500), Some(3)));
        assert!(pages["description"].as_str().unwrap().contains("pages"));
        assert_eq!(schema["additionalProperties"], false);
        let mode = serde_json::Value::Object((*arguments::schema::<MakeReportArgs>()).clone())["properties"]["mode"].clone();
        assert_eq!(mode["enum"], json!(["replace", "append", "split"]), "{mode}");
        assert_eq!(mode["default"], "replace");
        let size = serde_json::Value::Object((*arguments::schema::<BigOutputArgs>()).clone())["properties"]["size"].clone();
        assert_eq!(size["maximum"].as_u64(), Some(MAX_BIG_OUTPUT));
    }
}
