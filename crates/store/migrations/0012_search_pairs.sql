-- The search index under a new name (`search_fts`), with a second column of hashed pairs of
-- adjacent words (see `search::pairs`): a phrase requires its pairs, so the places read again
-- to check it are the ones where its words are adjacent. A process of an older version still
-- running writes to `search_text`, which is gone: it fails, rather than writing rows without
-- pairs. Everything is indexed again by the indexer, in the background.
DROP TABLE search_text;
CREATE VIRTUAL TABLE search_fts USING fts5(body, pairs, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2');
DROP TRIGGER search_forget;
CREATE TRIGGER search_forget AFTER DELETE ON artifacts BEGIN
    DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_segments WHERE artifact_id = old.id);
    DELETE FROM search_segments WHERE artifact_id = old.id;
    DELETE FROM search_indexed WHERE artifact_id = old.id;
END;
DELETE FROM search_segments;
DELETE FROM search_indexed;
DELETE FROM search_attempts;
UPDATE search_calls SET audit_seq = 0 WHERE id = 1;
-- The index's words, for prefixes (see `search::vocabulary`), in place of FTS5's vocabulary
-- table (which counts every completion's places as it lists it): `key` as Rust folds a word
-- (looked up by what is typed), `word` as it is sent to FTS5 (lowercased, which FTS5 folds its
-- own way; empty when it is the key). The generation moves on when the index is emptied, so an
-- indexer forgets which words it wrote.
DROP TABLE IF EXISTS search_vocab;
CREATE TABLE search_words (key TEXT NOT NULL, word TEXT NOT NULL, PRIMARY KEY (key, word)) WITHOUT ROWID;
ALTER TABLE search_calls ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
