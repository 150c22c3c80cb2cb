//! Properties of the contract over generated results:
//! 1. arbitrary JSON — as the raw result, as a JSON text block, as `structuredContent` — never panics;
//! 2. no run of 1,024+ base64-alphabet characters reaches the summary, wherever big base64 (of
//!    random bytes or of English) is put;
//! 3. the summary never exceeds the configured `max_summary_chars`;
//! 4. normalizing the same input twice gives the same artifact names, ids and MIME types;
//! 5. whatever a server declares as a MIME type, what the outcome holds is a canonical media type
//!    (printable ASCII, at most 255 bytes) and the summary carries no control character.

use std::io::Read;

use base64::{engine::general_purpose, Engine as _};
use mcp_canvas_contract::{parse_media_type, ExtractionConfig, Normalizer, RawToolResult, StoredArtifact, ToolOutcome, MAX_MEDIA_TYPE_LEN};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// Normalizes, "stores" every pending artifact by hashing its bytes (ids as the real store makes
/// them), and finishes.
fn run(result: Value, config: &ExtractionConfig) -> Option<ToolOutcome> {
    let raw = RawToolResult { server: "prop", tool: "generated", result, output_schema: None };
    let normalized = Normalizer::new(config).normalize(raw).ok()?;
    let stored = normalized
        .pending
        .iter()
        .map(|p| {
            let mut bytes = Vec::new();
            p.payload.reader().read_to_end(&mut bytes).map_err(|e| e.to_string())?;
            let sha = format!("{:x}", Sha256::digest(&bytes));
            Ok(StoredArtifact { id: format!("prop_{}", &sha[..12]), sha256: sha, size: bytes.len() as u64, ..Default::default() })
        })
        .collect();
    Some(normalized.finish(stored, config))
}

fn longest_base64_run(text: &str) -> usize {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_'))).map(str::len).max().unwrap_or(0)
}

// ------------------------------------------------------------------------------------- strategies

const MAGIC: &[&[u8]] = &[b"", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", b"%PDF-1.4\n", b"GIF89a", b"PK\x03\x04", b"<!DOCTYPE html><html>", b"<svg xmlns='x'>", b"\xff\xd8\xff\xe0\0\x10JFIF\0"];

const WORDS: &[&str] = &["the", "quarterly", "report", "shows", "revenue", "growth", "across", "all", "regions,", "and", "churn", "fell.", "Hiring", "slowed", "in", "Q3;", "risks", "remain", "open", "for", "next", "year.\n"];

/// Random bytes, sometimes behind a real file signature.
fn binary(max: usize) -> impl Strategy<Value = Vec<u8>> {
    (0..MAGIC.len(), prop::collection::vec(any::<u8>(), 0..max)).prop_map(|(m, mut rest)| {
        let mut bytes = MAGIC[m].to_vec();
        bytes.append(&mut rest);
        bytes
    })
}

fn english(max_words: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..max_words).prop_map(|w| w.join(" "))
}

/// Base64 the way servers write it: standard or URL-safe, padded or not, sometimes line-wrapped.
fn encode(bytes: &[u8], style: u8) -> String {
    match style % 4 {
        0 => general_purpose::STANDARD.encode(bytes),
        1 => general_purpose::URL_SAFE_NO_PAD.encode(bytes),
        2 => {
            let text = general_purpose::STANDARD.encode(bytes);
            text.as_bytes().chunks(76).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join("\r\n")
        }
        _ => general_purpose::STANDARD_NO_PAD.encode(bytes),
    }
}

/// Strings that look like (or are) encoded payloads.
fn base64ish(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        (binary(max), any::<u8>()).prop_map(|(b, s)| encode(&b, s)),
        (english(max / 5), any::<u8>()).prop_map(|(t, s)| encode(t.as_bytes(), s)),
        (binary(max), prop::sample::select(&["image/png", "application/pdf", "text/plain", "image/svg+xml", "nonsense"][..]))
            .prop_map(|(b, m)| format!("data:{m};base64,{}", general_purpose::STANDARD.encode(b))),
        english(20).prop_map(|t| format!("data:text/plain,{}", t.replace(' ', "%20"))),
        "[A-Za-z0-9+/]{0,300}={0,2}",
        "[0-9a-f]{0,400}",
    ]
}

const KEYS: &[&str] = &[
    "content", "type", "text", "data", "mimeType", "blob", "resource", "uri", "name", "annotations", "audience", "priority",
    "results", "artifacts", "b64", "mime", "size", "viewer", "display", "primary_file", "mode", "viewer_hint", "open_canvas",
    "canvas", "url", "id", "persistence", "meta_data", "returned_file_names", "returned_file_contents", "kind", "message",
    "needsInput", "fields", "suggestions", "options", "code", "isError", "structuredContent", "filename", "title", "pdf_data",
];

fn key() -> impl Strategy<Value = String> {
    prop_oneof![3 => prop::sample::select(KEYS).prop_map(str::to_owned), 1 => "[a-z_]{1,8}"]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-2.0f64..2.0).prop_map(|n| json!(n)),
        prop::sample::select(&["text", "image", "audio", "resource", "resource_link", "user", "assistant", "needsInput:v1", "toolError:v1", "split", "javascript:alert(1)", "https://a.example/x", "../../etc/passwd", "<!-- kind:x:v1 -->"][..])
            .prop_map(|s| Value::String(s.to_owned())),
        ".{0,40}".prop_map(Value::String),
        base64ish(600).prop_map(Value::String),
    ]
}

/// Arbitrary JSON of bounded depth, biased towards the keys the contract reads.
fn arb_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6).prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Big base64 (KBs) of random bytes or of English text.
fn big_base64() -> impl Strategy<Value = String> {
    prop_oneof![
        (binary(12_000), 1_000usize..12_000, any::<u8>()).prop_map(|(mut b, n, s)| {
            b.resize(n.max(b.len()), 0x5a);
            encode(&b, s)
        }),
        (english(2_500), any::<u8>()).prop_map(|(t, s)| encode(t.as_bytes(), s)),
    ]
}

/// A result with `big` placed somewhere a server could put it.
fn with_big(big: String, place: u8) -> Value {
    let data_url = format!("data:application/octet-stream;base64,{big}");
    match place % 16 {
        0 => json!({"content": [{"type": "text", "text": big}]}),
        1 => json!({"content": [{"type": "text", "text": format!("Here it is: {big} — done")}]}),
        2 => json!({"content": [{"type": "text", "text": format!("![x]({data_url}) and more")}]}),
        3 => json!({"structuredContent": {"deep": [{"file": {"bytes": big}}]}}),
        4 => json!({"content": [{"type": "image", "data": big, "mimeType": "image/png"}]}),
        5 => json!({"content": [{"type": "text", "text": json!({"results": big, "artifacts": [{"name": big, "b64": "!!", "description": big}]}).to_string()}]}),
        6 => json!({"structuredContent": {"kind": "needsInput:v1", "message": big, "needsInput": {"fields": [big], "suggestions": {"q": [big]}}}}),
        7 => json!({"structuredContent": {"kind": "toolError:v1", "code": big, "message": big}, "isError": true}),
        8 => json!({"content": [{"type": "resource_link", "uri": data_url, "name": big, "description": big}]}),
        9 => json!({"structuredContent": {"results": "r", "canvas": {"id": big, "url": format!("https://x.example/{big}"), "title": big}}}),
        10 => json!({"structuredContent": {"results": "r", "artifacts": [{"name": "a.bin", "b64": big}], "display": {"primary_file": big, "mode": big, "viewer_hint": big}}}),
        11 => json!({"structuredContent": {"results": "r", "returned_file_names": [big], "returned_file_contents": ["not base64!"]}}),
        12 => json!({"content": [{"type": big, "text": big}, {"type": "resource", "resource": {"uri": big, "blob": big, "mimeType": big}}]}),
        13 => json!({"structuredContent": {"results": "r", "meta_data": {"blob": big}}}),
        14 => json!({"content": [{"type": "text", "text": big, "annotations": {"audience": ["assistant"]}}], "isError": true}),
        _ => json!({"content": [{"type": "text", "text": format!("{}\n{}", &big[..big.len() / 2], &big[big.len() / 2..])}]}),
    }
}

/// What a server may write as a MIME type: anything, hostile things, near misses, valid ones.
fn declared_mime() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\\x00-\\x7f]{0,64}",
        ("[a-zA-Z]{1,8}/[a-zA-Z+.-]{1,12}", prop::sample::select(&["", ";", ";;", "; charset=utf-8", "; q=\"a b\"", "\r\nX-Evil: 1", "\u{0}", "\u{1b}[31m", " ; x=\"\n\"", ";=", "é"][..]))
            .prop_map(|(m, tail)| format!("{m}{tail}")),
        (1usize..12_000).prop_map(|n| format!("image/{}", "p".repeat(n))),
        prop::sample::select(&["image/png", "IMAGE/PNG", "image/png; charset=\"x\"", "text/html;;", "", "  ", "text/markdown"][..]).prop_map(str::to_owned),
    ]
}

// ------------------------------------------------------------------------------------- properties

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    /// (1) Whatever JSON arrives — as the result, as a JSON text block, as structuredContent, as
    /// content blocks — normalizing and finishing never panics.
    #[test]
    fn arbitrary_json_never_panics(value in arb_json(), blocks in prop::collection::vec(arb_json(), 0..4)) {
        let config = ExtractionConfig::default();
        let _ = run(value.clone(), &config);
        let _ = run(json!({"content": [{"type": "text", "text": value.to_string()}]}), &config);
        let _ = run(json!({"content": [{"type": "text", "text": value.to_string(), "mimeType": "application/json"}], "structuredContent": value.clone()}), &config);
        let _ = run(json!({"content": blocks, "isError": true}), &config);
    }

    /// (2) and (3): no 1 KB base64 run in the summary, and the summary within its bound.
    #[test]
    fn summaries_are_bounded_and_never_carry_big_base64(big in big_base64(), place in any::<u8>(), max in prop_oneof![0usize..300, 300usize..4_000]) {
        let config = ExtractionConfig { max_summary_chars: max, ..ExtractionConfig::default() };
        let outcome = run(with_big(big, place), &config).expect("an object result");
        let run_len = longest_base64_run(&outcome.summary);
        prop_assert!(run_len < 1024, "a {}-character base64 run in the summary:\n{}", run_len, outcome.summary);
        prop_assert!(outcome.summary.chars().count() <= max, "summary of {} characters over max {}:\n{}", outcome.summary.chars().count(), max, outcome.summary);
    }

    /// (3) also for arbitrary results and small limits.
    #[test]
    fn summary_never_exceeds_max_for_arbitrary_results(value in arb_json(), max in 0usize..2_500) {
        let config = ExtractionConfig { max_summary_chars: max, ..ExtractionConfig::default() };
        for result in [value.clone(), json!({"content": [{"type": "text", "text": value.to_string()}]})] {
            if let Some(outcome) = run(result, &config) {
                prop_assert!(outcome.summary.chars().count() <= max, "{} > {}:\n{}", outcome.summary.chars().count(), max, outcome.summary);
                prop_assert!(longest_base64_run(&outcome.summary) < 1024);
            }
        }
    }

    /// (4) The same input normalized twice gives the same artifact names, ids and MIME types.
    #[test]
    fn artifact_ids_and_names_are_stable(big in big_base64(), place in any::<u8>(), value in arb_json()) {
        let config = ExtractionConfig::default();
        for input in [with_big(big, place), json!({"structuredContent": value})] {
            let first = run(input.clone(), &config).expect("an object result");
            let second = run(input, &config).expect("an object result");
            let key = |o: &ToolOutcome| o.artifacts.iter().map(|a| (a.id.clone(), a.name.clone(), a.mime.clone(), a.source.clone())).collect::<Vec<_>>();
            prop_assert_eq!(key(&first), key(&second));
            prop_assert_eq!(&first.summary, &second.summary);
            prop_assert_eq!(&first.warnings, &second.warnings);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// (5) Declared types, wherever a server can put one, come out canonical or not at all, and
    /// the summary stays free of control characters.
    #[test]
    fn declared_mime_types_come_out_canonical(mime in declared_mime(), bytes in binary(200)) {
        let data = general_purpose::STANDARD.encode(&bytes);
        let result = json!({
            "content": [
                {"type": "image", "data": data, "mimeType": mime},
                {"type": "resource", "resource": {"uri": "file:///r/blob", "mimeType": mime, "blob": general_purpose::STANDARD.encode(b"blob words")}},
                {"type": "resource", "resource": {"uri": "file:///r/text.txt", "mimeType": mime, "text": "some text"}},
                {"type": "text", "text": "words", "mimeType": mime},
            ],
            "structuredContent": {"results": "r", "artifacts": [{"name": "a.bin", "b64": general_purpose::STANDARD.encode(b"v2 bytes here"), "mime": mime}]},
        });
        let outcome = run(result, &ExtractionConfig::default()).expect("an object result");
        let canonical = |m: &str| m.len() <= MAX_MEDIA_TYPE_LEN && parse_media_type(m).as_deref() == Ok(m);
        for artifact in &outcome.artifacts {
            prop_assert!(canonical(&artifact.mime), "artifact {} has {:?}", artifact.name, artifact.mime);
        }
        for text in &outcome.texts {
            prop_assert!(text.mime.as_deref().is_none_or(canonical), "text {} has {:?}", text.source, text.mime);
        }
        prop_assert!(!outcome.summary.chars().any(|c| c.is_control() && c != '\n'), "{:?}", outcome.summary);
        for warning in &outcome.warnings {
            prop_assert!(!warning.chars().any(char::is_control) && warning.len() < 400, "{:?}", warning);
        }
    }
}

/// The generators reach what they are meant to: big binaries are stored, not just scrubbed.
#[test]
fn big_binaries_in_json_become_artifacts() {
    let png = [b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".as_slice(), &[7u8; 3000]].concat();
    let outcome = run(with_big(general_purpose::STANDARD.encode(&png), 3), &ExtractionConfig::default()).unwrap();
    assert_eq!(outcome.artifacts.len(), 1, "{:?}", outcome.warnings);
    assert_eq!(outcome.artifacts[0].mime, "image/png");
    assert!(outcome.summary.contains("Stored PNG image"), "{}", outcome.summary);
}
