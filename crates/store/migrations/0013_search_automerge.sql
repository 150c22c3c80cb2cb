-- FTS5 merges the index's b-trees once 16 of them are on a level rather than 4: each entry is
-- written again about half as often while the index grows (see docs/search.md), for a few more
-- b-trees for a query to look into. `crisismerge` (a level merged whole, in the write that
-- fills it) goes from 16 to 64 with it: at 16 every merge would be a crisis, run whole inside
-- one batch's transaction (seconds of write lock at tens of thousands of files); above it, the
-- merges are done a little at each write.
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 16);
INSERT INTO search_fts (search_fts, rank) VALUES ('crisismerge', 64);
