//! Sampling requests downstream servers make during proxied calls (`sampling/createMessage`):
//! passed on to the AI host when it declared `sampling` (and `sampling.tools` for a request that
//! offers the model tools), else answered by the desktop app with the user's own model when it
//! runs (its policy, the user's approval in its dialog, its transcript), else refused with the
//! reason (which reaches the model in the call's notes, and the server as the JSON-RPC error).

#![allow(deprecated)] // sampling is deprecated by SEP-2577; servers and AI hosts still use it

use std::{sync::Arc, time::Instant};

use mcp_canvas_host::{app_link::AppLink, Host};
use mcp_canvas_sampling::{provider::BoxFuture, sampler::{Capability, Decision, ExchangeRecord, FAILED, REJECTED, Waiting}, PolicyMode, Sampler, SamplingError, SamplingRequest, SamplingResult, SamplingService, Transcript};
use rmcp::{
    model::{CreateMessageRequestParams, ProtocolVersion},
    service::ServiceError,
    Peer, RoleServer,
};

use crate::elicit::Upstream;

/// What the AI host declared it answers.
#[derive(Debug, Clone, Copy)]
struct UpstreamSampling {
    /// `sampling.tools`: requests with tools and toolChoice.
    tools: bool,
}

/// The AI host's `sampling` capability, when it may be sent requests at all (protocol
/// 2026-07-28 forbids server-to-client requests).
fn upstream_sampling(peer: &Peer<RoleServer>) -> Option<UpstreamSampling> {
    let info = peer.peer_info()?;
    if info.protocol_version >= ProtocolVersion::V_2026_07_28 {
        return None;
    }
    let sampling = info.capabilities.sampling.as_ref()?;
    Some(UpstreamSampling { tools: sampling.tools.is_some() })
}

/// The proxy's sampling router, installed with [`Host::with_sampling_service`].
pub struct ProxySampling {
    /// The AI host's side.
    upstream: Arc<Upstream>,
    /// The desktop app, when it runs (looked up at each request).
    app: Arc<AppLink>,
    /// The proxy host's own sampler: what settings.toml offers each server (`tools`).
    sampler: Arc<Sampler>,
    /// The proxy host's transcript, for the exchanges the AI host answered (the app keeps its
    /// own in the same data dir).
    transcript: Arc<dyn Transcript>,
}

impl ProxySampling {
    /// The router for `host` (its sampler's settings and its transcript); install it with
    /// [`Host::with_sampling_service`].
    pub fn new(host: &Host, upstream: Arc<Upstream>, app: Arc<AppLink>) -> Self {
        Self { upstream, app, sampler: host.sampler().clone(), transcript: host.sampling_transcript() }
    }

    /// The AI host's answer (a completion, or its error passed back as it is), or why it could
    /// not be asked (the app is tried next).
    async fn forward(&self, peer: &Peer<RoleServer>, server: &str, request: &SamplingRequest, waiting: &dyn Waiting) -> Result<Result<SamplingResult, SamplingError>, String> {
        let params: CreateMessageRequestParams = serde_json::to_value(request).and_then(serde_json::from_value).map_err(|e| format!("the request could not be passed on to the AI host ({e})"))?;
        let client = peer.peer_info().map(|info| info.client_info.name.clone()).unwrap_or_default();
        let mut record = ExchangeRecord::new(server, request.clone());
        record.provider = format!("AI host ({client})");
        let started = Instant::now();
        let answer = {
            // The AI host may ask its user first: the calls' timeouts pause meanwhile.
            let _waiting = waiting.begin();
            peer.create_message(params).await
        };
        record.latency_ms = started.elapsed().as_millis() as u64;
        let result = match answer {
            Ok(result) => serde_json::to_value(result)
                .and_then(serde_json::from_value::<SamplingResult>)
                .map_err(|e| SamplingError::new(FAILED, format!("the AI host's completion could not be read: {e}"))),
            Err(ServiceError::McpError(error)) => Err(SamplingError::new(error.code.0, error.message.to_string())),
            Err(e) => {
                crate::warn(format_args!("the AI host did not answer a forwarded sampling request: {e}"));
                return Err(format!("the AI host did not answer it ({e})"));
            }
        };
        record.decision = match &result {
            Ok(_) => Decision::Automatic,
            Err(e) if e.code == REJECTED => Decision::Rejected,
            Err(_) => Decision::Failed,
        };
        record.model = result.as_ref().map(|r| r.model.clone()).unwrap_or_default();
        record.finish(&result);
        self.transcript.record(&record);
        Ok(result)
    }

    /// Nobody could answer: the refusal, kept in the transcript too.
    fn refuse(&self, server: &str, request: &SamplingRequest, why_not_upstream: &str) -> SamplingError {
        let message = format!(
            "MCP Canvas cannot answer `{server}`'s sampling request: {why_not_upstream}, and the MCP Canvas app is not running to answer it with your model (start the app, or configure sampling there: Settings → Sampling)"
        );
        self.transcript.record(&ExchangeRecord::refused(server, request.clone(), &message));
        SamplingError::new(REJECTED, message)
    }
}

impl SamplingService for ProxySampling {
    fn capability(&self, server: &str) -> Option<Capability> {
        // Offered unless settings say `never` for this server (the proxy has no terminal, but
        // the AI host or the app may ask their user): the AI host, the app or a reasoned
        // refusal answers.
        // The CLI's `--sampling never` counts as much as settings do.
        let settings = self.sampler.settings();
        let own = settings.effective(server);
        if self.sampler.chosen_mode(server) == PolicyMode::Never {
            return None;
        }
        let upstream_tools = self.upstream.peer().and_then(|peer| upstream_sampling(&peer)).is_some_and(|s| s.tools);
        Some(Capability { tools: upstream_tools || own.tools })
    }

    fn create_message<'a>(&'a self, server: &'a str, request: SamplingRequest, waiting: &'a dyn Waiting) -> BoxFuture<'a, Result<SamplingResult, SamplingError>> {
        Box::pin(async move {
            if self.sampler.chosen_mode(server) == PolicyMode::Never {
                let message = format!("MCP Canvas does not answer sampling requests from `{server}` (its sampling policy is `never`, by settings or `--sampling never`; change it in Settings → Sampling)");
                self.transcript.record(&ExchangeRecord::refused(server, request.clone(), &message));
                return Err(SamplingError::new(REJECTED, message));
            }
            let offers_tools = !request.tools.is_empty() || request.tool_choice.is_some();
            let peer = self.upstream.peer();
            let why_not_upstream = match peer.as_ref().and_then(|peer| upstream_sampling(peer).map(|declared| (peer, declared))) {
                None => "the AI host did not declare sampling".to_owned(),
                Some((_, declared)) if offers_tools && !declared.tools => {
                    "the request offers the model tools and the AI host declared sampling without tools (sampling.tools)".to_owned()
                }
                Some((peer, _)) => match self.forward(peer, server, &request, waiting).await {
                    Ok(answer) => return answer,
                    Err(why) => why,
                },
            };
            let from_app = {
                // The user decides in the app: the calls' timeouts pause meanwhile.
                let _waiting = waiting.begin();
                self.app.sample(server, &request).await
            };
            match from_app {
                Some(answer) => answer,
                None => Err(self.refuse(server, &request, &why_not_upstream)),
            }
        })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::time::Duration;

    use mcp_canvas_host::{app_link, app_link::AppRequests, HostOptions};
    use mcp_canvas_elicitation::{FormAnswer, FormRequest, UrlAnswer, UrlRequest};
    use mcp_canvas_sampling::{sampler::NoCall, Block, Role, StopReason};
    use mcp_canvas_wire::CallOutcome;
    use serde_json::{Map, Value};

    use super::*;

    /// The desktop app's side: answers with its "model", refuses what says so.
    struct App;

    impl AppRequests for App {
        fn confirm<'a>(&'a self, _server: &'a str, _tool: &'a str, _arguments: &'a Map<String, Value>, _on_behalf_of: &'a str) -> BoxFuture<'a, bool> {
            Box::pin(async { false })
        }
        fn form<'a>(&'a self, _request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
            Box::pin(async { FormAnswer::Cancel })
        }
        fn url<'a>(&'a self, _request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
            Box::pin(async { UrlAnswer::Cancel })
        }
        fn sample<'a>(&'a self, server: &'a str, request: SamplingRequest) -> BoxFuture<'a, Result<SamplingResult, SamplingError>> {
            Box::pin(async move {
                match request.messages[0].text().as_str() {
                    "refuse" => Err(SamplingError::new(REJECTED, "the user rejected it in the app")),
                    asked => Ok(SamplingResult { model: "app-model".into(), stop_reason: Some(StopReason::EndTurn), role: Role::Assistant, content: vec![Block::text(format!("{server}: {asked}"))] }),
                }
            })
        }
        fn show(&self, _call: CallOutcome, _app: Option<mcp_canvas_wire::AppCall>) {}
    }

    #[tokio::test]
    async fn without_the_ai_host_the_app_answers_else_a_reasoned_refusal() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.toml"), "[sampling.servers.quiet]\npolicy = \"never\"\n\n[sampling.servers.strict]\ntools = false\n").unwrap();
        // As the CLI runs the proxy: no terminal, so its own sampler treats `ask` as `never`.
        let host = Host::open(HostOptions { data_dir: dir.path().to_owned(), call_timeout: Duration::from_secs(60), session: None }).unwrap().with_unattended_sampling(None);
        let sampling = ProxySampling::new(&host, Arc::new(Upstream::default()), Arc::new(AppLink::new(dir.path())));
        // Offered (the AI host or the app may ask their user), tools as settings say; not to a
        // server whose policy is `never`, and its request is refused if it sends one anyway.
        assert_eq!(sampling.capability("demo"), Some(Capability { tools: true }));
        assert_eq!(sampling.capability("strict"), Some(Capability { tools: false }));
        assert_eq!(sampling.capability("quiet"), None);
        let never = sampling.create_message("quiet", SamplingRequest::user("hi", 10), &NoCall).await.unwrap_err();
        assert!(never.message.contains("policy is `never`"), "{}", never.message);

        // Nobody: refused with the reason, and the refusal is kept.
        let refused = sampling.create_message("demo", SamplingRequest::user("hi", 10), &NoCall).await.unwrap_err();
        assert_eq!(refused.code, REJECTED);
        assert!(refused.message.contains("the AI host did not declare sampling") && refused.message.contains("MCP Canvas app is not running"), "{}", refused.message);
        let log = host.sampling_log(Some("demo"), 10).unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!((log[0].decision, log[0].error.as_deref()), (Decision::Refused, Some(refused.message.as_str())));

        // The app: its completion, and its refusal passed on as it is.
        let _app = app_link::serve(dir.path(), Arc::new(App)).await.unwrap();
        let answered = sampling.create_message("demo", SamplingRequest::user("hi", 10), &NoCall).await.unwrap();
        assert_eq!((answered.model.as_str(), answered.content[0].as_text()), ("app-model", Some("demo: hi")));
        let rejected = sampling.create_message("demo", SamplingRequest::user("refuse", 10), &NoCall).await.unwrap_err();
        assert_eq!(rejected, SamplingError::new(REJECTED, "the user rejected it in the app"));
        assert_eq!(host.sampling_log(Some("demo"), 10).unwrap().len(), 1, "the app keeps its exchanges in its own transcript");
    }
}
