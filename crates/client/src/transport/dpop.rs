//! DPoP on MCP requests (RFC 9449 §7, SEP-1932): for a server with `oauth.dpop`, every request
//! that carries the access token carries it as `Authorization: DPoP <token>` with a fresh proof
//! in `DPoP` (`htm`, `htu`, `ath`, and the server's nonce once it gave one). Without a key it is
//! the inner client, unchanged.
//!
//! When the server asks for a nonce (401, `error="use_dpop_nonce"`), the request is made once
//! more with it. rmcp's HTTP client does not hand over the 401's headers, so the nonce is read
//! from the answer to a `ping` sent with the same proof — a request with no effect whatever the
//! server makes of it. A server that asks again right after is answered with a clear error, not
//! another round (a nonce changing on every request must not loop).

use std::{collections::HashMap, sync::Arc};

use futures::stream::BoxStream;
use http::{header::AUTHORIZATION, HeaderName, HeaderValue};
use rmcp::{
    model::ClientJsonRpcMessage,
    transport::{
        common::http_header::{EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID, JSON_MIME_TYPE},
        streamable_http_client::{SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits},
    },
};
use sse_stream::Sse;

use crate::oauth::dpop::{wants_nonce, DpopKey, Nonces, DPOP_HEADER};

/// A Streamable HTTP client with DPoP when the server has a key.
#[derive(Clone)]
pub struct DpopHttp<C> {
    inner: C,
    dpop: Option<Arc<Dpop>>,
}

struct Dpop {
    key: Arc<DpopKey>,
    nonces: Nonces,
    /// For the `ping` a nonce is read from.
    http: reqwest::Client,
}

impl<C> DpopHttp<C> {
    /// `inner` with proofs signed by `key`, or `inner` as it is.
    pub fn new(inner: C, key: Option<Arc<DpopKey>>) -> Self {
        Self { inner, dpop: key.map(|key| Arc::new(Dpop { key, nonces: Nonces::default(), http: super::http_spill::http_client() })) }
    }
}

impl Dpop {
    /// The custom headers with the token as DPoP and a fresh proof.
    fn headers<E: std::error::Error + Send + Sync + 'static>(&self, method: &str, uri: &str, token: &str, mut headers: HashMap<HeaderName, HeaderValue>) -> Result<HashMap<HeaderName, HeaderValue>, StreamableHttpError<E>> {
        let proof = self.key.proof(method, uri, Some(token), self.nonces.get(uri).as_deref()).map_err(|e| StreamableHttpError::UnexpectedServerResponse(e.0.into()))?;
        let bad = |_| StreamableHttpError::UnexpectedServerResponse("an access token or DPoP proof is not a header value".into());
        headers.insert(AUTHORIZATION, HeaderValue::try_from(format!("DPoP {token}")).map_err(bad)?);
        headers.insert(HeaderName::from_static(DPOP_HEADER), HeaderValue::try_from(proof).map_err(bad)?);
        Ok(headers)
    }

    /// Reads the nonce the server asks for from its answer to a `ping`.
    async fn fetch_nonce<E: std::error::Error + Send + Sync + 'static>(&self, uri: &str, session: Option<&str>, token: &str, custom: &HashMap<HeaderName, HeaderValue>) -> Result<(), StreamableHttpError<E>> {
        let headers = self.headers::<E>("POST", uri, token, custom.clone())?;
        let mut request = self.http.post(uri).header(http::header::ACCEPT, format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}")).header(http::header::CONTENT_TYPE, JSON_MIME_TYPE);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if let Some(session) = session {
            request = request.header(HEADER_SESSION_ID, session);
        }
        let response = request.body(r#"{"jsonrpc":"2.0","id":"mcp-canvas-dpop-nonce","method":"ping"}"#).send().await.map_err(|e| StreamableHttpError::UnexpectedServerResponse(format!("asking {uri} for its DPoP nonce failed: {e}").into()))?;
        if self.nonces.keep(uri, response.headers()) || self.nonces.get(uri).is_some() {
            return Ok(());
        }
        Err(StreamableHttpError::UnexpectedServerResponse(format!("{uri} asked for a DPoP nonce (use_dpop_nonce) but sent none in `DPoP-Nonce`").into()))
    }
}

/// Whether an error is the server asking for a (new) nonce.
impl Dpop {
    /// Sends once; when the server answers that it wants a (new) nonce, reads it and sends once
    /// more. A server asking again right after is an error, not a loop.
    async fn with_nonce<T, E, F>(&self, uri: &str, session: Option<&str>, token: &str, custom: &HashMap<HeaderName, HeaderValue>, send: impl Fn() -> F) -> Result<T, StreamableHttpError<E>>
    where
        E: std::error::Error + Send + Sync + 'static,
        F: std::future::Future<Output = Result<T, StreamableHttpError<E>>>,
    {
        let first = send().await;
        if !asks_nonce(&first) {
            return first;
        }
        self.fetch_nonce(uri, session, token, custom).await?;
        let second = send().await;
        if asks_nonce(&second) {
            return Err(nonce_loop(uri));
        }
        second
    }
}

fn asks_nonce<E: std::error::Error + Send + Sync + 'static>(result: &Result<impl Sized, StreamableHttpError<E>>) -> bool {
    matches!(result, Err(StreamableHttpError::AuthRequired(challenge)) if wants_nonce(&challenge.www_authenticate_header))
}

fn nonce_loop<E: std::error::Error + Send + Sync + 'static>(uri: &str) -> StreamableHttpError<E> {
    StreamableHttpError::UnexpectedServerResponse(format!("{uri} asked for a new DPoP nonce again right after it gave one (use_dpop_nonce twice); not asking a third time").into())
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for DpopHttp<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, StreamableHttpResponseLimits::default()).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let (Some(dpop), Some(token)) = (&self.dpop, &auth_token) else {
            return self.inner.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, limits).await;
        };
        let send = || async {
            let headers = dpop.headers("POST", &uri, token, custom_headers.clone())?;
            self.inner.post_message_with_response_limits(uri.clone(), message.clone(), session_id.clone(), None, headers, limits).await
        };
        dpop.with_nonce(&uri, session_id.as_deref(), token, &custom_headers, send).await
    }

    async fn delete_session(&self, uri: Arc<str>, session_id: Arc<str>, auth_token: Option<String>, custom_headers: HashMap<HeaderName, HeaderValue>) -> Result<(), StreamableHttpError<Self::Error>> {
        let (Some(dpop), Some(token)) = (&self.dpop, &auth_token) else {
            return self.inner.delete_session(uri, session_id, auth_token, custom_headers).await;
        };
        let headers = dpop.headers("DELETE", &uri, token, custom_headers)?;
        self.inner.delete_session(uri, session_id, None, headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        let (Some(dpop), Some(token)) = (&self.dpop, &auth_token) else {
            return self.inner.get_stream(uri, session_id, last_event_id, auth_token, custom_headers).await;
        };
        let send = || async {
            let headers = dpop.headers("GET", &uri, token, custom_headers.clone())?;
            self.inner.get_stream(uri.clone(), session_id.clone(), last_event_id.clone(), None, headers).await
        };
        dpop.with_nonce(&uri, session_id.as_deref(), token, &custom_headers, send).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        let (Some(dpop), Some(token)) = (&self.dpop, &auth_token) else {
            return self.inner.get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth_token, custom_headers, max_sse_event_size).await;
        };
        let send = || async {
            let headers = dpop.headers("GET", &uri, token, custom_headers.clone())?;
            self.inner.get_stream_with_max_sse_event_size(uri.clone(), session_id.clone(), last_event_id.clone(), None, headers, max_sse_event_size).await
        };
        dpop.with_nonce(&uri, session_id.as_deref(), token, &custom_headers, send).await
    }
}
