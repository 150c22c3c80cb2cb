//! The short, model-safe text that stands in for a result once its binaries are stored.

use crate::outcome::NormalizedResult;

/// What the summary needs to know about one stored artifact.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredArtifactRef {
    /// The artifact id the model can use to refer to it.
    pub id: String,
    /// File name.
    pub name: String,
    /// MIME type.
    pub mime: String,
    /// Size in bytes.
    pub size: u64,
}

/// Longest text kept in a summary before it is cut (in characters).
const MAX_TEXT_CHARS: usize = 2_000;

/// Builds the model-safe summary: the result's text (cut when long) and one line per stored
/// artifact with its kind, name, size and id. Never contains the binaries themselves.
pub fn summarize(result: &NormalizedResult, artifacts: &[StoredArtifactRef]) -> String {
    let mut lines = Vec::new();
    if result.is_error {
        lines.push("The tool reported an error.".to_owned());
    }
    for part in &result.texts {
        lines.push(truncate_chars(part.text.trim(), MAX_TEXT_CHARS));
    }
    for artifact in artifacts {
        lines.push(format!(
            "Stored {} '{}' ({}). Reference: {}",
            kind_label(&artifact.mime),
            artifact.name,
            human_size(artifact.size),
            artifact.id
        ));
    }
    for warning in &result.warnings {
        lines.push(format!("Note: {warning}"));
    }
    if lines.is_empty() {
        lines.push("The tool returned no content.".to_owned());
    }
    lines.join("\n")
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}… [{} more characters]", &text[..cut], text[cut..].chars().count()),
    }
}

/// A human word for a MIME type: "PNG image", "PDF document", ...
pub fn kind_label(mime: &str) -> String {
    let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match essence.as_str() {
        "application/pdf" => "PDF document".to_owned(),
        "text/html" => "HTML document".to_owned(),
        "image/svg+xml" => "SVG image".to_owned(),
        _ => match essence.split_once('/') {
            Some(("image", sub)) => format!("{} image", sub.to_ascii_uppercase()),
            Some(("audio", sub)) => format!("{} audio", sub.to_ascii_uppercase()),
            Some(("video", sub)) => format!("{} video", sub.to_ascii_uppercase()),
            Some(("text", sub)) => format!("{sub} text"),
            _ => "file".to_owned(),
        },
    }
}

/// Sizes as people read them: `512 B`, `2.3 KB`, `4.0 MB` (powers of 1024).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}
