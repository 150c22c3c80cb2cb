//! Data-driven tests: every `fixtures/*.json` holds a raw tool result and the normalized view of
//! it we expect. Run with `UPDATE_EXPECT=1` to rewrite the expectations, then review the diff.

use std::path::Path;

use mcp_canvas_contract::{normalize_tool_result, summarize, RawToolResult, StoredArtifactRef};
use serde_json::{json, Value};

fn view(result: &Value) -> Value {
    let raw = RawToolResult { server: "demo", tool: "fixture", result };
    match normalize_tool_result(raw) {
        Err(error) => json!({ "error": error.to_string() }),
        Ok(normalized) => {
            let refs: Vec<StoredArtifactRef> = normalized
                .binaries
                .iter()
                .enumerate()
                .map(|(i, b)| StoredArtifactRef {
                    id: format!("demo_{i:012}"),
                    name: b.name.clone(),
                    mime: b.mime.clone(),
                    size: b.bytes.len() as u64,
                })
                .collect();
            json!({
                "texts": normalized.texts.iter().map(|t| json!({"text": t.text, "mime": t.mime})).collect::<Vec<_>>(),
                "binaries": normalized.binaries.iter().map(|b| json!({
                    "name": b.name, "mime": b.mime, "size": b.bytes.len(), "source": b.source,
                    "head": String::from_utf8_lossy(&b.bytes[..b.bytes.len().min(8)]),
                })).collect::<Vec<_>>(),
                "structured": normalized.structured,
                "is_error": normalized.is_error,
                "warnings": normalized.warnings,
                "summary": summarize(&normalized, &refs),
            })
        }
    }
}

#[test]
fn fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut fixture: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let actual = view(&fixture["result"]);
        if update {
            fixture["expected"] = actual;
            std::fs::write(&path, serde_json::to_string_pretty(&fixture).unwrap() + "\n").unwrap();
        } else if fixture["expected"] != actual {
            failures.push(format!(
                "{}\nexpected: {}\nactual:   {}",
                path.display(),
                serde_json::to_string_pretty(&fixture["expected"]).unwrap(),
                serde_json::to_string_pretty(&actual).unwrap()
            ));
        }
        checked += 1;
    }
    assert!(checked >= 5, "expected at least 5 fixtures in {}, found {checked}", dir.display());
    assert!(failures.is_empty(), "{} fixture(s) differ (UPDATE_EXPECT=1 rewrites):\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn summary_never_carries_base64() {
    let payload = "iVBORw0KGgo".repeat(1000);
    let result = json!({"content": [{"type": "image", "data": payload, "mimeType": "image/png"}]});
    let summary = view(&result)["summary"].as_str().unwrap().to_owned();
    assert!(!summary.contains("iVBORw0KGgo"), "summary leaked base64: {summary}");
    assert!(summary.len() < 200, "summary is {} bytes", summary.len());
}
