//! Chart tools: `render_chart` (MCP image content) and `summarize_numbers` (text).

use base64::Engine as _;
use rmcp::{
    handler::server::wrapper::Parameters,
    model::{CallToolResult, ContentBlock},
    schemars, tool, tool_router, ErrorData,
};
use serde::Deserialize;

use super::DemoServer;
use crate::chart;

fn default_values() -> Vec<f64> {
    vec![3.0, 7.0, 4.0, 9.0, 5.0]
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RenderChartArgs {
    /// The numbers to plot, one bar each (1 to 64 values, each >= 0).
    #[serde(default = "default_values")]
    #[schemars(default = "default_values")]
    pub values: Vec<f64>,
    /// A title for the chart, repeated in the text that accompanies the image.
    #[serde(default)]
    pub title: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SummarizeArgs {
    /// The numbers to summarize.
    #[serde(default = "default_values")]
    #[schemars(default = "default_values")]
    pub values: Vec<f64>,
}

#[tool_router(router = chart_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        title = "Render a bar chart",
        description = "Draws the given numbers as a bar chart and returns it as a PNG image.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn render_chart(
        &self,
        Parameters(args): Parameters<RenderChartArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let png = chart::bar_chart_png(&args.values)
            .map_err(|reason| ErrorData::invalid_params(reason, None))?;
        let encoded = base64::engine::general_purpose::STANDARD.encode(&png);
        let title = args.title.as_deref().unwrap_or("Bar chart");
        let text = format!(
            "{title}: {} bars, highest {}.",
            args.values.len(),
            args.values.iter().cloned().fold(f64::MIN, f64::max)
        );
        Ok(CallToolResult::success(vec![
            ContentBlock::text(text),
            ContentBlock::image(encoded, "image/png"),
        ]))
    }

    #[tool(
        title = "Summarize numbers",
        description = "Returns count, minimum, maximum and mean of the given numbers as text.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn summarize_numbers(
        &self,
        Parameters(args): Parameters<SummarizeArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if args.values.is_empty() {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "`values` is empty: give at least one number.",
            )]));
        }
        let n = args.values.len() as f64;
        let min = args.values.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = args.values.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let mean = args.values.iter().sum::<f64>() / n;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "count {n}, min {min}, max {max}, mean {mean:.3}"
        ))]))
    }
}

