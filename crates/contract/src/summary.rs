//! The model-facing summary (see docs/result-shapes.md, "What the model sees"): what came back,
//! in at most `max_chars` characters, deterministic, never base64. Errors, input requests and
//! artifact references are kept first; text and structured results fill what room is left.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{
    base64_scan::as_base64,
    outcome::{Audience, DashboardEnvelope, NeedsInput, OutcomeArtifact, OutcomeText, ToolErrorInfo},
    sniff::utf8_prefix,
};

pub(crate) struct Input<'a> {
    pub error: Option<&'a ToolErrorInfo>,
    pub needs_input: Option<&'a NeedsInput>,
    pub texts: &'a [OutcomeText],
    pub results: Option<&'a Value>,
    pub artifacts: &'a [(OutcomeArtifact, Option<String>, BTreeMap<String, String>, Option<(String, String, usize)>)],
    pub dashboard: Option<&'a DashboardEnvelope>,
    pub warnings: &'a [String],
    pub max_chars: usize,
}

const MAX_ARTIFACT_LINE: usize = 300;

pub(crate) fn build(input: &Input<'_>) -> String {
    let max = input.max_chars.max(200);
    // Fixed parts, in priority order.
    let mut head = Vec::new();
    if let Some(error) = input.error {
        head.push(cut(&format!("Error ({}): {}", error.code, one_line(&error.message)), 400));
    }
    if let Some(needs) = input.needs_input {
        let mut line = format!("The tool needs more input: {}", one_line(&needs.message));
        if !needs.fields.is_empty() {
            line.push_str(&format!(" Fields: {}.", needs.fields.join(", ")));
        }
        for (field, values) in &needs.suggestions {
            if !values.is_empty() {
                let shown = values.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
                let more = values.len().saturating_sub(8);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                line.push_str(&format!(" Suggestions for {field}: {shown}{more}."));
            }
        }
        head.push(cut(&line, 700));
    }
    let visible: Vec<_> = input.artifacts.iter().filter(|(a, ..)| a.audience != Audience::User).collect();
    let mut artifact_lines = Vec::new();
    let artifact_budget = max * 6 / 10;
    let mut used = 0;
    for (i, (artifact, template, vars, _)) in visible.iter().enumerate() {
        let line = cut(&artifact_line(artifact, template.as_deref(), vars), MAX_ARTIFACT_LINE);
        if used + line.len() > artifact_budget {
            artifact_lines.push(format!("…and {} more artifacts (listed in the canvas).", visible.len() - i));
            break;
        }
        used += line.len() + 1;
        artifact_lines.push(line);
    }
    let mut tail = Vec::new();
    if let Some(dashboard) = input.dashboard {
        let title = dashboard.title.as_deref().map(|t| format!(" '{}'", one_line(t))).unwrap_or_default();
        let origin = url_origin(&dashboard.url);
        tail.push(cut(&format!("The tool offered a live dashboard{title} from {origin} for the canvas."), 300));
    }
    // Only artifacts the user can see (not assistant-only ones) can be opened in the canvas.
    let openable = visible.iter().filter(|(a, ..)| a.viewer.is_some() && a.audience == Audience::Both).count();
    if openable > 0 {
        tail.push(if openable == 1 { "The user can open it in the canvas." } else { "The user can open them in the canvas." }.to_owned());
    }

    // Everything is for the user only: say so, rather than that nothing came back.
    let shown_results = input.results.is_some() && input.error.is_none() && input.needs_input.is_none();
    let model_texts_exist = input.texts.iter().any(|t| t.audience != Audience::User);
    if head.is_empty() && visible.is_empty() && input.dashboard.is_none() && !model_texts_exist && !shown_results {
        if let Some(line) = user_only_line(input) {
            tail.push(line);
        }
    }

    let fixed: usize = head.iter().chain(&artifact_lines).chain(&tail).map(|l| l.chars().count() + 1).sum();
    let mut room = max.saturating_sub(fixed);

    // Flexible parts: text for the model, then results, then previews of cut text, then warnings.
    let mut body = Vec::new();
    let error_text = input.error.map(|e| one_line(&e.message));
    let model_texts: Vec<&OutcomeText> = input
        .texts
        .iter()
        .filter(|t| t.audience != Audience::User)
        // A bare `isError` takes its message from the text: do not say it twice.
        .filter(|t| error_text.as_deref() != Some(one_line(&t.text).as_str()))
        .collect();
    for text in &model_texts {
        push_flexible(&mut body, text.text.trim(), &mut room);
    }
    // Structured results speak for themselves only when nothing else does: a tool that sends
    // markdown (or an error / input request) and structuredContent says the same thing twice.
    if let Some(results) = input.results {
        if model_texts.is_empty() && input.error.is_none() && input.needs_input.is_none() {
            let compact = match results {
                Value::String(s) => s.clone(),
                other => serde_json::to_string(other).unwrap_or_default(),
            };
            push_flexible(&mut body, &compact, &mut room);
        }
    }
    let mut previews = Vec::new();
    for (artifact, _, _, preview) in visible.iter() {
        if let Some((head_text, tail_text, cut_chars)) = preview {
            let line = format!("Preview of '{}': {} … [{cut_chars} characters cut] … {}", artifact.name, one_line(head_text), one_line(tail_text));
            push_flexible(&mut previews, &line, &mut room);
        }
    }
    let mut notes = Vec::new();
    if !input.warnings.is_empty() {
        let line = match input.warnings.len() {
            1 => format!("Note: {}", one_line(&input.warnings[0])),
            n => format!("Note: {n} parts of the result needed attention, e.g. {}", one_line(&input.warnings[0])),
        };
        push_flexible(&mut notes, &line, &mut room);
    }

    let mut lines: Vec<String> = head.into_iter().chain(body).chain(artifact_lines).chain(previews).chain(tail).chain(notes).collect();
    if lines.is_empty() {
        lines.push("The tool returned no content.".into());
    }
    let joined = scrub_base64(&lines.join("\n"));
    // The layout above assumes room for at least 200 characters; the configured bound still holds.
    cut(&joined, input.max_chars)
}

/// `The tool returned content for the user only (1 file, 1 link, 2 texts); it is not shown to you.`
fn user_only_line(input: &Input<'_>) -> Option<String> {
    let files = input.artifacts.iter().filter(|(a, ..)| a.audience == Audience::User).count();
    let user_texts = || input.texts.iter().filter(|t| t.audience == Audience::User && !t.text.trim().is_empty());
    // A `resource_link` block is a text that starts so (blocks.rs).
    let links = user_texts().filter(|t| t.text.starts_with("Resource link: ")).count();
    let texts = user_texts().count() - links;
    let count = |n: usize, one: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {one}s")),
    };
    let parts: Vec<String> = [count(files, "file"), count(links, "link"), count(texts, "text")].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| format!("The tool returned content for the user only ({}); it is not shown to you.", parts.join(", ")))
}

fn push_flexible(lines: &mut Vec<String>, text: &str, room: &mut usize) {
    if text.is_empty() || *room < 40 {
        return;
    }
    let line = cut(text, *room - 1);
    *room = room.saturating_sub(line.chars().count() + 1);
    lines.push(line);
}

fn artifact_line(artifact: &OutcomeArtifact, template: Option<&str>, vars: &BTreeMap<String, String>) -> String {
    let mut facts = vec![human_size(artifact.size)];
    if let Some(pages) = artifact.pages {
        facts.push(format!("{pages} page{}", if pages == 1 { "" } else { "s" }));
    }
    if let (Some(w), Some(h)) = (artifact.width, artifact.height) {
        facts.push(format!("{w}×{h} px"));
    }
    if let Some(template) = template {
        let mut words = vars.clone();
        words.insert("filename".into(), artifact.name.clone());
        words.insert("size_human".into(), human_size(artifact.size));
        words.insert("size".into(), artifact.size.to_string());
        words.entry("content_type".into()).or_insert_with(|| kind_label(&artifact.mime));
        words.insert("artifact_id".into(), artifact.id.clone());
        words.insert("mime".into(), artifact.mime.clone());
        if let Some(pages) = artifact.pages {
            words.insert("pages".into(), pages.to_string());
        }
        let mut line = fill_template(template, &words);
        if !line.contains(&artifact.id) {
            line.push_str(&format!(" Reference: {}", artifact.id));
        }
        return one_line(&line);
    }
    let description = artifact.description.as_deref().map(|d| format!(" — {}", cut(&one_line(d), 120))).unwrap_or_default();
    one_line(&format!("Stored {} '{}' ({}){description}. Reference: {}", kind_label(&artifact.mime), artifact.name, facts.join(", "), artifact.id))
}

/// `{word}` → its value; unknown words are left as written.
fn fill_template(template: &str, words: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if words.contains_key(&after[..close]) => {
                out.push_str(&words[&after[..close]]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn url_origin(url: &str) -> String {
    url::Url::parse(url).map(|u| u.origin().ascii_serialization()).unwrap_or_else(|_| "an unknown origin".into())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, marking the cut.
fn cut(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let marker = format!("… [{} more characters]", count - max);
    let keep = max.saturating_sub(marker.chars().count());
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(&marker);
    if out.chars().count() > max {
        out = out.chars().take(max).collect();
    }
    out
}

/// Replaces runs of base64-alphabet characters that look like an encoded payload with a note, so
/// that nothing of the kind reaches the model, even from a text block that was not a recognised
/// binary. A run of 1,024+ characters always goes; a run of 200+ goes unless it is plainly an
/// identifier the model may need to pass on: hexadecimal (hashes, trace ids) or base64 of readable
/// text (a JWT's claims).
fn scrub_base64(text: &str) -> String {
    const MIN_RUN: usize = 200;
    const MAX_RUN: usize = 1024;
    crate::base64_runs::map_base64_runs(text, |run| {
        (run.len() >= MAX_RUN || (run.len() >= MIN_RUN && !is_readable_token(run))).then(|| format!("[{} characters of encoded data omitted]", run.len()))
    })
}

/// Hexadecimal (with digits, not one repeated character), or base64 (either alphabet) whose
/// decoded start is readable text.
fn is_readable_token(run: &str) -> bool {
    let first = run.as_bytes()[0];
    if run.bytes().all(|b| b.is_ascii_hexdigit()) && run.bytes().any(|b| b.is_ascii_digit()) && run.bytes().any(|b| b != first) {
        return true;
    }
    let body: String = run.chars().filter(|&c| c != '=').collect();
    let whole_quantums = body.len() - body.len() % 4;
    as_base64(&body[..whole_quantums]).is_some_and(|payload| utf8_prefix(&payload.head(768)).is_some())
}

/// A human word for a MIME type: "PNG image", "PDF document", ...
pub fn kind_label(mime: &str) -> String {
    let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match essence.as_str() {
        "application/pdf" => "PDF document".to_owned(),
        "text/html" => "HTML document".to_owned(),
        "image/svg+xml" => "SVG image".to_owned(),
        "text/markdown" => "Markdown document".to_owned(),
        "text/csv" => "CSV table".to_owned(),
        "application/json" => "JSON document".to_owned(),
        "text/plain" => "text file".to_owned(),
        "application/zip" => "ZIP archive".to_owned(),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "Word document".to_owned(),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "Excel workbook".to_owned(),
        "application/vnd.openxmlformats-officedocument.presentationml.presentation" => "PowerPoint presentation".to_owned(),
        _ => match essence.split_once('/') {
            Some(("image", sub)) => format!("{} image", sub.trim_start_matches("x-").to_ascii_uppercase()),
            Some(("audio", sub)) => format!("{} audio", sub.trim_start_matches("x-").to_ascii_uppercase()),
            Some(("video", sub)) => format!("{} video", sub.trim_start_matches("x-").to_ascii_uppercase()),
            Some(("text", sub)) => format!("{} text", sub.trim_start_matches("x-")),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_marks_and_bounds() {
        assert_eq!(cut("short", 10), "short");
        let long = "x".repeat(100);
        let c = cut(&long, 50);
        assert!(c.chars().count() <= 50 && c.contains("more characters"), "{c}");
    }

    #[test]
    fn base64_runs_are_scrubbed() {
        let text = format!("before {} after", "/wD/".repeat(100));
        assert_eq!(scrub_base64(&text), "before [400 characters of encoded data omitted] after");
        assert_eq!(scrub_base64("an id 3f2a9c0e12b4d6a8 stays"), "an id 3f2a9c0e12b4d6a8 stays");
        let hex = "0123456789abcdef".repeat(20);
        assert_eq!(scrub_base64(&hex), hex, "a 320-character hex id is an id");
        let claims = "eyJzdWIiOiAiMTIzNDU2Nzg5MCIsICJzY29wZSI6ICJyZWFkOnJlcG9ydHMgd3JpdGU6cmVwb3J0cyJ9".repeat(3);
        assert_eq!(scrub_base64(&claims), claims, "base64 of readable text (JWT claims) stays");
        let zeros = "A".repeat(400);
        assert_eq!(scrub_base64(&zeros), "[400 characters of encoded data omitted]", "zero bytes are not text");
        assert_eq!(scrub_base64(&"0".repeat(1024)), "[1024 characters of encoded data omitted]", "1 KB always goes");
    }

    #[test]
    fn templates_fill_known_words_only() {
        let words = BTreeMap::from([("name".to_owned(), "Sales".to_owned())]);
        assert_eq!(fill_template("Workbook '{name}' {unknown} {", &words), "Workbook 'Sales' {unknown} {");
    }

    #[test]
    fn sizes() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(2_411_724), "2.3 MB");
    }
}
