-- The artifact catalog. Blobs live on disk under blobs/, addressed by sha256; a row exists only
-- once its blob is durable.
CREATE TABLE artifacts (
    id              TEXT PRIMARY KEY,
    sha256          TEXT NOT NULL,
    name            TEXT NOT NULL,
    mime            TEXT NOT NULL,
    size            INTEGER NOT NULL,
    server          TEXT NOT NULL,
    tool            TEXT NOT NULL,
    call_id         TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    last_used_at_ms INTEGER NOT NULL,
    persistence     TEXT NOT NULL CHECK (persistence IN ('session', 'pinned')),
    description     TEXT,
    render_meta     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX artifacts_by_sha256 ON artifacts (sha256);
CREATE INDEX artifacts_by_session ON artifacts (session_id, created_at_ms);
