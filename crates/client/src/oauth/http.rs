//! The HTTP client of token requests for servers with DPoP (and of our own token requests: the
//! JWT-bearer grant, enterprise-managed authorization): every token request (a form POST with a
//! `grant_type`) carries a fresh DPoP proof when the server has a key, and a `use_dpop_nonce`
//! answer is followed by one more try with the server's nonce — one, however often the nonce
//! changes. rmcp's own client is used for every server without DPoP (it also refuses metadata
//! on private addresses); this one refuses the cloud metadata services (link-local addresses and
//! the `metadata` host names), where a hostile server's metadata could point it, and allows the
//! rest — company identity providers often live on private networks.

use std::{sync::Arc, time::Duration};

use futures::StreamExt as _;
use rmcp::transport::auth::{OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRedirectPolicy, OAuthHttpRequest};

use super::dpop::{wants_nonce, DpopKey, Nonces, DPOP_HEADER};

/// How long one token request may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The most of an answer read.
const MAX_BODY: usize = 1 << 20;

/// Token requests, with DPoP proofs when the server has a key.
pub struct TokenHttp {
    follow: reqwest::Client,
    stop: reqwest::Client,
    dpop: Option<Arc<DpopKey>>,
    nonces: Arc<Nonces>,
}

impl TokenHttp {
    /// A client; with `dpop`, token requests carry proofs signed with it.
    pub fn new(dpop: Option<Arc<DpopKey>>, nonces: Arc<Nonces>) -> Self {
        let build = |policy| reqwest::Client::builder().timeout(TIMEOUT).redirect(policy).build().expect("an HTTP client builds");
        Self { follow: build(reqwest::redirect::Policy::limited(10)), stop: build(reqwest::redirect::Policy::none()), dpop, nonces }
    }

    /// Sends `request` (its body buffered), and once more with the server's nonce when it asks
    /// for one. The answer's body is read up to 1 MiB.
    pub async fn send(&self, request: http::Request<Vec<u8>>, follow: bool) -> Result<http::Response<Vec<u8>>, String> {
        let (parts, body) = request.into_parts();
        let uri = parts.uri.to_string();
        if let Some(host) = parts.uri.host().filter(|host| cloud_metadata(host)) {
            return Err(format!("refused a request to {host}, a cloud metadata service, named by the server's OAuth metadata"));
        }
        let token_request = parts.method == http::Method::POST && String::from_utf8_lossy(&body).contains("grant_type=");
        let dpop = self.dpop.as_ref().filter(|_| token_request);
        for attempt in 0..2 {
            let mut request = http::Request::new(body.clone());
            *request.method_mut() = parts.method.clone();
            *request.uri_mut() = parts.uri.clone();
            *request.headers_mut() = parts.headers.clone();
            if let Some(key) = dpop {
                let proof = key.proof(parts.method.as_str(), &uri, None, self.nonces.get(&uri).as_deref()).map_err(|e| e.to_string())?;
                request.headers_mut().insert(DPOP_HEADER, proof.parse().map_err(|_| "a DPoP proof is not a header value".to_owned())?);
            }
            let request = reqwest::Request::try_from(request).map_err(|e| format!("cannot make the request to {uri}: {e}"))?;
            let client = if follow { &self.follow } else { &self.stop };
            let response = client.execute(request).await.map_err(|e| format!("no answer from {uri}: {e}"))?;
            let status = response.status();
            let headers = response.headers().clone();
            let fresh = self.nonces.keep(&uri, &headers);
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| format!("the answer of {uri} broke off: {e}"))?;
                body.extend_from_slice(&chunk[..chunk.len().min(MAX_BODY - body.len())]);
                if body.len() >= MAX_BODY {
                    break;
                }
            }
            let asks_nonce = dpop.is_some() && matches!(status.as_u16(), 400 | 401) && wants_nonce(&String::from_utf8_lossy(&body));
            if asks_nonce && attempt == 0 && (fresh || self.nonces.get(&uri).is_some()) {
                continue;
            }
            if asks_nonce && attempt == 1 {
                return Err(format!("the authorization server {uri} asked for a new DPoP nonce again right after it gave one (use_dpop_nonce twice); not asking a third time"));
            }
            let mut answer = http::Response::new(body);
            *answer.status_mut() = status;
            *answer.headers_mut() = headers;
            return Ok(answer);
        }
        unreachable!("the second try returns")
    }
}

/// A cloud's instance metadata service: a link-local address or one of its names.
fn cloud_metadata(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_link_local(),
        Ok(std::net::IpAddr::V6(ip)) => (ip.segments()[0] & 0xffc0) == 0xfe80 || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_link_local()) || ip.segments()[..2] == [0xfd00, 0x0ec2],
        Err(_) => ["metadata", "metadata.google.internal", "metadata.azure.internal"].contains(&host.trim_end_matches('.')),
    }
}

impl OAuthHttpClient for TokenHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        let OAuthHttpRequest { request, redirect_policy, .. } = request;
        Box::pin(async move { self.send(request, redirect_policy != OAuthHttpRedirectPolicy::Stop).await.map_err(|e| e.into()) })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cloud_metadata_services_are_recognised() {
        for host in ["169.254.169.254", "[fe80::1]", "metadata.google.internal", "METADATA", "[fd00:ec2::254]", "[::ffff:169.254.169.254]"] {
            assert!(super::cloud_metadata(host), "{host}");
        }
        for host in ["127.0.0.1", "10.0.0.5", "login.acme.example", "[::1]"] {
            assert!(!super::cloud_metadata(host), "{host}");
        }
    }
}
