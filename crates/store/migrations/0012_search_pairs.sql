-- The search index with a second column of hashed pairs of adjacent words (see
-- `search::pairs`): a phrase requires its pairs, so the places read again to check it are the
-- ones where its words are adjacent. The old index is dropped and everything is indexed again
-- by the indexer, in the background (the vocabulary table reads whichever `search_text` is).
DROP TABLE search_text;
CREATE VIRTUAL TABLE search_text USING fts5(body, pairs, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2');
DELETE FROM search_segments;
DELETE FROM search_indexed;
DELETE FROM search_attempts;
UPDATE search_calls SET audit_seq = 0 WHERE id = 1;
-- The index's words, for prefixes (see `search::vocabulary`), in place of FTS5's vocabulary
-- table (which counts every completion's places as it lists it); the generation moves on when
-- the index is emptied, so an indexer forgets which words it wrote.
DROP TABLE IF EXISTS search_vocab;
CREATE TABLE search_words (word TEXT PRIMARY KEY) WITHOUT ROWID;
ALTER TABLE search_calls ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
