#!/usr/bin/env bash
# What the window benchmarks share: build the release app, the CLI, the demo and the benchmarks
# (with `bare_webkit`, the idle-memory baseline), then run the
# benchmark EXAMPLE (tests/EXAMPLE.rs) under Xvfb against the built app.
# Usage: scripts/bench-window.sh EXAMPLE [--debug] [the example's arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
example="$1"
shift
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
cargo build -q $profile -p mcp-canvas-e2e --examples
exec xvfb-run -a -s "-screen 0 1400x900x24" cargo run -q $profile -p mcp-canvas-e2e --example "$example" -- "${args[@]}" "target/$dir/mcp-canvas"
