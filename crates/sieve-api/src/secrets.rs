//! Moving `env` and `headers` values out of `config.json` into the secret
//! store (DESIGN §10): the file then holds `${secret:NAME}` where the value
//! was, and the proxy puts the value back only in what it sends or starts.

use super::{ApiError, ErrorCode, Result};
use serde::Serialize;
use sieve_core::Transport;
use sieve_core::secret_ref::{reference, references};
use sieve_store::secrets::Secrets;
use sieve_store::store::Store;

/// The secret store of `store`: the system keychain where one answers,
/// else the 0600 file; for a team's database, the team's own, sealed,
/// when `MCP_SIEVE_TEAM_KEY` gives its key (see [`Secrets::open_for`]).
/// Talks to D-Bus, so call it outside async code.
pub fn open(store: &Store) -> Result<Secrets> {
    Secrets::open_for(store.home(), store.backend().database())
        .map_err(|error| ApiError::new(ErrorCode::Io, error.to_string()))
}

/// What [`add_server`] did: the key the server was added under (a short
/// one made from the name given, when that was no key) and the values it
/// kept out of `config.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedServer {
    pub server: String,
    pub kept: Vec<SecretKept>,
}

/// What [`keep_secret`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretKept {
    pub server: String,
    /// `env`, `headers` or `oauth`.
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

/// Keeps the value of `server`'s env variable or header `key` (or, as
/// `oauth.clientSecret` and `oauth.privateKey`, its OAuth client's secret
/// or key) in `secrets` and writes `${secret:NAME}` in its place in
/// `config.json`.
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
    // The secret is stored and the reference written under config.json's
    // lock, so a change another process makes meanwhile is not lost.
    let kept = store.update_config(|config| {
        if !config.mcp_servers.contains_key(server) {
            return Err(ApiError {
                field: Some("server".into()),
                ..super::servers::no_server(server)
            });
        }
        if let Some(field) = key.strip_prefix("oauth.") {
            return keep_oauth_secret(secrets, config, server, field, value);
        }
        let entry = config
            .mcp_servers
            .get_mut(server)
            .expect("the server was found above");
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
        let current = existing.as_ref().map(|k| map[k].as_str());
        let shown = existing.as_deref().unwrap_or(key);
        let (secret, moved) = secret_to_keep(server, section, shown, value, current)?;
        secrets.set(&name, &secret)?;
        let key = existing.unwrap_or_else(|| key.to_string());
        map.insert(key.clone(), reference(&name));
        Ok(kept(secrets, server, section, key, name, moved))
    })?;
    if kept.moved {
        // The backup is the old file, value and all: it gets the new one.
        store.refresh_config_backup().map_err(|error| {
            ApiError::new(
                ErrorCode::Io,
                format!(
                    "the secret was moved, but {} still holds it ({error}); delete it",
                    store.previous_location(&sieve_store::state::Doc::Config)
                ),
            )
        })?;
    }
    Ok(kept)
}

/// [`keep_secret`] for the `"oauth"` of an HTTP server: `field` is
/// `clientSecret` or `privateKey`.
fn keep_oauth_secret(
    secrets: &Secrets,
    config: &mut sieve_core::Config,
    server: &str,
    field: &str,
    value: Option<&str>,
) -> Result<SecretKept> {
    let entry = config
        .mcp_servers
        .get_mut(server)
        .expect("the server was found by the caller");
    let Transport::Http { oauth, .. } = &mut entry.transport else {
        return Err(ApiError::invalid(
            "key",
            format!("server {server:?} is started as a program; only HTTP servers have \"oauth\""),
        ));
    };
    let mut updated = oauth.clone().unwrap_or_default();
    let Some((_, slot)) = updated
        .secret_fields_mut()
        .into_iter()
        .find(|(name, _)| *name == field)
    else {
        return Err(ApiError::invalid(
            "key",
            format!(
                "\"oauth\" has no secret {field:?}; give oauth.clientSecret or oauth.privateKey"
            ),
        ));
    };
    let name = secret_name(server, "oauth", field);
    let (secret, moved) = secret_to_keep(server, "oauth", field, value, slot.as_deref())?;
    *slot = Some(reference(&name));
    // config.json must still read afterwards: a key alone, say, is no
    // sign-in (it needs the client credentials grant and the client's id).
    updated.check().map_err(|why| {
        ApiError::invalid(
            "key",
            format!("server {server:?} cannot take its oauth {field:?} as it is: {why}"),
        )
    })?;
    secrets.set(&name, &secret)?;
    *oauth = Some(updated);
    Ok(kept(
        secrets,
        server,
        "oauth",
        field.to_string(),
        name,
        moved,
    ))
}

/// The value to keep for `server`'s `section` `key` and whether it is
/// moved out of `config.json`: `value` when given, else the `current` one
/// there, which must be a plain value, not empty.
fn secret_to_keep(
    server: &str,
    section: &str,
    key: &str,
    value: Option<&str>,
    current: Option<&str>,
) -> Result<(String, bool)> {
    let (secret, moved) = match (value, current) {
        (Some(value), _) => (value.to_string(), false),
        (None, Some(current)) if references(current).unwrap_or_default().is_empty() => {
            (current.to_string(), true)
        }
        (None, Some(_)) => {
            return Err(ApiError::new(
                ErrorCode::Invalid,
                format!(
                    "{section} {key:?} of server {server:?} is kept as a secret already; give a new value to replace it"
                ),
            ));
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
    Ok((secret, moved))
}

/// What was kept, for [`keep_secret`]'s answer.
fn kept(
    secrets: &Secrets,
    server: &str,
    section: &'static str,
    key: String,
    name: String,
    moved: bool,
) -> SecretKept {
    SecretKept {
        server: server.to_string(),
        section,
        key,
        secret: name,
        location: secrets.location(),
        moved,
    }
}

/// Imports the servers of a host's config (see [`sieve_store::import::import`])
/// and, with `keep_secrets`, keeps every env and header value they bring
/// in the secret store rather than in `config.json` (the names kept are in
/// the report's `keptSecrets`).
pub fn import(
    store: &Store,
    host: sieve_store::hosts::HostKind,
    path: Option<&std::path::Path>,
    keep_secrets: bool,
) -> Result<sieve_store::import::ImportReport> {
    let mut report = super::servers::import(store, host, path)?;
    if keep_secrets && !report.secrets.is_empty() {
        let secrets = open(store)?;
        for value in report.secrets.clone() {
            let kept = keep_secret(store, &secrets, &value.server, &value.key, None)?;
            report.kept_secrets.push(kept.secret);
        }
    }
    Ok(report)
}

/// Adds a server (see [`super::servers::add`]) and, given `secrets`, keeps
/// its env or header values, and its OAuth client's secret or key, there:
/// `config.json` never holds them, not even for a moment in a backup.
pub fn add_server(
    store: &Store,
    secrets: Option<&Secrets>,
    mut server: super::servers::NewServer,
) -> Result<AddedServer> {
    use super::servers::NewServer;
    // Checked before anything is stored, so a refusal leaves nothing behind.
    if let NewServer::Http {
        oauth: Some(oauth), ..
    } = &server
    {
        oauth
            .check()
            .map_err(|why| ApiError::invalid("oauth", why))?;
    }
    // The key first: the secrets are named after it.
    let config = store.load_config()?;
    let (name, section, values, oauth) = match &mut server {
        NewServer::Stdio { name, env, .. } => {
            *name = super::servers::new_key(&config, name)?;
            (name.clone(), "env", env, None)
        }
        NewServer::Http {
            name,
            headers,
            oauth,
            ..
        } => {
            *name = super::servers::new_key(&config, name)?;
            (name.clone(), "headers", headers, oauth.as_mut())
        }
    };
    let is_plain =
        |value: &String| !value.is_empty() && references(value).is_ok_and(|refs| refs.is_empty());
    // Every plain value to keep: the env or header values, and the OAuth
    // client's secret and key (`oauth.clientSecret`, `oauth.privateKey`).
    let client = oauth.into_iter().flat_map(|oauth| {
        oauth
            .secret_fields_mut()
            .into_iter()
            .filter_map(|(field, value)| Some(("oauth", field.to_string(), value.as_mut()?)))
    });
    let mut plain: Vec<(&'static str, String, &mut String)> = values
        .iter_mut()
        .map(|(key, value)| (section, key.clone(), value))
        .chain(client)
        .filter(|(_, _, value)| is_plain(value))
        .collect();
    let mut kept = Vec::new();
    if let Some(secrets) = secrets.filter(|_| !plain.is_empty()) {
        // Stored first, then the server is added with references only; a
        // taken name must not get its secrets overwritten first (`new_key`
        // above refused one).
        for (section, key, value) in plain.iter_mut() {
            let secret = secret_name(&name, section, key);
            secrets.set(&secret, value)?;
            **value = reference(&secret);
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
    Ok(AddedServer { server: name, kept })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use sieve_store::home::Home;

    fn http(oauth: serde_json::Value) -> super::super::servers::NewServer {
        serde_json::from_value(json!({
            "transport": "http", "name": "corp", "url": "https://corp.test/mcp",
            "headers": {"X-Team": "blue"}, "oauth": oauth,
        }))
        .expect("the page's shape")
    }

    #[test]
    fn an_added_server_s_client_secret_is_kept_out_of_config_json() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let store = Store::new(home.clone());
        let secrets = Secrets::file(&home);

        // A combination that cannot work is refused before anything is kept.
        let error = add_server(
            &store,
            Some(&secrets),
            http(json!({"grant": "clientCredentials", "clientSecret": "s3cret"})),
        )
        .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("oauth"), "{}", error.message);
        assert!(error.message.contains("\"clientId\""), "{}", error.message);
        assert_eq!(secrets.get("corp/oauth/clientSecret").unwrap(), None);

        let kept = add_server(
            &store,
            Some(&secrets),
            http(json!({"grant": "clientCredentials", "clientId": "robot", "clientSecret": "s3cret"})),
        )
        .unwrap();
        assert_eq!(kept.server, "corp");
        let names: Vec<_> = kept
            .kept
            .iter()
            .map(|k| (k.section, k.key.as_str()))
            .collect();
        assert_eq!(names, [("headers", "X-Team"), ("oauth", "clientSecret")]);
        let text = std::fs::read_to_string(home.config_file()).unwrap();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("${secret:corp/oauth/clientSecret}"), "{text}");
        assert_eq!(
            secrets.get("corp/oauth/clientSecret").unwrap().as_deref(),
            Some("s3cret")
        );
        let config = store.load_config().unwrap();
        let Transport::Http { oauth, .. } = &config.mcp_servers["corp"].transport else {
            panic!("an HTTP server");
        };
        assert_eq!(
            oauth.as_ref().map(|o| o.grant),
            Some(sieve_core::Grant::ClientCredentials)
        );

        // A key for a server whose sign-in is a person's would leave
        // config.json unreadable: refused, nothing kept or written.
        let error =
            keep_secret(&store, &secrets, "corp", "oauth.privateKey", Some("PEM")).unwrap_err();
        assert!(error.message.contains("needs either"), "{}", error.message);
        let mut person = store.load_config().unwrap();
        if let Transport::Http { oauth, .. } =
            &mut person.mcp_servers.get_mut("corp").unwrap().transport
        {
            *oauth = None;
        }
        store.save_config(&person).unwrap();
        let error =
            keep_secret(&store, &secrets, "corp", "oauth.privateKey", Some("PEM")).unwrap_err();
        assert!(
            error.message.contains("are for \"grant\""),
            "{}",
            error.message
        );
        assert_eq!(secrets.get("corp/oauth/privateKey").unwrap(), None);
        assert!(store.load_config().is_ok());

        // An empty "oauth" (the form's fields left blank) is left out.
        let mut blank = http(json!({}));
        if let super::super::servers::NewServer::Http { name, .. } = &mut blank {
            *name = "plain".into();
        }
        add_server(&store, None, blank).unwrap();
        let config = store.load_config().unwrap();
        assert!(matches!(
            &config.mcp_servers["plain"].transport,
            Transport::Http { oauth: None, .. }
        ));
    }
}
