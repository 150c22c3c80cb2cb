//! The S3 requests object_store does not make, signed with its own SigV4 signer
//! ([`AwsAuthorizer`]) and sent with its HTTP client:
//!
//! - **ranged part copies** (`UploadPartCopy` with `x-amz-copy-source-range`), so a staged blob
//!   larger than one copy's limit (S3: 5 GiB) is placed at its final key in several parts, the
//!   upload completed create-only (`If-None-Match: *`); object_store's `copy_if_not_exists`
//!   copies in one part;
//! - **unfinished multipart uploads** listed (`ListMultipartUploads`) and aborted, for retention
//!   on servers without lifecycle rules.

use futures_util::{StreamExt, TryStreamExt};
use object_store::{
    aws::{AmazonS3, AwsAuthorizer},
    client::{HttpClient, HttpConnector, HttpRequest, HttpRequestBody, ReqwestConnector},
    path::Path as Key,
    ClientOptions,
};

/// S3's limit for one `UploadPartCopy`.
pub const MAX_COPY_PART: u64 = 5 << 30;

/// Part copies in flight at once.
const COPIES_IN_FLIGHT: usize = 4;

/// Raw signed requests to the bucket.
#[derive(Clone)]
pub(crate) struct Raw {
    http: HttpClient,
    store: std::sync::Arc<AmazonS3>,
    region: String,
    /// `https://s3.<region>.amazonaws.com/<bucket>` or `<endpoint>/<bucket>` (path style, as
    /// object_store addresses it).
    base: String,
    bucket: String,
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
        Ok(Self { http, store, region: region.to_owned(), base, bucket: bucket.to_owned() })
    }

    async fn send(&self, method: http::Method, key: Option<&Key>, query: &[(&str, &str)], headers: &[(&str, String)], body: Vec<u8>) -> Result<(http::StatusCode, String), String> {
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
        AwsAuthorizer::new(&credential, "s3", &self.region).try_authorize(&mut request, None).map_err(|e| e.to_string())?;
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

    /// Places `from` (`size` bytes) at `to` in ranged part copies of at most `part` bytes, the
    /// upload completed only if `to` does not exist. `Ok(false)`: it existed (nothing changed).
    pub(crate) async fn copy_in_parts(&self, from: &Key, to: &Key, size: u64, part: u64) -> Result<bool, String> {
        let part = part.clamp(1, MAX_COPY_PART);
        let (status, body) = self.send(http::Method::POST, Some(to), &[("uploads", "")], &[], Vec::new()).await?;
        let upload_id = match (status.is_success(), element(&body, "UploadId")) {
            (true, Some(id)) => id,
            _ => return Err(format!("CreateMultipartUpload of {to}: {status} {}", short(&body))),
        };
        let placed = async {
            let source = format!("{}/{}", self.bucket, encode(from.as_ref(), false));
            let ranges: Vec<(u64, u64)> = (0..size.div_ceil(part)).map(|i| (i * part, ((i + 1) * part).min(size) - 1)).collect();
            let etags: Vec<String> = futures_util::stream::iter(ranges.into_iter().enumerate())
                .map(|(i, (first, last))| {
                    let (source, upload_id) = (source.clone(), upload_id.clone());
                    async move {
                        let number = (i + 1).to_string();
                        let headers = [("x-amz-copy-source", source), ("x-amz-copy-source-range", format!("bytes={first}-{last}"))];
                        let (status, body) = self.send(http::Method::PUT, Some(to), &[("partNumber", &number), ("uploadId", &upload_id)], &headers, Vec::new()).await?;
                        match (status.is_success(), element(&body, "ETag")) {
                            (true, Some(etag)) => Ok(etag),
                            _ => Err(format!("UploadPartCopy {number} ({first}-{last}) of {to}: {status} {}", short(&body))),
                        }
                    }
                })
                .buffered(COPIES_IN_FLIGHT)
                .try_collect()
                .await?;
            let mut xml = String::from("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
            for (i, etag) in etags.iter().enumerate() {
                xml.push_str(&format!("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1, escape(etag)));
            }
            xml.push_str("</CompleteMultipartUpload>");
            let (status, body) = self.send(http::Method::POST, Some(to), &[("uploadId", &upload_id)], &[("If-None-Match", "*".into())], xml.into_bytes()).await?;
            match status.as_u16() {
                // S3 may answer 200 with an error in the body.
                200 if !body.contains("<Error>") => Ok(true),
                412 => Ok(false),
                // A concurrent completion at the same key (S3 asks to retry; the blob is there
                // or will be): the caller sees it exists on its next look.
                409 => Ok(false),
                _ => Err(format!("CompleteMultipartUpload of {to}: {status} {}", short(&body))),
            }
        }
        .await;
        if !matches!(placed, Ok(true)) {
            let _ = self.abort(to.as_ref(), &upload_id).await;
        }
        placed
    }

    /// The bucket's unfinished multipart uploads under `prefix`.
    pub(crate) async fn unfinished(&self, prefix: &str) -> Result<Vec<Unfinished>, String> {
        let mut found = Vec::new();
        let (mut key_marker, mut id_marker) = (String::new(), String::new());
        loop {
            let mut query = vec![("uploads", ""), ("prefix", prefix)];
            if !key_marker.is_empty() {
                query.push(("key-marker", &key_marker));
                query.push(("upload-id-marker", &id_marker));
            }
            let (status, body) = self.send(http::Method::GET, None, &query, &[], Vec::new()).await?;
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
                return Ok(found);
            }
            match (element(&body, "NextKeyMarker"), element(&body, "NextUploadIdMarker")) {
                (Some(k), Some(i)) if k != key_marker || i != id_marker => (key_marker, id_marker) = (k, i),
                _ => return Ok(found),
            }
        }
    }

    /// Aborts an unfinished upload (its parts are deleted).
    pub(crate) async fn abort(&self, key: &str, upload_id: &str) -> Result<(), String> {
        let (status, body) = self.send(http::Method::DELETE, Some(&Key::from(key)), &[("uploadId", upload_id)], &[], Vec::new()).await?;
        if status.is_success() || status.as_u16() == 404 {
            Ok(())
        } else {
            Err(format!("AbortMultipartUpload of {key}: {status} {}", short(&body)))
        }
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
    fn elements_decode_entities() {
        assert_eq!(super::element("<ETag>&quot;abc&quot;</ETag>", "ETag").as_deref(), Some("\"abc\""));
        assert_eq!(super::encode("a b/c+d=", true), "a%20b%2Fc%2Bd%3D");
        assert_eq!(super::encode("p/uploads/x.y", false), "p/uploads/x.y");
    }
}
