-- A writer reserves a blob's sha256 here before it moves the blob into place, and removes the
-- reservation in the transaction that inserts the artifact's row. gc deletes a blob only inside
-- a write transaction that finds neither a row nor a reservation for it, so a blob a writer is
-- about to acknowledge can never be deleted under it, by this process or another.
CREATE TABLE blob_reservations (
    token       TEXT PRIMARY KEY,          -- "<pid>-<counter>", unique per put
    sha256      TEXT NOT NULL,
    pid         INTEGER NOT NULL,          -- the writer; a dead writer's reservations are dropped
    created_ms  INTEGER NOT NULL
);
CREATE INDEX blob_reservations_sha256 ON blob_reservations (sha256);
