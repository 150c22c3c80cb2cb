#!/usr/bin/env bash
# Cold start to a painted window with the demo server connected (release build, Xvfb), and the
# idle memory of every process after it, against
# the same work without a window (`mcp-canvas-cli tools demo`) as the baseline of the same run.
# Usage: scripts/bench-startup.sh [--runs N] [--debug]
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
exec xvfb-run -a -s "-screen 0 1400x900x24" cargo run -q $profile -p mcp-canvas-e2e --example bench_startup -- "${args[@]}" "target/$dir/mcp-canvas"
