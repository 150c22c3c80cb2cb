//! Filtered, sorted, paginated listing of the catalog (the artifact browser, `artifacts list`).

use rusqlite::{types::Value as SqlValue, Connection};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    catalog::{from_row, COLUMNS},
    error::StoreError,
    record::ArtifactRecord,
};

/// Broad kinds of content to filter by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum MimeFamily {
    /// `image/*`
    Image,
    /// `application/pdf`
    Pdf,
    /// `text/html`
    Html,
    /// `text/*` and JSON
    Text,
    /// `audio/*`
    Audio,
    /// `video/*`
    Video,
    /// Anything else
    Other,
}

/// What to sort by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, Default)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum SortKey {
    /// Creation time.
    #[default]
    Created,
    /// Last use.
    LastUsed,
    /// File name (case-insensitive).
    Name,
    /// Size.
    Size,
}

/// A listing request. Empty filters match everything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ArtifactQuery {
    /// Only artifacts linked to this session.
    pub session: Option<String>,
    /// Only from this server.
    pub server: Option<String>,
    /// Only from this tool.
    pub tool: Option<String>,
    /// Only this kind of content.
    pub family: Option<MimeFamily>,
    /// Name contains this (case-insensitive).
    pub name_contains: Option<String>,
    /// Only pinned artifacts.
    pub pinned_only: bool,
    /// Sort key.
    pub sort: SortKey,
    /// Newest / largest / Z first.
    pub descending: bool,
    /// Page size.
    pub limit: u32,
    /// Rows to skip.
    pub offset: u32,
}

impl Default for ArtifactQuery {
    fn default() -> Self {
        Self { session: None, server: None, tool: None, family: None, name_contains: None, pinned_only: false, sort: SortKey::Created, descending: true, limit: 50, offset: 0 }
    }
}

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ArtifactPage {
    /// The rows.
    pub items: Vec<ArtifactRecord>,
    /// How many rows match in all.
    pub total: u32,
}

/// One server/tool pair that produced stored artifacts, for the browser's filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ArtifactSource {
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// How many stored artifacts it produced.
    pub count: u32,
}

/// How much of the store's quota is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct StorageUsage {
    /// Bytes of distinct blobs (identical bytes count once), what the quota measures.
    #[ts(type = "number")]
    pub used_bytes: u64,
    /// Of those, bytes of blobs some pinned artifact holds (never evicted).
    #[ts(type = "number")]
    pub pinned_bytes: u64,
    /// The quota (`[artifacts] quota_bytes` in settings.toml).
    #[ts(type = "number")]
    pub quota_bytes: u64,
    /// Stored artifacts.
    pub artifacts: u32,
    /// Pinned artifacts.
    pub pinned: u32,
}

pub(crate) fn sources(conn: &Connection) -> Result<Vec<ArtifactSource>, StoreError> {
    let mut stmt = conn.prepare("SELECT server, tool, COUNT(*) FROM artifacts GROUP BY server, tool ORDER BY server COLLATE NOCASE, tool COLLATE NOCASE")?;
    let rows = stmt.query_map([], |row| Ok(ArtifactSource { server: row.get(0)?, tool: row.get(1)?, count: row.get::<_, i64>(2)? as u32 }))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(crate) fn usage(conn: &Connection, quota_bytes: u64) -> Result<StorageUsage, StoreError> {
    let (used, pinned_bytes): (i64, i64) = conn.query_row(
        "SELECT COALESCE(SUM(size), 0), COALESCE(SUM(CASE WHEN pinned THEN size ELSE 0 END), 0)
         FROM (SELECT sha256, MAX(size) AS size, MAX(persistence = 'pinned') AS pinned FROM artifacts GROUP BY sha256)",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    let (artifacts, pinned): (i64, i64) =
        conn.query_row("SELECT COUNT(*), COALESCE(SUM(persistence = 'pinned'), 0) FROM artifacts", [], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(StorageUsage { used_bytes: used as u64, pinned_bytes: pinned_bytes as u64, quota_bytes, artifacts: artifacts as u32, pinned: pinned as u32 })
}

/// The `LIKE` pattern (escaped with `\\`) for names containing `needle`.
pub(crate) fn name_pattern(needle: &str) -> String {
    let escaped = needle.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    format!("%{escaped}%")
}

/// The SQL condition (on `artifacts a`) for one kind of content.
pub(crate) fn family_condition(family: MimeFamily) -> &'static str {
    match family {
        MimeFamily::Image => "(a.mime >= 'image/' AND a.mime < 'image0')",
        MimeFamily::Audio => "(a.mime >= 'audio/' AND a.mime < 'audio0')",
        MimeFamily::Video => "(a.mime >= 'video/' AND a.mime < 'video0')",
        MimeFamily::Pdf => "a.mime = 'application/pdf'",
        MimeFamily::Html => "a.mime = 'text/html'",
        MimeFamily::Text => "(((a.mime >= 'text/' AND a.mime < 'text0') AND a.mime <> 'text/html') OR a.mime = 'application/json')",
        MimeFamily::Other => "NOT (a.mime >= 'image/' AND a.mime < 'image0') AND NOT (a.mime >= 'audio/' AND a.mime < 'audio0') AND NOT (a.mime >= 'video/' AND a.mime < 'video0') AND NOT (a.mime >= 'text/' AND a.mime < 'text0') AND a.mime NOT IN ('application/pdf', 'application/json')",
    }
}

/// The filters listing and search share.
pub(crate) struct Filter<'a> {
    pub(crate) session: Option<&'a str>,
    pub(crate) server: Option<&'a str>,
    pub(crate) tool: Option<&'a str>,
    pub(crate) family: Option<MimeFamily>,
    pub(crate) name_contains: Option<&'a str>,
    pub(crate) pinned_only: bool,
}

/// SQL conditions on `artifacts a`, ANDed, with the values they bind (`?1`, `?2`, …).
#[derive(Default)]
pub(crate) struct Conditions {
    pub(crate) sql: Vec<String>,
    pub(crate) values: Vec<SqlValue>,
}

impl Conditions {
    /// Binds `value`; its placeholder.
    pub(crate) fn bind(&mut self, value: SqlValue) -> String {
        self.values.push(value);
        format!("?{}", self.values.len())
    }

    /// Adds the conditions of `filter`.
    pub(crate) fn filter(&mut self, filter: &Filter<'_>) {
        if let Some(session) = filter.session {
            let p = self.bind(session.to_owned().into());
            self.sql.push(format!("EXISTS (SELECT 1 FROM session_artifacts l WHERE l.artifact_id = a.id AND l.session_id = {p})"));
        }
        if let Some(server) = filter.server {
            let p = self.bind(server.to_owned().into());
            self.sql.push(format!("a.server = {p}"));
        }
        if let Some(tool) = filter.tool {
            let p = self.bind(tool.to_owned().into());
            self.sql.push(format!("a.tool = {p}"));
        }
        if let Some(family) = filter.family {
            self.sql.push(family_condition(family).to_owned());
        }
        if let Some(needle) = filter.name_contains.filter(|n| !n.is_empty()) {
            let p = self.bind(name_pattern(needle).into());
            self.sql.push(format!("a.name LIKE {p} ESCAPE '\\'"));
        }
        if filter.pinned_only {
            self.sql.push("a.persistence = 'pinned'".into());
        }
    }

    /// ` WHERE …`, or nothing.
    pub(crate) fn where_clause(&self) -> String {
        if self.sql.is_empty() { String::new() } else { format!(" WHERE {}", self.sql.join(" AND ")) }
    }
}

pub(crate) fn run(conn: &Connection, query: &ArtifactQuery) -> Result<ArtifactPage, StoreError> {
    let mut conditions = Conditions::default();
    conditions.filter(&Filter {
        session: query.session.as_deref(),
        server: query.server.as_deref(),
        tool: query.tool.as_deref(),
        family: query.family,
        name_contains: query.name_contains.as_deref(),
        pinned_only: query.pinned_only,
    });
    let where_clause = conditions.where_clause();
    let params = conditions.values;
    let order = match query.sort {
        SortKey::Created => "a.created_at_ms",
        SortKey::LastUsed => "a.last_used_at_ms",
        SortKey::Name => "a.name COLLATE NOCASE",
        SortKey::Size => "a.size",
    };
    let direction = if query.descending { "DESC" } else { "ASC" };

    let count_sql = format!("SELECT COUNT(*) FROM artifacts a{where_clause}");
    let total: i64 = conn.query_row(&count_sql, rusqlite::params_from_iter(params.iter()), |row| row.get(0))?;
    let list_sql = format!("SELECT {COLUMNS} FROM artifacts a{where_clause} ORDER BY {order} {direction}, a.id {direction} LIMIT {} OFFSET {}", query.limit.min(100_000), query.offset);
    let mut stmt = conn.prepare(&list_sql)?;
    let items = stmt.query_map(rusqlite::params_from_iter(params.iter()), from_row)?.collect::<Result<_, _>>()?;
    Ok(ArtifactPage { items, total: total as u32 })
}
