-- The pairs of adjacent words move out of FTS5 into blocks of their own (`search::blocks`): one
-- row per written batch, Rice-coded, merged sixteen at a time. In FTS5 they were as many entries
-- as the words themselves, half of the indexer's time (docs/search.md). `search_fts` keeps the
-- words alone; a process of an older version still running writes a `pairs` column, which is
-- gone: it fails, rather than writing rows whose pairs no phrase would find. Everything is
-- indexed again by the indexer, in the background.
DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5(body, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 16);
INSERT INTO search_fts (search_fts, rank) VALUES ('crisismerge', 64);
-- The terms of a transaction are kept in memory up to 16 MiB (FTS5's default: 1 MiB) and written
-- out once: the indexer writes a few batches per transaction.
INSERT INTO search_fts (search_fts, rank) VALUES ('hashsize', 16777216);
-- `lo`, `span`: the segment ids the block covers (lo .. lo + span); its `bytes` (search::rice's
-- format) are in `search_pair_chunks`, rows `id × 65536 + n` of 1,000 bytes each (a row within a
-- page: a part is read without walking a large value's overflow pages from its start). A block
-- never changes and its id is never reused (`AUTOINCREMENT`): a process keeps the directories
-- it read.
CREATE TABLE search_pair_blocks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    level INTEGER NOT NULL,
    lo INTEGER NOT NULL,
    span INTEGER NOT NULL,
    entries INTEGER NOT NULL,
    bytes INTEGER NOT NULL
);
CREATE TABLE search_pair_chunks (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE INDEX search_pair_blocks_level ON search_pair_blocks (level, id);
DELETE FROM search_segments;
DELETE FROM search_indexed;
DELETE FROM search_attempts;
DELETE FROM search_words;
UPDATE search_calls SET audit_seq = 0, generation = generation + 1 WHERE id = 1;
