//! Connecting to a server: start the child, dial the URL (with the
//! configured HTTP headers) or open the in-memory pipe, then the MCP
//! handshake of either protocol generation.

use super::child::{ChildError, ChildProcess};
use super::handler::UpstreamHandler;
use super::http::TappedHttp;
use super::{Endpoint, Handshake, ListKind, PoolInner, Upstream};
use crate::lane::Lane;
use crate::sync::Locked;
use crate::tap::RawLog;
use rmcp::RoleClient;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, AuthorizationManager};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use sieve_core::Transport;
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long a connection attempt (spawn or connect, then handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A live connection to one server.
pub(super) struct Connection {
    pub(super) service: RunningService<RoleClient, UpstreamHandler>,
    pub(super) raw: RawLog,
    pub(super) child: Option<ChildProcess>,
    /// The connection's own requests, on a line connection.
    pub(super) lane: Option<Lane>,
}

/// Connects to a server: spawn or dial, then the MCP handshake. The
/// upstream's first handshake comes first: for pooled servers the
/// 2025-11-25 one (`initialize`), since most servers speak it; a server
/// that answers it with an error is tried again with the other
/// generation's, so a server built for 2026-07-28 alone (discovery) is
/// reached too, and the other way round.
pub(super) async fn connect(
    up: &Upstream,
    pool: &PoolInner,
) -> Result<(Connection, mpsc::UnboundedReceiver<ListKind>), Refusal> {
    let (refresh_tx, refresh_rx) = mpsc::unbounded_channel();
    let handler = UpstreamHandler {
        server: up.name.clone(),
        hosts: pool.hosts.clone(),
        refresh: refresh_tx,
        on_task_status: pool.on_task_status.clone(),
        roots: match &up.endpoint {
            Endpoint::Configured(server) => server.roots.clone(),
            Endpoint::InProcess(_) => sieve_core::Roots::default(),
        },
    };
    let (first, then) = match up.handshake {
        Handshake::Initialize => (Handshake::Initialize, Handshake::Discover),
        Handshake::Discover => (Handshake::Discover, Handshake::Initialize),
    };
    let connection = match attempt(up, pool, handler.clone(), first).await {
        Err(Refusal::Answered(error)) => {
            tracing::info!(
                "server {:?} refused {} ({error}); trying {}",
                up.name,
                first.describe(),
                then.describe()
            );
            match attempt(up, pool, handler, then).await {
                Err(Refusal::SignIn { why, challenge }) => {
                    return Err(Refusal::SignIn { why, challenge });
                }
                other => other.map_err(|e| {
                    Refusal::Failed(format!("{}; and with {}: {e}", error, then.describe()))
                })?,
            }
        }
        other => other?,
    };
    Ok((connection, refresh_rx))
}

impl Handshake {
    fn describe(self) -> &'static str {
        match self {
            Handshake::Initialize => "the 2025-11-25 initialize",
            Handshake::Discover => "2026-07-28 discovery",
        }
    }
}

/// Why a connection attempt failed; the message is the server's state's
/// reason, as `servers list` shows it.
#[derive(Debug, thiserror::Error)]
pub(super) enum Refusal {
    /// The server answered the handshake with a JSON-RPC error: it is there
    /// but may want the other protocol generation.
    #[error("{0}")]
    Answered(String),
    /// The server wants a sign-in (HTTP 401) that we do not have.
    #[error("{why}")]
    SignIn {
        why: String,
        /// Its `WWW-Authenticate` header, if it sent one.
        challenge: Option<String>,
    },
    /// Its process could not be started or given its pipes.
    #[error(transparent)]
    Child(#[from] ChildError),
    /// A secret its entry refers to could not be had.
    #[error(transparent)]
    Secrets(#[from] SecretsFailed),
    /// Its kept sign-in could not be read, or a sign-in with no person
    /// failed.
    #[error(transparent)]
    Credentials(#[from] crate::oauth::SignInError),
    /// Anything else: it could not be reached, or it went away.
    #[error("{0}")]
    Failed(String),
}

/// One connection attempt with one handshake.
async fn attempt(
    up: &Upstream,
    pool: &PoolInner,
    handler: UpstreamHandler,
    kind: Handshake,
) -> Result<Connection, Refusal> {
    // The server's progress goes to the hosts as it is read, in order
    // with the answers.
    let raw = {
        let (hosts, server) = (handler.hosts.clone(), handler.server.clone());
        RawLog::with_progress(move |progress| hosts.progress(&server, progress))
    };
    match &up.endpoint {
        Endpoint::InProcess(serve) => {
            let (ours, theirs) = tokio::io::duplex(1 << 20);
            serve(theirs);
            let (read, write) = tokio::io::split(ours);
            let (lane, rmcp) = Lane::start(read, write, raw.clone());
            let service = handshake(handler, rmcp, kind, pipe_failure).await?;
            Ok(Connection {
                service,
                raw,
                child: None,
                lane: Some(lane),
            })
        }
        Endpoint::Configured(config) => match &config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let env = with_secrets(pool, &up.name, "env", env).await?;
                let mut child = ChildProcess::spawn(&up.name, command, args, &env, cwd.as_deref())?;
                let (stdout, stdin) = child.pipes()?;
                let (lane, rmcp) = Lane::start(stdout, stdin, raw.clone());
                match handshake(handler, rmcp, kind, pipe_failure).await {
                    Ok(service) => Ok(Connection {
                        service,
                        raw,
                        child: Some(child),
                        lane: Some(lane),
                    }),
                    Err(Refusal::Failed(error)) => {
                        let exit = child.stop().await;
                        Err(Refusal::Failed(format!("{error}; {exit}")))
                    }
                    Err(other) => {
                        child.stop().await;
                        Err(other)
                    }
                }
            }
            Transport::Http {
                url,
                headers,
                oauth,
            } => {
                let headers = with_secrets(pool, &up.name, "headers", headers).await?;
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                let mut custom = HashMap::new();
                for (name, value) in &headers {
                    if name.eq_ignore_ascii_case("authorization")
                        && let Some(token) = value.strip_prefix("Bearer ")
                    {
                        config = config.auth_header(token.to_string());
                        continue;
                    }
                    // Header values are secrets: errors name the header only.
                    let header = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                        Refusal::Failed(format!("header name {name:?} is not valid"))
                    })?;
                    let value = http::HeaderValue::from_str(value).map_err(|_| {
                        Refusal::Failed(format!("the value of header {name:?} is not valid"))
                    })?;
                    custom.insert(header, value);
                }
                let config = config.custom_headers(custom);
                let describe = |e: &ClientInitializeError| http_failure(url, e);
                // Every answer is shown to `raw` before rmcp types it.
                let tapped = TappedHttp::new(raw.clone());
                let service = match signed_in(up, pool, url, oauth.as_ref()).await? {
                    // rmcp's client sends the token, refreshes it before it
                    // expires, and once more when the server rejects it.
                    Some(manager) => {
                        let client = AuthClient::new(tapped, manager);
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        handshake(handler, transport, kind, describe).await?
                    }
                    None => {
                        let transport = StreamableHttpClientTransport::with_client(tapped, config);
                        handshake(handler, transport, kind, describe).await?
                    }
                };
                Ok(Connection {
                    service,
                    raw,
                    child: None,
                    lane: None,
                })
            }
        },
    }
}

/// The stored sign-in to `url`, as an rmcp authorization manager, if
/// there is one that is usable.
async fn signed_in(
    up: &Upstream,
    pool: &PoolInner,
    url: &str,
    oauth: Option<&sieve_core::OAuthClient>,
) -> Result<Option<AuthorizationManager>, Refusal> {
    let Some(credentials) = pool.credentials.locked().as_ref().map(|f| f(&up.name)) else {
        return Ok(None);
    };
    let client = oauth_client(pool, &up.name, oauth).await?;
    Ok(crate::oauth::authorized(url, &credentials, &client).await?)
}

/// Signs in to `up` with no person, when its tokens come from its
/// client's own credentials (`"grant": "clientCredentials"`, a service
/// account): `Ok(false)` when its sign-in is a person's, the reason when
/// the authorization server refused.
pub(super) async fn sign_in_unattended(
    up: &Upstream,
    pool: &PoolInner,
    challenge: Option<String>,
) -> Result<bool, Refusal> {
    let Some((url, oauth)) = up.service_account() else {
        return Ok(false);
    };
    let Some(credentials) = pool.credentials.locked().as_ref().map(|f| f(&up.name)) else {
        return Ok(false);
    };
    let client = oauth_client(pool, &up.name, Some(oauth)).await?;
    crate::oauth::sign_in(crate::oauth::SignIn {
        url,
        client,
        challenge,
        credentials,
        // This grant opens no page and waits for no browser.
        open: &|_| {},
        wait: Duration::ZERO,
    })
    .await?;
    Ok(true)
}

/// A server's configured OAuth client, its secret looked up.
pub(super) async fn oauth_client(
    pool: &PoolInner,
    server: &str,
    oauth: Option<&sieve_core::OAuthClient>,
) -> Result<crate::oauth::Client, Refusal> {
    let Some(oauth) = oauth else {
        return Ok(crate::oauth::Client::default());
    };
    let values: BTreeMap<String, String> = oauth
        .secret_fields()
        .into_iter()
        .filter_map(|(field, value)| Some((field.to_string(), value?.clone())))
        .collect();
    let resolved = with_secrets(pool, server, "oauth", &values).await?;
    Ok(crate::oauth::Client::configured(oauth, resolved))
}

/// `values` (a server's `env` or `headers`) with every `${secret:NAME}`
/// replaced by the secret, looked up off the runtime (the keychain is
/// asked over D-Bus). A missing secret fails the attempt with what to do;
/// no error names a value.
async fn with_secrets(
    pool: &PoolInner,
    server: &str,
    section: &'static str,
    values: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, Refusal> {
    use sieve_core::secret_ref::{references, substitute};
    if values
        .values()
        .all(|v| references(v).is_ok_and(|refs| refs.is_empty()))
    {
        return Ok(values.clone());
    }
    let lookup = pool.secrets.locked().clone();
    let server = server.to_string();
    let values = values.clone();
    let resolved = tokio::task::spawn_blocking(move || {
        values
            .into_iter()
            .map(|(key, value)| {
                // `servers secret` names an OAuth client's field `oauth.<field>`.
                let shown = if section == "oauth" {
                    format!("oauth.{key}")
                } else {
                    key.clone()
                };
                let value = substitute(&value, |name| {
                    let name = name.to_string();
                    let Some(lookup) = &lookup else {
                        return Err(Unresolved::NoStore { name });
                    };
                    lookup(&name)?.ok_or_else(|| Unresolved::NotStored {
                        name,
                        server: server.clone(),
                        key: shown.clone(),
                    })
                })
                .map_err(|error| SecretsFailed {
                    section,
                    key: key.clone(),
                    server: server.clone(),
                    error: Box::new(error),
                })?;
                Ok((key, value))
            })
            .collect::<Result<BTreeMap<_, _>, SecretsFailed>>()
    })
    .await
    .map_err(|_| Refusal::Failed("looking up the server's secrets stopped half way".into()))?;
    Ok(resolved?)
}

/// A `${secret:...}` of a server's `section` `key` that could not be
/// filled in (no error names a value).
#[derive(Debug, thiserror::Error)]
#[error("{section} {key:?} of server {server:?}: {error}")]
pub(super) struct SecretsFailed {
    section: &'static str,
    key: String,
    server: String,
    error: Box<sieve_core::secret_ref::SubstituteError<Unresolved>>,
}

/// Why the secret a reference names could not be had.
#[derive(Debug, thiserror::Error)]
pub(super) enum Unresolved {
    #[error("there is no secret store to read secret {name:?} from")]
    NoStore { name: String },
    #[error(transparent)]
    Store(#[from] sieve_store::secrets::SecretError),
    /// `key` is the entry's key as `servers secret` names it.
    #[error(
        "secret {name:?} is not stored; run `mcp-sieve servers secret {server} {key}` to store it"
    )]
    NotStored {
        name: String,
        server: String,
        key: String,
    },
}

async fn handshake<T, E, A>(
    handler: UpstreamHandler,
    transport: T,
    kind: Handshake,
    describe: impl FnOnce(&ClientInitializeError) -> String,
) -> Result<RunningService<RoleClient, UpstreamHandler>, Refusal>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mode = match kind {
        Handshake::Initialize => ClientLifecycleMode::Initialize,
        Handshake::Discover => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    match tokio::time::timeout(
        CONNECT_TIMEOUT,
        handler.serve_with_lifecycle(transport, mode),
    )
    .await
    {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(ClientInitializeError::JsonRpcError(error))) => Err(Refusal::Answered(format!(
            "the server answered the handshake with error {}: {}",
            error.code.0, error.message
        ))),
        Ok(Err(error)) => {
            let challenge = match &error {
                ClientInitializeError::TransportError { error, .. } => {
                    sign_in_challenge(&*error.error)
                }
                _ => None,
            };
            let why = describe(&error);
            Err(match challenge {
                Some(challenge) => Refusal::SignIn { why, challenge },
                None => Refusal::Failed(why),
            })
        }
        Err(_) => Err(Refusal::Failed(format!(
            "no MCP handshake within {}s",
            CONNECT_TIMEOUT.as_secs()
        ))),
    }
}

/// A failed handshake over a pipe (a child's stdio, the built-in demo): the
/// child's exit and last words are added by the caller.
fn pipe_failure(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::ConnectionClosed(_) => {
            "the server closed its output before answering the MCP handshake".to_string()
        }
        // Writing to a child that has exited: the exit status that follows
        // says why; rmcp's own words name its types.
        ClientInitializeError::TransportError { error, .. }
            if error
                .error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
                || error.error.to_string().contains("Broken pipe") =>
        {
            "the server stopped before the MCP handshake".to_string()
        }
        ClientInitializeError::TransportError { error, .. } => {
            format!("the MCP handshake failed: {}", error.error)
        }
        other => format!("the MCP handshake failed: {other}"),
    }
}

/// A failed handshake with an HTTP server, in a person's words: what went
/// wrong at which URL and what to do, never the transport's type names.
fn http_failure(url: &str, error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::TransportError { error, .. } => {
            transport_failure(url, &*error.error)
        }
        other => format!("the MCP handshake with {url} failed: {other}"),
    }
}

/// A request to `subject` (an HTTP server's URL, or `server "name"`) that
/// got no answer, or an error, in a person's words.
pub(super) fn service_failure(subject: &str, error: &rmcp::ServiceError) -> String {
    use rmcp::ServiceError;
    match error {
        ServiceError::McpError(error) => format!(
            "{subject} answered with error {}: {}",
            error.code.0, error.message
        ),
        ServiceError::TransportSend(error) => transport_failure(subject, &*error.error),
        ServiceError::TransportClosed => format!("{subject} closed the connection"),
        ServiceError::Timeout { timeout } => {
            format!("{subject} did not answer within {}s", timeout.as_secs())
        }
        other => format!("the request to {subject} failed: {other}"),
    }
}

/// A transport failure talking to `subject`: for streamable HTTP what went
/// wrong and what to do, never the transport's type names.
fn transport_failure(
    subject: &str,
    error: &(dyn std::error::Error + Send + Sync + 'static),
) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let Some(http) = error.downcast_ref::<StreamableHttpError<reqwest::Error>>() else {
        return format!("the connection to {subject} failed: {error}");
    };
    let url = subject;
    match http {
        StreamableHttpError::Client(error) => request_failure(url, error),
        StreamableHttpError::Io(error) => io_failure(url, error),
        StreamableHttpError::HttpStatus(status) => format!(
            "{url} answered HTTP {}: the server is there but failing; try again later or look at its logs",
            status.status
        ),
        // Signing in (OAuth) is not built yet: a token the server hands out
        // by other means is the only way in.
        StreamableHttpError::AuthRequired(_) => sign_in_required(url),
        StreamableHttpError::UnexpectedServerResponse(what) if what.starts_with("HTTP 401") => {
            sign_in_required(url)
        }
        StreamableHttpError::InsufficientScope(_) => format!(
            "{url} refused the request (HTTP 403) because the sign-in lacks a permission it needs; sign in again to grant it"
        ),
        StreamableHttpError::UnexpectedServerResponse(what) => format!(
            "{url} did not answer as an MCP server ({what}); check the URL (MCP endpoints often end in /mcp)"
        ),
        StreamableHttpError::UnexpectedContentType(kind) => format!(
            "{url} answered with content type {}, not MCP; check the URL (MCP endpoints often end in /mcp)",
            kind.as_deref().unwrap_or("none")
        ),
        other => format!("the request to {url} failed: {other}"),
    }
}

fn sign_in_required(url: &str) -> String {
    format!("{url} asks for a sign-in (HTTP 401)")
}

/// When `error` is a server's 401, or a 403 asking for more scopes: `Some`
/// with its `WWW-Authenticate` header if it sent one.
pub(super) fn sign_in_challenge(
    error: &(dyn std::error::Error + Send + Sync + 'static),
) -> Option<Option<String>> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match error.downcast_ref::<StreamableHttpError<reqwest::Error>>()? {
        StreamableHttpError::AuthRequired(e) => Some(Some(e.www_authenticate_header.clone())),
        StreamableHttpError::InsufficientScope(e) => Some(Some(e.www_authenticate_header.clone())),
        StreamableHttpError::UnexpectedServerResponse(what) if what.starts_with("HTTP 401") => {
            Some(None)
        }
        _ => None,
    }
}

/// The `WWW-Authenticate` header of a 401 or 403 (`insufficient_scope`)
/// answer to a request, to sign in (again) with.
pub(super) fn request_challenge(error: &rmcp::ServiceError) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let rmcp::ServiceError::TransportSend(error) = error else {
        return None;
    };
    match error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()?
    {
        StreamableHttpError::AuthRequired(e) => Some(e.www_authenticate_header.clone()),
        StreamableHttpError::InsufficientScope(e) => Some(e.www_authenticate_header.clone()),
        _ => None,
    }
}

/// Whether a request failed with the server's 401: the sign-in the
/// connection was made with (or the lack of one) is no longer accepted.
pub(super) fn sign_in_refused(error: &rmcp::ServiceError) -> bool {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let rmcp::ServiceError::TransportSend(error) = error else {
        return false;
    };
    match error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        Some(StreamableHttpError::AuthRequired(_)) => true,
        Some(StreamableHttpError::UnexpectedServerResponse(what)) => what.starts_with("HTTP 401"),
        _ => false,
    }
}

/// Why a request to `url` did not get an answer: the innermost I/O error
/// says it best (connection refused, no such host, timed out).
fn request_failure(url: &str, error: &reqwest::Error) -> String {
    let mut source = std::error::Error::source(error);
    let mut innermost = None;
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io_failure(url, io);
        }
        innermost = Some(cause.to_string());
        source = cause.source();
    }
    if error.is_timeout() {
        return format!("{url} did not answer in time; check that the server is up");
    }
    match innermost {
        Some(cause) => format!("cannot reach {url}: {cause}"),
        None => format!("cannot reach {url}: {error}"),
    }
}

fn io_failure(url: &str, error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::ConnectionRefused => format!(
            "connection refused at {url}: nothing is listening there; start the server or correct the URL"
        ),
        std::io::ErrorKind::TimedOut => {
            format!("connecting to {url} timed out; check the address and the network")
        }
        _ => format!("cannot connect to {url}: {error}"),
    }
}
