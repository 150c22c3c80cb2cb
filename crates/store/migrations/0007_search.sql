-- Full-text search over what tools returned. `search_text` is a contentless FTS5 index (the text
-- is not stored twice: snippets are cut from the artifact itself, at the segment's place); each of
-- its rows is one segment described in `search_segments` (a PDF page, a table row, a text line or
-- a chunk of one, the artifact's name and summary, or the call that produced it).
CREATE VIRTUAL TABLE search_text USING fts5(body, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE search_segments (
    id          INTEGER PRIMARY KEY,
    artifact_id TEXT NOT NULL,
    place       TEXT NOT NULL CHECK (place IN ('name', 'call', 'page', 'row', 'line')),
    position    INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    byte_length INTEGER NOT NULL
);
CREATE INDEX search_segments_by_artifact ON search_segments (artifact_id);
-- Artifacts whose text is indexed (an artifact without a row here is pending; one that was being
-- indexed when its process died has segments but no row, and is indexed again from the start).
CREATE TABLE search_indexed (
    artifact_id   TEXT PRIMARY KEY,
    indexed_at_ms INTEGER NOT NULL,
    segments      INTEGER NOT NULL,
    note          TEXT
);
-- How far the audit log's calls are indexed (their arguments, for the artifacts they produced).
CREATE TABLE search_calls (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    audit_seq INTEGER NOT NULL
);
INSERT INTO search_calls (id, audit_seq) VALUES (1, 0);
-- An artifact removed (deleted, evicted, its session cleared) leaves the index in its transaction.
CREATE TRIGGER search_forget AFTER DELETE ON artifacts BEGIN
    DELETE FROM search_text WHERE rowid IN (SELECT id FROM search_segments WHERE artifact_id = old.id);
    DELETE FROM search_segments WHERE artifact_id = old.id;
    DELETE FROM search_indexed WHERE artifact_id = old.id;
END;
