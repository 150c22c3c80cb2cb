//! What MCP Canvas adds to one sampling request, against calling the provider directly, in the
//! same run: `cargo run --release -p mcp-canvas-e2e --example bench_sampling -- [--runs N]`
//! (or `scripts/bench-sampling.sh`).
//!
//! The provider is the tests' scripted OpenAI-compatible server answering at once with a canned
//! completion, so what is measured is ours, not a model's. Per request, mean and p50/p95 of:
//! - `direct`: one HTTP POST of the same body to the provider (the baseline);
//! - `sampler`: `Sampler::create_message` — checks, policy, conversion, the POST, the transcript
//!   row written to the real SQLite catalog;
//! - `mcp`: the whole round trip: a call to the demo's `sample_text` tool through the host
//!   (server→client `sampling/createMessage` over stdio, the sampler, the tool's result stored
//!   and summarized) minus nothing — the ceiling of what a sampling tool call costs.

use std::time::{Duration, Instant};

use mcp_canvas_e2e::{
    binary,
    scripted_provider::{text_answer, ScriptedProvider},
};
use mcp_canvas_sampling::{sampler::NoCall, SamplingRequest};
use mcp_canvas_host::{CallOptions, Host, HostOptions};
use serde_json::json;

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
    let provider = ScriptedProvider::start(std::iter::repeat_n(text_answer("A short canned answer."), 3 * runs + 40)).await;
    let base_url = provider.base_url.clone();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": {"command": binary("mcp-canvas-demo")} } }).to_string()).unwrap();
    let settings = provider.settings("always").replacen("\n\n", "\nrequests_per_minute = 1000000\n\n", 1);
    std::fs::write(dir.path().join("settings.toml"), settings).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap();

    let request = SamplingRequest::user("Write a two-line poem about the sea.", 64);
    let body = json!({"model": "scripted-model", "messages": [{"role": "user", "content": "Write a two-line poem about the sea."}], "max_tokens": 64});
    let client = reqwest::Client::new();
    let url = format!("{base_url}/chat/completions");

    // Warm-up: connections, the demo server, SQLite's first pages.
    for _ in 0..10 {
        client.post(&url).json(&body).send().await.unwrap().bytes().await.unwrap();
        host.sampler().create_message("bench", request.clone(), &NoCall).await.unwrap();
    }
    host.call_tool_with("demo", "sample_text", json!({}), CallOptions { confirmed: true, ..CallOptions::default() }).await.unwrap();

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
        let outcome = host.call_tool_with("demo", "sample_text", json!({}), CallOptions { confirmed: true, ..CallOptions::default() }).await.unwrap();
        assert!(outcome.outcome.error.is_none(), "{:?}", outcome.outcome.error);
        mcp.push(t.elapsed());
    }
    println!("sampling overhead, {runs} requests each, provider answering at once ({} requests served)", provider.seen().len());
    let base = stats("direct", direct);
    let ours = stats("sampler", sampler);
    let whole = stats("mcp", mcp);
    println!("host overhead per request: sampler {:+.3} ms over direct ({:.1}x); whole MCP tool call {:+.3} ms", ours - base, ours / base, whole - base);
    host.shutdown().await;
}
