//! The S3 requests object_store does not make, signed with its own SigV4 signer
//! ([`AwsAuthorizer`]) and sent with its HTTP client:
//!
//! - **completing a multipart upload create-only** (`CompleteMultipartUpload` with
//!   `If-None-Match: *`): a large blob's parts go up with object_store (`MultipartStore::put_part`,
//!   each with its `x-amz-checksum-sha256`) straight at the blob's key, and only this request
//!   places them; object_store completes an upload unconditionally;
//! - **unfinished multipart uploads** listed (`ListMultipartUploads`) and aborted, for retention
//!   on servers without lifecycle rules.

use object_store::{
    aws::{AmazonS3, AwsAuthorizer},
    client::{HttpClient, HttpConnector, HttpRequest, HttpRequestBody, ReqwestConnector},
    multipart::PartId,
    path::Path as Key,
    ClientOptions,
};

/// Tries of a completion (connection lost, server error): object_store's retries cover the
/// rest of an upload.
const COMPLETE_TRIES: u32 = 3;

/// Raw signed requests to the bucket.
#[derive(Clone)]
pub(crate) struct Raw {
    http: HttpClient,
    store: std::sync::Arc<AmazonS3>,
    region: String,
    /// `https://s3.<region>.amazonaws.com/<bucket>` or `<endpoint>/<bucket>` (path style, as
    /// object_store addresses it).
    base: String,
}

/// An upload the bucket has not completed.
#[derive(Debug, Clone, PartialEq)]
pub struct Unfinished {
    /// Its key.
    pub key: String,
    /// Its upload id.
    pub upload_id: String,
    /// When it was started, milliseconds since the Unix epoch (`None`: unreadable).
    pub initiated_ms: Option<i64>,
}

impl Raw {
    pub(crate) fn new(store: std::sync::Arc<AmazonS3>, options: &ClientOptions, region: &str, endpoint: Option<&str>, bucket: &str) -> Result<Self, object_store::Error> {
        let http = ReqwestConnector::default().connect(options)?;
        let base = match endpoint {
            Some(endpoint) => format!("{}/{bucket}", endpoint.trim_end_matches('/')),
            None => format!("https://s3.{region}.amazonaws.com/{bucket}"),
        };
        Ok(Self { http, store, region: region.to_owned(), base })
    }

    /// One signed request; `signed_digest`: the SHA-256 the signature states for the body
    /// (`None`: the body's own).
    async fn send(&self, method: http::Method, key: Option<&Key>, query: &[(&str, &str)], headers: &[(&str, String)], body: Vec<u8>, signed_digest: Option<&[u8]>) -> Result<(http::StatusCode, String), String> {
        let mut url = match key {
            Some(key) => format!("{}/{}", self.base, encode(key.as_ref(), false)),
            None => self.base.clone(),
        };
        for (i, (k, v)) in query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(&encode(k, true));
            if !v.is_empty() || *k != "uploads" {
                url.push('=');
                url.push_str(&encode(v, true));
            }
        }
        let mut builder = http::Request::builder().method(method).uri(&url);
        for (name, value) in headers {
            builder = builder.header(*name, value);
        }
        let mut request: HttpRequest = builder.body(HttpRequestBody::from(body)).map_err(|e| e.to_string())?;
        let credential = self.store.credentials().get_credential().await.map_err(|e| e.to_string())?;
        AwsAuthorizer::new(&credential, "s3", &self.region).try_authorize(&mut request, signed_digest).map_err(|e| e.to_string())?;
        let response = self.http.execute(request).await.map_err(|e| {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                text.push_str(": ");
                text.push_str(&s.to_string());
                source = s.source();
            }
            text
        })?;
        let status = response.status();
        let body = response.into_body().bytes().await.map_err(|e| e.to_string())?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }

    /// Completes upload `upload_id` at `key` from its `parts` (in order, as
    /// `MultipartStore::put_part` returned them) only if `key` does not exist yet.
    /// `Ok(false)`: it existed, or another completion at the same key is under way (nothing of
    /// ours was placed; the upload is left for the caller to abort).
    pub(crate) async fn complete_create_only(&self, key: &Key, upload_id: &str, parts: &[PartId]) -> Result<bool, String> {
        let mut xml = String::from("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
        for (i, part) in parts.iter().enumerate() {
            let (etag, checksum) = part_fields(part);
            xml.push_str(&format!("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag>", i + 1, escape(&etag)));
            if let Some(checksum) = checksum {
                xml.push_str(&format!("<ChecksumSHA256>{}</ChecksumSHA256>", escape(&checksum)));
            }
            xml.push_str("</Part>");
        }
        xml.push_str("</CompleteMultipartUpload>");
        let body = xml.into_bytes();
        // A connection lost or a server error (5xx, or S3's 200 with `InternalError` in the body)
        // is tried again: giving up would abort every part sent. A try after one whose answer
        // was lost finds the object there (412): the bytes are placed either way.
        for attempt in 1..=COMPLETE_TRIES {
            let last = attempt == COMPLETE_TRIES;
            let (status, answer) = match self.send(http::Method::POST, Some(key), &[("uploadId", upload_id)], &[("If-None-Match", "*".into())], body.clone(), None).await {
                Ok(answered) => answered,
                Err(_) if !last => {
                    tokio::time::sleep(std::time::Duration::from_secs(attempt as u64)).await;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let server_error = status.is_server_error() || answer.contains("<Code>InternalError</Code>") || answer.contains("<Code>SlowDown</Code>");
            match status.as_u16() {
                // S3 may answer 200 with an error in the body.
                200 if !answer.contains("<Error>") => return Ok(true),
                412 => return Ok(false),
                // Some servers answer a create-only write onto an existing object this way.
                _ if answer.contains("PreconditionFailed") || answer.contains("AlreadyExists") => return Ok(false),
                _ if server_error && !last => tokio::time::sleep(std::time::Duration::from_secs(attempt as u64)).await,
                _ => return Err(format!("CompleteMultipartUpload of {key}: {status} {}", short(&answer))),
            }
        }
        unreachable!("the last try returns")
    }

    /// The bucket's unfinished multipart uploads under `prefix`; `None` when the server does not
    /// list them (s3s-fs answers `ListMultipartUploads` with 501 NotImplemented).
    pub(crate) async fn unfinished(&self, prefix: &str) -> Result<Option<Vec<Unfinished>>, String> {
        let mut found = Vec::new();
        let (mut key_marker, mut id_marker) = (String::new(), String::new());
        loop {
            let mut query = vec![("uploads", ""), ("prefix", prefix)];
            if !key_marker.is_empty() {
                query.push(("key-marker", &key_marker));
                query.push(("upload-id-marker", &id_marker));
            }
            let (status, body) = self.send(http::Method::GET, None, &query, &[], Vec::new(), None).await?;
            if status.as_u16() == 501 || (!status.is_success() && body.contains("NotImplemented")) {
                return Ok(None);
            }
            if !status.is_success() {
                return Err(format!("ListMultipartUploads: {status} {}", short(&body)));
            }
            for upload in body.split("<Upload>").skip(1) {
                let upload = upload.split("</Upload>").next().unwrap_or("");
                if let (Some(key), Some(upload_id)) = (element(upload, "Key"), element(upload, "UploadId")) {
                    found.push(Unfinished { key, upload_id, initiated_ms: element(upload, "Initiated").as_deref().and_then(parse_time_ms) });
                }
            }
            if element(&body, "IsTruncated").as_deref() != Some("true") {
                return Ok(Some(found));
            }
            match (element(&body, "NextKeyMarker"), element(&body, "NextUploadIdMarker")) {
                (Some(k), Some(i)) if k != key_marker || i != id_marker => (key_marker, id_marker) = (k, i),
                _ => return Ok(Some(found)),
            }
        }
    }

    /// Sends part `number` of an upload with its checksum header and a signature stating
    /// `signed_digest` as the body's SHA-256, for tests of what a server refuses.
    #[cfg(test)]
    pub(crate) async fn put_part_raw(&self, key: &Key, upload_id: &str, number: u32, body: Vec<u8>, checksum: String, signed_digest: &[u8]) -> Result<(http::StatusCode, String), String> {
        let number = number.to_string();
        self.send(http::Method::PUT, Some(key), &[("partNumber", &number), ("uploadId", upload_id)], &[("x-amz-checksum-sha256", checksum)], body, Some(signed_digest)).await
    }

    /// Aborts an unfinished upload (its parts are deleted).
    pub(crate) async fn abort(&self, key: &str, upload_id: &str) -> Result<(), String> {
        let (status, body) = self.send(http::Method::DELETE, Some(&Key::from(key)), &[("uploadId", upload_id)], &[], Vec::new(), None).await?;
        if status.is_success() || status.as_u16() == 404 {
            Ok(())
        } else {
            Err(format!("AbortMultipartUpload of {key}: {status} {}", short(&body)))
        }
    }
}

/// The ETag and SHA-256 checksum of an uploaded part. object_store keeps both in its `PartId`
/// as a small XML document when a checksum algorithm is configured (`<e_tag>`,
/// `<checksum_sha256>`, the latter when the server echoed it), else the bare ETag.
fn part_fields(part: &PartId) -> (String, Option<String>) {
    let id = &part.content_id;
    match element(id, "e_tag") {
        Some(etag) => (etag, element(id, "checksum_sha256")),
        None => (id.clone(), None),
    }
}

/// Percent-encoding as SigV4 wants it: unreserved characters kept, `/` kept in paths.
fn encode(text: &str, query: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(byte as char),
            b'/' if !query => out.push('/'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The text of the first `<name>` element, XML entities decoded.
fn element(xml: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let from = xml.find(&open)? + open.len();
    let to = xml[from..].find(&format!("</{name}>"))? + from;
    Some(xml[from..to].replace("&quot;", "\"").replace("&#34;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&apos;", "'").replace("&amp;", "&"))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An error body's code and message only (it may hold the access key id or the signed string).
fn short(body: &str) -> String {
    match (element(body, "Code"), element(body, "Message")) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code,
        _ => body.chars().take(200).filter(|c| !c.is_control()).collect(),
    }
}

/// `2026-11-27T14:03:05.000Z` (S3's ISO 8601) as milliseconds since the Unix epoch.
fn parse_time_ms(text: &str) -> Option<i64> {
    let (date, time) = text.trim().split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>());
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let time = time.trim_end_matches('Z');
    let time = time.split(['+']).next()?;
    let mut t = time.split(':');
    let (h, min) = (t.next()?.parse::<i64>().ok()?, t.next()?.parse::<i64>().ok()?);
    let seconds: f64 = t.next()?.parse().ok()?;
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + min * 60) as f64 * 1000.0 + seconds * 1000.0) as i64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn s3_times_parse() {
        assert_eq!(super::parse_time_ms("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(super::parse_time_ms("2026-11-27T14:03:05.000Z"), Some(1_795_788_185_000));
        assert_eq!(super::parse_time_ms("garbage"), None);
    }

    #[test]
    fn a_parts_etag_and_checksum_are_read_from_object_stores_part_id() {
        let part = |id: &str| super::part_fields(&object_store::multipart::PartId { content_id: id.into() });
        let with = "<PartMetadata><e_tag>&quot;0a1b&quot;</e_tag><checksum_sha256>q83v7w==</checksum_sha256></PartMetadata>";
        assert_eq!(part(with), ("\"0a1b\"".to_owned(), Some("q83v7w==".to_owned())));
        assert_eq!(part("<PartMetadata><e_tag>&quot;0a1b&quot;</e_tag></PartMetadata>"), ("\"0a1b\"".to_owned(), None));
        assert_eq!(part("\"0a1b\""), ("\"0a1b\"".to_owned(), None));
    }

    #[test]
    fn elements_decode_entities() {
        assert_eq!(super::element("<ETag>&quot;abc&quot;</ETag>", "ETag").as_deref(), Some("\"abc\""));
        assert_eq!(super::encode("a b/c+d=", true), "a%20b%2Fc%2Bd%3D");
        assert_eq!(super::encode("p/uploads/x.y", false), "p/uploads/x.y");
    }
}
