#!/usr/bin/env bash
# What MCP Canvas adds to one sampling request over calling the provider directly (same run).
# Usage: scripts/bench-sampling.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p mcp-canvas-demo
exec cargo run --release -q -p mcp-canvas-e2e --example bench_sampling -- "$@"
