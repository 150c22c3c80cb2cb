//! Full-text search over a store of 10,000 artifacts (issue 33's benchmark): indexing throughput
//! against `pdftotext` plus a plain SQLite FTS5 insert of the same files (the baseline, in the same
//! run), the index's size against the text it holds, the indexer's peak memory, and query latency
//! for a word, a phrase, a prefix and a filtered query.
//! `scripts/bench-search.sh` installs `pdftotext`, builds the release CLI and demo, and runs
//! `cargo run --release -p mcp-canvas-e2e --example bench_search -- [--artifacts 10000] [--pdfs 1000]
//! [--total-mb 2000] [--queries 200] [--dir DIR] [--dump-segments FILE] [--no-team] [--queries-only]`
//! (`--queries-only`: with a `--dir` a run has indexed, only the query latencies).
//!
//! The corpus (its generation is not timed): `--pdfs` PDFs of 1–50 pages from the real demo server
//! (`download_workbook`, a different seed and name each: different text), the rest synthetic CSV,
//! Markdown, JSON, HTML, plain text and Python whose words follow a Zipf law over 50,000 generated
//! words (a fixed xorshift seed: the same corpus every run), sized so that everything is about
//! `--total-mb`; each stored with `ArtifactStore::put` under one of eight servers, a tool, a
//! session and a creation time spread over 90 days. With `--dir DIR` the data dir and the corpus
//! are kept there and reused by the next run with the same `--dir`.
//!
//! Ours: `mcp-canvas-cli artifacts reindex --json` in a child process (its peak RSS is its own
//! `VmHWM`). The baseline: for each PDF `pdftotext FILE -`, for every other file its bytes, each
//! inserted as one row of a plain (content-storing) FTS5 table with the same tokenizer in a fresh
//! SQLite file, 256 rows or 64 MB per transaction (the same queries are timed on it, then it is
//! deleted before ours runs: it is as large as the corpus). Then the indexer's own segments
//! (`mcp_canvas_host::search::segments`) alone, with no index, which gives the extracted text's
//! size (and, with `--dump-segments`, writes every segment for an engine comparison outside the
//! repository). Index size: `dbstat`'s pages of the catalog's search tables. Queries go through
//! `mcp_canvas_host::search::search` (the hits with their snippets, cut from the artifacts: what a
//! person waits for) and through `ArtifactStore::search` alone (the index), 20 hits each.

use std::{
    collections::HashSet,
    io::{BufWriter, Write as _},
    path::{Path, PathBuf},
    process::Command,
    time::Instant,
};

use base64::Engine as _;
use mcp_canvas_e2e::{binary, RawDemo};
use mcp_canvas_host::search as host_search;
use mcp_canvas_store::{search::Terms, ArtifactRecord, ArtifactStore, MimeFamily, NewArtifact, Persistence, SearchQuery};
use serde_json::{json, Value};

const SERVERS: [&str; 8] = ["tableau", "github", "postgres", "filesystem", "notion", "jira", "analytics", "demo"];
const TOOLS: [&str; 3] = ["export", "query", "fetch"];
const VOCABULARY: usize = 50_000;
/// Mid-frequency words (by rank) for the word, prefix and filtered queries.
const MID_BAND: (usize, usize) = (1_000, 10_000);

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.below(high - low + 1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// 50,000 made-up words, shortest first (short words are the frequent ones), and a Zipf law
/// (Mandelbrot's: weight 1 / (rank + 2.7)) over them.
struct Vocab {
    words: Vec<String>,
    cdf: Vec<f64>,
}

impl Vocab {
    fn new(rng: &mut Rng) -> Self {
        const ONSETS: [&str; 30] = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr"];
        const VOWELS: [&str; 9] = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"];
        const CODAS: [&str; 11] = ["", "", "", "n", "r", "s", "l", "t", "m", "nd", "st"];
        let mut seen = HashSet::new();
        let mut words = Vec::with_capacity(VOCABULARY);
        while words.len() < VOCABULARY {
            let syllables = match rng.below(20) {
                0..=2 => 1,
                3..=11 => 2,
                12..=17 => 3,
                _ => 4,
            };
            let mut word = String::new();
            for _ in 0..syllables {
                word.push_str(*rng.pick(&ONSETS));
                word.push_str(*rng.pick(&VOWELS));
                word.push_str(*rng.pick(&CODAS));
            }
            if seen.insert(word.clone()) {
                words.push(word);
            }
        }
        words.sort_by_key(String::len);
        let mut total = 0.0;
        let mut cdf: Vec<f64> = (0..VOCABULARY)
            .map(|rank| {
                total += 1.0 / (rank as f64 + 2.7);
                total
            })
            .collect();
        cdf.iter_mut().for_each(|c| *c /= total);
        Self { words, cdf }
    }

    fn rank(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf.partition_point(|c| *c < u).min(VOCABULARY - 1)
    }
}

/// Writes synthetic text, and keeps some adjacent word pairs of it (for the phrase queries).
struct Writer<'a> {
    rng: Rng,
    vocab: &'a Vocab,
    pairs: Vec<(usize, usize)>,
    pairs_seen: u64,
}

impl Writer<'_> {
    fn word(&mut self) -> &str {
        let rank = self.vocab.rank(&mut self.rng);
        &self.vocab.words[rank]
    }

    /// `n` words separated by spaces (now and then a comma); keeps a pair of adjacent words,
    /// neither among the 100 most frequent, by reservoir sampling.
    fn words(&mut self, out: &mut String, n: usize, capital: bool) {
        let mut previous: Option<usize> = None;
        let vocab = self.vocab;
        for i in 0..n {
            let rank = vocab.rank(&mut self.rng);
            let word = &vocab.words[rank];
            if i > 0 {
                out.push(' ');
            }
            if capital && i == 0 {
                let mut chars = word.chars();
                out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                out.push_str(chars.as_str());
            } else {
                out.push_str(word);
            }
            if let Some(previous) = previous.filter(|p| *p >= 100 && rank >= 100) {
                self.pairs_seen += 1;
                if self.pairs.len() < 4096 {
                    self.pairs.push((previous, rank));
                } else {
                    let slot = self.rng.below(self.pairs_seen) as usize;
                    if slot < self.pairs.len() {
                        self.pairs[slot] = (previous, rank);
                    }
                }
            }
            previous = Some(rank);
            if i + 1 < n && self.rng.below(12) == 0 {
                out.push(',');
                previous = None;
            }
        }
    }

    fn sentence(&mut self, out: &mut String) {
        let n = self.rng.range(6, 18) as usize;
        self.words(out, n, true);
        out.push('.');
    }

    fn number(&mut self, out: &mut String) {
        let value = self.rng.below(1_000_000);
        out.push_str(&value.to_string());
    }

    /// One file of `kind` of about `size` bytes.
    fn file(&mut self, kind: Kind, size: usize) -> String {
        let mut out = String::with_capacity(size + 4096);
        match kind {
            Kind::Csv => {
                out.push_str("id,customer,city,amount,status,note\n");
                let mut id = 1;
                while out.len() < size {
                    out.push_str(&id.to_string());
                    out.push(',');
                    self.words(&mut out, 2, true);
                    out.push(',');
                    let city = self.word().to_owned();
                    out.push_str(&city);
                    out.push(',');
                    self.number(&mut out);
                    out.push_str(".00,");
                    let status = *self.rng.pick(&["open", "paid", "late", "void"]);
                    out.push_str(status);
                    out.push_str(",\"");
                    let n = self.rng.range(3, 12) as usize;
                    self.words(&mut out, n, false);
                    out.push_str("\"\n");
                    id += 1;
                }
            }
            Kind::Markdown => {
                while out.len() < size {
                    out.push_str("## ");
                    let n = self.rng.range(2, 5) as usize;
                    self.words(&mut out, n, true);
                    out.push_str("\n\n");
                    for _ in 0..self.rng.range(1, 4) {
                        for _ in 0..self.rng.range(2, 7) {
                            self.sentence(&mut out);
                            out.push(' ');
                        }
                        out.push_str("\n\n");
                    }
                    for _ in 0..self.rng.range(0, 4) {
                        out.push_str("- ");
                        self.sentence(&mut out);
                        out.push('\n');
                    }
                    out.push('\n');
                }
            }
            Kind::Json => {
                out.push_str("[\n");
                let mut id = 1;
                while out.len() < size {
                    out.push_str(&format!("  {{\n    \"id\": {id},\n    \"title\": \""));
                    let n = self.rng.range(2, 6) as usize;
                    self.words(&mut out, n, true);
                    out.push_str("\",\n    \"tags\": [\"");
                    let tag = self.word().to_owned();
                    out.push_str(&tag);
                    out.push_str("\", \"");
                    let tag = self.word().to_owned();
                    out.push_str(&tag);
                    out.push_str("\"],\n    \"score\": ");
                    self.number(&mut out);
                    out.push_str(",\n    \"body\": \"");
                    for _ in 0..self.rng.range(1, 4) {
                        self.sentence(&mut out);
                        out.push(' ');
                    }
                    out.push_str("\"\n  },\n");
                    id += 1;
                }
                out.push_str("  {}\n]\n");
            }
            Kind::Html => {
                out.push_str("<!doctype html><html><head><title>");
                self.words(&mut out, 4, true);
                out.push_str("</title><style>body{font:14px sans-serif}td{padding:2px}</style></head><body>\n");
                while out.len() < size {
                    out.push_str("<h2>");
                    self.words(&mut out, 3, true);
                    out.push_str("</h2>\n");
                    for _ in 0..self.rng.range(1, 4) {
                        out.push_str("<p>");
                        for _ in 0..self.rng.range(2, 6) {
                            self.sentence(&mut out);
                            out.push_str(if self.rng.below(4) == 0 { " <b>" } else { " " });
                        }
                        out.push_str("</p>\n");
                    }
                    out.push_str("<table>\n");
                    for _ in 0..self.rng.range(2, 8) {
                        out.push_str("<tr><td>");
                        self.words(&mut out, 2, true);
                        out.push_str("</td><td>");
                        self.number(&mut out);
                        out.push_str("</td></tr>\n");
                    }
                    out.push_str("</table>\n");
                }
                out.push_str("<script>console.log('loaded')</script></body></html>\n");
            }
            Kind::Text => {
                let mut line = 0usize;
                while out.len() < size {
                    self.sentence(&mut out);
                    line += 1;
                    out.push(if line % 6 == 0 { '\n' } else { ' ' });
                    if line % 6 == 0 && self.rng.below(3) == 0 {
                        out.push('\n');
                    }
                }
            }
            Kind::Code => {
                while out.len() < size {
                    let (a, b, c) = (self.word().to_owned(), self.word().to_owned(), self.word().to_owned());
                    out.push_str(&format!("def {a}_{b}({c}, limit={}):\n    # ", self.rng.below(100)));
                    self.sentence(&mut out);
                    out.push('\n');
                    for _ in 0..self.rng.range(2, 8) {
                        let (x, y) = (self.word().to_owned(), self.word().to_owned());
                        out.push_str(&format!("    {x} = {c}.{y}({})\n", self.rng.below(1000)));
                    }
                    out.push_str(&format!("    return {c}\n\n"));
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Csv,
    Markdown,
    Json,
    Html,
    Text,
    Code,
}

impl Kind {
    fn pick(rng: &mut Rng) -> Self {
        match rng.below(20) {
            0..=3 => Kind::Csv,
            4..=7 => Kind::Markdown,
            8..=10 => Kind::Json,
            11..=13 => Kind::Html,
            14..=16 => Kind::Text,
            _ => Kind::Code,
        }
    }
    fn mime_and_extension(self) -> (&'static str, &'static str) {
        match self {
            Kind::Csv => ("text/csv", "csv"),
            Kind::Markdown => ("text/markdown", "md"),
            Kind::Json => ("application/json", "json"),
            Kind::Html => ("text/html", "html"),
            Kind::Text => ("text/plain", "txt"),
            Kind::Code => ("text/x-python", "py"),
        }
    }
}

struct Options {
    artifacts: usize,
    pdfs: usize,
    total_mb: u64,
    queries: usize,
    dir: Option<PathBuf>,
    dump: Option<PathBuf>,
    team: bool,
    queries_only: bool,
}

fn options() -> Options {
    let mut options = Options { artifacts: 10_000, pdfs: 1_000, total_mb: 2_000, queries: 200, dir: None, dump: None, team: true, queries_only: false };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--artifacts" => options.artifacts = value().parse().expect("--artifacts N"),
            "--pdfs" => options.pdfs = value().parse().expect("--pdfs N"),
            "--total-mb" => options.total_mb = value().parse().expect("--total-mb N"),
            "--queries" => options.queries = value().parse().expect("--queries N"),
            "--dir" => options.dir = Some(PathBuf::from(value())),
            "--dump-segments" => options.dump = Some(PathBuf::from(value())),
            "--no-team" => options.team = false,
            "--queries-only" => options.queries_only = true,
            other => panic!("unknown argument {other}: [--artifacts N] [--pdfs N] [--total-mb N] [--queries N] [--dir DIR] [--dump-segments FILE] [--no-team] [--queries-only]"),
        }
    }
    assert!(options.pdfs <= options.artifacts, "--pdfs is at most --artifacts");
    options
}

/// What was generated: kept in `corpus.json` so a later run with the same `--dir` reuses it.
struct Corpus {
    artifacts: usize,
    pdfs: usize,
    total_mb: u64,
    records: Vec<ArtifactRecord>,
    words: Vec<String>,
    pairs: Vec<(usize, usize)>,
    pdf_pages: u64,
}

impl Corpus {
    fn to_json(&self) -> Value {
        json!({ "artifacts": self.artifacts, "pdfs": self.pdfs, "total_mb": self.total_mb, "records": self.records, "words": self.words, "pairs": self.pairs, "pdf_pages": self.pdf_pages })
    }

    fn from_json(value: Value) -> Option<Self> {
        Some(Self {
            artifacts: value["artifacts"].as_u64()? as usize,
            pdfs: value["pdfs"].as_u64()? as usize,
            total_mb: value["total_mb"].as_u64()?,
            records: serde_json::from_value(value["records"].clone()).ok()?,
            words: serde_json::from_value(value["words"].clone()).ok()?,
            pairs: serde_json::from_value(value["pairs"].clone()).ok()?,
            pdf_pages: value["pdf_pages"].as_u64()?,
        })
    }
}

/// The demo's PDFs, two servers at a time (one per core).
fn pdfs(count: usize, rng: &mut Rng, vocab: &Vocab) -> Vec<(String, u32, Vec<u8>)> {
    let asks: Vec<(String, u32, u64)> = (0..count)
        .map(|i| {
            let name = format!("{} {} workbook {i}", vocab.words[rng.range(200, 20_000) as usize], vocab.words[rng.range(200, 20_000) as usize]);
            (name, rng.range(1, 50) as u32, 1_000 + i as u64 * 7_919)
        })
        .collect();
    let halves: Vec<Vec<(String, u32, u64)>> = asks.chunks(count.div_ceil(2).max(1)).map(<[_]>::to_vec).collect();
    let threads: Vec<_> = halves
        .into_iter()
        .map(|half| {
            std::thread::spawn(move || {
                let mut demo = RawDemo::start();
                half.into_iter()
                    .map(|(name, pages, seed)| {
                        let result = demo.call("download_workbook", json!({ "name": name, "pages": pages, "seed": seed }));
                        let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text block: {result}"));
                        let body: Value = serde_json::from_str(text).unwrap();
                        let pdf = base64::engine::general_purpose::STANDARD.decode(body["content"].as_str().unwrap()).unwrap();
                        (name, pages, pdf)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    threads.into_iter().flat_map(|t| t.join().unwrap()).collect()
}

fn generate(options: &Options, data: &Path) -> Corpus {
    let started = Instant::now();
    let store = ArtifactStore::open(data).unwrap();
    let mut rng = Rng::new(33);
    let vocab = Vocab::new(&mut rng);
    let mut writer = Writer { rng: Rng::new(34), vocab: &vocab, pairs: Vec::new(), pairs_seen: 0 };
    let total = options.total_mb * 1_000_000;
    let base_ms: i64 = 1_767_225_600_000; // 2026-01-01
    let span_ms: i64 = 90 * 86_400_000;
    let mut records = Vec::with_capacity(options.artifacts);
    let stored = std::cell::Cell::new(0u64);
    let mut put = |i: usize, name: &str, mime: &str, server: &str, tool: &str, description: Option<&str>, bytes: &[u8]| {
        let now_ms = base_ms + span_ms * i as i64 / options.artifacts as i64;
        let call_id = format!("call-{i}");
        let session_id = format!("session-{}", i % 50);
        let persistence = if i % 20 == 0 { Persistence::Pinned } else { Persistence::Session };
        let new = NewArtifact { name, mime, server, tool, call_id: &call_id, session_id: &session_id, description, persistence, now_ms };
        records.push(store.put(new, bytes).unwrap());
        stored.set(stored.get() + bytes.len() as u64);
    };

    let generated = pdfs(options.pdfs, &mut rng, &vocab);
    let pdf_pages: u64 = generated.iter().map(|(_, pages, _)| u64::from(*pages)).sum();
    let pdf_bytes: u64 = generated.iter().map(|(_, _, pdf)| pdf.len() as u64).sum();
    println!("generated {} PDFs ({pdf_pages} pages, {:.0} MB) in {:.0} s", generated.len(), pdf_bytes as f64 / 1e6, started.elapsed().as_secs_f64());
    for (i, (name, _, pdf)) in generated.iter().enumerate() {
        let server = if i % 2 == 0 { "tableau" } else { "demo" };
        put(i, &format!("{name}.pdf"), "application/pdf", server, "download_workbook", Some("Workbook export"), pdf);
    }

    // Sizes: log-uniform between 1 KB and 2 MB, scaled so the whole corpus is `total`.
    let others = options.artifacts - options.pdfs;
    let raw: Vec<f64> = (0..others).map(|_| (1_000f64.ln() + rng.unit() * (2_000f64.ln())).exp()).collect();
    let budget = total.saturating_sub(pdf_bytes) as f64;
    let scale = budget / raw.iter().sum::<f64>().max(1.0);
    for (j, size) in raw.iter().enumerate() {
        let i = options.pdfs + j;
        let kind = Kind::pick(&mut rng);
        let (mime, extension) = kind.mime_and_extension();
        let server = *rng.pick(&SERVERS);
        let tool = *rng.pick(&TOOLS);
        let mut label = String::new();
        writer.words(&mut label, 3, false);
        let name = format!("{}.{extension}", label.replace([' ', ','], "-"));
        let mut description = String::new();
        let described = rng.below(2) == 0;
        if described {
            writer.words(&mut description, 6, true);
        }
        let bytes = writer.file(kind, ((size * scale) as usize).max(200));
        put(i, &name, mime, server, tool, described.then_some(description.as_str()), bytes.as_bytes());
        if (j + 1) % 1000 == 0 {
            println!("generated {} of {others} text artifacts ({:.0} MB so far, {:.0} s)", j + 1, stored.get() as f64 / 1e6, started.elapsed().as_secs_f64());
        }
    }
    println!("the corpus: {} artifacts, {:.0} MB, generated and stored in {:.0} s (not timed below)", records.len(), stored.get() as f64 / 1e6, started.elapsed().as_secs_f64());
    let pairs = writer.pairs.clone();
    Corpus { artifacts: options.artifacts, pdfs: options.pdfs, total_mb: options.total_mb, records, words: vocab.words, pairs, pdf_pages }
}

fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// The catalog's file with its write-ahead log.
fn dir_bytes_of_catalog(data: &Path) -> u64 {
    ["catalog.sqlite", "catalog.sqlite-wal"].iter().map(|name| std::fs::metadata(data.join(name)).map(|m| m.len()).unwrap_or(0)).sum()
}

/// The baseline: `pdftotext` for PDFs, the bytes of every other file, each a row of a plain FTS5
/// table. Returns (seconds, text bytes, database bytes, bytes of its FTS5 index without the text).
fn baseline(store: &ArtifactStore, records: &[ArtifactRecord], db: &Path) -> (f64, u64, u64, u64) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let started = Instant::now();
    let mut conn = rusqlite::Connection::open(db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
    conn.execute_batch("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')").unwrap();
    let mut text_bytes = 0u64;
    let mut batch: Vec<String> = Vec::new();
    let mut batch_bytes = 0usize;
    let flush = |conn: &mut rusqlite::Connection, batch: &mut Vec<String>| {
        let tx = conn.transaction().unwrap();
        {
            let mut insert = tx.prepare_cached("INSERT INTO docs (body) VALUES (?1)").unwrap();
            for text in batch.drain(..) {
                insert.execute([text]).unwrap();
            }
        }
        tx.commit().unwrap();
    };
    for record in records {
        let path = store.blob_path(&record.sha256);
        let text = if record.mime == "application/pdf" {
            let out = Command::new("pdftotext").arg(&path).arg("-").output().expect("pdftotext runs (scripts/bench-search.sh installs poppler-utils)");
            assert!(out.status.success(), "pdftotext {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        } else {
            String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
        };
        text_bytes += text.len() as u64;
        batch_bytes += text.len();
        batch.push(text);
        if batch.len() >= 256 || batch_bytes >= 64 << 20 {
            flush(&mut conn, &mut batch);
            batch_bytes = 0;
        }
    }
    flush(&mut conn, &mut batch);
    conn.pragma_update(None, "wal_checkpoint", "TRUNCATE").unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let index: i64 = conn.query_row("SELECT SUM(pgsize) FROM dbstat WHERE name IN ('docs_data', 'docs_idx', 'docs_docsize', 'docs_config')", [], |row| row.get(0)).unwrap();
    drop(conn);
    (seconds, text_bytes, std::fs::metadata(db).unwrap().len(), index as u64)
}

/// The same queries against the baseline's table (whole files, no metadata to filter by, no
/// snippet): p50 and p95 in ms.
fn baseline_latency(db: &Path, queries: &[SearchQuery]) -> (f64, f64) {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare("SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rank LIMIT 20").unwrap();
    let mut run = |q: &SearchQuery| stmt.query_map([Terms::parse(&q.text).fts5()], |row| row.get::<_, i64>(0)).unwrap().count();
    for q in queries.iter().take(10) {
        run(q);
    }
    let times: Vec<f64> = queries
        .iter()
        .map(|q| {
            let started = Instant::now();
            run(q);
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    (percentile(&times, 0.5), percentile(&times, 0.95))
}

/// The indexer's own text extraction, with no index: its time, and the bytes and segments it
/// gives (what the index holds). With `dump`, each segment is written for an engine comparison:
/// u32 artifact, u8 server, u8 family (0 PDF, 1 HTML, 2 text), u32 length, the text (little-endian).
fn extract_alone(store: &ArtifactStore, records: &[ArtifactRecord], dump: Option<&Path>) -> (f64, u64, u64) {
    let mut out = dump.map(|path| BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap()));
    let started = Instant::now();
    let (mut bytes, mut segments) = (0u64, 0u64);
    for (index, record) in records.iter().enumerate() {
        let server = SERVERS.iter().position(|s| *s == record.server).unwrap_or(0) as u8;
        let family = match record.mime.as_str() {
            "application/pdf" => 0u8,
            "text/html" => 1,
            _ => 2,
        };
        let mut emit = |text: &str| {
            bytes += text.len() as u64;
            segments += 1;
            if let Some(out) = out.as_mut() {
                out.write_all(&(index as u32).to_le_bytes()).unwrap();
                out.write_all(&[server, family]).unwrap();
                out.write_all(&(text.len() as u32).to_le_bytes()).unwrap();
                out.write_all(text.as_bytes()).unwrap();
            }
        };
        // The indexer's own segments: the name and summary, then the file's text.
        host_search::segments(record, &store.blob_path(&record.sha256), &mut |segment| {
            emit(&segment.text);
            true
        });
    }
    if let Some(mut out) = out {
        out.flush().unwrap();
    }
    (started.elapsed().as_secs_f64(), bytes, segments)
}

/// Bytes each table and index of the search takes in the catalog (`dbstat`), and the whole file.
fn index_bytes(catalog: &Path) -> (u64, u64, Vec<(String, u64)>) {
    let conn = rusqlite::Connection::open_with_flags(catalog, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").unwrap();
    let tables: Vec<(String, u64)> = stmt.query_map([], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as u64))).unwrap().map(Result::unwrap).collect();
    let search: Vec<(String, u64)> = tables.iter().filter(|(name, _)| name.starts_with("search_") || name.starts_with("sqlite_autoindex_search_")).cloned().collect();
    let fts: u64 = search.iter().filter(|(name, _)| name.starts_with("search_fts")).map(|t| t.1).sum();
    let all: u64 = search.iter().map(|t| t.1).sum();
    (fts, all, search)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum QueryKind {
    Word,
    Phrase,
    Prefix,
    Filtered,
}

fn queries(kind: QueryKind, corpus: &Corpus, n: usize) -> Vec<SearchQuery> {
    let mut rng = Rng::new(match kind {
        QueryKind::Word => 1,
        QueryKind::Phrase => 2,
        QueryKind::Prefix => 3,
        QueryKind::Filtered => 4,
    });
    let mid = |rng: &mut Rng| corpus.words[rng.range(MID_BAND.0 as u64, MID_BAND.1 as u64 - 1) as usize].clone();
    (0..n)
        .map(|i| match kind {
            // A trailing space: whole words (without it, the last word is a prefix as it is typed).
            QueryKind::Word => SearchQuery { text: format!("{} ", mid(&mut rng)), limit: 20, ..Default::default() },
            QueryKind::Phrase => {
                let (a, b) = *rng.pick(&corpus.pairs);
                SearchQuery { text: format!("\"{} {}\" ", corpus.words[a], corpus.words[b]), limit: 20, ..Default::default() }
            }
            QueryKind::Prefix => {
                let word = mid(&mut rng);
                let cut: String = word.chars().take(3 + i % 2).collect();
                SearchQuery { text: format!("{cut}* "), limit: 20, ..Default::default() }
            }
            QueryKind::Filtered => SearchQuery {
                text: format!("{} ", mid(&mut rng)),
                server: Some((*rng.pick(&SERVERS)).to_owned()),
                family: Some(MimeFamily::Text),
                limit: 20,
                ..Default::default()
            },
        })
        .collect()
}

struct Latency {
    p50: f64,
    p95: f64,
    mean_hits: f64,
}

fn measure(store: &ArtifactStore, queries: &[SearchQuery], snippets: bool) -> Latency {
    let run = |q: &SearchQuery| if snippets { host_search::search(store, q).unwrap() } else { store.search(q).unwrap() };
    for q in queries.iter().take(10) {
        run(q); // warm-up
    }
    let mut times = Vec::with_capacity(queries.len());
    let mut hits = 0usize;
    for q in queries {
        let started = Instant::now();
        let results = run(q);
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        hits += results.hits.len();
    }
    Latency { p50: percentile(&times, 0.5), p95: percentile(&times, 0.95), mean_hits: hits as f64 / queries.len() as f64 }
}

/// The team's search over the same corpus: a throwaway PostgreSQL (Debian's, as the tests start
/// it), every artifact registered for one member with the text the indexer extracts (at most the
/// team's 16 MiB per file, as a member writes it), then the same queries through
/// `Catalog::search`. Returns the load's seconds, the text table's and its index's bytes, and
/// p50 / p95 per query kind.
fn team(store: &ArtifactStore, records: &[ArtifactRecord], sets: &[(QueryKind, Vec<SearchQuery>)]) -> (f64, u64, Vec<(QueryKind, f64, f64)>) {
    use mcp_canvas_team::{search::MAX_TEXT_BYTES, Catalog};
    let pg = mcp_canvas_e2e::team::Postgres::start();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let catalog = Catalog::connect(&pg.url(), Some(mcp_canvas_e2e::team::PASSWORD), true).await.unwrap();
        let started = Instant::now();
        for record in records {
            let token = catalog.reserve(&record.sha256, record.size, record.created_at_ms).await.unwrap();
            catalog.register("bench", "ada", record, "bench-bucket", &token, record.created_at_ms).await.unwrap();
            let (mut batches, mut batch, mut batch_bytes, mut total) = (Vec::new(), Vec::new(), 0usize, 0usize);
            host_search::segments(record, &store.blob_path(&record.sha256), &mut |segment| {
                total += segment.text.len();
                if total > MAX_TEXT_BYTES {
                    return false;
                }
                batch_bytes += segment.text.len();
                batch.push(segment);
                if batch_bytes >= 1 << 20 {
                    batches.push(std::mem::take(&mut batch));
                    batch_bytes = 0;
                }
                true
            });
            batches.push(batch);
            assert!(catalog.put_text("bench", &record.id, batches, None, record.created_at_ms).await.unwrap());
        }
        let load_s = started.elapsed().as_secs_f64();
        let bytes = pg.admin_on("canvas", "SELECT pg_total_relation_size('artifact_text')");
        let bytes: u64 = bytes.trim().parse().unwrap_or(0);
        let mut out = Vec::new();
        for (kind, queries) in sets {
            for q in queries.iter().take(10) {
                catalog.search("bench", "ada", q).await.unwrap();
            }
            let mut times = Vec::new();
            for q in queries {
                let started = Instant::now();
                catalog.search("bench", "ada", q).await.unwrap();
                times.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            out.push((*kind, percentile(&times, 0.5), percentile(&times, 0.95)));
        }
        (load_s, bytes, out)
    })
}

fn verdict(pass: bool) -> &'static str {
    if pass { "PASS" } else { "MISS" }
}

fn main() {
    let options = options();
    let temp;
    let work = match &options.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).unwrap();
            dir.clone()
        }
        None => {
            temp = tempfile::tempdir().unwrap();
            temp.path().to_owned()
        }
    };
    let data = work.join("data");
    let corpus_file = work.join("corpus.json");
    let reused = std::fs::read(&corpus_file).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).and_then(Corpus::from_json);
    let corpus = match reused {
        Some(c) if c.artifacts == options.artifacts && c.pdfs == options.pdfs && c.total_mb == options.total_mb => {
            println!("reusing the corpus in {}", work.display());
            c
        }
        _ => {
            let _ = std::fs::remove_dir_all(&data);
            let c = generate(&options, &data);
            std::fs::write(&corpus_file, serde_json::to_vec(&c.to_json()).unwrap()).unwrap();
            c
        }
    };
    let input_bytes: u64 = corpus.records.iter().map(|r| r.size).sum();
    let input_mb = input_bytes as f64 / 1e6;
    let store = ArtifactStore::open(&data).unwrap();
    println!("corpus: {} artifacts ({} PDFs, {} pages), {input_mb:.0} MB", corpus.records.len(), corpus.pdfs, corpus.pdf_pages);

    // The baseline.
    let kinds = [QueryKind::Word, QueryKind::Phrase, QueryKind::Prefix, QueryKind::Filtered];
    if options.queries_only {
        // The index a run with the same --dir built: only the query latencies, for tuning.
        assert!(store.search_status().unwrap().pending == 0, "--queries-only needs an index built by a run with the same --dir");
        for kind in kinds {
            let set = queries(kind, &corpus, options.queries);
            let (full, index) = (measure(&store, &set, true), measure(&store, &set, false));
            println!("{kind:?}: p50 / p95 {:.1} / {:.1} ms with snippets, {:.1} / {:.1} ms the index alone (mean hits {:.1})", full.p50, full.p95, index.p50, index.p95, full.mean_hits);
        }
        return;
    }
    let base_path = work.join("baseline.sqlite");
    let (base_s, base_text, base_db, base_index) = baseline(&store, &corpus.records, &base_path);
    println!("baseline: {base_s:.1} s, {:.0} MB of text, database {:.0} MB (its index without the text {:.0} MB)", base_text as f64 / 1e6, base_db as f64 / 1e6, base_index as f64 / 1e6);
    let plain: Vec<Option<(f64, f64)>> = kinds.iter().map(|kind| (*kind != QueryKind::Filtered).then(|| baseline_latency(&base_path, &queries(*kind, &corpus, options.queries)))).collect();
    // The baseline's database is not needed any more (about as large as the corpus: not kept
    // while the catalog's index is built).
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", base_path.display()));
    }

    // Ours, in a child process.
    let cli = binary("mcp-canvas-cli");
    let started = Instant::now();
    let out = Command::new(&cli).arg("--data-dir").arg(&data).args(["artifacts", "reindex", "--json"]).env_remove("MCP_CANVAS_DATA_DIR").output().unwrap();
    let ours_wall = started.elapsed().as_secs_f64();
    assert!(out.status.success(), "reindex failed: {}", String::from_utf8_lossy(&out.stderr));
    let run: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let ours_s = run["seconds"].as_f64().unwrap();
    let peak_mb = run["peak_rss_kb"].as_f64().map(|kb| kb / 1024.0);
    println!("ours: {run} ({ours_wall:.1} s with the process's start)");
    let status = store.search_status().unwrap();
    assert_eq!(status.pending, 0, "everything is indexed");

    let (fts_bytes, search_bytes, tables) = index_bytes(&data.join("catalog.sqlite"));
    for (name, bytes) in &tables {
        println!("  {name:<32} {:>8.1} MB", *bytes as f64 / 1e6);
    }

    // Queries.
    let mut latencies = Vec::new();
    for (kind, plain) in kinds.into_iter().zip(plain) {
        let set = queries(kind, &corpus, options.queries);
        let full = measure(&store, &set, true);
        let index = measure(&store, &set, false);
        latencies.push((kind, full, index, plain));
    }

    // The text the index holds, extracted alone.
    let (extract_s, extracted, segments) = extract_alone(&store, &corpus.records, options.dump.as_deref());
    println!("extraction alone: {extract_s:.1} s, {:.0} MB of text in {segments} segments", extracted as f64 / 1e6);
    if let Some(dump) = &options.dump {
        let mut sets = serde_json::Map::new();
        for (name, kind) in [("word", QueryKind::Word), ("phrase", QueryKind::Phrase), ("prefix", QueryKind::Prefix), ("filtered", QueryKind::Filtered)] {
            let list: Vec<Value> = queries(kind, &corpus, options.queries).into_iter().map(|q| json!({ "text": q.text, "server": q.server })).collect();
            sets.insert(name.into(), list.into());
        }
        let path = dump.with_extension("queries.json");
        std::fs::write(&path, serde_json::to_vec_pretty(&json!({ "servers": SERVERS, "queries": sets })).unwrap()).unwrap();
        println!("segments written to {}, queries to {}", dump.display(), path.display());
    }

    let ratio = base_s / ours_s;
    let size_ratio = fts_bytes as f64 / extracted as f64;
    println!();
    println!("{} artifacts ({} PDFs of 1–50 pages, {} pages), {input_mb:.0} MB; {:.0} MB of text extracted ({segments} segments)", corpus.records.len(), corpus.pdfs, corpus.pdf_pages, extracted as f64 / 1e6);
    println!();
    println!("{:<44} {:>16} {:>26}   {:<14} verdict", "", "MCP Canvas", "baseline (same run)", "target");
    println!("{:<44} {:>16.1} {:>26.1}", "index: seconds", ours_s, base_s);
    println!(
        "{:<44} {:>16.1} {:>26.1}   {:<14} {} ({ratio:.2}×)",
        "index: artifacts/s",
        corpus.records.len() as f64 / ours_s,
        corpus.records.len() as f64 / base_s,
        "≥ 1×",
        verdict(ratio >= 1.0)
    );
    println!("{:<44} {:>16.1} {:>26.1}", "index: MB of input/s", input_mb / ours_s, input_mb / base_s);
    println!("{:<44} {:>16.1}", "  of which text extraction alone (s)", extract_s);
    let all_ratio = search_bytes as f64 / extracted as f64;
    println!(
        "{:<44} {:>15.0}% {:>25.0}%   {:<14} {}",
        "index size / extracted text (all it adds)",
        all_ratio * 100.0,
        (base_index as f64 / base_text as f64) * 100.0,
        "≤ 30 %",
        verdict(all_ratio <= 0.30)
    );
    println!("{:<44} {:>15.0}%", "  the FTS5 tables alone", size_ratio * 100.0);
    println!("{:<44} {:>13.0} MB {:>23.0} MB", "  bytes (FTS5 tables)", fts_bytes as f64 / 1e6, base_index as f64 / 1e6);
    println!("{:<44} {:>13.0} MB {:>23.0} MB", "  the whole file (baseline: with its text)", dir_bytes_of_catalog(&data) as f64 / 1e6, base_db as f64 / 1e6);
    match peak_mb {
        Some(mb) => println!("{:<44} {:>16.0} {:>26}   {:<14} {}", "peak RSS while indexing (MB)", mb, "", "≤ 150 MB", verdict(mb <= 150.0)),
        None => println!("{:<44} {:>16}", "peak RSS while indexing (MB)", "not measured"),
    }
    println!();
    println!("{:<44} {:>16} {:>26}   {:<14} verdict", "query latency p50 / p95, ms (20 hits)", "with snippets", "index alone", "target");
    for (kind, full, index, plain) in &latencies {
        let name = match kind {
            QueryKind::Word => "a word (ranks 1,000–10,000 of 50,000)",
            QueryKind::Phrase => "a two-word phrase that occurs",
            QueryKind::Prefix => "a prefix (3–4 letters*)",
            QueryKind::Filtered => "a word + server + kind filters",
        };
        let plain = plain.map_or_else(|| "no metadata to filter".to_owned(), |(p50, p95)| format!("{p50:.1} / {p95:.1}"));
        println!(
            "{:<44} {:>7.1} / {:>6.1} {:>17.1} / {:>6.1}   {:<14} {}  (mean hits {:.1}; plain FTS5 over whole files: {plain})",
            name,
            full.p50,
            full.p95,
            index.p50,
            index.p95,
            "p95 ≤ 20 ms",
            verdict(full.p95 <= 20.0),
            full.mean_hits
        );
    }

    if options.team {
        let sets: Vec<(QueryKind, Vec<SearchQuery>)> = kinds.iter().map(|kind| (*kind, queries(*kind, &corpus, options.queries))).collect();
        let (load_s, bytes, team_latency) = team(&store, &corpus.records, &sets);
        println!();
        println!("the team's PostgreSQL (the same corpus, one member, at most 16 MiB of text per file; no target):");
        println!("{:<44} {:>16.1}", "  loading the text (s)", load_s);
        println!("{:<44} {:>13.0} MB   (the text, its tsvectors and the GIN index)", "  artifact_text", bytes as f64 / 1e6);
        for (kind, p50, p95) in team_latency {
            println!("{:<44} {:>7.1} / {:>6.1}", format!("  {kind:?} p50 / p95, ms"), p50, p95);
        }
    }
}
