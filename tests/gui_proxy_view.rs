//! The proxy's own MCP App view (`ui://mcp-canvas/files`) in a real MCP Apps host: the MCP
//! Inspector (npm `@modelcontextprotocol/inspector`, `scripts/setup.sh --tests`) in WebKitGTK,
//! driven by `tests/inspector/drive.py` (its own Xvfb, WebKitWebDriver, one Inspector session).
//! `mcp-canvas-cli proxy` sits in front of the demo server with `image_max_bytes = 0`, so what
//! the Inspector shows as each tool result has no base64 at all, only the summary with its
//! reference; the view still shows the files: a chart drawn from its pixels, a 50-page PDF's
//! first page, a report's sanitized HTML in a frame with no permissions (its chart and CSV as
//! further file tabs), and the CSV's rows after a click on its tab. The frames are saved as
//! `target/gui-screenshots/proxy_view_<name>.png`; the time from Open App to the rendered file
//! is printed per call (`ready_ms`).
//!
//! Ignored by plain `cargo test` (needs Xvfb, WebKitWebDriver and the Inspector);
//! `scripts/test.sh` runs it in its GUI step.

use mcp_canvas_e2e::{
    binary,
    inspector::{assert_ok, run_driver},
    target_dir,
};
use serde_json::{json, Value};

/// JS (in the App frame): `pixels(canvas)` = {w, h, colors, nonwhite (fraction)} from
/// `getImageData`, and `problems()` = the texts of the view's error elements.
const HELPERS: &str = "const pixels = (c) => { if (!c) return null; \
     const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; const colors = new Set(); let nonwhite = 0; \
     for (let i = 0; i < d.length; i += 4) { colors.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]); \
       if (d[i + 3] > 0 && !(d[i] > 245 && d[i + 1] > 245 && d[i + 2] > 245)) nonwhite++; } \
     return { w: c.width, h: c.height, colors: colors.size, nonwhite: nonwhite / Math.max(1, d.length / 4) }; }; \
   const problems = () => [...document.querySelectorAll('.problem')].map((p) => p.textContent); \
   const shown = () => { const b = document.querySelector('section.body'); return b ? { viewer: b.dataset.viewer, id: b.dataset.id } : null; }; \
   const tabs = () => [...document.querySelectorAll('nav.files button.file')].map((b) => ({ id: b.dataset.id, name: b.querySelector('.name')?.textContent, current: b.classList.contains('current') }));";

fn probe(body: &str) -> String {
    format!("{HELPERS} return {{ state: document.body.dataset.state, shown: shown(), tabs: tabs(), problems: problems(), text: document.body.innerText.slice(0, 2000), {body} }};")
}

fn calls() -> Value {
    json!([
        {
            "name": "chart", "tool": "demo__render_chart", "args": {"values": [3, 8, 5, 12]}, "tools_tab": true,
            "ready": "document.querySelector('section.body[data-viewer=image] canvas[data-picture]')",
            "probe": probe("pixels: pixels(document.querySelector('canvas[data-picture]'))"),
        },
        {
            "name": "pdf", "tool": "demo__get_view_as_pdf", "args": {"pages": 50}, "tools_tab": true,
            "ready": "document.querySelector('section.body[data-viewer=pdf] .pdf canvas.page[data-page=\"1\"]')",
            "probe": probe("pixels: pixels(document.querySelector('.pdf canvas.page[data-page=\"1\"]'))"),
        },
        {
            "name": "report", "tool": "demo__make_report", "args": {"rows": 12}, "tools_tab": true,
            "ready": "document.querySelector('section.body[data-viewer=html] iframe.document')?.srcdoc",
            "probe": probe(
                "frame: (() => { const f = document.querySelector('section.body iframe.document'); \
                 return f ? { sandbox: f.getAttribute('sandbox'), has_table: /<table/i.test(f.srcdoc), has_script: /<script/i.test(f.srcdoc), srcdoc_len: f.srcdoc.length } : null; })()",
            ),
        },
        {
            "name": "csv", "tool": "demo__make_report", "args": {"rows": 12}, "tools_tab": false,
            "ready": "document.querySelector('section.body[data-viewer=html] iframe.document')?.srcdoc",
            "click": "nav.files button.file", "click_text": "data.csv",
            "after_click_ready": "document.querySelector('section.body[data-viewer=csv] .rows .row[data-row]')",
            "probe": probe(
                "rows: document.querySelectorAll('.rows .row[data-row]').length, \
                 header: [...document.querySelectorAll('.row.head .cell')].map((c) => c.textContent), \
                 first_row: [...(document.querySelector('.rows .row[data-row=\"0\"]')?.querySelectorAll('.cell') ?? [])].map((c) => c.textContent)",
            ),
        },
        {
            // A result with no files: the view shows nothing of its own and asks for no height.
            "name": "empty", "tool": "demo__summarize_numbers", "args": {"values": [2, 4, 9]}, "tools_tab": false,
            "ready": "document.body.dataset.state === 'empty'",
            "probe": probe("root_children: document.getElementById('root').children.length, height: Math.round(document.documentElement.getBoundingClientRect().height)"),
        },
    ])
}

fn f64_of(value: &Value) -> f64 {
    value.as_f64().unwrap_or_else(|| panic!("not a number: {value}"))
}

#[test]
#[ignore = "needs Xvfb, WebKitWebDriver and the MCP Inspector from npm; scripts/test.sh runs it in its GUI step"]
fn the_proxy_view_renders_files_in_the_mcp_inspector() {
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::write(data_dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    // No image inline for the model: the Inspector's result has no base64 at all.
    std::fs::write(data_dir.path().join("proxy.toml"), "image_max_bytes = 0\n").unwrap();
    let work = tempfile::tempdir().unwrap();
    let calls_file = work.path().join("calls.json");
    std::fs::write(&calls_file, calls().to_string()).unwrap();
    let out = work.path().join("shots");

    let (result, success) = run_driver(data_dir.path(), &calls_file, &out);
    assert_ok(&result, success);
    let calls = result["calls"].as_array().expect("calls in RESULT");
    let call = |name: &str| calls.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no {name} in {result}"));

    // Screenshots first, so a failed assertion below still leaves them to look at.
    let shots = target_dir().parent().unwrap().join("gui-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for c in calls {
        let name = c["name"].as_str().unwrap();
        let to = shots.join(format!("proxy_view_{name}.png"));
        std::fs::copy(c["frame_shot"].as_str().unwrap(), &to).unwrap();
        eprintln!("screenshot: {}", to.display());
    }
    let timings: Vec<String> = calls
        .iter()
        .map(|c| {
            let click = c.get("click_ready_ms").map(|ms| format!(" (+{ms} ms after the tab click)")).unwrap_or_default();
            format!("{} {} ms{click}", c["name"].as_str().unwrap(), c["ready_ms"])
        })
        .collect();
    eprintln!("proxy view in the MCP Inspector, ready_ms from Open App: {}", timings.join(", "));

    // What the Inspector shows as the tool result (what a model would get): no base64, no data:
    // image, and the summary with its reference.
    for c in calls.iter().filter(|c| c["tools_tab"].is_object()) {
        let shown = &c["tools_tab"]["shown"];
        assert_eq!(c["tools_tab"]["call_status"], "ok", "{}: {c}", c["name"]);
        assert_eq!(shown["has_base64_in_html"], false, "{}: base64 in the Inspector's result: {shown}", c["name"]);
        assert!(shown["imgs"].as_array().unwrap().iter().all(|src| !src.as_str().unwrap().starts_with("data:")), "{}: a data: image in the result: {shown}", c["name"]);
        assert!(shown["text"].as_str().unwrap().contains("Reference:"), "{}: no summary with its reference: {shown}", c["name"]);
    }
    for c in calls.iter().filter(|c| c["name"] != "empty") {
        let probe = &c["probe"];
        assert_eq!(probe["state"], "files", "{}: {probe}", c["name"]);
        assert_eq!(probe["problems"], json!([]), "{}: the view shows a problem: {probe}", c["name"]);
    }

    // No files: nothing of its own, no height asked for.
    let empty = &call("empty")["probe"];
    assert_eq!((empty["state"].as_str(), empty["root_children"].as_u64(), empty["problems"].clone()), (Some("empty"), Some(0), json!([])), "{empty}");
    assert!(f64_of(&empty["height"]) < 2.0, "the empty view takes room: {empty}");

    // The chart, drawn from its pixels.
    let chart = &call("chart")["probe"];
    assert_eq!(chart["shown"]["viewer"], "image", "{chart}");
    let pixels = &chart["pixels"];
    assert!(f64_of(&pixels["colors"]) >= 3.0 && f64_of(&pixels["nonwhite"]) >= 0.05, "the chart's canvas is blank: {pixels}");

    // The PDF's first page, painted, of 50.
    let pdf = &call("pdf")["probe"];
    assert_eq!(pdf["shown"]["viewer"], "pdf", "{pdf}");
    let pixels = &pdf["pixels"];
    assert!(f64_of(&pixels["colors"]) >= 3.0 && f64_of(&pixels["nonwhite"]) >= 0.01, "the PDF page's canvas is blank: {pixels}");
    assert!(pdf["text"].as_str().unwrap().contains("of 50"), "no page count: {pdf}");

    // The report: its HTML first, sanitized, in a frame with no permissions; its chart and data
    // as further file tabs.
    let report = &call("report")["probe"];
    assert_eq!(report["shown"]["viewer"], "html", "the report is not shown first: {report}");
    let frame = &report["frame"];
    assert_eq!(frame["sandbox"], "", "{frame}");
    assert_eq!(frame["has_table"], true, "{frame}");
    assert_eq!(frame["has_script"], false, "a script survived sanitizing: {frame}");
    let names: Vec<&str> = report["tabs"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap_or_default()).collect();
    assert_eq!(names, ["report.html", "chart.png", "data.csv"], "{report}");
    assert_eq!(report["tabs"][0]["id"], report["shown"]["id"], "the primary file's tab is the one shown: {report}");

    // The CSV, after a click on its tab.
    let csv = &call("csv")["probe"];
    assert_eq!(csv["shown"]["viewer"], "csv", "{csv}");
    assert!(f64_of(&csv["rows"]) >= 1.0, "{csv}");
    assert!(!csv["header"].as_array().unwrap().is_empty(), "no header cells: {csv}");
    let current: Vec<&Value> = csv["tabs"].as_array().unwrap().iter().filter(|t| t["current"] == true).collect();
    assert!(current.len() == 1 && current[0]["name"] == "data.csv", "the data.csv tab is not the current one: {csv}");
}
