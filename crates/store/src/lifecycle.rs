//! Keeping the store bounded: session clears, the quota, the age limit. Pinned artifacts are
//! never evicted.

use rusqlite::{params, Connection, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::{
    catalog::{from_row, COLUMNS},
    error::StoreError,
    record::ArtifactRecord,
};

/// Limits for unpinned artifacts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Total bytes of unpinned + pinned blobs above which unpinned ones are evicted, least recently
    /// used first. Default 2 GiB.
    pub quota_bytes: u64,
    /// Unpinned artifacts unused for longer than this are evicted. Default: no age limit.
    pub max_age_days: Option<u32>,
    /// Sessions idle for longer than this are cleared when the app starts. Default 7 days.
    pub session_retention_days: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self { quota_bytes: 2 * 1024 * 1024 * 1024, max_age_days: None, session_retention_days: 7 }
    }
}

/// What [`crate::ArtifactStore::enforce`] removed.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct Eviction {
    /// Evicted for age.
    pub expired: Vec<String>,
    /// Evicted for the quota.
    pub over_quota: Vec<String>,
}

pub(crate) fn clear_session(conn: &mut Connection, session_id: &str) -> Result<Vec<ArtifactRecord>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute("DELETE FROM session_artifacts WHERE session_id = ?1", [session_id])?;
    let sql = format!(
        "SELECT {COLUMNS} FROM artifacts a WHERE a.persistence = 'session'
         AND NOT EXISTS (SELECT 1 FROM session_artifacts s WHERE s.artifact_id = a.id)
         AND NOT EXISTS (SELECT 1 FROM team_outbox o WHERE o.artifact_id = a.id)"
    );
    let removed: Vec<ArtifactRecord> = tx.prepare(&sql)?.query_map([], from_row)?.collect::<Result<_, _>>()?;
    for record in &removed {
        tx.execute("DELETE FROM artifacts WHERE id = ?1", [&record.id])?;
    }
    tx.commit()?;
    Ok(removed)
}

pub(crate) fn sessions_idle_since(conn: &Connection, cutoff_ms: i64, keep: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT session_id FROM session_artifacts GROUP BY session_id HAVING MAX(added_at_ms) < ?1 AND session_id <> ?2")?;
    let rows = stmt.query_map(params![cutoff_ms, keep], |row| row.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Evicts what the limits say must go. Returns what was evicted and the sha256 of every removed
/// row (whose blobs the caller deletes when nothing else references them).
pub(crate) fn enforce(conn: &mut Connection, limits: &Limits, now_ms: i64) -> Result<(Eviction, Vec<String>), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut eviction = Eviction::default();
    let mut freed = Vec::new();
    if let Some(days) = limits.max_age_days {
        let cutoff = now_ms - i64::from(days) * 86_400_000;
        let mut stmt = tx.prepare("SELECT id, sha256 FROM artifacts WHERE persistence = 'session' AND last_used_at_ms < ?1
             AND id NOT IN (SELECT artifact_id FROM team_outbox) ORDER BY last_used_at_ms")?;
        let expired: Vec<(String, String)> = stmt.query_map([cutoff], |row| Ok((row.get(0)?, row.get(1)?)))?.collect::<Result<_, _>>()?;
        drop(stmt);
        for (id, sha) in expired {
            tx.execute("DELETE FROM artifacts WHERE id = ?1", [&id])?;
            eviction.expired.push(id);
            freed.push(sha);
        }
    }
    let total: i64 = tx.query_row("SELECT COALESCE(SUM(size), 0) FROM (SELECT sha256, MAX(size) AS size FROM artifacts GROUP BY sha256)", [], |row| row.get(0))?;
    let mut excess = total - limits.quota_bytes.min(i64::MAX as u64) as i64;
    if excess > 0 {
        let mut stmt = tx.prepare("SELECT id, sha256, size FROM artifacts WHERE persistence = 'session'
             AND id NOT IN (SELECT artifact_id FROM team_outbox) ORDER BY last_used_at_ms, created_at_ms, id")?;
        let candidates: Vec<(String, String, i64)> = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?.collect::<Result<_, _>>()?;
        drop(stmt);
        for (id, sha, size) in candidates {
            if excess <= 0 {
                break;
            }
            tx.execute("DELETE FROM artifacts WHERE id = ?1", [&id])?;
            // The bytes are freed only when no other artifact shares the blob.
            let shared: i64 = tx.query_row("SELECT COUNT(*) FROM artifacts WHERE sha256 = ?1", [&sha], |row| row.get(0))?;
            if shared == 0 {
                excess -= size;
            }
            eviction.over_quota.push(id);
            freed.push(sha);
        }
    }
    tx.commit()?;
    Ok((eviction, freed))
}
