//! [`Ingest`]: a raw result in, a stored, summarized outcome out — normalize (the contract),
//! stream each binary into the store (or adopt what was spilled while the result was read, see
//! `spill/mod.rs`), probe, finish. The call pipeline ends here; so does `mcp-canvas-cli
//! normalize` ([`Ingest::read_and_store`]).

use std::{io::Read, sync::Arc};

use mcp_canvas_contract::{ExtractionConfig, Normalizer, Payload, RawToolResult, StoredArtifact, ToolOutcome};
use mcp_canvas_store::{spill::{Scanner, Spills}, ArtifactStore, NewArtifact, Persistence};
use serde_json::Value;

use crate::{
    probe::{self, ArtifactProbe},
    spill, IngestError,
};

/// Whether a raw result is small enough that it cannot hold anything worth storing as a file: at
/// most [`INLINE_BYTES`] in all (below the size safety net), no string of 256 characters or more
/// (the shortest base64 the contract extracts), no `data:` URL, no block of a binary kind. Walks
/// at most that much.
fn holds_no_binary(raw: &Value) -> bool {
    fn walk(value: &Value, budget: &mut usize) -> bool {
        match value {
            // A string the contract could store (base64 from 256 characters, a `data:` URL)
            // goes the blocking way.
            Value::String(s) => {
                *budget = budget.saturating_sub(s.len() + 1);
                *budget > 0 && s.len() < 256 && !s.contains("data:")
            }
            Value::Array(items) => items.iter().all(|v| walk(v, budget)),
            Value::Object(map) => {
                if matches!(map.get("type").and_then(Value::as_str), Some("image" | "audio" | "resource" | "resource_link")) {
                    return false;
                }
                map.iter().all(|(k, v)| {
                    *budget = budget.saturating_sub(k.len());
                    walk(v, budget)
                })
            }
            _ => {
                *budget = budget.saturating_sub(8);
                *budget > 0
            }
        }
    }
    walk(raw, &mut INLINE_BYTES.clone())
}

/// See [`holds_no_binary`].
const INLINE_BYTES: usize = 8 * 1024;

/// What turning a raw result into a stored outcome needs, and nothing else: the store, the
/// probes, the extraction rules and the session. Cheap to clone; moved onto a blocking thread.
#[derive(Clone)]
pub struct Ingest {
    /// Where binaries go.
    pub store: Arc<ArtifactStore>,
    /// Asked for facts (pages, pixel size) once a binary is stored; the first that answers decides.
    pub probes: Arc<Vec<Box<dyn ArtifactProbe>>>,
    /// The contract's extraction rules.
    pub extraction: Arc<ExtractionConfig>,
    /// The session stored artifacts belong to.
    pub session_id: Arc<str>,
}

impl Ingest {
    /// [`Self::store_and_finish`] on a blocking thread (decoding, hashing, fsync and probes
    /// block), then `after_store` when something was stored (the host applies its quota there).
    #[allow(clippy::too_many_arguments)]
    pub async fn store(&self, server: &str, tool: &str, raw: Value, spills: Option<Spills>, output_schema: Option<Value>, call_id: &str, after_store: impl FnOnce()) -> Result<ToolOutcome, IngestError> {
        let outcome = if spills.is_none() && holds_no_binary(&raw) {
            // Text and small JSON: nothing to decode, hash or sync, so no hand-off to another
            // thread (two wake-ups, most of a small call's cost through the proxy).
            self.store_and_finish(server, tool, raw, output_schema.as_ref(), call_id)?
        } else {
            let ingest = self.clone();
            let (server_name, tool_name, id) = (server.to_owned(), tool.to_owned(), call_id.to_owned());
            tokio::task::spawn_blocking(move || ingest.store_and_finish_spilled(&server_name, &tool_name, raw, spills, output_schema.as_ref(), &id))
                .await
                .map_err(|e| IngestError::Panicked(format!("storing the result of `{server}`/`{tool}` failed: {e}")))??
        };
        if !outcome.artifacts.is_empty() {
            after_store();
        }
        Ok(outcome)
    }

    /// A result read from `reader` (named `label` in errors), its long base64 runs stored while
    /// they are read (see `spill/mod.rs`): the message is never held whole.
    pub fn read_and_store(&self, server: &str, tool: &str, mut reader: impl Read, label: &str, call_id: &str) -> Result<ToolOutcome, IngestError> {
        let stored = |source: mcp_canvas_store::StoreError| IngestError::Store { context: format!("storing what {label} holds"), source };
        let mut scanner = Scanner::new(self.store.clone());
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => scanner.feed(&buffer[..n]).map_err(stored)?,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(IngestError::Input(format!("cannot read {label}: {e}"))),
            }
        }
        let (message, spills) = scanner.finish().map_err(stored)?;
        drop(buffer);
        let raw: Value = serde_json::from_slice(&message).map_err(|e| IngestError::Input(format!("{label} is not valid JSON: {e}")))?;
        drop(message);
        self.store_and_finish_spilled(server, tool, raw, Some(spills), None, call_id)
    }

    /// Normalizes a raw result, streams its binaries into the store, and builds the outcome.
    /// A binary that fails to store becomes a warning; the others are kept. Blocking: call it
    /// from a blocking thread. No quota is applied here.
    pub fn store_and_finish(&self, server: &str, tool: &str, raw: Value, output_schema: Option<&Value>, call_id: &str) -> Result<ToolOutcome, IngestError> {
        self.store_and_finish_spilled(server, tool, raw, None, output_schema, call_id)
    }

    /// [`Self::store_and_finish`] for a message read through a [`Scanner`]: runs the
    /// contract must see whole are put back first, spilled binaries are adopted, not written
    /// again (see `spill/mod.rs`).
    pub fn store_and_finish_spilled(&self, server: &str, tool: &str, mut raw: Value, spills: Option<Spills>, output_schema: Option<&Value>, call_id: &str) -> Result<ToolOutcome, IngestError> {
        let config: &ExtractionConfig = &self.extraction;
        let mut spills = spills;
        let spill_error = |source: mcp_canvas_store::StoreError| IngestError::Store { context: format!("reading back the result of `{server}`/`{tool}`"), source };
        if let Some(spills) = spills.as_mut() {
            spill::prepare(&mut raw, spills, config).map_err(spill_error)?;
        }
        let normalized = Normalizer::new(config).normalize(RawToolResult { server, tool, result: raw, output_schema })?;
        let now_ms = now_ms();
        let mut stored: Vec<Result<StoredArtifact, String>> = Vec::with_capacity(normalized.pending.len());
        for pending in &normalized.pending {
            let new = NewArtifact {
                name: &pending.name,
                mime: &pending.mime,
                server,
                tool,
                call_id,
                session_id: &self.session_id,
                description: pending.description.as_deref(),
                persistence: Persistence::Session,
                now_ms,
            };
            let adopted = match (&pending.payload, spills.as_mut()) {
                (Payload::Base64 { text, url_safe: false }, Some(spills)) if spills.marks(text) => spills.adopt(&self.store, text, new.clone()),
                _ => None,
            };
            let record = match (adopted, spills.as_mut()) {
                (Some(record), _) => record,
                // A payload holding runs it could not adopt (or text holding them): put back, then stored as usual.
                (None, Some(spills)) => match &pending.payload {
                    Payload::Text(text) if spills.marks(text) => spills.restore_text(text).and_then(|text| self.store.put(new, Payload::Text(text).reader())),
                    Payload::Base64 { text, url_safe } if spills.marks(text) => {
                        spills.restore_text(text).and_then(|text| self.store.put(new, Payload::Base64 { text, url_safe: *url_safe }.reader()))
                    }
                    payload => self.store.put(new, payload.reader()),
                },
                (None, None) => self.store.put(new, pending.payload.reader()),
            };
            stored.push(record.map_err(|e| e.to_string()).map(|record| {
                let facts = probe::probe_all(&self.probes, &self.store.blob_path(&record.sha256), &record.mime);
                StoredArtifact { id: record.id, sha256: record.sha256, size: record.size, pages: facts.pages, width: facts.width, height: facts.height }
            }));
        }
        let outcome = normalized.finish(stored, config);
        match spills.as_mut() {
            Some(spills) => spill::restore_outcome(outcome, spills).map_err(spill_error),
            None => Ok(outcome),
        }
    }
}

/// Now, milliseconds since the Unix epoch (the store's clock; `Host::now_ms` is this one).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
