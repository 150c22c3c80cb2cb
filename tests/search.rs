//! Full-text search end to end: what the real demo server returned is found by the words in it
//! (`mcp-canvas-cli artifacts search`), where it is (the PDF page, the table row, the HTML
//! block, the name, the call), and the model behind the proxy finds what went through the
//! proxy (`search_artifacts`) and nothing else by default. Hostile files are indexed within
//! bounds; an indexer killed mid-file leaves nothing twice; a damaged index is rebuilt with the
//! catalog untouched.

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use mcp_canvas_e2e::{binary, cli};
use mcp_canvas_host::search as host_search;
use mcp_canvas_store::{ArtifactStore, HitPlace, NewArtifact, Persistence, SearchQuery};
use rmcp::{model::CallToolRequestParams, service::RunningService, transport::TokioChildProcess, RoleClient, ServiceExt as _};
use serde_json::{json, Value};

fn demo_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    dir
}

fn search_json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["artifacts", "search"];
    all.extend_from_slice(args);
    all.push("--json");
    let run = cli(dir, &all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// (name, place, position) of each hit.
fn places(results: &Value) -> Vec<(String, String, u64)> {
    results["hits"].as_array().unwrap().iter().map(|h| (h["artifact"]["name"].as_str().unwrap().to_owned(), h["place"].as_str().unwrap().to_owned(), h["position"].as_u64().unwrap())).collect()
}

fn marked(hit: &Value) -> Vec<String> {
    hit["snippet"].as_array().unwrap().iter().filter(|p| p["hit"] == true).map(|p| p["text"].as_str().unwrap().to_lowercase()).collect()
}

#[test]
fn the_cli_finds_words_where_they_are_in_what_the_demo_returned() {
    let dir = demo_dir();
    assert_eq!(cli(dir.path(), &["call", "demo", "make_report", "--args", r#"{"rows": 12}"#]).code, 0);
    assert_eq!(cli(dir.path(), &["call", "demo", "download_workbook"]).code, 0);

    // A word on the PDF's pages: each page a hit, the word marked in its snippet.
    let results = search_json(dir.path(), &["indirect"]);
    assert_eq!(results["pending"], 0, "the CLI indexed what was pending first");
    let hits = places(&results);
    assert!(!hits.is_empty() && hits.iter().all(|(name, place, page)| name == "Sales Dashboard.pdf" && place == "page" && (1..=3).contains(page)), "{hits:?}");
    assert!(results["hits"].as_array().unwrap().iter().all(|h| marked(h).contains(&"indirect".to_owned())), "{results}");

    // The CSV's header row; the report's title (HTML text, no script); the PDF narrowed by kind.
    assert!(places(&search_json(dir.path(), &["q3", "--kind", "text"])).contains(&("data.csv".into(), "row".into(), 0)));
    let report = places(&search_json(dir.path(), &["quarterly sales", "--kind", "html"]));
    assert!(report.iter().any(|(name, place, _)| name == "report.html" && place == "line"), "{report:?}");
    // Its script's and its handler's text is not the report's text.
    assert_eq!(places(&search_json(dir.path(), &["neutralise"])), vec![]);
    // The call that produced a file: its arguments, and what it answered ("Report generated").
    let by_call = places(&search_json(dir.path(), &["make_report"]));
    assert!(by_call.iter().any(|(name, place, _)| name == "chart.png" && place == "call"), "{by_call:?}");
    let by_answer = places(&search_json(dir.path(), &["generated"]));
    assert!(by_answer.iter().any(|(name, place, _)| name == "chart.png" && place == "call"), "{by_answer:?}");

    // Human output: id, name, where, snippet.
    let run = cli(dir.path(), &["artifacts", "search", "indirect"]);
    let first = run.stdout.lines().next().unwrap();
    let columns: Vec<&str> = first.split('\t').collect();
    assert!(columns[0].starts_with("demo_") && columns[1] == "Sales Dashboard.pdf" && columns[2].starts_with("page "), "{first}");
    assert!(columns[3].to_lowercase().contains("indirect"), "{first}");

    // Removed: its text goes with it.
    let id = results["hits"][0]["artifact"]["id"].as_str().unwrap().to_owned();
    assert_eq!(cli(dir.path(), &["artifacts", "rm", &id]).code, 0);
    assert!(places(&search_json(dir.path(), &["indirect"])).is_empty());

    // Rebuilt by one command: the same hits as before.
    let sorted = |mut v: Vec<(String, String, u64)>| {
        v.sort();
        v
    };
    let before = sorted(places(&search_json(dir.path(), &["q3"])));
    let run = cli(dir.path(), &["artifacts", "reindex", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reindexed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(reindexed["artifacts"], 3);
    assert_eq!(sorted(places(&search_json(dir.path(), &["q3", "--index-for", "0"]))), before);

    // The engine's syntax in a query is only words: never an error.
    for query in ["\"", "NEAR(", "a AND", "-x", "*", "body:x", "\"unbalanced q3"] {
        let run = cli(dir.path(), &["artifacts", "search", "--", query]);
        assert_eq!(run.code, 0, "{query}: {}", run.stderr);
    }
}

async fn proxy_client(dir: &Path) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(binary("mcp-canvas-cli"));
    command.arg("--data-dir").arg(dir).arg("proxy").env_remove("MCP_CANVAS_DATA_DIR");
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    ().serve(transport).await.expect("MCP handshake with the proxy")
}

async fn call(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> Value {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    serde_json::to_value(client.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)).await.unwrap()).unwrap()
}

/// Searches as the model until `found` holds (the proxy indexes in the background), for a minute.
async fn model_search(client: &RunningService<RoleClient, ()>, query: &str, found: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let result = call(client, "search_artifacts", json!({ "query": query })).await;
        if found(&result) || Instant::now() > deadline {
            return result;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn hit_names(result: &Value) -> Vec<String> {
    result["structuredContent"]["hits"].as_array().map(|h| h.iter().map(|h| h["name"].as_str().unwrap().to_owned()).collect()).unwrap_or_default()
}

const FILES_SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fault_servers/files_server.py");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_finds_what_went_through_the_proxy_by_reference_and_nothing_else() {
    let dir = demo_dir();
    std::fs::write(
        dir.path().join("servers.json"),
        json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") }, "files": { "command": "python3", "args": [FILES_SERVER] } } }).to_string(),
    )
    .unwrap();
    // Something the person did outside the proxy (the CLI's session): a PDF.
    assert_eq!(cli(dir.path(), &["call", "demo", "download_workbook"]).code, 0);

    let client = proxy_client(dir.path()).await;
    let tools = client.list_all_tools().await.unwrap();
    let search = tools.iter().find(|t| t.name == "search_artifacts").expect("the search tool is listed");
    assert!(search.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    assert_eq!(search.input_schema["required"], json!(["query"]));

    let report = call(&client, "demo__make_report", json!({ "rows": 12 })).await;
    assert_ne!(report["isError"], true, "{report}");
    let result = model_search(&client, "quarterly sales", |r| hit_names(r).contains(&"report.html".to_owned())).await;
    assert_eq!(result["isError"], false, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    let hit = result["structuredContent"]["hits"].as_array().unwrap().iter().find(|h| h["name"] == "report.html").unwrap();
    let reference = hit["reference"].as_str().unwrap();
    assert!(text.contains(&format!("Reference: {reference}")), "{text}");
    assert!(text.contains("**"), "the words found are marked: {text}");
    // Never bytes: no long base64 run, no data: URL.
    assert!(!text.contains("base64,") && !result.to_string().contains("iVBORw0KGgo"), "{result}");
    // A call's arguments and answer are not the model's to search (the same bytes from one of the
    // person's calls would be the same artifact): "generated" is in the report's text, and in
    // the call's answer ("Report generated") only for the chart.
    let by_answer = model_search(&client, "generated", |r| r["structuredContent"]["pending"] == 0).await;
    assert_eq!(hit_names(&by_answer), vec!["report.html".to_owned()], "{by_answer}");

    // A file and a text for the user only went through the proxy too: the model finds neither,
    // by its text, its name or its call.
    let private = call(&client, "files__give", json!({ "kind": "user_only_png" })).await;
    assert!(!private.to_string().contains("4711"), "{private}");
    for query in ["4711", "account", "give", "user_only_png"] {
        let found = model_search(&client, query, |r| r["structuredContent"]["pending"] == 0).await;
        assert!(hit_names(&found).is_empty(), "{query}: {found}");
    }

    // The PDF stored by the CLI is not the model's to search (scope "proxy", the default)...
    let cli_pdf = model_search(&client, "indirect", |r| r["structuredContent"]["pending"] == 0).await;
    assert!(hit_names(&cli_pdf).is_empty(), "{cli_pdf}");
    assert!(cli_pdf["content"][0]["text"].as_str().unwrap().contains("No match"));
    // ...and a query made of the engine's syntax is an answer, not an error.
    for query in ["\"", "NEAR(a b", "*", "-"] {
        let r = call(&client, "search_artifacts", json!({ "query": query })).await;
        assert_eq!(r["isError"], false, "{query}: {r}");
    }
    let missing = call(&client, "search_artifacts", json!({})).await;
    assert_eq!(missing["isError"], true);
    client.cancel().await.unwrap();

    // `search = "all"`: everything stored here.
    std::fs::write(dir.path().join("proxy.toml"), "search = \"all\"\n").unwrap();
    let client = proxy_client(dir.path()).await;
    let everything = model_search(&client, "indirect", |r| !hit_names(r).is_empty()).await;
    assert!(hit_names(&everything).iter().all(|n| n == "Sales Dashboard.pdf") && !hit_names(&everything).is_empty(), "{everything}");
    client.cancel().await.unwrap();

    // `search = "off"`: no tool.
    std::fs::write(dir.path().join("proxy.toml"), "search = \"off\"\n").unwrap();
    let client = proxy_client(dir.path()).await;
    assert!(client.list_all_tools().await.unwrap().iter().all(|t| t.name != "search_artifacts"));
    client.cancel().await.unwrap();
}

fn put(store: &ArtifactStore, name: &str, mime: &str, bytes: &[u8]) -> String {
    let new = NewArtifact { name, mime, server: "files", tool: "make", call_id: "c1", session_id: "s1", description: None, persistence: Persistence::Session, now_ms: 1 };
    store.put(new, bytes).unwrap().id
}

#[test]
fn a_run_stopped_by_its_deadline_leaves_the_rest_pending_and_the_next_one_finishes_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let mut ids: Vec<String> = (0..3).map(|i| put(&store, &format!("note-{i}.txt"), "text/plain", format!("deadline words {i}").as_bytes())).collect();
    // A deadline already passed: the reading thread starts no file, none is marked indexed.
    let run = host_search::index_pending(&store, Some(Instant::now())).unwrap();
    assert_eq!((run.artifacts, run.unfinished), (0, true));
    assert_eq!(store.search_status().unwrap().pending, 3);
    // The next run reads and writes them all, each once.
    let run = host_search::index_pending(&store, None).unwrap();
    assert_eq!((run.artifacts, run.unfinished), (3, false));
    assert_eq!(store.search_status().unwrap().pending, 0);
    let hits = host_search::search(&store, &SearchQuery { text: "deadline ".into(), ..Default::default() }).unwrap().hits;
    let mut found: Vec<(String, HitPlace)> = hits.iter().map(|h| (h.artifact.id.clone(), h.place)).collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    ids.sort();
    assert_eq!(found, ids.into_iter().map(|id| (id, HitPlace::Line)).collect::<Vec<_>>());
}

#[test]
fn hostile_files_are_indexed_within_bounds_and_the_catalog_stays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    // One 6.6 MB line; a CSV whose one field is 4 MB; binary declared as text; a PDF cut short;
    // markup that is all script; a name full of control characters.
    let line = format!("{} needle {}", "lorem ipsum ".repeat(300_000), "dolor sit ".repeat(300_000));
    let one_line = put(&store, "one-line.txt", "text/plain", line.as_bytes());
    let field = format!("name,blob\nacme,{}\nglobex,haystack\n", "x".repeat(4 << 20));
    let csv = put(&store, "wide.csv", "text/csv", field.as_bytes());
    let binary = put(&store, "photo.txt", "text/plain", &[0x89, b'P', b'N', b'G', 0, 0, 0, 13, 0xff, 0xd8, 0xff, 0xe0]);
    let cut_pdf = put(&store, "cut.pdf", "application/pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog");
    let scripts = put(&store, "x.html", "text/html", "<script>needle()</script><style>needle{}</style>".repeat(1000).as_bytes());
    let _weird = put(&store, "a\u{202e}b\u{0}c.txt", "text/plain", b"plain words");
    // A file two indexing runs started on and never finished (PDFium crashed on it, say).
    let stuck = put(&store, "stuck.txt", "text/plain", b"marooned words");
    store.search_start(&stuck).unwrap();
    store.search_start(&stuck).unwrap();

    let run = host_search::index_pending(&store, None).unwrap();
    assert_eq!(run.artifacts, 7);
    let by = |text: &str| host_search::search(&store, &SearchQuery { text: format!("{text} "), ..Default::default() }).unwrap().hits;
    assert!(by("marooned").is_empty(), "the third run indexes only its name");
    assert_eq!(by("stuck").iter().map(|h| (h.artifact.id.as_str(), h.place)).collect::<Vec<_>>(), vec![(stuck.as_str(), HitPlace::Name)]);
    assert!(store.search_status().unwrap().pending == 0);
    let hits = host_search::search(&store, &SearchQuery { text: "needle ".into(), ..Default::default() }).unwrap().hits;
    let found: Vec<(&str, HitPlace)> = hits.iter().map(|h| (h.artifact.id.as_str(), h.place)).collect();
    assert_eq!(found, vec![(one_line.as_str(), HitPlace::Line)], "only the text line has the word (not the scripts)");
    let snippet: String = hits[0].snippet.iter().map(|p| p.text.as_str()).collect();
    assert!(snippet.len() < 400, "a snippet of a 6.6 MB line is short: {} bytes", snippet.len());
    let globex = host_search::search(&store, &SearchQuery { text: "globex ".into(), ..Default::default() }).unwrap().hits;
    assert_eq!(globex.iter().map(|h| (h.artifact.id.as_str(), h.place, h.position)).collect::<Vec<_>>(), vec![(csv.as_str(), HitPlace::Row, 2)], "the row after a 4 MB field keeps its number");
    // The others are indexed by name, each with a note saying why not more.
    assert!(!host_search::search(&store, &SearchQuery { text: "photo ".into(), ..Default::default() }).unwrap().hits.is_empty());
    let _ = (binary, cut_pdf, scripts);
    // The catalog and blobs are whole.
    assert!(store.verify().unwrap().is_clean());
}

/// Reads how many segments the index has, from another connection (as another process would).
fn segments(dir: &Path) -> u64 {
    ArtifactStore::open(dir).unwrap().search_status().unwrap().segments
}

#[test]
fn an_indexer_killed_mid_file_leaves_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = ArtifactStore::open(dir.path()).unwrap();
        // About 9 MB of numbered lines: several batches, so the indexer is killed in the middle.
        let mut text = String::with_capacity(10 << 20);
        for i in 0..200_000u32 {
            text.push_str(&format!("line {i} marker{i} some words to index here\n"));
        }
        put(&store, "big.log", "text/plain", text.as_bytes());
        put(&store, "small.txt", "text/plain", b"marker7 in a small file");
    }
    let mut reindex = Command::new(binary("mcp-canvas-cli")).arg("--data-dir").arg(dir.path()).args(["artifacts", "reindex"]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    // The first batch of the big file is written (the small one has two segments).
    while segments(dir.path()) < 100 {
        assert!(Instant::now() < deadline && reindex.try_wait().unwrap().is_none(), "the indexer finished before it could be killed");
        std::thread::sleep(Duration::from_millis(5));
    }
    reindex.kill().unwrap(); // SIGKILL
    reindex.wait().unwrap();
    let status = ArtifactStore::open(dir.path()).unwrap().search_status().unwrap();
    assert!(status.pending >= 1, "the file being indexed is still pending: {status:?}");

    // The next search indexes what was left, from the start of the interrupted file.
    let results = search_json(dir.path(), &["marker7"]);
    assert_eq!(places(&search_json(dir.path(), &["marker199999"])), vec![("big.log".into(), "line".into(), 200_000)], "the whole file, once");
    assert_eq!(results["pending"], 0);
    let hits = places(&results);
    assert_eq!(hits.iter().filter(|(name, _, line)| name == "big.log" && *line == 8).count(), 1, "line 8 once: {hits:?}");
    assert_eq!(hits.iter().filter(|(name, _, _)| name == "small.txt").count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_and_two_cli_searches_on_one_data_dir_index_each_file_once() {
    let dir = demo_dir();
    {
        let store = ArtifactStore::open(dir.path()).unwrap();
        let mut text = String::with_capacity(4 << 20);
        for i in 0..80_000u32 {
            text.push_str(&format!("row {i} tag{i} some words to index\n"));
        }
        put(&store, "shared.log", "text/plain", text.as_bytes());
    }
    // The proxy's indexer thread, two one-shot searches and a call storing more, all at once.
    let client = proxy_client(dir.path()).await;
    let cli = |args: Vec<String>| {
        let dir = dir.path().to_owned();
        tokio::task::spawn_blocking(move || cli(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>()))
    };
    let searches = [cli(vec!["artifacts".into(), "search".into(), "tag79999".into(), "--json".into()]), cli(vec!["artifacts".into(), "search".into(), "tag5".into(), "--json".into()])];
    let call = cli(vec!["call".into(), "demo".into(), "make_report".into(), "--args".into(), r#"{"rows": 12}"#.into()]);
    for search in searches {
        assert_eq!(search.await.unwrap().code, 0);
    }
    assert_eq!(call.await.unwrap().code, 0);
    client.cancel().await.unwrap();
    // Whoever indexed what, each line is in the index once, and everything got indexed.
    let results = search_json(dir.path(), &["tag79999"]);
    assert_eq!(results["pending"], 0);
    assert_eq!(places(&results), vec![("shared.log".into(), "line".into(), 80_000)]);
    assert_eq!(places(&search_json(dir.path(), &["tag12345"])), vec![("shared.log".into(), "line".into(), 12_346)]);
    assert!(places(&search_json(dir.path(), &["quarterly sales"])).iter().any(|(name, _, _)| name == "report.html"));
}
