//! `mcp-sieve servers login NAME`: signing in to an HTTP server of
//! `config.json` (OAuth, DESIGN §10) and keeping the sign-in in the secret
//! store, where the proxy's connection to the server finds it (a running
//! proxy within 30 s, see `upstream`).

use super::{ApiError, ErrorCode, Result};
use crate::oauth::{Client, Credentials, SharedSecrets, SignIn, sign_in};
use crate::store::Store;
use serde::Serialize;
use sieve_core::Transport;
use sieve_core::secret_ref::{SubstituteError, substitute};
use std::collections::BTreeMap;
use std::time::Duration;

/// How long the person has to finish the sign-in in the browser.
pub const WAIT: Duration = Duration::from_secs(300);

/// A finished sign-in.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    pub server: String,
    pub url: String,
    /// Where the sign-in is kept, for a person.
    pub location: String,
}

/// Signs in to HTTP server `name` of `config.json`: `open` is handed the
/// authorization URL (to open with [`crate::oauth::open_in_browser`], or
/// to print); the browser's redirect back to `127.0.0.1` is waited for up
/// to `wait`.
pub async fn login(
    store: &Store,
    name: &str,
    open: &(dyn Fn(&str) + Send + Sync),
    wait: Duration,
) -> Result<SignedIn> {
    let config = store.load_config()?;
    let server = config
        .mcp_servers
        .get(name)
        .ok_or_else(|| super::servers::no_server(name))?;
    let Transport::Http { url, oauth, .. } = &server.transport else {
        return Err(ApiError::invalid(
            "name",
            format!(
                "server {name:?} is started as a program, not reached by URL; only HTTP servers are signed in to"
            ),
        ));
    };
    let secrets = SharedSecrets::new(store.home().clone());
    let client = match oauth {
        Some(oauth) => {
            let mut resolved = BTreeMap::new();
            for (field, value) in oauth.secret_fields() {
                if let Some(value) = value {
                    resolved.insert(
                        field.to_string(),
                        resolve(&secrets, name, field, value).await?,
                    );
                }
            }
            Client::configured(oauth, resolved)
        }
        None => Client::default(),
    };
    let credentials = Credentials::stored(secrets.clone(), name);
    // What the server last said when it refused the proxy (a 403 wanting
    // more scopes, say), so this sign-in asks for what it needs.
    let challenge = credentials.challenge().await;
    sign_in(SignIn {
        url,
        client,
        challenge,
        credentials,
        open,
        wait,
    })
    .await
    .map_err(|why| ApiError::new(ErrorCode::Upstream, why))?;
    let location = tokio::task::spawn_blocking(move || secrets.open().map(|s| s.location()))
        .await
        .ok()
        .and_then(|l| l.ok())
        .unwrap_or_else(|| "the secret store".into());
    Ok(SignedIn {
        server: name.to_string(),
        url: url.clone(),
        location,
    })
}

/// `value` (an `"oauth"` `field` of `server`) with its `${secret:NAME}`
/// references replaced by the stored secrets, looked up off the runtime.
async fn resolve(
    secrets: &SharedSecrets,
    server: &str,
    field: &'static str,
    value: &str,
) -> Result<String> {
    let (secrets, value) = (secrets.clone(), value.to_string());
    let resolved = tokio::task::spawn_blocking(move || {
        substitute(&value, |key| {
            secrets
                .open()?
                .get(key)
                .map_err(|e| e.0)?
                .ok_or_else(|| format!("secret {key:?} is not stored"))
        })
    })
    .await
    .map_err(|_| {
        ApiError::new(
            ErrorCode::Io,
            format!("reading the client's {field} stopped half way"),
        )
    })?;
    resolved.map_err(|error| {
        let why = match error {
            SubstituteError::Malformed(why) | SubstituteError::Lookup(why) => why,
        };
        ApiError::invalid(
            "oauth",
            format!("the \"oauth\" {field:?} of server {server:?}: {why}"),
        )
    })
}
