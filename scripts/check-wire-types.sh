#!/usr/bin/env bash
# Fails when ui/src/wire (committed) differs from what the Rust types generate now.
# To update: `cargo test -p mcp-canvas-contract -p mcp-canvas-canvas -p mcp-canvas-store -p mcp-canvas-config -p mcp-canvas-client -p mcp-canvas-host export_bindings`, commit ui/src/wire.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
TS_RS_EXPORT_DIR="$fresh" cargo test --quiet -p mcp-canvas-contract -p mcp-canvas-canvas -p mcp-canvas-store -p mcp-canvas-config -p mcp-canvas-client -p mcp-canvas-host export_bindings >/dev/null
if ! diff -ru ui/src/wire "$fresh"; then
  echo "ui/src/wire is stale: regenerate with 'cargo test -p mcp-canvas-contract -p mcp-canvas-canvas -p mcp-canvas-store -p mcp-canvas-config -p mcp-canvas-client -p mcp-canvas-host export_bindings' and commit." >&2
  exit 1
fi
echo "wire types: $(ls "$fresh" | wc -l) files match"
