//! Long base64 runs taken out of a message while it is read, so that what is parsed is small and
//! each byte of a large binary is touched once: decoded, hashed and written to a temp file in the
//! store as it arrives, and adopted as the artifact's blob without being written again.
//!
//! A run of ≥ [`THRESHOLD`] standard-alphabet characters inside a JSON string (`\/` read as `/`)
//! becomes a *compact* string: its first [`HEAD_CHARS`] characters as they were (everything the
//! contract reads to decide what a base64 string is), a [`Marker`] (base64-alphabet characters,
//! a multiple of four, naming this message's nonce and the spill), and the 0–3 characters after
//! the last whole 4-character group, followed by whatever came after the run (padding, the
//! closing quote). The compact is itself valid base64 exactly when the original was, with the
//! same head, the same alphabet and the same padding.
//!
//! Before the contract sees the parsed message, the ingest crate (`mcp_canvas_ingest::spill`)
//! puts every run back whose outcome could differ because it was shortened (anything but a whole
//! base64 string the contract will take as a binary); after it, the host adopts the spill of
//! each pending artifact whose payload is a compact ([`Spills::adopt`]) and
//! [`Spills::restore_text`] puts back any run still in the outcome. Runs are put back exactly:
//! only whole 4-character groups are spilled, and for those decoding and encoding again is the
//! identity.
//!
//! These types live here, beneath both the client (whose transports run the [`Scanner`] while
//! a message is read and keep a `tools/call` answer's [`Spills`] until its call takes them) and
//! the ingest crate (which decides what to put back and adopts the rest): each uses them as
//! they are, with no trait object between. Pieces: `scan.rs` (the raw-byte state machine).

mod scan;

pub use scan::Scanner;

use serde_json::Value;

use base64::Engine as _;
use crate::{ArtifactRecord, ArtifactStore, NewArtifact, SpillFile, StoreError};

/// Runs shorter than this stay in the message (a 48 KiB binary).
pub const THRESHOLD: usize = 64 * 1024;
/// Characters of a spilled run kept in the message: the 24 KiB the contract sniffs.
pub const HEAD_CHARS: usize = 32 * 1024;

/// What starts a spilled run's marker in a message (also how the protocol log recognizes one).
pub const TAG: &str = "McpCanvasSpill";
/// `TAG`, 16 hex digits of nonce, 8 of index, `Zz`: 40 characters.
const MARKER_LEN: usize = TAG.len() + 16 + 8 + 2;

/// One spilled run's stand-in in the message.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Marker {
    nonce: u64,
    index: u32,
}

impl Marker {
    fn encode(self) -> String {
        format!("{TAG}{:016x}{:08x}Zz", self.nonce, self.index)
    }

    /// The first marker with `nonce` in `text`: its byte range and index.
    fn find(text: &str, nonce: u64) -> Option<(std::ops::Range<usize>, u32)> {
        fn hex(bytes: &[u8]) -> Option<&str> {
            std::str::from_utf8(bytes).ok().filter(|t| t.bytes().all(|b| b.is_ascii_hexdigit()))
        }
        for (at, _) in text.match_indices(TAG) {
            let Some(fields) = text.as_bytes().get(at + TAG.len()..at + MARKER_LEN) else { break };
            let (n, rest) = fields.split_at(16);
            let (index, end) = rest.split_at(8);
            if end == b"Zz" && hex(n).and_then(|n| u64::from_str_radix(n, 16).ok()) == Some(nonce) {
                if let Some(index) = hex(index).and_then(|i| u32::from_str_radix(i, 16).ok()) {
                    return Some((at..at + MARKER_LEN, index));
                }
            }
        }
        None
    }
}

/// A spill still to be adopted, or where an adopted one's bytes now are.
enum Slot {
    Open(SpillFile),
    Adopted { blob: std::path::PathBuf, size: u64 },
    Gone,
}

/// The runs spilled from one message. Dropping it removes the temp files not adopted.
pub struct Spills {
    nonce: u64,
    slots: Vec<Slot>,
}

impl Spills {
    /// Whether any run was spilled.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Whether `text` holds a marker of this message.
    pub fn marks(&self, text: &str) -> bool {
        !self.slots.is_empty() && Marker::find(text, self.nonce).is_some()
    }

    /// Stores the payload `text` (a compact: head, marker, last characters) as an artifact from
    /// its spill. `None` when `text` is not exactly one compact of this message.
    pub fn adopt(&mut self, store: &ArtifactStore, text: &str, new: NewArtifact<'_>) -> Option<Result<ArtifactRecord, StoreError>> {
        let (range, index) = Marker::find(text, self.nonce)?;
        let slot = self.slots.get_mut(index as usize)?;
        let tail = &text[range.end..];
        if range.start != HEAD_CHARS || tail.len() > 5 || Marker::find(tail, self.nonce).is_some() || !matches!(slot, Slot::Open(_)) {
            return None;
        }
        let tail = match base64::engine::GeneralPurpose::new(&base64::alphabet::STANDARD, lenient()).decode(tail) {
            Ok(tail) => tail,
            Err(_) => return None,
        };
        let Slot::Open(file) = std::mem::replace(slot, Slot::Gone) else { unreachable!() };
        let size = file.size();
        let record = store.put_spilled(new, file, &tail);
        if let Ok(record) = &record {
            *slot = Slot::Adopted { blob: store.blob_path(&record.sha256), size };
        }
        Some(record)
    }

    /// How many characters putting every run of `value` back would add (for size limits on
    /// the whole message): each marker counts, also when two stand for the same run.
    pub fn restored_growth(&self, value: &Value) -> u64 {
        match value {
            Value::String(text) => self.growth_of(text),
            Value::Array(items) => items.iter().map(|v| self.restored_growth(v)).sum(),
            Value::Object(map) => map.iter().map(|(k, v)| self.growth_of(k) + self.restored_growth(v)).sum(),
            _ => 0,
        }
    }

    fn growth_of(&self, text: &str) -> u64 {
        self.indices_in(text)
            .into_iter()
            .map(|index| match self.slots.get(index as usize) {
                Some(Slot::Open(file)) => file.size(),
                Some(Slot::Adopted { size, .. }) => *size,
                _ => 0,
            })
            .map(|bytes| (bytes / 3 * 4).saturating_sub((HEAD_CHARS + MARKER_LEN) as u64))
            .sum()
    }

    /// Puts every run in `value` back.
    pub fn restore_value(&mut self, value: &mut Value) -> Result<(), StoreError> {
        self.restore_matching(value, &|_| true)
    }

    /// Puts back the runs numbered in `indices`, in strings and object keys at any depth.
    pub fn restore_value_where(&mut self, value: &mut Value, indices: &[u32]) -> Result<(), StoreError> {
        self.restore_matching(value, &|index| indices.contains(&index))
    }

    /// Puts back the runs whose index passes `which`, in strings and object keys at any depth.
    fn restore_matching(&mut self, value: &mut Value, which: &dyn Fn(u32) -> bool) -> Result<(), StoreError> {
        match value {
            Value::String(text) if self.marks(text) => *text = self.restore_text_where(text, which)?,
            Value::Object(map) if map.keys().any(|k| self.marks(k)) => {
                for (key, mut child) in std::mem::take(map) {
                    self.restore_matching(&mut child, which)?;
                    let key = if self.marks(&key) { self.restore_text_where(&key, which)? } else { key };
                    map.insert(key, child);
                }
            }
            Value::Object(map) => map.values_mut().try_for_each(|v| self.restore_matching(v, which))?,
            Value::Array(items) => items.iter_mut().try_for_each(|v| self.restore_matching(v, which))?,
            _ => {}
        }
        Ok(())
    }

    /// The indices of this message's markers anywhere in `value`, object keys included.
    pub fn indices_in_value(&self, value: &Value) -> Vec<u32> {
        let mut out = Vec::new();
        self.collect_indices(value, &mut out);
        out
    }

    fn collect_indices(&self, value: &Value, out: &mut Vec<u32>) {
        match value {
            Value::String(text) => out.extend(self.indices_in(text)),
            Value::Object(map) => map.iter().for_each(|(k, v)| {
                out.extend(self.indices_in(k));
                self.collect_indices(v, out)
            }),
            Value::Array(items) => items.iter().for_each(|v| self.collect_indices(v, out)),
            _ => {}
        }
    }

    /// Whether `text[start..]` is exactly one compact of this message: the head, one marker, at
    /// most five characters after it, of the standard alphabet and padding only (so the compact
    /// is valid in exactly the alphabet the original is).
    pub fn is_one_compact_at(&self, text: &str, start: usize) -> bool {
        let Some(body) = text.get(start..) else { return false };
        match Marker::find(body, self.nonce) {
            Some((range, _)) => {
                let tail = &body[range.end..];
                range.start == HEAD_CHARS && tail.len() <= 5 && tail.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')) && self.indices_in(body).len() == 1
            }
            None => false,
        }
    }

    /// The indices of this message's markers in `text`.
    pub fn indices_in(&self, text: &str) -> Vec<u32> {
        let mut found = Vec::new();
        let mut rest = text;
        while let Some((range, index)) = Marker::find(rest, self.nonce) {
            found.push(index);
            rest = &rest[range.end..];
        }
        found
    }

    /// `text` with every marker of this message replaced by the characters it stands for.
    pub fn restore_text(&mut self, text: &str) -> Result<String, StoreError> {
        self.restore_text_where(text, &|_| true)
    }

    /// `text` with the markers whose index passes `which` replaced by their characters.
    pub fn restore_text_where(&mut self, text: &str, which: &dyn Fn(u32) -> bool) -> Result<String, StoreError> {
        let mut out = String::new();
        let mut rest = text;
        while let Some((range, index)) = Marker::find(rest, self.nonce) {
            out.push_str(&rest[..range.start]);
            if !which(index) {
                out.push_str(&rest[range.clone()]);
                rest = &rest[range.end..];
                continue;
            }
            let bytes = match self.slots.get_mut(index as usize) {
                Some(Slot::Open(file)) => file.read_back()?,
                Some(Slot::Adopted { blob, size }) => {
                    let mut bytes = std::fs::read(&*blob).map_err(|e| StoreError::Io { action: "reading", path: blob.clone(), source: e })?;
                    bytes.truncate(*size as usize);
                    bytes
                }
                _ => {
                    return Err(StoreError::Io {
                        action: "putting back",
                        path: std::path::PathBuf::from(format!("spilled run {index}")),
                        source: std::io::Error::other("its bytes are no longer there (storing them failed)"),
                    })
                }
            };
            let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
            out.push_str(encoded.get(HEAD_CHARS..).unwrap_or_default());
            rest = &rest[range.end..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

fn lenient() -> base64::engine::GeneralPurposeConfig {
    base64::engine::GeneralPurposeConfig::new().with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
}

fn nonce() -> u64 {
    // Without OS randomness the clock still tells this process's messages apart.
    getrandom::u64().unwrap_or_else(|_| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64))
}

