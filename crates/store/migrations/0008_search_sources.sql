-- What a call's tool answered in text (its text blocks for the model, secrets redacted,
-- bounded), so a search finds a file by the words its call returned beside it.
ALTER TABLE audit ADD COLUMN result_text TEXT;
-- Artifacts the proxy put in a result for an AI host's model (not those annotated for the user
-- only): what the model may find with `search_artifacts` (and hand on by reference).
CREATE TABLE model_shared (
    artifact_id  TEXT PRIMARY KEY REFERENCES artifacts (id) ON DELETE CASCADE,
    shared_at_ms INTEGER NOT NULL
);
-- Indexing runs started on an artifact and not finished (a crash in PDFium, a kill, a hang): after
-- two, only its name is indexed, so one bad file cannot stop (or crash) every indexer after it.
CREATE TABLE search_attempts (
    artifact_id TEXT PRIMARY KEY REFERENCES artifacts (id) ON DELETE CASCADE,
    attempts    INTEGER NOT NULL
);
