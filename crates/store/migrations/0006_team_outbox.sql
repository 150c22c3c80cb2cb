-- Artifacts stored here that the team store (bucket + shared catalog) does not have yet, in the
-- order they were stored. A row is added in the transaction that inserts the artifact (when the
-- store queues for a team), so an acknowledged artifact is always either uploaded or queued, and
-- removed only after the team catalog registered it. Queued artifacts are never evicted.
CREATE TABLE team_outbox (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    artifact_id  TEXT NOT NULL UNIQUE,
    sha256       TEXT NOT NULL,
    queued_at_ms INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT
);
