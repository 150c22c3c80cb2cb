//! The team log outbox: audit rows and sampling exchanges written here that the team catalog does
//! not have yet, oldest first (the migration `0009_team_log_outbox.sql`). Like the artifacts'
//! outbox: an entry is added in the transaction that writes its row (only while the store queues
//! for a team), and leaves only when the team store says the team catalog has it. Each entry
//! carries the key (`uid`) its row has in the team catalog, so a repeated drain writes it once.

use rusqlite::{params, Connection, OptionalExtension};

use crate::{audit::AuditRecord, error::StoreError, sampling::SamplingRow};

/// What a queued entry is.
#[derive(Debug, Clone, PartialEq)]
pub enum LogEntry {
    /// A tool call's audit row.
    Call(AuditRecord),
    /// A sampling exchange.
    Sampling(SamplingRow),
}

/// One audit row or sampling exchange waiting for the team catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuedLog {
    /// Position in the queue.
    pub seq: i64,
    /// The row's key in the team catalog (made here, once).
    pub uid: String,
    /// The row.
    pub entry: LogEntry,
}

pub(crate) fn enqueue(conn: &Connection, kind: &str, row_id: i64, now_ms: i64) -> Result<(), StoreError> {
    conn.execute("INSERT OR IGNORE INTO team_log_outbox (kind, row_id, queued_at_ms) VALUES (?1, ?2, ?3)", params![kind, row_id, now_ms])?;
    Ok(())
}

/// The next `limit` entries after `after_seq`, oldest first. An entry whose row is gone (nothing
/// removes them today) leaves the queue here.
pub(crate) fn next(conn: &Connection, after_seq: i64, limit: u32) -> Result<Vec<QueuedLog>, StoreError> {
    let mut stmt = conn.prepare("SELECT seq, uid, kind, row_id FROM team_log_outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2")?;
    let queued: Vec<(i64, String, String, i64)> = stmt.query_map(params![after_seq, limit], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(queued.len());
    for (seq, uid, kind, row_id) in queued {
        let entry = match kind.as_str() {
            "call" => crate::audit::get(conn, row_id)?.map(LogEntry::Call),
            _ => crate::sampling::get(conn, row_id)?.map(LogEntry::Sampling),
        };
        match entry {
            Some(entry) => out.push(QueuedLog { seq, uid, entry }),
            None => done(conn, &[seq])?,
        }
    }
    Ok(out)
}

pub(crate) fn done(conn: &Connection, seqs: &[i64]) -> Result<(), StoreError> {
    let tx = conn.unchecked_transaction()?;
    for seq in seqs {
        tx.execute("DELETE FROM team_log_outbox WHERE seq = ?1", [seq])?;
    }
    tx.commit()?;
    Ok(())
}

pub(crate) fn failed(conn: &Connection, seqs: &[i64], error: &str) -> Result<(), StoreError> {
    let tx = conn.unchecked_transaction()?;
    for seq in seqs {
        tx.execute("UPDATE team_log_outbox SET attempts = attempts + 1, last_error = ?2 WHERE seq = ?1", params![seq, error])?;
    }
    tx.commit()?;
    Ok(())
}

/// How many entries wait, and the oldest one's last error.
pub(crate) fn stats(conn: &Connection) -> Result<(u32, Option<String>), StoreError> {
    let count: u32 = conn.query_row("SELECT COUNT(*) FROM team_log_outbox", [], |r| r.get(0))?;
    let last_error = conn.query_row("SELECT last_error FROM team_log_outbox WHERE last_error IS NOT NULL ORDER BY seq LIMIT 1", [], |r| r.get(0)).optional()?;
    Ok((count, last_error))
}
