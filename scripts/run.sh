#!/usr/bin/env bash
# Installs what is missing, builds, and launches MCP Canvas with the bundled demo server.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
[[ -f "$HOME/.cargo/env" ]] && source "$HOME/.cargo/env"
export PDFIUM_DYNAMIC_LIB_PATH="${PDFIUM_DYNAMIC_LIB_PATH:-$ROOT/.deps/pdfium}"
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "No display found: running MCP Canvas inside a virtual X server (xvfb-run); nothing will be visible." >&2
  exec xvfb-run -a "$ROOT/target/debug/mcp-canvas" "$@"
fi
exec "$ROOT/target/debug/mcp-canvas" "$@"
