//! The sampling transcript: one row per sampling request a server made. The host gives the
//! columns it lists by and the whole exchange as JSON (its own type, so the store stays free of
//! sampling's); API keys never reach it (requests carry none).

use rusqlite::{params, Connection};

use crate::error::StoreError;

/// One stored exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRow {
    /// Row id (0 before it is stored).
    pub id: i64,
    /// The server that asked.
    pub server: String,
    /// When, ms since the Unix epoch.
    pub at_ms: i64,
    /// How it ended (`approved`, `rejected`, ...).
    pub decision: String,
    /// The provider's name ("" when none was reached).
    pub provider: String,
    /// The model ("" when none was used).
    pub model: String,
    /// Time in the provider.
    pub latency_ms: i64,
    /// Prompt tokens.
    pub input_tokens: i64,
    /// Completion tokens.
    pub output_tokens: i64,
    /// The whole exchange as JSON.
    pub record: String,
}

pub(crate) fn insert(conn: &Connection, row: &SamplingRow) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO sampling_exchanges (server, at_ms, decision, provider, model, latency_ms, input_tokens, output_tokens, record)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![row.server, row.at_ms, row.decision, row.provider, row.model, row.latency_ms, row.input_tokens, row.output_tokens, row.record],
    )?;
    Ok(conn.last_insert_rowid())
}

const SELECT: &str = "SELECT id, server, at_ms, decision, provider, model, latency_ms, input_tokens, output_tokens, record FROM sampling_exchanges";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SamplingRow> {
    Ok(SamplingRow {
        id: row.get(0)?,
        server: row.get(1)?,
        at_ms: row.get(2)?,
        decision: row.get(3)?,
        provider: row.get(4)?,
        model: row.get(5)?,
        latency_ms: row.get(6)?,
        input_tokens: row.get(7)?,
        output_tokens: row.get(8)?,
        record: row.get(9)?,
    })
}

/// `server`'s exchanges (every server's with `None`), newest first, at most `limit`.
pub(crate) fn recent(conn: &Connection, server: Option<&str>, limit: u32) -> Result<Vec<SamplingRow>, StoreError> {
    let mut stmt = conn.prepare(&format!("{SELECT} WHERE (?1 IS NULL OR server = ?1) ORDER BY id DESC LIMIT ?2"))?;
    let rows = stmt.query_map(params![server, limit], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The exchange with row id `id` (`None`: there is none).
pub(crate) fn get(conn: &Connection, id: i64) -> Result<Option<SamplingRow>, StoreError> {
    use rusqlite::OptionalExtension;
    Ok(conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row).optional()?)
}
