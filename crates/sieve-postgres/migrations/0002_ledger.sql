-- The task ledger of a team gateway (sieve-ledger), shared by every
-- replica: the same columns, checks and listing indexes as the SQLite
-- ledger (crates/sieve-ledger/src/sqlite.rs), each index named as there
-- after `sieve_`.
-- `seq` is an identity, never reused after a purge, so a cursor stays a
-- position in one history. `params` and `result` are JSON kept as the
-- text MCP Sieve wrote (key order included), read back by the same
-- parser as the file's. No foreign key on `retry_of`: a retry must
-- outlive the purge of the entry it retried.
CREATE TABLE sieve_tasks (
    seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id               text   NOT NULL,
    kind             text   NOT NULL CHECK (kind IN ('task', 'call')),
    server           text   NOT NULL,
    upstream_id      text,
    method           text   NOT NULL,
    tool             text,
    params           text   NOT NULL,
    status           text   NOT NULL,
    status_message   text,
    created_at       bigint NOT NULL,
    last_updated_at  bigint NOT NULL CHECK (last_updated_at >= created_at),
    ttl_ms           bigint,
    poll_interval_ms bigint,
    profile          text,
    retry_of         text,
    result           text
);

-- Lookups by id and by a server's own task id; these two decide between
-- replicas inserting the same entry.
CREATE UNIQUE INDEX sieve_tasks_id ON sieve_tasks (id);
CREATE UNIQUE INDEX sieve_tasks_upstream ON sieve_tasks (server, upstream_id)
    WHERE upstream_id IS NOT NULL;

-- tasks/list: one index per shape of its equality filters (servers,
-- methods, status), each ordered by (key, seq) for keyset pagination by
-- last_updated_at or created_at; time bounds are ranges of the key.
CREATE INDEX sieve_tasks_updated ON sieve_tasks (last_updated_at, seq);
CREATE INDEX sieve_tasks_created ON sieve_tasks (created_at, seq);
CREATE INDEX sieve_tasks_status_updated ON sieve_tasks (status, last_updated_at, seq);
CREATE INDEX sieve_tasks_status_created ON sieve_tasks (status, created_at, seq);
CREATE INDEX sieve_tasks_server_status_updated ON sieve_tasks (server, status, last_updated_at, seq);
CREATE INDEX sieve_tasks_server_status_created ON sieve_tasks (server, status, created_at, seq);
CREATE INDEX sieve_tasks_method_status_updated ON sieve_tasks (method, status, last_updated_at, seq);
CREATE INDEX sieve_tasks_method_status_created ON sieve_tasks (method, status, created_at, seq);
CREATE INDEX sieve_tasks_server_method_status_updated ON sieve_tasks (server, method, status, last_updated_at, seq);
CREATE INDEX sieve_tasks_server_method_status_created ON sieve_tasks (server, method, status, created_at, seq);
