//! The audit log: one row per tool call. Arguments arrive already redacted (the host decides
//! what is secret); the store only keeps and lists them.

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::StoreError;

/// One audited call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AuditRecord {
    /// The call's id.
    pub call_id: String,
    /// The session it ran in.
    pub session_id: String,
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// Arguments as sent, secrets redacted.
    #[ts(type = "unknown")]
    pub arguments: serde_json::Value,
    /// The identity injected as `username`, if the tool takes one.
    pub identity: Option<String>,
    /// Start, milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub started_ms: i64,
    /// How long it took.
    #[ts(type = "number")]
    pub duration_ms: i64,
    /// `ok`, `tool_error`, `protocol_error`, `timeout`, `cancelled`, `refused`.
    pub outcome: String,
    /// The error message, when there was one.
    pub detail: Option<String>,
    /// Artifacts the call stored.
    pub artifact_ids: Vec<String>,
    /// What the tool answered in text (secrets redacted, at most [`MAX_RESULT_TEXT`] bytes),
    /// searched with the call's files.
    #[serde(default)]
    pub result_text: Option<String>,
}

/// The most of a call's answer kept in its audit row.
pub const MAX_RESULT_TEXT: usize = 16 * 1024;

pub(crate) fn insert(conn: &Connection, record: &AuditRecord) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO audit (call_id, session_id, server, tool, arguments, identity, started_ms, duration_ms, outcome, detail, artifact_ids, result_text)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            record.call_id,
            record.session_id,
            record.server,
            record.tool,
            record.arguments.to_string(),
            record.identity,
            record.started_ms,
            record.duration_ms,
            record.outcome,
            record.detail,
            serde_json::to_string(&record.artifact_ids).expect("strings serialize"),
            record.result_text.as_deref().map(|t| &t[..floor_char_boundary(t, MAX_RESULT_TEXT)]),
        ],
    )?;
    Ok(())
}

fn floor_char_boundary(text: &str, max: usize) -> usize {
    let mut cut = max.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

const SELECT: &str = "SELECT call_id, session_id, server, tool, arguments, identity, started_ms, duration_ms, outcome, detail, artifact_ids, result_text FROM audit";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRecord> {
    let arguments: String = row.get(4)?;
    let artifacts: String = row.get(10)?;
    Ok(AuditRecord {
        call_id: row.get(0)?,
        session_id: row.get(1)?,
        server: row.get(2)?,
        tool: row.get(3)?,
        arguments: serde_json::from_str(&arguments).unwrap_or(serde_json::Value::Null),
        identity: row.get(5)?,
        started_ms: row.get(6)?,
        duration_ms: row.get(7)?,
        outcome: row.get(8)?,
        detail: row.get(9)?,
        artifact_ids: serde_json::from_str(&artifacts).unwrap_or_default(),
        result_text: row.get(11)?,
    })
}

pub(crate) fn recent(conn: &Connection, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
    let mut stmt = conn.prepare(&format!("{SELECT} ORDER BY seq DESC LIMIT ?1"))?;
    let rows = stmt.query_map([limit], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The most recent rows matching every filter given, newest first.
pub(crate) fn matching(conn: &Connection, filter: &AuditFilter<'_>, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "{SELECT} WHERE (?1 IS NULL OR server = ?1) AND (?2 IS NULL OR tool = ?2) AND (?3 IS NULL OR outcome = ?3) AND (?4 IS NULL OR started_ms >= ?4) AND (?5 IS NULL OR started_ms < ?5)
         ORDER BY seq DESC LIMIT ?6"
    ))?;
    let rows = stmt.query_map(params![filter.server, filter.tool, filter.outcome, filter.since_ms, filter.until_ms, limit], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Which audit rows to list (`None`: any).
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditFilter<'a> {
    /// Only this server's calls.
    pub server: Option<&'a str>,
    /// Only this tool's.
    pub tool: Option<&'a str>,
    /// Only this outcome.
    pub outcome: Option<&'a str>,
    /// Started at or after (ms since the Unix epoch).
    pub since_ms: Option<i64>,
    /// Started before.
    pub until_ms: Option<i64>,
}

/// The row at `seq` (`None`: there is none).
pub(crate) fn get(conn: &Connection, seq: i64) -> Result<Option<AuditRecord>, StoreError> {
    use rusqlite::OptionalExtension;
    Ok(conn.query_row(&format!("{SELECT} WHERE seq = ?1"), [seq], from_row).optional()?)
}
