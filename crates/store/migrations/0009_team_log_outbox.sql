-- Audit rows and sampling exchanges stored here that the team catalog does not have yet, in the
-- order they were written (the team store's audit trail). An entry is added in the transaction
-- that writes its row (when the store queues for a team), and removed only after the team
-- catalog has the row. `uid` is the row's key in the team catalog, made here once: a drain
-- repeated after a crash or a lost answer writes the row once.
CREATE TABLE team_log_outbox (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL CHECK (kind IN ('call', 'sampling')),
    row_id       INTEGER NOT NULL,
    uid          TEXT NOT NULL UNIQUE DEFAULT (lower(hex(randomblob(16)))),
    queued_at_ms INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    UNIQUE (kind, row_id)
);
