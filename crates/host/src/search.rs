//! Full-text search over stored artifacts: the indexer that feeds the store's FTS5 index, and
//! search with snippets cut from the artifacts themselves.
//!
//! The indexer runs off the call path, on a thread of its own with a catalog connection of its
//! own: it takes artifacts not indexed yet (newest first), extracts their text with
//! `mcp_canvas_render::text` (streamed, bounded) and reads its words and pairs in batches of
//! about [`BATCH_TEXT_BYTES`] on a second thread, up to [`READ_AHEAD_BYTES`] ahead, while the
//! first writes what is ready in one transaction of up to [`GROUP_TEXT_BYTES`] (a storing call
//! waits a third of a second at most for the write lock while a backlog is indexed). One process per data dir indexes at a time (an advisory lock on `search.lock`); the
//! others search what it wrote. A killed indexer leaves an artifact without its "indexed" mark,
//! and the next run indexes it again from the start. Stored artifacts wake it
//! ([`Search::wake`]); it also looks every few seconds, for what other processes stored.

use std::{
    fs::File,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Condvar, Mutex,
    },
    time::{Duration, Instant},
};

use mcp_canvas_contract::Viewer;
use mcp_canvas_render::text::{self, PiecePlace, TextKind, TextLimits};
use mcp_canvas_store::{ArtifactRecord, ArtifactStore, HitPlace, IndexBatch, IndexStep, SearchQuery, SearchResults, Segment, StoreError};

/// Runs that may start on one artifact without finishing before only its name is indexed.
const MAX_ATTEMPTS: u32 = 2;

/// Text written per transaction.
pub const BATCH_TEXT_BYTES: usize = 1024 * 1024;
/// How often a one-shot command checks the index for damage.
const CHECK_EVERY: Duration = Duration::from_secs(24 * 3600);
/// How often an idle indexer looks for work other processes left.
const IDLE_LOOK: Duration = Duration::from_secs(3);

/// How a file's text is found, by its type (and name, for an untyped file); `None` for files
/// with no text (images, audio, archives): only their name, summary and call are indexed.
pub fn text_kind(mime: &str, name: &str) -> Option<TextKind> {
    if mime == "image/svg+xml" {
        return Some(TextKind::Markup);
    }
    match mcp_canvas_contract::viewer_for(mime, name)? {
        Viewer::Pdf => Some(TextKind::Pdf),
        Viewer::Html => Some(TextKind::Markup),
        Viewer::Csv => Some(TextKind::Table),
        Viewer::Markdown | Viewer::Json | Viewer::Text | Viewer::Code => Some(TextKind::Lines),
        _ => None,
    }
}

/// The search side of a host: the indexer's thread (when started) and its wake-up.
#[derive(Default)]
pub(crate) struct Search {
    wake: Mutex<Option<mpsc::Sender<()>>>,
}

impl Search {
    /// Starts the indexer for `data_dir` (once; later calls do nothing).
    pub(crate) fn start(&self, data_dir: &Path) {
        let mut wake = self.wake.lock().unwrap_or_else(|p| p.into_inner());
        if wake.is_some() {
            return;
        }
        let (sender, receiver) = mpsc::channel();
        let data_dir = data_dir.to_owned();
        let spawned = std::thread::Builder::new().name("search-indexer".into()).spawn(move || indexer_thread(&data_dir, &receiver));
        match spawned {
            Ok(_) => *wake = Some(sender),
            Err(e) => tracing::warn!("the search indexer could not start: {e}"),
        }
    }

    /// New artifacts: index them soon.
    pub(crate) fn wake(&self) {
        if let Some(sender) = self.wake.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            let _ = sender.send(());
        }
    }
}

fn indexer_thread(data_dir: &Path, wake: &mpsc::Receiver<()>) {
    let store = match ArtifactStore::open(data_dir) {
        Ok(store) => store,
        Err(e) => {
            tracing::warn!("the search indexer could not open the store: {e}");
            return;
        }
    };
    let mut checked = false;
    loop {
        if let Some(_lock) = IndexLock::try_take(data_dir) {
            if !std::mem::replace(&mut checked, true) {
                repair_if_damaged(&store);
            }
            if let Err(e) = index_pending(&store, None) {
                tracing::warn!("indexing artifacts for search failed: {e}");
            }
        }
        match wake.recv_timeout(IDLE_LOOK) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The data dir's indexing lock, held while indexing (released when dropped, or when the
/// process dies).
pub struct IndexLock(#[allow(dead_code)] File);

impl IndexLock {
    /// Takes the lock unless another process (or thread) holds it.
    pub fn try_take(data_dir: &Path) -> Option<Self> {
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(lock_path(data_dir)).ok()?;
        file.try_lock().ok()?;
        Some(Self(file))
    }
}

fn lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join("search.lock")
}

/// A damaged index is emptied and built again (the catalog's other tables are not touched).
fn repair_if_damaged(store: &ArtifactStore) -> bool {
    match store.search_check() {
        Ok(()) => false,
        Err(e) => {
            tracing::warn!("the search index is damaged ({e}); building it again");
            if let Err(e) = store.search_clear() {
                tracing::warn!("emptying the damaged search index failed: {e}");
            }
            true
        }
    }
}

/// What one indexing run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct IndexRun {
    /// Artifacts indexed.
    pub artifacts: usize,
    /// Segments written.
    pub segments: usize,
    /// Whether artifacts were left for later (the deadline came).
    pub unfinished: bool,
}

/// Text read ahead of the writer at most (its group included).
const READ_AHEAD_BYTES: usize = 24 * BATCH_TEXT_BYTES;
/// Text the writer commits in one transaction at most (segments as FTS5 is given them: their
/// distinct words, about 60 % of the text), from what the reader sends within [`GROUP_WAIT`].
/// FTS5 writes its terms out once per transaction: FTS5 alone took 7.1 s for 200 MB of
/// segments in transactions of 4 MiB, 10.4 s in transactions of 1 MiB. The catalog's lock is
/// held a few hundred milliseconds then, while a backlog is indexed.
const GROUP_TEXT_BYTES: usize = 4 * BATCH_TEXT_BYTES;
/// How long the writer waits for more of a group after its first step.
const GROUP_WAIT: Duration = Duration::from_millis(250);

/// Indexes the calls and the artifacts not indexed yet, until none is left or `deadline` comes.
/// The caller holds [`IndexLock`]. One thread reads (extracts the text, reads its words and
/// pairs, encodes the batch's pair block) while this one writes: FTS5's work and the catalog's
/// are on this one.
pub fn index_pending(store: &ArtifactStore, deadline: Option<Instant>) -> Result<IndexRun, StoreError> {
    let mut run = IndexRun::default();
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    // Most looks find nothing: no reader thread for them.
    let left = !store.search_pending(1)?.is_empty() && read_and_write(store, &late, &mut run)?;
    if left {
        run.unfinished = true;
        return Ok(run);
    }
    // A run that wrote a quarter of the index or more merges it whole (see
    // `ArtifactStore::search_compact_step`): a rebuild, a large import; a trickle of new files leaves
    // it to FTS5's own merging.
    if run.segments > 0 && run.segments as u64 * 4 >= store.search_status()?.segments {
        // A step at a time, the catalog free between them, until the deadline (what is left
        // is merged by the next run, or by FTS5's own merging).
        while !late() && store.search_compact_step()? {}
    }
    while store.search_index_calls(500)? > 0 {
        if late() {
            run.unfinished = true;
            return Ok(run);
        }
    }
    Ok(run)
}

/// [`index_pending`]'s artifacts: read on a thread of its own, written on this one; `true` when
/// the deadline left some. The writer's error first (the reader then stops at its next batch).
fn read_and_write(store: &ArtifactStore, late: &(dyn Fn() -> bool + Sync), run: &mut IndexRun) -> Result<bool, StoreError> {
    let (sender, received) = mpsc::channel::<IndexStep>();
    let room = Room { in_flight: Mutex::new(0), freed: Condvar::new(), closed: AtomicBool::new(false) };
    // A merge of pair blocks sent and not committed yet: the reader plans no other meanwhile.
    let merging = AtomicBool::new(false);
    std::thread::scope(|scope| -> Result<Result<bool, StoreError>, StoreError> {
        let (merging, room) = (&merging, &room);
        // The writer stopping (done, or an error) frees a reader waiting for room.
        let _close = CloseOnDrop(room);
        // The reader owns the sender: its end ends the writer's loop.
        let steps = Pipe { sender, room };
        let reader = std::thread::Builder::new()
            .name("search-reader".into())
            .spawn_scoped(scope, move || read_pending(store, late, &steps, merging))
            .map_err(|e| StoreError::Io { action: "starting the search indexer's reader in", path: PathBuf::from("."), source: e })?;
        // What the reader sends within GROUP_WAIT (or up to GROUP_TEXT_BYTES), in one
        // transaction.
        while let Ok(first) = received.recv() {
            let until = Instant::now() + GROUP_WAIT;
            let mut bytes = first.text_bytes();
            // A merge is committed at once: the reader looks for the next one after it.
            let mut merges = matches!(first, IndexStep::Merged(_));
            let mut group = vec![first];
            while bytes < GROUP_TEXT_BYTES && !merges {
                match received.recv_timeout(until.saturating_duration_since(Instant::now())) {
                    Ok(step) => {
                        bytes += step.text_bytes();
                        merges = matches!(step, IndexStep::Merged(_));
                        group.push(step);
                    }
                    Err(_) => break,
                }
            }
            let applied = store.search_apply(group)?;
            room.written(bytes);
            if merges {
                merging.store(false, Ordering::Release);
            }
            run.artifacts += applied.artifacts;
            run.segments += applied.segments;
        }
        Ok(reader.join().unwrap_or_else(|_| Err(StoreError::Io { action: "reading artifacts' text for search in", path: PathBuf::from("."), source: std::io::Error::other("the reader panicked") })))
    })
    .and_then(std::convert::identity)
}

/// The reader's steps to the writer, bounded by the text not written yet rather than by steps
/// (a small file is three steps, a large file's batch a MiB of text).
struct Pipe<'a> {
    sender: mpsc::Sender<IndexStep>,
    room: &'a Room,
}

/// The text sent and not written yet, which the reader waits on.
struct Room {
    in_flight: Mutex<usize>,
    freed: Condvar,
    closed: AtomicBool,
}

impl Pipe<'_> {
    /// Whether the writer stopped.
    fn closed(&self) -> bool {
        self.room.closed.load(Ordering::Acquire)
    }

    /// Sends `step` once there is room; `false` when the writer stopped.
    fn send(&self, step: IndexStep) -> bool {
        let bytes = step.text_bytes();
        let room = self.room;
        let mut in_flight = room.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        while *in_flight > 0 && *in_flight + bytes > READ_AHEAD_BYTES && !room.closed.load(Ordering::Acquire) {
            in_flight = room.freed.wait(in_flight).unwrap_or_else(|p| p.into_inner());
        }
        *in_flight += bytes;
        drop(in_flight);
        !room.closed.load(Ordering::Acquire) && self.sender.send(step).is_ok()
    }
}

impl Room {
    /// The writer committed `bytes` of text: room for the reader.
    fn written(&self, bytes: usize) {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        *in_flight = in_flight.saturating_sub(bytes);
        self.freed.notify_all();
    }
}

/// Closes a [`Room`] when the writer's side ends, however it ends.
struct CloseOnDrop<'a>(&'a Room);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        let _guard = self.0.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        self.0.closed.store(true, Ordering::Release);
        self.0.freed.notify_all();
    }
}

/// The reading side of [`index_pending`]: each pending artifact's batches, then its end, sent
/// in order; `true` when `late` stopped it with artifacts left.
fn read_pending(store: &ArtifactStore, late: &dyn Fn() -> bool, steps: &Pipe<'_>, merging: &AtomicBool) -> Result<bool, StoreError> {
    let mut reader = store.search_reader()?;
    let mut started = std::collections::HashSet::new();
    loop {
        // The writer may not have marked the last ones yet: they are still pending.
        let pending: Vec<ArtifactRecord> = reader.pending(16 + started.len() as u32)?.into_iter().filter(|r| !started.contains(&r.id)).collect();
        if pending.is_empty() {
            // The merges still due, each once the last is committed (a phrase looks into every
            // block: few blocks, a quick phrase).
            loop {
                while merging.load(Ordering::Acquire) {
                    if steps.closed() {
                        return Ok(false);
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                let Some(merged) = reader.merge()? else { return Ok(false) };
                merging.store(true, Ordering::Release);
                if !steps.send(IndexStep::Merged(merged)) {
                    return Ok(false);
                }
            }
        }
        for record in pending {
            if late() {
                return Ok(true);
            }
            started.insert(record.id.clone());
            let attempts = reader.begin(&record.id)?;
            if !steps.send(IndexStep::Restart(record.id.clone())) {
                return Ok(false);
            }
            let Some(note) = read_artifact(store, &record, attempts, &mut |batch| steps.send(IndexStep::Batch(store.search_prepare(batch))))? else {
                // The writer stopped (its error is the run's).
                return Ok(false);
            };
            reader.read_whole()?;
            if !steps.send(IndexStep::Finish { artifact_id: record.id.clone(), now_ms: crate::Host::now_ms(), note }) {
                return Ok(false);
            }
            // The pair blocks' merge that is due, here rather than on the writer (which has
            // FTS5's work), one at a time; the writer commits it.
            if !merging.load(Ordering::Acquire) {
                if let Some(merged) = reader.merge()? {
                    merging.store(true, Ordering::Release);
                    if !steps.send(IndexStep::Merged(merged)) {
                        return Ok(false);
                    }
                }
            }
        }
    }
}

/// Reads one artifact for the index: its name and summary, then its text, batch by batch,
/// each given to `send` (`false`: stop); `attempts`: the runs started on it. A file that cannot be read is indexed by name, with a
/// note saying why; one whose runs stopped twice, by name only. Returns the note, or `None`
/// when `send` stopped it.
fn read_artifact(store: &ArtifactStore, record: &ArtifactRecord, attempts: u32, send: &mut dyn FnMut(IndexBatch) -> bool) -> Result<Option<Option<String>>, StoreError> {
    let mut batch = IndexBatch::new(&record.id);
    if attempts > MAX_ATTEMPTS {
        // Two runs on it never finished (PDFium crashed or hung, the process was killed): its
        // name only, so it cannot stop every indexer after it.
        let label = match &record.description {
            Some(description) => format!("{} {description}", record.name),
            None => record.name.clone(),
        };
        batch.push(Segment { place: HitPlace::Name, position: 0, byte_offset: 0, byte_length: 0, text: label });
        let note = "indexing its text stopped twice (a crash, a hang or a kill); only its name is searchable";
        return Ok(send(batch).then(|| Some(note.to_owned())));
    }
    let mut going_on = true;
    let path = store.blob_path(&record.sha256);
    let note = segments(record, &path, &mut |segment| {
        batch.push(segment);
        if batch.text_bytes() < BATCH_TEXT_BYTES {
            return true;
        }
        going_on = send(std::mem::replace(&mut batch, IndexBatch::new(&record.id)));
        going_on
    });
    Ok((going_on && send(batch)).then_some(note))
}

/// The segments of an artifact whose file is at `path`: its name and summary, then its text
/// (pages, rows, lines), each given to `sink` (which returns `false` to stop). Returns a note of
/// what was left out (a bound reached, a file that could not be read), if anything.
pub fn segments(record: &ArtifactRecord, path: &Path, sink: &mut dyn FnMut(Segment) -> bool) -> Option<String> {
    let label = match &record.description {
        Some(description) => format!("{} {description}", record.name),
        None => record.name.clone(),
    };
    if !sink(Segment { place: HitPlace::Name, position: 0, byte_offset: 0, byte_length: 0, text: label }) {
        return None;
    }
    let kind = text_kind(&record.mime, &record.name)?;
    if !path.is_file() {
        return Some("its file is not on this machine".to_owned());
    }
    let outcome = text::extract::<()>(path, kind, &TextLimits::default(), &mut |piece| if sink(segment_of(piece)) { Ok(()) } else { Err(()) });
    match outcome {
        Ok(extracted) => extracted.note,
        Err(Ok(())) => None,
        Err(Err(render_error)) => Some(format!("its text could not be read: {render_error}")),
    }
}

/// The host's extractor, for the team catalog's search.
pub(crate) struct Extractor;

impl mcp_canvas_team::TextSource for Extractor {
    fn segments(&self, record: &ArtifactRecord, path: &Path, sink: &mut dyn FnMut(Segment) -> bool) -> Option<String> {
        segments(record, path, sink)
    }
}

fn segment_of(piece: text::TextPiece) -> Segment {
    let place = match piece.place {
        PiecePlace::Page => HitPlace::Page,
        PiecePlace::Row => HitPlace::Row,
        PiecePlace::Line => HitPlace::Line,
    };
    Segment { place, position: piece.position, byte_offset: piece.byte_offset, byte_length: piece.byte_length, text: piece.text }
}

/// Searches, newest first, giving the search each hit's text from its artifact (the page's
/// text, the lines' or rows' bytes, the block of markup) to check phrases in and cut the snippet
/// from.
pub fn search(store: &ArtifactStore, query: &SearchQuery) -> Result<SearchResults, StoreError> {
    store.search_with(query, &mut |hit| {
        let kind = text_kind(&hit.artifact.mime, &hit.artifact.name)?;
        let piece_place = match hit.place {
            HitPlace::Page => PiecePlace::Page,
            HitPlace::Row => PiecePlace::Row,
            _ => PiecePlace::Line,
        };
        let path = store.blob_path(&hit.artifact.sha256);
        text::piece_text(&path, kind, piece_place, hit.position, hit.byte_range.0, hit.byte_range.1).ok()
    })
}

/// Empties the index and indexes everything again (on this thread; `mcp-canvas-cli artifacts
/// reindex`). Waits for another process's indexing run to end first.
pub fn rebuild(data_dir: &Path, store: &ArtifactStore) -> Result<IndexRun, StoreError> {
    let lock = loop {
        if let Some(lock) = IndexLock::try_take(data_dir) {
            break lock;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    store.search_clear()?;
    let run = index_pending(store, None);
    drop(lock);
    run
}

/// Shared for callers that keep a store behind an `Arc`.
pub fn index_pending_now(data_dir: &Path, store: &Arc<ArtifactStore>, deadline: Instant) -> Result<Option<IndexRun>, StoreError> {
    match IndexLock::try_take(data_dir) {
        Some(_lock) => {
            // FTS5's integrity check reads the whole index (seconds at 10,000 files): at most
            // once a day from one-shot commands (the app and the proxy check when they start).
            let stamp = data_dir.join("search.checked");
            let recent = std::fs::metadata(&stamp).and_then(|m| m.modified()).is_ok_and(|at| at.elapsed().is_ok_and(|age| age < CHECK_EVERY));
            if !recent {
                repair_if_damaged(store);
                let _ = std::fs::write(&stamp, b"");
            }
            index_pending(store, Some(deadline)).map(Some)
        }
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_kinds_follow_the_viewers() {
        assert_eq!(text_kind("application/pdf", "a.pdf"), Some(TextKind::Pdf));
        assert_eq!(text_kind("text/html", "a.html"), Some(TextKind::Markup));
        assert_eq!(text_kind("image/svg+xml", "a.svg"), Some(TextKind::Markup));
        assert_eq!(text_kind("text/csv", "a.csv"), Some(TextKind::Table));
        assert_eq!(text_kind("application/json", "a.json"), Some(TextKind::Lines));
        assert_eq!(text_kind("text/markdown", "a.md"), Some(TextKind::Lines));
        assert_eq!(text_kind("image/png", "a.png"), None);
        assert_eq!(text_kind("application/zip", "a.zip"), None);
    }
}
