#!/usr/bin/env bash
# A very large answer (default 1000 MB) to a call made from the window, with the window open:
# the page's round-trip time meanwhile against the idle window's, the peak memory of every process,
# pages swapped out, and the same call by `mcp-canvas-cli call` as the baseline of the same run.
# Usage: scripts/bench-big-call.sh [--mb N] [--debug]
set -euo pipefail
cd "$(dirname "$0")/.."
profile=--release
dir=release
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) profile=""; dir=debug ;;
    *) args+=("$1") ;;
  esac
  shift
done
command -v tauri-driver >/dev/null || [ -x "$HOME/.cargo/bin/tauri-driver" ] || { echo "tauri-driver is missing: run scripts/setup.sh --tests" >&2; exit 1; }
[ -f ui/dist/index.html ] || { echo "ui/dist is missing: run scripts/setup.sh" >&2; exit 1; }
echo "==> cargo build $profile -p mcp-canvas -p mcp-canvas-cli -p mcp-canvas-demo"
cargo build $profile -p mcp-canvas -p mcp-canvas-cli -p mcp-canvas-demo
exec xvfb-run -a -s "-screen 0 1400x900x24" cargo run -q $profile -p mcp-canvas-e2e --example bench_big_call -- "${args[@]}" "target/$dir/mcp-canvas"
