//! The link between a running desktop app and other MCP Canvas processes on the same data dir
//! (the proxy): a Unix socket `app.sock` in the data dir (mode 0600), one JSON line of request
//! and one of reply per connection.
//!
//! The app serves it ([`serve`]); the proxy asks through [`AppLink`]: confirm a tool that may
//! change data, answer a server's form or open-URL question in the app's dialog, answer a
//! server's sampling request with the app's model (the user approves it in the app's dialog),
//! or show a call's artifacts in the canvas as they arrive. No socket, or nobody listening on it, means
//! the app is not running, and every question returns `None`.
#![deny(missing_docs)]

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use mcp_canvas_sampling::{SamplingError, SamplingRequest, SamplingResult};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use mcp_canvas_elicitation::{BoxFuture, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use mcp_canvas_wire::{AppCall, CallOutcome};

/// The socket's file name in the data dir.
pub const SOCKET_NAME: &str = "app.sock";
/// How long connecting to the app may take before it counts as not running.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// Largest request or reply line (a call outcome with many artifacts fits easily).
const MAX_LINE: usize = 16 << 20;

/// What another process asks the app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AppRequest {
    /// Is anyone there?
    Ping,
    /// May `server`'s `tool` run with these arguments? (It may change or delete data.)
    Confirm {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// The arguments it would get.
        arguments: Map<String, Value>,
        /// Who is asking (`proxy`).
        on_behalf_of: String,
    },
    /// A server's form question.
    Form {
        /// The question.
        request: FormRequest,
    },
    /// A server wants a web page opened.
    Url {
        /// The question.
        request: UrlRequest,
    },
    /// A call finished elsewhere: show its artifacts as its display intent says.
    Show {
        /// The call.
        call: Box<CallOutcome>,
        /// What the tool's MCP App is sent, when the tool declares a view (the app shows the
        /// App live too).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        app: Option<Box<AppCall>>,
    },
    /// A server's sampling request (`sampling/createMessage`), for the app's model.
    Sample {
        /// The server asking.
        server: String,
        /// The request as the server sent it.
        request: SamplingRequest,
    },
}

/// How a sampling request ended in the app, as it crosses the link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleOutcome {
    /// The completion.
    Ok(SamplingResult),
    /// Not answered: the JSON-RPC error the server gets.
    Err {
        /// The JSON-RPC error code.
        code: i32,
        /// Why.
        message: String,
    },
}

impl From<Result<SamplingResult, SamplingError>> for SampleOutcome {
    fn from(result: Result<SamplingResult, SamplingError>) -> Self {
        match result {
            Ok(result) => Self::Ok(result),
            Err(SamplingError { code, message }) => Self::Err { code, message },
        }
    }
}

impl From<SampleOutcome> for Result<SamplingResult, SamplingError> {
    fn from(outcome: SampleOutcome) -> Self {
        match outcome {
            SampleOutcome::Ok(result) => Ok(result),
            SampleOutcome::Err { code, message } => Err(SamplingError::new(code, message)),
        }
    }
}

/// The app's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AppReply {
    /// Done (ping, show).
    Ok,
    /// The user's decision on a confirmation.
    Confirmed {
        /// Whether the tool may run.
        confirmed: bool,
    },
    /// The answer to a form.
    Form {
        /// The answer.
        answer: FormAnswer,
    },
    /// The answer to an open-URL question.
    Url {
        /// The answer.
        answer: UrlAnswer,
    },
    /// How a sampling request ended.
    Sampled {
        /// The completion, or the error for the server.
        result: SampleOutcome,
    },
    /// The request could not be handled.
    Error {
        /// Why.
        message: String,
    },
}

/// What the app does with requests (implemented by the desktop shell).
pub trait AppRequests: Send + Sync {
    /// Ask the user whether the tool may run.
    fn confirm<'a>(&'a self, server: &'a str, tool: &'a str, arguments: &'a Map<String, Value>, on_behalf_of: &'a str) -> BoxFuture<'a, bool>;
    /// Ask the user to fill in a form.
    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer>;
    /// Ask the user whether to open a page.
    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer>;
    /// Answer `server`'s sampling request with the app's model (policy, the user's approval in
    /// the app, the provider; the exchange kept in the data dir's transcript).
    fn sample<'a>(&'a self, server: &'a str, request: SamplingRequest) -> BoxFuture<'a, Result<SamplingResult, SamplingError>>;
    /// Show a call's artifacts.
    fn show(&self, call: CallOutcome, app: Option<AppCall>);
}

/// The path of the socket for a data dir.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_NAME)
}

/// Serves the link for the app until the returned task is aborted. Refuses (with a reason) when
/// another app already serves this data dir; removes a stale socket left by one that crashed.
#[cfg(unix)]
pub async fn serve(data_dir: &Path, handler: Arc<dyn AppRequests>) -> std::io::Result<tokio::task::JoinHandle<()>> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = socket_path(data_dir);
    if tokio::net::UnixStream::connect(&path).await.is_ok() {
        return Err(std::io::Error::new(std::io::ErrorKind::AddrInUse, format!("another MCP Canvas window already serves {}", path.display())));
    }
    let _ = std::fs::remove_file(&path);
    let listener = tokio::net::UnixListener::bind(&path).map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", path.display())))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(|e| std::io::Error::new(e.kind(), format!("cannot restrict {}: {e}", path.display())))?;
    Ok(tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            let handler = handler.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut line = String::new();
                let mut reader = BufReader::new(read).take(MAX_LINE as u64);
                use tokio::io::AsyncReadExt as _;
                let reply = match reader.read_line(&mut line).await {
                    Ok(0) => return,
                    Ok(_) => match serde_json::from_str::<AppRequest>(&line) {
                        // The asker sends nothing more: reading again ends only when it hangs up
                        // (its process exited), and then the question is dropped, which closes
                        // its dialog in the window.
                        Ok(request) => tokio::select! {
                            reply = answer(handler.as_ref(), request) => reply,
                            _ = reader.read_u8() => return,
                        },
                        Err(e) => AppReply::Error { message: format!("not a request MCP Canvas understands: {e}") },
                    },
                    Err(e) => AppReply::Error { message: e.to_string() },
                };
                let mut text = serde_json::to_string(&reply).expect("replies serialize");
                text.push('\n');
                let _ = write.write_all(text.as_bytes()).await;
            });
        }
    }))
}

async fn answer(handler: &dyn AppRequests, request: AppRequest) -> AppReply {
    match request {
        AppRequest::Ping => AppReply::Ok,
        AppRequest::Confirm { server, tool, arguments, on_behalf_of } => AppReply::Confirmed { confirmed: handler.confirm(&server, &tool, &arguments, &on_behalf_of).await },
        AppRequest::Form { request } => AppReply::Form { answer: handler.form(&request).await },
        AppRequest::Url { request } => AppReply::Url { answer: handler.url(&request).await },
        AppRequest::Show { call, app } => {
            handler.show(*call, app.map(|a| *a));
            AppReply::Ok
        }
        AppRequest::Sample { server, request } => AppReply::Sampled { result: handler.sample(&server, request).await.into() },
    }
}

/// The asking side: finds the app (at each request, so an app started later is found).
#[derive(Debug, Clone)]
pub struct AppLink {
    socket: PathBuf,
}

impl AppLink {
    /// The link for a data dir.
    pub fn new(data_dir: &Path) -> Self {
        Self { socket: socket_path(data_dir) }
    }

    /// Whether the app answers.
    pub async fn is_running(&self) -> bool {
        matches!(self.ask(&AppRequest::Ping).await, Some(AppReply::Ok))
    }

    /// The user's decision, or `None` when the app is not running.
    pub async fn confirm(&self, server: &str, tool: &str, arguments: &Map<String, Value>, on_behalf_of: &str) -> Option<bool> {
        let request = AppRequest::Confirm { server: server.to_owned(), tool: tool.to_owned(), arguments: arguments.clone(), on_behalf_of: on_behalf_of.to_owned() };
        match self.ask(&request).await? {
            AppReply::Confirmed { confirmed } => Some(confirmed),
            _ => None,
        }
    }

    /// The user's answer to a form, or `None` when the app is not running.
    pub async fn ask_form(&self, request: &FormRequest) -> Option<FormAnswer> {
        match self.ask(&AppRequest::Form { request: request.clone() }).await? {
            AppReply::Form { answer } => Some(answer),
            _ => None,
        }
    }

    /// The user's answer to an open-URL question, or `None` when the app is not running.
    pub async fn ask_url(&self, request: &UrlRequest) -> Option<UrlAnswer> {
        match self.ask(&AppRequest::Url { request: request.clone() }).await? {
            AppReply::Url { answer } => Some(answer),
            _ => None,
        }
    }

    /// `server`'s sampling request answered by the app (or refused there, with the reason), or
    /// `None` when the app is not running.
    pub async fn sample(&self, server: &str, request: &SamplingRequest) -> Option<Result<SamplingResult, SamplingError>> {
        match self.ask(&AppRequest::Sample { server: server.to_owned(), request: request.clone() }).await? {
            AppReply::Sampled { result } => Some(result.into()),
            _ => None,
        }
    }

    /// Shows a call in the app's canvas; whether the app took it.
    pub async fn show(&self, call: &CallOutcome, app: Option<&AppCall>) -> bool {
        matches!(self.ask(&AppRequest::Show { call: Box::new(call.clone()), app: app.cloned().map(Box::new) }).await, Some(AppReply::Ok))
    }

    #[cfg(unix)]
    async fn ask(&self, request: &AppRequest) -> Option<AppReply> {
        // No socket file, no app: a stat instead of a socket, a failed connect and a close (the
        // proxy asks after every call).
        if !self.socket.exists() {
            return None;
        }
        let stream = tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::UnixStream::connect(&self.socket)).await.ok()?.ok()?;
        let (read, mut write) = stream.into_split();
        let mut text = serde_json::to_string(request).expect("requests serialize");
        text.push('\n');
        write.write_all(text.as_bytes()).await.ok()?;
        let mut line = String::new();
        use tokio::io::AsyncReadExt as _;
        BufReader::new(read).take(MAX_LINE as u64).read_line(&mut line).await.ok()?;
        match serde_json::from_str(&line) {
            Ok(AppReply::Error { message }) => {
                tracing::warn!("the MCP Canvas app refused a request: {message}");
                None
            }
            Ok(reply) => Some(reply),
            Err(_) => None,
        }
    }

    #[cfg(not(unix))]
    async fn ask(&self, _request: &AppRequest) -> Option<AppReply> {
        None
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Recorder {
        shown: Mutex<Vec<String>>,
        /// Confirmations of `slow` being asked right now.
        asking: std::sync::atomic::AtomicU32,
    }

    /// Counts itself out when dropped (the question was abandoned or answered).
    struct Asking<'a>(&'a std::sync::atomic::AtomicU32);

    impl Drop for Asking<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    impl AppRequests for Recorder {
        fn confirm<'a>(&'a self, _server: &'a str, tool: &'a str, _arguments: &'a Map<String, Value>, _on_behalf_of: &'a str) -> BoxFuture<'a, bool> {
            Box::pin(async move {
                if tool == "slow" {
                    self.asking.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let _asking = Asking(&self.asking);
                    std::future::pending::<()>().await;
                }
                tool == "allowed"
            })
        }
        fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
            Box::pin(async move {
                let mut content = Map::new();
                content.insert("echo".into(), Value::String(request.message.clone()));
                FormAnswer::Accept(content)
            })
        }
        fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
            Box::pin(async move { UrlAnswer::Decline(format!("not opening {}", request.domain)) })
        }
        fn sample<'a>(&'a self, server: &'a str, request: SamplingRequest) -> BoxFuture<'a, Result<SamplingResult, SamplingError>> {
            Box::pin(async move {
                let asked = request.messages[0].text();
                if asked == "refuse" {
                    return Err(SamplingError::new(-1, format!("the user rejected `{server}`'s sampling request: not now")));
                }
                Ok(SamplingResult {
                    model: "app-model".into(),
                    stop_reason: Some(mcp_canvas_sampling::StopReason::EndTurn),
                    role: mcp_canvas_sampling::Role::Assistant,
                    content: vec![mcp_canvas_sampling::Block::text(format!("{server} asked: {asked}"))],
                })
            })
        }
        fn show(&self, call: CallOutcome, _app: Option<AppCall>) {
            self.shown.lock().unwrap().push(call.call_id);
        }
    }

    #[test]
    fn sampling_outcomes_have_a_plain_wire_form() {
        let request = AppRequest::Sample { server: "s".into(), request: SamplingRequest::user("hi", 10) };
        let wire = serde_json::to_value(&request).unwrap();
        assert_eq!(wire["kind"], "sample");
        assert_eq!(wire["request"]["maxTokens"], 10);
        assert_eq!(serde_json::from_value::<AppRequest>(wire).unwrap(), request);
        let refused = AppReply::Sampled { result: Err(SamplingError::new(-32603, "no provider")).into() };
        let wire = serde_json::to_value(&refused).unwrap();
        assert_eq!(wire, serde_json::json!({"kind": "sampled", "result": {"err": {"code": -32603, "message": "no provider"}}}));
        assert_eq!(serde_json::from_value::<AppReply>(wire).unwrap(), refused);
        let result = SamplingResult { model: "m".into(), stop_reason: None, role: mcp_canvas_sampling::Role::Assistant, content: vec![mcp_canvas_sampling::Block::text("hello")] };
        let answered = AppReply::Sampled { result: Ok(result.clone()).into() };
        let wire = serde_json::to_value(&answered).unwrap();
        assert_eq!(wire["result"]["ok"]["content"]["text"], "hello");
        let AppReply::Sampled { result: back } = serde_json::from_value::<AppReply>(wire).unwrap() else { panic!("not sampled") };
        assert_eq!(Result::<SamplingResult, SamplingError>::from(back), Ok(result));
    }

    #[tokio::test]
    async fn requests_reach_the_app_and_answers_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let link = AppLink::new(dir.path());
        assert!(!link.is_running().await, "no app yet");
        assert_eq!(link.confirm("s", "allowed", &Map::new(), "proxy").await, None);
        assert_eq!(link.sample("s", &SamplingRequest::user("hi", 10)).await, None, "no app: nobody to sample");

        let recorder = Arc::new(Recorder::default());
        let task = serve(dir.path(), recorder.clone()).await.unwrap();
        assert!(link.is_running().await);
        assert_eq!(link.confirm("s", "allowed", &Map::new(), "proxy").await, Some(true));
        assert_eq!(link.confirm("s", "other", &Map::new(), "proxy").await, Some(false));
        let form = FormRequest { server: "s".into(), message: "name?".into(), schema: Map::new(), attempt: 1, problems: vec![] };
        let Some(FormAnswer::Accept(content)) = link.ask_form(&form).await else { panic!("form not answered") };
        assert_eq!(content["echo"], "name?");
        let url = UrlRequest { server: "s".into(), message: "m".into(), url: "https://example.com/x".into(), domain: "example.com".into(), elicitation_id: "e1".into(), warnings: vec![] };
        assert_eq!(link.ask_url(&url).await, Some(UrlAnswer::Decline("not opening example.com".into())));
        let call = CallOutcome { call_id: "call-1".into(), server: "s".into(), tool: "t".into(), outcome: serde_json::from_value(serde_json::json!({"summary": "s", "results": null, "texts": [], "artifacts": [], "display": {"open_canvas": false, "primary": null, "mode": "replace", "viewer": null}, "dashboard": null, "needs_input": null, "error": null, "kind": null, "warnings": [], "meta": null})).unwrap() };
        assert!(link.show(&call, None).await);
        assert_eq!(*recorder.shown.lock().unwrap(), vec!["call-1".to_owned()]);

        // Sampling: the completion and the refusal both cross, the refusal with its code.
        let Some(Ok(result)) = link.sample("s", &SamplingRequest::user("hi", 10)).await else { panic!("sampling not answered") };
        assert_eq!((result.model.as_str(), result.content[0].as_text()), ("app-model", Some("s asked: hi")));
        assert_eq!(result.stop_reason, Some(mcp_canvas_sampling::StopReason::EndTurn));
        let refused = link.sample("s", &SamplingRequest::user("refuse", 10)).await;
        assert_eq!(refused, Some(Err(SamplingError::new(-1, "the user rejected `s`'s sampling request: not now"))));

        // An asker that hangs up mid-question: the app stops waiting for the answer.
        {
            let stream = tokio::net::UnixStream::connect(socket_path(dir.path())).await.unwrap();
            let (_read, mut write) = stream.into_split();
            let request = serde_json::to_string(&AppRequest::Confirm { server: "s".into(), tool: "slow".into(), arguments: Map::new(), on_behalf_of: "t".into() }).unwrap();
            write.write_all(format!("{request}\n").as_bytes()).await.unwrap();
            tokio::time::sleep(Duration::from_millis(100)).await;
            assert_eq!(recorder.asking.load(std::sync::atomic::Ordering::SeqCst), 1, "the question reached the app");
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while recorder.asking.load(std::sync::atomic::Ordering::SeqCst) != 0 {
            assert!(std::time::Instant::now() < deadline, "the abandoned question was dropped");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }

        // A second app on the same data dir is refused; the first keeps serving.
        let err = serve(dir.path(), recorder.clone()).await.unwrap_err();
        assert!(err.to_string().contains("already serves"), "{err}");
        assert!(link.is_running().await);

        // A socket left by a crashed app is treated as "not running", then replaced.
        task.abort();
        let _ = task.await;
        assert!(!link.is_running().await);
        let _task = serve(dir.path(), recorder).await.unwrap();
        assert!(link.is_running().await);
    }
}
