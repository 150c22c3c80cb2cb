//! Extraction settings, and the per-tool rules users write in TOML (layer 1; see
//! docs/result-shapes.md, "Per-tool rules").
//!
//! ```toml
//! max_inline_chars = 10000     # longer text becomes a text artifact (safety net)
//! base64_min_chars = 256       # shorter strings are never examined as base64
//!
//! [[rules]]
//! tool = "download_*"          # glob on the tool name
//! server = "tableau*"          # optional glob on the server name
//! [[rules.fields]]
//! path = "content"             # dot and [i] notation; [*] or .* for every array element
//! content_type = "pdf"         # a word for the summary
//! mime = "application/pdf"
//! filename_field = "name"      # sibling field holding the file name
//! summary = "Downloaded workbook '{name}' as PDF ({size_human}). Reference: {artifact_id}"
//! ```

use serde::Deserialize;

use crate::{rules::FieldPath, ContractError};

/// How extraction behaves. `Default` gives the documented defaults.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractionConfig {
    /// Text longer than this many characters becomes a text artifact (layer 4). Default 10,000.
    pub max_inline_chars: usize,
    /// Strings shorter than this are never examined as base64 (layer 3). Default 256.
    pub base64_min_chars: usize,
    /// Bound on the model-facing summary, in characters. Default 2,000.
    pub max_summary_chars: usize,
    /// JSON deeper than this is not walked (a warning says so). Default 64.
    pub max_depth: usize,
    /// `meta_data` larger than this (serialized bytes) becomes an artifact. Default 4,096.
    pub max_meta_bytes: usize,
    /// Per-tool field rules, first match wins per field.
    pub rules: Vec<ToolRule>,
}

impl Default for ExtractionConfig {
    fn default() -> Self {
        Self {
            max_inline_chars: 10_000,
            base64_min_chars: 256,
            max_summary_chars: 2_000,
            max_depth: 64,
            max_meta_bytes: 4_096,
            rules: Vec::new(),
        }
    }
}

/// Which tools a set of field rules applies to.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRule {
    /// Glob on the tool name (`download_*`).
    pub tool: String,
    /// Optional glob on the server name.
    #[serde(default)]
    pub server: Option<String>,
    /// Fields holding binaries in this tool's results.
    pub fields: Vec<FieldRule>,
}

/// One field that holds a binary (base64 or a `data:` URL).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldRule {
    /// Path inside the result JSON: `content`, `result.pdf_data`, `files[*].data`, `pages[0].png`.
    pub path: String,
    /// A word for the summary (`pdf`, `image`, `workbook`). Defaults to the MIME type's kind.
    #[serde(default)]
    pub content_type: Option<String>,
    /// MIME type to declare (still checked against the bytes).
    #[serde(default)]
    pub mime: Option<String>,
    /// Name of a sibling field that holds the file name.
    #[serde(default)]
    pub filename_field: Option<String>,
    /// Summary template: `{filename} {size_human} {content_type} {artifact_id} {pages}` and any
    /// sibling field such as `{name}`.
    #[serde(default)]
    pub summary: Option<String>,
}

impl ExtractionConfig {
    /// Parses a TOML rules file, checking every glob and path.
    pub fn from_toml(text: &str) -> Result<Self, ContractError> {
        let config: Self = toml::from_str(text).map_err(|e| ContractError::Rules(e.to_string()))?;
        for rule in &config.rules {
            for glob in std::iter::once(&rule.tool).chain(rule.server.as_ref()) {
                glob::Pattern::new(glob).map_err(|e| ContractError::Rules(format!("glob `{glob}`: {e}")))?;
            }
            for field in &rule.fields {
                FieldPath::parse(&field.path).map_err(|e| ContractError::Rules(format!("path `{}`: {e}", field.path)))?;
            }
        }
        Ok(config)
    }

    /// The field rules that apply to `tool` on `server`.
    pub(crate) fn rules_for<'a>(&'a self, server: &'a str, tool: &'a str) -> impl Iterator<Item = &'a FieldRule> + 'a {
        self.rules
            .iter()
            .filter(move |rule| {
                matches_glob(&rule.tool, tool) && rule.server.as_deref().is_none_or(|s| matches_glob(s, server))
            })
            .flat_map(|rule| rule.fields.iter())
    }
}

fn matches_glob(pattern: &str, name: &str) -> bool {
    glob::Pattern::new(pattern).is_ok_and(|p| p.matches(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let config = ExtractionConfig::from_toml(
            r#"
            max_inline_chars = 500
            [[rules]]
            tool = "download_*"
            server = "tableau*"
            [[rules.fields]]
            path = "content"
            mime = "application/pdf"
            filename_field = "name"
            summary = "Downloaded workbook '{name}'"
            "#,
        )
        .unwrap();
        assert_eq!(config.max_inline_chars, 500);
        assert_eq!(config.base64_min_chars, 256, "unset keys keep their defaults");
        assert_eq!(config.rules_for("tableau-prod", "download_workbook").count(), 1);
        assert_eq!(config.rules_for("other", "download_workbook").count(), 0);
        assert_eq!(config.rules_for("tableau", "list_workbooks").count(), 0);
    }

    #[test]
    fn bad_rules_are_reported() {
        assert!(ExtractionConfig::from_toml("max_inline = 3").unwrap_err().to_string().contains("unknown field"));
        let err = ExtractionConfig::from_toml("[[rules]]\ntool = \"x\"\n[[rules.fields]]\npath = \"a[\"\n").unwrap_err();
        assert!(err.to_string().contains("path `a[`"), "{err}");
        let err = ExtractionConfig::from_toml("[[rules]]\ntool = \"[\"\nfields = []\n").unwrap_err();
        assert!(err.to_string().contains("glob `[`"), "{err}");
    }
}
