//! The SQLite catalog: schema migrations and the row-level operations the store needs.

use std::{collections::HashSet, path::Path};

use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};

use crate::{
    error::StoreError,
    record::{ArtifactRecord, NewArtifact, Persistence},
};

/// Migrations in order; `PRAGMA user_version` records how many have run.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_artifacts.sql"),
    include_str!("../migrations/0002_sessions_and_queries.sql"),
    include_str!("../migrations/0003_audit.sql"),
    include_str!("../migrations/0004_blob_reservations.sql"),
    include_str!("../migrations/0005_sampling.sql"),
    include_str!("../migrations/0006_team_outbox.sql"),
    include_str!("../migrations/0007_search.sql"),
    include_str!("../migrations/0008_search_sources.sql"),
    include_str!("../migrations/0009_team_log_outbox.sql"),
    include_str!("../migrations/0010_search_without_positions.sql"),
    include_str!("../migrations/0011_search_vocab.sql"),
    include_str!("../migrations/0012_search_pairs.sql"),
    include_str!("../migrations/0013_search_automerge.sql"),
    include_str!("../migrations/0014_search_pair_blocks.sql"),
];

pub(crate) const COLUMNS: &str =
    "a.id, a.sha256, a.name, a.mime, a.size, a.server, a.tool, a.call_id, a.session_id, a.created_at_ms, a.last_used_at_ms, a.persistence, a.description";

pub(crate) fn open(path: &Path) -> Result<Connection, StoreError> {
    let mut conn = Connection::open(path)?;
    // Another process (the app and the CLI) may be writing: wait rather than fail.
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
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
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Another process may have migrated while we waited for the lock.
        let now: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if now > index as i64 {
            continue;
        }
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

/// Reserves `sha256` for a writer about to move its blob into place (see the migration
/// `0004_blob_reservations.sql`): from this commit on, no gc deletes that blob.
pub(crate) fn reserve(conn: &Connection, token: &str, sha256: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO blob_reservations (token, sha256, pid, created_ms) VALUES (?1, ?2, ?3, ?4)",
        params![token, sha256, std::process::id(), wall_clock_ms()],
    )?;
    Ok(())
}

/// Reservations live for milliseconds (from the rename to the row); one this old is a writer's
/// that is gone, whatever its process looks like.
const RESERVATION_EXPIRES_MS: i64 = 60 * 60 * 1000;

/// The wall clock, not the caller's `now_ms`: a reservation's age protects against writers that
/// died, which only real time can tell.
fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Drops a reservation whose write failed.
pub(crate) fn release(conn: &Connection, token: &str) -> Result<(), StoreError> {
    conn.execute("DELETE FROM blob_reservations WHERE token = ?1", [token])?;
    Ok(())
}

/// Drops the reservations of writers that are gone (crashed between reserving and their row):
/// older than an hour, or of this process's pid but an earlier process, or of a pid that no
/// longer runs. Decided and deleted token by token inside one write transaction.
pub(crate) fn drop_stale_reservations(conn: &mut Connection, me: &str, alive: impl Fn(u32) -> bool) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let reservations: Vec<(String, u32, i64)> = {
        let mut stmt = tx.prepare("SELECT token, pid, created_ms FROM blob_reservations")?;
        let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let expired_before = wall_clock_ms() - RESERVATION_EXPIRES_MS;
    let own_pid = std::process::id();
    let mut dropped = 0;
    for (token, pid, created_ms) in reservations {
        let writer = token.rsplit_once('-').map_or(token.as_str(), |(writer, _)| writer);
        let stale = created_ms < expired_before || if pid == own_pid { writer != me } else { !alive(pid) };
        if stale {
            dropped += tx.execute("DELETE FROM blob_reservations WHERE token = ?1", [&token])?;
        }
    }
    tx.commit()?;
    Ok(dropped)
}

/// Whether a row or a writer's reservation references `sha256`. gc asks inside its write
/// transaction, right before deleting the blob.
pub(crate) fn sha256_in_use(conn: &Connection, sha256: &str) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM artifacts WHERE sha256 = ?1) OR EXISTS (SELECT 1 FROM blob_reservations WHERE sha256 = ?1)",
        [sha256],
        |row| row.get(0),
    )?)
}

/// Inserts (or refreshes) the row for a blob now in place, and drops the writer's reservation
/// `token` in the same transaction.
pub(crate) fn insert_or_touch(conn: &mut Connection, new: &NewArtifact<'_>, sha256: &str, size: u64, token: &str, queue: bool) -> Result<ArtifactRecord, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute("DELETE FROM blob_reservations WHERE token = ?1", [token])?;
    let ns = namespace(new.server);
    let mut chosen = None;
    // 12 hex digits as RFC 003 recommends; on the (astronomically rare) prefix clash with other
    // bytes, lengthen the prefix instead of mixing two artifacts under one id.
    for len in [12, 16, 24, 64] {
        let id = format!("{ns}_{}", &sha256[..len]);
        match get_optional(&tx, &id)? {
            Some(existing) if existing.sha256 == sha256 => {
                tx.execute("UPDATE artifacts SET last_used_at_ms = MAX(last_used_at_ms, ?1) WHERE id = ?2", params![new.now_ms, id])?;
                // Stored again by a call (perhaps a copy fetched from the team before): this
                // member holds it too, which the team catalog learns from the queue.
                if queue {
                    crate::outbox::enqueue(&tx, &id, sha256, new.now_ms)?;
                }
                chosen = Some(id);
                break;
            }
            Some(_) => continue,
            None => {
                tx.execute(
                    "INSERT INTO artifacts (id, sha256, name, mime, size, server, tool, call_id, session_id,
                                            created_at_ms, last_used_at_ms, persistence, description)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12)",
                    params![id, sha256, new.name, new.mime, size as i64, new.server, new.tool, new.call_id, new.session_id, new.now_ms, new.persistence.as_str(), new.description],
                )?;
                if queue {
                    crate::outbox::enqueue(&tx, &id, sha256, new.now_ms)?;
                }
                chosen = Some(id);
                break;
            }
        }
    }
    // Every id these bytes could take holds other bytes: only a damaged (or edited) catalog has
    // a row whose id is not its own hash's prefix.
    let Some(id) = chosen else {
        return Err(StoreError::Corrupt {
            id: format!("{ns}_{sha256}"),
            reason: "the catalog (catalog.sqlite) holds other bytes under every id these could take; it is damaged: run `mcp-canvas-cli artifacts verify`".to_owned(),
        });
    };
    tx.execute(
        "INSERT INTO session_artifacts (session_id, artifact_id, call_id, added_at_ms) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (session_id, artifact_id) DO UPDATE SET call_id = excluded.call_id, added_at_ms = excluded.added_at_ms",
        params![new.session_id, id, new.call_id, new.now_ms],
    )?;
    if new.persistence == Persistence::Pinned {
        tx.execute("UPDATE artifacts SET persistence = 'pinned' WHERE id = ?1", [&id])?;
    }
    let record = get(&tx, &id)?;
    tx.commit()?;
    Ok(record)
}

pub(crate) fn get(conn: &Connection, id: &str) -> Result<ArtifactRecord, StoreError> {
    get_optional(conn, id)?.ok_or_else(|| StoreError::NotFound(id.to_owned()))
}

fn get_optional(conn: &Connection, id: &str) -> Result<Option<ArtifactRecord>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM artifacts a WHERE a.id = ?1");
    Ok(conn.query_row(&sql, [id], from_row).optional()?)
}

pub(crate) fn find_in_session(conn: &Connection, session_id: &str, id_or_name: &str) -> Result<Option<ArtifactRecord>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM artifacts a JOIN session_artifacts s ON s.artifact_id = a.id
         WHERE s.session_id = ?1 AND (a.id = ?2 OR a.name = ?2)
         ORDER BY (a.id = ?2) DESC, s.added_at_ms DESC LIMIT 1"
    );
    Ok(conn.query_row(&sql, params![session_id, id_or_name], from_row).optional()?)
}

pub(crate) fn touch(conn: &Connection, id: &str, now_ms: i64) -> Result<(), StoreError> {
    match conn.execute("UPDATE artifacts SET last_used_at_ms = MAX(last_used_at_ms, ?1) WHERE id = ?2", params![now_ms, id])? {
        0 => Err(StoreError::NotFound(id.to_owned())),
        _ => Ok(()),
    }
}

pub(crate) fn set_persistence(conn: &Connection, id: &str, persistence: Persistence) -> Result<(), StoreError> {
    match conn.execute("UPDATE artifacts SET persistence = ?1 WHERE id = ?2", params![persistence.as_str(), id])? {
        0 => Err(StoreError::NotFound(id.to_owned())),
        _ => Ok(()),
    }
}

pub(crate) fn remove(conn: &mut Connection, id: &str) -> Result<ArtifactRecord, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let record = get(&tx, id)?;
    tx.execute("DELETE FROM artifacts WHERE id = ?1", [id])?;
    tx.execute("DELETE FROM team_outbox WHERE artifact_id = ?1", [id])?;
    tx.commit()?;
    Ok(record)
}

/// Every sha256 a row or a reservation references.
pub(crate) fn all_sha256(conn: &Connection) -> Result<HashSet<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT sha256 FROM artifacts UNION SELECT sha256 FROM blob_reservations")?;
    let rows = stmt.query_map([], |row| row.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(crate) fn all_id_sha(conn: &Connection) -> Result<Vec<(String, String)>, StoreError> {
    let mut stmt = conn.prepare("SELECT id, sha256 FROM artifacts ORDER BY id")?;
    let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(crate) fn total_bytes(conn: &Connection) -> Result<u64, StoreError> {
    let total: i64 = conn.query_row("SELECT COALESCE(SUM(size), 0) FROM (SELECT sha256, MAX(size) AS size FROM artifacts GROUP BY sha256)", [], |row| row.get(0))?;
    Ok(total as u64)
}

pub(crate) fn from_row(row: &Row<'_>) -> rusqlite::Result<ArtifactRecord> {
    let persistence: String = row.get(11)?;
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
        last_used_at_ms: row.get(10)?,
        persistence: Persistence::parse(&persistence).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(11, rusqlite::types::Type::Text, format!("unknown persistence `{persistence}`").into())
        })?,
        description: row.get(12)?,
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
