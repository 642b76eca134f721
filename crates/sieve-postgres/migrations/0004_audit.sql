-- The audit of a team gateway (DESIGN §12, sieve-ledger's `audit`): one
-- row per tools/call when settings.audit is on, every replica's in one
-- table, with the same columns, checks and indexes as the SQLite ledger's
-- `audit` table, each index named as there after `sieve_`. `who` is the
-- caller as the proxy knows it; `arguments` JSON text, only when
-- settings.audit asks for them.
CREATE TABLE sieve_audit (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          bigint NOT NULL,
    who         text   NOT NULL,
    profile     text   NOT NULL,
    server      text   NOT NULL,
    tool        text   NOT NULL,
    status      text   NOT NULL CHECK (status IN ('ok', 'error', 'refused', 'cancelled')),
    duration_ms bigint NOT NULL CHECK (duration_ms >= 0),
    arguments   text
);
CREATE INDEX sieve_audit_at ON sieve_audit (at, id);
CREATE INDEX sieve_audit_server ON sieve_audit (server, at, id);
CREATE INDEX sieve_audit_status ON sieve_audit (status, at, id);
