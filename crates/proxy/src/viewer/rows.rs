//! A window of a CSV/TSV table's rows, for a view that scrolls through a million of them: the
//! file is read once to note where every 256th row starts, then each window is read from the
//! nearest mark. Memory stays small whatever the file's size; a row of a million columns gives
//! its first [`MAX_COLUMNS`].

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use serde_json::{json, Value};

use mcp_canvas_store::ArtifactStore;

use super::ViewFile;

/// Columns sent per row; the count of all of them is sent too.
pub const MAX_COLUMNS: usize = 200;
/// Characters sent per cell.
pub const MAX_CELL_CHARS: usize = 1000;
/// A window stops growing past about this many bytes of cells (the view asks for the rest).
const MAX_WINDOW_BYTES: usize = 2 * 1024 * 1024;
/// One mark every this many rows.
const STRIDE: u64 = 256;
/// Tables whose marks are kept.
const KEPT_TABLES: usize = 4;

/// Where the rows of one table start.
struct RowIndex {
    sha256: String,
    delimiter: u8,
    marks: Vec<csv::Position>,
    /// Records in the file, the header included.
    records: u64,
    header: Vec<String>,
    columns: usize,
}

/// The tables read lately, shared by the view's calls.
#[derive(Clone, Default)]
pub struct RowCache {
    tables: Arc<Mutex<VecDeque<Arc<RowIndex>>>>,
    reading: Arc<Mutex<()>>,
}

impl RowCache {
    /// Rows `offset..offset + limit` (not counting the header row) of `file`.
    pub(crate) fn window(&self, store: &ArtifactStore, file: &ViewFile, offset: u64, limit: u64) -> Result<Value, String> {
        if file.viewer != mcp_canvas_contract::Viewer::Csv {
            return Err(format!("`{}` is not a table", file.name));
        }
        let record = super::files::record(store, file)?;
        let path = store.blob_path(&record.sha256);
        let index = self.index(&record.sha256, &path, file)?;
        let data_rows = index.records.saturating_sub(1);
        let first = offset.min(data_rows);
        let mut rows = Vec::new();
        // Past the end: no rows (not the file's first ones).
        if first < data_rows {
            // Record `wanted` (the header is record 0) is read from the mark at or before it.
            let wanted = first + 1;
            let mark = (wanted / STRIDE) as usize;
            let position = index.marks.get(mark).ok_or_else(|| format!("`{}` changed while it was read as a table", file.name))?;
            let mut reader = reader(index.delimiter, &path).map_err(|e| read_error(file, &e))?;
            reader.seek(position.clone()).map_err(|e| read_error(file, &e))?;
            let mut record = csv::ByteRecord::new();
            let mut at = mark as u64 * STRIDE;
            let mut bytes = 0;
            while rows.len() < limit as usize && bytes < MAX_WINDOW_BYTES && reader.read_byte_record(&mut record).map_err(|e| read_error(file, &e))? {
                if at >= wanted {
                    let row = cells(&record);
                    bytes += row.iter().map(|c| c.len() + 4).sum::<usize>();
                    rows.push(row);
                }
                at += 1;
            }
        }
        Ok(json!({
            "content": [],
            "structuredContent": {
                "header": index.header,
                "rows": rows,
                "offset": first,
                "totalRows": data_rows,
                "totalColumns": index.columns,
                "shownColumns": index.columns.min(MAX_COLUMNS),
                "delimiter": (index.delimiter as char).to_string(),
            }
        }))
    }

    fn index(&self, sha256: &str, path: &std::path::Path, file: &ViewFile) -> Result<Arc<RowIndex>, String> {
        let delimiter = delimiter(file, path);
        let cached = || self.tables.lock().unwrap().iter().find(|t| t.sha256 == sha256 && t.delimiter == delimiter).cloned();
        if let Some(found) = cached() {
            return Ok(found);
        }
        // One table read at a time: views opened together on the same big file wait for the
        // first reading (and then find it) instead of each reading the file whole.
        let _reading = self.reading.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(found) = cached() {
            return Ok(found);
        }
        let mut reader = reader(delimiter, path).map_err(|e| read_error(file, &e))?;
        let mut record = csv::ByteRecord::new();
        let mut marks = Vec::new();
        let mut records = 0u64;
        let mut header = Vec::new();
        let mut columns = 0;
        loop {
            let position = reader.position().clone();
            if !reader.read_byte_record(&mut record).map_err(|e| read_error(file, &e))? {
                break;
            }
            if records % STRIDE == 0 {
                marks.push(position);
            }
            if records == 0 {
                header = cells(&record);
                columns = record.len();
            }
            columns = columns.max(record.len());
            records += 1;
        }
        let index = Arc::new(RowIndex { sha256: sha256.to_owned(), delimiter, marks, records, header, columns });
        let mut tables = self.tables.lock().unwrap();
        tables.push_back(index.clone());
        while tables.len() > KEPT_TABLES {
            tables.pop_front();
        }
        Ok(index)
    }
}

fn reader(delimiter: u8, path: &std::path::Path) -> Result<csv::Reader<std::fs::File>, csv::Error> {
    let file = std::fs::File::open(path)?;
    Ok(csv::ReaderBuilder::new().has_headers(false).flexible(true).delimiter(delimiter).from_reader(file))
}

fn read_error(file: &ViewFile, error: &dyn std::fmt::Display) -> String {
    format!("`{}` could not be read as a table: {error}", file.name)
}

/// The first [`MAX_COLUMNS`] cells, each at most [`MAX_CELL_CHARS`] characters.
fn cells(record: &csv::ByteRecord) -> Vec<String> {
    record
        .iter()
        .take(MAX_COLUMNS)
        .map(|cell| {
            let text = String::from_utf8_lossy(cell);
            match text.char_indices().nth(MAX_CELL_CHARS) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text.into_owned(),
            }
        })
        .collect()
}

/// Tab for TSV files, else what the first line uses most of: comma, tab or semicolon.
fn delimiter(file: &ViewFile, path: &std::path::Path) -> u8 {
    if file.mime == "text/tab-separated-values" || file.name.to_ascii_lowercase().ends_with(".tsv") {
        return b'\t';
    }
    use std::io::Read as _;
    let mut head = Vec::new();
    if let Ok(opened) = std::fs::File::open(path) {
        let _ = opened.take(64 * 1024).read_to_end(&mut head);
    }
    let line = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let count = |d: u8| line.iter().filter(|b| **b == d).count();
    [b',', b'\t', b';'].into_iter().max_by_key(|d| count(*d)).filter(|d| count(*d) > 0).unwrap_or(b',')
}
