//! [`Normalized::finish`]: once the host has stored the binaries, swap placeholders for artifact
//! references, decide the canvas intent, and write the summary.

use serde_json::Value;

use crate::{
    canvas_intent::viewer_for,
    config::ExtractionConfig,
    outcome::{Audience, DisplayIntent, Normalized, OutcomeArtifact, StoredArtifact, ToolOutcome, Viewer},
    sniff::is_textual,
    summary,
};

const OPEN: char = '⟦';
const CLOSE: char = '⟧';
const PREFIX: &str = "⟦artifact:";

/// The placeholder left where the `index`-th pending artifact's bytes were.
pub(crate) fn placeholder(index: usize) -> String {
    format!("{PREFIX}{index}{CLOSE}")
}

pub(crate) fn is_placeholder(text: &str) -> bool {
    text.starts_with(PREFIX) && text.ends_with(CLOSE) && text[PREFIX.len()..text.len() - CLOSE.len_utf8()].bytes().all(|b| b.is_ascii_digit())
}

/// How a stored artifact is referred to inside results and texts.
pub(crate) fn reference(id: &str) -> String {
    format!("artifact:{id}")
}

pub(crate) fn replace_placeholders(text: &str, references: &[String]) -> String {
    if !text.contains(OPEN) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(PREFIX) {
        out.push_str(&rest[..start]);
        let after = &rest[start + PREFIX.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let index = after[..digits].parse::<usize>().ok();
        match (index.and_then(|i| references.get(i)), after[digits..].starts_with(CLOSE)) {
            (Some(reference), true) => {
                out.push_str(reference);
                rest = &after[digits + CLOSE.len_utf8()..];
            }
            _ => {
                out.push_str(PREFIX);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn replace_in_value(value: &mut Value, references: &[String]) {
    match value {
        Value::String(text) if text.contains(OPEN) => *text = replace_placeholders(text, references),
        Value::Array(items) => items.iter_mut().for_each(|v| replace_in_value(v, references)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_in_value(v, references)),
        _ => {}
    }
}

impl Normalized {
    /// Builds the final outcome. `stored` has one entry per pending artifact, in order: what the
    /// store returned, or why it could not store it (reported as a warning; the rest goes on).
    pub fn finish(self, stored: Vec<Result<StoredArtifact, String>>, config: &ExtractionConfig) -> ToolOutcome {
        let Normalized { texts, pending, mut results, display_open, primary_file, mode, viewer_hint, dashboard, needs_input, error, kind, mut warnings, meta, results_artifact, results_audience, .. } =
            self;
        let mut artifacts = Vec::new();
        let mut references = Vec::with_capacity(pending.len());
        let mut summary_artifacts = Vec::new();
        let mut spilled = std::collections::HashSet::new();
        for (index, (artifact, stored)) in pending.into_iter().zip(stored.into_iter().map(Some).chain(std::iter::repeat(None))).enumerate() {
            let stored = match stored {
                Some(Ok(stored)) => stored,
                Some(Err(reason)) => {
                    warnings.push(format!("{}: '{}' could not be stored: {reason}", artifact.source, artifact.name));
                    references.push(format!("[{} not stored]", artifact.name));
                    continue;
                }
                None => {
                    warnings.push(format!("{}: '{}' was not stored", artifact.source, artifact.name));
                    references.push(format!("[{} not stored]", artifact.name));
                    continue;
                }
            };
            references.push(reference(&stored.id));
            if artifact.preview.is_some() {
                spilled.insert(stored.id.clone());
            }
            // The same bytes again — an image block and its copy in `structuredContent`, as
            // FastMCP sends a list of blocks — are the same stored artifact: referenced twice,
            // listed (and summarized) once, for the audiences of both copies, under the name the
            // display asks for.
            // (`artifacts` and `summary_artifacts` get one entry each per artifact: same index.)
            if let Some(index) = artifacts.iter().position(|a: &OutcomeArtifact| a.id == stored.id) {
                let merge = |earlier: &mut OutcomeArtifact| {
                    if earlier.audience != artifact.audience {
                        earlier.audience = Audience::Both;
                    }
                    if earlier.description.is_none() {
                        earlier.description.clone_from(&artifact.description);
                    }
                    // As the primary file is looked for below.
                    if primary_file.as_deref().is_some_and(|name| name == artifact.name || name.trim().eq_ignore_ascii_case(&artifact.name)) {
                        earlier.name.clone_from(&artifact.name);
                    }
                };
                merge(&mut artifacts[index]);
                let summarized: &mut (OutcomeArtifact, _, _, _) = &mut summary_artifacts[index];
                merge(&mut summarized.0);
                continue;
            }
            let natural = if artifact.shown_as_source { Some(Viewer::Code) } else { viewer_for(&artifact.mime, &artifact.name) };
            let viewer = match (artifact.viewer_hint, natural) {
                (Some(hint), Some(natural)) if hint == natural || (is_textual(&artifact.mime) && text_viewer(hint) && text_viewer(natural)) => Some(hint),
                (Some(hint), _) => {
                    warnings.push(format!("{}: viewer hint {hint:?} does not suit {}; ignored", artifact.source, artifact.mime));
                    natural
                }
                (None, natural) => natural,
            };
            let outcome_artifact = OutcomeArtifact {
                id: stored.id,
                name: artifact.name,
                mime: artifact.mime,
                size: stored.size,
                sha256: stored.sha256,
                description: artifact.description,
                viewer,
                source: artifact.source,
                audience: artifact.audience,
                pages: stored.pages,
                width: stored.width,
                height: stored.height,
            };
            if Some(index) != results_artifact {
                summary_artifacts.push((outcome_artifact.clone(), artifact.summary_template, artifact.template_vars, artifact.preview));
            } else {
                summary_artifacts.push((outcome_artifact.clone(), None, Default::default(), artifact.preview));
            }
            artifacts.push(outcome_artifact);
        }

        if let Some(results) = results.as_mut() {
            replace_in_value(results, &references);
        }
        let texts: Vec<_> = texts
            .into_iter()
            .filter(|t| !is_placeholder(t.text.trim()))
            .map(|mut t| {
                t.text = replace_placeholders(&t.text, &references);
                t
            })
            .collect();

        // The first showable artifact, preferring real files over text the safety net spilled.
        let first_showable = || {
            let showable = |a: &&OutcomeArtifact| a.viewer.is_some() && a.audience != Audience::Assistant;
            artifacts.iter().filter(showable).find(|a| !spilled.contains(&a.id)).or_else(|| artifacts.iter().find(showable)).map(|a| a.id.clone())
        };
        let primary = match &primary_file {
            Some(name) => match artifacts.iter().find(|a| &a.name == name).or_else(|| artifacts.iter().find(|a| a.name.eq_ignore_ascii_case(name.trim()))) {
                Some(found) => Some(found.id.clone()),
                None => {
                    warnings.push(format!("display.primary_file '{}' names no artifact; showing the first showable one", name.chars().take(80).collect::<String>()));
                    first_showable()
                }
            },
            None => first_showable(),
        };
        // `display.viewer_hint` is for the primary artifact: kept only when it suits it.
        let viewer = viewer_hint.filter(|&hint| {
            let Some(target) = primary.as_ref().and_then(|id| artifacts.iter().find(|a| &a.id == id)) else { return true };
            let suits = target.viewer == Some(hint) || (is_textual(&target.mime) && text_viewer(hint) && target.viewer.is_some_and(text_viewer));
            if !suits {
                warnings.push(format!("display.viewer_hint {hint:?} does not suit the primary artifact '{}' ({}); ignored", target.name, target.mime));
            }
            suits
        });
        let display = DisplayIntent {
            open_canvas: display_open.unwrap_or(false) || first_showable().is_some() || dashboard.is_some(),
            primary,
            mode,
            viewer,
        };

        let summary = summary::build(&summary::Input {
            error: error.as_ref(),
            needs_input: needs_input.as_ref(),
            texts: &texts,
            results: if results_artifact.is_some() || results_audience == Audience::User { None } else { results.as_ref() },
            artifacts: &summary_artifacts,
            dashboard: dashboard.as_ref(),
            warnings: &warnings,
            max_chars: config.max_summary_chars,
        });
        ToolOutcome { summary, results, texts, artifacts, display, dashboard, needs_input, error, kind, warnings, meta }
    }
}

fn text_viewer(viewer: Viewer) -> bool {
    matches!(viewer, Viewer::Code | Viewer::Text | Viewer::Markdown | Viewer::Json | Viewer::Csv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_round_trip() {
        let refs = vec!["artifact:a_1".to_owned(), "artifact:a_2".to_owned()];
        assert!(is_placeholder(&placeholder(12)));
        assert!(!is_placeholder("⟦artifact:x⟧"));
        assert_eq!(replace_placeholders("see ⟦artifact:1⟧ and ⟦artifact:0⟧.", &refs), "see artifact:a_2 and artifact:a_1.");
        assert_eq!(replace_placeholders("⟦artifact:9⟧ ⟦artifact:", &refs), "⟦artifact:9⟧ ⟦artifact:");
    }
}
