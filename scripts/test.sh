#!/usr/bin/env bash
# Installs what is missing, then runs every test: invariants, UI unit tests, Rust unit and
# integration tests (real demo server, real SQLite), and the GUI test (real window under Xvfb,
# driven through tauri-driver/WebKitWebDriver), then the .deb: installed, launched, removed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/setup.sh" --tests
[[ -f "$HOME/.cargo/env" ]] && source "$HOME/.cargo/env"
[[ -x "$ROOT/.deps/node/bin/node" ]] && export PATH="$ROOT/.deps/node/bin:$PATH"
step() { printf '\n\033[1;34m==>\033[0m %s\n' "$*"; }

step "dependency invariants"
python3 scripts/check-deps.py
step "wire types match the Rust definitions"
scripts/check-wire-types.sh
step "UI: typecheck and unit tests"
(cd ui && npm run --silent typecheck && npx vitest run)
step "Rust: unit and integration tests"
cargo test --workspace --quiet
step "GUI: a real window under Xvfb, through WebDriver"
xvfb-run -a cargo test --quiet -p mcp-canvas-e2e --test window -- --ignored --nocapture --test-threads=1
step "package: build the .deb, install it, run the installed app and CLI, remove it"
scripts/test-package.sh
step "all tests passed"
