//! Helpers shared by the end-to-end tests: finding the built binaries, running the CLI, and
//! talking to the demo server directly (raw JSON-RPC over stdio) to know exactly what it sends.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
};

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
    let mut child = tokio::process::Command::new(binary("mcp-canvas-demo"))
        .args(["--http", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("demo server starts");
    let stderr = child.stderr.take().unwrap();
    let url = tokio::time::timeout(std::time::Duration::from_secs(10), async move {
        use tokio::io::AsyncBufReadExt as _;
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(at) = line.find("http://") {
                return line[at..].trim().to_owned();
            }
        }
        panic!("the server exited without printing its address");
    })
    .await
    .expect("the server prints its address");
    (child, url)
}
