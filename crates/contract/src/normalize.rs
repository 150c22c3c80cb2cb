//! [`Normalizer`]: runs the layers in order over one result (see docs/result-shapes.md, "The
//! layers, in order").

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{
    blocks::{self, Block},
    config::ExtractionConfig,
    media_type::{parse_media_type, quoted_for_message, MediaTypeError},
    names::{self, UniqueNames},
    outcome::{Audience, Normalized, OutcomeText, PendingArtifact, Viewer},
    payload::Payload,
    shapes, sniff,
    transformer::{ExtractionSink, OutputTransformer, Transformed},
    walk, ContractError, RawToolResult,
};

/// Normalizes tool results with one configuration and optional custom transformers.
pub struct Normalizer<'a> {
    config: &'a ExtractionConfig,
    transformers: Vec<&'a dyn OutputTransformer>,
}

/// Extra facts about a binary being queued.
#[derive(Default)]
pub(crate) struct BinaryExtras {
    pub viewer_hint: Option<Viewer>,
    pub audience: Audience,
    pub summary_template: Option<String>,
    pub template_vars: BTreeMap<String, String>,
    pub preview: Option<(String, String, usize)>,
    /// Append the MIME type's extension to the name hint when it has none (`Sales` → `Sales.pdf`).
    pub add_extension: bool,
}

/// Collects pending artifacts and warnings while the layers run.
pub(crate) struct Extractor<'a> {
    pub config: &'a ExtractionConfig,
    pub server: &'a str,
    pub tool: &'a str,
    pub pending: Vec<PendingArtifact>,
    pub warnings: Vec<String>,
    /// The audience of the block being walked: binaries found inside a user-only JSON block are
    /// user-only too.
    pub block_audience: Audience,
    names: UniqueNames,
    nameless: usize,
}

impl<'a> Extractor<'a> {
    fn new(config: &'a ExtractionConfig, server: &'a str, tool: &'a str) -> Self {
        Self { config, server, tool, pending: Vec::new(), warnings: Vec::new(), block_audience: Audience::Both, names: UniqueNames::default(), nameless: 0 }
    }

    /// Queues a binary: checks the declared MIME type against the bytes, names it, and returns its
    /// index (for the `⟦artifact:N⟧` placeholder).
    pub fn add(&mut self, payload: Payload, declared: Option<&str>, name_hint: Option<&str>, source: String, description: Option<String>, extras: BinaryExtras) -> usize {
        let head = payload.head(sniff::SNIFF_BYTES);
        let declared = self.declared_media_type(declared, &source).or_else(|| name_hint.and_then(names::mime_for_name).map(str::to_owned));
        let (mime, warning) = sniff::reconcile(declared.as_deref(), &head);
        let shown_as_source = warning.is_some() && matches!(mime.as_str(), "image/svg+xml" | "text/html");
        if let Some(warning) = warning {
            self.warnings.push(format!("{source}: {warning}"));
        }
        let sanitized = name_hint.and_then(names::sanitize);
        if let (Some(hint), None) = (name_hint, &sanitized) {
            self.warnings.push(format!("{source}: name {:?} is not a usable file name; renamed", truncate(hint, 80)));
        } else if let (Some(hint), Some(clean)) = (name_hint, &sanitized) {
            if hint != clean && hint.trim() != clean {
                self.warnings.push(format!("{source}: name {:?} sanitized to {clean:?}", truncate(hint, 80)));
            }
        }
        let name = match sanitized {
            Some(name) if extras.add_extension && !name.contains('.') => format!("{name}.{}", names::extension_for(&mime)),
            Some(name) => name,
            None => {
                self.nameless += 1;
                names::default_name(self.tool, self.nameless, &mime)
            }
        };
        let name = self.names.claim(name);
        self.pending.push(PendingArtifact {
            name,
            mime,
            payload,
            source,
            description,
            viewer_hint: extras.viewer_hint,
            audience: if extras.audience == Audience::Both { self.block_audience } else { extras.audience },
            summary_template: extras.summary_template,
            template_vars: extras.template_vars,
            preview: extras.preview,
            shown_as_source,
        });
        self.pending.len() - 1
    }
}

impl Extractor<'_> {
    /// A declared media type, parsed (`media_type.rs`): `None` when none was declared (or only
    /// white space), and when it is not a media type — then with a warning, and what the content
    /// is decides (a binary's sniffed type; a text block has none).
    pub(crate) fn declared_media_type(&mut self, declared: Option<&str>, source: &str) -> Option<String> {
        match parse_media_type(declared?) {
            Ok(canonical) => Some(canonical),
            Err(MediaTypeError::Empty) => None,
            Err(why) => {
                self.warnings.push(format!("{source}: declared type {} is not a media type ({why}); ignored", quoted_for_message(declared?)));
                None
            }
        }
    }
}

fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

impl<'a> Normalizer<'a> {
    /// A normalizer with `config` and no transformers.
    pub fn new(config: &'a ExtractionConfig) -> Self {
        Self { config, transformers: Vec::new() }
    }

    /// Adds a custom transformer (consulted first, in the order added).
    pub fn with_transformer(mut self, transformer: &'a dyn OutputTransformer) -> Self {
        self.transformers.push(transformer);
        self
    }

    /// Normalizes one result. Fails only when the result is not a result at all; everything
    /// else that is wrong becomes a warning.
    pub fn normalize(&self, raw: RawToolResult<'_>) -> Result<Normalized, ContractError> {
        let RawToolResult { server, tool, mut result, output_schema } = raw;
        if !result.is_object() {
            return Err(ContractError::NotAnObject { server: server.to_owned(), tool: tool.to_owned(), found: crate::json_type_name(&result) });
        }
        if !matches!(result.get("content"), None | Some(Value::Null) | Some(Value::Array(_))) {
            return Err(ContractError::ContentNotArray { server: server.to_owned(), tool: tool.to_owned() });
        }
        let mut extractor = Extractor::new(self.config, server, tool);
        let mut skip_detection = false;
        for transformer in self.transformers.iter().filter(|t| t.applies_to(server, tool)) {
            let outcome = transformer.transform(&mut result, &mut ExtractionSink { extractor: &mut extractor });
            match outcome {
                Ok(Transformed::Done) => skip_detection = true,
                Ok(Transformed::Continue) => {}
                Err(e) => extractor.warnings.push(format!("custom transformer failed: {e}")),
            }
        }
        if !result.is_object() {
            return Err(ContractError::NotAnObject { server: server.to_owned(), tool: tool.to_owned(), found: crate::json_type_name(&result) });
        }

        let mut normalized = Normalized { server: server.to_owned(), tool: tool.to_owned(), ..Normalized::default() };
        let object = result.as_object_mut().expect("checked above");
        let is_error = object.get("isError").and_then(Value::as_bool).unwrap_or(false);
        let structured = object.remove("structuredContent").filter(|v| !v.is_null());
        let content = match object.remove("content") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let mut blocks = blocks::read_blocks(content, &mut extractor);

        // The canonical structured payload: the last JSON text block, else structuredContent (see
        // docs/result-shapes.md, "Which payload is canonical").
        let canonical_index = blocks.iter().rposition(|b| matches!(b, Block::Json { value, .. } if value.is_object() || value.is_array()));
        let canonical = match canonical_index {
            Some(index) => {
                let Block::Json { value, source, audience, .. } = blocks.remove(index) else { unreachable!() };
                normalized.results_audience = audience;
                if let Some(structured) = &structured {
                    if *structured != value {
                        extractor.warnings.push(format!("structuredContent disagrees with the JSON text block {source}; the JSON block is used (it is canonical)"));
                    }
                }
                Some((value, format!("text:{source}")))
            }
            None => structured.map(|v| (v, "structuredContent".to_owned())),
        };
        if let (Some(schema), Some((value, _))) = (output_schema, &canonical) {
            shapes::check_required(schema, value, &mut extractor.warnings);
        }

        if let Some((mut value, source)) = canonical {
            extractor.block_audience = normalized.results_audience;
            if !skip_detection {
                walk::apply_rules(&mut value, &source, &mut extractor);
            }
            shapes::classify(value, &source, &mut normalized, &mut extractor, skip_detection);
            extractor.block_audience = Audience::Both;
        }

        // MCP binary blocks were queued by read_blocks (layer 2); now text and other JSON blocks.
        for block in blocks {
            match block {
                Block::Text { text, mime, audience, priority, source } => {
                    let text = if skip_detection { text } else { walk::extract_from_text(text, &source, audience, &mut extractor) };
                    normalized.texts.push(OutcomeText { text, mime, audience, priority, source });
                }
                Block::Json { mut value, mime, audience, priority, source } => {
                    if !skip_detection {
                        extractor.block_audience = audience;
                        walk::detect_base64(&mut value, &source, &mut extractor, 0);
                        extractor.block_audience = Audience::Both;
                    }
                    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
                    normalized.texts.push(OutcomeText { text, mime: mime.or(Some("application/json".into())), audience, priority, source });
                }
            }
        }

        if is_error && normalized.error.is_none() {
            normalized.error = Some(crate::outcome::ToolErrorInfo {
                code: "TOOL_ERROR".into(),
                // The message goes into the model's summary: never from a user-only text.
                message: normalized
                    .texts
                    .iter()
                    .find(|t| t.audience != Audience::User)
                    .map(|t| truncate(t.text.trim(), 500))
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "the tool reported an error".into()),
                retryable: None,
                details: None,
            });
        }

        shapes::safety_net(&mut normalized, &mut extractor);
        normalized.pending = extractor.pending;
        normalized.warnings.extend(extractor.warnings);
        Ok(normalized)
    }
}
