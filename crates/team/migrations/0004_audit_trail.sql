-- The team's audit trail: every member's calls and sampling exchanges, written off the call path
-- by each member's drain (the data dir's `team_log_outbox`), and which bucket each artifact is in.
-- The audit tables of 0001 were never written: they are replaced.
DROP TABLE audit;
DROP TABLE sampling_exchanges;

-- One row per call (tool calls, reads, dashboard events: the local audit log's rows). `uid` is
-- made on the member's machine when the row is written there: a drain repeated after a crash or
-- a lost answer writes it once. `record` is the local row as written there (arguments redacted).
CREATE TABLE audit (
    team          TEXT NOT NULL,
    uid           TEXT NOT NULL,
    member        TEXT NOT NULL,
    server        TEXT NOT NULL,
    tool          TEXT NOT NULL,
    outcome       TEXT NOT NULL,
    at_ms         BIGINT NOT NULL,
    artifact_ids  TEXT[] NOT NULL,
    record        JSONB NOT NULL,
    written_at_ms BIGINT NOT NULL,
    PRIMARY KEY (team, uid)
);
CREATE INDEX audit_team_at ON audit (team, at_ms DESC);
CREATE INDEX audit_artifact_ids ON audit USING GIN (artifact_ids);

-- One row per sampling exchange, with its reviewable transcript (`exchange`, as kept locally).
CREATE TABLE sampling_exchanges (
    team          TEXT NOT NULL,
    uid           TEXT NOT NULL,
    member        TEXT NOT NULL,
    server        TEXT NOT NULL,
    decision      TEXT NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    at_ms         BIGINT NOT NULL,
    latency_ms    BIGINT NOT NULL,
    input_tokens  BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    exchange      JSONB NOT NULL,
    written_at_ms BIGINT NOT NULL,
    PRIMARY KEY (team, uid)
);
CREATE INDEX sampling_team_at ON sampling_exchanges (team, at_ms DESC);

-- Artifacts ever made private, kept after the artifact row goes (removed, expired): a call row
-- that names one stays hidden from everyone but that artifact's member and holders of its id.
-- Sharing it again removes it here.
CREATE TABLE private_artifacts (
    team    TEXT NOT NULL,
    id      TEXT NOT NULL,
    member  TEXT NOT NULL,
    PRIMARY KEY (team, id)
);
INSERT INTO private_artifacts (team, id, member) SELECT team, id, member FROM artifacts WHERE private;

-- The bucket (`s3://bucket/prefix`) the artifact's blob was uploaded to when it was registered
-- (NULL: registered before schema 4).
ALTER TABLE artifacts ADD COLUMN bucket TEXT;
