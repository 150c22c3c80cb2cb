//! The search index against a real SQLite file: what is written is found, filters apply, removal
//! prunes, an interrupted run starts over, the engine's syntax is only words, a damaged index
//! is found and replaced without touching the catalog.

use mcp_canvas_store::{
    ArtifactRecord, ArtifactStore, AuditRecord, HitPlace, IndexBatch, MimeFamily, NewArtifact, Persistence, SearchQuery, Segment,
};

fn put(store: &ArtifactStore, name: &str, mime: &str, server: &str, tool: &str, call_id: &str, now_ms: i64) -> ArtifactRecord {
    let new = NewArtifact { name, mime, server, tool, call_id, session_id: "s1", description: None, persistence: Persistence::Session, now_ms };
    store.put(new, format!("{name} {now_ms}").as_bytes()).unwrap()
}

fn segment(place: HitPlace, position: u64, text: &str) -> Segment {
    Segment { place, position, byte_offset: position * 100, byte_length: text.len() as u64, text: text.to_owned() }
}

/// Every segment's text by artifact and position, as the host's extractor would give it again
/// (tests run side by side: an artifact's id follows its name and time, so each test names its
/// files apart).
static TEXTS: std::sync::Mutex<Vec<(String, u64, String)>> = std::sync::Mutex::new(Vec::new());

fn index(store: &ArtifactStore, record: &ArtifactRecord, segments: Vec<Segment>) {
    TEXTS.lock().unwrap().extend(segments.iter().map(|s| (record.id.clone(), s.position, s.text.clone())));
    store.search_start(&record.id).unwrap();
    let mut batch = IndexBatch::new(&record.id);
    for s in segments {
        batch.push(s);
    }
    assert!(store.search_write(batch).unwrap());
    store.search_finish(&record.id, 5, None).unwrap();
}

/// A call of `demo`'s `make_report` that produced `ids`, as the host logs it.
fn call(call_id: &str, arguments: serde_json::Value, ids: Vec<String>) -> AuditRecord {
    AuditRecord {
        call_id: call_id.into(),
        session_id: "s1".into(),
        server: "demo".into(),
        tool: "make_report".into(),
        arguments,
        identity: None,
        started_ms: 1,
        duration_ms: 1,
        outcome: "ok".into(),
        detail: None,
        artifact_ids: ids,
        result_text: None,
    }
}

fn query(text: &str) -> SearchQuery {
    SearchQuery { text: text.to_owned(), ..Default::default() }
}

/// Searches as the host does: each hit's text given again at its place (phrases are checked in it).
fn search(store: &ArtifactStore, q: &SearchQuery) -> Vec<mcp_canvas_store::SearchHit> {
    store.search_with(q, &mut text_of).unwrap().hits
}

/// A hit's text as the host's extractor would give it again.
fn text_of(hit: &mcp_canvas_store::SearchHit) -> Option<String> {
    TEXTS.lock().unwrap().iter().find(|(id, position, _)| *id == hit.artifact.id && *position == hit.position).map(|t| t.2.clone())
}

fn found(store: &ArtifactStore, q: &SearchQuery) -> Vec<(String, HitPlace, u64)> {
    search(store, q).into_iter().map(|h| (h.artifact.name, h.place, h.position)).collect()
}

fn fixture() -> (tempfile::TempDir, ArtifactStore, ArtifactRecord, ArtifactRecord) {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let report = put(&store, "report.pdf", "application/pdf", "demo", "make_report", "c1", 1_000);
    let table = put(&store, "customers.csv", "text/csv", "crm", "export", "c2", 2_000);
    index(&store, &report, vec![segment(HitPlace::Name, 0, "report.pdf"), segment(HitPlace::Page, 1, "Summary of the year"), segment(HitPlace::Page, 12, "Net revenue rose in the third quarter")]);
    index(&store, &table, vec![segment(HitPlace::Name, 0, "customers.csv"), segment(HitPlace::Row, 0, "name,city,revenue"), segment(HitPlace::Row, 340, "Globex Corporation,Springfield,1200")]);
    (dir, store, report, table)
}

#[test]
fn words_phrases_and_prefixes_find_their_place() {
    let (_dir, store, report, table) = fixture();
    assert_eq!(found(&store, &query("third quarter ")), vec![("report.pdf".into(), HitPlace::Page, 12)]);
    assert_eq!(found(&store, &query("\"revenue rose\" ")), vec![("report.pdf".into(), HitPlace::Page, 12)]);
    assert!(found(&store, &query("\"rose revenue\" ")).is_empty(), "a phrase keeps its order");
    // The last word while typing is a prefix.
    assert_eq!(found(&store, &query("glob")), vec![("customers.csv".into(), HitPlace::Row, 340)]);
    assert!(found(&store, &query("glob ")).is_empty());
    // Both artifacts have "revenue"; each hit carries its byte range for the snippet.
    let hits = store.search(&query("revenue ")).unwrap().hits;
    assert_eq!(hits.len(), 2);
    let row = hits.iter().find(|h| h.artifact.id == table.id).unwrap();
    assert_eq!((row.place, row.position, row.byte_range.0), (HitPlace::Row, 0, 0));
    assert!(hits.iter().any(|h| h.artifact.id == report.id));
    // Diacritics are ignored both ways.
    let cafe = put(&store, "menu.txt", "text/plain", "demo", "menu", "c3", 3_000);
    index(&store, &cafe, vec![segment(HitPlace::Line, 3, "Café crème")]);
    assert_eq!(found(&store, &query("cafe creme ")), vec![("menu.txt".into(), HitPlace::Line, 3)]);
}

#[test]
fn filters_narrow_the_hits() {
    let (_dir, store, _report, _table) = fixture();
    let with = |f: &dyn Fn(&mut SearchQuery)| {
        let mut q = query("revenue ");
        f(&mut q);
        found(&store, &q).into_iter().map(|h| h.0).collect::<Vec<_>>()
    };
    assert_eq!(with(&|q| q.server = Some("crm".into())), vec!["customers.csv"]);
    assert_eq!(with(&|q| q.tool = Some("make_report".into())), vec!["report.pdf"]);
    assert_eq!(with(&|q| q.family = Some(MimeFamily::Pdf)), vec!["report.pdf"]);
    assert_eq!(with(&|q| q.family = Some(MimeFamily::Text)), vec!["customers.csv"]);
    assert_eq!(with(&|q| q.since_ms = Some(1_500)), vec!["customers.csv"]);
    assert_eq!(with(&|q| q.until_ms = Some(1_500)), vec!["report.pdf"]);
}

#[test]
fn at_most_three_hits_per_artifact_and_the_limit_holds() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let log = put(&store, "log.txt", "text/plain", "demo", "tail", "c1", 1);
    index(&store, &log, (1..=50).map(|i| segment(HitPlace::Line, i, "error: disk full")).collect());
    for i in 0..30 {
        let r = put(&store, &format!("n{i}.txt"), "text/plain", "demo", "tail", "c1", 10 + i);
        index(&store, &r, vec![segment(HitPlace::Line, 1, "error again")]);
    }
    let hits = store.search(&SearchQuery { limit: 12, ..query("error ") }).unwrap().hits;
    assert_eq!(hits.len(), 12);
    assert!(hits.iter().filter(|h| h.artifact.id == log.id).count() <= 3);
    assert_eq!(store.search(&SearchQuery { limit: 100_000, ..query("error ") }).unwrap().hits.len(), 33, "3 of the log, one of each other");
}

#[test]
fn the_engines_syntax_never_reaches_it() {
    let (_dir, store, _report, _table) = fixture();
    for text in ["\"", "\"unbalanced", "a*b", "-revenue", "NEAR(revenue quarter)", "revenue AND", "OR", "body:revenue", "^revenue", "(", "\u{0}", "''", "*", "revenue\"", "{body}: x"] {
        let result = store.search(&query(text));
        assert!(result.is_ok(), "{text:?}: {result:?}");
    }
    // `-revenue` finds revenue (no negation); `NEAR(` is a word.
    assert_eq!(found(&store, &query("-revenue ")).len(), 2);
    assert!(found(&store, &query("NEAR(revenue quarter) ")).is_empty());
}

#[test]
fn removing_an_artifact_removes_its_text() {
    let (_dir, store, report, _table) = fixture();
    assert_eq!(store.search_status().unwrap().indexed, 2);
    store.remove(&report.id).unwrap();
    assert!(found(&store, &query("quarter ")).is_empty());
    let status = store.search_status().unwrap();
    assert_eq!((status.indexed, status.pending), (1, 0));
    // Segments of a removed artifact are not written (the indexer was mid-file).
    let mut batch = IndexBatch::new(&report.id);
    batch.push(segment(HitPlace::Page, 2, "late page"));
    assert!(!store.search_write(batch).unwrap());
    assert!(found(&store, &query("late page ")).is_empty());
}

#[test]
fn an_interrupted_run_is_pending_and_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let doc = put(&store, "doc.md", "text/markdown", "demo", "write", "c1", 1);
    store.search_start(&doc.id).unwrap();
    let mut batch = IndexBatch::new(&doc.id);
    batch.push(segment(HitPlace::Line, 1, "first half"));
    store.search_write(batch).unwrap();
    // What is written counts at once, finished or not (another process watches it grow).
    assert_eq!(ArtifactStore::open(dir.path()).unwrap().search_status().unwrap().segments, 1);
    // The process dies here: no finish.
    drop(store);
    let store = ArtifactStore::open(dir.path()).unwrap();
    assert_eq!(store.search_pending(10).unwrap().iter().map(|r| r.id.clone()).collect::<Vec<_>>(), vec![doc.id.clone()]);
    // The next run knows it is the second.
    assert_eq!(store.search_start(&doc.id).unwrap(), 2);
    index(&store, &doc, vec![segment(HitPlace::Line, 1, "first half"), segment(HitPlace::Line, 2, "second half")]);
    assert_eq!(found(&store, &query("half ")).len(), 2, "the first run's segment is not there twice");
    assert!(store.search_pending(10).unwrap().is_empty());
    assert_eq!(store.search_status().unwrap().segments, 2);
}

#[test]
fn a_file_read_whole_before_a_stop_is_not_counted_against_it() {
    // The indexer reads a file or two ahead of its writes: when the process stops, a file read
    // whole but not yet written was not what stopped it; the one being read may have been.
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let read = put(&store, "read-ahead.md", "text/markdown", "demo", "write", "c1", 1);
    let crashing = put(&store, "crashing.pdf", "application/pdf", "demo", "write", "c2", 2);
    for run in 1..=3 {
        let mut reader = store.search_reader().unwrap();
        assert_eq!(reader.begin(&read.id).unwrap(), 1, "run {run}: the file read whole is on its first try again");
        reader.read_whole().unwrap();
        assert_eq!(reader.begin(&crashing.id).unwrap(), run, "run {run}: the file being read when it stopped counts");
        // The process dies here: neither is written.
    }
    // Written and marked indexed: its count is gone.
    let mut reader = store.search_reader().unwrap();
    assert_eq!(reader.begin(&crashing.id).unwrap(), 4);
    store.search_restart(&crashing.id).unwrap();
    store.search_finish(&crashing.id, 5, None).unwrap();
    reader.read_whole().unwrap();
    drop(reader);
    assert_eq!(store.search_reader().unwrap().begin(&crashing.id).unwrap(), 1);
    // The one-call start counts each start until the file is finished.
    let plain = put(&store, "plain.md", "text/markdown", "demo", "write", "c3", 3);
    store.search_start(&plain.id).unwrap();
    assert_eq!(store.search_start(&plain.id).unwrap(), 2);
}

#[test]
fn calls_are_indexed_for_the_artifacts_they_produced() {
    let (_dir, store, report, table) = fixture();
    let audit = call;
    store.audit(&audit("c1", serde_json::json!({"customer": "Initech", "year": 2026}), vec![report.id.clone()])).unwrap();
    store.audit(&audit("c9", serde_json::json!({"customer": "Hooli"}), vec![])).unwrap();
    assert_eq!(store.search_index_calls(500).unwrap(), 2);
    assert_eq!(store.search_index_calls(500).unwrap(), 0, "each call once");
    assert_eq!(found(&store, &query("initech ")), vec![("report.pdf".into(), HitPlace::Call, 0)]);
    assert_eq!(found(&store, &query("\"make_report customer initech\" ")), vec![("report.pdf".into(), HitPlace::Call, 0)], "a call's phrase, by its pairs");
    assert!(found(&store, &query("hooli ")).is_empty(), "a call without artifacts has nothing to find");
    assert!(store.search_call_text("c1").unwrap().unwrap().contains("Initech"));
    // Re-indexing an artifact's text keeps its call.
    index(&store, &report, vec![segment(HitPlace::Page, 1, "new text")]);
    assert_eq!(found(&store, &query("initech ")).len(), 1);
    let _ = table;
}

#[test]
fn a_damaged_index_is_found_and_replaced_without_touching_the_catalog() {
    let (dir, store, report, table) = fixture();
    store.search_check().unwrap();
    drop(store);
    // Damage FTS5's own data: its segment blobs overwritten.
    {
        let conn = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
        conn.execute("UPDATE search_fts_data SET block = x'00ff00ff00ff00ff' WHERE id > 10", []).unwrap();
    }
    let store = ArtifactStore::open(dir.path()).unwrap();
    assert!(store.search_check().is_err(), "the damage is found");
    store.search_clear().unwrap();
    store.search_check().unwrap();
    let status = store.search_status().unwrap();
    assert_eq!((status.indexed, status.pending), (0, 2), "everything is pending again");
    assert!(found(&store, &query("revenue ")).is_empty());
    // The catalog is whole.
    assert_eq!(store.get(&report.id).unwrap(), report);
    assert_eq!(store.read(&table.id).unwrap().0, table);
    index(&store, &report, vec![segment(HitPlace::Page, 12, "third quarter")]);
    assert_eq!(found(&store, &query("third ")).len(), 1);
}

/// FTS5's merge settings, as the catalog's file has them.
fn merge_settings(dir: &std::path::Path) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(dir.join("catalog.sqlite")).unwrap();
    let mut stmt = conn.prepare("SELECT k, v FROM search_fts_config WHERE k IN ('automerge', 'crisismerge') ORDER BY k").unwrap();
    stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn merges_are_spread_over_the_writes_in_a_new_index_and_a_rebuilt_one() {
    // Merging once 16 b-trees are on a level writes each entry again less often; a level merged
    // whole in the write that fills it (FTS5's "crisis" merge, by default at 16 too) would hold
    // the write lock for seconds in a large index: it waits for 64.
    let (dir, store, report, _table) = fixture();
    let wanted = vec![("automerge".to_owned(), 16), ("crisismerge".to_owned(), 64)];
    assert_eq!(merge_settings(dir.path()), wanted, "as the migration leaves it");
    store.search_clear().unwrap();
    assert_eq!(merge_settings(dir.path()), wanted, "as a rebuild leaves it");
    // Merging whole, a step at a time, ends; what was written is still found.
    index(&store, &report, vec![segment(HitPlace::Page, 12, "third quarter")]);
    let mut steps = 0;
    while store.search_compact_step().unwrap() {
        steps += 1;
        assert!(steps < 1000, "merging ends");
    }
    assert_eq!(found(&store, &query("third ")), vec![("report.pdf".into(), HitPlace::Page, 12)]);
}

#[test]
fn the_models_scope_is_what_the_proxy_gave_it_and_goes_with_the_file() {
    let (_dir, store, report, table) = fixture();
    let for_model = SearchQuery { shared_with_model: true, ..query("revenue ") };
    assert!(found(&store, &for_model).is_empty(), "nothing was given to a model yet");
    store.share_with_model(&[report.id.clone(), "gone_000000000000".into()], 7).unwrap();
    assert_eq!(found(&store, &for_model), vec![("report.pdf".into(), HitPlace::Page, 12)]);
    assert_eq!(found(&store, &query("revenue ")).len(), 2, "the person's own search sees both");
    store.remove(&report.id).unwrap();
    assert!(found(&store, &for_model).is_empty());
    let _ = table;
}

#[test]
fn a_calls_answer_is_searched_with_its_files_and_bounded() {
    let (_dir, store, report, _table) = fixture();
    let answer = format!("Report generated for Umbrella Corp. {}", "padding ".repeat(10_000));
    let record = AuditRecord { result_text: Some(answer), ..call("c1", serde_json::json!({}), vec![report.id.clone()]) };
    store.audit(&record).unwrap();
    let kept = store.audit_log(1).unwrap()[0].result_text.clone().unwrap();
    assert!(kept.len() <= mcp_canvas_store::MAX_RESULT_TEXT, "{}", kept.len());
    store.search_index_calls(10).unwrap();
    assert_eq!(found(&store, &query("umbrella ")), vec![("report.pdf".into(), HitPlace::Call, 0)]);
}

#[test]
fn one_artifact_with_many_hits_does_not_hide_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    for i in 0..20 {
        let r = put(&store, &format!("n{i}.txt"), "text/plain", "demo", "tail", "c1", 10 + i);
        index(&store, &r, vec![segment(HitPlace::Line, 1, "a long line that mentions acme once among many other words of no interest")]);
    }
    // The newest: 400 segments that are all the word.
    let big = put(&store, "acme-log.txt", "text/plain", "demo", "tail", "c1", 1_000);
    index(&store, &big, (1..=400).map(|i| segment(HitPlace::Line, i, "acme acme acme")).collect());
    let hits = search(&store, &SearchQuery { limit: 12, ..query("acme ") });
    assert_eq!(hits.len(), 12);
    assert_eq!(hits.iter().filter(|h| h.artifact.id == big.id).count(), 3);
    assert_eq!(hits[0].artifact.id, big.id, "the newest first");
    assert_eq!(hits[3].artifact.name, "n19.txt", "then the next newest");
    assert!(hits[0].snippet.iter().any(|p| p.hit && p.text == "acme"), "snippets cut from the text given: {:?}", hits[0].snippet);
}

#[test]
fn hits_come_newest_first_whatever_order_they_were_indexed_in() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let old = put(&store, "old.txt", "text/plain", "demo", "tail", "c1", 1_000);
    let middle = put(&store, "middle.txt", "text/plain", "demo", "tail", "c1", 5_000);
    let new = put(&store, "new.txt", "text/plain", "demo", "tail", "c1", 9_000);
    // The indexer takes what is pending newest first (a rebuild walks down), and a file stored
    // afterwards is newer than everything.
    for record in [&middle, &old] {
        index(&store, record, (1..=3).map(|i| segment(HitPlace::Line, i, "quota warning")).collect());
    }
    index(&store, &new, (1..=3).map(|i| segment(HitPlace::Line, i, "quota warning")).collect());
    let names: Vec<String> = found(&store, &query("quota ")).into_iter().map(|h| h.0).collect();
    assert_eq!(names, ["new.txt"; 3].into_iter().chain(["middle.txt"; 3]).chain(["old.txt"; 3]).collect::<Vec<_>>());
    // Within a file, its hits in reading order.
    let lines: Vec<u64> = found(&store, &query("quota ")).into_iter().filter(|h| h.0 == "old.txt").map(|h| h.2).collect();
    assert_eq!(lines, [1, 2, 3]);
}

#[test]
fn a_phrase_whose_words_are_apart_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let r = put(&store, "notes.txt", "text/plain", "demo", "tail", "c1", 1);
    // Many segments with both words apart (newer), and one with the phrase (older).
    index(&store, &r, vec![segment(HitPlace::Line, 1, "the red fox")]);
    let apart = put(&store, "apart.txt", "text/plain", "demo", "tail", "c1", 2);
    index(&store, &apart, (1..=300).map(|i| segment(HitPlace::Line, i, "fox and the red one")).collect());
    assert_eq!(found(&store, &query("\"red fox\" ")), vec![("notes.txt".into(), HitPlace::Line, 1)]);
    assert_eq!(found(&store, &query("red fox ")).len(), 4, "as words, both files (three of the newer)");
}

#[test]
fn a_phrase_reads_again_only_the_places_where_its_words_are_adjacent() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let r = put(&store, "quick.txt", "text/plain", "demo", "tail", "c1", 1);
    index(&store, &r, vec![segment(HitPlace::Line, 1, "the quick red fox jumps")]);
    // 1,000 newer places hold both words apart (more than a search checks one by one).
    let apart = put(&store, "both-apart.txt", "text/plain", "demo", "tail", "c1", 2);
    index(&store, &apart, (1..=1000).map(|i| segment(HitPlace::Line, i, "red, then a fox; fox before red")).collect());
    let mut read = 0;
    let text_of = &mut |hit: &mcp_canvas_store::SearchHit| {
        read += 1;
        text_of(hit)
    };
    let results = store.search_with(&query("\"red fox\" "), text_of).unwrap();
    assert_eq!(results.hits.iter().map(|h| h.artifact.name.as_str()).collect::<Vec<_>>(), ["quick.txt"]);
    assert!(!results.partial);
    assert_eq!(read, 1, "only the place where the words are adjacent is read again");
    // Three words: every adjacent pair is required.
    assert_eq!(found(&store, &query("\"quick red fox\" ")).len(), 1);
    assert!(found(&store, &query("\"quick fox red\" ")).is_empty());
}

#[test]
fn a_phrase_of_short_words_checks_a_bounded_number_of_places_and_says_so() {
    // Words of one or two letters do not pair: their phrase is found by its words, then checked
    // in the text, and more places than are checked make the search say it stopped early.
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let r = put(&store, "hamlet.txt", "text/plain", "demo", "tail", "c1", 1);
    index(&store, &r, vec![segment(HitPlace::Line, 1, "to be or not")]);
    let newer = put(&store, "seen.txt", "text/plain", "demo", "tail", "c1", 2);
    index(&store, &newer, vec![segment(HitPlace::Line, 1, "it is to be seen")]);
    assert_eq!(found(&store, &query("\"to be\" ")).len(), 2);
    let more = put(&store, "be-then-to.txt", "text/plain", "demo", "tail", "c1", 3);
    index(&store, &more, (1..=500).map(|i| segment(HitPlace::Line, i, "be, then to")).collect());
    let results = store.search_with(&query("\"to be\" "), &mut text_of).unwrap();
    assert!(results.partial && results.hits.is_empty(), "{results:?}");
    assert!(!store.search_with(&query("to be "), &mut text_of).unwrap().partial);
}

#[test]
fn a_prefix_finds_every_completion_newest_first_with_few_or_many_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let older = put(&store, "older.txt", "text/plain", "demo", "tail", "c1", 1_000);
    index(&store, &older, vec![segment(HitPlace::Line, 1, "quarterly totals")]);
    let newer = put(&store, "newer.txt", "text/plain", "demo", "tail", "c1", 2_000);
    index(&store, &newer, vec![segment(HitPlace::Line, 1, "quartz clock")]);
    assert_eq!(found(&store, &query("quar")).into_iter().map(|h| h.0).collect::<Vec<_>>(), ["newer.txt", "older.txt"]);
    // More completions than are spelled out: FTS5's own prefix, the same hits.
    let many = put(&store, "many.txt", "text/plain", "demo", "tail", "c1", 3_000);
    let words: String = (0..700).map(|i| format!("quad{i} ")).collect();
    index(&store, &many, vec![segment(HitPlace::Line, 1, &words)]);
    assert_eq!(found(&store, &query("qua")).into_iter().map(|h| h.0).collect::<Vec<_>>(), ["many.txt", "newer.txt", "older.txt"]);
    assert_eq!(found(&store, &query("quad69")).len(), 1);
    assert!(found(&store, &query("quz")).is_empty());
}

#[test]
fn a_file_skipped_past_does_not_take_the_files_between_its_segments_with_it() {
    // A file indexed again after an interrupted run goes on top, while its call's segment stays
    // where it was: its segments are apart, and another file's lie between them.
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let oldest = put(&store, "oldest.txt", "text/plain", "demo", "tail", "c0", 1_000);
    index(&store, &oldest, vec![segment(HitPlace::Line, 1, "nothing to see")]);
    let again = put(&store, "again.txt", "text/plain", "demo", "tail", "c1", 1_500);
    index(&store, &again, vec![segment(HitPlace::Line, 1, "first run")]);
    let audit = call("c1", serde_json::json!({"path": "/var/log/app"}), vec![again.id.clone()]);
    store.audit(&audit).unwrap();
    assert_eq!(store.search_index_calls(500).unwrap(), 1);
    let newest = put(&store, "newest.txt", "text/plain", "demo", "tail", "c2", 2_000);
    index(&store, &newest, vec![segment(HitPlace::Line, 1, "acme shipped")]);
    // Indexed again: its text goes above the newest file's, its call stays below.
    index(&store, &again, (1..=10).map(|i| segment(HitPlace::Line, i, "acme acme")).collect());
    let names: Vec<String> = found(&store, &query("acme ")).into_iter().map(|h| h.0).collect();
    assert_eq!(names, ["again.txt", "again.txt", "again.txt", "newest.txt"]);
}

#[test]
fn a_hit_in_a_group_of_lines_is_at_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let log = put(&store, "app.log", "text/plain", "demo", "tail", "c1", 1);
    index(&store, &log, vec![segment(HitPlace::Line, 10, "started\nlistening on 8080\nshutdown requested by operator")]);
    let hits = search(&store, &query("\"requested by\" "));
    assert_eq!((hits[0].place, hits[0].position), (HitPlace::Line, 12), "lines 10 to 12, the phrase on the third");
    let shown: String = hits[0].snippet.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(shown, "shutdown requested by operator", "the snippet is that line");
}

#[test]
fn a_prefix_completes_to_words_written_again_after_another_process_emptied_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let indexer = ArtifactStore::open(dir.path()).unwrap();
    let other = ArtifactStore::open(dir.path()).unwrap();
    let r = put(&indexer, "glossary.txt", "text/plain", "demo", "tail", "c1", 1);
    index(&indexer, &r, vec![segment(HitPlace::Line, 1, "Zygomorphic flowers")]);
    assert_eq!(found(&other, &query("zygo")).len(), 1);
    // Another process rebuilds: the index and its words are emptied; this indexer, which
    // remembers having written "zygomorphic", writes the file again.
    other.search_clear().unwrap();
    assert!(found(&other, &query("zygo")).is_empty());
    index(&indexer, &r, vec![segment(HitPlace::Line, 1, "Zygomorphic flowers"), segment(HitPlace::Line, 2, "a zygote")]);
    assert_eq!(found(&other, &query("zygo")).len(), 2, "the word is written again, not taken as known");
    assert_eq!(found(&other, &query("Zygomorphic flo")).len(), 1);
    // A prefix typed with diacritics completes to the folded word.
    let accents = put(&indexer, "menu.txt", "text/plain", "demo", "tail", "c1", 2);
    index(&indexer, &accents, vec![segment(HitPlace::Line, 1, "Crème brûlée")]);
    assert_eq!(found(&other, &query("crè")).len(), 1);
    assert_eq!(found(&other, &query("BRU")).len(), 1);
}

#[test]
fn a_prefix_finds_words_however_the_index_folds_splits_or_cuts_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let files = [
        // FTS5 keeps "й" (Rust's folding would make it "и"); decomposed accents (as macOS names
        // files) are one word, "resume"; a word over 64 characters; private-use characters
        // inside a word.
        ("names.txt", "Сергей Петров"),
        ("other-names.txt", "серый кот"),
        ("cv-nfd.txt", "my re\u{301}sume\u{301} here"),
        ("results.txt", "the result"),
        ("long.txt", "ThisIsAVeryLongGeneratedSerializerClassNameForTheFrameworkInternalsOfIt"),
        ("short.txt", "this one"),
    ];
    for (i, (name, text)) in files.iter().enumerate() {
        let r = put(&store, name, "text/plain", "demo", "tail", "c1", 100 + i as i64);
        index(&store, &r, vec![segment(HitPlace::Line, 1, text)]);
    }
    let names = |q: &str| -> Vec<String> {
        let mut names: Vec<String> = found(&store, &query(q)).into_iter().map(|h| h.0).collect();
        names.sort();
        names
    };
    assert_eq!(names("серг"), ["names.txt"]);
    assert_eq!(names("сер"), ["names.txt", "other-names.txt"]);
    assert_eq!(names("Сергей "), ["names.txt"]);
    assert_eq!(names("resu"), ["cv-nfd.txt", "results.txt"]);
    assert_eq!(names("résumé "), ["cv-nfd.txt"]);
    assert_eq!(names("this"), ["long.txt", "short.txt"]);
}

/// The pair blocks as (level, values), oldest first, from the catalog's file.
fn pair_blocks(dir: &std::path::Path) -> Vec<(i64, i64)> {
    let conn = rusqlite::Connection::open(dir.join("catalog.sqlite")).unwrap();
    let mut stmt = conn.prepare("SELECT level, entries FROM search_pair_blocks ORDER BY id").unwrap();
    stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn phrases_are_found_through_pair_blocks_merged_level_over_level() {
    // Each batch's pairs are one block; sixteen blocks of a level merge into one of the next.
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let files = 16 * 16 + 5;
    for i in 0..files {
        let r = put(&store, &format!("ledger-{i}.txt"), "text/plain", "demo", "tail", "c1", i as i64 + 1);
        index(&store, &r, vec![segment(HitPlace::Line, 1, &format!("entry {i}: quarterly revenue tag{i} rose")), segment(HitPlace::Line, 2, "revenue, then quarterly")]);
    }
    let blocks = pair_blocks(dir.path());
    assert!(blocks.iter().any(|b| b.0 == 2), "sixteen merged blocks merged again: {blocks:?}");
    assert!(blocks.len() < 16 * 3, "{} blocks", blocks.len());
    // A phrase of every file: each one's first line, newest first.
    let hits = search(&store, &SearchQuery { text: "\"quarterly revenue\" ".into(), limit: 200, ..Default::default() });
    assert_eq!(hits.len(), 200);
    assert!(hits.iter().all(|h| h.position == 1), "the second lines have the words apart");
    let newest: Vec<String> = (files - 200..files).rev().map(|i| format!("ledger-{i}.txt")).collect();
    assert_eq!(hits.iter().map(|h| h.artifact.name.clone()).collect::<Vec<_>>(), newest);
    // A phrase of one file, whatever level its block is at now.
    for i in [0, 7, 130, 255, files - 1] {
        assert_eq!(found(&store, &query(&format!("\"revenue tag{i}\" "))), vec![(format!("ledger-{i}.txt"), HitPlace::Line, 1)], "file {i}");
    }
    assert!(found(&store, &query("\"revenue quarterly\" ")).is_empty());
}

#[test]
fn a_merge_drops_the_pairs_of_removed_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let mut records = Vec::new();
    for i in 0..15 {
        let r = put(&store, &format!("memo-{i}.txt"), "text/plain", "demo", "tail", "c1", i + 1);
        index(&store, &r, vec![segment(HitPlace::Line, 1, &format!("board memo number{i} approved"))]);
        records.push(r);
    }
    let before: i64 = pair_blocks(dir.path()).iter().map(|b| b.1).sum();
    for r in &records[..10] {
        store.remove(&r.id).unwrap();
    }
    // Removed files' pairs stay until their blocks merge; no phrase of theirs is found meanwhile.
    assert_eq!(pair_blocks(dir.path()).iter().map(|b| b.1).sum::<i64>(), before);
    assert!(found(&store, &query("\"memo number3\" ")).is_empty());
    // The sixteenth block: the merge keeps the pairs of the files still there.
    let last = put(&store, "memo-15.txt", "text/plain", "demo", "tail", "c1", 16);
    index(&store, &last, vec![segment(HitPlace::Line, 1, "board memo number15 approved")]);
    let blocks = pair_blocks(dir.path());
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    assert_eq!(blocks[0], (1, 6 * 3), "three pairs for each of the six files left");
    assert_eq!(found(&store, &query("\"memo number12\" ")), vec![("memo-12.txt".into(), HitPlace::Line, 1)]);
    assert_eq!(found(&store, &query("\"board memo\" ")).len(), 6);
}

#[test]
fn a_damaged_pair_block_is_a_clear_error_and_a_rebuild_mends_it() {
    let (dir, store, report, _table) = fixture();
    {
        let conn = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
        // The directory and data of every block overwritten with ones; headers kept.
        conn.execute("UPDATE search_pair_chunks SET data = CAST(substr(data, 1, 16) || unhex(replace(hex(zeroblob(length(data) - 16)), '00', 'FF')) AS BLOB)", []).unwrap();
    }
    let error = store.search_check().unwrap_err().to_string();
    assert!(error.contains("search index is damaged") && error.contains("reindex"), "{error}");
    let error = store.search_with(&query("\"net revenue\" "), &mut text_of).unwrap_err().to_string();
    assert!(error.contains("search index is damaged"), "{error}");
    assert_eq!(found(&store, &query("revenue ")).len(), 2, "words alone do not need the blocks");
    store.search_clear().unwrap();
    store.search_check().unwrap();
    index(&store, &report, vec![segment(HitPlace::Page, 12, "Net revenue rose")]);
    assert_eq!(found(&store, &query("\"net revenue\" ")), vec![("report.pdf".into(), HitPlace::Page, 12)]);
}

#[test]
fn a_group_of_files_written_in_one_transaction_is_found_as_if_each_were_alone() {
    use mcp_canvas_store::IndexStep;
    let dir = tempfile::tempdir().unwrap();
    let store = ArtifactStore::open(dir.path()).unwrap();
    let newer = put(&store, "newer.txt", "text/plain", "demo", "tail", "g1", 9_000);
    let older = put(&store, "older.txt", "text/plain", "demo", "tail", "g1", 5_000);
    let gone = put(&store, "gone.txt", "text/plain", "demo", "tail", "g1", 1_000);
    // As a rebuild reads them: newest first, numbered downwards, two batches for the newer
    // one (each numbered below the last); one file is removed before the group is written.
    let mut steps = Vec::new();
    let lines = [
        (&newer, vec![(1, "ledger closing balance ledger ledger"), (2, "closing balance again")]),
        (&newer, vec![(3, "appendix ledger")]),
        (&older, vec![(1, "opening balance ledger")]),
        (&gone, vec![(1, "ledger of a removed file")]),
    ];
    let mut last: Option<&str> = None;
    for (record, segments) in &lines {
        if last != Some(record.id.as_str()) {
            if let Some(id) = last {
                steps.push(IndexStep::Finish { artifact_id: id.to_owned(), now_ms: 5, note: None });
            }
            steps.push(IndexStep::Restart(record.id.clone()));
            last = Some(&record.id);
        }
        let mut batch = IndexBatch::new(&record.id);
        for (position, text) in segments {
            TEXTS.lock().unwrap().push((record.id.clone(), *position, text.to_string()));
            batch.push(segment(HitPlace::Line, *position, text));
        }
        steps.push(IndexStep::Batch(store.search_prepare(batch)));
    }
    steps.push(IndexStep::Finish { artifact_id: gone.id.clone(), now_ms: 5, note: None });
    store.remove(&gone.id).unwrap();
    let applied = store.search_apply(steps).unwrap();
    assert_eq!((applied.artifacts, applied.segments), (2, 4), "the removed file has nothing written");
    // Words, a phrase (its pairs read from the text, not from the distinct words FTS5 is given),
    // newest first.
    let ledger: Vec<(String, u64)> = found(&store, &query("ledger ")).into_iter().map(|h| (h.0, h.2)).collect();
    assert_eq!(ledger, [("newer.txt".to_owned(), 1), ("newer.txt".to_owned(), 3), ("older.txt".to_owned(), 1)]);
    assert_eq!(found(&store, &query("\"closing balance\" ")).len(), 2);
    assert_eq!(found(&store, &query("\"opening balance\" ")), vec![("older.txt".into(), HitPlace::Line, 1)]);
    assert!(found(&store, &query("\"balance closing\" ")).is_empty(), "the words are there, never in that order");
    assert_eq!(store.search_status().unwrap().pending, 0);
    // FTS5 keeps a transaction's terms in memory up to 16 MiB before writing them out.
    let conn = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).unwrap();
    let hashsize: i64 = conn.query_row("SELECT v FROM search_fts_config WHERE k = 'hashsize'", [], |row| row.get(0)).unwrap();
    assert_eq!(hashsize, 16 << 20);
}
