//! SEP-2631 file *outputs* (same revision as [`super::upload`]): a tool's result may name files
//! by file value, `{uri, name?, mimeType?, size?, digest?}`, in its `structuredContent`, instead
//! of sending their bytes. Each one with a sha-256 digest (how it is recognized: the digest is
//! what makes it checkable) is asked for with `files/authorizeDownload {uri}`, fetched from the
//! URL the server hands out (checked like an upload URL, no redirects), bounded by its declared
//! size, checked against its digest while it is written into the store, and stored like any
//! other artifact of the call. A file that does not match is not stored, and the call says so.

use std::{sync::Arc, time::Duration};

use base64::Engine as _;
use futures_util::StreamExt as _;
use mcp_canvas_store::{ArtifactRecord, ArtifactStore, NewArtifact, Persistence};
use rmcp::{
    model::{ClientRequest, CustomRequest, ServerResult},
    Peer, RoleClient,
};
use serde_json::{json, Value};

use super::Refusal;

/// At most this many file values are fetched from one result.
const MAX_FILES: usize = 16;
/// The largest file fetched when the value declares no size.
const MAX_DOWNLOAD_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// A file value found in a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    /// Its file URI.
    pub uri: String,
    /// The whole value, as the server gave it.
    pub value: Value,
}

/// The file values in `structured` (depth-first, at most [`MAX_FILES`], 32 levels deep).
pub fn offered(structured: Option<&Value>) -> Vec<Offered> {
    fn walk(value: &Value, depth: usize, out: &mut Vec<Offered>) {
        if depth > 32 || out.len() >= MAX_FILES {
            return;
        }
        match value {
            Value::Object(map) => {
                let uri = map.get("uri").and_then(Value::as_str);
                let sha = map.get("digest").and_then(|d| d.get("algorithm")).and_then(Value::as_str) == Some("sha-256");
                match uri {
                    Some(uri) if sha && !uri.starts_with("data:") && !uri.starts_with("http:") && !uri.starts_with("https:") => {
                        out.push(Offered { uri: uri.to_owned(), value: value.clone() })
                    }
                    _ => map.values().for_each(|v| walk(v, depth + 1, out)),
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, depth + 1, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(value) = structured {
        walk(value, 0, &mut out);
    }
    out
}

/// Fetches and stores one offered file for the call `call_id` of `server`/`tool`.
#[allow(clippy::too_many_arguments)]
pub async fn fetch(peer: &Peer<RoleClient>, server_is_local: bool, store: &Arc<ArtifactStore>, offered: &Offered, server: &str, tool: &str, call_id: &str, session_id: &str, limit: Duration) -> Result<ArtifactRecord, Refusal> {
    let request = ClientRequest::CustomRequest(CustomRequest::new("files/authorizeDownload", Some(json!({ "uri": offered.uri }))));
    let answer = tokio::time::timeout(limit, peer.send_request(request))
        .await
        .map_err(|_| format!("the server did not authorize the download of {} within {} s", offered.uri, limit.as_secs()))?
        .map_err(|e| format!("the server refused to hand out {}: {e}", offered.uri))?;
    let ServerResult::CustomResult(result) = answer else { return Err("the server answered files/authorizeDownload with something else than its result".into()) };
    let value: Value = result.0;
    // The authorization's file value is authoritative; the result's fills what it leaves out.
    let file = if value["file"].is_object() { &value["file"] } else { &offered.value };
    let field = |key: &str| file.get(key).or_else(|| offered.value.get(key));
    let expected = field("digest").and_then(|d| d.get("value")).and_then(Value::as_str).and_then(|v| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(v.trim_end_matches('=')).ok());
    let Some(expected) = expected.filter(|d| d.len() == 32) else { return Err(format!("{} has no sha-256 digest to check it against", offered.uri)) };
    let declared_size = field("size").and_then(Value::as_u64);
    let bound = declared_size.unwrap_or(MAX_DOWNLOAD_BYTES).min(MAX_DOWNLOAD_BYTES);
    let name = field("name").and_then(Value::as_str).filter(|n| !n.is_empty()).unwrap_or("file").to_owned();
    let mime = mcp_canvas_contract::media_type_or_octet_stream(field("mimeType").and_then(Value::as_str).unwrap_or(""));
    let descriptor = &value["download"];
    if descriptor["method"].as_str().is_some_and(|m| !m.eq_ignore_ascii_case("GET")) {
        return Err(format!("the download of {} asks for `{}`; only GET is supported", offered.uri, descriptor["method"]));
    }
    let url = super::upload::checked_url(descriptor, server_is_local)?;
    let client = super::upload::client_for(&url, server_is_local).await?;
    let mut request = client.get(url.clone());
    for (name, value) in super::upload::headers(descriptor) {
        request = request.header(name, value);
    }
    let response = tokio::time::timeout(limit, request.send())
        .await
        .map_err(|_| format!("downloading {name} did not start within {} s", limit.as_secs()))?
        .map_err(|e| format!("downloading {name} failed: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("downloading {name} was refused: HTTP {}", response.status()));
    }
    // Written into a spill file of the store on a blocking thread while it arrives.
    let (sender, mut receiver) = tokio::sync::mpsc::channel::<bytes::Bytes>(4);
    let writer_store = store.clone();
    let writer = tokio::task::spawn_blocking(move || -> Result<mcp_canvas_store::SpillFile, String> {
        let mut spill = writer_store.start_spill().map_err(|e| e.to_string())?;
        while let Some(chunk) = receiver.blocking_recv() {
            spill.write(&chunk).map_err(|e| e.to_string())?;
        }
        Ok(spill)
    });
    let mut stream = response.bytes_stream();
    let mut received = 0u64;
    let mut failure = None;
    while let Some(chunk) = tokio::time::timeout(limit, stream.next()).await.map_err(|_| format!("downloading {name} stalled for {} s", limit.as_secs()))? {
        match chunk {
            Ok(chunk) => {
                received += chunk.len() as u64;
                if received > bound {
                    failure = Some(format!("{name} is larger than the {bound} bytes it was declared (or allowed) to be; not stored"));
                    break;
                }
                if sender.send(chunk).await.is_err() {
                    break;
                }
            }
            Err(e) => {
                failure = Some(format!("downloading {name} failed: {e}"));
                break;
            }
        }
    }
    drop(sender);
    let spill = writer.await.map_err(|e| format!("writing {name} panicked: {e}"))??;
    if let Some(failure) = failure {
        drop(spill); // removes its file
        return Err(failure);
    }
    if declared_size.is_some_and(|size| size != received) {
        drop(spill); // removes its file
        return Err(format!("{name}: {received} bytes arrived, {} were declared; not stored", declared_size.unwrap_or(0)));
    }
    if spill.digest_so_far()[..] != expected[..] {
        drop(spill); // removes its file
        return Err(format!("{name} does not match its sha-256 digest; not stored"));
    }
    let (store, owned) = (store.clone(), [name.clone(), mime, server.to_owned(), tool.to_owned(), call_id.to_owned(), session_id.to_owned()]);
    tokio::task::spawn_blocking(move || {
        let [name, mime, server, tool, call_id, session_id] = &owned;
        let new = NewArtifact { name, mime, server, tool, call_id, session_id, description: None, persistence: Persistence::Session, now_ms: crate::Host::now_ms() };
        store.put_spilled(new, spill, &[])
    })
    .await
        .map_err(|e| format!("storing {name} panicked: {e}"))?
        .map_err(|e| format!("storing {name}: {e}"))
}
