//! The artifact store: content-addressed blobs on disk and a SQLite catalog describing them.
//!
//! Blobs are streamed to a temporary file (decoded and hashed in chunks), fsynced and renamed into
//! `artifacts/blobs/<sha[0..2]>/<sha[2..4]>/<sha>`; identical bytes are stored once. The catalog
//! row is inserted only after its blob is durable, so a crash leaves at worst an orphan blob or a
//! temp file (both removed by [`ArtifactStore::gc`]), never a row pointing at missing or
//! half-written bytes. Reads re-hash, so a damaged blob gives an error, not wrong bytes.
//!
//! Lifecycle: sessions link to artifacts; clearing a session removes its links, and session-scoped
//! artifacts no session links to are removed. Pinned artifacts stay. A quota and an age limit
//! evict unpinned artifacts least-recently-used first. Time is always passed in by the caller.
#![deny(missing_docs)]

mod audit;
mod blobs;
mod catalog;
mod error;
mod lifecycle;
mod outbox;
mod query;
mod record;
mod sampling;
pub mod search;
mod team_log;
pub mod spill;
mod verify;

pub use audit::{AuditFilter, AuditRecord, MAX_RESULT_TEXT};
pub use blobs::SpillFile;
pub use error::StoreError;
pub use lifecycle::{Eviction, Limits};
pub use outbox::{OutboxStats, Queued};
pub use query::{ArtifactPage, ArtifactQuery, ArtifactSource, MimeFamily, SortKey, StorageUsage};
pub use sampling::SamplingRow;
pub use team_log::{LogEntry, QueuedLog};
pub use search::{Applied as SearchApplied, HitPlace, IndexBatch, IndexStatus, IndexStep, MergedBlocks, PreparedBatch, SearchHit, SearchQuery, SearchResults, Segment, SnippetPart};
pub use record::{ArtifactRecord, NewArtifact, Persistence};
pub use verify::VerifyReport;

use std::{
    io::Read,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        Mutex, MutexGuard,
    },
};

/// A store rooted at one directory (the app's data dir).
pub struct ArtifactStore {
    blobs: blobs::BlobDir,
    catalog: Mutex<rusqlite::Connection>,
    /// New artifacts are queued for the team store ([`Self::queue_for_team`]).
    queue_for_team: AtomicBool,
    /// The search vocabulary's words this process wrote (the indexer's).
    known_words: Mutex<search::KnownWords>,
    /// The pair blocks' directories this process read (a phrase's lookup).
    pair_directories: Mutex<search::Directories>,
    /// The catalog's file (a second connection: [`Self::search_reader`]).
    catalog_path: PathBuf,
}

/// The search indexer's reading side, on a catalog connection of its own: the files to read,
/// the runs started on each, the pair blocks merged — while the writing side holds the store's
/// own connection for FTS5's work. It never waits for the writer: which file it is reading is
/// a marker file beside the catalog (`search.reading`), not a row, so a run that stops while
/// reading a file (PDFium crashed, the process was killed) is counted against that file when
/// the next reader starts.
pub struct SearchReader<'a> {
    store: &'a ArtifactStore,
    conn: rusqlite::Connection,
    marker: PathBuf,
}

impl SearchReader<'_> {
    /// [`ArtifactStore::search_pending`].
    pub fn pending(&self, limit: u32) -> Result<Vec<ArtifactRecord>, StoreError> {
        search::pending(&self.conn, limit)
    }

    /// Starts reading `artifact_id`: returns how many runs started on it without finishing,
    /// this one included. Until [`Self::read_whole`], a stop counts against it. (The writer
    /// drops what an earlier run left of its text: [`ArtifactStore::search_restart`].)
    pub fn begin(&mut self, artifact_id: &str) -> Result<u32, StoreError> {
        std::fs::write(&self.marker, artifact_id).map_err(error::io("writing", &self.marker))?;
        Ok(search::attempts(&self.conn, artifact_id)? + 1)
    }

    /// The artifact begun was read whole: a stop from here on is not counted against it.
    pub fn read_whole(&mut self) -> Result<(), StoreError> {
        match std::fs::remove_file(&self.marker) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(error::io("removing", &self.marker)(e)),
            _ => Ok(()),
        }
    }

    /// [`ArtifactStore::search_prepare`].
    pub fn prepare(&self, batch: IndexBatch) -> PreparedBatch {
        self.store.search_prepare(batch)
    }

    /// The next merge of pair blocks that is due, done on this connection without waiting for
    /// the catalog's lock (`None`: none is due). The writer commits it
    /// ([`IndexStep::Merged`]); until then, look for no other.
    pub fn merge(&mut self) -> Result<Option<MergedBlocks>, StoreError> {
        loop {
            match search::plan_merge(&mut self.conn)? {
                search::MergeDue::Nothing => return Ok(None),
                search::MergeDue::SetAside => continue,
                search::MergeDue::Merge(input) => return search::merged(input).map(Some),
            }
        }
    }
}

impl ArtifactStore {
    /// Opens (creating when needed) the store under `data_dir`: `artifacts/` for blobs and
    /// `catalog.sqlite` for the catalog, migrated to the current schema. A catalog written by a
    /// newer MCP Canvas is refused with [`StoreError::SchemaTooNew`].
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let blobs = blobs::BlobDir::open(&data_dir.join("artifacts"))?;
        let catalog_path = data_dir.join("catalog.sqlite");
        let catalog = catalog::open(&catalog_path)?;
        Ok(Self { blobs, catalog: Mutex::new(catalog), queue_for_team: AtomicBool::new(false), known_words: Mutex::default(), pair_directories: Mutex::default(), catalog_path })
    }

    fn conn(&self) -> MutexGuard<'_, rusqlite::Connection> {
        self.catalog.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn known_words(&self) -> MutexGuard<'_, search::KnownWords> {
        self.known_words.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Streams `bytes` into the store and records it in the catalog, linked to the session.
    ///
    /// The artifact id is `<namespace>_<first 12 hex digits of sha256>`, the namespace being the
    /// server name reduced to `[a-z0-9-]`. Storing the same bytes from the same server again
    /// returns the existing record (last-used time refreshed, linked to this session too).
    ///
    /// Safe against a concurrent [`Self::gc`] in this or another process: the blob's hash is
    /// reserved in the catalog before the blob moves into place, and the reservation is dropped
    /// in the transaction that inserts the row; gc deletes only blobs it finds neither.
    pub fn put(&self, new: NewArtifact<'_>, bytes: impl Read) -> Result<ArtifactRecord, StoreError> {
        let temp = self.blobs.write_temp(bytes)?;
        self.put_temp(new, temp)
    }

    /// A file to write an artifact's bytes into while they arrive (see [`Self::put_spilled`]).
    pub fn start_spill(&self) -> Result<SpillFile, StoreError> {
        self.blobs.start_spill()
    }

    /// Like [`Self::put`] for bytes already written to `spill`, followed by `tail`: the bytes are
    /// not copied again.
    pub fn put_spilled(&self, new: NewArtifact<'_>, spill: SpillFile, tail: &[u8]) -> Result<ArtifactRecord, StoreError> {
        let temp = self.blobs.finish_spill(spill, tail)?;
        self.put_temp(new, temp)
    }

    /// Stores a copy of an artifact the team store has (a teammate's, or one evicted from this
    /// cache): not queued for upload, and refused unless the bytes hash to `sha256`.
    pub fn put_cached(&self, new: NewArtifact<'_>, bytes: impl Read, sha256: &str) -> Result<ArtifactRecord, StoreError> {
        let temp = self.blobs.write_temp(bytes)?;
        if temp.written.sha256 != sha256 {
            let found = temp.written.sha256.clone();
            temp.discard();
            return Err(StoreError::Corrupt { id: new.name.to_owned(), reason: format!("its bytes hash to {found}, not the catalog's {sha256}") });
        }
        self.put_temp_queued(new, temp, false)
    }

    fn put_temp(&self, new: NewArtifact<'_>, temp: blobs::TempBlob) -> Result<ArtifactRecord, StoreError> {
        self.put_temp_queued(new, temp, self.queue_for_team.load(Ordering::Relaxed))
    }

    fn put_temp_queued(&self, new: NewArtifact<'_>, temp: blobs::TempBlob, queue: bool) -> Result<ArtifactRecord, StoreError> {
        let token = blobs::reservation_token();
        if let Err(e) = catalog::reserve(&self.conn(), &token, &temp.written.sha256) {
            temp.discard();
            return Err(e);
        }
        let stored = self
            .blobs
            .place(&temp)
            .and_then(|()| catalog::insert_or_touch(&mut self.conn(), &new, &temp.written.sha256, temp.written.size, &token, queue));
        if stored.is_err() {
            temp.discard();
            let _ = catalog::release(&self.conn(), &token);
        }
        stored
    }

    /// The catalog record of artifact `id`.
    pub fn get(&self, id: &str) -> Result<ArtifactRecord, StoreError> {
        catalog::get(&self.conn(), id)
    }

    /// The record and the full bytes of artifact `id`, checked against its sha256: a damaged
    /// blob is an error, never wrong bytes.
    pub fn read(&self, id: &str) -> Result<(ArtifactRecord, Vec<u8>), StoreError> {
        let record = self.get(id)?;
        let bytes = self.blobs.read(&record.sha256).map_err(|e| match e {
            StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                StoreError::Corrupt { id: id.to_owned(), reason: "its blob is missing".into() }
            }
            other => other,
        })?;
        blobs::check(id, &record.sha256, &bytes)?;
        Ok((record, bytes))
    }

    /// Copies artifact `id` to `destination` (via a temp file beside it, verified, then renamed).
    pub fn export(&self, id: &str, destination: &Path) -> Result<ArtifactRecord, StoreError> {
        let record = self.get(id)?;
        self.blobs.export(id, &record.sha256, destination)?;
        Ok(record)
    }

    /// Marks `id` as used now (for least-recently-used eviction).
    pub fn touch(&self, id: &str, now_ms: i64) -> Result<(), StoreError> {
        catalog::touch(&self.conn(), id, now_ms)
    }

    /// Where the blob with this sha256 lives (whether or not it exists).
    pub fn blob_path(&self, sha256: &str) -> PathBuf {
        self.blobs.path_for(sha256)
    }

    /// Artifacts linked to one session, oldest first.
    pub fn list_session(&self, session_id: &str) -> Result<Vec<ArtifactRecord>, StoreError> {
        let query = ArtifactQuery { session: Some(session_id.to_owned()), sort: SortKey::Created, descending: false, limit: u32::MAX, ..Default::default() };
        Ok(self.query(&query)?.items)
    }

    /// The artifact of `session` named by id or by file name (the most recently added when
    /// several share the name).
    pub fn find_in_session(&self, session_id: &str, id_or_name: &str) -> Result<Option<ArtifactRecord>, StoreError> {
        catalog::find_in_session(&self.conn(), session_id, id_or_name)
    }

    /// Filtered, sorted, paginated listing.
    pub fn query(&self, query: &ArtifactQuery) -> Result<ArtifactPage, StoreError> {
        query::run(&self.conn(), query)
    }

    /// Every server/tool pair that produced a stored artifact, with counts (the browser's filters).
    pub fn sources(&self) -> Result<Vec<ArtifactSource>, StoreError> {
        query::sources(&self.conn())
    }

    /// Bytes used (distinct blobs, as the quota counts them) and pinned, against `quota_bytes`.
    pub fn usage(&self, quota_bytes: u64) -> Result<StorageUsage, StoreError> {
        query::usage(&self.conn(), quota_bytes)
    }

    /// Pins (`true`) or unpins an artifact. Pinned artifacts survive session clears, the quota
    /// and the age limit.
    pub fn set_pinned(&self, id: &str, pinned: bool) -> Result<ArtifactRecord, StoreError> {
        let conn = self.conn();
        catalog::set_persistence(&conn, id, if pinned { Persistence::Pinned } else { Persistence::Session })?;
        catalog::get(&conn, id)
    }

    /// Removes an artifact (and its blob when no other artifact shares it).
    pub fn remove(&self, id: &str) -> Result<ArtifactRecord, StoreError> {
        let record = catalog::remove(&mut self.conn(), id)?;
        self.delete_unreferenced(std::iter::once(record.sha256.clone()))?;
        Ok(record)
    }

    /// Clears a session: its links go, and session-scoped artifacts nothing links to any more are
    /// removed with their blobs. Returns the removed artifacts.
    pub fn clear_session(&self, session_id: &str) -> Result<Vec<ArtifactRecord>, StoreError> {
        let removed = lifecycle::clear_session(&mut self.conn(), session_id)?;
        self.delete_unreferenced(removed.iter().map(|r| r.sha256.clone()))?;
        Ok(removed)
    }

    /// Clears every session whose newest link is older than `cutoff_ms`, except `keep`.
    pub fn clear_sessions_before(&self, cutoff_ms: i64, keep: &str) -> Result<Vec<ArtifactRecord>, StoreError> {
        let sessions = lifecycle::sessions_idle_since(&self.conn(), cutoff_ms, keep)?;
        let mut removed = Vec::new();
        for session in sessions {
            removed.extend(lifecycle::clear_session(&mut self.conn(), &session)?);
        }
        self.delete_unreferenced(removed.iter().map(|r| r.sha256.clone()))?;
        Ok(removed)
    }

    /// Applies the quota and age limit: unpinned artifacts go, least-recently-used first, and
    /// their blobs with them (only theirs: no walk over the blob directory).
    pub fn enforce(&self, limits: &Limits, now_ms: i64) -> Result<Eviction, StoreError> {
        let (eviction, freed) = lifecycle::enforce(&mut self.conn(), limits, now_ms)?;
        self.delete_unreferenced(freed.into_iter())?;
        Ok(eviction)
    }

    /// Deletes blobs no artifact references and temp files left by writers that are gone.
    /// Returns how many files were removed. Walks the whole blob directory: housekeeping (the
    /// app's start, `mcp-canvas-cli artifacts gc`), not something to run per call.
    pub fn gc(&self) -> Result<usize, StoreError> {
        catalog::drop_stale_reservations(&mut self.conn(), blobs::writer_id(), blobs::process_alive)?;
        // A snapshot narrows the candidates; each is checked again under the write lock.
        let referenced = catalog::all_sha256(&self.conn())?;
        let candidates = self.blobs.blob_files()?.into_iter().filter(|(sha, _)| !referenced.contains(sha));
        let removed = self.delete_unreferenced(candidates.map(|(sha, _)| sha))?;
        Ok(removed + self.blobs.remove_abandoned_temp_files()?)
    }

    /// Deletes the blobs of `sha256s` that no row and no writer's reservation references, each
    /// checked and deleted inside a write transaction, so a writer cannot reserve it in between.
    fn delete_unreferenced(&self, sha256s: impl Iterator<Item = String>) -> Result<usize, StoreError> {
        let mut sha256s: Vec<String> = sha256s.filter(|sha| sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit())).collect();
        sha256s.sort();
        sha256s.dedup();
        let mut removed = 0;
        // Batches keep each write lock short: other processes' writers wait for it.
        for batch in sha256s.chunks(256) {
            let mut conn = self.conn();
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            for sha in batch {
                if !catalog::sha256_in_use(&tx, sha)? {
                    self.blobs.remove(&self.blobs.path_for(sha))?;
                    removed += 1;
                }
            }
            tx.commit()?;
        }
        Ok(removed)
    }

    /// Re-hashes every blob and reports missing, corrupt and orphaned files.
    pub fn verify(&self) -> Result<VerifyReport, StoreError> {
        // Files first, then the catalog: a blob placed in between has its reservation or row by
        // then, so it is not reported as an orphan.
        let files = self.blobs.blob_files()?;
        let conn = self.conn();
        let records = catalog::all_id_sha(&conn)?;
        let in_use = catalog::all_sha256(&conn)?;
        drop(conn);
        verify::run(&self.blobs, files, &records, &in_use)
    }

    /// Appends one call to the audit log (and, while queueing for a team, to the team log
    /// outbox in the same transaction).
    pub fn audit(&self, record: &AuditRecord) -> Result<(), StoreError> {
        self.audit_all(std::slice::from_ref(record))
    }

    /// Records several calls in one transaction (one commit for all of them), in order.
    pub fn audit_all(&self, records: &[AuditRecord]) -> Result<(), StoreError> {
        let conn = self.conn();
        let transaction = conn.unchecked_transaction()?;
        let queue = self.queue_for_team.load(Ordering::Relaxed);
        for record in records {
            audit::insert(&transaction, record)?;
            if queue {
                team_log::enqueue(&transaction, "call", transaction.last_insert_rowid(), record.started_ms)?;
            }
        }
        transaction.commit()?;
        Ok(())
    }

    /// The most recent audited calls, newest first.
    pub fn audit_log(&self, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        audit::recent(&self.conn(), limit)
    }

    /// The most recent audited calls matching `filter`, newest first.
    pub fn audit_log_matching(&self, filter: &AuditFilter<'_>, limit: u32) -> Result<Vec<AuditRecord>, StoreError> {
        audit::matching(&self.conn(), filter, limit)
    }

    /// Keeps one sampling exchange; returns its row id.
    pub fn record_sampling(&self, row: &SamplingRow) -> Result<i64, StoreError> {
        let conn = self.conn();
        let transaction = conn.unchecked_transaction()?;
        let id = sampling::insert(&transaction, row)?;
        if self.queue_for_team.load(Ordering::Relaxed) {
            team_log::enqueue(&transaction, "sampling", id, row.at_ms)?;
        }
        transaction.commit()?;
        Ok(id)
    }

    /// Sampling exchanges of `server` (all servers with `None`), newest first.
    pub fn sampling_log(&self, server: Option<&str>, limit: u32) -> Result<Vec<SamplingRow>, StoreError> {
        sampling::recent(&self.conn(), server, limit)
    }

    /// Total bytes of distinct blobs the catalog references.
    pub fn total_bytes(&self) -> Result<u64, StoreError> {
        catalog::total_bytes(&self.conn())
    }

    /// From now on, every new artifact is also queued for the team store, in the transaction
    /// that records it: acknowledged means stored here and queued.
    pub fn queue_for_team(&self, on: bool) {
        self.queue_for_team.store(on, Ordering::Relaxed);
    }

    /// Queues every artifact of this store for the team store (`store migrate`), except those
    /// of session `except_session` (copies fetched from the team); returns how many were not
    /// queued yet.
    pub fn queue_all_for_team(&self, now_ms: i64, except_session: &str) -> Result<usize, StoreError> {
        outbox::enqueue_all(&self.conn(), now_ms, except_session)
    }

    /// The next `limit` queued artifacts after position `after_seq` (0: from the start), oldest
    /// first.
    pub fn team_queue(&self, after_seq: i64, limit: u32) -> Result<Vec<Queued>, StoreError> {
        outbox::next(&self.conn(), after_seq, limit)
    }

    /// The team store registered queued entry `seq`: it leaves the queue (and the artifact
    /// becomes evictable here, the team store keeping it).
    pub fn team_done(&self, seq: i64) -> Result<(), StoreError> {
        outbox::done(&self.conn(), seq)
    }

    /// An attempt at queued entry `seq` failed with `error` (it stays queued).
    pub fn team_failed(&self, seq: i64, error: &str) -> Result<(), StoreError> {
        outbox::failed(&self.conn(), seq, error)
    }

    /// The next `limit` audit rows and sampling exchanges waiting for the team catalog after
    /// position `after_seq` (0: from the start), oldest first.
    pub fn team_log_queue(&self, after_seq: i64, limit: u32) -> Result<Vec<QueuedLog>, StoreError> {
        team_log::next(&self.conn(), after_seq, limit)
    }

    /// The team catalog has these queued rows: they leave the queue.
    pub fn team_log_done(&self, seqs: &[i64]) -> Result<(), StoreError> {
        team_log::done(&self.conn(), seqs)
    }

    /// An attempt to write these queued rows failed with `error` (they stay queued).
    pub fn team_log_failed(&self, seqs: &[i64], error: &str) -> Result<(), StoreError> {
        team_log::failed(&self.conn(), seqs, error)
    }

    /// Artifacts whose text is not indexed yet, newest first (the indexer's work).
    pub fn search_pending(&self, limit: u32) -> Result<Vec<ArtifactRecord>, StoreError> {
        search::pending(&self.conn(), limit)
    }

    /// Starts (or restarts) indexing `artifact_id`: drops what an interrupted run left, and
    /// returns how many runs have started on it without finishing (this one included).
    pub fn search_start(&self, artifact_id: &str) -> Result<u32, StoreError> {
        search::start(&mut self.conn(), artifact_id)
    }

    /// The search indexer's reading side, on a catalog connection of its own (see
    /// [`SearchReader`]).
    pub fn search_reader(&self) -> Result<SearchReader<'_>, StoreError> {
        let conn = catalog::open(&self.catalog_path)?;
        let marker = self.catalog_path.with_file_name("search.reading");
        // A run stopped while reading that file: counted against it.
        if let Ok(stopped_on) = std::fs::read_to_string(&marker) {
            search::count_stopped_run(&conn, stopped_on.trim())?;
            std::fs::remove_file(&marker).map_err(error::io("removing", &marker))?;
        }
        Ok(SearchReader { store: self, conn, marker })
    }

    /// Drops what an interrupted run left of `artifact_id`'s text, before it is written again
    /// (the indexer's writer, for what [`SearchReader::begin`] began).
    pub fn search_restart(&self, artifact_id: &str) -> Result<(), StoreError> {
        search::restart(&mut self.conn(), artifact_id)
    }

    /// Writes a batch of segments in one short transaction; `false` (nothing written) when the
    /// artifact was removed meanwhile. Its words are read first, before the catalog's lock is
    /// taken (a storing call waits less); an indexer reads them on another thread
    /// ([`Self::search_prepare`], [`Self::search_write_prepared`]).
    /// Then the merges of pair blocks that are due ([`Self::search_merge_step`]: an indexer with
    /// a second thread takes them there).
    pub fn search_write(&self, batch: IndexBatch) -> Result<bool, StoreError> {
        let written = self.search_write_prepared(self.search_prepare(batch))?;
        while self.search_merge_step()? {}
        Ok(written)
    }

    /// One merge of the index's pair blocks, if one is due (`false`: none): read, then merged
    /// and encoded without holding the catalog (a writer goes on meanwhile), then committed in
    /// a short transaction.
    pub fn search_merge_step(&self) -> Result<bool, StoreError> {
        let input = match search::plan_merge(&mut self.conn())? {
            search::MergeDue::Nothing => return Ok(false),
            search::MergeDue::SetAside => return Ok(true),
            search::MergeDue::Merge(input) => input,
        };
        let merged = search::merged(input)?;
        search::commit_merge(&mut self.conn(), merged)
    }

    /// Reads a batch's words (its pairs, the words not in the vocabulary yet) for
    /// [`Self::search_write_prepared`]: an indexer does it on one thread while another writes.
    pub fn search_prepare(&self, mut batch: IndexBatch) -> PreparedBatch {
        let mut prepared = search::prepare(&mut batch);
        // The lock on what was written is taken for the batch's distinct words only: the
        // indexer's writer takes it after each write.
        prepared.drop_known(&self.known_words());
        PreparedBatch { batch, prepared }
    }

    /// [`Self::search_write`] for a batch whose words were read.
    pub fn search_write_prepared(&self, batch: PreparedBatch) -> Result<bool, StoreError> {
        let PreparedBatch { batch, prepared } = batch;
        let written = search::write(&mut self.conn(), batch, prepared)?;
        Ok(written.map(|prepared| search::remember(&mut self.known_words(), prepared)).is_some())
    }

    /// The indexer's writes in order, in one transaction: what an interrupted run left dropped,
    /// batches written, artifacts marked indexed (nothing for an artifact removed meanwhile).
    /// FTS5 writes its terms out once per transaction, so a few batches together cost less
    /// than each alone; the indexer groups what its reader has ready, up to a bound.
    pub fn search_apply(&self, steps: Vec<IndexStep>) -> Result<SearchApplied, StoreError> {
        let (applied, written) = search::apply(&mut self.conn(), steps)?;
        let mut known = self.known_words();
        written.into_iter().for_each(|prepared| search::remember(&mut known, prepared));
        Ok(applied)
    }

    /// Marks `artifact_id` indexed, with a note of what was left out (a size bound, a damaged
    /// file), if anything.
    pub fn search_finish(&self, artifact_id: &str, now_ms: i64, note: Option<&str>) -> Result<(), StoreError> {
        search::finish(&self.conn(), artifact_id, now_ms, note)
    }

    /// Indexes the arguments of up to `limit` calls from the audit log not indexed yet; returns
    /// how many were looked at (0: none left).
    pub fn search_index_calls(&self, limit: u32) -> Result<usize, StoreError> {
        search::index_calls(&mut self.conn(), limit)
    }

    /// Empties the index: everything is indexed again.
    pub fn search_clear(&self) -> Result<(), StoreError> {
        search::clear(&mut self.conn())
    }

    /// One step of merging the search index's b-trees into one (about 2,000 pages, one short
    /// transaction); `false` when nothing was left to merge. After a run that wrote much of the
    /// index, the indexer takes steps until none is left or its deadline comes (a merge left
    /// half done is taken up by the next one, or by FTS5's own merging): smaller, and quicker to
    /// query.
    pub fn search_compact_step(&self) -> Result<bool, StoreError> {
        search::compact_step(&self.conn())
    }

    /// Checks the index; an error when it is damaged (then [`Self::search_clear`] and index again).
    pub fn search_check(&self) -> Result<(), StoreError> {
        search::check(&self.conn())
    }

    /// The text a call was indexed with (server, tool, arguments), for a snippet.
    pub fn search_call_text(&self, call_id: &str) -> Result<Option<String>, StoreError> {
        search::call_text(&self.conn(), call_id)
    }

    /// Records that the proxy gave these artifacts to an AI host's model (what its
    /// `search_artifacts` may find). Ids no longer stored are skipped.
    pub fn share_with_model(&self, ids: &[String], now_ms: i64) -> Result<(), StoreError> {
        search::share_with_model(&mut self.conn(), ids, now_ms)
    }

    /// Takes an artifact back from what AI hosts' models may find and send on (the person's
    /// choice; the proxy gives it again only by returning it to a model again).
    pub fn unshare_with_model(&self, artifact_id: &str) -> Result<(), StoreError> {
        search::unshare_with_model(&self.conn(), artifact_id)
    }

    /// Whether the proxy gave `artifact_id` to an AI host's model (so a model may send it on).
    pub fn shared_with_model(&self, artifact_id: &str) -> Result<bool, StoreError> {
        search::shared_with_model(&self.conn(), artifact_id)
    }

    /// How complete the index is.
    pub fn search_status(&self) -> Result<IndexStatus, StoreError> {
        search::status(&self.conn())
    }

    /// Full-text search, newest first. Snippets of names and calls are cut here; a page's or a
    /// line's need its text, which only [`Self::search_with`]'s caller can give (here they stay
    /// empty, and a phrase is matched by its words alone).
    pub fn search(&self, query: &SearchQuery) -> Result<SearchResults, StoreError> {
        search::run(self, query, &mut |_| None)
    }

    /// Full-text search with `text_of` giving a hit's text at its place (see [`search::run`]'s
    /// rules): its snippet is cut from it and a phrase is checked in it.
    pub fn search_with(&self, query: &SearchQuery, text_of: &mut dyn FnMut(&SearchHit) -> Option<String>) -> Result<SearchResults, StoreError> {
        search::run(self, query, text_of)
    }

    /// How far behind the team store this store is.
    pub fn team_backlog(&self) -> Result<OutboxStats, StoreError> {
        let conn = self.conn();
        let mut stats = outbox::stats(&conn)?;
        let (records, last_error) = team_log::stats(&conn)?;
        stats.records = records;
        stats.last_error = stats.last_error.or(last_error);
        Ok(stats)
    }
}
