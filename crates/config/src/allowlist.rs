//! The dashboard origin allowlist (000 §3: "sandbox iframes, allowlist origins").
//!
//! A dashboard (`canvas` envelope) loads only when the *origin* of its URL — scheme, host and
//! port, after WHATWG URL parsing by the `url` crate — is exactly one of the origins the user
//! allowed in `settings.toml`:
//!
//! ```toml
//! [dashboards]
//! allowed_origins = ["http://127.0.0.1:8765", "https://dash.example.com"]   # default: empty
//! ```
//!
//! The rules, the same for the desktop app, its navigation guard and `mcp-canvas-cli allowlist`:
//!
//! - Only `https`, and plain `http` for the loopback hosts `127.0.0.1` and `localhost` only:
//!   a capability token must not cross a network in clear text, and the window (a secure
//!   context) would block a plain-http frame elsewhere as mixed content anyway. `javascript:`,
//!   `data:`, `file:`, `blob:`, ... are refused.
//! - Userinfo (`user:pw@`, even an empty `@`) is refused, judged on the raw text too: the
//!   WHATWG serializer drops an empty `:@`, so the parsed URL alone would hide it.
//! - Origins are compared as `Url::origin().ascii_serialization()`: lowercase, default ports
//!   dropped, IDN hosts in punycode. A look-alike (`https://аllowed.com` with a Cyrillic `а`)
//!   becomes `https://xn--llowed-2nf.com` and never equals an ASCII origin; a spelling WHATWG
//!   maps to the very same host (`ALLOWED.COM:443`, full-width letters, `%2e`, `2130706433`) is
//!   the same origin, which is also what the window loads, because the app hands the iframe the
//!   *serialized* URL, never the text the tool sent.
//! - Equality only: no wildcards, no suffix matching (`allowed.com.evil.com` is another host),
//!   and the port is part of the origin.
//!
//! Writing the list back ([`add_origin`], [`remove_origin`]) edits `settings.toml` through
//! `toml_edit`'s document model: comments, key order and every other section are kept, and the
//! result must still load as [`Settings`] before it replaces the file (atomically, by rename).
//!
//! Also here: the two token-safe forms of a dashboard URL — [`redact_url`] for logs,
//! [`url_without_secrets`] for what is written to disk — next to [`frame_src`], the one place the
//! token is put into the iframe URL. (Auditing dashboard events, which needs the store and the
//! session, is the host's: `mcp_canvas_host::audit::audit_dashboard`.)

use std::{
    fmt,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};
use ts_rs::TS;
use url::Url;

use crate::settings::Settings;

/// Why a URL (or an allowlist entry) is refused. `Display` is the reason `check` prints; it never
/// contains the URL's path, query or fragment (where tokens live).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not an absolute URL the WHATWG parser accepts.
    Invalid(String),
    /// A scheme other than http or https.
    Scheme(String),
    /// Plain http to a host that is not loopback.
    InsecureHttp,
    /// `user:password@` (or just `@`) before the host.
    Userinfo,
    /// An allowlist entry with a path, query or fragment; carries the origin it would be.
    NotAnOrigin(Option<String>),
    /// `*` in a host: the allowlist has no wildcards.
    Wildcard,
    /// A well-formed http(s) URL whose origin is not on the list.
    NotAllowed(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(e) => write!(f, "not a valid absolute URL ({e})"),
            Self::Scheme(s) => write!(f, "scheme `{s}` is not http or https"),
            Self::InsecureHttp => f.write_str("plain http is allowed only for loopback hosts (127.0.0.1, localhost); use https"),
            Self::Userinfo => f.write_str("the URL carries credentials (userinfo before the host)"),
            Self::NotAnOrigin(Some(origin)) => write!(f, "an origin has no path, query or fragment; did you mean {origin}?"),
            Self::NotAnOrigin(None) => f.write_str("an origin has no path, query or fragment (scheme://host[:port])"),
            Self::Wildcard => f.write_str("wildcards are not supported: list each origin as scheme://host[:port]"),
            Self::NotAllowed(origin) => write!(f, "origin {origin} is not on the dashboard allowlist"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Parses `text` as an http(s) URL without userinfo. Shared by URLs and allowlist entries.
fn parse_http(text: &str) -> Result<Url, Refusal> {
    let url = Url::parse(text).map_err(|e| Refusal::Invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refusal::Scheme(url.scheme().to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() || raw_has_userinfo(text) {
        return Err(Refusal::Userinfo);
    }
    if url.host_str().is_some_and(|h| h.contains('*')) {
        return Err(Refusal::Wildcard);
    }
    if url.scheme() == "http" && !is_loopback(&url) {
        return Err(Refusal::InsecureHttp);
    }
    Ok(url)
}

/// `127.0.0.1` or `localhost`: the hosts the window's CSP lets plain http frame (a CSP source
/// cannot name an IPv6 address, so `[::1]` is not one of them).
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip == std::net::Ipv4Addr::LOCALHOST,
        Some(url::Host::Domain(d)) => d == "localhost",
        _ => false,
    }
}

/// Whether the raw text has an `@` in its authority, as the WHATWG parser delimits it for
/// special schemes: after `scheme:` and any slashes or backslashes, up to the first `/`, `\`,
/// `?` or `#`. Tabs and newlines are removed first, as the parser does.
fn raw_has_userinfo(text: &str) -> bool {
    let cleaned: String = text.trim_matches(|c: char| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    let Some((_, rest)) = cleaned.split_once(':') else { return false };
    let authority = rest.trim_start_matches(['/', '\\']);
    let end = authority.find(['/', '\\', '?', '#']).unwrap_or(authority.len());
    authority[..end].contains('@')
}

/// The origin (`scheme://host[:port]`, ASCII) of an http(s) URL, or why it has none we accept.
pub fn origin_of(url: &str) -> Result<String, Refusal> {
    parse_http(url).map(|u| u.origin().ascii_serialization())
}

/// Normalizes an allowlist entry: an http(s) origin, optionally with a trailing `/`, nothing else.
/// `HTTPS://Bücher.example:443/` → `https://xn--bcher-kva.example`.
pub fn parse_origin(entry: &str) -> Result<String, Refusal> {
    let url = parse_http(entry.trim())?;
    let origin = url.origin().ascii_serialization();
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(Refusal::NotAnOrigin(Some(origin)));
    }
    Ok(origin)
}

/// An allowlist entry from `settings.toml` that is not a valid origin: it matches nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct IgnoredEntry {
    /// The entry as written.
    pub entry: String,
    /// Why it is ignored.
    pub reason: String,
}

/// The allowed origins, normalized. Entries that are not origins are kept aside as
/// [`IgnoredEntry`]s (they never match) so that a typo in `settings.toml` neither stops the app
/// nor silently allows something else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    origins: Vec<String>,
    ignored: Vec<IgnoredEntry>,
}

impl Allowlist {
    /// From raw entries (normalized, duplicates once, invalid ones set aside).
    pub fn new<S: AsRef<str>>(entries: impl IntoIterator<Item = S>) -> Self {
        let mut list = Self::default();
        for entry in entries {
            let entry = entry.as_ref();
            match parse_origin(entry) {
                Ok(origin) if !list.origins.contains(&origin) => list.origins.push(origin),
                Ok(_) => {}
                Err(refusal) => list.ignored.push(IgnoredEntry { entry: entry.to_owned(), reason: refusal.to_string() }),
            }
        }
        list
    }

    /// The list in loaded settings.
    pub fn from_settings(settings: &Settings) -> Self {
        Self::new(&settings.dashboards.allowed_origins)
    }

    /// Reads the list from `settings.toml` now (a missing file is the empty list).
    pub fn load(settings_path: &Path) -> Result<Self, AllowlistError> {
        let settings = Settings::load(settings_path).map_err(|e| AllowlistError::Settings { path: settings_path.to_owned(), reason: e.to_string() })?;
        Ok(Self::from_settings(&settings))
    }

    /// The allowed origins, normalized, in file order.
    pub fn origins(&self) -> &[String] {
        &self.origins
    }

    /// Entries that are not origins.
    pub fn ignored(&self) -> &[IgnoredEntry] {
        &self.ignored
    }

    /// Whether `url` may load in a dashboard frame; `Ok` is its origin.
    pub fn check(&self, url: &str) -> Result<String, Refusal> {
        let origin = origin_of(url)?;
        if self.origins.contains(&origin) {
            Ok(origin)
        } else {
            Err(Refusal::NotAllowed(origin))
        }
    }

    /// The view the Settings panel shows.
    pub fn view(&self, settings_path: &Path) -> AllowlistView {
        AllowlistView { origins: self.origins.clone(), ignored: self.ignored.clone(), settings_path: settings_path.display().to_string() }
    }
}

/// The allowlist as the UI shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AllowlistView {
    /// Allowed origins, normalized.
    pub origins: Vec<String>,
    /// Entries in `settings.toml` that are not origins (they allow nothing).
    pub ignored: Vec<IgnoredEntry>,
    /// Where the list lives.
    pub settings_path: String,
}

/// Whether a dashboard tab may load, as the app tells the UI. The UI renders an iframe only for
/// `allowed`, and only with this `src`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "status", rename_all = "snake_case")]
#[ts(export)]
pub enum DashboardAccess {
    /// On the allowlist.
    Allowed {
        /// The dashboard's origin.
        origin: String,
        /// The iframe URL: the envelope's URL as serialized by the WHATWG parser, with its token.
        src: String,
    },
    /// Not loaded.
    Refused {
        /// The origin, when the URL has one the user could allow.
        origin: Option<String>,
        /// Why, for the user.
        reason: String,
        /// Whether allowing `origin` would make it load.
        can_allow: bool,
    },
}

impl DashboardAccess {
    /// The decision for a dashboard at `url` with the envelope's `token`.
    pub fn decide(allowlist: &Allowlist, url: &str, token: Option<&str>) -> Self {
        match allowlist.check(url) {
            Ok(origin) => match frame_src(url, token) {
                Some(src) => Self::Allowed { origin, src },
                None => Self::Refused { origin: None, reason: "the URL could not be parsed".into(), can_allow: false },
            },
            Err(Refusal::NotAllowed(origin)) => {
                let reason = Refusal::NotAllowed(origin.clone()).to_string();
                Self::Refused { origin: Some(origin), reason, can_allow: true }
            }
            Err(refusal) => Self::Refused { origin: None, reason: refusal.to_string(), can_allow: false },
        }
    }
}

/// The iframe URL: the WHATWG serialization of `url`, with the envelope's `token` as it gave it.
/// When the URL already carries a `token` query parameter (the demo puts it there), the URL is
/// used as is; otherwise a given token is appended as `token=<token>` (000 §4's capability URL
/// shape). `None` when `url` does not parse.
pub fn frame_src(url: &str, token: Option<&str>) -> Option<String> {
    let mut url = Url::parse(url).ok()?;
    if let Some(token) = token.filter(|t| !t.is_empty())
        && !url.query_pairs().any(|(k, _)| k == "token")
    {
        url.query_pairs_mut().append_pair("token", token);
    }
    Some(url.to_string())
}

/// Query keys whose values are secrets: token, password, secret, ..., anything ending in `key`.
fn secret_param(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["token", "password", "passwd", "secret", "authorization", "cookie", "credential", "session", "signature", "sig"]
        .iter()
        .any(|w| key.contains(w))
        || key.ends_with("key")
        || key == "code"
}

const REDACTED: &str = "[redacted]";

/// `url` for a log line: values of secret query parameters (`token=...`) replaced by
/// `[redacted]`, userinfo dropped, the fragment dropped when it holds `=`, and any occurrence of
/// the envelope's own `token` replaced wherever else it sits (a path segment, say). Text that is
/// not a URL is redacted the same way, as far as it can be.
pub fn redact_url(url: &str, token: Option<&str>) -> String {
    let redacted = match Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            if parsed.query().is_some() {
                let pairs: Vec<(String, String)> = parsed
                    .query_pairs()
                    .map(|(k, v)| {
                        let v = if secret_param(&k) { REDACTED.to_owned() } else { v.into_owned() };
                        (k.into_owned(), v)
                    })
                    .collect();
                parsed.query_pairs_mut().clear().extend_pairs(pairs);
            }
            if parsed.fragment().is_some_and(|f| f.contains('=')) {
                parsed.set_fragment(Some(REDACTED));
            }
            parsed.to_string()
        }
        Err(_) => crate::redact::redact_text(url),
    };
    match token.filter(|t| t.len() >= 4) {
        Some(token) => redacted.replace(token, REDACTED),
        None => redacted,
    }
}

/// `url` as it may be written to disk (a pinned dashboard): secret query parameters removed
/// altogether, userinfo and fragment dropped. The tool sends a fresh token when called again.
pub fn url_without_secrets(url: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else { return crate::redact::redact_text(url) };
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    parsed.set_fragment(None);
    if parsed.query().is_some() {
        let kept: Vec<(String, String)> =
            parsed.query_pairs().filter(|(k, _)| !secret_param(k)).map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        if kept.is_empty() {
            parsed.set_query(None);
        } else {
            parsed.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    parsed.to_string()
}

// ---------------------------------------------------------------------------------- editing

/// What went wrong changing the allowlist.
#[derive(Debug, thiserror::Error)]
pub enum AllowlistError {
    /// The origin given is not one.
    #[error("`{entry}` cannot be allowed: {refusal}")]
    Refused {
        /// What was given.
        entry: String,
        /// Why.
        refusal: Refusal,
    },
    /// `settings.toml` could not be read, parsed or written.
    #[error("{}: {reason}", path.display())]
    Settings {
        /// The settings file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `rm` of something not on the list.
    #[error("{0} is not on the dashboard allowlist")]
    NotListed(String),
}

/// The result of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The origin (normalized), or the raw entry removed when it was not an origin.
    pub origin: String,
    /// Whether the file changed (`false`: it was already there).
    pub changed: bool,
    /// The list after the edit.
    pub allowlist: Allowlist,
}

/// Adds `origin` (normalized) to `[dashboards] allowed_origins` in `settings_path`, keeping the
/// rest of the file. Already there: nothing is written.
pub fn add_origin(settings_path: &Path, origin: &str) -> Result<Edit, AllowlistError> {
    let normalized = parse_origin(origin).map_err(|refusal| AllowlistError::Refused { entry: redact_url(origin.trim(), None), refusal })?;
    edit_entries(settings_path, |entries| {
        if entries.iter().any(|e| parse_origin(e).ok().as_deref() == Some(normalized.as_str())) {
            return Ok((normalized.clone(), false));
        }
        entries.push(normalized.clone());
        Ok((normalized.clone(), true))
    })
}

/// Removes `origin` from the list: every entry that normalizes to it, or — for an entry that is
/// not an origin — the entry written exactly so. Not there: [`AllowlistError::NotListed`].
pub fn remove_origin(settings_path: &Path, origin: &str) -> Result<Edit, AllowlistError> {
    let wanted = parse_origin(origin).ok();
    let raw = origin.trim().to_owned();
    edit_entries(settings_path, |entries| {
        let before = entries.len();
        entries.retain(|e| e.trim() != raw && (wanted.is_none() || parse_origin(e).ok() != wanted));
        if entries.len() == before {
            return Err(AllowlistError::NotListed(wanted.clone().unwrap_or_else(|| raw.clone())));
        }
        Ok((wanted.clone().unwrap_or_else(|| raw.clone()), true))
    })
}

/// Reads `settings_path` as a TOML document, lets `change` edit the `allowed_origins` strings,
/// writes the document back when it changed (checked to load as [`Settings`] first).
fn edit_entries(
    settings_path: &Path,
    change: impl FnOnce(&mut Vec<String>) -> Result<(String, bool), AllowlistError>,
) -> Result<Edit, AllowlistError> {
    let settings_error = |reason: String| AllowlistError::Settings { path: settings_path.to_owned(), reason };
    let text = match std::fs::read_to_string(settings_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(settings_error(format!("cannot read it: {e}"))),
    };
    let mut document: toml_edit::DocumentMut = text.parse().map_err(|e| settings_error(format!("not valid TOML, fix it first: {e}")))?;
    if !document.contains_key("dashboards") {
        document.insert("dashboards", toml_edit::Item::Table(toml_edit::Table::new()));
    }
    let table = document["dashboards"]
        .as_table_like_mut()
        .ok_or_else(|| settings_error("`dashboards` is not a table".into()))?;
    if !table.contains_key("allowed_origins") {
        table.insert("allowed_origins", toml_edit::value(toml_edit::Array::new()));
    }
    let array = table
        .get_mut("allowed_origins")
        .and_then(|item| item.as_array_mut())
        .ok_or_else(|| settings_error("`dashboards.allowed_origins` is not an array of strings".into()))?;
    let mut entries = Vec::with_capacity(array.len());
    for value in array.iter() {
        let entry = value.as_str().ok_or_else(|| settings_error("`dashboards.allowed_origins` holds something that is not a string".into()))?;
        entries.push(entry.to_owned());
    }
    let (origin, changed) = change(&mut entries)?;
    if changed {
        // Keep the values (and their comments) that stay; drop the removed; append the new ones.
        let mut kept = vec![false; array.len()];
        let mut next = 0;
        for (i, value) in array.iter().enumerate() {
            if value.as_str().is_some_and(|s| entries.get(next).is_some_and(|e| e == s)) {
                kept[i] = true;
                next += 1;
            }
        }
        for i in (0..kept.len()).rev().filter(|&i| !kept[i]) {
            remove_keeping_comments(array, i);
        }
        for entry in &entries[next..] {
            array.push(entry.as_str());
        }
        let mut new_text = document.to_string();
        if !new_text.ends_with('\n') {
            new_text.push('\n');
        }
        toml::from_str::<Settings>(&new_text).map_err(|e| settings_error(format!("the edited file would not load ({e}); nothing written")))?;
        write_atomically(settings_path, &new_text).map_err(|e| settings_error(format!("cannot write it: {e}")))?;
    }
    Ok(Edit { origin, changed, allowlist: Allowlist::new(&entries) })
}

/// Removes value `index` of a multi-line array without losing the comment that ends the line
/// before it: toml_edit stores `"a", # note` + newline as the *next* value's prefix, so that
/// prefix moves to the value after it (or, for the last value, before the closing bracket).
fn remove_keeping_comments(array: &mut toml_edit::Array, index: usize) {
    let removed = array.remove(index);
    let prefix = removed.decor().prefix().and_then(|p| p.as_str()).unwrap_or_default().to_owned();
    if !prefix.contains('#') {
        return;
    }
    if let Some(following) = array.get_mut(index) {
        following.decor_mut().set_prefix(prefix);
    } else {
        let trailing = array.trailing().as_str().unwrap_or_default().to_owned();
        let comment = &prefix[..prefix.rfind('\n').map_or(prefix.len(), |i| i + 1)];
        let indent = &trailing[trailing.rfind('\n').map_or(0, |i| i + 1)..];
        array.set_trailing(format!("{comment}{indent}"));
    }
}

/// Writes `text` to a temp file next to `path`, fsyncs, renames it over `path`.
pub(crate) fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "settings.toml".into());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOWED: &[&str] = &["https://allowed.com", "http://127.0.0.1:8765"];

    /// URLs that must never be accepted against [`ALLOWED`]. `tests/dashboards.rs` runs the same
    /// kind of corpus through the CLI.
    /// URLs that must never be accepted against [`ALLOWED`] (userinfo, look-alike hosts, IDN,
    /// other ports, other schemes, encoding tricks); the same file feeds `tests/dashboards.rs`.
    static BYPASS: std::sync::LazyLock<Vec<String>> =
        std::sync::LazyLock::new(|| serde_json::from_str(include_str!("../tests/fixtures/allowlist_bypass.json")).expect("a JSON list of URLs"));

    #[test]
    fn the_bypass_corpus_is_refused() {
        let list = Allowlist::new(ALLOWED);
        let accepted: Vec<_> = BYPASS.iter().filter(|url| list.check(url).is_ok()).collect();
        assert!(accepted.is_empty(), "accepted: {accepted:?}");
    }

    #[test]
    fn the_same_origin_spelled_differently_is_the_same_origin() {
        let list = Allowlist::new(ALLOWED);
        for url in [
            "https://allowed.com",
            "https://allowed.com/dash?x=1#y",
            "HTTPS://ALLOWED.COM:443/",
            "https://allowed.com:0443/",
            "https://ａｌｌｏｗｅｄ．ｃｏｍ/",
            "https://allowed.com\\@evil.com/",
            "https://allowed%2ecom/",
            "http://2130706433:8765/",
            "http://0x7f.1:8765/dashboard?token=t",
        ] {
            let origin = list.check(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert!(ALLOWED.contains(&origin.as_str()), "{url} → {origin}");
        }
    }

    #[test]
    fn entries_are_normalized_and_must_be_origins() {
        assert_eq!(parse_origin("HTTPS://Bücher.Example:443/").unwrap(), "https://xn--bcher-kva.example");
        assert_eq!(parse_origin(" http://127.0.0.1:8765 ").unwrap(), "http://127.0.0.1:8765");
        assert_eq!(parse_origin("https://[::1]:443").unwrap(), "https://[::1]");
        assert_eq!(parse_origin("http://localhost:80/").unwrap(), "http://localhost");
        assert_eq!(parse_origin("http://[::1]:8765"), Err(Refusal::InsecureHttp));
        assert_eq!(parse_origin("http://example.com"), Err(Refusal::InsecureHttp));
        assert_eq!(parse_origin("http://127.0.0.2:8765"), Err(Refusal::InsecureHttp));
        assert_eq!(parse_origin("http://127.0.0.1:8765/dashboard"), Err(Refusal::NotAnOrigin(Some("http://127.0.0.1:8765".into()))));
        assert!(matches!(parse_origin("https://a.com/?q"), Err(Refusal::NotAnOrigin(_))));
        assert!(matches!(parse_origin("https://a.com#f"), Err(Refusal::NotAnOrigin(_))));
        assert_eq!(parse_origin("https://*.a.com"), Err(Refusal::Wildcard));
        assert_eq!(parse_origin("https://u@a.com"), Err(Refusal::Userinfo));
        assert_eq!(parse_origin("javascript:alert(1)"), Err(Refusal::Scheme("javascript".into())));
        assert!(matches!(parse_origin("a.com"), Err(Refusal::Invalid(_))));
        let list = Allowlist::new(["https://A.com", "https://a.com:443", "nope", "https://b.com/x"]);
        assert_eq!(list.origins(), ["https://a.com"]);
        assert_eq!(list.ignored().iter().map(|i| i.entry.as_str()).collect::<Vec<_>>(), ["nope", "https://b.com/x"]);
    }

    #[test]
    fn reasons_never_echo_the_query() {
        let list = Allowlist::new(ALLOWED);
        let reason = list.check("http://127.0.0.1:9999/dashboard?token=s3cret").unwrap_err().to_string();
        assert_eq!(reason, "origin http://127.0.0.1:9999 is not on the dashboard allowlist");
        for url in BYPASS.iter() {
            if let Err(e) = list.check(url) {
                assert!(!e.to_string().contains("alert"), "{url}: {e}");
            }
        }
    }

    #[test]
    fn access_decisions_carry_the_token_only_in_src() {
        let list = Allowlist::new(ALLOWED);
        let allowed = DashboardAccess::decide(&list, "http://127.0.0.1:8765/dashboard?token=abc", Some("abc"));
        assert_eq!(allowed, DashboardAccess::Allowed { origin: "http://127.0.0.1:8765".into(), src: "http://127.0.0.1:8765/dashboard?token=abc".into() });
        let appended = DashboardAccess::decide(&list, "https://allowed.com/view", Some("t/k n"));
        assert_eq!(appended, DashboardAccess::Allowed { origin: "https://allowed.com".into(), src: "https://allowed.com/view?token=t%2Fk+n".into() });
        let refused = DashboardAccess::decide(&list, "http://127.0.0.1:9/d?token=abc", Some("abc"));
        let DashboardAccess::Refused { origin, reason, can_allow } = refused else { panic!() };
        assert_eq!((origin.as_deref(), can_allow), (Some("http://127.0.0.1:9"), true));
        assert!(!reason.contains("abc"));
        assert!(matches!(DashboardAccess::decide(&list, "javascript:alert(1)", None), DashboardAccess::Refused { can_allow: false, origin: None, .. }));
    }

    #[test]
    fn urls_are_redacted_for_logs_and_stripped_for_disk() {
        let url = "http://127.0.0.1:8765/dashboard?token=68b666496aa5&view=cpu";
        assert_eq!(redact_url(url, None), "http://127.0.0.1:8765/dashboard?token=%5Bredacted%5D&view=cpu");
        assert_eq!(redact_url("https://h/d/68b666496aa5/x#access_token=zz", Some("68b666496aa5")), "https://h/d/[redacted]/x#[redacted]");
        assert_eq!(redact_url("https://u:p@h/?api_key=1", None), "https://h/?api_key=%5Bredacted%5D");
        assert_eq!(url_without_secrets(url), "http://127.0.0.1:8765/dashboard?view=cpu");
        assert_eq!(url_without_secrets("http://127.0.0.1:8765/dashboard?token=abc"), "http://127.0.0.1:8765/dashboard");
        assert_eq!(url_without_secrets("https://u:p@h/x#token=1"), "https://h/x");
    }

    #[test]
    fn editing_keeps_the_rest_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        let original = "# my settings\n[artifacts]\nquota_bytes = 1000 # small\n\n[identity]\nusername = \"ada\"\n";
        std::fs::write(&path, original).unwrap();
        let edit = add_origin(&path, "HTTP://127.0.0.1:8765/").unwrap();
        assert_eq!((edit.origin.as_str(), edit.changed), ("http://127.0.0.1:8765", true));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert!(text.contains("[dashboards]\nallowed_origins = [\"http://127.0.0.1:8765\"]"), "{text}");
        assert!(!add_origin(&path, "http://127.0.0.1:8765").unwrap().changed, "already there");
        add_origin(&path, "https://bücher.example").unwrap();
        let settings = Settings::load(&path).unwrap();
        assert_eq!(settings.dashboards.allowed_origins, ["http://127.0.0.1:8765", "https://xn--bcher-kva.example"]);
        assert_eq!((settings.artifacts.quota_bytes, settings.identity.username.as_str()), (1000, "ada"));
        assert!(matches!(add_origin(&path, "https://a.com@evil.com"), Err(AllowlistError::Refused { .. })));
        let err = add_origin(&path, "http://127.0.0.1:8765/dashboard?token=s3cret").unwrap_err().to_string();
        assert!(err.contains("did you mean http://127.0.0.1:8765?") && !err.contains("s3cret"), "{err}");
        let edit = remove_origin(&path, "http://127.0.0.1:8765/").unwrap();
        assert_eq!(edit.allowlist.origins(), ["https://xn--bcher-kva.example"]);
        assert!(matches!(remove_origin(&path, "http://127.0.0.1:8765"), Err(AllowlistError::NotListed(_))));
        remove_origin(&path, "https://bücher.example").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(original) && text.contains("allowed_origins = []"), "{text}");
    }

    #[test]
    fn editing_handles_missing_broken_and_hand_written_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        add_origin(&path, "https://a.com").unwrap();
        assert_eq!(Allowlist::load(&path).unwrap().origins(), ["https://a.com"]);
        // A hand-written entry that is not an origin is ignored when loading and removable as written.
        std::fs::write(&path, "[dashboards]\nallowed_origins = [\n  \"https://a.com\", # ours\n  \"a typo\",\n]\n").unwrap();
        let list = Allowlist::load(&path).unwrap();
        assert_eq!((list.origins().len(), list.ignored().len()), (1, 1));
        remove_origin(&path, "a typo").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "[dashboards]\nallowed_origins = [\n  \"https://a.com\", # ours\n]\n", "comments kept");
        std::fs::write(&path, "[dashboards]\nallowed_origins = [\n  \"x\", # x\n  \"https://b.com\", # b\n  \"https://c.com\",\n]\n").unwrap();
        remove_origin(&path, "https://b.com").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "[dashboards]\nallowed_origins = [\n  \"x\", # x\n  \"https://c.com\",\n]\n");
        std::fs::write(&path, "[dashboards\n").unwrap();
        let err = add_origin(&path, "https://a.com").unwrap_err().to_string();
        assert!(err.contains("not valid TOML"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[dashboards\n", "a broken file is left alone");
    }
}
