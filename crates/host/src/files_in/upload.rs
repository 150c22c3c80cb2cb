//! SEP-2631's out-of-band upload (revision PR head `8799c5c1`, content `c3cf0eba`,
//! 2026-06-09): a file too large to send inline goes to the URL the server hands out for it.
//!
//! `files/authorizeUpload {name, mimeType, size, digest: {algorithm: "sha-256", value:
//! <base64url>}}` → `{file: {uri, …}, upload: {transport: "https", method: "PUT" | "POST", url,
//! headers?, multipart?: {fileField, fields?}, expiresAt?}}`; the bytes are streamed from the
//! store to `upload.url` (flat memory: the blob is read as it is sent), and the argument becomes
//! `file.uri`. The URL is checked like a dashboard's origin before anything is sent: `https`, or
//! plain `http` only to a loopback address of a server running on this machine; no redirect is
//! followed; an IP literal in a private, link-local or unspecified range is refused (loopback
//! only for a local server). The server checks the digest; an answer other than 2xx is the
//! call's error, naming the status.

use std::{net::IpAddr, time::Duration};

use base64::Engine as _;
use mcp_canvas_store::{ArtifactRecord, ArtifactStore};
use rmcp::{
    model::{ClientRequest, CustomRequest, ErrorCode, ServerResult},
    service::ServiceError,
    Peer, RoleClient,
};
use serde_json::{json, Value};

use super::Refusal;

/// The digest of a stored file as SEP-2631 writes it: sha-256, base64url without padding.
pub fn digest_value(sha256_hex: &str) -> String {
    let bytes: Vec<u8> = (0..sha256_hex.len() / 2).filter_map(|i| u8::from_str_radix(&sha256_hex[2 * i..2 * i + 2], 16).ok()).collect();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Uploads `record` the server's way; returns the file URI to put in the arguments.
pub async fn upload(peer: &Peer<RoleClient>, server_is_local: bool, store: &ArtifactStore, record: &ArtifactRecord, limit: Duration) -> Result<String, Refusal> {
    let params = json!({
        "name": record.name,
        "mimeType": record.mime,
        "size": record.size,
        "digest": { "algorithm": "sha-256", "value": digest_value(&record.sha256) },
    });
    let request = ClientRequest::CustomRequest(CustomRequest::new("files/authorizeUpload", Some(params)));
    let answer = tokio::time::timeout(limit, peer.send_request(request))
        .await
        .map_err(|_| format!("the server did not authorize the upload of {} within {} s", record.name, limit.as_secs()))?
        .map_err(|e| match e {
            ServiceError::McpError(error) if error.code == ErrorCode::METHOD_NOT_FOUND => {
                format!("{} is {}, over what MCP Canvas sends inline, and the server takes no uploads (files/authorizeUpload)", record.name, super::bytes(record.size))
            }
            ServiceError::McpError(error) => format!("the server refused the upload of {}: {}", record.name, error.message),
            other => format!("authorizing the upload of {} failed: {other}", record.name),
        })?;
    let ServerResult::CustomResult(result) = answer else { return Err(format!("the server answered files/authorizeUpload with something else than its result ({answer:?})")) };
    let value: Value = result.0;
    let uri = value["file"]["uri"].as_str().filter(|u| !u.is_empty()).ok_or("the server's upload authorization has no file.uri")?.to_owned();
    let descriptor = &value["upload"];
    let url = checked_url(descriptor, server_is_local)?;
    let method = descriptor["method"].as_str().unwrap_or("PUT").to_ascii_uppercase();
    let client = client_for(&url, server_is_local).await?;
    let path = store.blob_path(&record.sha256);
    let file = tokio::fs::File::open(&path).await.map_err(|e| format!("{}: its file cannot be read: {e}", record.id))?;
    let body = reqwest::Body::wrap_stream(tokio_util::io::ReaderStream::with_capacity(file, 256 * 1024));
    let request = match method.as_str() {
        "PUT" => {
            let mut request = client.put(url.clone()).header(reqwest::header::CONTENT_LENGTH, record.size).body(body);
            for (name, value) in headers(descriptor) {
                request = request.header(name, value);
            }
            request
        }
        "POST" if descriptor.get("multipart").is_some() => {
            let multipart = &descriptor["multipart"];
            let field = multipart["fileField"].as_str().unwrap_or("file").to_owned();
            let mut form = reqwest::multipart::Form::new();
            for (name, value) in multipart["fields"].as_object().into_iter().flatten() {
                form = form.text(name.clone(), value.as_str().unwrap_or_default().to_owned());
            }
            let part = reqwest::multipart::Part::stream_with_length(body, record.size).file_name(record.name.clone()).mime_str(&record.mime).map_err(|e| e.to_string())?;
            let mut request = client.post(url.clone()).multipart(form.part(field, part));
            // The form sets its own Content-Type (with the boundary); other headers pass.
            for (name, value) in headers(descriptor).filter(|(n, _)| !n.eq_ignore_ascii_case("content-type")) {
                request = request.header(name, value);
            }
            request
        }
        other => return Err(format!("the server's upload descriptor asks for `{other}`; MCP Canvas uploads with PUT or a multipart POST")),
    };
    let response = tokio::time::timeout(limit, request.send())
        .await
        .map_err(|_| format!("uploading {} did not finish within {} s", record.name, limit.as_secs()))?
        .map_err(|e| format!("uploading {} to {} failed: {e}", record.name, shown(&url)))?;
    let status = response.status();
    if !status.is_success() {
        let said = first_bytes(response, 4096).await;
        let said: String = said.chars().take(200).collect();
        let why = if status.as_u16() == 422 || said.to_ascii_lowercase().contains("digest") { " (the bytes it got do not match their digest)" } else { "" };
        return Err(format!("uploading {} to {} was refused: HTTP {status}{why}: {said}", record.name, shown(&url)));
    }
    Ok(uri)
}

/// At most `max` bytes of an answer's body, for an error message (within 5 s).
async fn first_bytes(mut response: reqwest::Response, max: usize) -> String {
    let mut body = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while body.len() < max {
            match response.chunk().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(max - body.len())]),
                _ => break,
            }
        }
    })
    .await;
    String::from_utf8_lossy(&body).into_owned()
}

/// The descriptor's extra headers, without the ones the transfer itself decides.
pub(crate) fn headers(descriptor: &Value) -> impl Iterator<Item = (String, String)> + '_ {
    descriptor["headers"].as_object().into_iter().flatten().filter_map(|(name, value)| {
        let lower = name.to_ascii_lowercase();
        let reserved = ["host", "content-length", "transfer-encoding", "connection"].contains(&lower.as_str());
        (!reserved).then(|| value.as_str().map(|v| (name.clone(), v.to_owned()))).flatten()
    })
}

/// The URL without its query (tokens live there).
fn shown(url: &url::Url) -> String {
    format!("{}://{}{}", url.scheme(), url.host_str().unwrap_or(""), url.path())
}

/// The descriptor's URL, if it may be used: see the module's documentation.
pub fn checked_url(descriptor: &Value, server_is_local: bool) -> Result<url::Url, Refusal> {
    if let Some(transport) = descriptor["transport"].as_str().filter(|t| *t != "https") {
        return Err(format!("the server's upload descriptor uses transport `{transport}`; only https is supported"));
    }
    let text = descriptor["url"].as_str().ok_or("the server's upload descriptor has no url")?;
    let url = url::Url::parse(text).map_err(|e| format!("the server's upload URL is not a URL: {e}"))?;
    let host = url.host().ok_or("the server's upload URL has no host")?;
    let ip: Option<IpAddr> = match &host {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(*ip)),
        // `::ffff:10.0.0.5` is 10.0.0.5.
        url::Host::Ipv6(ip) => Some(IpAddr::V6(*ip).to_canonical()),
        url::Host::Domain(name) if is_localhost(name) => Some(IpAddr::from([127, 0, 0, 1])),
        url::Host::Domain(_) => None,
    };
    let loopback = ip.is_some_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" => {}
        "http" if loopback && server_is_local => {}
        "http" => return Err(format!("the server's upload URL {} is plain http; only https (or http to this machine, for a server on it) is allowed", shown(&url))),
        other => return Err(format!("the server's upload URL uses `{other}:`; only https is allowed")),
    }
    if let Some(ip) = ip {
        allowed_address(ip, server_is_local).map_err(|()| format!("the server's upload URL {} points into a private or local address range; refused", shown(&url)))?;
    }
    Ok(url)
}

fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// Whether a transfer may connect to `ip`: never a private, link-local, unspecified, NAT64 or
/// documentation address; loopback only for a server on this machine.
fn allowed_address(ip: IpAddr, server_is_local: bool) -> Result<(), ()> {
    let ip = ip.to_canonical();
    let private = match ip {
        IpAddr::V4(v4) => v4.is_private() || v4.is_link_local() || v4.is_unspecified() || v4.is_broadcast() || v4.is_documentation() || v4.octets()[0] == 100 && (64..128).contains(&v4.octets()[1]),
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_unspecified() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80 || (v6.segments()[..6] == [0x64, 0xff9b, 0, 0, 0, 0])
        }
    };
    if private || (ip.is_loopback() && !server_is_local) { Err(()) } else { Ok(()) }
}

/// A client for a transfer to `url`: no redirects; a named host is resolved here and every
/// address it has must pass [`allowed_address`], and the connection goes to the address checked
/// (so a name cannot resolve differently between the check and the connection).
pub(crate) async fn client_for(url: &url::Url, server_is_local: bool) -> Result<reqwest::Client, Refusal> {
    let mut builder = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).connect_timeout(Duration::from_secs(10));
    if let Some(url::Host::Domain(name)) = url.host() {
        if !is_localhost(name) {
            let port = url.port_or_known_default().unwrap_or(443);
            let addresses: Vec<std::net::SocketAddr> = tokio::net::lookup_host((name, port)).await.map_err(|e| format!("{name} cannot be resolved: {e}"))?.collect();
            if addresses.is_empty() || addresses.iter().any(|a| allowed_address(a.ip(), server_is_local).is_err()) {
                return Err(format!("{name} resolves into a private or local address range; refused"));
            }
            builder = builder.resolve_to_addrs(name, &addresses);
        }
    }
    builder.build().map_err(|e| format!("no HTTP client: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(url: &str, local: bool) -> Result<url::Url, Refusal> {
        checked_url(&json!({ "transport": "https", "method": "PUT", "url": url }), local)
    }

    #[test]
    fn upload_urls_are_checked_like_dashboard_origins() {
        assert!(check("https://files.example.com/u/1?token=x", false).is_ok());
        assert!(check("http://127.0.0.1:8123/upload/1", true).is_ok(), "a local server's loopback over http");
        assert!(check("http://localhost:8123/upload/1", true).is_ok());
        assert!(check("http://127.0.0.1:8123/upload/1", false).unwrap_err().contains("plain http"), "a remote server's loopback over http");
        assert!(check("https://127.0.0.1:8123/upload/1", false).unwrap_err().contains("private or local"), "a remote server's loopback");
        for loopback in ["https://[::ffff:127.0.0.1]:8443/u", "https://localhost./u", "https://x.localhost/u"] {
            assert!(check(loopback, false).unwrap_err().contains("private or local"), "{loopback}");
        }
        assert!(check("http://files.example.com/u/1", false).unwrap_err().contains("plain http"));
        assert!(check("http://files.example.com/u/1", true).unwrap_err().contains("plain http"), "http only to loopback");
        for private in [
            "https://10.0.0.1/u",
            "https://192.168.1.9/u",
            "https://169.254.169.254/latest",
            "https://[fd00::1]/u",
            "https://0.0.0.0/u",
            "https://100.64.0.1/u",
            "https://[::ffff:10.0.0.5]/u",
            "https://[64:ff9b::a00:5]/u",
        ] {
            assert!(check(private, true).unwrap_err().contains("private or local"), "{private}");
        }
        assert!(check("ftp://files.example.com/u", false).is_err());
        assert!(checked_url(&json!({ "transport": "s3", "url": "https://x.example/" }), false).unwrap_err().contains("only https"));
    }

    #[test]
    fn digests_are_base64url_without_padding() {
        // sha-256 of "abc".
        assert_eq!(digest_value("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    }
}

#[cfg(test)]
mod resolving {
    use super::*;

    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused_for_a_remote_server() {
        // `localhost` variants are caught by name; a name resolving to loopback by resolution.
        let url = url::Url::parse("https://ip6-localhost/u").unwrap();
        if tokio::net::lookup_host(("ip6-localhost", 443)).await.is_ok() {
            assert!(client_for(&url, false).await.unwrap_err().contains("private or local"));
        }
        let local = url::Url::parse("https://localhost/u").unwrap();
        assert!(client_for(&local, true).await.is_ok());
    }
}
