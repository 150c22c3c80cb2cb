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
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| format!("no HTTP client: {e}"))?;
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
        let said: String = response.text().await.unwrap_or_default().chars().take(200).collect();
        let why = if status.as_u16() == 422 || said.to_ascii_lowercase().contains("digest") { " (the bytes it got do not match their digest)" } else { "" };
        return Err(format!("uploading {} to {} was refused: HTTP {status}{why}: {said}", record.name, shown(&url)));
    }
    Ok(uri)
}

/// The descriptor's extra headers, without the ones the transfer itself decides.
fn headers(descriptor: &Value) -> impl Iterator<Item = (String, String)> + '_ {
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
        url::Host::Ipv6(ip) => Some(IpAddr::V6(*ip)),
        url::Host::Domain(name) if name.eq_ignore_ascii_case("localhost") => Some(IpAddr::from([127, 0, 0, 1])),
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
        let private = match ip {
            IpAddr::V4(v4) => v4.is_private() || v4.is_link_local() || v4.is_unspecified() || v4.is_broadcast() || v4.is_documentation() || v4.octets()[0] == 100 && (64..128).contains(&v4.octets()[1]),
            IpAddr::V6(v6) => v6.is_unspecified() || (v6.segments()[0] & 0xfe00) == 0xfc00 || (v6.segments()[0] & 0xffc0) == 0xfe80,
        };
        if private || (ip.is_loopback() && !server_is_local) {
            return Err(format!("the server's upload URL {} points into a private or local address range; refused", shown(&url)));
        }
    }
    Ok(url)
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
        assert!(check("http://files.example.com/u/1", false).unwrap_err().contains("plain http"));
        assert!(check("http://files.example.com/u/1", true).unwrap_err().contains("plain http"), "http only to loopback");
        for private in ["https://10.0.0.1/u", "https://192.168.1.9/u", "https://169.254.169.254/latest", "https://[fd00::1]/u", "https://0.0.0.0/u", "https://100.64.0.1/u"] {
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
