//! The bytes of a pending artifact, kept in the form they arrived in until the host streams them
//! into the store: base64 is decoded while it is read, never held twice.

use std::io::{Cursor, Read};

use base64::{
    alphabet,
    engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig},
    read::DecoderReader,
    Engine as _,
};

/// What an artifact's bytes are made of.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// Validated base64 (no whitespace; padding optional). Decoded on read.
    Base64 {
        /// The base64 text.
        text: String,
        /// URL-safe alphabet (`-` and `_`) instead of the standard one.
        url_safe: bool,
    },
    /// Raw bytes (percent-decoded `data:` URLs, transformer output).
    Bytes(Vec<u8>),
    /// Text stored as UTF-8 (the size safety net, embedded text resources).
    Text(String),
}

pub(crate) fn engine(url_safe: bool) -> GeneralPurpose {
    let config = GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    GeneralPurpose::new(if url_safe { &alphabet::URL_SAFE } else { &alphabet::STANDARD }, config)
}

impl Payload {
    /// A reader over the decoded bytes.
    pub fn reader(&self) -> Box<dyn Read + Send + '_> {
        match self {
            Payload::Base64 { text, url_safe } => {
                Box::new(DecoderReader::new(Cursor::new(text.as_bytes()), &ENGINES[usize::from(*url_safe)]))
            }
            Payload::Bytes(bytes) => Box::new(Cursor::new(bytes.as_slice())),
            Payload::Text(text) => Box::new(Cursor::new(text.as_bytes())),
        }
    }

    /// Up to `max` decoded bytes from the start, for sniffing.
    pub fn head(&self, max: usize) -> Vec<u8> {
        match self {
            Payload::Base64 { text, url_safe } => decode_head(text, *url_safe, max),
            Payload::Bytes(bytes) => bytes[..bytes.len().min(max)].to_vec(),
            Payload::Text(text) => text.as_bytes()[..text.len().min(max)].to_vec(),
        }
    }

    /// The decoded size in bytes.
    pub fn decoded_len(&self) -> u64 {
        match self {
            Payload::Base64 { text, .. } => {
                let body = text.trim_end_matches('=').len() as u64;
                body / 4 * 3 + [0, 0, 1, 2][(body % 4) as usize]
            }
            Payload::Bytes(bytes) => bytes.len() as u64,
            Payload::Text(text) => text.len() as u64,
        }
    }
}

static ENGINES: std::sync::LazyLock<[GeneralPurpose; 2]> = std::sync::LazyLock::new(|| [engine(false), engine(true)]);

/// Decodes the first whole base64 quantums covering up to `max` bytes.
pub(crate) fn decode_head(text: &str, url_safe: bool, max: usize) -> Vec<u8> {
    let chars = (max.div_ceil(3) * 4).min(text.len());
    let cut = if chars == text.len() { chars } else { chars - chars % 4 };
    let mut bytes = ENGINES[usize::from(url_safe)].decode(&text.as_bytes()[..cut]).unwrap_or_default();
    bytes.truncate(max);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_reads_back_decoded_and_reports_its_size() {
        let original: Vec<u8> = (0..=255u8).cycle().take(10_001).collect();
        for url_safe in [false, true] {
            let text = engine(url_safe).encode(&original);
            let payload = Payload::Base64 { text: text.trim_end_matches('=').to_owned(), url_safe };
            let mut decoded = Vec::new();
            payload.reader().read_to_end(&mut decoded).unwrap();
            assert_eq!(decoded, original);
            assert_eq!(payload.decoded_len(), original.len() as u64);
            assert_eq!(payload.head(7), original[..7]);
        }
    }
}
