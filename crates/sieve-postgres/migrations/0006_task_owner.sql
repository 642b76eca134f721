-- Who made an entry: the subject of a person signed in through the team's
-- identity provider (NULL for the static token). A person's tasks/list
-- walks their own slice of the ledger, by status then the order key, as
-- the SQLite ledger's version 3 does (crates/sieve-ledger/src/sqlite.rs).
ALTER TABLE sieve_tasks ADD COLUMN owner text;
CREATE INDEX sieve_tasks_owner_status_updated ON sieve_tasks (owner, status, last_updated_at, seq);
CREATE INDEX sieve_tasks_owner_status_created ON sieve_tasks (owner, status, created_at, seq);
