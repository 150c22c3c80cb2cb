-- FTS5 merges the index's b-trees once 16 of them are on a level rather than 4: each entry is
-- written again about half as often while the index grows (a quarter less time indexing, see
-- docs/search.md), for a few more b-trees for a query to look into.
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 16);
