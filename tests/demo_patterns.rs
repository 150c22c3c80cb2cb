//! The demo server's pattern tools (`search_patterns`, `get_pattern`, seed 004 shapes) through the
//! real pipeline: `mcp-canvas-cli call` → host → contract normalizer, asserting on the normalized
//! outcome. One test also reads the raw JSON-RPC answer, to know what was on the wire.

use std::path::Path;

use mcp_canvas_e2e::{cli, RawDemo};
use serde_json::{json, Value};

struct Run {
    code: i32,
    outcome: Value,
    stderr: String,
}

fn call(data_dir: &Path, tool: &str, args: Value) -> Run {
    let run = cli(data_dir, &["call", "demo", tool, "--json", "--args", &args.to_string()]);
    let outcome = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{tool} {args}: --json printed no JSON ({e}): {}\nstderr: {}", run.stdout, run.stderr));
    Run { code: run.code, outcome, stderr: run.stderr }
}

fn search(data_dir: &Path, args: Value) -> Run {
    call(data_dir, "search_patterns", args)
}

/// Markers are for machines: the normalizer strips them from what people and the model read.
fn assert_no_markers(outcome: &Value, context: &str) {
    let summary = outcome["summary"].as_str().unwrap_or_default();
    for needle in ["<!--", "kind:pattern-index", "kind:pattern-card"] {
        assert!(!summary.contains(needle), "{context}: `{needle}` in the summary: {summary}");
        for text in outcome["texts"].as_array().unwrap() {
            let text = text["text"].as_str().unwrap();
            assert!(!text.contains(needle), "{context}: `{needle}` in a text: {text}");
        }
    }
}

/// A well-formed answer: exit 0, no warnings, no error, markers stripped.
fn assert_clean(run: &Run, context: &str) {
    assert_eq!(run.code, 0, "{context}: stderr {}", run.stderr);
    assert_eq!(run.outcome["warnings"], json!([]), "{context}: {}", run.outcome);
    assert_eq!(run.outcome["error"], Value::Null, "{context}");
    assert_no_markers(&run.outcome, context);
}

fn strings(value: &Value) -> Vec<&str> {
    value.as_array().unwrap_or_else(|| panic!("not an array: {value}")).iter().map(|v| v.as_str().unwrap()).collect()
}

fn assert_search_results(outcome: &Value, context: &str) {
    assert_eq!(outcome["kind"], "patternSearchResults:v1", "{context}: {outcome}");
    assert_eq!(outcome["needs_input"], Value::Null, "{context}");
    let results = &outcome["results"];
    let patterns = results["patterns"].as_array().unwrap_or_else(|| panic!("{context}: no results.patterns in {outcome}"));
    let metadata = &results["metadata"];
    assert_eq!(metadata["totalCount"], patterns.len(), "{context}: patterns lists every match");
    let rendered = strings(&metadata["renderedCardIds"]);
    assert_eq!(metadata["renderedCards"], rendered.len(), "{context}");
    assert_eq!(metadata["contractMarkers"]["cards"], rendered.len(), "{context}");
    assert_eq!(metadata["contractMarkers"]["index"], 1, "{context}");
    let first: Vec<&str> = patterns.iter().take(rendered.len()).map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(rendered, first, "{context}: cards are the first K patterns in index order");
    for p in patterns {
        for key in ["id", "title", "category", "difficulty", "description", "tags"] {
            assert!(p.get(key).is_some(), "{context}: card summary without `{key}`: {p}");
        }
        assert!(p.get("examples").is_none(), "{context}: search results carry no examples");
    }
}

#[test]
fn json_and_both_formats_give_search_results_from_the_json_block() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["json", "both"] {
        let run = search(dir.path(), json!({"q": "error handling", "format": format, "limit": 3}));
        let context = format!("format {format}");
        assert_clean(&run, &context);
        assert_search_results(&run.outcome, &context);
        let results = &run.outcome["results"];
        assert_eq!(results["query"], json!({"q": "error handling", "limit": 3, "format": format}), "query echo");
        assert_eq!(results["metadata"]["renderedCards"], 3);
        let texts = run.outcome["texts"].as_array().unwrap();
        if format == "json" {
            assert!(texts.is_empty(), "json: no markdown blocks, and the JSON block is the result: {texts:?}");
        } else {
            assert_eq!(texts.len(), 1 + 3, "both: the index and three cards: {texts:?}");
            assert!(texts[0]["text"].as_str().unwrap().starts_with("# Search Results for \"error handling\""));
        }
    }
}

#[test]
fn markdown_format_is_read_from_structured_content() {
    let dir = tempfile::tempdir().unwrap();
    let run = search(dir.path(), json!({"q": "concurrency"}));
    assert_clean(&run, "markdown");
    assert_search_results(&run.outcome, "markdown");
    assert_eq!(run.outcome["results"]["query"], json!({"q": "concurrency", "format": "markdown"}), "omitted keys stay omitted");
    let cards = run.outcome["results"]["metadata"]["renderedCards"].as_u64().unwrap() as usize;
    assert_eq!(cards, 5, "default limit");
    assert_eq!(run.outcome["texts"].as_array().unwrap().len(), 1 + cards);

    let filtered = search(dir.path(), json!({"q": "effect", "category": "streams", "difficulty": "advanced", "format": "both"}));
    assert_clean(&filtered, "filtered");
    assert_search_results(&filtered.outcome, "filtered");
    for p in filtered.outcome["results"]["patterns"].as_array().unwrap() {
        assert_eq!((p["category"].as_str(), p["difficulty"].as_str()), (Some("streams"), Some("advanced")));
    }

    let none = search(dir.path(), json!({"q": "kubernetes helm chart", "format": "both"}));
    assert_clean(&none, "no matches");
    assert_search_results(&none.outcome, "no matches");
    assert_eq!(none.outcome["results"]["metadata"]["totalCount"], 0);
}

#[test]
fn empty_query_needs_q_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["markdown", "json", "both"] {
        for args in [json!({"q": "", "format": format}), json!({"q": "   ", "format": format}), json!({"format": format})] {
            let run = search(dir.path(), args.clone());
            let context = args.to_string();
            assert_clean(&run, &context);
            let outcome = &run.outcome;
            assert_eq!(outcome["kind"], "needsInput:v1", "{context}: {outcome}");
            let needs = &outcome["needs_input"];
            assert!(strings(&needs["fields"]).contains(&"q"), "{context}: {needs}");
            assert!(!strings(&needs["suggestions"]["q"]).is_empty(), "{context}");
            assert!(needs["message"].as_str().unwrap().contains("search query"), "{context}");
            let summary = outcome["summary"].as_str().unwrap();
            assert!(summary.starts_with("The tool needs more input:"), "{context}: {summary}");
        }
    }
}

#[test]
fn too_broad_search_asks_for_category_or_difficulty() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["markdown", "json", "both"] {
        // `effect` matches every pattern in the catalog (30 > SEARCH_TOO_BROAD_THRESHOLD = 20),
        // whatever the limit.
        let run = search(dir.path(), json!({"q": "effect", "format": format, "limit": 100}));
        assert_clean(&run, format);
        let outcome = &run.outcome;
        assert_eq!(outcome["kind"], "needsInput:v1", "{format}: {outcome}");
        let needs = &outcome["needs_input"];
        assert_eq!(strings(&needs["fields"]), ["category", "difficulty"], "{format}");
        assert!(needs["message"].as_str().unwrap().starts_with("Found 30 patterns."), "{format}: {needs}");
        let categories = strings(&needs["suggestions"]["category"]);
        assert_eq!(categories.len(), 6, "every category occurs among the matches: {categories:?}");
        assert_eq!(strings(&needs["suggestions"]["difficulty"]), ["beginner", "intermediate", "advanced"]);
        let options = needs["options"].as_array().unwrap();
        assert_eq!(options.len(), 6 + 3, "{format}");
        assert!(options.iter().all(|o| matches!(o["field"].as_str(), Some("category" | "difficulty"))));
        assert!(options.iter().any(|o| o["value"] == "error-handling" && o["description"] == "Filter by error-handling category"));
    }
    // Following a suggestion gives results.
    let narrowed = search(dir.path(), json!({"q": "effect", "category": "error-handling", "format": "json"}));
    assert_clean(&narrowed, "narrowed");
    assert_search_results(&narrowed.outcome, "narrowed");
}

#[test]
fn simulated_errors_exit_2_with_the_simulated_code() {
    let dir = tempfile::tempdir().unwrap();
    let codes = [("NETWORK_ERROR", true), ("SERVER_ERROR", true), ("CLIENT_ERROR", false), ("NOT_FOUND", false), ("AUTHENTICATION_ERROR", false), ("UNKNOWN_ERROR", false)];
    for (i, (code, retryable)) in codes.into_iter().enumerate() {
        let format = ["markdown", "json", "both"][i % 3];
        let run = search(dir.path(), json!({"q": "retry", "simulate_error": code, "format": format}));
        assert_eq!(run.code, 2, "{code}: {}", run.outcome);
        let outcome = &run.outcome;
        assert_eq!(outcome["kind"], "toolError:v1", "{code}");
        assert_eq!(outcome["error"]["code"], code, "{code}: {outcome}");
        assert_eq!(outcome["error"]["retryable"], retryable, "{code}");
        assert_eq!(outcome["error"]["details"]["simulated"], true, "{code}");
        assert_eq!(outcome["warnings"], json!([]), "{code}");
        assert!(outcome["summary"].as_str().unwrap().starts_with(&format!("Error ({code}):")), "{code}: {}", outcome["summary"]);
    }
}

#[test]
fn invalid_arguments_are_tool_errors_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (json!({"q": "retry", "format": "xml"}), "`format` must be one of markdown, json, both"),
        (json!({"q": "retry", "difficulty": "expert"}), "`difficulty` must be one of beginner, intermediate, advanced"),
        (json!({"q": "retry", "limit": 0}), "`limit` must be an integer from 1 to 100"),
        (json!({"q": "retry", "limit": 101, "format": "json"}), "`limit` must be an integer from 1 to 100"),
        (json!({"q": "retry", "simulate_error": "TIMEOUT"}), "`simulate_error` must be one of NETWORK_ERROR"),
    ];
    // The demo's own answers to these (CLIENT_ERROR tool errors) are covered by its unit tests;
    // through our host they never reach it: the inputSchema check refuses them first (exit 1),
    // naming the field.
    for (args, needle) in cases {
        let run = search(dir.path(), args.clone());
        assert_eq!(run.code, 1, "{args}: {}", run.outcome);
        let message = run.outcome["error"]["message"].as_str().unwrap();
        let field = needle.split('`').nth(1).unwrap();
        assert!(message.contains("do not match its input schema") && message.contains(field), "{args}: {message}");
    }
    let run = call(dir.path(), "get_pattern", json!({"id": "effect-service", "format": "yaml"}));
    assert_eq!(run.code, 1);
    assert!(run.outcome["error"]["message"].as_str().unwrap().contains("format"));
}

#[test]
fn get_pattern_gives_details_or_asks_for_a_valid_id() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["markdown", "json", "both"] {
        let run = call(dir.path(), "get_pattern", json!({"id": "effect-service", "format": format}));
        assert_clean(&run, format);
        let outcome = &run.outcome;
        assert_eq!(outcome["kind"], "patternDetails:v1", "{format}: {outcome}");
        let details = &outcome["results"];
        assert_eq!(details["id"], "effect-service");
        assert_eq!(details["title"], "Effect.Service Pattern");
        assert!(details["useGuidance"]["useWhen"].is_string() && details["useGuidance"]["avoidWhen"].is_string());
        assert!(details["examples"][0]["code"].as_str().unwrap().contains("Effect.Service"));
        assert_eq!(details["provenance"]["timestamp"], "2025-11-04T10:00:00.000Z", "deterministic ISO 8601");
        let texts = outcome["texts"].as_array().unwrap();
        assert_eq!(texts.is_empty(), format == "json", "{format}");
        if format != "json" {
            assert!(texts[0]["text"].as_str().unwrap().starts_with("# Effect.Service Pattern\n\n`effect-service`"), "{}", texts[0]);
        }
    }

    let typo = call(dir.path(), "get_pattern", json!({"id": "efect-service", "format": "both"}));
    assert_clean(&typo, "typo");
    assert_eq!(typo.outcome["kind"], "needsInput:v1");
    let needs = &typo.outcome["needs_input"];
    assert_eq!(strings(&needs["fields"]), ["id"]);
    let ids = strings(&needs["suggestions"]["id"]);
    assert!(!ids.is_empty() && ids.len() <= 5 && ids[0] == "effect-service", "{ids:?}");
    assert_eq!(needs["options"][0], json!({"label": "effect-service", "value": "effect-service", "description": "Pattern ID: effect-service", "field": "id"}));
    assert_eq!(needs["message"], "Pattern \"efect-service\" not found. Please provide a valid pattern ID.");

    let empty = call(dir.path(), "get_pattern", json!({"id": ""}));
    assert_clean(&empty, "empty id");
    assert_eq!(empty.outcome["kind"], "needsInput:v1");
    assert_eq!(strings(&empty.outcome["needs_input"]["fields"]), ["id"]);
    assert_eq!(strings(&empty.outcome["needs_input"]["suggestions"]["id"]).len(), 5);
}

/// What the server puts on the wire (raw JSON-RPC, no host in between): the markers the host
/// strips are really there, the JSON block is last and equals `structuredContent`, and the
/// output schemas are declared.
#[test]
fn wire_shapes_follow_004() {
    let mut demo = RawDemo::start();
    let tools = demo.request("tools/list", json!({}));
    for name in ["search_patterns", "get_pattern"] {
        let tool = tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name} not listed"));
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{name}");
        assert_eq!(tool["outputSchema"]["required"], json!(["kind"]), "{name}");
        assert!(tool["title"].is_string() && tool["description"].is_string(), "{name}");
    }
    let calls = [
        json!({"q": "error handling", "format": "both"}),
        json!({"q": "error handling"}),
        json!({"q": "error handling", "format": "json"}),
        json!({"q": "retry", "simulate_error": "SERVER_ERROR", "format": "both"}),
    ];
    let mut answers = Vec::new();
    for arguments in &calls {
        answers.push(demo.call("search_patterns", arguments.clone()));
    }
    drop(demo);

    let texts = |result: &Value| -> Vec<String> { result["content"].as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap().to_owned()).collect() };
    let (both, markdown, json_only, error) = (&answers[0], &answers[1], &answers[2], &answers[3]);

    let blocks = texts(both);
    let last: Value = serde_json::from_str(blocks.last().unwrap()).expect("both: the last block is JSON");
    assert_eq!(last, both["structuredContent"]);
    let markdown_blocks = &blocks[..blocks.len() - 1];
    let count = |marker: &str| markdown_blocks.iter().map(|b| b.matches(marker).count()).sum::<usize>();
    assert_eq!(count("<!-- kind:pattern-index:v1 -->"), last["metadata"]["contractMarkers"]["index"].as_u64().unwrap() as usize);
    assert_eq!(count("<!-- kind:pattern-card:v1 -->"), last["metadata"]["contractMarkers"]["cards"].as_u64().unwrap() as usize);
    assert_eq!(count("<!-- kind:pattern-card:v1 -->"), 5);

    let blocks = texts(markdown);
    assert!(blocks.iter().all(|b| serde_json::from_str::<Value>(b).is_err()), "markdown: no JSON block");
    assert_eq!(markdown["structuredContent"]["kind"], "patternSearchResults:v1");
    assert_eq!(markdown["structuredContent"]["query"]["format"], "markdown");

    let blocks = texts(json_only);
    assert_eq!(blocks.len(), 1);
    assert!(blocks[0].trim_start().starts_with("{\n  \"kind\": \"patternSearchResults:v1\""), "kind first: {}", &blocks[0][..60]);

    assert_eq!(error["isError"], true);
    assert_eq!(error["structuredContent"]["kind"], "toolError:v1");
    assert_eq!(error["structuredContent"]["code"], "SERVER_ERROR");
}
