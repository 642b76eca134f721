-- A team's secrets (the values config.json names with ${secret:NAME}),
-- each sealed by MCP Sieve with the team's key (AES-256-GCM, a random
-- nonce, the name as associated data) before it is written: the database
-- and its backups never hold a value in the clear.
CREATE TABLE sieve_secrets (
    key        text   PRIMARY KEY,
    sealed     bytea  NOT NULL,
    updated_at bigint NOT NULL
);
