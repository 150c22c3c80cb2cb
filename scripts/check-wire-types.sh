#!/usr/bin/env bash
# Fails when ui/src/wire (committed) differs from what the Rust types generate now, including
# wire/commands.ts (the commands and events, from src-tauri/src/command_list.rs and the app's
# AppEvent list), or when src-tauri/capabilities/main.json does not grant exactly the listed
# commands (`UPDATE_CAPABILITIES=1 cargo test -p mcp-canvas export_bindings` rewrites it).
# To update: `cargo test -p mcp-canvas-contract -p mcp-canvas-canvas -p mcp-canvas-store -p mcp-canvas-team -p mcp-canvas-config -p mcp-canvas-client -p mcp-canvas-elicitation -p mcp-canvas-sampling -p mcp-canvas-wire -p mcp-canvas-host -p mcp-canvas-app -p mcp-canvas export_bindings`, commit ui/src/wire.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
TS_RS_EXPORT_DIR="$fresh" cargo test --quiet -p mcp-canvas-contract -p mcp-canvas-canvas -p mcp-canvas-store -p mcp-canvas-team -p mcp-canvas-config -p mcp-canvas-client -p mcp-canvas-elicitation -p mcp-canvas-sampling -p mcp-canvas-wire -p mcp-canvas-host -p mcp-canvas-app -p mcp-canvas export_bindings >/dev/null
if ! diff -ru ui/src/wire "$fresh"; then
  echo "ui/src/wire is stale: regenerate with 'cargo test -p mcp-canvas-contract -p mcp-canvas-canvas -p mcp-canvas-store -p mcp-canvas-team -p mcp-canvas-config -p mcp-canvas-client -p mcp-canvas-elicitation -p mcp-canvas-sampling -p mcp-canvas-wire -p mcp-canvas-host -p mcp-canvas-app -p mcp-canvas export_bindings' and commit." >&2
  exit 1
fi
echo "wire types: $(ls "$fresh" | wc -l) files match"
