-- Who made an entry: the subject of a person signed in through the team's
-- identity provider (NULL for the static token). A person's tasks/list
-- walks their own slice of the ledger, by status then the order key.
-- Which replica runs a call in flight, and each replica's last sign of
-- life, so the calls of a replica that died are marked cut off by the
-- others. The same as the SQLite ledger's version 3
-- (crates/sieve-ledger/src/sqlite.rs).
ALTER TABLE sieve_tasks ADD COLUMN owner text;
ALTER TABLE sieve_tasks ADD COLUMN replica text;
CREATE INDEX sieve_tasks_owner_status_updated ON sieve_tasks (owner, status, last_updated_at, seq);
CREATE INDEX sieve_tasks_owner_status_created ON sieve_tasks (owner, status, created_at, seq);
CREATE INDEX sieve_tasks_replica ON sieve_tasks (replica, status) WHERE replica IS NOT NULL;
CREATE TABLE sieve_replicas (
    id         text   PRIMARY KEY,
    started_at bigint NOT NULL,
    seen_at    bigint NOT NULL
);
