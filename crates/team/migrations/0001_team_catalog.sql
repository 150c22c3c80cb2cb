-- The team catalog (PostgreSQL). Blobs live in the bucket under their sha256; this says which
-- artifacts reference them, who produced each, and what may be removed.

-- One row per blob in the bucket. Before a writer uploads or reuses a blob it reserves it: in one
-- transaction it upserts the blob's row (taking the row's lock) and adds a reservation; the
-- transaction that registers its artifact drops the reservation. Retention deletes a blob only
-- while holding that row's lock (SELECT ... FOR UPDATE) and finding no artifact and no live
-- reservation, so a blob a writer is about to register can never be deleted under it. A
-- reservation whose writer died expires after a day.
CREATE TABLE blobs (
    sha256            TEXT PRIMARY KEY,
    size              BIGINT NOT NULL,
    uploaded_at_ms    BIGINT
);
CREATE TABLE blob_reservations (
    token       TEXT PRIMARY KEY,
    sha256      TEXT NOT NULL,
    until_ms    BIGINT NOT NULL
);
CREATE INDEX blob_reservations_sha256 ON blob_reservations (sha256);

CREATE TABLE artifacts (
    team             TEXT NOT NULL,
    id               TEXT NOT NULL,
    sha256           TEXT NOT NULL,
    name             TEXT NOT NULL,
    mime             TEXT NOT NULL,
    size             BIGINT NOT NULL,
    server           TEXT NOT NULL,
    tool             TEXT NOT NULL,
    call_id          TEXT NOT NULL,
    session_id       TEXT NOT NULL,
    member           TEXT NOT NULL,           -- the configured identity of whoever stored it
    description      TEXT,
    created_at_ms    BIGINT NOT NULL,
    registered_at_ms BIGINT NOT NULL,
    last_used_at_ms  BIGINT NOT NULL,
    pinned           BOOLEAN NOT NULL DEFAULT FALSE,
    private          BOOLEAN NOT NULL DEFAULT FALSE,  -- only its member sees it
    PRIMARY KEY (team, id)
);
CREATE INDEX artifacts_sha256 ON artifacts (sha256);
-- The order artifacts were registered in (registration order is upload order).
ALTER TABLE artifacts ADD COLUMN registered_seq BIGSERIAL;
-- Every member who stored an artifact (the same bytes from the same server give the same id on
-- every machine): each keeps seeing it, whatever its first member makes private.
CREATE TABLE artifact_holders (
    team    TEXT NOT NULL,
    id      TEXT NOT NULL,
    member  TEXT NOT NULL,
    PRIMARY KEY (team, id, member),
    FOREIGN KEY (team, id) REFERENCES artifacts (team, id) ON DELETE CASCADE
);
CREATE INDEX artifacts_team_created ON artifacts (team, created_at_ms DESC);
CREATE INDEX artifacts_team_member ON artifacts (team, member);

-- Audit rows and sampling transcripts, per team and member.
CREATE TABLE audit (
    id        BIGSERIAL PRIMARY KEY,
    team      TEXT NOT NULL,
    member    TEXT NOT NULL,
    at_ms     BIGINT NOT NULL,
    record    JSONB NOT NULL
);
CREATE INDEX audit_team_at ON audit (team, at_ms DESC);
CREATE TABLE sampling_exchanges (
    id        BIGSERIAL PRIMARY KEY,
    team      TEXT NOT NULL,
    member    TEXT NOT NULL,
    at_ms     BIGINT NOT NULL,
    exchange  JSONB NOT NULL
);
