//! The document tools of `mcp-canvas-demo` (crates/demo/src/tools/documents.rs) through our real
//! pipeline: `mcp-canvas-cli call` → host → contract → store, checked against what the server sent
//! over raw JSON-RPC.

use std::path::Path;

use base64::Engine as _;
use mcp_canvas_e2e::{cli, demo_result_raw};
use serde_json::{json, Value};

/// `call demo <tool> --json`: the outcome, after checking the call succeeded.
fn call_ok(data_dir: &Path, tool: &str, arguments: &Value) -> Value {
    let run = cli(data_dir, &["call", "demo", tool, "--json", "--args", &arguments.to_string()]);
    assert_eq!(run.code, 0, "{tool} {arguments}: stdout {} stderr {}", run.stdout, run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).expect("--json prints one JSON object");
    assert_eq!(outcome["error"], Value::Null, "{outcome}");
    outcome
}

/// The stored bytes of an artifact of `outcome`.
fn stored(data_dir: &Path, artifact: &Value) -> Vec<u8> {
    let sha = artifact["sha256"].as_str().unwrap();
    let path = data_dir.join("artifacts/blobs").join(&sha[..2]).join(&sha[2..4]).join(sha);
    std::fs::read(&path).unwrap_or_else(|e| panic!("blob {}: {e}", path.display()))
}

/// The `result` of `tools/call` exactly as `mcp-canvas-demo` sends it, with no host in between.
/// The JSON in the (only) text block of a raw result.
fn raw_json_text(result: &Value) -> Value {
    let content = result["content"].as_array().unwrap_or_else(|| panic!("no content in {result}"));
    assert_eq!(content.len(), 1, "{result}");
    assert_eq!(content[0]["type"], "text");
    serde_json::from_str(content[0]["text"].as_str().unwrap()).expect("the text block is JSON")
}

fn b64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

/// `/Type /Page` objects, not `/Type /Pages`.
fn pdf_page_count(pdf: &[u8]) -> usize {
    let needle = b"/Type /Page";
    pdf.windows(needle.len() + 1).filter(|w| w.starts_with(needle) && w[needle.len()] != b's').count()
}

fn longest_base64_run(text: &str) -> usize {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '=')).map(str::len).max().unwrap_or(0)
}

fn names_and_mimes(outcome: &Value) -> Vec<(String, String)> {
    outcome["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap().to_owned(), a["mime"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn make_report_gives_html_png_csv_with_the_display_intent() {
    let dir = tempfile::tempdir().unwrap();
    for (arguments, mode) in [(json!({"rows": 5, "mode": "split", "seed": 3}), "split"), (json!({"mode": "append"}), "append"), (json!({}), "replace")] {
        let outcome = call_ok(dir.path(), "make_report", &arguments);
        assert_eq!(
            names_and_mimes(&outcome),
            [("report.html", "text/html"), ("chart.png", "image/png"), ("data.csv", "text/csv")].map(|(n, m)| (n.to_owned(), m.to_owned())),
            "{outcome}"
        );
        let html = &outcome["artifacts"][0];
        assert_eq!(outcome["display"]["primary"], html["id"], "{arguments}: {}", outcome["display"]);
        assert_eq!(outcome["display"]["mode"], mode, "{arguments}");
        assert_eq!(outcome["display"]["open_canvas"], true);
        assert_eq!(outcome["results"]["summary"], "Report generated");
        assert_eq!(outcome["warnings"], json!([]), "{outcome}");
    }

    // The stored bytes are exactly what the server sent, script and handler included: the canvas,
    // not the store, is what neutralises them.
    let arguments = json!({"rows": 5, "mode": "split", "seed": 3});
    let outcome = call_ok(dir.path(), "make_report", &arguments);
    let raw = demo_result_raw("make_report", arguments);
    let sent = raw_json_text(&raw);
    assert_eq!(raw["structuredContent"], sent, "structuredContent repeats the JSON text block");
    for (i, artifact) in outcome["artifacts"].as_array().unwrap().iter().enumerate() {
        assert!(stored(dir.path(), artifact) == b64(sent["artifacts"][i]["b64"].as_str().unwrap()), "{}", artifact["name"]);
    }
    let html = String::from_utf8(stored(dir.path(), &outcome["artifacts"][0])).unwrap();
    assert!(html.contains("<script>") && html.contains("onclick="), "the report carries a script and a handler on purpose");
    let csv = String::from_utf8(stored(dir.path(), &outcome["artifacts"][2])).unwrap();
    assert_eq!(csv.lines().count(), 6, "header and 5 rows: {csv}");
    assert_eq!(outcome["meta"], sent["meta_data"]);
    let summary = outcome["summary"].as_str().unwrap();
    assert!(longest_base64_run(summary) < 40, "{summary}");
}

#[test]
fn download_workbook_is_one_stored_pdf_with_the_requested_pages() {
    let dir = tempfile::tempdir().unwrap();
    for pages in [1, 4, 500] {
        let arguments = json!({"name": "Quarterly Review", "pages": pages, "seed": 11});
        let outcome = call_ok(dir.path(), "download_workbook", &arguments);
        assert_eq!(names_and_mimes(&outcome), [("Quarterly Review.pdf".to_owned(), "application/pdf".to_owned())], "{outcome}");
        let artifact = &outcome["artifacts"][0];
        let pdf = stored(dir.path(), artifact);
        assert!(pdf.starts_with(b"%PDF-"), "stored bytes are a PDF");
        assert_eq!(pdf_page_count(&pdf), pages, "pages={pages}");
        assert_eq!(outcome["results"], json!({"content": format!("artifact:{}", artifact["id"].as_str().unwrap()), "name": "Quarterly Review", "format": "pdf"}));

        let summary = outcome["summary"].as_str().unwrap();
        assert!(summary.contains("Quarterly Review"), "the summary names the workbook: {summary}");
        assert!(summary.contains(artifact["id"].as_str().unwrap()), "{summary}");
        assert!(!summary.contains("JVBERi"), "{summary}");
        assert!(longest_base64_run(summary) < 40, "{summary}");
    }

    // The Tableau shape exactly: plain JSON in one text block, no mimeType, no structuredContent.
    let arguments = json!({"name": "Quarterly Review", "pages": 4, "seed": 11});
    let raw = demo_result_raw("download_workbook", arguments.clone());
    assert!(raw.get("structuredContent").is_none(), "{}", raw["structuredContent"]);
    assert!(raw["content"][0].get("mimeType").is_none());
    let sent = raw_json_text(&raw);
    assert_eq!(sent["name"], "Quarterly Review");
    assert_eq!(sent["format"], "pdf");
    assert!(sent["content"].as_str().unwrap().starts_with("JVBERi"));
    // Deterministic: the same arguments give the same bytes, hence the same artifact id.
    let first = call_ok(dir.path(), "download_workbook", &arguments);
    let second = call_ok(dir.path(), "download_workbook", &arguments);
    assert_eq!(first["artifacts"][0]["id"], second["artifacts"][0]["id"]);
    assert!(stored(dir.path(), &first["artifacts"][0]) == b64(sent["content"].as_str().unwrap()));
}

#[test]
fn get_view_as_pdf_keeps_the_other_fields() {
    let dir = tempfile::tempdir().unwrap();
    let arguments = json!({"view_name": "Revenue by Region", "seed": 5});
    let outcome = call_ok(dir.path(), "get_view_as_pdf", &arguments);
    assert_eq!(names_and_mimes(&outcome), [("Revenue by Region.pdf".to_owned(), "application/pdf".to_owned())]);
    let sent = raw_json_text(&demo_result_raw("get_view_as_pdf", arguments));
    let generated_at = sent["generated_at"].as_str().unwrap();
    assert!(generated_at.len() == 20 && generated_at.ends_with('Z') && &generated_at[10..11] == "T", "{generated_at}");
    assert_eq!(outcome["results"]["generated_at"], generated_at);
    assert_eq!(outcome["results"]["view_name"], "Revenue by Region");
    assert_eq!(outcome["results"]["pdf_data"], format!("artifact:{}", outcome["artifacts"][0]["id"].as_str().unwrap()));
    assert_eq!(pdf_page_count(&stored(dir.path(), &outcome["artifacts"][0])), 1);
}

#[test]
fn list_workbooks_passes_through_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for arguments in [json!({}), json!({"count": 20, "seed": 9})] {
        let outcome = call_ok(dir.path(), "list_workbooks", &arguments);
        assert_eq!(outcome["artifacts"], json!([]), "{outcome}");
        assert_eq!(outcome["warnings"], json!([]), "{outcome}");
        let sent = raw_json_text(&demo_result_raw("list_workbooks", arguments.clone()));
        assert_eq!(outcome["results"], sent, "results are the JSON the server sent");
        assert_eq!(sent["workbooks"].as_array().unwrap().len(), arguments["count"].as_u64().unwrap_or(2) as usize);
    }
}

#[test]
fn legacy_embeddings_gives_two_json_files() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = call_ok(dir.path(), "legacy_embeddings", &json!({"dimension": 16}));
    assert_eq!(
        names_and_mimes(&outcome),
        [("vec1.json", "application/json"), ("vec2.json", "application/json")].map(|(n, m)| (n.to_owned(), m.to_owned())),
        "{outcome}"
    );
    for artifact in outcome["artifacts"].as_array().unwrap() {
        let file: Value = serde_json::from_slice(&stored(dir.path(), artifact)).expect("a JSON vector file");
        assert_eq!(file["embedding"].as_array().unwrap().len(), 16);
    }
    assert_eq!(outcome["results"], "Generated embeddings (see files)");
    assert_eq!(outcome["meta"], json!({"dimension": 16, "chunks": 2}));
}

#[test]
fn annotations_decide_who_reads_what() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = call_ok(dir.path(), "annotated", &json!({}));
    let summary = outcome["summary"].as_str().unwrap();
    assert!(summary.contains("For the assistant"), "{summary}");
    assert!(!summary.contains("For you"), "user-only text stays out of the summary: {summary}");
    let texts = outcome["texts"].as_array().unwrap();
    assert!(texts.iter().any(|t| t["audience"] == "user" && t["text"].as_str().unwrap().starts_with("For you")), "{outcome}");
    assert_eq!(names_and_mimes(&outcome).len(), 1);
    assert_eq!(outcome["artifacts"][0]["mime"], "image/png");
}

#[test]
fn list_files_links_the_resources() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = call_ok(dir.path(), "list_files", &json!({}));
    let summary = outcome["summary"].as_str().unwrap();
    for uri in ["demo://guide.md", "demo://chart.png", "demo://sample.pdf", "demo://chart/3,1,4,1,5,9"] {
        assert!(summary.contains(uri), "{uri} not in {summary}");
    }
    let raw = demo_result_raw("list_files", json!({}));
    let links = raw["content"].as_array().unwrap().iter().filter(|b| b["type"] == "resource_link").count();
    assert_eq!(links, 4, "{raw}");
}

#[test]
fn big_output_of_a_given_size() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = call_ok(dir.path(), "big_output", &json!({"kind": "binary", "size": 300_000, "format": "pdf"}));
    assert_eq!(names_and_mimes(&outcome), [("big_output.pdf".to_owned(), "application/pdf".to_owned())]);
    assert_eq!(outcome["artifacts"][0]["size"], 300_000);
    let outcome = call_ok(dir.path(), "big_output", &json!({"kind": "binary", "size": 300_000, "format": "png"}));
    assert_eq!(names_and_mimes(&outcome), [("big_output.png".to_owned(), "image/png".to_owned())]);
    let outcome = call_ok(dir.path(), "big_output", &json!({"kind": "text", "size": 50_000}));
    assert_eq!(outcome["artifacts"].as_array().unwrap().len(), 1, "long text goes to the safety net: {outcome}");
    assert_eq!(outcome["artifacts"][0]["size"], 50_000);
    assert!(outcome["summary"].as_str().unwrap().len() <= 2_000);
}

/// Each limit is refused twice over: the demo itself answers a tool error (isError) naming the
/// field and what it accepts (raw JSON-RPC, no host in between), and our host never even sends
/// such a call — it checks the tool's inputSchema first (CLI exit 1, the field named).
#[test]
fn invalid_arguments_are_tool_errors_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, Value, &[&str])] = &[
        ("download_workbook", json!({"pages": 0}), &["`pages`", "1 to 500", "got 0"]),
        ("download_workbook", json!({"pages": 501}), &["`pages`", "1 to 500", "got 501"]),
        ("download_workbook", json!({"pages": "3"}), &["`pages`", "integer"]),
        ("download_workbook", json!({"name": "a\nb"}), &["`name`", "control characters"]),
        ("download_workbook", json!({"colour": "red"}), &["`colour`", "name, pages, seed"]),
        ("big_output", json!({"size": 209_715_201}), &["`size`", "1 to 209715200", "got 209715201"]),
        ("big_output", json!({"kind": "video"}), &["`kind`", "text, binary"]),
        ("make_report", json!({"mode": "sideways"}), &["`mode`", "replace, append, split"]),
        ("make_report", json!({"rows": 1001}), &["`rows`", "1 to 1000"]),
        ("get_view_as_pdf", json!({"pages": 51}), &["`pages`", "1 to 50"]),
        ("list_workbooks", json!({"count": 0}), &["`count`", "1 to 100"]),
        ("legacy_embeddings", json!({"dimension": 4096}), &["`dimension`", "1 to 1536"]),
    ];
    for (tool, arguments, needles) in cases {
        let raw = demo_result_raw(tool, arguments.clone());
        assert_eq!(raw["isError"], true, "{tool} {arguments}: {raw}");
        let message = raw["content"][0]["text"].as_str().unwrap_or_default();
        for needle in *needles {
            assert!(message.contains(needle), "{tool} {arguments}: `{needle}` not in {message:?}");
        }

        let run = cli(dir.path(), &["call", "demo", tool, "--json", "--args", &arguments.to_string()]);
        let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
        let host_message = outcome["error"]["message"].as_str().unwrap_or_default().to_owned();
        if run.code == 1 {
            // Refused by our inputSchema check before the call.
            let field = needles[0].trim_matches('`');
            assert!(host_message.contains("do not match its input schema") && host_message.contains(field), "{tool} {arguments}: {host_message}");
        } else {
            // Constraints a JSON Schema cannot express (control characters) reach the tool.
            assert_eq!(run.code, 2, "{tool} {arguments}: stdout {} stderr {}", run.stdout, run.stderr);
            assert!(host_message.contains(needles[0]), "{tool} {arguments}: {host_message}");
        }
        assert_eq!(outcome["artifacts"], json!([]));
    }
}

/// Documents a host limitation: a result line over 16 MiB (rmcp's default stdio line limit) is
/// dropped by the client transport, and the call ends in a timeout instead of an answer.
#[test]
fn big_output_over_16_mib_reaches_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let arguments = json!({"kind": "binary", "size": 20_000_000});
    let run = cli(dir.path(), &["call", "demo", "big_output", "--json", "--timeout", "600", "--args", &arguments.to_string()]);
    assert_eq!(run.code, 0, "stdout {} stderr {}", run.stdout, run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(outcome["artifacts"][0]["size"], 20_000_000);
}
