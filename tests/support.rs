//! Helpers shared by the end-to-end tests: finding the built binaries, and talking to the demo
//! server directly (raw JSON-RPC over stdio) to know exactly what it sends.

use std::{
    io::{BufRead, BufReader, Write},
    path::PathBuf,
    process::{Command, Stdio},
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

/// Calls `tool` on `mcp-canvas-demo` without our host in between and returns the decoded bytes of
/// every `image` block in its answer: the ground truth the host's stored artifacts must match.
pub fn demo_images_raw(tool: &str, arguments: Value) -> Vec<Vec<u8>> {
    let mut child = Command::new(binary("mcp-canvas-demo"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("demo server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    let mut receive = |id: u64| loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "demo server closed stdout");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return message;
        }
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}}));
    receive(1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}));
    let response = receive(2);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    response["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content in {response}"))
        .iter()
        .filter(|block| block["type"] == "image")
        .map(|block| base64::engine::general_purpose::STANDARD.decode(block["data"].as_str().unwrap()).unwrap())
        .collect()
}
