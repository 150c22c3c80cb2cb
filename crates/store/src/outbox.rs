//! The team outbox: artifacts stored here that the team store has not registered yet, oldest
//! first (see the migration `0006_team_outbox.sql`). The team crate drains it; this store only
//! keeps it consistent with the artifacts (queued with the row, never evicted while queued,
//! dropped with the artifact when the user removes it).

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use ts_rs::TS;

use crate::{
    catalog::{from_row, COLUMNS},
    error::StoreError,
    record::ArtifactRecord,
};

/// One artifact waiting for the team store.
#[derive(Debug, Clone)]
pub struct Queued {
    /// Position in the queue (uploads go in this order).
    pub seq: i64,
    /// The artifact as stored here.
    pub record: ArtifactRecord,
    /// Failed attempts so far.
    pub attempts: u32,
}

/// How far behind the team store this data dir is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct OutboxStats {
    /// Artifacts waiting.
    pub count: u32,
    /// Their bytes.
    #[ts(type = "number")]
    pub bytes: u64,
    /// When the oldest was queued (milliseconds since the Unix epoch).
    #[ts(type = "number | null")]
    pub oldest_queued_at_ms: Option<i64>,
    /// Why the last attempt failed, when it did.
    pub last_error: Option<String>,
    /// Audit rows and sampling exchanges waiting for the team catalog.
    pub records: u32,
}

pub(crate) fn enqueue(conn: &Connection, id: &str, sha256: &str, now_ms: i64) -> Result<(), StoreError> {
    conn.execute("INSERT OR IGNORE INTO team_outbox (artifact_id, sha256, queued_at_ms) VALUES (?1, ?2, ?3)", params![id, sha256, now_ms])?;
    Ok(())
}

/// Queues every artifact not queued yet (`store migrate`); returns how many were added.
pub(crate) fn enqueue_all(conn: &Connection, now_ms: i64, except_session: &str) -> Result<usize, StoreError> {
    Ok(conn.execute(
        "INSERT OR IGNORE INTO team_outbox (artifact_id, sha256, queued_at_ms)
         SELECT id, sha256, ?1 FROM artifacts a WHERE NOT (a.session_id = ?2 AND NOT EXISTS
             (SELECT 1 FROM session_artifacts s WHERE s.artifact_id = a.id AND s.session_id <> ?2))
         ORDER BY created_at_ms, id",
        params![now_ms, except_session],
    )?)
}

pub(crate) fn next(conn: &Connection, after_seq: i64, limit: u32) -> Result<Vec<Queued>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS}, o.seq, o.attempts FROM team_outbox o JOIN artifacts a ON a.id = o.artifact_id WHERE o.seq > ?1 ORDER BY o.seq LIMIT ?2"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params![after_seq, limit], |row| Ok(Queued { record: from_row(row)?, seq: row.get(13)?, attempts: row.get(14)? }))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(crate) fn done(conn: &Connection, seq: i64) -> Result<(), StoreError> {
    conn.execute("DELETE FROM team_outbox WHERE seq = ?1", [seq])?;
    Ok(())
}

pub(crate) fn failed(conn: &Connection, seq: i64, error: &str) -> Result<(), StoreError> {
    conn.execute("UPDATE team_outbox SET attempts = attempts + 1, last_error = ?2 WHERE seq = ?1", params![seq, error])?;
    Ok(())
}

pub(crate) fn stats(conn: &Connection) -> Result<OutboxStats, StoreError> {
    let (count, bytes, oldest): (u32, i64, Option<i64>) = conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(a.size), 0), MIN(o.queued_at_ms) FROM team_outbox o JOIN artifacts a ON a.id = o.artifact_id",
        [],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let last_error = conn
        .query_row("SELECT last_error FROM team_outbox WHERE last_error IS NOT NULL ORDER BY seq LIMIT 1", [], |row| row.get(0))
        .optional()?;
    Ok(OutboxStats { count, bytes: bytes as u64, oldest_queued_at_ms: oldest, last_error, records: 0 })
}
