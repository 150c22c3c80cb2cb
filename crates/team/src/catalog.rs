//! The team catalog in PostgreSQL: versioned migrations, blob reservations, artifact rows.

use mcp_canvas_store::ArtifactRecord;
use serde::Serialize;
use tokio::sync::Mutex;
use tokio_postgres::Client;
use ts_rs::TS;

use crate::error::TeamError;

const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_team_catalog.sql"),
    include_str!("../migrations/0002_retention_index.sql"),
    include_str!("../migrations/0003_search.sql"),
    include_str!("../migrations/0004_audit_trail.sql"),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// A reservation keeps a blob from retention this long: longer than any upload takes.
const RESERVATION_MS: i64 = 24 * 3600 * 1000;

/// Serializes schema changes across every process of every member.
const MIGRATION_LOCK: i64 = 0x6d63_7063_616e_7601;

/// One artifact of the team, as the artifact browser lists it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct TeamArtifact {
    /// The artifact, as a local store would describe it.
    pub record: ArtifactRecord,
    /// Who stored it (their configured identity).
    pub member: String,
    /// Only its member sees it.
    pub private: bool,
    /// Kept by team retention whatever its age.
    pub pinned: bool,
    /// When the team catalog registered it, milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub registered_at_ms: i64,
    /// The bucket its blob was uploaded to (`s3://bucket/prefix`; `None`: registered before
    /// the catalog recorded it, schema 4).
    pub bucket: Option<String>,
}

/// A member of the team and how many artifacts of theirs this member may see.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct TeamMember {
    /// Their configured identity.
    pub member: String,
    /// Their artifacts (shared ones, and mine that are private).
    pub count: u32,
}

/// A connection to the team catalog.
pub struct Catalog {
    pub(crate) client: Mutex<Client>,
    /// The connection gave up on a server that stopped answering.
    silent: std::sync::Arc<std::sync::atomic::AtomicBool>,
    shown: String,
}

impl Catalog {
    /// Connects (TLS per `catalog_url`'s libpq settings; connecting bounded by its
    /// `connect_timeout`, each answer by [`crate::connect::ANSWER_TIMEOUT`]). The schema must be
    /// this build's: an empty database gets it created, an older one is an error naming
    /// `store upgrade` unless `upgrade` is set, a newer one is an error naming the update.
    pub async fn connect(url: &str, password: Option<&str>, upgrade: bool) -> Result<Self, TeamError> {
        let shown = shown_url(url);
        let crate::connect::Connected { client, silent } = crate::connect::open(url, password, &shown).await?;
        let catalog = Self { client: Mutex::new(client), silent, shown };
        catalog.migrate(upgrade).await?;
        Ok(catalog)
    }

    /// Whether the connection has dropped (the caller reconnects).
    pub async fn is_closed(&self) -> bool {
        self.client.lock().await.is_closed()
    }

    pub(crate) fn error(&self, e: tokio_postgres::Error) -> TeamError {
        let mut what = error_text(&e);
        if self.silent.load(std::sync::atomic::Ordering::Relaxed) {
            what = format!("it stopped answering (nothing for {} s after a request)", crate::connect::ANSWER_TIMEOUT.as_secs());
        }
        let remedy = if let Some(table) = what.strip_prefix("permission denied for ") {
            format!("; this database role may not use the team catalog's {table}: an admin grants it the role that owns the catalog (`GRANT canvas TO <role>`, docs/team-store.md)")
        } else if e.is_closed() || what.contains("connect") || what.contains("stopped answering") {
            "; the catalog cannot be reached; calls keep storing here and registration resumes when it is back".to_owned()
        } else {
            String::new()
        };
        TeamError::Catalog { catalog: self.shown.clone(), what, remedy }
    }

    /// The schema version the database is at (0 when it has none).
    pub async fn schema_version(&self) -> Result<i32, TeamError> {
        let client = self.client.lock().await;
        let exists: bool = client.query_one("SELECT to_regclass('mcp_canvas_schema') IS NOT NULL", &[]).await.map_err(|e| self.error(e))?.get(0);
        if !exists {
            return Ok(0);
        }
        let row = client.query_opt("SELECT version FROM mcp_canvas_schema", &[]).await.map_err(|e| self.error(e))?;
        Ok(row.map_or(0, |r| r.get(0)))
    }

    async fn migrate(&self, upgrade: bool) -> Result<(), TeamError> {
        let found = self.schema_version().await?;
        if found > SCHEMA_VERSION {
            return Err(TeamError::SchemaTooNew { catalog: self.shown.clone(), found, supported: SCHEMA_VERSION });
        }
        if found == SCHEMA_VERSION {
            return Ok(());
        }
        if found > 0 && !upgrade {
            return Err(TeamError::SchemaTooOld { catalog: self.shown.clone(), found, supported: SCHEMA_VERSION });
        }
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(|e| self.error(e))?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(|e| self.error(e))?;
        // The schema belongs to the database's owner when this member's role is granted it (as
        // docs/team-store.md sets members up): then every member may use what the first created.
        let owner = tx
            .query_opt("SELECT r.rolname::TEXT FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba WHERE d.datname = current_database() AND r.rolname <> current_user AND pg_has_role(current_user, r.oid, 'MEMBER')", &[])
            .await
            .map_err(|e| self.error(e))?;
        if let Some(owner) = owner {
            let owner: String = owner.get(0);
            tx.batch_execute(&format!("SET LOCAL ROLE \"{}\"", owner.replace('"', "\"\""))).await.map_err(|e| self.error(e))?;
        }
        tx.batch_execute("CREATE TABLE IF NOT EXISTS mcp_canvas_schema (version INTEGER NOT NULL)").await.map_err(|e| self.error(e))?;
        // Another process may have migrated while we waited for the lock.
        let now: i32 = tx.query_opt("SELECT version FROM mcp_canvas_schema", &[]).await.map_err(|e| self.error(e))?.map_or(0, |r| r.get(0));
        for sql in MIGRATIONS.iter().skip(now as usize) {
            tx.batch_execute(sql).await.map_err(|e| self.error(e))?;
        }
        tx.execute("DELETE FROM mcp_canvas_schema", &[]).await.map_err(|e| self.error(e))?;
        tx.execute("INSERT INTO mcp_canvas_schema (version) VALUES ($1)", &[&SCHEMA_VERSION.max(now)]).await.map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))
    }

    /// Reserves blob `sha256` for a writer about to upload or reuse it: from this commit on
    /// (until [`Self::register`] drops the reservation, or a day passes) retention keeps it.
    /// Returns the reservation's token.
    pub async fn reserve(&self, sha256: &str, size: u64, now_ms: i64) -> Result<String, TeamError> {
        let token = crate::bucket::random_hex();
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(|e| self.error(e))?;
        // The upsert takes the blob row's lock: it waits for a retention run deleting this blob
        // (then finds no row and inserts one), and retention after it sees the reservation.
        tx.execute(
            "INSERT INTO blobs (sha256, size) VALUES ($1, $2) ON CONFLICT (sha256) DO UPDATE SET size = EXCLUDED.size",
            &[&sha256, &(size as i64)],
        )
        .await
        .map_err(|e| self.error(e))?;
        tx.execute("INSERT INTO blob_reservations (token, sha256, until_ms) VALUES ($1, $2, $3)", &[&token, &sha256, &(now_ms + RESERVATION_MS)])
            .await
            .map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))?;
        Ok(token)
    }

    /// Drops a reservation whose writer gave up.
    pub async fn release(&self, token: &str) -> Result<(), TeamError> {
        let client = self.client.lock().await;
        client.execute("DELETE FROM blob_reservations WHERE token = $1", &[&token]).await.map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Notes that the blob is in the bucket.
    pub async fn uploaded(&self, sha256: &str, now_ms: i64) -> Result<(), TeamError> {
        let client = self.client.lock().await;
        client.execute("UPDATE blobs SET uploaded_at_ms = $2 WHERE sha256 = $1", &[&sha256, &now_ms]).await.map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Registers an artifact whose blob is in the bucket (again: its last use is refreshed, and
    /// `member` is one of its holders), and drops the writer's reservation `token` in the same
    /// transaction; `bucket` (`s3://bucket/prefix`) is where its blob is. Refused when the reservation is gone (it expired: the blob may have been
    /// deleted since; the caller starts again from [`Self::reserve`]) or when the id names other
    /// bytes in the team (a prefix clash).
    pub async fn register(&self, team: &str, member: &str, record: &ArtifactRecord, bucket: &str, token: &str, now_ms: i64) -> Result<(), TeamError> {
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(|e| self.error(e))?;
        let held = tx.execute("DELETE FROM blob_reservations WHERE token = $1", &[&token]).await.map_err(|e| self.error(e))?;
        if held == 0 {
            return Err(TeamError::ReservationLost { id: record.id.clone() });
        }
        let written = tx
            .execute(
                "INSERT INTO artifacts (team, id, sha256, name, mime, size, server, tool, call_id, session_id, member, description,
                                        created_at_ms, registered_at_ms, last_used_at_ms, pinned, bucket)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
                 ON CONFLICT (team, id) DO UPDATE SET last_used_at_ms = GREATEST(artifacts.last_used_at_ms, EXCLUDED.last_used_at_ms),
                                                     pinned = artifacts.pinned OR EXCLUDED.pinned,
                                                     bucket = COALESCE(artifacts.bucket, EXCLUDED.bucket)
                 WHERE artifacts.sha256 = EXCLUDED.sha256",
                &[
                    &team,
                    &record.id,
                    &record.sha256,
                    &record.name,
                    &record.mime,
                    &(record.size as i64),
                    &record.server,
                    &record.tool,
                    &record.call_id,
                    &record.session_id,
                    &member,
                    &record.description,
                    &record.created_at_ms,
                    &now_ms,
                    &record.last_used_at_ms,
                    &(record.persistence == mcp_canvas_store::Persistence::Pinned),
                    &bucket,
                ],
            )
            .await
            .map_err(|e| self.error(e))?;
        if written == 0 {
            return Err(TeamError::Mismatch {
                id: record.id.clone(),
                reason: "the team catalog has other bytes under this id (a hash prefix shared by two files): it stays on this machine only".into(),
            });
        }
        tx.execute("INSERT INTO artifact_holders (team, id, member) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", &[&team, &record.id, &member])
            .await
            .map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))
    }

    /// Marks an artifact used now (opened, pulled): team retention counts from its last use.
    pub async fn touch(&self, team: &str, id: &str, now_ms: i64) -> Result<(), TeamError> {
        let client = self.client.lock().await;
        client.execute("UPDATE artifacts SET last_used_at_ms = GREATEST(last_used_at_ms, $3) WHERE team = $1 AND id = $2", &[&team, &id, &now_ms]).await.map_err(|e| self.error(e))?;
        Ok(())
    }

    /// The team's artifacts `me` may see (everyone's shared ones and my private ones), newest
    /// first, optionally of one member.
    pub async fn list(&self, team: &str, me: &str, member: Option<&str>, limit: i64, offset: i64) -> Result<Vec<TeamArtifact>, TeamError> {
        let client = self.client.lock().await;
        let rows = client
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM artifacts WHERE team = $1 AND (NOT private OR member = $2 OR EXISTS (SELECT 1 FROM artifact_holders h WHERE h.team = artifacts.team AND h.id = artifacts.id AND h.member = $2)) AND ($3::TEXT IS NULL OR member = $3)
                     ORDER BY created_at_ms DESC, id LIMIT $4 OFFSET $5"
                ),
                &[&team, &me, &member, &limit, &offset],
            )
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows.iter().map(from_row).collect())
    }

    /// One artifact `me` may see.
    pub async fn get(&self, team: &str, me: &str, id: &str) -> Result<Option<TeamArtifact>, TeamError> {
        let client = self.client.lock().await;
        let row = client
            .query_opt(&format!("SELECT {COLUMNS} FROM artifacts WHERE team = $1 AND id = $2 AND (NOT private OR member = $3 OR EXISTS (SELECT 1 FROM artifact_holders h WHERE h.team = artifacts.team AND h.id = artifacts.id AND h.member = $3))"), &[&team, &id, &me])
            .await
            .map_err(|e| self.error(e))?;
        Ok(row.as_ref().map(from_row))
    }

    /// Makes one of `me`'s artifacts private (or shared again). Someone else's is not found.
    /// `private_artifacts` follows in the same transaction (what hides the calls naming it).
    pub async fn set_private(&self, team: &str, me: &str, id: &str, private: bool) -> Result<(), TeamError> {
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(|e| self.error(e))?;
        let n = tx.execute("UPDATE artifacts SET private = $4 WHERE team = $1 AND id = $2 AND member = $3", &[&team, &id, &me, &private]).await.map_err(|e| self.error(e))?;
        if n == 0 {
            return Err(TeamError::NotFound(id.to_owned()));
        }
        let kept = if private {
            tx.execute("INSERT INTO private_artifacts (team, id, member) VALUES ($1, $2, $3) ON CONFLICT (team, id) DO UPDATE SET member = EXCLUDED.member", &[&team, &id, &me]).await
        } else {
            tx.execute("DELETE FROM private_artifacts WHERE team = $1 AND id = $2", &[&team, &id]).await
        };
        kept.map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))
    }

    /// Removes one of `me`'s artifacts from the team catalog (its blob goes with retention when
    /// nothing else references it).
    pub async fn remove(&self, team: &str, me: &str, id: &str) -> Result<(), TeamError> {
        let client = self.client.lock().await;
        let n = client.execute("DELETE FROM artifacts WHERE team = $1 AND id = $2 AND member = $3", &[&team, &id, &me]).await.map_err(|e| self.error(e))?;
        if n == 0 {
            return Err(TeamError::NotFound(id.to_owned()));
        }
        Ok(())
    }

    /// Members of the team with how many artifacts each (the browser's filter).
    pub async fn members(&self, team: &str, me: &str) -> Result<Vec<TeamMember>, TeamError> {
        let client = self.client.lock().await;
        let rows = client
            .query("SELECT member, COUNT(*) FROM artifacts WHERE team = $1 AND (NOT private OR member = $2 OR EXISTS (SELECT 1 FROM artifact_holders h WHERE h.team = artifacts.team AND h.id = artifacts.id AND h.member = $2)) GROUP BY member ORDER BY member", &[&team, &me])
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows.iter().map(|r| TeamMember { member: r.get(0), count: r.get::<_, i64>(1) as u32 }).collect())
    }

    /// Runs `retention` holding the team's retention lock; `None` when another process holds it.
    pub(crate) async fn with_retention_lock<T>(&self, team: &str, work: impl AsyncFnOnce(&Self) -> Result<T, TeamError>) -> Result<Option<T>, TeamError> {
        let key = retention_key(team);
        let got: bool = {
            let client = self.client.lock().await;
            client.query_one("SELECT pg_try_advisory_lock($1)", &[&key]).await.map_err(|e| self.error(e))?.get(0)
        };
        if !got {
            return Ok(None);
        }
        let result = work(self).await;
        let client = self.client.lock().await;
        let _ = client.execute("SELECT pg_advisory_unlock($1)", &[&key]).await;
        result.map(Some)
    }

    /// Deletes the team's unpinned artifacts unused since `cutoff_ms`; returns their ids.
    pub(crate) async fn expire(&self, team: &str, cutoff_ms: i64) -> Result<Vec<String>, TeamError> {
        let client = self.client.lock().await;
        let rows = client
            .query("DELETE FROM artifacts WHERE team = $1 AND NOT pinned AND last_used_at_ms < $2 RETURNING id", &[&team, &cutoff_ms])
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Drops reservations past their time (a writer killed between reserving and registering);
    /// returns how many.
    pub(crate) async fn drop_expired_reservations(&self, now_ms: i64) -> Result<u64, TeamError> {
        let client = self.client.lock().await;
        client.execute("DELETE FROM blob_reservations WHERE until_ms < $1", &[&now_ms]).await.map_err(|e| self.error(e))
    }

    /// Which of `blobs` have a reservation made at or after `since_ms` (by the reserving
    /// member's clock): an upload of them may be under way.
    pub(crate) async fn reserved_since(&self, blobs: &[String], since_ms: i64) -> Result<std::collections::HashSet<String>, TeamError> {
        let client = self.client.lock().await;
        let rows = client
            .query("SELECT DISTINCT sha256 FROM blob_reservations WHERE sha256 = ANY($1) AND until_ms - $3 >= $2", &[&blobs, &since_ms, &RESERVATION_MS])
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Blobs that look deletable: no artifact of any team, no live reservation.
    pub(crate) async fn orphan_candidates(&self, now_ms: i64) -> Result<Vec<String>, TeamError> {
        let client = self.client.lock().await;
        let rows = client
            .query(
                "SELECT sha256 FROM blobs b WHERE NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.sha256 = b.sha256)
                 AND NOT EXISTS (SELECT 1 FROM blob_reservations r WHERE r.sha256 = b.sha256 AND r.until_ms >= $1) LIMIT 10000",
                &[&now_ms],
            )
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Deletes blob `sha256` if it is still an orphan, calling `delete_object` while holding its
    /// row's lock (a writer's reservation waits for it, then finds the blob gone and uploads it
    /// again). Returns whether it was deleted.
    pub(crate) async fn delete_orphan(&self, sha256: &str, now_ms: i64, delete_object: impl AsyncFnOnce() -> Result<(), TeamError>) -> Result<bool, TeamError> {
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(|e| self.error(e))?;
        let locked = tx.query_opt("SELECT sha256 FROM blobs WHERE sha256 = $1 FOR UPDATE", &[&sha256]).await.map_err(|e| self.error(e))?;
        if locked.is_none() {
            return Ok(false);
        }
        // Under the lock, with a fresh snapshot (each statement gets one): a reservation or row
        // committed before we took the lock keeps the blob; one that comes after waits for us.
        let in_use: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM artifacts WHERE sha256 = $1) OR EXISTS (SELECT 1 FROM blob_reservations WHERE sha256 = $1 AND until_ms >= $2)",
                &[&sha256, &now_ms],
            )
            .await
            .map_err(|e| self.error(e))?
            .get(0);
        if in_use {
            return Ok(false);
        }
        delete_object().await?;
        tx.execute("DELETE FROM blob_reservations WHERE sha256 = $1", &[&sha256]).await.map_err(|e| self.error(e))?;
        tx.execute("DELETE FROM blobs WHERE sha256 = $1", &[&sha256]).await.map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))?;
        Ok(true)
    }
}

pub(crate) const COLUMNS: &str = "id, sha256, name, mime, size, server, tool, call_id, session_id, created_at_ms, last_used_at_ms, pinned, description, member, private, registered_at_ms, bucket";

/// A media type as a teammate's catalog row holds it, parsed again like every declared type (a
/// catalog written by another build, or by hand, is input too): else `application/octet-stream`.
fn catalog_mime(stored: String) -> String {
    mcp_canvas_contract::media_type_or_octet_stream(&stored)
}

pub(crate) fn from_row(row: &tokio_postgres::Row) -> TeamArtifact {
    let pinned: bool = row.get(11);
    TeamArtifact {
        record: ArtifactRecord {
            id: row.get(0),
            sha256: row.get(1),
            name: row.get(2),
            mime: catalog_mime(row.get(3)),
            size: row.get::<_, i64>(4) as u64,
            server: row.get(5),
            tool: row.get(6),
            call_id: row.get(7),
            session_id: row.get(8),
            created_at_ms: row.get(9),
            last_used_at_ms: row.get(10),
            persistence: if pinned { mcp_canvas_store::Persistence::Pinned } else { mcp_canvas_store::Persistence::Session },
            description: row.get(12),
        },
        member: row.get(13),
        private: row.get(14),
        pinned,
        registered_at_ms: row.get(15),
        bucket: row.get(16),
    }
}

fn retention_key(team: &str) -> i64 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("mcp-canvas retention {team}"));
    i64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// The error with PostgreSQL's own message (tokio-postgres' Display says only "db error").
pub(crate) fn error_text(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_owned(),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                text.push_str(": ");
                text.push_str(&s.to_string());
                source = s.source();
            }
            text
        }
    }
}

/// The URL without a password (settings refuse one, but the environment's might carry it).
pub fn shown_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return "(catalog_url)".into() };
    let (authority, path) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => format!("{}@{host}", userinfo.split(':').next().unwrap_or("")),
        None => authority.to_owned(),
    };
    let path = path.split('?').next().unwrap_or("");
    format!("{scheme}://{authority}{path}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_shown_url_never_carries_a_password_or_options() {
        assert_eq!(super::shown_url("postgres://ada:secret@db:5432/canvas?sslmode=require"), "postgres://ada@db:5432/canvas");
        assert_eq!(super::shown_url("postgres://db/canvas"), "postgres://db/canvas");
        assert_eq!(super::shown_url("nonsense"), "(catalog_url)");
    }

    #[test]
    fn a_catalog_rows_media_type_is_parsed_again() {
        assert_eq!(super::catalog_mime("Image/PNG".into()), "image/png");
        assert_eq!(super::catalog_mime("text/html\r\nSet-Cookie: a=b".into()), "application/octet-stream");
    }
}
