//! Full-text search over the team's artifacts, in the team catalog (PostgreSQL `tsvector` with a
//! GIN index, `simple` configuration: words as written, no stemming, like the local index).
//!
//! Text gets there from the members: after each drain, a member writes the text of team
//! artifacts it holds whose text is not there yet ([`TeamStore::index_text`]), extracted by the
//! host ([`TextSource`]) and streamed in batches, one artifact per transaction (its row locked,
//! so two holders never write it twice). Search sees what the member may see: everyone's shared
//! artifacts and their own private ones (the same rule as the team list); snippets come from the
//! stored text (`ts_headline`), so a teammate without the file still sees where the words are.

use std::{path::Path, sync::Arc};

use mcp_canvas_store::{
    search::{hit_line, SnippetPart, Terms},
    ArtifactRecord, HitPlace, MimeFamily, SearchHit, SearchQuery, Segment,
};

use crate::{catalog::Catalog, error::TeamError, TeamStore};

/// Where an artifact's text comes from: the host's extractor (the team store does not know
/// file formats).
pub trait TextSource: Send + Sync {
    /// Gives the segments of `record` (its file at `path`) to `sink`, which returns `false` to
    /// stop; returns a note of what was left out, if anything.
    fn segments(&self, record: &ArtifactRecord, path: &Path, sink: &mut dyn FnMut(Segment) -> bool) -> Option<String>;
}

/// Text of one artifact written to the team catalog at most (a bigger file is searchable in its
/// first part; the member's own index has all of it).
pub const MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;
/// Text per INSERT.
const BATCH_BYTES: usize = 512 * 1024;

/// Marks around matching words in `ts_headline`'s output (control characters never stored:
/// [`clean`] replaces them in the text).
const START: &str = "\u{1}";
const STOP: &str = "\u{2}";

/// Control characters out (the snippet markers among them), and the NUL PostgreSQL refuses.
fn clean(text: &str) -> String {
    text.chars().map(|c| if c.is_control() && c != '\n' && c != '\t' { ' ' } else { c }).collect()
}

/// A headline as read (a teammate's build may have stored anything): every control character out
/// but the snippet markers.
fn clean_headline(text: &str) -> String {
    text.chars().map(|c| if c.is_control() && c != '\u{1}' && c != '\u{2}' { ' ' } else { c }).collect()
}

impl Catalog {
    /// Team artifacts `me` holds whose text is not in the catalog yet (at most `limit`).
    /// Each with its registration number, after `after` (so a run moves past the ones it skips).
    pub async fn text_pending(&self, team: &str, me: &str, after: i64, limit: i64) -> Result<Vec<(i64, String)>, TeamError> {
        let client = self.client.lock().await;
        let rows = client
            .query(
                "SELECT a.registered_seq, a.id FROM artifacts a WHERE a.team = $1 AND a.text_indexed_at_ms IS NULL AND a.registered_seq > $3
                   AND (a.member = $2 OR EXISTS (SELECT 1 FROM artifact_holders h WHERE h.team = a.team AND h.id = a.id AND h.member = $2))
                 ORDER BY a.registered_seq LIMIT $4",
                &[&team, &me, &after, &limit],
            )
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Writes the text of artifact `id` (replacing any), already extracted (at most
    /// [`MAX_TEXT_BYTES`]), and marks it indexed, in one short transaction holding its row. `false` when another member wrote it
    /// meanwhile or it is gone (nothing written).
    pub async fn put_text(&self, team: &str, id: &str, batches: Vec<Vec<Segment>>, note: Option<String>, now_ms: i64) -> Result<bool, TeamError> {
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(|e| self.error(e))?;
        let row = tx
            .query_opt("SELECT 1 FROM artifacts WHERE team = $1 AND id = $2 AND text_indexed_at_ms IS NULL FOR UPDATE SKIP LOCKED", &[&team, &id])
            .await
            .map_err(|e| self.error(e))?;
        if row.is_none() {
            return Ok(false);
        }
        tx.execute("DELETE FROM artifact_text WHERE team = $1 AND id = $2", &[&team, &id]).await.map_err(|e| self.error(e))?;
        for batch in batches {
            let places: Vec<&str> = batch.iter().map(|s| place_name(s.place)).collect();
            let positions: Vec<i64> = batch.iter().map(|s| s.position as i64).collect();
            let bodies: Vec<String> = batch.iter().map(|s| clean(&s.text)).collect();
            tx.execute(
                "INSERT INTO artifact_text (team, id, place, position, body, tsv)
                 SELECT $1, $2, p, n, b, to_tsvector('simple', b) FROM unnest($3::TEXT[], $4::BIGINT[], $5::TEXT[]) AS t(p, n, b)",
                &[&team, &id, &places, &positions, &bodies],
            )
            .await
            .map_err(|e| self.error(e))?;
        }
        tx.execute("UPDATE artifacts SET text_indexed_at_ms = $3, text_note = $4 WHERE team = $1 AND id = $2", &[&team, &id, &now_ms, &note]).await.map_err(|e| self.error(e))?;
        tx.commit().await.map_err(|e| self.error(e))?;
        Ok(true)
    }

    /// Full-text search over the team's artifacts `me` may see, best first, at most three hits per
    /// artifact, with snippets.
    pub async fn search(&self, team: &str, me: &str, query: &SearchQuery) -> Result<Vec<SearchHit>, TeamError> {
        let terms = Terms::parse(&query.text);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let limit = match query.limit {
            0 => 20,
            n => n.min(200),
        } as i64;
        let family = query.family.map(family_condition).unwrap_or("TRUE");
        let sql = format!(
            "WITH q AS (SELECT to_tsquery('simple', $3) AS q),
             hits AS (
               SELECT t.ctid AS segment, t.id, t.position, ts_rank(t.tsv, q.q) AS rank,
                      row_number() OVER (PARTITION BY t.id ORDER BY ts_rank(t.tsv, q.q) DESC, t.position) AS nth
               FROM artifact_text t, q JOIN artifacts a ON TRUE
               WHERE t.team = $1 AND a.team = t.team AND a.id = t.id AND t.tsv @@ q.q
                 AND (NOT a.private OR a.member = $2 OR EXISTS (SELECT 1 FROM artifact_holders h WHERE h.team = a.team AND h.id = a.id AND h.member = $2))
                 AND ($4::TEXT IS NULL OR a.server = $4) AND ($5::TEXT IS NULL OR a.tool = $5) AND ($6::TEXT IS NULL OR a.member = $6)
                 AND ($7::BIGINT IS NULL OR a.created_at_ms >= $7) AND ($8::BIGINT IS NULL OR a.created_at_ms < $8)
                 AND ($9::TEXT IS NULL OR a.name ILIKE '%' || $9 || '%') AND (NOT $10 OR a.pinned) AND {family}
             ),
             -- The hits kept, before any body is read or any headline made (both cost per row:
             -- made for every match, a common word's headlines took over 30 s at 10,000 files).
             top AS (SELECT segment, id, position, rank FROM hits WHERE nth <= 3 ORDER BY rank DESC, id, position LIMIT $11)
             SELECT {columns}, t.place, t.position, t.body,
                    ts_headline('simple', t.body, q.q, 'StartSel={START}, StopSel={STOP}, MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=\" … \"')
             FROM top JOIN artifact_text t ON t.ctid = top.segment JOIN artifacts a ON a.team = $1 AND a.id = top.id, q
             ORDER BY top.rank DESC, top.id, top.position",
            columns = crate::catalog::COLUMNS.split(", ").map(|c| format!("a.{c}")).collect::<Vec<_>>().join(", "),
        );
        let client = self.client.lock().await;
        // `%`, `_` and `\` in the name filter are themselves (ILIKE's escape is `\`).
        let name = query.name_contains.as_deref().filter(|n| !n.is_empty()).map(|n| n.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        let rows = client
            .query(
                &sql,
                &[&team, &me, &terms.tsquery(), &query.server, &query.tool, &query.member, &query.since_ms, &query.until_ms, &name, &query.pinned_only, &limit],
            )
            .await
            .map_err(|e| self.error(e))?;
        Ok(rows
            .iter()
            .map(|row| {
                let artifact = crate::catalog::from_row(row);
                let place: String = row.get(17);
                let headline: String = clean_headline(&row.get::<_, String>(20));
                // Lines and rows are stored in groups: the hit's own line, from the group's text.
                let body: String = row.get(19);
                let within = if matches!(place.as_str(), "line" | "row") { hit_line(&body, &terms).0 as u64 } else { 0 };
                SearchHit {
                    artifact: artifact.record,
                    place: parse_place(&place),
                    position: row.get::<_, i64>(18).max(0) as u64 + within,
                    snippet: headline_parts(&headline),
                    member: Some(artifact.member),
                    byte_range: (0, 0),
                }
            })
            .collect())
    }
}

fn place_name(place: HitPlace) -> &'static str {
    match place {
        HitPlace::Name => "name",
        HitPlace::Call => "call",
        HitPlace::Page => "page",
        HitPlace::Row => "row",
        HitPlace::Line => "line",
    }
}

fn parse_place(text: &str) -> HitPlace {
    match text {
        "call" => HitPlace::Call,
        "page" => HitPlace::Page,
        "row" => HitPlace::Row,
        "line" => HitPlace::Line,
        _ => HitPlace::Name,
    }
}

/// The same kinds as the local index's filter, on the team's `artifacts a`. Not the store's
/// byte-range conditions: PostgreSQL compares text by the database's collation, where `/` may not
/// sort between letters and digits; `LIKE` prefixes do not depend on it.
fn family_condition(family: MimeFamily) -> &'static str {
    match family {
        MimeFamily::Image => "a.mime LIKE 'image/%'",
        MimeFamily::Audio => "a.mime LIKE 'audio/%'",
        MimeFamily::Video => "a.mime LIKE 'video/%'",
        MimeFamily::Pdf => "a.mime = 'application/pdf'",
        MimeFamily::Html => "a.mime = 'text/html'",
        MimeFamily::Text => "((a.mime LIKE 'text/%' AND a.mime <> 'text/html') OR a.mime = 'application/json')",
        MimeFamily::Other => "NOT (a.mime LIKE 'image/%' OR a.mime LIKE 'audio/%' OR a.mime LIKE 'video/%' OR a.mime LIKE 'text/%' OR a.mime IN ('application/pdf', 'application/json'))",
    }
}

/// `ts_headline`'s output as snippet parts (its markers are [`START`] and [`STOP`]), whitespace
/// collapsed.
fn headline_parts(headline: &str) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let collapse = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut rest = headline;
    while let Some(start) = rest.find(START) {
        let before = &rest[..start];
        let after = &rest[start + START.len()..];
        let end = after.find(STOP).unwrap_or(after.len());
        push(&mut parts, before, false);
        push(&mut parts, &collapse(&after[..end]), true);
        rest = after.get(end + STOP.len()..).unwrap_or("");
    }
    push(&mut parts, rest, false);
    // Whitespace between parts, collapsed.
    for part in parts.iter_mut().filter(|p| !p.hit) {
        let starts = part.text.starts_with(char::is_whitespace);
        let ends = part.text.ends_with(char::is_whitespace);
        let inner = collapse(&part.text);
        part.text = format!("{}{inner}{}", if starts { " " } else { "" }, if ends && !inner.is_empty() { " " } else { "" });
    }
    parts.retain(|p| !p.text.is_empty());
    // `ts_headline` picks a fragment, not where in it the word is: keep little before the first
    // marked word, so it is on screen (as in the local snippets).
    if let Some(first) = parts.iter().position(|p| p.hit) {
        let before: usize = parts[..first].iter().map(|p| p.text.chars().count()).sum();
        if before > LEAD_CHARS {
            let lead: String = parts[..first].iter().map(|p| p.text.as_str()).collect();
            let keep: String = lead.chars().skip(before - LEAD_CHARS).collect();
            let keep = keep.split_once(' ').map_or(keep.as_str(), |(_, rest)| rest).to_owned();
            parts.splice(..first, [SnippetPart { text: format!("…{keep}"), hit: false }]);
        }
    }
    parts
}

/// At most about this many characters before the first marked word of a team snippet.
const LEAD_CHARS: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(parts: &[SnippetPart]) -> String {
        parts.iter().map(|p| if p.hit { format!("[{}]", p.text) } else { p.text.clone() }).collect()
    }

    #[test]
    fn headlines_become_parts_with_the_first_word_on_screen() {
        let headline = format!("Section 2: {} \u{1}Region\u{2} totals and \u{1}region\u{2}", "pipeline revenue flat ".repeat(10));
        let text = shown(&headline_parts(&headline));
        assert!(text.starts_with('…') && text.contains("[Region] totals and [region]"), "{text}");
        assert!(text.find("[Region]").unwrap() < LEAD_CHARS + 8, "{text}");
        assert_eq!(shown(&headline_parts("short \u{1}hit\u{2} here")), "short [hit] here");
        assert_eq!(shown(&headline_parts("no marks at all")), "no marks at all");
        // What a teammate's build stored is cleaned as it is read: no escape sequence reaches a terminal.
        assert_eq!(shown(&headline_parts(&clean_headline("red \u{1b}[31m \u{1}alert\u{2}\u{7}"))).trim_end(), "red [31m [alert]");
    }
}

fn push(parts: &mut Vec<SnippetPart>, text: &str, hit: bool) {
    if !text.is_empty() {
        parts.push(SnippetPart { text: text.to_owned(), hit });
    }
}

/// What one text run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TextReport {
    /// Artifacts whose text was written.
    pub artifacts: usize,
    /// Segments written.
    pub segments: usize,
}

impl TeamStore {
    /// Writes the text of the team artifacts this member holds whose text the catalog lacks
    /// (new ones and ones registered before the team catalog had search), extracted by
    /// `source` from the local files, off the async workers. Stops at the first catalog error.
    pub async fn index_text(&self, source: Arc<dyn TextSource>, now_ms: i64) -> Result<TextReport, TeamError> {
        let catalog = self.catalog().await?;
        let mut report = TextReport::default();
        let mut after = 0i64;
        loop {
            let pending = catalog.text_pending(&self.team, &self.member, after, 16).await?;
            if pending.is_empty() {
                return Ok(report);
            }
            for (seq, id) in pending {
                after = seq;
                let lookup = id.clone();
                let Ok(record) = self.with_local(move |store| store.get(&lookup)).await else {
                    // Not on this machine (evicted): another holder, or this one after a pull, writes it.
                    continue;
                };
                // Extracted first (PDFium, file reads; on a blocking thread, bounded), written
                // after: the catalog's connection is never held while a file is read.
                let (local, source) = (self.local().clone(), source.clone());
                let extracted = tokio::task::spawn_blocking(move || {
                    let path = local.blob_path(&record.sha256);
                    let (mut batches, mut batch, mut bytes, mut total) = (Vec::new(), Vec::new(), 0usize, 0usize);
                    let mut note = source.segments(&record, &path, &mut |segment| {
                        bytes += segment.text.len();
                        total += segment.text.len();
                        batch.push(segment);
                        if bytes >= BATCH_BYTES {
                            batches.push(std::mem::take(&mut batch));
                            bytes = 0;
                        }
                        total < MAX_TEXT_BYTES
                    });
                    if total >= MAX_TEXT_BYTES {
                        note = Some(format!("only the first {} MiB of its text are in the team's search", MAX_TEXT_BYTES >> 20));
                    }
                    batches.push(batch);
                    (batches, note)
                })
                .await;
                let (batches, note) = extracted.unwrap_or_else(|_| (Vec::new(), Some("extracting its text failed".to_owned())));
                let segments = batches.iter().map(Vec::len).sum::<usize>();
                if catalog.put_text(&self.team, &id, batches, note, now_ms).await? {
                    report.artifacts += 1;
                    report.segments += segments;
                }
            }
        }
    }

    /// Full-text search over the team's artifacts this member may see.
    pub async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, TeamError> {
        self.catalog().await?.search(&self.team, &self.member, query).await
    }
}
