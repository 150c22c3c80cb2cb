//! What MCP Canvas adds to one sampling request, against calling the provider directly, in the
//! same run: `cargo run --release -p mcp-canvas-e2e --example bench_sampling -- [--runs N]`
//! (or `scripts/bench-sampling.sh`).
//!
//! The provider is a local OpenAI-compatible server that answers at once with a canned
//! completion, so what is measured is ours, not a model's. Per request, mean and p50/p95 of:
//! - `direct`: one HTTP POST of the same body to the provider (the baseline);
//! - `sampler`: `Sampler::create_message` — checks, policy, conversion, the POST, the transcript
//!   row written to the real SQLite catalog;
//! - `mcp`: the whole round trip: a call to the demo's `sample_text` tool through the host
//!   (server→client `sampling/createMessage` over stdio, the sampler, the tool's result stored
//!   and summarized) minus nothing — the ceiling of what a sampling tool call costs.

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use mcp_canvas_e2e::binary;
use mcp_canvas_host::{
    sampling_core::{sampler::NoCall, SamplingRequest},
    CallOptions, Host, HostOptions,
};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CANNED: &str = r#"{"id":"c","object":"chat.completion","model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"A short canned answer."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}"#;

/// A provider that answers every POST at once; counts requests.
async fn canned_provider(count: Arc<AtomicU64>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            let count = count.clone();
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                let mut chunk = [0u8; 8192];
                loop {
                    // One request per connection read: headers, then Content-Length bytes.
                    let Ok(n) = stream.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buffer.extend_from_slice(&chunk[..n]);
                    let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                    let head = String::from_utf8_lossy(&buffer[..end]).to_lowercase();
                    let length: usize = head.lines().find_map(|l| l.strip_prefix("content-length:")).map_or(0, |v| v.trim().parse().unwrap_or(0));
                    if buffer.len() < end + 4 + length {
                        continue;
                    }
                    buffer.drain(..end + 4 + length);
                    count.fetch_add(1, Ordering::Relaxed);
                    let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{CANNED}", CANNED.len());
                    if stream.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

fn stats(name: &str, mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    let mean = samples.iter().sum::<Duration>().as_secs_f64() * 1e3 / samples.len() as f64;
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    println!("{name:<8} n={:<4} mean {mean:>8.3} ms   p50 {:>8.3} ms   p95 {:>8.3} ms", samples.len(), p(0.5), p(0.95));
    mean
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let runs: usize = std::env::args().skip_while(|a| a != "--runs").nth(1).map_or(200, |n| n.parse().expect("--runs N"));
    let count = Arc::new(AtomicU64::new(0));
    let base_url = canned_provider(count.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": {"command": binary("mcp-canvas-demo")} } }).to_string()).unwrap();
    let settings = format!(
        "[sampling]\npolicy = \"always\"\nrequests_per_minute = 1000000\n\n[[sampling.providers]]\nname = \"canned\"\nkind = \"openai\"\nbase_url = \"{base_url}\"\nmodels = [\"bench\"]\nmax_tokens = 64\n"
    );
    std::fs::write(dir.path().join("settings.toml"), settings).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap();

    let request = SamplingRequest::user("Write a two-line poem about the sea.", 64);
    let body = json!({"model": "bench", "messages": [{"role": "user", "content": "Write a two-line poem about the sea."}], "max_tokens": 64});
    let client = reqwest::Client::new();
    let url = format!("{base_url}/chat/completions");

    // Warm-up: connections, the demo server, SQLite's first pages.
    for _ in 0..10 {
        client.post(&url).json(&body).send().await.unwrap().bytes().await.unwrap();
        host.sampler().create_message("bench", request.clone(), &NoCall).await.unwrap();
    }
    host.call_tool_with("demo", "sample_text", json!({}), CallOptions { confirmed: true }).await.unwrap();

    let mut direct = Vec::with_capacity(runs);
    let mut sampler = Vec::with_capacity(runs);
    let mut mcp = Vec::with_capacity(runs);
    // Interleaved, so machine load affects all three alike.
    for _ in 0..runs {
        let t = Instant::now();
        client.post(&url).json(&body).send().await.unwrap().bytes().await.unwrap();
        direct.push(t.elapsed());
        let t = Instant::now();
        host.sampler().create_message("bench", request.clone(), &NoCall).await.unwrap();
        sampler.push(t.elapsed());
        let t = Instant::now();
        let outcome = host.call_tool_with("demo", "sample_text", json!({}), CallOptions { confirmed: true }).await.unwrap();
        assert!(outcome.outcome.error.is_none(), "{:?}", outcome.outcome.error);
        mcp.push(t.elapsed());
    }
    println!("sampling overhead, {runs} requests each, provider answering at once ({} requests served)", count.load(Ordering::Relaxed));
    let base = stats("direct", direct);
    let ours = stats("sampler", sampler);
    let whole = stats("mcp", mcp);
    println!("host overhead per request: sampler {:+.3} ms over direct ({:.1}x); whole MCP tool call {:+.3} ms", ours - base, ours / base, whole - base);
    host.shutdown().await;
}
