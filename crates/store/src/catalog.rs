//! The SQLite catalog: schema migrations and the queries the store needs.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::{
    error::StoreError,
    record::{ArtifactRecord, NewArtifact, Persistence},
};

/// Migrations in order; `PRAGMA user_version` records how many have run.
const MIGRATIONS: &[&str] = &[include_str!("../migrations/0001_artifacts.sql")];

const COLUMNS: &str = "id, sha256, name, mime, size, server, tool, call_id, session_id, created_at_ms, persistence, description";

pub(crate) fn open(path: &Path) -> Result<Connection, StoreError> {
    let mut conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    migrate(&mut conn)?;
    Ok(conn)
}

/// Runs the migrations this file has not seen yet, each in its own transaction.
///
/// Written by hand (twenty lines) rather than with `rusqlite_migration`, whose current release
/// pins an older rusqlite.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let current: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let supported = MIGRATIONS.len() as i64;
    if current > supported {
        return Err(StoreError::SchemaTooNew { found: current, supported });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", index as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

fn namespace(server: &str) -> String {
    let mut ns: String = server
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(24)
        .collect();
    if ns.is_empty() {
        ns.push_str("artifact");
    }
    ns
}

pub(crate) fn insert_or_touch(conn: &Connection, new: &NewArtifact<'_>, sha256: &str, size: u64) -> Result<ArtifactRecord, StoreError> {
    let ns = namespace(new.server);
    // 12 hex digits as the RFC recommends; on the (astronomically rare) prefix clash with other
    // bytes, lengthen the prefix instead of mixing two artifacts under one id.
    for len in [12, 16, 24, 64] {
        let id = format!("{ns}_{}", &sha256[..len]);
        if let Some(existing) = get_optional(conn, &id)? {
            if existing.sha256 == sha256 {
                conn.execute("UPDATE artifacts SET last_used_at_ms = ?1 WHERE id = ?2", params![new.now_ms, id])?;
                return Ok(existing);
            }
            continue;
        }
        conn.execute(
            "INSERT INTO artifacts (id, sha256, name, mime, size, server, tool, call_id, session_id,
                                    created_at_ms, last_used_at_ms, persistence, description)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12)",
            params![
                id,
                sha256,
                new.name,
                new.mime,
                size as i64,
                new.server,
                new.tool,
                new.call_id,
                new.session_id,
                new.now_ms,
                new.persistence.as_str(),
                new.description,
            ],
        )?;
        return get(conn, &id);
    }
    unreachable!("a 64-digit prefix is the whole sha256, which matched or was free")
}

pub(crate) fn get(conn: &Connection, id: &str) -> Result<ArtifactRecord, StoreError> {
    get_optional(conn, id)?.ok_or_else(|| StoreError::NotFound(id.to_owned()))
}

fn get_optional(conn: &Connection, id: &str) -> Result<Option<ArtifactRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM artifacts WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], from_row).optional()?)
}

pub(crate) fn list_session(conn: &Connection, session_id: &str) -> Result<Vec<ArtifactRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM artifacts WHERE session_id = ?1 ORDER BY created_at_ms, id");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([session_id], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<ArtifactRecord> {
    let persistence: String = row.get(10)?;
    Ok(ArtifactRecord {
        id: row.get(0)?,
        sha256: row.get(1)?,
        name: row.get(2)?,
        mime: row.get(3)?,
        size: row.get::<_, i64>(4)? as u64,
        server: row.get(5)?,
        tool: row.get(6)?,
        call_id: row.get(7)?,
        session_id: row.get(8)?,
        created_at_ms: row.get(9)?,
        persistence: Persistence::parse(&persistence).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(10, rusqlite::types::Type::Text, format!("unknown persistence `{persistence}`").into())
        })?,
        description: row.get(11)?,
    })
}

#[cfg(test)]
mod tests {
    use super::namespace;

    #[test]
    fn namespace_is_filename_safe() {
        assert_eq!(namespace("demo"), "demo");
        assert_eq!(namespace("My Server/../x"), "my-server----x");
        assert_eq!(namespace(""), "artifact");
        assert_eq!(namespace(&"a".repeat(100)).len(), 24);
    }
}
