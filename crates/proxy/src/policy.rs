//! What the proxy keeps inline in the results it returns upstream (`proxy.toml` in the data dir).
//!
//! ```toml
//! # Images up to this many bytes pass through as `image` content (models can see them).
//! image_max_bytes = 262144
//! # structuredContent up to this many bytes (after long base64 runs are replaced by artifact
//! # links) is forwarded, when it matches the tool's outputSchema.
//! structured_max_bytes = 65536
//! # The longest base64-looking run allowed anywhere in a result sent upstream.
//! max_base64_run = 256
//! # "when-running": the desktop app confirms destructive tools when it runs, else the AI host's
//! # own confirmation applies. "always": refuse them unless the app is running to ask.
//! confirm = "when-running"
//! # Give forwarded tools MCP Canvas's own MCP App view of their files, in AI hosts that render
//! # MCP Apps (`mcp-canvas-cli proxy --no-viewer` turns it off for one run).
//! viewer = true
//! # What the `search_artifacts` tool lets the model search: "proxy" (the files tools returned
//! # to AI hosts through this data dir's proxy), "all" (every stored file, the app's too) or
//! # "off" (no search tool).
//! search = "proxy"
//! # Folders whose files a model may send to tools that take files, by path (besides the files
//! # the proxy gave it, by reference); none by default.
//! file_folders = ["/home/ada/reports"]
//!
//! [[rule]]              # per server and tool (`*` matches any run of characters); first match wins
//! server = "demo"
//! tool = "render_*"
//! image_max_bytes = 0   # charts only as links
//!
//! [[rule]]
//! server = "notes"      # a server whose tools never return files: no view
//! viewer = false
//! ```

use std::path::Path;

use serde::Deserialize;

/// The file name in the data dir.
pub const FILE_NAME: &str = "proxy.toml";

/// When the desktop app must confirm tools that may change or delete data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ConfirmPolicy {
    /// The app asks when it is running; otherwise the annotations go upstream unchanged and the
    /// AI host's own confirmation applies.
    #[default]
    WhenRunning,
    /// Only ever with the app's confirmation: refused when the app is not running.
    Always,
}

/// What the model's search tool covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SearchScope {
    /// The files returned to AI hosts through this data dir's proxy (its session).
    #[default]
    Proxy,
    /// Every stored file, the desktop app's and the CLI's too.
    All,
    /// No search tool.
    Off,
}

/// Limits for one call's upstream result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InlineLimits {
    /// Largest image passed through as `image` content.
    pub image_max_bytes: u64,
    /// Largest `structuredContent` forwarded (serialized, after base64 runs are replaced).
    pub structured_max_bytes: u64,
    /// Longest base64-looking run allowed anywhere upstream.
    pub max_base64_run: usize,
}

/// The whole policy.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InlinePolicy {
    #[serde(default = "defaults::image_max_bytes")]
    image_max_bytes: u64,
    #[serde(default = "defaults::structured_max_bytes")]
    structured_max_bytes: u64,
    #[serde(default = "defaults::max_base64_run")]
    max_base64_run: usize,
    /// When the app must confirm destructive tools.
    #[serde(default)]
    pub confirm: ConfirmPolicy,
    #[serde(default = "defaults::yes")]
    viewer: bool,
    /// What the model's search tool covers.
    #[serde(default)]
    pub search: SearchScope,
    /// Folders whose files a model may send to a tool's file arguments by path (beside the files
    /// the proxy gave it, by reference). Empty: none.
    #[serde(default)]
    pub file_folders: Vec<std::path::PathBuf>,
    #[serde(default, rename = "rule")]
    rules: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    #[serde(default = "defaults::any")]
    server: String,
    #[serde(default = "defaults::any")]
    tool: String,
    image_max_bytes: Option<u64>,
    structured_max_bytes: Option<u64>,
    max_base64_run: Option<usize>,
    viewer: Option<bool>,
}

mod defaults {
    pub fn image_max_bytes() -> u64 {
        256 * 1024
    }
    pub fn structured_max_bytes() -> u64 {
        64 * 1024
    }
    pub fn max_base64_run() -> usize {
        256
    }
    pub fn yes() -> bool {
        true
    }
    pub fn any() -> String {
        "*".to_owned()
    }
}

impl Default for InlinePolicy {
    fn default() -> Self {
        toml::from_str("").expect("the empty policy parses")
    }
}

/// `proxy.toml` could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct PolicyError {
    path: String,
    reason: String,
}

impl InlinePolicy {
    /// Reads `proxy.toml` from the data dir; absent means the defaults.
    pub fn load(data_dir: &Path) -> Result<Self, PolicyError> {
        let path = data_dir.join(FILE_NAME);
        let error = |reason: String| PolicyError { path: path.display().to_string(), reason };
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text).map_err(|e| error(e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(error(e.to_string())),
        }
    }

    /// Parses the TOML text of a policy.
    pub fn parse(text: &str) -> Result<Self, toml::de::Error> {
        toml::from_str(text)
    }

    /// The limits for a call of `server`'s `tool`: the first matching rule's values, the
    /// defaults for what it leaves out.
    pub fn limits(&self, server: &str, tool: &str) -> InlineLimits {
        let base = InlineLimits { image_max_bytes: self.image_max_bytes, structured_max_bytes: self.structured_max_bytes, max_base64_run: self.max_base64_run };
        match self.rules.iter().find(|r| glob(&r.server, server) && glob(&r.tool, tool)) {
            Some(rule) => InlineLimits {
                image_max_bytes: rule.image_max_bytes.unwrap_or(base.image_max_bytes),
                structured_max_bytes: rule.structured_max_bytes.unwrap_or(base.structured_max_bytes),
                max_base64_run: rule.max_base64_run.unwrap_or(base.max_base64_run),
            },
            None => base,
        }
    }
}

impl InlinePolicy {
    /// Whether `server`'s `tool` gets MCP Canvas's view: the first matching rule that says,
    /// else the top-level `viewer`.
    pub fn viewer(&self, server: &str, tool: &str) -> bool {
        self.rules.iter().filter(|r| glob(&r.server, server) && glob(&r.tool, tool)).find_map(|r| r.viewer).unwrap_or(self.viewer)
    }
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        for (pattern, text, expected) in [
            ("*", "anything", true),
            ("render_*", "render_chart", true),
            ("render_*", "make_report", false),
            ("*_report", "make_report", true),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "acb", false),
            ("ab*ba", "aba", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ] {
            assert_eq!(glob(pattern, text), expected, "{pattern} ~ {text}");
        }
    }

    #[test]
    fn first_matching_rule_wins_and_fills_in_defaults() {
        let policy = InlinePolicy::parse(
            r#"
            image_max_bytes = 1000
            confirm = "always"
            [[rule]]
            server = "demo"
            tool = "render_*"
            image_max_bytes = 0
            [[rule]]
            server = "demo"
            structured_max_bytes = 10
            "#,
        )
        .unwrap();
        assert_eq!(policy.confirm, ConfirmPolicy::Always);
        assert_eq!(policy.limits("demo", "render_chart"), InlineLimits { image_max_bytes: 0, structured_max_bytes: 64 * 1024, max_base64_run: 256 });
        assert_eq!(policy.limits("demo", "make_report"), InlineLimits { image_max_bytes: 1000, structured_max_bytes: 10, max_base64_run: 256 });
        assert_eq!(policy.limits("other", "render_chart"), InlineLimits { image_max_bytes: 1000, structured_max_bytes: 64 * 1024, max_base64_run: 256 });
    }

    #[test]
    fn the_view_is_on_unless_turned_off_for_all_a_server_or_a_tool() {
        assert!(InlinePolicy::default().viewer("demo", "render_chart"));
        let policy = InlinePolicy::parse(
            r#"
            [[rule]]
            server = "demo"
            tool = "summarize_*"
            viewer = false
            [[rule]]
            server = "notes"
            viewer = false
            [[rule]]
            server = "demo"
            image_max_bytes = 0
            "#,
        )
        .unwrap();
        assert!(!policy.viewer("demo", "summarize_numbers"));
        assert!(policy.viewer("demo", "render_chart"), "a rule that does not say keeps the default");
        assert!(!policy.viewer("notes", "write_note"));
        assert!(!InlinePolicy::parse("viewer = false").unwrap().viewer("demo", "render_chart"));
        let on_for_one = InlinePolicy::parse("viewer = false\n[[rule]]\nserver = \"demo\"\nviewer = true").unwrap();
        assert!(on_for_one.viewer("demo", "x") && !on_for_one.viewer("other", "x"));
    }

    #[test]
    fn unknown_keys_are_errors_not_ignored() {
        let err = InlinePolicy::parse("image_max_byte = 5").unwrap_err();
        assert!(err.to_string().contains("image_max_byte"), "{err}");
        assert_eq!(InlinePolicy::default().confirm, ConfirmPolicy::WhenRunning);
    }
}
