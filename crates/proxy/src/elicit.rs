//! Questions downstream servers ask during proxied calls (elicitation): passed on to the AI host
//! when it supports the mode, else asked in the desktop app's dialog when it runs, else declined
//! with the reason (which reaches the model in the call's notes).

use std::sync::{Arc, Mutex};

use mcp_canvas_host::app_link::AppLink;
use mcp_canvas_elicitation::{BoxFuture, ElicitationHandler, ElicitationModes, FormAnswer, FormRequest, UrlAnswer, UrlRequest};
use rmcp::{
    model::{ElicitRequestParams, ElicitResult, ElicitationAction},
    Peer, RoleServer,
};
use serde_json::{json, Value};

/// The upstream client that made the most recent call, or else connected last (the one a
/// question or sampling request belongs to, for a stdio proxy; the latest active session, for
/// HTTP). Shared by [`ProxyElicitation`] and [`crate::sample::ProxySampling`].
#[derive(Default)]
pub struct Upstream(Mutex<Option<Peer<RoleServer>>>);

impl Upstream {
    /// Records the client of a call that is starting.
    pub fn set(&self, peer: Peer<RoleServer>) {
        *self.0.lock().unwrap() = Some(peer);
    }

    /// The client, while it is connected.
    pub(crate) fn peer(&self) -> Option<Peer<RoleServer>> {
        self.0.lock().unwrap().clone().filter(|p| !p.is_transport_closed())
    }
}

/// Which modes the upstream client declared (`elicitation: {}` means form only).
fn upstream_modes(peer: &Peer<RoleServer>) -> ElicitationModes {
    let Some(elicitation) = peer.peer_info().and_then(|info| info.capabilities.elicitation.clone()) else {
        return ElicitationModes::NONE;
    };
    let declared_none = elicitation.form.is_none() && elicitation.url.is_none();
    ElicitationModes { form: elicitation.form.is_some() || declared_none, url: elicitation.url.is_some() }
}

/// The proxy's elicitation handler.
pub struct ProxyElicitation {
    /// The AI host's side.
    pub upstream: Arc<Upstream>,
    /// The desktop app, when it runs (looked up at each question).
    pub app: Arc<AppLink>,
}

impl ProxyElicitation {
    async fn ask_upstream(peer: &Peer<RoleServer>, params: Value) -> Option<ElicitResult> {
        let params: ElicitRequestParams = serde_json::from_value(params).ok()?;
        match peer.create_elicitation(params).await {
            Ok(result) => Some(result),
            Err(e) => {
                crate::warn(format_args!("the AI host did not answer a forwarded question: {e}"));
                None
            }
        }
    }

    fn nobody(mode: &str) -> String {
        format!("the AI host does not support {mode}-mode questions and the MCP Canvas app is not running to ask the user")
    }
}

impl ElicitationHandler for ProxyElicitation {
    fn modes(&self) -> ElicitationModes {
        // Always advertised: the host, the app or a reasoned decline answers.
        ElicitationModes::ALL
    }

    fn form<'a>(&'a self, request: &'a FormRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(async move {
            if let Some(peer) = self.upstream.peer().filter(|p| upstream_modes(p).form) {
                let params = json!({ "mode": "form", "message": request.message, "requestedSchema": request.schema });
                if let Some(result) = Self::ask_upstream(&peer, params).await {
                    return match result.action {
                        ElicitationAction::Accept => match result.content {
                            Some(Value::Object(content)) => FormAnswer::Accept(content),
                            _ => FormAnswer::Decline("the AI host accepted without content".to_owned()),
                        },
                        ElicitationAction::Decline => FormAnswer::Decline("declined in the AI host".to_owned()),
                        _ => FormAnswer::Cancel,
                    };
                }
            }
            match self.app.ask_form(request).await {
                Some(answer) => answer,
                None => FormAnswer::Decline(Self::nobody("form")),
            }
        })
    }

    fn url<'a>(&'a self, request: &'a UrlRequest) -> BoxFuture<'a, UrlAnswer> {
        Box::pin(async move {
            if let Some(peer) = self.upstream.peer().filter(|p| upstream_modes(p).url) {
                let params = json!({ "mode": "url", "message": request.message, "url": request.url, "elicitationId": request.elicitation_id });
                if let Some(result) = Self::ask_upstream(&peer, params).await {
                    return match result.action {
                        ElicitationAction::Accept => UrlAnswer::Accept,
                        ElicitationAction::Decline => UrlAnswer::Decline("declined in the AI host".to_owned()),
                        _ => UrlAnswer::Cancel,
                    };
                }
            }
            match self.app.ask_url(request).await {
                Some(answer) => answer,
                None => UrlAnswer::Decline(Self::nobody("url")),
            }
        })
    }
}
