//! Data-driven tests: every `fixtures/*.json` holds a raw tool result and the outcome we expect.
//!
//! A fixture: `{"about": "...", "server"?: "demo", "tool"?: "fixture", "rules_toml"?: "...",
//! "output_schema"?: {...}, "result": <raw CallToolResult>, "expected": <outcome>}`.
//! Artifacts are "stored" by hashing their bytes (ids as the real store makes them), so ids are
//! real content hashes. `expected.artifact_heads` shows the first bytes of each artifact.
//!
//! `UPDATE_EXPECT=1 cargo test -p mcp-canvas-contract --test fixtures` rewrites expectations;
//! review the diff before committing.

use std::{io::Read, path::Path};

use mcp_canvas_contract::{ExtractionConfig, Normalizer, RawToolResult, StoredArtifact};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// Normalizes `fixture["result"]` and returns what we compare.
pub fn check_view(fixture: &Value) -> Value {
    let server = fixture["server"].as_str().unwrap_or("demo");
    let tool = fixture["tool"].as_str().unwrap_or("fixture");
    let config = match fixture["rules_toml"].as_str() {
        Some(text) => match ExtractionConfig::from_toml(text) {
            Ok(config) => config,
            Err(e) => return json!({ "config_error": e.to_string() }),
        },
        None => ExtractionConfig::default(),
    };
    let raw = RawToolResult { server, tool, result: fixture["result"].clone(), output_schema: fixture.get("output_schema") };
    let normalized = match Normalizer::new(&config).normalize(raw) {
        Ok(n) => n,
        Err(e) => return json!({ "error": e.to_string() }),
    };
    let mut heads = Vec::new();
    let stored: Vec<_> = normalized
        .pending
        .iter()
        .map(|p| {
            let mut bytes = Vec::new();
            p.payload.reader().read_to_end(&mut bytes).map_err(|e| e.to_string())?;
            heads.push(String::from_utf8_lossy(&bytes[..bytes.len().min(16)]).into_owned());
            let sha = format!("{:x}", Sha256::digest(&bytes));
            Ok(StoredArtifact { id: format!("{server}_{}", &sha[..12]), sha256: sha, size: bytes.len() as u64, ..Default::default() })
        })
        .collect();
    let outcome = normalized.finish(stored, &config);
    let mut view = serde_json::to_value(&outcome).unwrap();
    view["artifact_heads"] = json!(heads);
    view
}

#[test]
fn fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    paths.sort();
    let mut failures = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let mut fixture: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let actual = check_view(&fixture);
        if update {
            fixture["expected"] = actual;
            std::fs::write(path, serde_json::to_string_pretty(&fixture).unwrap() + "\n").unwrap();
        } else if fixture["expected"] != actual {
            failures.push(format!(
                "{}\nexpected: {}\nactual:   {}",
                path.display(),
                serde_json::to_string_pretty(&fixture["expected"]).unwrap(),
                serde_json::to_string_pretty(&actual).unwrap()
            ));
        }
    }
    assert!(paths.len() >= 5, "expected fixtures in {}, found {}", dir.display(), paths.len());
    assert!(failures.is_empty(), "{} of {} fixtures differ (UPDATE_EXPECT=1 rewrites):\n{}", failures.len(), paths.len(), failures.join("\n\n"));
}
