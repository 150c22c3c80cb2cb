//! The team's audit trail: every member's calls (the local audit log's rows: who, server, tool,
//! arguments redacted as in the local log, artifacts, outcome, time) and sampling exchanges (the
//! reviewable transcript as kept locally), in the team catalog (`migrations/0004_audit_trail.sql`).
//!
//! Written off the call path: the local store queues each row in the transaction that writes it
//! (`team_log_outbox`), and [`TeamStore::sync`] writes what is queued after the artifacts, in
//! batches, each row under the key made when it was queued (`ON CONFLICT DO NOTHING`: a drain
//! repeated after a crash, a lost answer or by a second process writes it once).
//!
//! Who sees what: every member sees the team's rows, except a call that names an artifact made
//! private (`private_artifacts`, kept after the artifact goes), which only that artifact's member
//! and the members holding its id — and the member who made the call — see. Such a row is hidden
//! whole (not shown with its arguments cut): its arguments and answer may be about the file.

use mcp_canvas_store::{AuditRecord, LogEntry, QueuedLog};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::{catalog::Catalog, error::TeamError, SyncReport, TeamStore};

/// What a row of the team's audit trail is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum TeamLogKind {
    /// A call (a tool call, a read, a dashboard event).
    Call,
    /// A sampling exchange.
    Sampling,
}

/// Which rows of the team's audit trail to list (every filter optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct TeamAuditQuery {
    /// Only calls, or only sampling exchanges.
    pub kind: Option<TeamLogKind>,
    /// Only this member's rows.
    pub member: Option<String>,
    /// Only this server's.
    pub server: Option<String>,
    /// Only calls of this tool (sampling exchanges have none).
    pub tool: Option<String>,
    /// Only this outcome (`ok`, `tool_error`, …) or decision (`automatic`, `rejected`, …).
    pub outcome: Option<String>,
    /// From this time on (ms since the Unix epoch).
    #[ts(type = "number | null")]
    pub since_ms: Option<i64>,
    /// Before this time.
    #[ts(type = "number | null")]
    pub until_ms: Option<i64>,
    /// At most this many (0: 100; at most 1000).
    pub limit: u32,
    /// Skip this many (the next page).
    pub offset: u32,
}

/// One row of the team's audit trail.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct TeamLogEntry {
    /// A call or a sampling exchange.
    pub kind: TeamLogKind,
    /// The row's key (made on its member's machine).
    pub uid: String,
    /// Who (their configured identity).
    pub member: String,
    /// The server called, or that asked for the completion.
    pub server: String,
    /// The tool called (`None` for a sampling exchange).
    pub tool: Option<String>,
    /// A call's outcome (`ok`, `tool_error`, `timeout`, …) or an exchange's decision.
    pub outcome: String,
    /// When, ms since the Unix epoch.
    #[ts(type = "number")]
    pub at_ms: i64,
    /// The artifacts the call stored.
    pub artifact_ids: Vec<String>,
    /// The call's audit row (arguments redacted), for a call.
    pub call: Option<AuditRecord>,
    /// The exchange as its member's machine keeps it (an `ExchangeRecord`: request, decision,
    /// response, usage), for a sampling exchange.
    #[ts(type = "unknown")]
    pub exchange: Option<Value>,
}

/// A member, server and tool (`None`: sampling) that appear in the rows this member may see: the
/// audit view's filters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, TS)]
#[ts(export)]
pub struct TeamAuditSource {
    /// Who.
    pub member: String,
    /// Which server.
    pub server: String,
    /// Which tool (`None`: sampling exchanges).
    pub tool: Option<String>,
}

/// The visibility rule on `audit au` for member `$2`: theirs, or naming no artifact made private
/// by someone else that they do not hold.
const VISIBLE: &str = "(au.member = $2 OR NOT EXISTS (SELECT 1 FROM private_artifacts p WHERE p.team = au.team AND p.id = ANY(au.artifact_ids) AND p.member <> $2
     AND NOT EXISTS (SELECT 1 FROM artifact_holders h WHERE h.team = p.team AND h.id = p.id AND h.member = $2)))";

/// Text as PostgreSQL takes it: no NUL (refused in `TEXT` and `JSONB`).
fn text(value: &str) -> String {
    value.replace('\0', " ")
}

/// A JSON value as the team catalog keeps it: no NUL in any string, and `token=…` in text
/// redacted (as the local log's detail is), also in a transcript.
fn clean(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(mcp_canvas_config::redact::redact_text(&text(&s))),
        Value::Array(items) => Value::Array(items.into_iter().map(clean).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (text(&k), clean(v))).collect()),
        other => other,
    }
}

impl Catalog {
    /// Writes queued rows of `member`'s audit trail in one transaction; a row the catalog has
    /// (same key) is left as it is.
    pub async fn write_log(&self, team: &str, member: &str, rows: &[QueuedLog], now_ms: i64) -> Result<(), TeamError> {
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(|e| self.error(e))?;
        for row in rows {
            let written = match &row.entry {
                LogEntry::Call(call) => {
                    let record = clean(serde_json::to_value(call).expect("audit records serialize"));
                    let artifacts: Vec<String> = call.artifact_ids.iter().map(|a| text(a)).collect();
                    tx.execute(
                        "INSERT INTO audit (team, uid, member, server, tool, outcome, at_ms, artifact_ids, record, written_at_ms)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (team, uid) DO NOTHING",
                        &[&team, &row.uid, &member, &text(&call.server), &text(&call.tool), &text(&call.outcome), &call.started_ms, &artifacts, &record, &now_ms],
                    )
                    .await
                }
                LogEntry::Sampling(exchange) => {
                    let record = clean(serde_json::from_str(&exchange.record).unwrap_or_else(|_| Value::String(exchange.record.clone())));
                    tx.execute(
                        "INSERT INTO sampling_exchanges (team, uid, member, server, decision, provider, model, at_ms, latency_ms, input_tokens, output_tokens, exchange, written_at_ms)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (team, uid) DO NOTHING",
                        &[
                            &team,
                            &row.uid,
                            &member,
                            &text(&exchange.server),
                            &text(&exchange.decision),
                            &text(&exchange.provider),
                            &text(&exchange.model),
                            &exchange.at_ms,
                            &exchange.latency_ms,
                            &exchange.input_tokens,
                            &exchange.output_tokens,
                            &record,
                            &now_ms,
                        ],
                    )
                    .await
                }
            };
            written.map_err(|e| self.error(e))?;
        }
        tx.commit().await.map_err(|e| self.error(e))
    }

    /// The team's audit trail `me` may see, newest first.
    pub async fn audit(&self, team: &str, me: &str, query: &TeamAuditQuery) -> Result<Vec<TeamLogEntry>, TeamError> {
        let limit = i64::from(if query.limit == 0 { 100 } else { query.limit.min(1000) });
        let kind = query.kind.map(|k| if k == TeamLogKind::Call { "call" } else { "sampling" });
        let sql = format!(
            "SELECT * FROM (
               SELECT 'call' AS kind, au.uid, au.member, au.server, au.tool, au.outcome, au.at_ms, au.artifact_ids, au.record
               FROM audit au WHERE au.team = $1 AND {VISIBLE}
               UNION ALL
               SELECT 'sampling', s.uid, s.member, s.server, NULL, s.decision, s.at_ms, ARRAY[]::TEXT[], s.exchange
               FROM sampling_exchanges s WHERE s.team = $1
             ) r
             WHERE ($3::TEXT IS NULL OR r.kind = $3) AND ($4::TEXT IS NULL OR r.member = $4) AND ($5::TEXT IS NULL OR r.server = $5)
               AND ($6::TEXT IS NULL OR r.tool = $6) AND ($7::TEXT IS NULL OR r.outcome = $7)
               AND ($8::BIGINT IS NULL OR r.at_ms >= $8) AND ($9::BIGINT IS NULL OR r.at_ms < $9)
             ORDER BY r.at_ms DESC, r.uid LIMIT $10 OFFSET $11"
        );
        let client = self.client.lock().await;
        let rows = client
            .query(&sql, &[&team, &me, &kind, &query.member, &query.server, &query.tool, &query.outcome, &query.since_ms, &query.until_ms, &limit, &i64::from(query.offset)])
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows
            .iter()
            .map(|row| {
                let call = row.get::<_, String>(0) == "call";
                let record: Value = row.get(8);
                TeamLogEntry {
                    kind: if call { TeamLogKind::Call } else { TeamLogKind::Sampling },
                    uid: row.get(1),
                    member: row.get(2),
                    server: row.get(3),
                    tool: row.get(4),
                    outcome: row.get(5),
                    at_ms: row.get(6),
                    artifact_ids: row.get(7),
                    // A row another build wrote may not parse as this build's: its JSON is then
                    // not shown as a call, the columns are.
                    call: if call { serde_json::from_value(record.clone()).ok() } else { None },
                    exchange: if call { None } else { Some(record) },
                }
            })
            .collect())
    }

    /// The members, servers and tools in the rows `me` may see.
    pub async fn audit_sources(&self, team: &str, me: &str) -> Result<Vec<TeamAuditSource>, TeamError> {
        let client = self.client.lock().await;
        let rows = client
            .query(
                &format!(
                    "SELECT DISTINCT au.member, au.server, au.tool FROM audit au WHERE au.team = $1 AND {VISIBLE}
                     UNION SELECT DISTINCT s.member, s.server, NULL FROM sampling_exchanges s WHERE s.team = $1"
                ),
                &[&team, &me],
            )
            .await
            .map_err(|e| self.error(e))?;
        let mut sources: Vec<TeamAuditSource> = rows.iter().map(|r| TeamAuditSource { member: r.get(0), server: r.get(1), tool: r.get(2) }).collect();
        sources.sort();
        Ok(sources)
    }
}

/// Rows per transaction of a drain.
const BATCH: u32 = 256;

impl TeamStore {
    /// Writes the queued audit rows and sampling exchanges to the team catalog, oldest first, in
    /// batches. Stops when the catalog is away (everything stays queued); a row the catalog
    /// refuses by itself is tried on its own, its error recorded on it, and the drain goes on.
    pub(crate) async fn sync_log(&self, now_ms: i64, report: &mut SyncReport) {
        let mut after = 0;
        loop {
            let queued = match self.with_local(move |local| local.team_log_queue(after, BATCH)).await {
                Ok(queued) if queued.is_empty() => return,
                Ok(queued) => queued,
                Err(e) => {
                    report.error = Some(e.to_string());
                    return;
                }
            };
            after = queued.last().map_or(after, |q| q.seq);
            let catalog = match self.catalog().await {
                Ok(catalog) => catalog,
                Err(e) => return self.log_failed(queued.iter().map(|q| q.seq).collect(), e, report).await,
            };
            let written = catalog.write_log(&self.team, &self.member, &queued, now_ms).await;
            let mut done = Vec::new();
            match written {
                Ok(()) => done.extend(queued.iter().map(|q| q.seq)),
                Err(e) if catalog.is_closed().await => return self.log_failed(queued.iter().map(|q| q.seq).collect(), e, report).await,
                // One row the catalog refuses must not hold back the others.
                Err(_) => {
                    for row in &queued {
                        match catalog.write_log(&self.team, &self.member, std::slice::from_ref(row), now_ms).await {
                            Ok(()) => done.push(row.seq),
                            Err(e) if catalog.is_closed().await => {
                                self.log_done(done, report).await;
                                let rest = queued.iter().filter(|q| q.seq >= row.seq).map(|q| q.seq).collect();
                                return self.log_failed(rest, e, report).await;
                            }
                            Err(e) => self.log_failed(vec![row.seq], e, report).await,
                        }
                    }
                }
            }
            if !self.log_done(done, report).await {
                return;
            }
        }
    }

    async fn log_done(&self, seqs: Vec<i64>, report: &mut SyncReport) -> bool {
        let n = seqs.len() as u32;
        match self.with_local(move |local| local.team_log_done(&seqs)).await {
            Ok(()) => {
                report.logged += n;
                true
            }
            Err(e) => {
                report.error = Some(e.to_string());
                false
            }
        }
    }

    async fn log_failed(&self, seqs: Vec<i64>, error: TeamError, report: &mut SyncReport) {
        let text = error.to_string();
        let failure = text.clone();
        let _ = self.with_local(move |local| local.team_log_failed(&seqs, &failure)).await;
        report.error = Some(text);
    }

    /// The team's audit trail this member may see, newest first.
    pub async fn audit(&self, query: &TeamAuditQuery) -> Result<Vec<TeamLogEntry>, TeamError> {
        self.catalog().await?.audit(&self.team, &self.member, query).await
    }

    /// The members, servers and tools of the rows this member may see (the audit view's filters).
    pub async fn audit_sources(&self) -> Result<Vec<TeamAuditSource>, TeamError> {
        self.catalog().await?.audit_sources(&self.team, &self.member).await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn what_the_team_catalog_keeps_has_no_nul_and_no_url_token() {
        let cleaned = super::clean(json!({"a\u{0}b": ["x\u{0}y", "https://h/p?token=s3cr3t&x=1"], "n": 3}));
        assert_eq!(cleaned, json!({"a b": ["x y", "https://h/p?token=[redacted]&x=1"], "n": 3}));
    }
}
