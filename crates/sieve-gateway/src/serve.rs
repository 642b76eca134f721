//! Serving hosts: over stdio (one host, one profile) or streamable HTTP
//! (`/mcp` for the active profile, `/mcp/p/<profile>` for any profile by name).
//!
//! The HTTP front binds where it is told (loopback by default), refuses
//! requests without the user's bearer token (401) and requests from a web
//! page of another origin (403, DNS-rebinding protection as the spec asks),
//! and refuses a body over `settings.maxMessageBytes` (413); then the
//! proxy's own message layer serves it ([`crate::front::http`]).
//!
//! Before a request is served, its endpoint's profile is put in force:
//! from then on an edit of that profile is announced to the endpoint's
//! listeners (the engine reloads only profiles in use, and a listener is
//! acknowledged before it reads its profile). An endpoint whose profile
//! does not exist answers 404, one whose profile cannot be used 500, each
//! with a sentence saying why, rather than accepting a connection on which
//! every request would fail.

use crate::engine::Engine;
use crate::front::http::HttpFront;
use crate::identity::{self, Person, Refusal, SignedIn, Verifier};
pub use crate::server::ProfileChoice;
use crate::server::{EndpointProfile, SieveServer, unusable_profile};
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sieve_core::profile::is_valid_profile_name;
use sieve_store::store::StoreError;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Serves one host on this process's stdin/stdout under `profile` until the
/// host leaves or `shutdown` resolves.
pub async fn serve_stdio(
    engine: Arc<Engine>,
    profile: ProfileChoice,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let limit = usize::try_from(engine.config().settings.max_message_bytes).unwrap_or(usize::MAX);
    let server = SieveServer::stdio(engine, profile);
    let (stdin, stdout) = sieve_demo::stdio::pipes();
    crate::front::serve_lines(server, stdin, stdout, limit, shutdown).await
}

/// Serves streamable HTTP at `addr` until `shutdown` resolves; returns the
/// bound address (bind port 0 for a free one). Every request needs
/// `Authorization: Bearer <token>`.
pub async fn serve_http(
    engine: Arc<Engine>,
    addr: SocketAddr,
    token: String,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<SocketAddr> {
    let sessions = CancellationToken::new();
    let front = HttpFront::new(engine.clone(), sessions.child_token());
    let endpoint = axum::routing::any(move |request: Request| {
        let front = front.clone();
        async move { front.serve(request).await }
    });
    let token: Arc<str> = token.into();
    let verifier = Arc::new(Verifier::new());
    let metadata_engine = engine.clone();
    let metadata = axum::routing::get(move || {
        let engine = metadata_engine.clone();
        async move { protected_resource(&engine) }
    });
    let router = axum::Router::new()
        .route("/mcp", endpoint.clone())
        .route("/mcp/p/{profile}", endpoint)
        .layer(axum::middleware::from_fn(
            move |request: Request, next: Next| {
                let token = token.clone();
                let engine = engine.clone();
                let verifier = verifier.clone();
                async move { guard(request, next, &engine, &token, &verifier).await }
            },
        ))
        // Read before signing in: no token, and nothing secret in it.
        .route("/.well-known/oauth-protected-resource", metadata.clone())
        .route("/.well-known/oauth-protected-resource/{*path}", metadata);
    run_router(addr, router, sessions, shutdown).await
}

/// Serves `make()`'s MCP server as it is at `http://ADDR/mcp`, without
/// token or profiles: how `mcp-sieve demo-server --http` serves the demo
/// (rmcp's own streamable HTTP service, as any server of rmcp's serves).
pub async fn serve_handler_http<S: ServerHandler + Send + 'static>(
    addr: SocketAddr,
    make: impl Fn() -> S + Send + Sync + 'static,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<SocketAddr> {
    let sessions = CancellationToken::new();
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(sessions.child_token());
    let service = StreamableHttpService::new(
        move || Ok(make()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().route_service("/mcp", service);
    run_router(addr, router, sessions, shutdown).await
}

/// Binds `addr` and serves `router` in the background until `shutdown`
/// resolves; then `sessions` is cancelled, since graceful shutdown would
/// otherwise wait on open SSE streams forever.
async fn run_router(
    addr: SocketAddr,
    router: axum::Router,
    sessions: CancellationToken,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr()?;
    // Every answer goes out at once: without TCP_NODELAY a response written
    // in pieces (headers, then an SSE event) waits for the client's delayed
    // ACK of the first piece, some 40 ms on a kept-alive connection.
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY could not be set on a connection: {error}");
        }
    });
    tokio::spawn(async move {
        let stop = async move {
            shutdown.await;
            sessions.cancel();
        };
        if let Err(error) = axum::serve(listener, router)
            .with_graceful_shutdown(stop)
            .await
        {
            tracing::error!("the HTTP server at {bound} stopped: {error}");
        }
    });
    Ok(bound)
}

fn refuse(status: StatusCode, message: &str) -> Response {
    let mut response = (status, format!("{message}\n")).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// The protected resource metadata (RFC 9728) of a gateway that takes
/// its team's sign-ins; 404 without `settings.identity`.
fn protected_resource(engine: &Engine) -> Response {
    match &engine.config().settings.identity {
        Some(identity) => (
            [(header::CONTENT_TYPE, "application/json")],
            identity::metadata(identity).to_string(),
        )
            .into_response(),
        None => refuse(
            StatusCode::NOT_FOUND,
            "this gateway takes no sign-ins from an identity provider (settings.identity is not set)",
        ),
    }
}

/// Who sends `headers`: `Ok(None)` for the static token, `Ok(Some)` for a
/// person the team's identity provider signed in, or the refusal.
async fn caller(
    headers: &HeaderMap,
    token: &str,
    engine: &Engine,
    verifier: &Verifier,
) -> Result<Option<Person>, Response> {
    if has_token(headers, token) {
        return Ok(None);
    }
    let config = engine.config();
    let Some(identity) = &config.settings.identity else {
        return Err(refuse(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token; `mcp-sieve serve --print-token` prints it",
        ));
    };
    let Some(given) = bearer(headers) else {
        let mut response = refuse(
            StatusCode::UNAUTHORIZED,
            &format!(
                "sign in through {} (the host finds where in this gateway's protected resource metadata), or send the gateway's token",
                identity.issuer
            ),
        );
        set_challenge(&mut response, &identity::challenge(identity, None));
        return Err(response);
    };
    verifier
        .verify(identity, given)
        .await
        .map(Some)
        .map_err(|refusal| {
            let status = match refusal {
                Refusal::Invalid(_) => StatusCode::UNAUTHORIZED,
                Refusal::Scope(_) | Refusal::NoProfile(_) => StatusCode::FORBIDDEN,
                Refusal::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            };
            if status == StatusCode::SERVICE_UNAVAILABLE {
                tracing::warn!("{refusal}");
            }
            let mut response = refuse(status, &refusal.to_string());
            if matches!(refusal, Refusal::Invalid(_) | Refusal::Scope(_)) {
                set_challenge(
                    &mut response,
                    &identity::challenge(identity, Some(&refusal)),
                );
            }
            response
        })
}

fn set_challenge(response: &mut Response, challenge: &str) {
    if let Ok(value) = header::HeaderValue::from_str(challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
}

/// Origin, token and endpoint checks, the endpoint's profile put in force,
/// then the raw body for the server.
async fn guard(
    request: Request,
    next: Next,
    engine: &Engine,
    token: &str,
    verifier: &Verifier,
) -> Response {
    let headers = request.headers();
    if let Some(origin) = headers.get(header::ORIGIN)
        && !is_local_origin(origin.to_str().unwrap_or(""))
    {
        return refuse(
            StatusCode::FORBIDDEN,
            "requests from web pages of other origins are refused (DNS-rebinding protection)",
        );
    }
    let person = match caller(headers, token, engine, verifier).await {
        Ok(person) => person,
        Err(refusal) => return refusal,
    };
    let choice = match (request.uri().path().strip_prefix("/mcp/p/"), &person) {
        // A person's claim chooses their profile, whatever the path.
        (None, Some(person)) => ProfileChoice::Named(person.profile.clone()),
        (Some(name), Some(person)) if *name == person.profile => {
            ProfileChoice::Named(person.profile.clone())
        }
        (Some(name), Some(person)) => {
            return refuse(
                StatusCode::FORBIDDEN,
                &format!(
                    "{} is signed in with profile {:?}, not {name:?}; connect to /mcp",
                    person.label(),
                    person.profile
                ),
            );
        }
        (None, None) => ProfileChoice::Active,
        (Some(name), None) if is_valid_profile_name(name) => ProfileChoice::Named(name.to_string()),
        (Some(name), None) => {
            return refuse(
                StatusCode::NOT_FOUND,
                &format!("{name:?} cannot name a profile"),
            );
        }
    };
    let profile = choice.resolve(engine);
    if let Some(refusal) = put_in_force(engine, &profile) {
        return refusal;
    }
    let (mut parts, body) = request.into_parts();
    parts.extensions.insert(EndpointProfile(choice));
    if let Some(person) = person {
        parts.extensions.insert(SignedIn(Arc::new(person)));
    }
    let limit = engine.config().settings.max_message_bytes;
    let bytes = match axum::body::to_bytes(body, usize::try_from(limit).unwrap_or(usize::MAX)).await
    {
        Ok(bytes) => bytes,
        Err(_) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "the request body is over {limit} bytes (settings.maxMessageBytes in config.json)"
                ),
            );
        }
    };
    let body = Body::from(bytes);
    next.run(Request::from_parts(parts, body)).await
}

/// Puts profile `name` in force for its endpoint, or says why the request
/// is refused: 404 when there is no such profile (a client stops there,
/// and no session can be open on it, since opening one puts the profile in
/// force), 500 when its file cannot be used (a person must fix it; 503
/// would invite clients to retry on their own while nothing changes).
fn put_in_force(engine: &Engine, name: &str) -> Option<Response> {
    let refusal = match engine.profile(name).err()? {
        StoreError::NoProfile { .. } => refuse(
            StatusCode::NOT_FOUND,
            &format!(
                "there is no profile {name:?}; create it with `mcp-sieve profiles new {name}`"
            ),
        ),
        error => refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            &unusable_profile(name, &error),
        ),
    };
    Some(refusal)
}

/// The bearer token of a request, if it sends one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// Constant-time comparison of the bearer token.
fn has_token(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = bearer(headers) else {
        return false;
    };
    // `subtle` compares every byte whatever the first difference (a
    // length difference shows, which says nothing of the token).
    use subtle::ConstantTimeEq;
    bool::from(given.trim().as_bytes().ct_eq(token.as_bytes()))
}

/// Origins of this machine: a local tool or the desktop app, not a web page.
fn is_local_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if scheme == "tauri" {
        return rest == "localhost";
    }
    // An origin is scheme, host and port: one with a path is no origin.
    (scheme == "http" || scheme == "https")
        && !rest.contains('/')
        && sieve_core::naming::is_loopback_authority(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn serves_a_handler_over_streamable_http_on_a_free_port() {
        use rmcp::ServiceExt;
        use rmcp::model::CallToolRequestParams;
        let wait = std::time::Duration::from_secs(10);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let addr = serve_handler_http(
            "127.0.0.1:0".parse().expect("address"),
            sieve_demo::DemoServer::new,
            async {
                let _ = stopped.await;
            },
        )
        .await
        .expect("the server binds");
        let transport =
            rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
        let client = tokio::time::timeout(wait, ().serve(transport))
            .await
            .expect("connects in time")
            .expect("initialize over HTTP succeeds");
        let tools = client.list_all_tools().await.expect("tools/list over HTTP");
        assert_eq!(tools.len(), 40, "the demo's catalog over HTTP");
        let arguments = serde_json::json!({"text": "hi"});
        let echoed = client
            .call_tool(
                CallToolRequestParams::new("echo")
                    .with_arguments(arguments.as_object().cloned().expect("object")),
            )
            .await
            .expect("tools/call over HTTP");
        assert_eq!(echoed.structured_content.expect("structured")["text"], "hi");
        client.cancel().await.expect("client closes");
        let _ = stop.send(());
    }

    #[test]
    fn local_origins() {
        for ok in [
            "http://localhost",
            "http://localhost:5173",
            "http://127.0.0.1:8080",
            "http://[::1]:3000",
            "tauri://localhost",
            "https://localhost",
        ] {
            assert!(is_local_origin(ok), "{ok}");
        }
        for bad in [
            "http://evil.test",
            "http://localhost.evil.test",
            "http://127.0.0.1.nip.io",
            "null",
            "file://",
            "http://10.0.0.1",
            "http://localhost/evil",
        ] {
            assert!(!is_local_origin(bad), "{bad}");
        }
    }

    #[test]
    fn tokens_compare_exactly() {
        let mut headers = HeaderMap::new();
        assert!(!has_token(&headers, "abc"));
        headers.insert(header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert!(has_token(&headers, "abc"));
        assert!(!has_token(&headers, "abd"));
        assert!(!has_token(&headers, "abcd"));
        headers.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert!(!has_token(&headers, "abc"));
    }
}
