//! A small in-memory LRU of rendered pages, keyed by (sha256 of the PDF, page, width), bounded
//! by entry count and by bytes.

use std::collections::VecDeque;
use std::sync::Arc;

/// (sha256 of the document, page index, width in pixels).
pub(crate) type Key = ([u8; 32], u32, u32);

/// Cache counters, for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Renders answered from the cache.
    pub hits: u64,
    /// Renders that had to call PDFium.
    pub misses: u64,
    /// Pages held now.
    pub entries: usize,
    /// PNG bytes held now.
    pub bytes: usize,
}

pub(crate) struct RenderCache {
    /// Least recently used first. A handful of entries: a linear scan beats hashing here.
    entries: VecDeque<(Key, Arc<Vec<u8>>)>,
    max_entries: usize,
    max_bytes: usize,
    stats: CacheStats,
}

impl RenderCache {
    pub(crate) fn new(max_entries: usize, max_bytes: usize) -> Self {
        RenderCache {
            entries: VecDeque::new(),
            max_entries,
            max_bytes,
            stats: CacheStats::default(),
        }
    }

    pub(crate) fn get(&mut self, key: &Key) -> Option<Arc<Vec<u8>>> {
        let Some(position) = self.entries.iter().position(|(held, _)| held == key) else {
            self.stats.misses += 1;
            return None;
        };
        let entry = self
            .entries
            .remove(position)
            .expect("position was just found");
        let png = Arc::clone(&entry.1);
        self.entries.push_back(entry);
        self.stats.hits += 1;
        Some(png)
    }

    pub(crate) fn insert(&mut self, key: Key, png: Arc<Vec<u8>>) {
        if self.max_entries == 0 || png.len() > self.max_bytes {
            return;
        }
        if let Some(position) = self.entries.iter().position(|(held, _)| *held == key) {
            let (_, old) = self
                .entries
                .remove(position)
                .expect("position was just found");
            self.stats.bytes -= old.len();
        }
        self.stats.bytes += png.len();
        self.entries.push_back((key, png));
        while self.entries.len() > self.max_entries || self.stats.bytes > self.max_bytes {
            let Some((_, evicted)) = self.entries.pop_front() else {
                break;
            };
            self.stats.bytes -= evicted.len();
        }
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            entries: self.entries.len(),
            ..self.stats
        }
    }
}
