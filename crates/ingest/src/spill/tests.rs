//! Spilling must not change a single outcome: every contract fixture, with each base64 payload
//! grown past the spill threshold, gives the same outcome (summary, artifacts, hashes, warnings)
//! read whole and read through the scanner — in one piece, in odd chunks, byte by byte, and with
//! every `/` written `\/`.

use std::{path::Path, sync::Arc};

use base64::Engine as _;
use mcp_canvas_contract::ExtractionConfig;
use mcp_canvas_store::ArtifactStore;
use serde_json::Value;

use mcp_canvas_store::spill::{Scanner, HEAD_CHARS};
use crate::Ingest;

fn ingest(dir: &Path) -> Ingest {
    Ingest {
        store: Arc::new(ArtifactStore::open(dir).unwrap()),
        probes: Arc::new(Vec::new()),
        extraction: Arc::new(ExtractionConfig::default()),
        session_id: "session".into(),
    }
}

/// Grows every base64 payload (bare, in a `data:` URL, in a JSON text) by ~40 KB of bytes.
fn inflate(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let Some(grown) = inflate_text(text) {
                *text = grown;
            }
        }
        Value::Object(map) => map.values_mut().for_each(inflate),
        Value::Array(items) => items.iter_mut().for_each(inflate),
        _ => {}
    }
}

fn inflate_text(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let mut inner: Value = serde_json::from_str(text).ok()?;
        inflate(&mut inner);
        return Some(serde_json::to_string(&inner).unwrap());
    }
    if let Some((header, data)) = text.split_once(";base64,").filter(|(h, _)| h.starts_with("data:")) {
        return inflate_base64(data).map(|data| format!("{header};base64,{data}"));
    }
    inflate_base64(text)
}

fn inflate_base64(text: &str) -> Option<String> {
    if text.len() < 16 {
        return None;
    }
    let mut bytes = base64::engine::general_purpose::STANDARD.decode(text).ok()?;
    let mut state = bytes.len() as u32 | 1;
    let extra = 40_000 + bytes.len() % 3;
    bytes.extend((0..extra).map(|_| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 24) as u8
    }));
    Some(base64::engine::general_purpose::STANDARD.encode(bytes))
}

fn outcome_of(ingest: &Ingest, message: &[u8], chunk: Option<usize>) -> (Value, usize) {
    match chunk {
        None => {
            let raw: Value = serde_json::from_slice(message).unwrap();
            (as_value(ingest.store_and_finish("demo", "fixture", raw, None, "call")), message.len())
        }
        Some(size) => {
            let mut scanner = Scanner::with_threshold(ingest.store.clone(), HEAD_CHARS + 4);
            for piece in message.chunks(size) {
                scanner.feed(piece).unwrap();
            }
            let (compact, spills) = scanner.finish().unwrap();
            let raw: Value = serde_json::from_slice(&compact).unwrap_or_else(|e| panic!("compacted message is JSON: {e}"));
            (as_value(ingest.store_and_finish_spilled("demo", "fixture", raw, Some(spills), None, "call")), compact.len())
        }
    }
}

fn as_value(outcome: Result<mcp_canvas_contract::ToolOutcome, crate::IngestError>) -> Value {
    match outcome {
        Ok(outcome) => serde_json::to_value(outcome).unwrap(),
        Err(e) => Value::String(e.to_string()),
    }
}

#[test]
fn spilled_results_give_the_same_outcome_as_whole_ones() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../contract/tests/fixtures");
    let mut paths: Vec<_> = std::fs::read_dir(&fixtures).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    paths.sort();
    assert!(paths.len() > 50, "fixtures found in {}", fixtures.display());
    let (mut shrunk, mut adopted) = (0, 0);
    for path in &paths {
        let fixture: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let Some(mut result) = fixture.get("result").cloned() else { continue };
        inflate(&mut result);
        let whole = serde_json::to_vec(&result).unwrap();
        let escaped = String::from_utf8(whole.clone()).unwrap().replace('/', "\\/").into_bytes();
        // PHP's json_encode: `/` escaped in the JSON text blocks too, so there `\\\/` ends runs.
        let php = {
            let mut result = result.clone();
            for block in result.get_mut("content").and_then(Value::as_array_mut).into_iter().flatten() {
                if let Some(Value::String(text)) = block.get_mut("text") {
                    if serde_json::from_str::<Value>(text).is_ok() {
                        *text = text.replace('/', "\\/");
                    }
                }
            }
            String::from_utf8(serde_json::to_vec(&result).unwrap()).unwrap().replace('/', "\\/").into_bytes()
        };
        let php_dir = tempfile::tempdir().unwrap();
        let (php_expected, _) = outcome_of(&ingest(php_dir.path()), &php, None);
        let php_spilled_dir = tempfile::tempdir().unwrap();
        let (php_outcome, _) = outcome_of(&ingest(php_spilled_dir.path()), &php, Some(8191));
        assert_eq!(php_outcome, php_expected, "{} with PHP's escaping", path.display());
        let plain_dir = tempfile::tempdir().unwrap();
        let (expected, _) = outcome_of(&ingest(plain_dir.path()), &whole, None);
        for (message, chunk) in [(&whole, 1 << 20), (&whole, 4093), (&whole, 1), (&escaped, 61)] {
            let dir = tempfile::tempdir().unwrap();
            let spilled = ingest(dir.path());
            let (outcome, compact_len) = outcome_of(&spilled, message, Some(chunk));
            assert_eq!(outcome, expected, "{} read in chunks of {chunk}", path.display());
            if chunk == 1 << 20 && compact_len + 30_000 < message.len() {
                shrunk += 1;
            }
            let temp_left: Vec<_> = std::fs::read_dir(dir.path().join("artifacts/tmp")).unwrap().collect();
            assert!(temp_left.is_empty(), "{}: spill files left behind: {temp_left:?}", path.display());
            if chunk == 1 << 20 {
                // Adopted blobs are the same files the whole read wrote.
                for artifact in outcome["artifacts"].as_array().into_iter().flatten() {
                    let sha = artifact["sha256"].as_str().unwrap();
                    let bytes = std::fs::read(spilled.store.blob_path(sha)).unwrap();
                    assert_eq!(bytes.len() as u64, artifact["size"].as_u64().unwrap());
                    adopted += usize::from(bytes.len() > 30_000);
                }
            }
        }
    }
    assert!(shrunk >= 20, "only {shrunk} fixtures had a run spilled");
    assert!(adopted >= 20, "only {adopted} large artifacts");
}

#[test]
fn a_run_is_spilled_whole_groups_only_and_put_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let ingest = ingest(dir.path());
    // Prose around a long run: not a binary, so the text is put back character for character.
    let run: String = (0..50_001).map(|i| b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 7) % 64] as char).collect();
    let text = format!("before \\u00e9{run}= after \\\"{run}\\\" end");
    let message = serde_json::to_vec(&serde_json::json!({ "content": [{ "type": "text", "text": text }] })).unwrap();
    let mut scanner = Scanner::with_threshold(ingest.store.clone(), HEAD_CHARS + 4);
    scanner.feed(&message).unwrap();
    let (compact, mut spills) = scanner.finish().unwrap();
    assert!(compact.len() < message.len() - 30_000, "runs spilled");
    let parsed: Value = serde_json::from_slice(&compact).unwrap();
    let restored = spills.restore_text(parsed["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(restored, text);
}

#[test]
fn an_escaped_jpeg_is_spilled_from_its_first_character_and_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let ingest = ingest(dir.path());
    let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0];
    jpeg.extend((0..90_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    let data = base64::engine::general_purpose::STANDARD.encode(&jpeg);
    assert!(data.starts_with("/9j/"));
    let message = format!(r#"{{"content":[{{"type":"image","mimeType":"image/jpeg","data":"{}"}}]}}"#, data.replace('/', "\\/"));
    let mut scanner = Scanner::new(ingest.store.clone());
    for piece in message.as_bytes().chunks(1000) {
        scanner.feed(piece).unwrap();
    }
    let (compact, mut spills) = scanner.finish().unwrap();
    let mut raw: Value = serde_json::from_slice(&compact).unwrap();
    super::prepare(&mut raw, &mut spills, &ExtractionConfig::default()).unwrap();
    let stand_in = raw["content"][0]["data"].as_str().unwrap().to_owned();
    assert!(stand_in.len() < 40_000 && stand_in.starts_with("/9j/"), "kept spilled, from its first character");
    let new = mcp_canvas_store::NewArtifact {
        name: "photo.jpg",
        mime: "image/jpeg",
        server: "demo",
        tool: "t",
        call_id: "c",
        session_id: "s",
        description: None,
        persistence: mcp_canvas_store::Persistence::Session,
        now_ms: 0,
    };
    let record = spills.adopt(&ingest.store, &stand_in, new).expect("a compact of this message").unwrap();
    assert_eq!(record.size, jpeg.len() as u64);
    assert_eq!(std::fs::read(ingest.store.blob_path(&record.sha256)).unwrap(), jpeg);
}

#[test]
fn a_store_that_cannot_take_a_run_is_an_error_not_a_wrong_message() {
    let dir = tempfile::tempdir().unwrap();
    let ingest = ingest(dir.path());
    std::fs::remove_dir_all(dir.path().join("artifacts/tmp")).unwrap();
    let message = format!(r#"{{"text":"{}"}}"#, "QUJD".repeat(30_000));
    let mut scanner = Scanner::new(ingest.store.clone());
    assert!(scanner.feed(message.as_bytes()).is_err(), "no temp dir: the spill cannot start");
}
