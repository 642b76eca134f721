//! `mcp-sieve servers probe URL`: one streamable HTTP server, reached
//! exactly as the proxy reaches its upstreams, and what it offers.
//!
//! The probe puts the URL into an upstream pool of its own with
//! [`Pool::connect_once`]: the same connection (headers, handshake of
//! either protocol generation, fallback from one to the other), the same
//! listing of every page of tools, prompts, resources and templates, but no
//! reconnection, so the first failure is the answer. Nothing here talks to
//! the server by other means.
//!
//! With a [`Scenario`] (the MCP conformance suite's client runner names one
//! in `MCP_CONFORMANCE_SCENARIO`), the probe then does what that scenario
//! expects of a client (see `scenario`): calls the scenario server's tool
//! with arguments that fit its schema, answers the server's questions, and
//! so on. Those calls go through the same pool.

mod scenario;

pub use scenario::{Call, Report, Scenario};

use super::{ApiError, ErrorCode, Result};
use serde::Serialize;
use serde_json::Value;
use sieve_core::{ServerConfig, Transport};
use sieve_gateway::hosts::Hosts;
use sieve_gateway::oauth::{Credentials, SignIn, sign_in};
use sieve_gateway::upstream::{Endpoint, Handshake, Pool, State};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How long the connection and the lists may take together: the pool's
/// own limits (30 s to connect, 30 s per list page) bound each step.
const SETTLE: Duration = Duration::from_secs(90);

/// How many times the probe signs in before it takes the server's refusal
/// as the answer (a server that wants more scopes each time).
const SIGN_INS: usize = 3;

/// How long a sign-in may wait for the browser.
const SIGN_IN_WAIT: Duration = Duration::from_secs(60);

/// The server to probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The streamable HTTP endpoint, `http://` or `https://`.
    pub url: String,
    /// Sent with every request, as a server's `headers` in `config.json`.
    pub headers: BTreeMap<String, String>,
    /// The protocol revision to start with: the pool's 2025-11-25
    /// `initialize` for any before 2026-07-28, 2026-07-28 discovery from
    /// then on. The other generation is the fallback either way.
    pub protocol: Option<String>,
    /// Where MCP Sieve's Client ID Metadata Document is published, for a
    /// sign-in to an authorization server that takes those (as a server's
    /// `oauth.clientMetadataUrl` in `config.json`).
    pub client_metadata_url: Option<String>,
}

impl Target {
    /// `url` with headers given as `Name: value` lines (the command line's
    /// `--header`) and the revision to start with; a line without a colon,
    /// or a revision that is not a date, is refused, naming it.
    pub fn new(url: &str, headers: &[String], protocol: Option<&str>) -> Result<Target> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ApiError::invalid(
                "url",
                format!(
                    "{url:?} is not an http:// or https:// URL; give the server's MCP endpoint"
                ),
            ));
        }
        let parsed = super::servers::parse_headers(headers)?;
        if let Some(protocol) = protocol {
            let date = protocol.len() == 10
                && protocol.char_indices().all(|(i, c)| {
                    if i == 4 || i == 7 {
                        c == '-'
                    } else {
                        c.is_ascii_digit()
                    }
                });
            if !date {
                return Err(ApiError::invalid(
                    "protocol",
                    format!(
                        "{protocol:?} is not a protocol revision; give one like 2025-11-25 or 2026-07-28"
                    ),
                ));
            }
        }
        Ok(Target {
            url: url.to_string(),
            headers: parsed,
            protocol: protocol.map(String::from),
            client_metadata_url: None,
        })
    }

    /// The target signing in with the Client ID Metadata Document at `url`
    /// where it can; an address that cannot be a client id is refused.
    pub fn with_client_metadata_url(mut self, url: Option<&str>) -> Result<Target> {
        if let Some(url) = url {
            sieve_core::check_client_metadata_url(url).map_err(|why| {
                ApiError::invalid(
                    "client-metadata-url",
                    format!("--client-metadata-url {why}"),
                )
            })?;
        }
        self.client_metadata_url = url.map(String::from);
        Ok(self)
    }

    /// The handshake to try first.
    fn handshake(&self) -> Handshake {
        // Revisions are dates, so they order as strings.
        match &self.protocol {
            Some(revision) if revision.as_str() >= "2026-07-28" => Handshake::Discover,
            _ => Handshake::Initialize,
        }
    }
}

/// What the probe found: the `--json` output of `servers probe`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    pub url: String,
    /// The protocol version the handshake settled on.
    pub protocol_version: String,
    /// The server's name, version and whatever else it says of itself.
    pub server_info: Value,
    /// The capabilities the server declared.
    pub capabilities: Value,
    /// Tool names, as listed.
    pub tools: Vec<String>,
    /// Prompt names, as listed.
    pub prompts: Vec<String>,
    /// Resource URIs, as listed.
    pub resources: Vec<String>,
    /// Resource template URI templates, as listed.
    pub resource_templates: Vec<String>,
    /// What was done for a conformance scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Report>,
}

/// Connects to `target` as the proxy would, lists everything, does what
/// `scenario` asks if one is given, and disconnects.
pub async fn probe(target: &Target, scenario: Option<&Scenario>) -> Result<Probe> {
    let hosts = Arc::new(Hosts::default());
    // No host is connected: the person running the probe is the one asked.
    hosts.answer_locally(Arc::new(scenario::answer));
    let pool = Pool::new(hosts, Arc::new(|_: &str, _: &Value| {}));
    let server = target.url.clone();
    // A sign-in lasts as long as the probe: nothing is stored.
    let credentials = Credentials::in_memory(&server);
    pool.set_credentials(Arc::new({
        let credentials = credentials.clone();
        move |_: &str| credentials.clone()
    }));
    let mut signed_in = 0;
    let outcome = loop {
        if let Err(error) = connect(&pool, target, &credentials, scenario, &mut signed_in).await {
            break Err(error);
        }
        let found = examine(&pool, &server, scenario).await;
        // A call refused for want of a scope (403) or a sign-in (401) is
        // signed in for again and the scenario done once more (step-up).
        let challenge = pool.statuses().remove(&server).and_then(|s| s.challenge);
        let refused = found
            .as_ref()
            .ok()
            .and_then(|f| f.scenario.as_ref())
            .is_some_and(|report| report.failed().next().is_some());
        match challenge {
            Some(challenge) if refused && signed_in < SIGN_INS => {
                signed_in += 1;
                if let Err(error) =
                    sign_in_for(target, &credentials, scenario, Some(challenge)).await
                {
                    break Err(error);
                }
            }
            _ => break found,
        }
    };
    pool.shutdown().await;
    outcome
}

/// Signs in to the probed server: the authorization URL is opened as
/// every sign-in page is ([`crate::login::open_sign_in_page`]), else
/// goes to stderr for the person running the probe.
async fn sign_in_for(
    target: &Target,
    credentials: &Credentials,
    scenario: Option<&Scenario>,
    challenge: Option<String>,
) -> Result<()> {
    let open = |url: &str| {
        if !crate::login::open_sign_in_page(url) {
            eprintln!("Open this address in your browser to sign in:\n\n  {url}\n");
        }
    };
    let mut client = scenario.map(Scenario::client).unwrap_or_default();
    client.metadata_url = target.client_metadata_url.clone();
    sign_in(SignIn {
        url: &target.url,
        client,
        challenge,
        credentials: credentials.clone(),
        open: &open,
        wait: SIGN_IN_WAIT,
    })
    .await
    .map_err(|why| ApiError::new(ErrorCode::Upstream, why))
}

/// Connects (the proxy's connection and lists), signing in when the server
/// asks for it: a 401 at the handshake or at a list, or a 403 asking for
/// more scopes; at most [`SIGN_INS`] times.
async fn connect(
    pool: &Pool,
    target: &Target,
    credentials: &Credentials,
    scenario: Option<&Scenario>,
    signed_in: &mut usize,
) -> Result<()> {
    let server = &target.url;
    loop {
        pool.connect_once(
            server,
            Endpoint::Configured(Box::new(ServerConfig {
                transport: Transport::Http {
                    url: target.url.clone(),
                    headers: target.headers.clone(),
                    oauth: None,
                },
                disabled: false,
                roots: Default::default(),
                origin: None,
            })),
            target.handshake(),
        );
        pool.settled(SETTLE).await;
        let status = pool
            .statuses()
            .remove(server)
            .expect("the probed server is in its pool");
        let wants_sign_in = match status.state {
            State::NeedsLogin => true,
            State::Up => status.list_error.is_some() && status.challenge.is_some(),
            _ => false,
        };
        if !wants_sign_in || *signed_in == SIGN_INS {
            return Ok(());
        }
        *signed_in += 1;
        sign_in_for(target, credentials, scenario, status.challenge).await?;
    }
}

async fn examine(pool: &Pool, server: &str, scenario: Option<&Scenario>) -> Result<Probe> {
    pool.settled(SETTLE).await;
    let status = pool
        .statuses()
        .remove(server)
        .expect("the probed server is in its pool");
    match status.state {
        // Connected, but what it offers could not be read (a sign-in
        // wanted for the lists, say): the probe has not found out.
        State::Up if status.list_error.is_some() => {
            let why = status.list_error.unwrap_or_default();
            return Err(ApiError::new(ErrorCode::Upstream, why));
        }
        State::Up => {}
        State::Down | State::NeedsLogin => {
            let why = status
                .error
                .unwrap_or_else(|| "the connection ended".to_string());
            return Err(ApiError::new(ErrorCode::Upstream, why));
        }
        _ => {
            return Err(ApiError::new(
                ErrorCode::Upstream,
                format!(
                    "{server} did not finish the MCP handshake and lists within {}s; check that the server is up",
                    SETTLE.as_secs()
                ),
            ));
        }
    }
    let listing = pool
        .listings()
        .into_iter()
        .find(|l| l.server == server)
        .unwrap_or_default();
    let capabilities = pool
        .peer(server)
        .ok()
        .and_then(|peer| peer.peer_info())
        .and_then(|info| serde_json::to_value(&info.capabilities).ok())
        .unwrap_or_default();
    let names = |items: &[Value], key: &str| -> Vec<String> {
        items
            .iter()
            .filter_map(|item| item.get(key).and_then(Value::as_str))
            .map(String::from)
            .collect()
    };
    let scenario = match scenario {
        Some(scenario) => Some(scenario.run(pool, server, &listing).await?),
        None => None,
    };
    Ok(Probe {
        url: server.to_string(),
        protocol_version: status.protocol_version.unwrap_or_default(),
        server_info: status.server_info.unwrap_or_default(),
        capabilities,
        tools: names(&listing.tools, "name"),
        prompts: names(&listing.prompts, "name"),
        resources: names(&listing.resources, "uri"),
        resource_templates: names(&listing.resource_templates, "uriTemplate"),
        scenario,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::sync::CancellationToken;

    /// The demo server over streamable HTTP in this process, until `stop`.
    async fn demo(stop: &CancellationToken) -> String {
        let demo = sieve_demo::DemoServer::new();
        let bound = sieve_gateway::serve::serve_handler_http(
            "127.0.0.1:0".parse().unwrap(),
            move || demo.clone(),
            stop.clone().cancelled_owned(),
        )
        .await
        .expect("the demo serves");
        format!("http://{bound}/mcp")
    }

    #[tokio::test]
    async fn either_handshake_finds_the_same_things() {
        let stop = CancellationToken::new();
        let url = demo(&stop).await;
        let legacy = probe(&Target::new(&url, &[], None).unwrap(), None)
            .await
            .expect("the demo answers");
        assert_eq!(legacy.protocol_version, "2025-11-25");
        assert_eq!(legacy.server_info["name"], "sieve-demo");
        assert!(
            legacy.tools.iter().any(|t| t == "echo"),
            "{:?}",
            legacy.tools
        );
        let modern = probe(&Target::new(&url, &[], Some("2026-07-28")).unwrap(), None)
            .await
            .expect("the demo answers discovery too");
        assert_eq!(modern.protocol_version, "2026-07-28");
        assert_eq!(modern.tools, legacy.tools);
        assert_eq!(modern.prompts, legacy.prompts);
        assert_eq!(modern.resources, legacy.resources);
        stop.cancel();
    }

    #[tokio::test]
    async fn a_server_that_is_not_there_is_one_sentence() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let error = probe(&Target::new(&url, &[], None).unwrap(), None)
            .await
            .expect_err("nothing listens there");
        assert_eq!(error.code, ErrorCode::Upstream);
        assert!(
            error
                .message
                .starts_with(&format!("connection refused at {url}")),
            "{}",
            error.message
        );
    }

    #[test]
    fn targets_are_checked() {
        let target = Target::new(
            "https://example.com/mcp",
            &["X-Key:  secret ".to_string()],
            Some("2025-06-18"),
        )
        .unwrap();
        assert_eq!(target.headers["X-Key"], "secret", "trimmed");
        assert_eq!(target.handshake(), Handshake::Initialize);
        let modern = Target::new("http://h/mcp", &[], Some("2026-07-28")).unwrap();
        assert_eq!(modern.handshake(), Handshake::Discover);
        let document = modern
            .clone()
            .with_client_metadata_url(Some("https://sieve.test/client.json"))
            .unwrap();
        assert_eq!(
            document.client_metadata_url.as_deref(),
            Some("https://sieve.test/client.json")
        );
        let error = modern
            .with_client_metadata_url(Some("https://sieve.test"))
            .unwrap_err();
        assert_eq!(
            error.field.as_deref(),
            Some("client-metadata-url"),
            "{}",
            error.message
        );
        for (url, header, protocol, field) in [
            ("localhost:3000/mcp", None, None, "url"),
            ("http://h/mcp", Some(": value"), None, "header"),
            ("http://h/mcp", None, Some("2026"), "protocol"),
        ] {
            let headers: Vec<String> = header.into_iter().map(String::from).collect();
            let error = Target::new(url, &headers, protocol).unwrap_err();
            assert_eq!(error.field.as_deref(), Some(field), "{}", error.message);
        }
    }
}
