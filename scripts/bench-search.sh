#!/usr/bin/env bash
# Full-text search over a store of 10,000 artifacts (1,000 PDFs of 1–50 pages from the demo server,
# the rest CSV, Markdown, JSON, HTML, text and code; 2,000 MB in all): indexing throughput against
# `pdftotext` plus a plain SQLite FTS5 insert of the same files (the same run), the index's size
# against its text, the indexer's peak memory, and query latency (word, phrase, prefix, filtered).
# Installs poppler-utils (pdftotext) when missing, builds the release CLI and demo, runs
# tests/bench_search.rs. Usage: scripts/bench-search.sh [--artifacts 10000] [--pdfs 1000]
#   [--total-mb 2000] [--queries 200] [--dir DIR (keep and reuse the corpus)] [--dump-segments FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[[ "$(id -u)" != 0 ]] && SUDO="sudo"
if ! dpkg-query -W -f='${Status}' poppler-utils 2>/dev/null | grep -q "install ok installed"; then
  echo "==> apt: installing poppler-utils (pdftotext, the baseline)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq poppler-utils >/dev/null
fi
[[ -f .deps/pdfium/libpdfium.so ]] || { echo "libpdfium is missing: run scripts/setup.sh" >&2; exit 1; }
echo "==> cargo build --release -p mcp-canvas-cli -p mcp-canvas-demo"
cargo build --release -q -p mcp-canvas-cli -p mcp-canvas-demo
exec cargo run --release -q -p mcp-canvas-e2e --example bench_search -- "$@"
