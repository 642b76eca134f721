//! Connecting to a server: start the child, dial the URL (with the
//! configured HTTP headers) or open the in-memory pipe, then the MCP
//! handshake of either protocol generation.

use super::child::ChildProcess;
use super::handler::UpstreamHandler;
use super::{Endpoint, Handshake, ListKind, PoolInner, Upstream};
use crate::sync::Locked;
use crate::tap::{Keep, LineTap, RawLog};
use rmcp::RoleClient;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
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
) -> Result<(Connection, mpsc::UnboundedReceiver<ListKind>), String> {
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
            attempt(up, pool, handler, then)
                .await
                .map_err(|e| format!("{}; and with {}: {}", error, then.describe(), e.message()))?
        }
        other => other.map_err(|e| e.message().to_string())?,
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

/// Why a connection attempt failed.
enum Refusal {
    /// The server answered the handshake with a JSON-RPC error: it is there
    /// but may want the other protocol generation.
    Answered(String),
    /// Anything else: it could not be started or reached, or it went away.
    Failed(String),
}

impl Refusal {
    fn message(&self) -> &str {
        match self {
            Refusal::Answered(m) | Refusal::Failed(m) => m,
        }
    }
}

/// One connection attempt with one handshake.
async fn attempt(
    up: &Upstream,
    pool: &PoolInner,
    handler: UpstreamHandler,
    kind: Handshake,
) -> Result<Connection, Refusal> {
    let raw = RawLog::new(Keep::ListResults);
    match &up.endpoint {
        Endpoint::InProcess(serve) => {
            let (ours, theirs) = tokio::io::duplex(1 << 20);
            serve(theirs);
            let (read, write) = tokio::io::split(ours);
            let service = handshake(
                handler,
                (LineTap::new(read, raw.clone()), write),
                kind,
                pipe_failure,
            )
            .await?;
            Ok(Connection {
                service,
                raw,
                child: None,
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
                let mut child = ChildProcess::spawn(&up.name, command, args, &env, cwd.as_deref())
                    .map_err(Refusal::Failed)?;
                let (stdout, stdin) = child.pipes().map_err(Refusal::Failed)?;
                match handshake(
                    handler,
                    (LineTap::new(stdout, raw.clone()), stdin),
                    kind,
                    pipe_failure,
                )
                .await
                {
                    Ok(service) => Ok(Connection {
                        service,
                        raw,
                        child: Some(child),
                    }),
                    Err(Refusal::Answered(error)) => {
                        child.stop().await;
                        Err(Refusal::Answered(error))
                    }
                    Err(Refusal::Failed(error)) => {
                        let exit = child.stop().await;
                        Err(Refusal::Failed(format!("{error}; {exit}")))
                    }
                }
            }
            Transport::Http { url, headers } => {
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
                let transport = StreamableHttpClientTransport::from_config(config);
                let service = handshake(handler, transport, kind, |e| http_failure(url, e)).await?;
                Ok(Connection {
                    service,
                    raw,
                    child: None,
                })
            }
        },
    }
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
    use sieve_core::secret_ref::{SubstituteError, references, substitute};
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
                let value = substitute(&value, |name| match &lookup {
                    None => Err(format!("there is no secret store to read secret {name:?} from")),
                    Some(lookup) => match lookup(name)? {
                        Some(secret) => Ok(secret),
                        None => Err(format!(
                            "secret {name:?} is not stored; run `mcp-sieve servers secret {server} {key}` to store it"
                        )),
                    },
                })
                .map_err(|error| match error {
                    SubstituteError::Malformed(why) | SubstituteError::Lookup(why) => {
                        format!("{section} {key:?} of server {server:?}: {why}")
                    }
                })?;
                Ok((key, value))
            })
            .collect::<Result<BTreeMap<_, _>, String>>()
    })
    .await
    .map_err(|_| Refusal::Failed("looking up the server's secrets stopped half way".into()))?;
    resolved.map_err(Refusal::Failed)
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
        Ok(Err(error)) => Err(Refusal::Failed(describe(&error))),
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
            "{url} refused the request (HTTP 403) because the token lacks a permission it needs; use a token with more access"
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
    format!(
        "{url} asks for a sign-in (HTTP 401) and MCP Sieve cannot sign in to servers yet; if the server gives out tokens, add one as its \"Authorization: Bearer ...\" header"
    )
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
