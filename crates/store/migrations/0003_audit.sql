-- Every tool call, for the user to review: who called what with which (redacted) arguments,
-- how it ended, and which artifacts it produced.
CREATE TABLE audit (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id      TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    server       TEXT NOT NULL,
    tool         TEXT NOT NULL,
    arguments    TEXT NOT NULL,
    identity     TEXT,
    started_ms   INTEGER NOT NULL,
    duration_ms  INTEGER NOT NULL,
    outcome      TEXT NOT NULL,
    detail       TEXT,
    artifact_ids TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX audit_by_started ON audit (started_ms);
