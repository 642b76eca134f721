//! Signing in to HTTP servers (DESIGN §10), with rmcp's OAuth support: its
//! metadata discovery, client registration, PKCE, scope selection, token
//! exchange and refresh. Nothing of the protocol is done here; this module
//! keeps what a sign-in yields and runs the loopback redirect.
//!
//! * [`Credentials`]: where one server's sign-in is kept, `oauth/<server>`
//!   in the secret store (or in memory, for the probe): rmcp's stored
//!   credentials plus the client registration (a dynamically registered
//!   client's secret), so a refresh works after a restart.
//! * [`sign_in`]: the authorization-code flow with a redirect to
//!   `http://127.0.0.1:<port>/callback`, served here until the browser
//!   comes back; or, for a client with credentials of its own (a service
//!   account), the client credentials grant, with no person.
//! * [`authorized`]: an rmcp authorization manager over stored credentials,
//!   for the upstream connection (`AuthClient` sends the token and
//!   refreshes it before it expires).

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, CredentialStore, JwtSigningAlgorithm,
    OAuthClientConfig, StoredCredentials,
};
use serde::{Deserialize, Serialize};
use sieve_core::Grant;
use sieve_store::home::Home;
use sieve_store::secrets::{SecretError, Secrets};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The path of the loopback redirect.
const CALLBACK_PATH: &str = "/callback";

/// The client name a dynamically registered client gets.
const CLIENT_NAME: &str = "MCP Sieve";

/// The secret-store key of `server`'s sign-in.
pub fn key(server: &str) -> String {
    format!("oauth/{server}")
}

/// Why a sign-in could not be made, kept or read; the message says with
/// which server and what to do, and never holds a token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SignInError {
    /// The secret store that keeps sign-ins failed.
    #[error(transparent)]
    Secrets(#[from] SecretError),
    /// Reading or storing the kept sign-in stopped before it finished.
    #[error("{action} the sign-in stopped half way")]
    Interrupted { action: &'static str },
    /// A registration was to be kept beside a sign-in that is not there.
    #[error("the sign-in was not stored")]
    NotStored,
    /// The server wants a sign-in (HTTP 401) but publishes no OAuth
    /// metadata to sign in with.
    #[error("{}", no_sign_in(.url))]
    NoMetadata { url: String },
    /// rmcp's OAuth failed: said in a person's words by [`plain`].
    #[error("{}", plain(.url, .error))]
    Auth { url: String, error: AuthError },
    /// The client cannot use the client credentials grant as configured.
    #[error("the sign-in to {url} cannot be made: {why}")]
    Unusable { url: String, why: ClientError },
    /// The token exchange stopped before it finished.
    #[error("the sign-in to {url} stopped half way")]
    ExchangeInterrupted { url: String },
    /// No loopback port for the browser to come back to.
    #[error("cannot open a local port for the sign-in's redirect: {cause}")]
    NoPort { cause: std::io::Error },
    /// The browser did not come back within `waited`.
    #[error(
        "the browser did not come back from the sign-in to {url} within {}s; run the sign-in again and finish it in the browser",
        .waited.as_secs()
    )]
    NoCallback { url: String, waited: Duration },
    /// The authorization server sent the person back with an `error`.
    #[error(
        "the sign-in to {url} was refused ({error}); try again, or check the server's sign-in settings"
    )]
    Refused { url: String, error: String },
}

/// A configured client that cannot use the client credentials grant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    #[error(
        "the client credentials grant needs the client's id; add \"clientId\" to the server's \"oauth\""
    )]
    NoClientId,
    #[error(
        "signing algorithm {algorithm:?} is not one of {}",
        sieve_core::SIGNING_ALGORITHMS.join(", ")
    )]
    UnknownAlgorithm { algorithm: String },
    #[error(
        "the client credentials grant needs the client's secret or private key; add \"clientSecret\" or \"privateKey\" to the server's \"oauth\""
    )]
    NoSecretOrKey,
}

/// What is kept of one sign-in.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    credentials: StoredCredentials,
    /// The secret of a client registered dynamically (a pre-registered
    /// one's stays in `config.json` as a `${secret:...}` reference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    /// The redirect the client was registered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    redirect_uri: Option<String>,
    /// The `WWW-Authenticate` header of the server's last 401 or 403 seen
    /// by the proxy, for the next sign-in (where the metadata is, which
    /// scopes it wants); cleared by a sign-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    challenge: Option<String>,
}

/// Where one server's sign-in is kept. Cloning shares the place.
#[derive(Clone)]
pub struct Credentials {
    key: String,
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    /// The home's secret store, opened the first time it is needed (it
    /// talks to D-Bus, so always off the runtime).
    Store(SharedSecrets),
    Memory(Arc<Mutex<Option<String>>>),
}

/// One home's secret store, opened once and shared.
#[derive(Clone)]
pub struct SharedSecrets {
    home: Home,
    opened: Arc<OnceLock<Result<Secrets, SecretError>>>,
}

impl SharedSecrets {
    pub fn new(home: Home) -> SharedSecrets {
        SharedSecrets {
            home,
            opened: Arc::new(OnceLock::new()),
        }
    }

    /// The store; blocks (D-Bus): call it off the runtime.
    pub fn open(&self) -> Result<Secrets, SecretError> {
        self.opened
            .get_or_init(|| Secrets::open(&self.home))
            .clone()
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.key)
    }
}

impl Credentials {
    /// `server`'s sign-in in the home's secret store.
    pub fn stored(secrets: SharedSecrets, server: &str) -> Credentials {
        Credentials {
            key: key(server),
            backend: Backend::Store(secrets),
        }
    }

    /// A sign-in kept for as long as this value (and its clones) live.
    pub fn in_memory(server: &str) -> Credentials {
        Credentials {
            key: key(server),
            backend: Backend::Memory(Arc::new(Mutex::new(None))),
        }
    }

    async fn read(&self) -> Result<Option<Record>, SignInError> {
        let text = match &self.backend {
            Backend::Memory(value) => value.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            Backend::Store(secrets) => {
                let (secrets, key) = (secrets.clone(), self.key.clone());
                tokio::task::spawn_blocking(move || secrets.open()?.get(&key))
                    .await
                    .map_err(|_| SignInError::Interrupted { action: "reading" })??
            }
        };
        match text {
            None => Ok(None),
            // A record that does not parse is as good as none: sign in again.
            Some(text) => Ok(serde_json::from_str(&text).ok()),
        }
    }

    async fn write(&self, record: Option<&Record>) -> Result<(), SignInError> {
        let text = record.map(|r| serde_json::to_string(r).expect("a record serialises"));
        match &self.backend {
            Backend::Memory(value) => {
                *value.lock().unwrap_or_else(|e| e.into_inner()) = text;
                Ok(())
            }
            Backend::Store(secrets) => {
                let (secrets, key) = (secrets.clone(), self.key.clone());
                tokio::task::spawn_blocking(move || {
                    let secrets = secrets.open()?;
                    match text {
                        Some(text) => secrets.set(&key, &text),
                        None => secrets.delete(&key).map(|_| ()),
                    }
                })
                .await
                .map_err(|_| SignInError::Interrupted { action: "storing" })??;
                Ok(())
            }
        }
    }

    /// Whether a sign-in with a token is kept.
    pub async fn signed_in(&self) -> bool {
        matches!(self.read().await, Ok(Some(record)) if record.credentials.token_response.is_some())
    }

    /// How long the kept token has left, when the server said how long it
    /// lives.
    pub async fn token_left(&self) -> Option<Duration> {
        let record = self.read().await.ok()??;
        let token = serde_json::to_value(record.credentials.token_response.as_ref()?).ok()?;
        let lifetime = Duration::from_secs(token["expires_in"].as_u64()?);
        let received = record.credentials.token_received_at?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs();
        Some(lifetime.saturating_sub(Duration::from_secs(now.saturating_sub(received))))
    }

    /// Forgets the sign-in; whether there was one.
    pub async fn forget(&self) -> Result<bool, SignInError> {
        let had = self.read().await?.is_some();
        self.write(None).await?;
        Ok(had)
    }

    /// Keeps the client registration next to the credentials.
    async fn set_registration(
        &self,
        client_secret: Option<String>,
        redirect_uri: &str,
    ) -> Result<(), SignInError> {
        let Some(mut record) = self.read().await? else {
            return Err(SignInError::NotStored);
        };
        record.client_secret = client_secret;
        record.redirect_uri = Some(redirect_uri.to_string());
        record.challenge = None;
        self.write(Some(&record)).await
    }

    /// Keeps the server's challenge for the next sign-in (`servers login`
    /// runs in another process). Written only when it is new, so a server
    /// that keeps refusing does not keep rewriting the store.
    pub async fn remember_challenge(&self, challenge: &str) -> Result<(), SignInError> {
        let mut record = self.read().await?.unwrap_or_else(|| Record {
            credentials: StoredCredentials::new(String::new(), None, Vec::new(), None),
            client_secret: None,
            redirect_uri: None,
            challenge: None,
        });
        if record.challenge.as_deref() == Some(challenge) {
            return Ok(());
        }
        record.challenge = Some(challenge.to_string());
        self.write(Some(&record)).await
    }

    /// The challenge kept by [`Credentials::remember_challenge`].
    pub async fn challenge(&self) -> Option<String> {
        self.read().await.ok().flatten().and_then(|r| r.challenge)
    }
}

/// rmcp takes a store's failure as a sentence.
fn store_error(error: SignInError) -> AuthError {
    AuthError::CredentialStoreError(error.to_string())
}

#[async_trait::async_trait]
impl CredentialStore for Credentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self
            .read()
            .await
            .map_err(store_error)?
            .map(|r| r.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        // A refresh keeps the registration; a new client starts afresh.
        let record = match self.read().await.map_err(store_error)? {
            Some(old) if old.credentials.client_id == credentials.client_id => {
                Record { credentials, ..old }
            }
            Some(old) => Record {
                credentials,
                client_secret: None,
                redirect_uri: None,
                challenge: old.challenge,
            },
            None => Record {
                credentials,
                client_secret: None,
                redirect_uri: None,
                challenge: None,
            },
        };
        self.write(Some(&record)).await.map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.write(None).await.map_err(store_error)
    }

    /// A sign-in whose refresh the server refused is no sign-in: forgotten,
    /// so the server waits as `needs-login` instead of being tried with it
    /// again. Unless another sign-in has replaced it meanwhile.
    async fn on_refresh_token_rejected(
        &self,
        rejected: &StoredCredentials,
    ) -> Result<(), AuthError> {
        let same = |c: &StoredCredentials| {
            c.client_id == rejected.client_id
                && serde_json::to_value(&c.token_response).ok()
                    == serde_json::to_value(&rejected.token_response).ok()
        };
        match self.read().await.map_err(store_error)? {
            Some(record) if same(&record.credentials) => {
                self.write(None).await.map_err(store_error)
            }
            _ => Ok(()),
        }
    }
}

/// The client to sign in with, as configured (its secret resolved).
#[derive(Clone, Default)]
pub struct Client {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub scopes: Vec<String>,
    /// Where MCP Sieve's Client ID Metadata Document is published: the
    /// client id for authorization servers that accept those.
    pub metadata_url: Option<String>,
    /// How tokens are got; see [`Client::needs_no_person`].
    pub grant: Grant,
    /// A PEM private key that signs the client's assertion, for the client
    /// credentials grant (`private_key_jwt`), and its algorithm.
    pub private_key: Option<String>,
    pub signing_algorithm: Option<String>,
}

impl Client {
    /// The client a server's `"oauth"` describes, its secrets given as
    /// `resolved` (by field name, `${secret:NAME}` replaced).
    pub fn configured(
        oauth: &sieve_core::OAuthClient,
        mut resolved: std::collections::BTreeMap<String, String>,
    ) -> Client {
        Client {
            client_id: oauth.client_id.clone(),
            client_secret: resolved.remove("clientSecret"),
            scopes: oauth.scopes.clone(),
            metadata_url: oauth.client_metadata_url.clone(),
            grant: oauth.grant,
            private_key: resolved.remove("privateKey"),
            signing_algorithm: oauth.signing_algorithm.clone(),
        }
    }

    /// Whether the tokens come from the client's own credentials, with no
    /// person: when configured so, or when the authorization server
    /// (`metadata`) offers only the client credentials grant and the client
    /// has a secret or key to use it with.
    fn needs_no_person(&self, metadata: &rmcp::transport::auth::AuthorizationMetadata) -> bool {
        if self.grant == Grant::ClientCredentials {
            return true;
        }
        let grants: Vec<&str> = metadata
            .additional_fields
            .get("grant_types_supported")
            .and_then(serde_json::Value::as_array)
            .map(|grants| {
                grants
                    .iter()
                    .filter_map(serde_json::Value::as_str)
                    .collect()
            })
            .unwrap_or_default();
        grants.contains(&"client_credentials")
            && !grants.contains(&"authorization_code")
            && self.client_id.is_some()
            && (self.client_secret.is_some() || self.private_key.is_some())
    }

    /// The client credentials grant's configuration for this client.
    fn credentials_grant(
        &self,
        resource: &str,
        scopes: Vec<String>,
    ) -> Result<ClientCredentialsConfig, ClientError> {
        let client_id = self.client_id.clone().ok_or(ClientError::NoClientId)?;
        let resource = Some(resource.to_string());
        if let Some(key) = &self.private_key {
            let algorithm = match self.signing_algorithm.as_deref().unwrap_or("ES256") {
                "RS256" => JwtSigningAlgorithm::RS256,
                "RS384" => JwtSigningAlgorithm::RS384,
                "RS512" => JwtSigningAlgorithm::RS512,
                "ES256" => JwtSigningAlgorithm::ES256,
                "ES384" => JwtSigningAlgorithm::ES384,
                other => {
                    return Err(ClientError::UnknownAlgorithm {
                        algorithm: other.to_string(),
                    });
                }
            };
            return Ok(ClientCredentialsConfig::PrivateKeyJwt {
                client_id,
                signing_key: key.clone().into_bytes(),
                signing_algorithm: algorithm,
                token_endpoint_audience: None,
                scopes,
                resource,
            });
        }
        let client_secret = self
            .client_secret
            .clone()
            .ok_or(ClientError::NoSecretOrKey)?;
        Ok(ClientCredentialsConfig::ClientSecret {
            client_id,
            client_secret,
            scopes,
            resource,
        })
    }
}

/// An authorization manager for `url` over the stored sign-in, or `None`
/// when there is none (the connection then goes without a token, and a
/// server that wants one answers 401).
pub async fn authorized(
    url: &str,
    credentials: &Credentials,
    client: &Client,
) -> Result<Option<AuthorizationManager>, SignInError> {
    let Some(record) = credentials.read().await? else {
        return Ok(None);
    };
    if record.credentials.token_response.is_none() {
        return Ok(None);
    }
    let fail = |error| SignInError::Auth {
        url: url.to_string(),
        error,
    };
    let mut manager = AuthorizationManager::new(url).await.map_err(fail)?;
    manager.set_credential_store(credentials.clone());
    if !manager.initialize_from_store().await.map_err(fail)? {
        return Ok(None);
    }
    // rmcp restores the client id only; a refresh needs the secret too.
    let secret = match &client.client_id {
        Some(id) if *id == record.credentials.client_id => client.client_secret.clone(),
        _ => record.client_secret.clone(),
    };
    if let Some(secret) = secret {
        let redirect = record
            .redirect_uri
            .clone()
            .unwrap_or_else(|| format!("http://127.0.0.1{CALLBACK_PATH}"));
        manager
            .configure_client(
                OAuthClientConfig::new(record.credentials.client_id.clone(), redirect)
                    .with_client_secret(secret),
            )
            .map_err(fail)?;
    }
    Ok(Some(manager))
}

/// How a sign-in reaches the person: `open` is given the authorization
/// URL (`sieve_api::login::open_sign_in_page` opens it for a person).
pub struct SignIn<'a> {
    pub url: &'a str,
    pub client: Client,
    /// The `WWW-Authenticate` header of the server's 401 or 403, which
    /// says where its metadata is and which scopes it wants.
    pub challenge: Option<String>,
    pub credentials: Credentials,
    pub open: &'a (dyn Fn(&str) + Send + Sync),
    /// How long to wait for the browser to come back.
    pub wait: Duration,
}

/// Signs in to the server at `url`: discovery, registration (the
/// configured client, else dynamic registration), the authorization URL
/// opened, the redirect awaited on the loopback, the code exchanged, the
/// credentials and registration stored.
pub async fn sign_in(request: SignIn<'_>) -> Result<(), SignInError> {
    let url = request.url;
    let fail = |error| SignInError::Auth {
        url: url.to_string(),
        error,
    };
    let mut manager = AuthorizationManager::new(url).await.map_err(fail)?;
    manager.set_credential_store(request.credentials.clone());
    let resolution = manager
        .resolve_metadata_from_challenge(request.challenge.as_deref())
        .await
        .map_err(fail)?;
    // rmcp would go on with endpoints guessed from the URL; a server that
    // publishes no metadata is one whose tokens come by other means.
    if !resolution.source.is_discovered() {
        return Err(SignInError::NoMetadata {
            url: url.to_string(),
        });
    }
    let no_person = request.client.needs_no_person(&resolution.metadata);
    let takes_metadata_documents = resolution
        .metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    manager.set_metadata(resolution.metadata);
    let mut scopes = if request.client.scopes.is_empty() {
        manager.select_initial_scopes(&[]).await
    } else {
        request.client.scopes.clone()
    };
    // Signing in again for more scopes (step-up) keeps those granted.
    if let Ok(Some(earlier)) = request.credentials.read().await {
        for scope in earlier.credentials.granted_scopes {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
    }
    if no_person {
        let grant = request
            .client
            .credentials_grant(url, scopes)
            .map_err(|why| SignInError::Unusable {
                url: url.to_string(),
                why,
            })?;
        manager
            .validate_client_credentials_metadata(&grant)
            .map_err(fail)?;
        manager.configure_client_credentials(&grant).map_err(fail)?;
        // rmcp keeps the tokens in the store (`Credentials`). Its exchange
        // with a signed assertion cannot move between threads as it runs
        // (rmcp 3.9), so it runs on a thread of its own, and this function
        // stays one that can.
        let exchanged = tokio::task::spawn_blocking(move || {
            tokio::runtime::Handle::current().block_on(async move {
                manager.exchange_client_credentials(&grant).await.map(drop)
            })
        })
        .await
        .map_err(|_| SignInError::ExchangeInterrupted {
            url: url.to_string(),
        })?;
        exchanged.map_err(fail)?;
        return Ok(());
    }
    let no_port = |cause| SignInError::NoPort { cause };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(no_port)?;
    let port = listener.local_addr().map_err(no_port)?.port();
    let redirect = format!("http://127.0.0.1:{port}{CALLBACK_PATH}");
    // The client, in the order the spec gives: pre-registered, a Client ID
    // Metadata Document where the authorization server takes them, else
    // registered dynamically. Registration is ours to call so that a
    // dynamic client's secret can be kept for refreshes after a restart.
    let (client_id, client_secret) = match (&request.client.client_id, &request.client.metadata_url)
    {
        (Some(id), _) => (id.clone(), request.client.client_secret.clone()),
        (None, Some(document)) if takes_metadata_documents => (document.clone(), None),
        (None, _) => {
            let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
            let registered = manager
                .register_client(CLIENT_NAME, &redirect, &scope_refs)
                .await
                .map_err(fail)?;
            (registered.client_id, registered.client_secret)
        }
    };
    let mut authorization = AuthorizationRequest::new(&redirect)
        .with_client_name(CLIENT_NAME)
        .with_preregistered_client(&client_id)
        .with_scopes(scopes);
    if let Some(secret) = &client_secret {
        authorization = authorization.with_client_secret(secret);
    }
    let session = AuthorizationSession::new(manager, authorization)
        .await
        .map_err(|(_, e)| fail(e))?;
    let (sender, receiver) = tokio::sync::oneshot::channel::<String>();
    let sender = Arc::new(Mutex::new(Some(sender)));
    let app = axum::Router::new().route(
        CALLBACK_PATH,
        axum::routing::get(move |uri: axum::http::Uri| {
            let sender = sender.clone();
            async move {
                if let Some(sender) = sender.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    let _ = sender.send(uri.to_string());
                }
                "Signed in: you can close this tab and go back to MCP Sieve."
            }
        }),
    );
    let stop = tokio_util::sync::CancellationToken::new();
    let server = tokio::spawn({
        let stop = stop.clone();
        async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(stop.cancelled_owned())
                .await;
        }
    });
    (request.open)(session.get_authorization_url());
    let callback = tokio::time::timeout(request.wait, receiver).await;
    stop.cancel();
    let _ = server.await;
    let path = match callback {
        Ok(Ok(path)) => path,
        _ => {
            return Err(SignInError::NoCallback {
                url: url.to_string(),
                waited: request.wait,
            });
        }
    };
    let callback_url = format!("http://127.0.0.1:{port}{path}");
    if let Some(error) = reqwest::Url::parse(&callback_url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "error")
            .map(|(_, v)| v.into_owned())
    }) {
        return Err(SignInError::Refused {
            url: url.to_string(),
            error,
        });
    }
    let parsed = AuthorizationCallback::from_redirect_url(&callback_url).map_err(fail)?;
    session
        .handle_callback_with_issuer(&parsed.code, &parsed.csrf_token, parsed.issuer.as_deref())
        .await
        .map_err(fail)?;
    request
        .credentials
        .set_registration(client_secret, &redirect)
        .await
}

fn no_sign_in(url: &str) -> String {
    format!(
        "{url} asks for a sign-in (HTTP 401) but publishes no OAuth metadata to sign in with; if the server gives out tokens, add one as its \"Authorization: Bearer ...\" header"
    )
}

/// An rmcp sign-in error in a person's words, on one line: what failed
/// with which server, never a token.
fn plain(url: &str, error: &AuthError) -> String {
    let text = words(url, error);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn words(url: &str, error: &AuthError) -> String {
    match error {
        AuthError::NoAuthorizationSupport => no_sign_in(url),
        AuthError::RegistrationFailed(why) => format!(
            "{url}'s authorization server would not register MCP Sieve as a client ({why}); add a client registered with it to the server's \"oauth\" in config.json"
        ),
        AuthError::HttpError(e) => format!("cannot reach the sign-in service of {url}: {e}"),
        AuthError::AuthorizationServerMismatch { .. }
        | AuthError::AuthorizationServerMissingIssuer { .. } => format!(
            "the sign-in to {url} was stopped because the authorization server did not identify itself as expected ({error})"
        ),
        AuthError::ClientCredentialsError(why) | AuthError::JwtSigningError(why) => format!(
            "the sign-in to {url} with the client's own credentials failed ({why}); check \"clientId\" and \"clientSecret\" or \"privateKey\" in the server's \"oauth\""
        ),
        AuthError::CredentialStoreError(why) => {
            format!("cannot keep the sign-in to {url}: {why}")
        }
        other => format!("the sign-in to {url} failed: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::auth::OAuthTokenResponse;

    fn token(access: &str) -> OAuthTokenResponse {
        serde_json::from_value(serde_json::json!({
            "access_token": access,
            "token_type": "bearer",
            "expires_in": 3600
        }))
        .unwrap()
    }

    #[test]
    fn a_client_with_credentials_needs_no_person_where_only_that_grant_is_offered() {
        let metadata = |grants: serde_json::Value| {
            serde_json::from_value::<rmcp::transport::auth::AuthorizationMetadata>(
                serde_json::json!({
                    "authorization_endpoint": "https://as.test/authorize",
                    "token_endpoint": "https://as.test/token",
                    "grant_types_supported": grants,
                }),
            )
            .unwrap()
        };
        let machine_only = metadata(serde_json::json!(["client_credentials"]));
        let both = metadata(serde_json::json!([
            "authorization_code",
            "client_credentials"
        ]));
        let with_secret = Client {
            client_id: Some("robot".into()),
            client_secret: Some("s".into()),
            ..Client::default()
        };
        assert!(with_secret.needs_no_person(&machine_only));
        assert!(
            !with_secret.needs_no_person(&both),
            "a person's sign-in first"
        );
        assert!(
            !Client::default().needs_no_person(&machine_only),
            "no credentials to use it with"
        );
        let configured = Client {
            grant: Grant::ClientCredentials,
            ..with_secret.clone()
        };
        assert!(configured.needs_no_person(&both));

        // The grant's configuration: a key signs, else the secret.
        let keyed = Client {
            private_key: Some("-----BEGIN PRIVATE KEY-----".into()),
            signing_algorithm: Some("RS256".into()),
            ..configured.clone()
        };
        assert!(matches!(
            keyed.credentials_grant("https://mcp.test/mcp", vec![]),
            Ok(ClientCredentialsConfig::PrivateKeyJwt { .. })
        ));
        assert!(matches!(
            configured.credentials_grant("https://mcp.test/mcp", vec![]),
            Ok(ClientCredentialsConfig::ClientSecret { .. })
        ));
        let error = Client {
            client_id: None,
            ..configured
        }
        .credentials_grant("https://mcp.test/mcp", vec![])
        .err()
        .unwrap();
        assert!(error.to_string().contains("\"clientId\""), "{error}");
    }

    #[tokio::test]
    async fn a_refresh_keeps_the_registration_and_a_new_client_drops_it() {
        let credentials = Credentials::in_memory("remote");
        assert!(!credentials.signed_in().await);
        let first = StoredCredentials::new("client-1".into(), Some(token("a")), vec![], Some(1));
        credentials.save(first).await.unwrap();
        credentials
            .set_registration(Some("dcr-secret".into()), "http://127.0.0.1:5/callback")
            .await
            .unwrap();
        assert!(credentials.signed_in().await);

        // What rmcp saves after a refresh: same client, new token.
        let refreshed =
            StoredCredentials::new("client-1".into(), Some(token("b")), vec![], Some(2));
        credentials.save(refreshed).await.unwrap();
        let record = credentials.read().await.unwrap().unwrap();
        assert_eq!(
            record.client_secret.as_deref(),
            Some("dcr-secret"),
            "kept for the next refresh"
        );
        assert_eq!(
            record.redirect_uri.as_deref(),
            Some("http://127.0.0.1:5/callback")
        );

        let other = StoredCredentials::new("client-2".into(), Some(token("c")), vec![], Some(3));
        credentials.save(other).await.unwrap();
        let record = credentials.read().await.unwrap().unwrap();
        assert_eq!(
            record.client_secret, None,
            "another client's secret is not this one's"
        );

        assert!(credentials.forget().await.unwrap());
        assert!(!credentials.signed_in().await);
        assert_eq!(credentials.load().await.unwrap().map(|c| c.client_id), None);
    }

    #[tokio::test]
    async fn the_last_challenge_waits_for_the_next_sign_in() {
        let credentials = Credentials::in_memory("remote");
        let challenge = r#"Bearer error="insufficient_scope", scope="write""#;
        credentials.remember_challenge(challenge).await.unwrap();
        assert!(!credentials.signed_in().await, "a challenge is no sign-in");
        assert_eq!(credentials.challenge().await.as_deref(), Some(challenge));
        let signed = StoredCredentials::new("c".into(), Some(token("t")), vec![], Some(1));
        credentials.save(signed).await.unwrap();
        assert_eq!(
            credentials.challenge().await.as_deref(),
            Some(challenge),
            "kept through the token exchange"
        );
        credentials
            .set_registration(None, "http://127.0.0.1:5/callback")
            .await
            .unwrap();
        assert_eq!(credentials.challenge().await, None, "used by the sign-in");
    }

    #[tokio::test]
    async fn a_rejected_refresh_forgets_that_sign_in_only() {
        let credentials = Credentials::in_memory("remote");
        let old = StoredCredentials::new("c".into(), Some(token("old")), vec![], Some(1));
        let new = StoredCredentials::new("c".into(), Some(token("new")), vec![], Some(2));
        credentials.save(new.clone()).await.unwrap();
        credentials.on_refresh_token_rejected(&old).await.unwrap();
        assert!(
            credentials.signed_in().await,
            "a newer sign-in stays when an older one's refresh is refused"
        );
        credentials.on_refresh_token_rejected(&new).await.unwrap();
        assert!(
            !credentials.signed_in().await,
            "{credentials:?} is forgotten"
        );
    }

    #[test]
    fn the_stored_record_is_json_under_the_servers_key() {
        assert_eq!(key("github"), "oauth/github");
        let record = Record {
            credentials: StoredCredentials::new(
                "id".into(),
                Some(token("t")),
                vec!["read".into()],
                Some(9),
            ),
            client_secret: None,
            redirect_uri: None,
            challenge: None,
        };
        let text = serde_json::to_string(&record).unwrap();
        let back: Record = serde_json::from_str(&text).unwrap();
        assert_eq!(back.credentials.client_id, "id");
        assert_eq!(back.credentials.granted_scopes, vec!["read".to_string()]);
    }
}
