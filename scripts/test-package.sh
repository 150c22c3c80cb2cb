#!/usr/bin/env bash
# The Debian package end to end: builds it (scripts/package.sh, the debug build), installs it with
# apt-get, checks what it installed, runs the INSTALLED CLI against the INSTALLED demo server,
# launches the INSTALLED app under Xvfb through tauri-driver (tests/package.rs: the window comes up
# on a temp data dir with the demo server connected, a chart and a PDF page render with the
# packaged libpdfium), then removes the package and checks nothing is left. The package is removed
# on failure too. Called by scripts/test.sh; run alone after scripts/setup.sh --tests.
# `scripts/test-package.sh --release` does the same with the release package.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ -f "$HOME/.cargo/env" ]] && source "$HOME/.cargo/env"
SUDO=""
[[ "$(id -u)" != 0 ]] && SUDO="sudo"
APT=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 -y -qq)
step() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31mtest-package: %s\033[0m\n' "$*" >&2; exit 1; }
installed() { dpkg-query -W -f='${Status}' mcp-canvas 2>/dev/null | grep -q "install ok installed"; }
FILES=(/usr/bin/mcp-canvas /usr/bin/mcp-canvas-cli /usr/bin/mcp-canvas-demo /usr/lib/mcp-canvas/libpdfium.so
  "/usr/share/applications/MCP Canvas.desktop" /usr/share/icons/hicolor/{16x16,32x32,48x48,64x64,128x128,256x256,512x512}/apps/mcp-canvas.png)

if installed; then
  # On CI a leftover can only come from an interrupted run of this script; elsewhere it may be
  # someone's real install, which this test would remove.
  [[ "${CI:-}" == true ]] || fail "mcp-canvas is already installed; this test installs and removes it. Remove it first: sudo apt-get remove mcp-canvas"
  step "removing a left-over mcp-canvas package"
  "${APT[@]}" remove mcp-canvas >/dev/null
fi

started=$SECONDS
step "package: scripts/package.sh ${1:-}"
DEB="$(scripts/package.sh "$@" | tail -n 1)"
[[ -f "$DEB" ]] || fail "scripts/package.sh printed no .deb path"
package_seconds=$((SECONDS - started))
dpkg -c "$DEB"

WORK="$(mktemp -d)"
cleanup() {
  local status=$?
  if installed; then
    echo "test-package: removing the mcp-canvas package" >&2
    "${APT[@]}" remove mcp-canvas >/dev/null || status=1
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$SECONDS
step "install: apt-get install $DEB"
"${APT[@]}" install "$DEB" >/dev/null
installed || fail "mcp-canvas is not installed after apt-get install"
for file in "${FILES[@]}"; do
  [[ -f "$file" ]] || fail "the package did not install $file"
  dpkg -S "$file" >/dev/null 2>&1 || fail "$file is not owned by the package"
done
grep -qx "Exec=mcp-canvas" "/usr/share/applications/MCP Canvas.desktop" || fail "the desktop entry does not run mcp-canvas"
grep -qx "Icon=mcp-canvas" "/usr/share/applications/MCP Canvas.desktop" || fail "the desktop entry names no mcp-canvas icon"

step "installed CLI: the demo server, a chart stored as PNG, a PDF page through the packaged libpdfium"
CLI=/usr/bin/mcp-canvas-cli
DATA="$WORK/cli-data"
# A bare `mcp-canvas-demo` resolves beside the CLI: /usr/bin/mcp-canvas-demo (PATH only as a fallback).
"$CLI" --data-dir "$DATA" servers list | grep -q "mcp-canvas-demo" || fail "the CLI's first run did not configure the demo server"
chart="$("$CLI" --data-dir "$DATA" call demo render_chart --json --args '{"values": [1, 2]}')"
chart_id="$(python3 -c 'import json,sys; a=json.loads(sys.argv[1])["artifacts"]; assert a[0]["mime"]=="image/png", a; print(a[0]["id"])' "$chart")"
"$CLI" --data-dir "$DATA" artifacts export "$chart_id" "$WORK/chart.png" >/dev/null
[[ "$(head -c 8 "$WORK/chart.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] || fail "the exported chart is not a PNG"
pdf="$("$CLI" --data-dir "$DATA" call demo download_workbook --json --args '{"pages": 2}')"
pdf_id="$(python3 -c 'import json,sys; a=json.loads(sys.argv[1])["artifacts"]; assert a[0]["mime"]=="application/pdf", a; print(a[0]["id"])' "$pdf")"
env -u MCP_CANVAS_PDFIUM -u PDFIUM_DYNAMIC_LIB_PATH LD_DEBUG=files "$CLI" --data-dir "$DATA" preview "$pdf_id" --width 300 --out "$WORK/page.png" 2>"$WORK/ld.log" >/dev/null \
  || { tail -5 "$WORK/ld.log" >&2; fail "the installed CLI could not render a PDF page"; }
grep -q "file=/usr/lib/mcp-canvas/libpdfium.so .*dynamically loaded" "$WORK/ld.log" || fail "the CLI did not load /usr/lib/mcp-canvas/libpdfium.so"
[[ "$(head -c 4 "$WORK/page.png" | od -An -tx1 | tr -d ' \n')" == 89504e47 ]] || fail "the PDF preview is not a PNG"

step "installed app: /usr/bin/mcp-canvas in a window under Xvfb, through WebDriver"
env -u MCP_CANVAS_PDFIUM -u PDFIUM_DYNAMIC_LIB_PATH MCP_CANVAS_APP=/usr/bin/mcp-canvas \
  xvfb-run -a cargo test --quiet -p mcp-canvas-e2e --test package -- --ignored --nocapture

step "remove: apt-get remove mcp-canvas"
"${APT[@]}" remove mcp-canvas >/dev/null
! installed || fail "mcp-canvas is still installed after apt-get remove"
for file in "${FILES[@]}"; do
  [[ ! -e "$file" ]] || fail "$file is still there after apt-get remove"
done
[[ ! -e /usr/lib/mcp-canvas ]] || fail "/usr/lib/mcp-canvas is still there after apt-get remove"
step "package: built in ${package_seconds} s ($(du -h "$DEB" | cut -f1)); installed, tested and removed in $((SECONDS - started)) s"
