//! A team's sealed secrets (`sieve_secrets`): bytes in, bytes out. The
//! sealing is the caller's (sieve-store's `team_secrets`); this module
//! never sees a value in the clear.

use super::{Database, DbError};

impl Database {
    /// The sealed bytes of secret `key`, if there is one.
    pub fn read_sealed(&self, key: &str) -> Result<Option<Vec<u8>>, DbError> {
        let error = self.error("reading a secret");
        let key = key.to_string();
        self.run(move |client| async move {
            let row = client
                .query_opt("SELECT sealed FROM sieve_secrets WHERE key = $1", &[&key])
                .await
                .map_err(&error)?;
            Ok(row.map(|row| row.get(0)))
        })
    }

    /// Stores `sealed` as secret `key` at `now_ms`, replacing any earlier.
    pub fn write_sealed(&self, key: &str, sealed: Vec<u8>, now_ms: i64) -> Result<(), DbError> {
        let error = self.error("storing a secret");
        let key = key.to_string();
        self.run(move |client| async move {
            client
                .execute(
                    "INSERT INTO sieve_secrets (key, sealed, updated_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (key) DO UPDATE SET sealed = excluded.sealed, \
                     updated_at = excluded.updated_at",
                    &[&key, &sealed, &now_ms],
                )
                .await
                .map_err(&error)?;
            Ok(())
        })
    }

    /// Removes secret `key`; whether there was one.
    pub fn delete_sealed(&self, key: &str) -> Result<bool, DbError> {
        let error = self.error("deleting a secret");
        let key = key.to_string();
        self.run(move |client| async move {
            let deleted = client
                .execute("DELETE FROM sieve_secrets WHERE key = $1", &[&key])
                .await
                .map_err(&error)?;
            Ok(deleted > 0)
        })
    }
}
