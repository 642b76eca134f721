//! Where secrets live (DESIGN §10): the `env` and `headers` values a person
//! moved out of `config.json`, and sign-in tokens.
//!
//! The system keychain (the Secret Service on Linux, through
//! `keyring-core` and its zbus store) when one answers, else
//! `secrets.json` in the data folder, mode 0600, written atomically under a
//! lock like every file of ours. `MCP_SIEVE_SECRETS=file` chooses the file
//! and `MCP_SIEVE_SECRETS=keychain` insists on the keychain (an error when
//! there is none), for people who want one or the other and for tests.
//!
//! Entries are named by a key of the caller's (`github/env/GITHUB_TOKEN`);
//! in the keychain they are items of service `mcp-sieve` (plus the home
//! folder when `--home` chose one, so two homes never share a secret).
//! No value is ever logged, and errors name keys, never values.
//!
//! A store on a team's database keeps the `${secret:..}` values there
//! instead, sealed with the team's key (`team`, [`Secrets::open_for`]),
//! when each process is given that key in `MCP_SIEVE_TEAM_KEY`.

use crate::atomic::atomic_write;
use crate::error::StoreError;
use crate::home::Home;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

mod team;
pub use team::TEAM_KEY_ENV;

/// Chooses the secret store.
pub const SECRETS_ENV: &str = "MCP_SIEVE_SECRETS";

/// What went wrong with a secret; the message is a sentence a person can
/// act on and names no value. (Clone, so that a store that could not be
/// opened says why to every caller: io and store errors are shared.)
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// `MCP_SIEVE_SECRETS` names no store.
    #[error("{SECRETS_ENV}={value:?} is not a choice; use \"keychain\", \"file\" or \"auto\"")]
    BadChoice { value: String },
    /// `MCP_SIEVE_SECRETS=keychain`, and the keychain cannot be used.
    #[error("{SECRETS_ENV}=keychain, but the system keychain cannot be used: {why}")]
    NoKeychain { why: KeychainProblem },
    /// The keychain refused or failed to `action` (read, store, delete)
    /// secret `key`.
    #[error("cannot {action} secret {key:?} in the system keychain: {why}")]
    Keychain {
        action: &'static str,
        key: String,
        why: KeychainProblem,
    },
    /// `secrets.json` is not JSON of names to values; it is left as it is.
    #[error(
        "{} does not parse (line {line}, column {column}), so it was left as it is; fix or delete it",
        .path.display()
    )]
    Unparseable {
        path: PathBuf,
        line: usize,
        column: usize,
    },
    /// `secrets.json` could not be read. (`cause` ends the sentence; it
    /// is not the error's source, which would say it twice.)
    #[error("cannot read {}: {cause}", .path.display())]
    Read {
        path: PathBuf,
        cause: Arc<std::io::Error>,
    },
    /// There is no secret `name` ([`Secrets::require`]).
    #[error("secret {name:?} is not stored")]
    Missing { name: String },
    /// `secrets.json` could not be locked or written: nothing was stored.
    #[error("{cause}; the secret was not stored")]
    Write { cause: Arc<StoreError> },
    /// `MCP_SIEVE_TEAM_KEY` is not a key.
    #[error(
        "{} cannot be used: {why}; give 32 random bytes in base64 (`openssl rand -base64 32`), the same on every replica",
        team::TEAM_KEY_ENV
    )]
    TeamKey { why: String },
    /// A secret in the team's database does not open with this key.
    #[error(
        "secret {name:?} in the team's database does not open with this {}; every replica needs the key it was stored with",
        team::TEAM_KEY_ENV
    )]
    Sealed { name: String },
    /// The team's database failed to `action` secret `name`.
    #[error("cannot {action} secret {name:?} in the team's database: {cause}")]
    Team {
        action: &'static str,
        name: String,
        cause: sieve_postgres::DbError,
    },
}

/// What the system keychain said, in words rather than its type names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeychainProblem {
    /// It is locked, or the person refused access.
    #[error("it is locked or refused access; unlock it and try again")]
    Locked,
    /// It did not answer: the platform's own words.
    #[error("it did not answer ({0})")]
    NoAnswer(String),
    /// There is no such secret.
    #[error("there is no such entry")]
    NoEntry,
    /// Anything else it said.
    #[error("{0}")]
    Other(String),
}

/// The secret store of one home.
#[derive(Clone)]
pub struct Secrets {
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    Keychain {
        store: Arc<zbus_secret_service_keyring_store::Store>,
        service: String,
        /// Rewritten after every change, so that running proxies, which
        /// watch the data folder, hear of a sign-in stored in the keychain
        /// by another process at once. It holds only the time.
        stamp: PathBuf,
    },
    File {
        path: PathBuf,
    },
    /// A team's database, sealed with its key.
    Team(Box<team::TeamSecrets>),
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.location())
    }
}

impl Secrets {
    /// The store of `home`: the keychain if one answers (or is required by
    /// `MCP_SIEVE_SECRETS`), else the file. Talks to D-Bus, so call it
    /// outside async code (or in `spawn_blocking`).
    pub fn open(home: &Home) -> Result<Secrets, SecretError> {
        Secrets::open_for(home, None)
    }

    /// The store of `${secret:..}` values for a store on `team`'s
    /// database: the team's own, sealed, when `MCP_SIEVE_TEAM_KEY` gives
    /// its key; else this machine's, as [`Secrets::open`].
    pub fn open_for(
        home: &Home,
        team: Option<&sieve_postgres::Database>,
    ) -> Result<Secrets, SecretError> {
        if let Some(db) = team {
            match team::TeamSecrets::from_env(db)? {
                Some(team) => {
                    return Ok(Secrets {
                        backend: Backend::Team(Box::new(team)),
                    });
                }
                None => tracing::info!(
                    "secrets are kept on this machine; set {} on every replica to keep them in the team's database, sealed",
                    team::TEAM_KEY_ENV
                ),
            }
        }
        let file = Secrets::file(home);
        let choice = std::env::var(SECRETS_ENV).unwrap_or_default();
        match choice.as_str() {
            "file" => return Ok(file),
            "" | "auto" | "keychain" => {}
            other => {
                return Err(SecretError::BadChoice {
                    value: other.to_string(),
                });
            }
        }
        let service = match home.explicit() {
            Some(dir) => format!("mcp-sieve {}", dir.display()),
            None => "mcp-sieve".to_string(),
        };
        match keychain(&service) {
            Ok(store) => Ok(Secrets {
                backend: Backend::Keychain {
                    store,
                    service,
                    stamp: home.data_dir().join(KEYCHAIN_STAMP),
                },
            }),
            Err(why) if choice == "keychain" => Err(SecretError::NoKeychain { why }),
            Err(why) => {
                tracing::info!(
                    "no system keychain ({why}); secrets are kept in {}",
                    file.location()
                );
                Ok(file)
            }
        }
    }

    /// The team store of `db`, sealed with `key` (32 bytes in base64).
    pub fn team(db: &sieve_postgres::Database, key: &str) -> Result<Secrets, SecretError> {
        Ok(Secrets {
            backend: Backend::Team(Box::new(team::TeamSecrets::new(db, key)?)),
        })
    }

    /// The file store of `home` (`secrets.json` in its data folder), whether
    /// or not there is a keychain.
    pub fn file(home: &Home) -> Secrets {
        Secrets {
            backend: Backend::File {
                path: home.data_dir().join("secrets.json"),
            },
        }
    }

    /// Where the secrets are, for a person: "the system keychain" or the
    /// file's path.
    pub fn location(&self) -> String {
        match &self.backend {
            Backend::Keychain { .. } => "the system keychain (Secret Service)".to_string(),
            Backend::File { path, .. } => format!("{} (readable by you only)", path.display()),
            Backend::Team(team) => team.location(),
        }
    }

    /// Whether secrets go to the system keychain.
    pub fn in_keychain(&self) -> bool {
        matches!(self.backend, Backend::Keychain { .. })
    }

    /// The secret `key`, if there is one.
    pub fn get(&self, key: &str) -> Result<Option<String>, SecretError> {
        match &self.backend {
            Backend::Keychain { store, service, .. } => {
                match entry(store, service, key)?.get_password() {
                    Ok(value) => Ok(Some(value)),
                    Err(keyring_core::Error::NoEntry) => Ok(None),
                    Err(error) => Err(keychain_error("read", key, &error)),
                }
            }
            Backend::File { path, .. } => Ok(read_file(path)?.remove(key)),
            Backend::Team(team) => team.get(key),
        }
    }

    /// The secret `key`; an error when there is none.
    pub fn require(&self, key: &str) -> Result<String, SecretError> {
        self.get(key)?.ok_or_else(|| SecretError::Missing {
            name: key.to_string(),
        })
    }

    /// Stores `value` as secret `key`, replacing any earlier one.
    pub fn set(&self, key: &str, value: &str) -> Result<(), SecretError> {
        match &self.backend {
            Backend::Keychain {
                store,
                service,
                stamp,
            } => {
                entry(store, service, key)?
                    .set_password(value)
                    .map_err(|error| keychain_error("store", key, &error))?;
                touch(stamp);
                Ok(())
            }
            Backend::File { path } => update_file(path, |secrets| {
                secrets.insert(key.to_string(), value.to_string());
            }),
            Backend::Team(team) => team.set(key, value),
        }
    }

    /// Removes secret `key`; whether there was one.
    pub fn delete(&self, key: &str) -> Result<bool, SecretError> {
        match &self.backend {
            Backend::Keychain {
                store,
                service,
                stamp,
            } => match entry(store, service, key)?.delete_credential() {
                Ok(()) => {
                    touch(stamp);
                    Ok(true)
                }
                Err(keyring_core::Error::NoEntry) => Ok(false),
                Err(error) => Err(keychain_error("delete", key, &error)),
            },
            Backend::File { path } => {
                let mut had = false;
                update_file(path, |secrets| had = secrets.remove(key).is_some())?;
                Ok(had)
            }
            Backend::Team(team) => team.delete(key),
        }
    }
}

/// The file in the data folder that says the keychain's secrets changed.
pub const KEYCHAIN_STAMP: &str = "secrets.changed";

/// Rewrites the keychain's stamp; a proxy that misses it still looks at
/// the keychain every 30 s, so a failure is only logged.
fn touch(stamp: &std::path::Path) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let written = stamp
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(stamp, format!("{now}\n")));
    if let Err(error) = written {
        tracing::debug!("cannot write {}: {error}", stamp.display());
    }
}

/// The keychain, if it answers: a read of an entry that does not exist
/// must come back as "no entry". One connection per process, opened the
/// first time and never closed: closing it blocks on zbus's own runtime,
/// which panics on a thread of ours that drives async tasks.
fn keychain(
    service: &str,
) -> Result<Arc<zbus_secret_service_keyring_store::Store>, KeychainProblem> {
    static STORE: std::sync::OnceLock<
        Result<Arc<zbus_secret_service_keyring_store::Store>, KeychainProblem>,
    > = std::sync::OnceLock::new();
    let store = STORE
        .get_or_init(|| zbus_secret_service_keyring_store::Store::new().map_err(|e| plain(&e)))
        .clone()?;
    // The probe's name is ours and valid; should the keychain refuse it,
    // the sentence says what was asked of it.
    let probe = entry(&store, service, "probe")
        .map_err(|error| KeychainProblem::Other(error.to_string()))?;
    match probe.get_password() {
        Ok(_) | Err(keyring_core::Error::NoEntry) => Ok(store),
        Err(error) => Err(plain(&error)),
    }
}

fn entry(
    store: &Arc<zbus_secret_service_keyring_store::Store>,
    service: &str,
    key: &str,
) -> Result<keyring_core::Entry, SecretError> {
    use keyring_core::api::CredentialStoreApi;
    store
        .build(service, key, None)
        .map_err(|error| keychain_error("name", key, &error))
}

fn keychain_error(action: &'static str, key: &str, error: &keyring_core::Error) -> SecretError {
    SecretError::Keychain {
        action,
        key: key.to_string(),
        why: plain(error),
    }
}

/// The keychain's error in words, without its type names.
fn plain(error: &keyring_core::Error) -> KeychainProblem {
    use keyring_core::Error;
    match error {
        Error::NoStorageAccess(_) => KeychainProblem::Locked,
        Error::PlatformFailure(inner) => KeychainProblem::NoAnswer(inner.to_string()),
        Error::NoEntry => KeychainProblem::NoEntry,
        other => KeychainProblem::Other(other.to_string()),
    }
}

fn read_file(path: &PathBuf) -> Result<BTreeMap<String, String>, SecretError> {
    match fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|error| SecretError::Unparseable {
            path: path.clone(),
            line: error.line(),
            column: error.column(),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(error) => Err(SecretError::Read {
            path: path.clone(),
            cause: Arc::new(error),
        }),
    }
}

/// Changes `secrets.json` under its lock (the same `<file>.lock` as every
/// user file, see [`crate::store::update_locked`]; this file keeps no
/// backup, so it has its own read and write).
fn update_file(
    path: &PathBuf,
    change: impl FnOnce(&mut BTreeMap<String, String>),
) -> Result<(), SecretError> {
    let not_stored = |error| SecretError::Write {
        cause: Arc::new(error),
    };
    let lock = crate::atomic::lock_file(&crate::atomic::lock_path(path)).map_err(not_stored)?;
    let mut secrets = read_file(path)?;
    change(&mut secrets);
    let mut text = serde_json::to_string_pretty(&secrets).expect("strings serialise");
    text.push('\n');
    // The temporary file is created 0600. No backup is kept: it would hold
    // secrets deleted or replaced.
    atomic_write(path, text.as_bytes()).map_err(not_stored)?;
    let _ = fs::remove_file(crate::atomic::backup_path(path));
    drop(lock);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_store(dir: &std::path::Path) -> Secrets {
        Secrets {
            backend: Backend::File {
                path: dir.join("secrets.json"),
            },
        }
    }

    #[test]
    fn the_file_store_keeps_secrets_private_and_never_overwrites_a_broken_file() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = file_store(dir.path());
        assert_eq!(secrets.get("a/env/TOKEN").unwrap(), None);
        secrets.set("a/env/TOKEN", "s3cret").unwrap();
        secrets.set("b/headers/Authorization", "Bearer x").unwrap();
        assert_eq!(
            secrets.get("a/env/TOKEN").unwrap().as_deref(),
            Some("s3cret")
        );
        assert!(secrets.delete("a/env/TOKEN").unwrap());
        assert!(!secrets.delete("a/env/TOKEN").unwrap());
        assert_eq!(secrets.get("a/env/TOKEN").unwrap(), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.path().join("secrets.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        fs::write(dir.path().join("secrets.json"), "{\"b\": ").unwrap();
        let error = secrets.set("c", "v").unwrap_err();
        assert!(
            matches!(&error, SecretError::Unparseable { line: 1, .. }),
            "{error:?}"
        );
        let path = dir.path().join("secrets.json");
        assert_eq!(
            error.to_string(),
            format!(
                "{} does not parse (line 1, column 6), so it was left as it is; fix or delete it",
                path.display()
            )
        );
        assert!(!error.to_string().contains("Bearer"), "{error}");
        assert_eq!(
            fs::read_to_string(dir.path().join("secrets.json")).unwrap(),
            "{\"b\": "
        );
    }
}
