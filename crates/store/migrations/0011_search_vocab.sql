-- The index's words, to search a prefix as the words it completes to (newest first, stopping at
-- the hits wanted, where FTS5's own prefix reads every completion's list whole).
CREATE VIRTUAL TABLE IF NOT EXISTS search_vocab USING fts5vocab(search_text, row);
