-- Full-text search over the team's artifacts: each artifact's text in segments (the PDF page,
-- the table row, the text line, its name and summary), written by a member who holds its file,
-- with a GIN index over their `simple` tsvectors. The text is kept (bounded per artifact) so a
-- teammate without the file gets a snippet. Removed with its artifact.
CREATE TABLE artifact_text (
    team      TEXT NOT NULL,
    id        TEXT NOT NULL,
    place     TEXT NOT NULL,
    position  BIGINT NOT NULL,
    body      TEXT NOT NULL,
    tsv       TSVECTOR NOT NULL,
    FOREIGN KEY (team, id) REFERENCES artifacts (team, id) ON DELETE CASCADE
);
CREATE INDEX artifact_text_tsv ON artifact_text USING GIN (tsv);
CREATE INDEX artifact_text_artifact ON artifact_text (team, id);
-- When its text was written (NULL: not yet; a member holding the file writes it).
ALTER TABLE artifacts ADD COLUMN text_indexed_at_ms BIGINT;
ALTER TABLE artifacts ADD COLUMN text_note TEXT;
CREATE INDEX artifacts_text_pending ON artifacts (team) WHERE text_indexed_at_ms IS NULL;
