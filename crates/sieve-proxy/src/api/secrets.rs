//! Moving `env` and `headers` values out of `config.json` into the secret
//! store (DESIGN §10): the file then holds `${secret:NAME}` where the value
//! was, and the proxy puts the value back only in what it sends or starts.

use super::{ApiError, ErrorCode, Result};
use crate::secrets::Secrets;
use crate::store::Store;
use serde::Serialize;
use sieve_core::Transport;
use sieve_core::secret_ref::{reference, references};

/// What [`keep_secret`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretKept {
    pub server: String,
    /// `env` or `headers`.
    pub section: &'static str,
    pub key: String,
    /// The secret's name, as `${secret:NAME}` in `config.json` now says.
    pub secret: String,
    /// Where it is kept: "the system keychain (Secret Service)" or the file.
    pub location: String,
    /// The value was in `config.json` (moved), rather than given anew.
    pub moved: bool,
}

/// The name a value of `server`'s `section` `key` is kept under.
pub fn secret_name(server: &str, section: &str, key: &str) -> String {
    let clean: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.@".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{server}/{section}/{clean}")
}

/// Keeps the value of `server`'s env variable or header `key` in
/// `secrets` and writes `${secret:NAME}` in its place in `config.json`.
/// With `value`, that value is kept (and the entry added if it was not
/// there); without, the one in `config.json` is moved. Nothing is written
/// when anything fails, and no error quotes a value.
pub fn keep_secret(
    store: &Store,
    secrets: &Secrets,
    server: &str,
    key: &str,
    value: Option<&str>,
) -> Result<SecretKept> {
    let mut config = store.load_config()?;
    let Some(entry) = config.mcp_servers.get_mut(server) else {
        return Err(ApiError {
            field: Some("server".into()),
            ..super::servers::no_server(server)
        });
    };
    let (section, map) = match &mut entry.transport {
        Transport::Stdio { env, .. } => ("env", env),
        Transport::Http { headers, .. } => ("headers", headers),
    };
    // Header names are case-insensitive: an existing entry keeps its case.
    let existing = map
        .keys()
        .find(|k| {
            if section == "headers" {
                k.eq_ignore_ascii_case(key)
            } else {
                *k == key
            }
        })
        .cloned();
    let name = secret_name(server, section, existing.as_deref().unwrap_or(key));
    let (secret, moved) = match (value, &existing) {
        (Some(value), _) => (value.to_string(), false),
        (None, Some(existing)) => {
            let current = &map[existing];
            let refs = references(current).unwrap_or_default();
            if !refs.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::Invalid,
                    format!(
                        "{section} {existing:?} of server {server:?} is kept as a secret already; give a new value to replace it"
                    ),
                ));
            }
            (current.clone(), true)
        }
        (None, None) => {
            return Err(ApiError {
                field: Some("key".into()),
                ..ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "server {server:?} has no {section} {key:?} to move; give its value to add it as a secret"
                    ),
                )
            });
        }
    };
    if secret.is_empty() {
        return Err(ApiError::invalid(
            "value",
            "the secret is empty; give its value",
        ));
    }
    secrets
        .set(&name, &secret)
        .map_err(|error| ApiError::new(ErrorCode::Io, error.0))?;
    let key = existing.unwrap_or_else(|| key.to_string());
    map.insert(key.clone(), reference(&name));
    store.save_config(&config)?;
    if moved {
        // The backup is the old file, value and all: it gets the new one.
        let path = store.home().config_file();
        std::fs::copy(&path, crate::store::backup_path(&path)).map_err(|error| {
            ApiError::new(
                ErrorCode::Io,
                format!(
                    "the secret was moved, but {} still holds it: {error}; delete that file",
                    crate::store::backup_path(&path).display()
                ),
            )
        })?;
    }
    Ok(SecretKept {
        server: server.to_string(),
        section,
        key,
        secret: name,
        location: secrets.location(),
        moved,
    })
}

/// Imports the servers of a host's config (see [`crate::import::import`])
/// and, with `keep_secrets`, keeps every env and header value they bring
/// in the secret store rather than in `config.json` (the names kept are in
/// the report's `keptSecrets`).
pub fn import(
    store: &Store,
    host: crate::import::HostKind,
    path: Option<&std::path::Path>,
    keep_secrets: bool,
) -> Result<crate::import::ImportReport> {
    let mut report = super::servers::import(store, host, path)?;
    if keep_secrets && !report.secrets.is_empty() {
        let secrets = Secrets::open(store.home()).map_err(|e| ApiError::new(ErrorCode::Io, e.0))?;
        for value in report.secrets.clone() {
            let kept = keep_secret(store, &secrets, &value.server, &value.key, None)?;
            report.kept_secrets.push(kept.secret);
        }
    }
    Ok(report)
}

/// Adds a server (see [`super::servers::add`]) and, given `secrets`, keeps
/// its env or header values there: `config.json` never holds them, not
/// even for a moment in a backup.
pub fn add_server(
    store: &Store,
    secrets: Option<&Secrets>,
    mut server: super::servers::NewServer,
) -> Result<Vec<SecretKept>> {
    use super::servers::NewServer;
    let (name, section, values) = match &mut server {
        NewServer::Stdio { name, env, .. } => (name.trim().to_string(), "env", env),
        NewServer::Http { name, headers, .. } => (name.trim().to_string(), "headers", headers),
    };
    let is_plain =
        |value: &String| !value.is_empty() && references(value).is_ok_and(|refs| refs.is_empty());
    let mut kept = Vec::new();
    if let Some(secrets) = secrets.filter(|_| values.values().any(is_plain)) {
        // Stored first, then the server is added with references only; a
        // taken name must not get its secrets overwritten first.
        if store.load_config()?.mcp_servers.contains_key(&name) {
            return Err(super::servers::name_taken(&name));
        }
        for (key, value) in values.iter_mut().filter(|(_, value)| is_plain(value)) {
            let secret = secret_name(&name, section, key);
            secrets
                .set(&secret, value)
                .map_err(|error| ApiError::new(ErrorCode::Io, error.0))?;
            *value = reference(&secret);
            kept.push(SecretKept {
                server: name.clone(),
                section,
                key: key.clone(),
                secret,
                location: secrets.location(),
                moved: true,
            });
        }
    }
    super::servers::add(store, server)?;
    Ok(kept)
}
