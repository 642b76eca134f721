-- What calls through a team gateway measured, for the built-in concern
-- `cost` (sieve-ledger's `measurements`): the last few calls of each
-- tool, by server and the tool's upstream name, with the tokens of the
-- result and the duration; no arguments, nothing of the result but its
-- size. The same columns, checks and index as the SQLite ledger's
-- version 4 (crates/sieve-ledger/src/sqlite.rs), the index named as there
-- after `sieve_`. No notice to the replicas: each reads the measurements
-- of the tools it calls after writing its own.
CREATE TABLE sieve_measurements (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server        text   NOT NULL,
    tool          text   NOT NULL,
    at            bigint NOT NULL,
    result_tokens bigint NOT NULL CHECK (result_tokens >= 0),
    duration_ms   bigint NOT NULL CHECK (duration_ms >= 0)
);
CREATE INDEX sieve_measurements_tool ON sieve_measurements (server, tool, id);
