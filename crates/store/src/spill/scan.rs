//! The raw-byte pass: copies a JSON message through, spilling long base64 runs inside strings.
//! Bytes are fed in any chunks; the state (in a string, after a backslash, inside a `\u` escape,
//! the run so far) carries over between them.

use base64::Engine as _;
use std::sync::Arc;

use crate::{ArtifactStore, SpillFile, StoreError};

use super::{nonce, Marker, Slot, Spills, HEAD_CHARS, THRESHOLD};

/// Characters decoded per step while spilling (a multiple of 4).
const DECODE_CHARS: usize = 256 * 1024;

/// Standard-alphabet base64 characters (no padding): what a spilled run is made of.
static RUN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = matches!(b as u8, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/');
        b += 1;
    }
    table
};

/// A run being spilled: the characters not yet a whole group, and the file.
struct Spilling {
    file: SpillFile,
    partial: Vec<u8>,
}

/// Copies a message through, spilling runs of at least `threshold` characters into `store`.
pub struct Scanner {
    store: Arc<ArtifactStore>,
    threshold: usize,
    /// Drawn when the first run is spilled (most messages have none: no system call for them).
    nonce: Option<u64>,
    out: Vec<u8>,
    in_string: bool,
    /// The previous byte was a backslash inside a string (not yet copied).
    escape: bool,
    /// Hex digits of a `\u` escape still to copy.
    unicode_left: u8,
    /// The current run while it is shorter than the threshold.
    run: Vec<u8>,
    spilling: Option<Spilling>,
    slots: Vec<Slot>,
    /// Size and hash of each slot's bytes: the same run spilled twice gets the same marker, so
    /// two copies of one payload (a JSON text block and its `structuredContent`) stay equal.
    seen: Vec<(u64, [u8; 32])>,
    decoded: Vec<u8>,
}

impl Scanner {
    /// A scanner spilling runs of [`THRESHOLD`] characters or more into `store`.
    pub fn new(store: Arc<ArtifactStore>) -> Self {
        Self::with_threshold(store, THRESHOLD)
    }

    /// A scanner spilling runs of `threshold` characters or more (at least the head plus one group).
    pub fn with_threshold(store: Arc<ArtifactStore>, threshold: usize) -> Self {
        Scanner {
            store,
            threshold: threshold.max(HEAD_CHARS + 4),
            nonce: None,
            out: Vec::new(),
            in_string: false,
            escape: false,
            unicode_left: 0,
            run: Vec::new(),
            spilling: None,
            slots: Vec::new(),
            seen: Vec::new(),
            decoded: Vec::new(),
        }
    }

    /// Feeds the next bytes of the message.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<(), StoreError> {
        while !chunk.is_empty() {
            if !self.in_string {
                let end = chunk.iter().position(|&b| b == b'"').map_or(chunk.len(), |p| p + 1);
                self.out.extend_from_slice(&chunk[..end]);
                self.in_string = end <= chunk.len() && chunk[end - 1] == b'"';
                chunk = &chunk[end..];
                continue;
            }
            if self.unicode_left > 0 {
                let n = usize::from(self.unicode_left).min(chunk.len());
                self.out.extend_from_slice(&chunk[..n]);
                self.unicode_left -= n as u8;
                chunk = &chunk[n..];
                continue;
            }
            let b = chunk[0];
            if self.escape {
                self.escape = false;
                chunk = &chunk[1..];
                if b == b'/' {
                    // `\/` is `/`: part of a run (and written as `/`, the same JSON).
                    self.push_run(b"/")?;
                } else {
                    self.end_run()?;
                    self.out.extend_from_slice(&[b'\\', b]);
                    if b == b'u' {
                        self.unicode_left = 4;
                    }
                }
                continue;
            }
            if RUN[b as usize] {
                let span = chunk.iter().position(|&c| !RUN[c as usize]).unwrap_or(chunk.len());
                self.push_run(&chunk[..span])?;
                chunk = &chunk[span..];
                continue;
            }
            chunk = &chunk[1..];
            if b == b'\\' {
                self.escape = true; // `\/` continues a run; anything else ends it
                continue;
            }
            self.end_run()?;
            self.out.push(b);
            if b == b'"' {
                self.in_string = false;
            }
        }
        Ok(())
    }

    /// The message with its long runs replaced, and the runs.
    pub fn finish(mut self) -> Result<(Vec<u8>, Spills), StoreError> {
        if self.escape {
            self.end_run()?;
            self.out.push(b'\\');
        }
        self.end_run()?;
        Ok((std::mem::take(&mut self.out), Spills { nonce: self.nonce.unwrap_or(0), slots: std::mem::take(&mut self.slots) }))
    }

    fn push_run(&mut self, chars: &[u8]) -> Result<(), StoreError> {
        if self.spilling.is_none() {
            self.run.extend_from_slice(chars);
            if self.run.len() < self.threshold {
                return Ok(());
            }
            let file = self.store.start_spill()?;
            self.out.extend_from_slice(&self.run[..HEAD_CHARS]);
            self.spilling = Some(Spilling { file, partial: Vec::with_capacity(4) });
            let run = std::mem::take(&mut self.run);
            return self.spill(&run);
        }
        self.spill(chars)
    }

    /// Decodes whole groups of `chars` (after what was left over) into the spill file.
    fn spill(&mut self, mut chars: &[u8]) -> Result<(), StoreError> {
        let spilling = self.spilling.as_mut().expect("spilling");
        if !spilling.partial.is_empty() {
            let need = (4 - spilling.partial.len()).min(chars.len());
            spilling.partial.extend_from_slice(&chars[..need]);
            chars = &chars[need..];
            if spilling.partial.len() < 4 {
                return Ok(());
            }
            let group = std::mem::take(&mut spilling.partial);
            write_decoded(&mut spilling.file, &group, &mut self.decoded)?;
        }
        let whole = chars.len() - chars.len() % 4;
        for piece in chars[..whole].chunks(DECODE_CHARS) {
            write_decoded(&mut spilling.file, piece, &mut self.decoded)?;
        }
        spilling.partial.extend_from_slice(&chars[whole..]);
        Ok(())
    }

    /// Ends the current run: a short one is copied through, a spilled one becomes its marker and
    /// the characters after its last whole group.
    fn end_run(&mut self) -> Result<(), StoreError> {
        match self.spilling.take() {
            None => {
                self.out.extend_from_slice(&self.run);
                self.run.clear();
            }
            Some(Spilling { file, partial }) => {
                let key = (file.size(), file.digest_so_far());
                let index = match self.seen.iter().position(|seen| *seen == key) {
                    Some(earlier) => earlier, // `file` is dropped, and with it its temp file
                    None => {
                        self.seen.push(key);
                        self.slots.push(Slot::Open(file));
                        self.slots.len() - 1
                    }
                };
                let index = u32::try_from(index).expect("fewer than 4 billion runs in one message");
                let nonce = *self.nonce.get_or_insert_with(nonce);
                self.out.extend_from_slice(Marker { nonce, index }.encode().as_bytes());
                self.out.extend_from_slice(&partial);
            }
        }
        Ok(())
    }
}

/// Decodes whole groups of standard-alphabet characters (always valid) into `file`.
fn write_decoded(file: &mut SpillFile, chars: &[u8], buffer: &mut Vec<u8>) -> Result<(), StoreError> {
    buffer.resize(chars.len() / 4 * 3, 0);
    let n = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode_slice_unchecked(chars, buffer)
        .expect("whole groups of the standard alphabet decode");
    file.write(&buffer[..n])
}
