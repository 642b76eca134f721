//! A team's secrets in its database (DESIGN §12), sealed with the team's
//! key: the values `config.json` names with `${secret:NAME}`, shared by
//! every replica and by the app and command line pointed at the database.
//!
//! The key is 32 random bytes in base64, given to each process in
//! [`TEAM_KEY_ENV`] (`openssl rand -base64 32` makes one); it is never
//! stored. Each value is sealed with AES-256-GCM under a fresh random
//! nonce, with the secret's name as associated data, so a sealed value
//! copied to another name does not open. The database, and its backups,
//! hold only the nonce and the sealed bytes.

use super::SecretError;
use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use base64::Engine as _;
use sieve_postgres::Database;
use std::sync::Arc;

/// The environment variable that holds the team's key.
pub const TEAM_KEY_ENV: &str = "MCP_SIEVE_TEAM_KEY";

/// The secrets of a team's database, sealed with its key.
#[derive(Clone)]
pub(crate) struct TeamSecrets {
    db: Database,
    key: Arc<LessSafeKey>,
}

impl TeamSecrets {
    /// The team store of `db` with the key in [`TEAM_KEY_ENV`]; `None`
    /// when that is not set (the machine's store is used then).
    pub(crate) fn from_env(db: &Database) -> Result<Option<TeamSecrets>, SecretError> {
        match std::env::var(TEAM_KEY_ENV) {
            Ok(text) if !text.trim().is_empty() => TeamSecrets::new(db, &text).map(Some),
            _ => Ok(None),
        }
    }

    /// The team store of `db` with `key`, 32 bytes in base64.
    pub(crate) fn new(db: &Database, key: &str) -> Result<TeamSecrets, SecretError> {
        let bad = |why: String| SecretError::TeamKey { why };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(key.trim())
            .map_err(|e| bad(format!("it is not base64: {e}")))?;
        let unbound = UnboundKey::new(&AES_256_GCM, &bytes)
            .map_err(|_| bad(format!("it is {} bytes, not 32", bytes.len())))?;
        Ok(TeamSecrets {
            db: db.clone(),
            key: Arc::new(LessSafeKey::new(unbound)),
        })
    }

    /// Where the secrets are, for a person.
    pub(crate) fn location(&self) -> String {
        format!(
            "the team's database at {}, sealed with {TEAM_KEY_ENV}",
            self.db.url()
        )
    }

    pub(crate) fn get(&self, name: &str) -> Result<Option<String>, SecretError> {
        let sealed = self
            .db
            .read_sealed(name)
            .map_err(|cause| database("read", name, cause))?;
        sealed.map(|sealed| self.open(name, sealed)).transpose()
    }

    pub(crate) fn set(&self, name: &str, value: &str) -> Result<(), SecretError> {
        let sealed = self.seal(name, value)?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.db
            .write_sealed(name, sealed, now)
            .map_err(|cause| database("store", name, cause))
    }

    pub(crate) fn delete(&self, name: &str) -> Result<bool, SecretError> {
        self.db
            .delete_sealed(name)
            .map_err(|cause| database("delete", name, cause))
    }

    /// The nonce, then `value` sealed with its tag.
    fn seal(&self, name: &str, value: &str) -> Result<Vec<u8>, SecretError> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|e| SecretError::TeamKey {
            why: format!("no random nonce could be drawn ({e})"),
        })?;
        let mut sealed = value.as_bytes().to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(name.as_bytes()),
                &mut sealed,
            )
            .map_err(|_| SecretError::Sealed {
                name: name.to_string(),
            })?;
        let mut out = nonce.to_vec();
        out.append(&mut sealed);
        Ok(out)
    }

    fn open(&self, name: &str, mut sealed: Vec<u8>) -> Result<String, SecretError> {
        let unopened = || SecretError::Sealed {
            name: name.to_string(),
        };
        if sealed.len() < NONCE_LEN {
            return Err(unopened());
        }
        let rest = sealed.split_off(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(&sealed).map_err(|_| unopened())?;
        let mut rest = rest;
        let value = self
            .key
            .open_in_place(nonce, Aad::from(name.as_bytes()), &mut rest)
            .map_err(|_| unopened())?;
        String::from_utf8(value.to_vec()).map_err(|_| unopened())
    }
}

fn database(action: &'static str, name: &str, cause: sieve_postgres::DbError) -> SecretError {
    SecretError::Team {
        action,
        name: name.to_string(),
        cause,
    }
}
