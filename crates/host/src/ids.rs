//! Identifiers for sessions and calls: unique enough to tell runs and calls apart, not secrets.

use std::{
    hash::{BuildHasher, Hasher},
    sync::atomic::{AtomicU64, Ordering},
};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh id like `call-5f3a9c0e12b4d6a8`.
pub(crate) fn fresh(prefix: &str) -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    format!("{prefix}-{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_differ() {
        let a = super::fresh("call");
        let b = super::fresh("call");
        assert_ne!(a, b);
        assert!(a.starts_with("call-") && a.len() == 21, "{a}");
    }
}
