//! MCP resources (RFC 003 §2.4, §3.5): a server's resources and resource templates, and reading
//! one into the artifact store.
//!
//! A read goes through the same path as a tool result: the contents are wrapped as embedded
//! `resource` blocks and handed to the contract's normalizer, so names come from the URI, declared
//! MIME types are checked against the bytes, text and blobs are streamed into the store, and the
//! outcome carries the same bounded, model-safe summary as a call. Reads are audited as the pseudo
//! tool `resources/read`.
//!
//! `resource_link` blocks in a tool result reach the outcome as texts (`Resource link: name <uri>`);
//! [`resource_links`] finds them again so a front end can offer reading them with
//! [`Host::read_resource`]. [`Host::watch_resource`] says when one changed (`subscriptions/listen`
//! on 2026-07-28, `resources/subscribe` before).

use rmcp::{
    model::{ErrorCode, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult, Resource, ResourceTemplate},
    ServiceError,
};
use serde_json::{json, Value};

use mcp_canvas_client::{ResourceWatch, ServerConnection};

use crate::{audit, error::HostError, host::Host, ids};

use mcp_canvas_wire::offers::{ResourceList, ResourceRead, ResourceTemplateView, ResourceView};

/// The name reads are stored and audited under (the `tool` of their artifacts and audit rows).
pub const READ_RESOURCE_TOOL: &str = "resources/read";
/// More pages than this from one listing means the server's cursor never ends.
const MAX_PAGES: usize = 1000;

impl Host {
    /// The resources and resource templates of `server` (all pages), connecting first if needed.
    /// A server without the `resources` capability gives empty lists with `supported: false`.
    pub async fn resources(&self, server: &str) -> Result<ResourceList, HostError> {
        let (supported, resources, templates) = match self.resource_definitions(server).await? {
            Some((resources, templates)) => (true, resources, templates),
            None => (false, Vec::new(), Vec::new()),
        };
        Ok(ResourceList {
            server: server.to_owned(),
            supported,
            resources: resources
                .into_iter()
                .map(|r| ResourceView { uri: r.uri, name: r.name, title: r.title, description: r.description, mime: listed_mime(r.mime_type), size: r.size })
                .collect(),
            templates: templates
                .into_iter()
                .map(|t| ResourceTemplateView { uri_template: t.uri_template, name: t.name, title: t.title, description: t.description, mime: listed_mime(t.mime_type) })
                .collect(),
        })
    }

    /// The resources and templates of `server` exactly as it lists them (all pages), or `None`
    /// when it has no `resources` capability. For front ends that pass them on (the proxy).
    pub async fn resource_definitions(&self, server: &str) -> Result<Option<(Vec<Resource>, Vec<ResourceTemplate>)>, HostError> {
        let connection = self.connection(server).await?;
        let supported = connection.peer.peer_info().is_some_and(|info| info.capabilities.resources.is_some());
        if !supported {
            return Ok(None);
        }
        let timeout = self.call_timeout;
        let listing = async {
            let resources = paginate(&connection, "listing resources", |cursor| async {
                let page = connection.peer.list_resources(Some(PaginatedRequestParams::default().with_cursor(cursor))).await?;
                Ok((page.resources, page.next_cursor))
            })
            .await?;
            let templates = paginate(&connection, "listing resource templates", |cursor| async {
                let page = connection.peer.list_resource_templates(Some(PaginatedRequestParams::default().with_cursor(cursor))).await;
                match page {
                    Ok(page) => Ok((page.resource_templates, page.next_cursor)),
                    // Templates are optional: a server that has none may not know the method.
                    Err(ServiceError::McpError(e)) if e.code == ErrorCode::METHOD_NOT_FOUND => Ok((Vec::new(), None)),
                    Err(e) => Err(e),
                }
            })
            .await?;
            Ok::<_, HostError>((resources, templates))
        };
        let listed = tokio::time::timeout(timeout, listing)
            .await
            .map_err(|_| HostError::Timeout { server: server.to_owned(), tool: "resources/list".to_owned(), seconds: timeout.as_secs() })??;
        Ok(Some(listed))
    }

    /// Reads `uri` from `server` and returns its contents as the server sent them, without
    /// storing anything: for front ends that pass them on (the proxy). Bounded by the call timeout.
    pub async fn read_resource_contents(&self, server: &str, uri: &str) -> Result<ReadResourceResult, HostError> {
        let connection = self.connection(server).await?;
        let what = format!("reading resource `{uri}`");
        match tokio::time::timeout(self.call_timeout, connection.peer.read_resource(ReadResourceRequestParams::new(uri))).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(HostError::from(connection.service_error(&what, &e))),
            Err(_) => Err(HostError::Timeout { server: server.to_owned(), tool: format!("{READ_RESOURCE_TOOL} {uri}"), seconds: self.call_timeout.as_secs() }),
        }
    }

    /// Watches `uri` on `server`: [`ResourceWatch::changed`] returns each time the server says it
    /// changed (read it again with [`Host::read_resource`]); ends with the connection. Fails when
    /// the server does not offer resource subscriptions. Bounded by the call timeout.
    pub async fn watch_resource(&self, server: &str, uri: &str) -> Result<ResourceWatch, HostError> {
        let connection = self.connection(server).await?;
        match tokio::time::timeout(self.call_timeout, connection.watch_resource(uri)).await {
            Ok(watch) => Ok(watch?),
            Err(_) => Err(HostError::Timeout { server: server.to_owned(), tool: format!("watching {uri}"), seconds: self.call_timeout.as_secs() }),
        }
    }

    /// Reads `uri` from `server` and stores each of its contents (text or blob) as an artifact,
    /// named from the URI, its declared MIME type checked against the bytes. The outcome's
    /// summary is model-safe, as for a tool call. The read is audited as `resources/read`.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<ResourceRead, HostError> {
        let started_ms = Self::now_ms();
        let read_id = ids::fresh("read");
        let result = match self.connection(server).await {
            Ok(connection) => self.read_unaudited(&connection, uri, &read_id).await,
            Err(e) => Err(e),
        };
        let stored = result.as_ref().map(|read| read.outcome.artifacts.iter().map(|a| a.id.clone()).collect());
        audit::audit_read(self, &read_id, server, READ_RESOURCE_TOOL, &json!({ "uri": uri }), started_ms, stored).await;
        result
    }

    async fn read_unaudited(&self, connection: &ServerConnection, uri: &str, read_id: &str) -> Result<ResourceRead, HostError> {
        let server = connection.name.as_str();
        let what = || format!("reading resource `{uri}`");
        let supported = connection.peer.peer_info().is_some_and(|info| info.capabilities.resources.is_some());
        if !supported {
            return Err(HostError::from(connection.request_error(&what(), "the server does not offer resources (no `resources` capability)".to_owned())));
        }
        let request = connection.peer.read_resource(ReadResourceRequestParams::new(uri));
        let result = match tokio::time::timeout(self.call_timeout, request).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => return Err(HostError::from(connection.service_error(&what(), &e))),
            Err(_) => return Err(HostError::Timeout { server: server.to_owned(), tool: format!("{READ_RESOURCE_TOOL} {uri}"), seconds: self.call_timeout.as_secs() }),
        };
        let contents = array_field(result, "contents");
        let empty = contents.is_empty();
        // Each content is exactly an embedded resource's `resource`: the contract's path for those
        // names it from the URI, checks its MIME type against the bytes and queues it for storing.
        // A URI whose last segment has no extension (`demo://notes/scratch`) names the file by
        // that segment; the contract adds the extension of its MIME type.
        let content: Vec<Value> = contents.into_iter().map(|resource| json!({ "type": "resource", "resource": with_name(resource) })).collect();
        let raw = json!({ "content": content });
        let mut outcome = self.store_result(server, READ_RESOURCE_TOOL, raw, None, read_id).await?;
        if empty {
            outcome.warnings.push(format!("server `{server}` returned no contents for `{uri}`"));
        }
        Ok(ResourceRead { read_id: read_id.to_owned(), server: server.to_owned(), uri: uri.to_owned(), outcome })
    }
}

/// The array `field` of a result as JSON (`contents` of a read, `messages` of a prompt), the
/// result itself dropped; empty when it has none.
pub(crate) fn array_field(result: impl serde::Serialize, field: &str) -> Vec<Value> {
    match serde_json::to_value(result) {
        Ok(Value::Object(mut map)) => match map.remove(field) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `resource` (a read's content, a prompt's embedded resource) with a `name` from its URI when
/// the server gave none: [`uri_label`], and the extension of its MIME type (a text's without one:
/// `.txt`) when the label has none. (A URI whose last segment has an extension is named by that segment in the contract.)
pub(crate) fn with_name(mut resource: Value) -> Value {
    if let Value::Object(map) = &mut resource {
        if !map.contains_key("name") {
            if let Some(label) = map.get("uri").and_then(Value::as_str).and_then(uri_label) {
                // A text without a type is stored as text/plain (the contract's rule).
                let mime = map.get("mimeType").and_then(Value::as_str).or_else(|| map.get("text").is_some().then_some("text/plain"));
                let name = match mime {
                    Some(mime) if !label.contains('.') => format!("{label}.{}", mcp_canvas_contract::extension_for(mime)),
                    _ => label,
                };
                map.insert("name".to_owned(), Value::String(name));
            }
        }
    }
    resource
}

/// What a resource is called after its URI: the last segment of its path (`demo://notes/scratch`
/// → `scratch`). A last segment that is no word — an id or values, no letter in it (`1`,
/// `3,1,4`, `2024-05-01`) — names nothing by itself, and two resources of one server ending in
/// the same id (`demo://items/1`, `demo://users/1`) would share a label: it is prefixed with the
/// segments before it, the host's included, back to one that is a word (`items-1`, `users-1`).
/// An opaque URI (`urn:isbn:123`) is what follows its scheme (`isbn-123`). `None` when nothing is
/// left (`demo://`).
pub(crate) fn uri_label(uri: &str) -> Option<String> {
    let uri = uri.split(['?', '#']).next().unwrap_or_default();
    let after_scheme = match uri.split_once(':') {
        Some((scheme, rest)) if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) => rest,
        _ => uri,
    };
    let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().replace(['/', '\\'], "-");
    let segments: Vec<String> = match after_scheme.strip_prefix("//") {
        // The host first, then the path.
        Some(hierarchical) => hierarchical.split('/').filter(|s| !s.is_empty()).map(decode).collect(),
        None if after_scheme.contains('/') => after_scheme.split('/').filter(|s| !s.is_empty()).map(decode).collect(),
        None => vec![decode(after_scheme).replace(':', "-")],
    };
    let segments: Vec<String> = segments.into_iter().filter(|s| !s.trim().is_empty()).collect();
    let is_word = |s: &String| s.chars().any(char::is_alphabetic);
    let mut from = segments.len().checked_sub(1)?;
    while from > 0 && !segments[from..].iter().any(is_word) {
        from -= 1;
    }
    Some(segments[from..].join("-"))
}

/// Follows `nextCursor` until it ends, refusing a cursor that repeats or never ends.
pub(crate) async fn paginate<T, F, Fut>(connection: &ServerConnection, what: &str, mut page: F) -> Result<Vec<T>, HostError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..MAX_PAGES {
        let (batch, next) = page(cursor.take()).await.map_err(|e| HostError::from(connection.service_error(what, &e)))?;
        items.extend(batch);
        match next {
            None => return Ok(items),
            Some(next) if !seen.insert(next.clone()) => {
                return Err(HostError::from(connection.request_error(what, format!("the server repeated the page cursor {next:?}; stopped after {} items", items.len()))));
            }
            Some(next) => cursor = Some(next),
        }
    }
    Err(HostError::from(connection.request_error(what, format!("more than {MAX_PAGES} pages; stopped after {} items", items.len()))))
}

/// A listing's declared media type as the window may show it: a valid `type/subtype` (the
/// contract's parser, canonical), else none — never control characters or 10 KB strings as given.
fn listed_mime(declared: Option<String>) -> Option<String> {
    declared.and_then(|declared| mcp_canvas_contract::parse_media_type(&declared).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_without_an_extension_still_names_the_file() {
        assert_eq!(with_name(json!({ "uri": "demo://notes/scratch?x=1" }))["name"], "scratch");
        assert_eq!(with_name(json!({ "uri": "demo://notes/scratch", "mimeType": "text/markdown" }))["name"], "scratch.md");
        assert_eq!(with_name(json!({ "uri": "demo://notes/scratch", "mimeType": "text/plain" }))["name"], "scratch.txt");
        assert_eq!(with_name(json!({ "uri": "demo://notes/", "name": "kept" }))["name"], "kept");
        assert_eq!(with_name(json!({ "uri": "demo://notes/" }))["name"], "notes");
        assert_eq!(with_name(json!({ "uri": "urn:isbn:0451450523", "mimeType": "text/plain" }))["name"], "isbn-0451450523.txt");
        assert_eq!(with_name(json!({ "uri": "demo://" })).get("name"), None);
        assert_eq!(with_name(json!({ "uri": "demo://chart/1%2C2", "mimeType": "image/png" }))["name"], "chart-1,2.png");
        assert_eq!(with_name(json!({ "uri": "demo://chart/a%2Fb" }))["name"], "a-b", "a decoded slash is no path");
    }

    #[test]
    fn two_resources_whose_uris_end_the_same_way_get_different_names() {
        let name = |uri: &str| with_name(json!({ "uri": uri, "mimeType": "text/plain" }))["name"].as_str().unwrap().to_owned();
        // Before: both `1.txt`.
        assert_eq!((name("demo://items/1"), name("demo://users/1")), ("items-1.txt".to_owned(), "users-1.txt".to_owned()));
        // The id may be in the host's place too, or several deep.
        assert_eq!((name("demo://1"), name("file:///orders/2024/05/01")), ("1.txt".to_owned(), "orders-2024-05-01.txt".to_owned()));
        assert_ne!(name("mem://a/7/3"), name("mem://b/7/3"));
        assert_eq!(name("mem://a/7/3"), "a-7-3.txt");
        // A segment that is a word names the resource alone.
        assert_eq!(name("demo://notes/scratch"), "scratch.txt");
    }

    #[test]
    fn a_listed_media_type_is_kept_only_when_it_is_one() {
        assert_eq!(listed_mime(Some("Text/Markdown; charset=UTF-8".into())).as_deref(), Some("text/markdown; charset=UTF-8"));
        for hostile in ["text/plain\r\nX-Injected: 1", "image/png\u{1b}[31m", &"a".repeat(10_000), "", "not a type"] {
            assert_eq!(listed_mime(Some(hostile.to_owned())), None, "{hostile:?}");
        }
        assert_eq!(listed_mime(None), None);
    }
}
