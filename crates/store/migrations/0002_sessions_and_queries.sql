-- Which sessions reference which artifacts. Identical bytes from one server share one artifact
-- row, so lifecycle is decided by these links: clearing a session removes its links, and a
-- session-scoped artifact no session links to any more is removed.
CREATE TABLE session_artifacts (
    session_id  TEXT NOT NULL,
    artifact_id TEXT NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
    call_id     TEXT NOT NULL,
    added_at_ms INTEGER NOT NULL,
    PRIMARY KEY (session_id, artifact_id)
);
CREATE INDEX session_artifacts_by_artifact ON session_artifacts (artifact_id);
INSERT INTO session_artifacts (session_id, artifact_id, call_id, added_at_ms)
    SELECT session_id, id, call_id, created_at_ms FROM artifacts;

-- Indexes for the artifact browser's filters and sorts.
CREATE INDEX artifacts_by_server ON artifacts (server, created_at_ms, id);
CREATE INDEX artifacts_by_tool ON artifacts (tool, created_at_ms, id);
CREATE INDEX artifacts_by_mime ON artifacts (mime, created_at_ms, id);
CREATE INDEX artifacts_by_created ON artifacts (created_at_ms, id);
CREATE INDEX artifacts_by_last_used ON artifacts (last_used_at_ms, id);
CREATE INDEX artifacts_by_size ON artifacts (size, id);
CREATE INDEX artifacts_by_name ON artifacts (name COLLATE NOCASE, id);
