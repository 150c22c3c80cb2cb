//! The demo server's interactive tools, driven through the real `mcp-canvas-demo` binary with an
//! rmcp client: the live dashboard and its token checks, form and URL elicitation, progress and
//! cancellation, downloads, identity injection, and the Streamable HTTP transport.

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    process::Stdio,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use mcp_canvas_e2e::binary;
use rmcp::{
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ClientRequest,
        ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
        FormElicitationCapability, Implementation, ProgressNotificationParam, ProtocolVersion,
        Request, UrlElicitationCapability,
    },
    service::{ClientLifecycleMode, ClientServiceExt as _, NotificationContext, PeerRequestOptions, RequestContext, RunningService},
    transport::{StreamableHttpClientTransport, TokioChildProcess},
    ClientHandler, ErrorData, RoleClient, ServiceExt as _,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// How the test client answers elicitation requests.
#[derive(Clone)]
enum Answer {
    /// Accept a form with this content.
    Accept(Value),
    Decline,
    /// Accept a URL elicitation and "visit" the page: post its confirm form, as a user would.
    VisitAndConfirm,
}

#[derive(Clone)]
struct TestClient {
    /// None: the client does not advertise elicitation at all.
    answer: Option<Answer>,
    /// Advertise URL-mode elicitation as well as form mode.
    url_mode: bool,
    progress: Arc<Mutex<Vec<(Instant, ProgressNotificationParam)>>>,
    elicited: Arc<Mutex<Vec<ElicitRequestParams>>>,
}

impl TestClient {
    fn new(answer: Option<Answer>) -> Self {
        Self { answer, url_mode: false, progress: Arc::default(), elicited: Arc::default() }
    }

    fn progress_count(&self) -> usize {
        self.progress.lock().unwrap().len()
    }
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = match (&self.answer, self.url_mode) {
            (None, _) => None,
            (Some(_), false) => Some(ElicitationCapability::new().with_form(FormElicitationCapability::new())),
            (Some(_), true) => Some(
                ElicitationCapability::new()
                    .with_form(FormElicitationCapability::new())
                    .with_url(UrlElicitationCapability::new()),
            ),
        };
        ClientConfig::new(capabilities, Implementation::new("demo-interactive-test", "0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.elicited.lock().unwrap().push(request.clone());
        Ok(match (&self.answer, &request) {
            (Some(Answer::Accept(content)), _) => ElicitResult::new(ElicitationAction::Accept).with_content(content.clone()),
            (Some(Answer::VisitAndConfirm), ElicitRequestParams::UrlElicitationParams { url, .. }) => {
                let confirm = url.replacen("/link?", "/link/confirm?", 1);
                // The user opens the page a moment after agreeing to.
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    let (status, _) = http("POST", &confirm).await;
                    assert_eq!(status, 200, "confirming the link");
                });
                ElicitResult::new(ElicitationAction::Accept)
            }
            _ => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push((Instant::now(), params));
    }
}

async fn start(client: TestClient) -> RunningService<RoleClient, TestClient> {
    start_with_stderr(client, Stdio::null()).await
}

/// [`start`], with the server's stderr (where it logs a cancelled job) going to `stderr`.
async fn start_with_stderr(client: TestClient, stderr: impl Into<Stdio>) -> RunningService<RoleClient, TestClient> {
    let (transport, _) = TokioChildProcess::builder(tokio::process::Command::new(binary("mcp-canvas-demo")))
        .stderr(stderr)
        .spawn()
        .expect("demo server starts");
    client.serve(transport).await.expect("MCP handshake with the demo server")
}

/// A hang guard for one call, far beyond what any call here takes even on a busy machine.
const CALL_GUARD: Duration = Duration::from_secs(300);

async fn call(service: &RunningService<RoleClient, TestClient>, tool: &str, arguments: Value) -> CallToolResult {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    tokio::time::timeout(
        CALL_GUARD,
        service.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)),
    )
    .await
    .unwrap_or_else(|_| panic!("{tool} did not answer in {CALL_GUARD:?}"))
    .unwrap_or_else(|e| panic!("{tool} failed: {e}"))
}

/// All text blocks of a result, joined.
fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn structured(result: &CallToolResult) -> &Value {
    result.structured_content.as_ref().unwrap_or_else(|| panic!("no structuredContent in {}", text(result)))
}

/// A minimal HTTP/1.1 request to a 127.0.0.1 URL: (status, body).
async fn http(method: &'static str, url: &str) -> (u16, String) {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        let rest = url.strip_prefix("http://").expect("an http:// URL");
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let mut stream = TcpStream::connect(authority).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        write!(stream, "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read response");
        let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status line");
        let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
        (status, body)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_envelope_and_token_checks() {
    let service = start(TestClient::new(None)).await;
    let result = call(&service, "open_dashboard", json!({"title": "Ops <live>", "persistence": "pinned"})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let envelope = structured(&result);
    // The same envelope is the JSON text block (what the contract reads first).
    let last_text: Value = serde_json::from_str(result.content.last().unwrap().as_text().unwrap().text.as_str()).unwrap();
    assert_eq!(&last_text, envelope);
    let canvas = &envelope["canvas"];
    assert_eq!(canvas["open"], true);
    assert_eq!(canvas["type"], "iframe");
    assert_eq!(canvas["persistence"], "pinned");
    assert_eq!(canvas["title"], "Ops <live>");
    assert_eq!(canvas["mode"], "replace");
    assert!(envelope["results"].is_object());
    let url = canvas["url"].as_str().unwrap();
    let token = canvas["token"].as_str().unwrap();
    assert!(url.starts_with("http://127.0.0.1:") && url.contains("/dashboard?"), "{url}");
    assert!(url.contains(&format!("token={token}")), "{url}");

    // The id is stable per title; the token is fresh each time.
    let again = call(&service, "open_dashboard", json!({"title": "Ops <live>"})).await;
    assert_eq!(structured(&again)["canvas"]["id"], canvas["id"]);
    assert_ne!(structured(&again)["canvas"]["token"], canvas["token"]);
    let other = call(&service, "open_dashboard", json!({"title": "Other"})).await;
    assert_ne!(structured(&other)["canvas"]["id"], canvas["id"]);

    let (status, page) = http("GET", url).await;
    assert_eq!(status, 200);
    assert!(page.contains("Ops &lt;live&gt;") && page.contains("<script"), "{page}");
    let base = url.split('?').next().unwrap();
    assert_eq!(http("GET", base).await.0, 401, "no token");
    let wrong = format!("{base}?token=0123456789abcdef0123456789abcdef");
    assert!(matches!(http("GET", &wrong).await.0, 401 | 403), "wrong token");

    let metrics = url.replacen("/dashboard?", "/dashboard/metrics?", 1);
    assert_eq!(http("GET", &metrics.replacen(token, "nope", 1)).await.0, 403);
    let (status, first) = http("GET", &metrics).await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (_, second) = http("GET", &metrics).await;
    let first: Value = serde_json::from_str(&first).unwrap();
    let second: Value = serde_json::from_str(&second).unwrap();
    assert!(first["requests_per_s"].is_number() && first["cpu_percent"].is_number(), "{first}");
    assert_ne!(first, second, "the metrics change over time");
    assert!(second["time_ms"].as_u64() > first["time_ms"].as_u64());

    let bad = call(&service, "open_dashboard", json!({"persistence": "forever"})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("`persistence`"), "{}", text(&bad));
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_elicitation_accept_decline_and_unsupported() {
    let answers = json!({"theme": "dark", "font_size": 17, "notifications": false, "display_name": "Ada"});
    let client = TestClient::new(Some(Answer::Accept(answers)));
    let service = start(client.clone()).await;
    let result = call(&service, "ask_preferences", json!({})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let prefs = &structured(&result)["results"]["preferences"];
    assert_eq!(prefs["theme"], "dark");
    assert_eq!(prefs["font_size"], 17.0);
    assert_eq!(prefs["notifications"], false);
    assert_eq!(prefs["display_name"], "Ada");
    assert!(text(&result).contains("Ada"));
    // The form asked for several field types.
    let asked = client.elicited.lock().unwrap().pop().expect("an elicitation request");
    let ElicitRequestParams::FormElicitationParams { requested_schema, .. } = asked else {
        panic!("expected a form elicitation, got {asked:?}");
    };
    let schema = serde_json::to_value(&requested_schema).unwrap();
    assert_eq!(schema["properties"]["theme"]["enum"], json!(["light", "dark", "system"]), "{schema}");
    assert_eq!(schema["properties"]["font_size"]["maximum"], 32.0);
    assert_eq!(schema["properties"]["notifications"]["type"], "boolean");
    assert_eq!(schema["properties"]["display_name"]["default"], "Canvas user");
    service.cancel().await.unwrap();

    let service = start(TestClient::new(Some(Answer::Accept(json!({"theme": "neon", "font_size": 12}))))).await;
    let invalid = call(&service, "ask_preferences", json!({})).await;
    assert_eq!(invalid.is_error, Some(true));
    assert!(text(&invalid).contains("theme"), "{}", text(&invalid));
    service.cancel().await.unwrap();

    let service = start(TestClient::new(Some(Answer::Decline))).await;
    let declined = call(&service, "ask_preferences", json!({})).await;
    assert_eq!(declined.is_error, Some(false));
    assert!(text(&declined).contains("declined"), "{}", text(&declined));
    assert_eq!(structured(&declined)["results"]["action"], "decline");
    service.cancel().await.unwrap();

    let service = start(TestClient::new(None)).await;
    let unsupported = call(&service, "ask_preferences", json!({})).await;
    assert_eq!(unsupported.is_error, Some(true));
    assert!(text(&unsupported).contains("elicitation"), "{}", text(&unsupported));
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_elicitation_as_input_required_on_2026_07_28() {
    // Protocol 2026-07-28 forbids server→client requests: the tool answers with an
    // InputRequiredResult and rmcp's call_tool fulfils it through the same client handler.
    let client = TestClient::new(Some(Answer::Accept(json!({"theme": "light", "font_size": 9}))));
    let (transport, _) = TokioChildProcess::builder(tokio::process::Command::new(binary("mcp-canvas-demo")))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let service = client.clone().serve_with_lifecycle(transport, lifecycle).await.expect("server/discover");
    let result = call(&service, "ask_preferences", json!({})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(structured(&result)["results"]["preferences"]["theme"], "light");
    assert_eq!(structured(&result)["results"]["preferences"]["display_name"], "Canvas user");
    assert_eq!(client.elicited.lock().unwrap().len(), 1);
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_elicitation_links_an_account() {
    let mut client = TestClient::new(Some(Answer::VisitAndConfirm));
    client.url_mode = true;
    let service = start(client.clone()).await;
    let result = call(&service, "link_account", json!({"wait_seconds": 120})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(structured(&result)["results"]["outcome"], "linked", "{}", text(&result));
    let asked = client.elicited.lock().unwrap().pop().unwrap();
    let ElicitRequestParams::UrlElicitationParams { url, .. } = asked else { panic!("expected URL mode") };
    assert!(url.starts_with("http://127.0.0.1:") && url.contains("/link?token="), "{url}");
    // The token is revoked once the call is over.
    assert_eq!(http("GET", &url).await.0, 403);
    service.cancel().await.unwrap();

    // Form-only client: a clear tool error.
    let service = start(TestClient::new(Some(Answer::Decline))).await;
    let unsupported = call(&service, "link_account", json!({})).await;
    assert_eq!(unsupported.is_error, Some(true));
    assert!(text(&unsupported).contains("URL elicitation"), "{}", text(&unsupported));
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_job_reports_progress_and_stops_when_cancelled() {
    let client = TestClient::new(None);
    let log = tempfile::NamedTempFile::new().unwrap();
    let service = start_with_stderr(client.clone(), log.reopen().unwrap()).await;

    // A short job runs to the end, with progress (rmcp sends a progress token with every request).
    let done = call(&service, "slow_job", json!({"seconds": 1})).await;
    assert_eq!(structured(&done)["results"]["completed"], true, "{}", text(&done));
    // Notifications are handled concurrently and may arrive after the result, in any order: wait
    // for the final report instead of taking whichever came last (the deadline is a hang guard).
    let deadline = Instant::now() + Duration::from_secs(60);
    let furthest = loop {
        let furthest = client.progress.lock().unwrap().iter().map(|(_, p)| p.clone()).max_by(|a, b| a.progress.total_cmp(&b.progress));
        match furthest {
            Some(furthest) if furthest.progress >= 4.0 && client.progress_count() >= 2 => break furthest,
            furthest if Instant::now() > deadline => break furthest.expect("no progress notification at all"),
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    assert!(client.progress_count() >= 2, "progress notifications: {}", client.progress_count());
    assert_eq!((furthest.progress, furthest.total), (4.0, Some(4.0)));

    // A long one, cancelled once it has reported twice.
    let request = ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("slow_job").with_arguments(json!({"seconds": 30}).as_object().unwrap().clone()),
    ));
    let handle = service.send_cancellable_request(request, PeerRequestOptions::no_options()).await.unwrap();
    let token = handle.progress_token.clone();
    // The long job's reports (late ones of the short job have another token).
    let long_job = || client.progress.lock().unwrap().iter().filter(|(_, p)| p.progress_token == token).map(|(_, p)| p.progress).collect::<Vec<f64>>();
    let deadline = Instant::now() + Duration::from_secs(60);
    while long_job().len() < 2 {
        assert!(Instant::now() < deadline, "no progress from the long job");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle.cancel(Some("test".to_owned())).await.unwrap();
    // The server logs after how many of its 120 steps it stopped; nothing beyond that step may
    // reach the client (reports already on their way when the cancel arrived may still land).
    let deadline = Instant::now() + Duration::from_secs(60);
    let stopped_after = loop {
        let said = std::fs::read_to_string(log.path()).unwrap();
        if let Some(steps) = said.split("slow_job cancelled after ").nth(1).and_then(|rest| rest.split(' ').next()).and_then(|n| n.parse::<u32>().ok()) {
            break steps;
        }
        let reported = long_job();
        assert!(Instant::now() < deadline && reported.len() < 120, "the job was not cancelled; it reported {reported:?}; its log: {said}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(stopped_after < 120, "the job stopped after {stopped_after} of 120 steps");
    let late: Vec<f64> = long_job().into_iter().filter(|step| *step > f64::from(stopped_after)).collect();
    assert_eq!(late, Vec::<f64>::new(), "the job kept reporting progress after it was cancelled (it stopped after step {stopped_after})");

    // The server is still responsive: it answers, and did not run the cancelled job to its end
    // first.
    let started = Instant::now();
    let me = call(&service, "whoami", json!({"username": "after-cancel"})).await;
    assert_eq!(me.is_error, Some(false));
    eprintln!("whoami after the cancel took {:?}", started.elapsed());
    let furthest = long_job().into_iter().fold(0.0, f64::max);
    assert!(furthest <= f64::from(stopped_after), "the cancelled job went on to step {furthest}");

    let bad = call(&service, "slow_job", json!({"seconds": 61})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("`seconds`"), "{}", text(&bad));
    service.cancel().await.unwrap();
}

/// Serves `body` at `/files/data.bin` (and 404 elsewhere) on 127.0.0.1, forever.
fn file_server(body: Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head);
            let path = head.split(' ').nth(1).unwrap_or("");
            if path.starts_with("/files/data.bin") {
                let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                let _ = stream.write_all(&body);
            } else {
                let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            }
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summarize_file_reports_size_and_sha256() {
    let body: Vec<u8> = (0..150_000u32).map(|i| (i * 31 % 251) as u8).collect();
    let expected = Sha256::digest(&body).iter().map(|b| format!("{b:02x}")).collect::<String>();
    let port = file_server(body.clone());
    let url = format!("http://127.0.0.1:{port}/files/data.bin?token=secret-capability");
    let service = start(TestClient::new(None)).await;

    let result = call(&service, "summarize_file", json!({"filename": url})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let file = &structured(&result)["results"];
    assert_eq!(file["size"], body.len());
    assert_eq!(file["sha256"], expected.as_str());
    assert_eq!(file["name"], "data.bin");
    assert!(!text(&result).contains("secret-capability"), "the capability token is not echoed");

    let missing = format!("http://127.0.0.1:{port}/missing.txt");
    let many = call(&service, "summarize_files", json!({"file_names": [url, url]})).await;
    assert_eq!(many.is_error, Some(false), "{}", text(&many));
    assert_eq!(structured(&many)["results"]["total_size"], 2 * body.len());
    let failed = call(&service, "summarize_files", json!({"file_names": [url, missing]})).await;
    assert_eq!(failed.is_error, Some(true));
    assert!(text(&failed).contains(&missing) && text(&failed).contains("404"), "{}", text(&failed));

    let not_http = call(&service, "summarize_file", json!({"filename": "file:///etc/passwd"})).await;
    assert_eq!(not_http.is_error, Some(true));
    assert!(text(&not_http).contains("`filename`"), "{}", text(&not_http));
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whoami_echoes_the_username_and_purge_cache_is_destructive() {
    let service = start(TestClient::new(None)).await;
    let me = call(&service, "whoami", json!({"username": "ada@example.org"})).await;
    assert_eq!(me.is_error, Some(false));
    assert_eq!(structured(&me)["results"]["username"], "ada@example.org");
    assert!(text(&me).contains("ada@example.org"));
    let missing = call(&service, "whoami", json!({})).await;
    assert_eq!(missing.is_error, Some(true));
    assert!(text(&missing).contains("username"), "{}", text(&missing));

    let tools = service.list_all_tools().await.unwrap();
    let purge = tools.iter().find(|t| t.name == "purge_cache").expect("purge_cache is listed");
    let annotations = purge.annotations.as_ref().expect("annotations");
    assert_eq!((annotations.destructive_hint, annotations.read_only_hint), (Some(true), Some(false)));
    let purged = call(&service, "purge_cache", json!({})).await;
    assert_eq!(purged.is_error, Some(false));
    assert!(structured(&purged)["results"]["purged_entries"].is_u64());
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_transport() {
    let (mut child, url) = mcp_canvas_e2e::spawn_demo_http().await;
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");

    let transport = StreamableHttpClientTransport::from_uri(url.as_str());
    let answers = json!({"theme": "system", "font_size": 20});
    let service = TestClient::new(Some(Answer::Accept(answers))).serve(transport).await.expect("initialize over HTTP");
    let tools = service.list_all_tools().await.unwrap();
    for name in ["render_chart", "open_dashboard", "slow_job"] {
        assert!(tools.iter().any(|t| t.name == name), "{name} is listed");
    }
    let chart = service
        .call_tool(CallToolRequestParams::new("render_chart").with_arguments(json!({"values": [1, 2, 3]}).as_object().unwrap().clone()))
        .await
        .unwrap();
    assert_eq!(chart.is_error, Some(false));
    assert!(chart.content.iter().any(|c| c.as_image().is_some_and(|i| i.mime_type == "image/png")));
    // Server→client requests (elicitation) travel over the session's event stream.
    let prefs = call(&service, "ask_preferences", json!({})).await;
    assert_eq!(structured(&prefs)["results"]["preferences"]["theme"], "system", "{}", text(&prefs));
    service.cancel().await.unwrap();

    let (status, _) = http("GET", &url.replace("/mcp", "/elsewhere")).await;
    assert_eq!(status, 404);
    let _ = child.kill().await;
}
