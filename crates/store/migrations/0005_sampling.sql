-- Every sampling request a server made, answered or not: the columns to list and filter by,
-- and the whole exchange (request, edited request, result, SampleExchange) as JSON.
CREATE TABLE sampling_exchanges (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    server        TEXT NOT NULL,
    at_ms         INTEGER NOT NULL,
    decision      TEXT NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    latency_ms    INTEGER NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    record        TEXT NOT NULL
);
CREATE INDEX sampling_by_server ON sampling_exchanges (server, id);
