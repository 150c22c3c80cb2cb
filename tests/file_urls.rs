//! Capability URLs for tools (000 §4): the loopback file server against real HTTP requests.

use std::{
    io::{Read, Write},
    net::TcpStream,
    time::Duration,
};

use base64::Engine as _;
use mcp_canvas_e2e::binary;
use mcp_canvas_host::{Host, HostOptions};
use serde_json::{json, Value};

struct Reply {
    status: u16,
    headers: String,
    body: Vec<u8>,
}

/// One HTTP/1.1 request over a fresh connection, read to the end.
fn get(url: &str, extra_headers: &[(&str, &str)]) -> Reply {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    if !extra_headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {authority}\r\n"));
    }
    for (k, v) in extra_headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let headers = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = headers[9..12].parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if headers.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    Reply { status, headers, body }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[line_end + 2..line_end + 2 + size]);
        data = &data[line_end + 2 + size + 2..];
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capability_urls_serve_exactly_the_granted_artifact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({"mcpServers": {"demo": {"command": binary("mcp-canvas-demo")}}}).to_string()).unwrap();
    let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(30), session: None }).unwrap();
    let first = host.call_tool("demo", "render_chart", json!({"values": [1, 2, 3]})).await.unwrap().outcome.artifacts.remove(0);
    let second = host.call_tool("demo", "render_chart", json!({"values": [9]})).await.unwrap().outcome.artifacts.remove(0);
    let (_, bytes) = host.store().read(&first.id).unwrap();
    let server = host.file_server().await.unwrap();
    let url = server.grant(&first.id, Duration::from_secs(60));
    let port = server.addr().port();
    assert!(url.starts_with(&format!("http://127.0.0.1:{port}/api/files/download/{}?token=", first.id)), "{url}");

    let (first_id, second_id) = (first.id.clone(), second.id.clone());
    tokio::task::spawn_blocking(move || {
        let (first, second) = (&first_id, &second_id);
        let ok = get(&url, &[]);
        assert_eq!(ok.status, 200, "{}", ok.headers);
        assert_eq!(ok.body, bytes);
        assert!(ok.headers.to_ascii_lowercase().contains("content-type: image/png"), "{}", ok.headers);

        let range = get(&url, &[("Range", "bytes=0-7")]);
        assert_eq!(range.status, 206);
        assert_eq!(range.body, bytes[..8]);
        assert!(range.headers.contains(&format!("bytes 0-7/{}", bytes.len())), "{}", range.headers);
        assert_eq!(get(&url, &[("Range", "bytes=999999-")]).status, 416);

        let json_url = url.replace("/api/files/download/", "/api/files/");
        let json_reply = get(&json_url, &[]);
        assert_eq!(json_reply.status, 200);
        let parsed: Value = serde_json::from_slice(&json_reply.body).unwrap();
        assert_eq!(parsed["name"], "render_chart.png");
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(parsed["b64"].as_str().unwrap()).unwrap(), bytes);

        let (base, token) = url.split_once("?token=").unwrap();
        assert_eq!(get(base, &[]).status, 401, "no token");
        assert_eq!(get(&format!("{base}?token={}", "0".repeat(64)), &[]).status, 403, "wrong token");
        let other = format!("{}?token={token}", base.replace(first.as_str(), second));
        assert_eq!(get(&other, &[]).status, 403, "a token opens only its own file");
        assert_eq!(get(&url, &[("Host", "evil.example")]).status, 403, "DNS rebinding guard");
        let not_found = get(&url.replace(first.as_str(), "demo_000000000000"), &[]);
        assert_eq!(not_found.status, 403, "unknown keys are not granted either");
    })
    .await
    .unwrap();

    let gone = server.grant("demo_000000000000", Duration::from_secs(60));
    let expired = server.grant(&second.id, Duration::ZERO);
    tokio::task::spawn_blocking(move || {
        assert_eq!(get(&gone, &[]).status, 404, "granted but no such artifact");
        assert_eq!(get(&expired, &[]).status, 403, "expired");
    })
    .await
    .unwrap();
    host.shutdown().await;
}
