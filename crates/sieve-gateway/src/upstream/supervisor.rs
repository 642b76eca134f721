//! Keeping one server connected and listed: the supervisor connects,
//! lists tools, prompts, resources and templates (every page), refreshes
//! them on `list_changed` (on a `subscriptions/listen` stream for a
//! 2026-07-28 server), and reconnects with exponential backoff when the
//! connection ends, the server staying down with its last error (and when
//! it tries next) until a connection works. A server that wants a
//! sign-in waits for one instead: woken by
//! [`super::Pool::retry_sign_ins`] (a config or `secrets.json` change),
//! else it looks every 30 s.

use super::connect::{
    Connection, Refusal, connect, request_challenge, service_failure, sign_in_unattended,
};
use super::{ListKind, PoolEvent, PoolInner, State, Status, Upstream, request_raw};
use crate::hosts::Hosts;
use crate::sync::Locked;
use crate::tap::{RawLog, list_method, typed_message};
use rmcp::RoleClient;
use rmcp::model::{ClientRequest, ServerNotification};
use rmcp::service::{Peer, PeerRequestOptions};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long one list request may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);
/// First and longest wait between reconnection attempts.
const BACKOFF_MIN: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A connection that lived this long resets the backoff.
const STABLE_AFTER: Duration = Duration::from_secs(30);
/// How often a server that wants a sign-in looks for one stored by another
/// process (`mcp-sieve servers login` while the proxy runs); a sign-in
/// stored through this process's pool wakes it at once.
const SIGN_IN_POLL: Duration = Duration::from_secs(30);

/// Keeps one server connected for as long as it is in the pool.
pub(super) async fn supervise(up: Arc<Upstream>, pool: Arc<PoolInner>) {
    let mut backoff = BACKOFF_MIN;
    // Whether the last sign-in was made here, with no person (a service
    // account's): if the server refuses its tokens too, it waits as
    // needs-login rather than getting new ones in a loop.
    let mut signed_in_here = false;
    loop {
        // A server that is down stays down, with its error, while it is
        // tried again: only a connection that works says otherwise.
        if up.shared().status.state != State::Down {
            set_state(&up, &pool, State::Connecting, None);
        }
        let attempt = tokio::select! {
            () = up.stop.cancelled() => break,
            attempt = connect(&up, &pool) => attempt,
        };
        match attempt {
            Ok((connection, refresh)) => {
                signed_in_here = false;
                let started = Instant::now();
                let ended = run_connection(&up, &pool, connection, refresh).await;
                if up.stop.is_cancelled() {
                    break;
                }
                if started.elapsed() >= STABLE_AFTER {
                    backoff = BACKOFF_MIN;
                }
                set_down(&up, &pool, ended, backoff);
            }
            Err(Refusal::SignIn { why, challenge }) => {
                let mut why = why;
                if !signed_in_here {
                    match sign_in_unattended(&up, &pool, challenge.clone()).await {
                        Ok(true) => {
                            signed_in_here = true;
                            continue;
                        }
                        Ok(false) => {}
                        Err(refused) => why = refused.to_string(),
                    }
                } else {
                    why = format!(
                        "{} refused the token its client's own credentials got ({why})",
                        up.name
                    );
                }
                let why = format!("{why}; sign in with `mcp-sieve servers login {}`", up.name);
                if let (Some(challenge), Some(credentials)) = (&challenge, credentials(&up, &pool))
                    && let Err(why) = credentials.remember_challenge(challenge).await
                {
                    tracing::warn!("server {:?}: {why}", up.name);
                }
                // Before the state is told, so whoever looks has it.
                up.shared().status.challenge = challenge;
                set_state(&up, &pool, State::NeedsLogin, Some(why));
                if !up.reconnect {
                    return;
                }
                // Not retried in a loop: only once there is a sign-in, or,
                // for a service account, on every look.
                loop {
                    let looked = tokio::select! {
                        () = up.stop.cancelled() => {
                            set_state(&up, &pool, State::Stopped, None);
                            return;
                        }
                        () = tokio::time::sleep(SIGN_IN_POLL) => true,
                        () = pool.signed_in.notified() => false,
                    };
                    if (looked && up.signs_in_unattended()) || has_sign_in(&up, &pool).await {
                        break;
                    }
                }
                signed_in_here = false;
                backoff = BACKOFF_MIN;
                continue;
            }
            Err(error) => set_down(&up, &pool, error.to_string(), backoff),
        }
        if !up.reconnect {
            // Down with its reason is this connection's answer.
            return;
        }
        tracing::info!("server {:?}: reconnecting in {backoff:?}", up.name);
        tokio::select! {
            () = up.stop.cancelled() => break,
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
    set_state(&up, &pool, State::Stopped, None);
}

/// Where `up`'s sign-in is kept, if sign-ins are kept.
fn credentials(up: &Upstream, pool: &PoolInner) -> Option<crate::oauth::Credentials> {
    pool.credentials.locked().as_ref().map(|f| f(&up.name))
}

/// Whether a sign-in to `up` is stored now.
async fn has_sign_in(up: &Upstream, pool: &PoolInner) -> bool {
    match credentials(up, pool) {
        Some(credentials) => credentials.signed_in().await,
        None => false,
    }
}

/// Marks `up` down because of `why`, to be tried again after `backoff`
/// (if it is tried again at all).
fn set_down(up: &Upstream, pool: &PoolInner, why: String, backoff: Duration) {
    let retry_at = up
        .reconnect
        .then(|| crate::clock::now_ms() + backoff.as_millis() as i64);
    set_status(up, pool, State::Down, Some(why), retry_at);
}

fn set_state(up: &Upstream, pool: &PoolInner, state: State, error: Option<String>) {
    set_status(up, pool, state, error, None);
}

fn set_status(
    up: &Upstream,
    pool: &PoolInner,
    state: State,
    error: Option<String>,
    retry_at: Option<i64>,
) {
    {
        let mut shared = up.shared();
        if state != State::Up {
            shared.peer = None;
            shared.lane = None;
        }
        if matches!(state, State::Down | State::NeedsLogin) {
            shared.settled = true;
        }
        let keep = shared.status.clone();
        shared.status = Status {
            error: error.clone(),
            // Counts describe the last listing, which is kept while down.
            tools: keep.tools,
            prompts: keep.prompts,
            resources: keep.resources,
            protocol_version: if state == State::Up {
                keep.protocol_version
            } else {
                None
            },
            server_info: keep.server_info,
            // What to sign in with, until a newer refusal says otherwise.
            challenge: keep.challenge,
            retry_at,
            // Down since it first went down, not since its last attempt.
            since: if keep.state == state {
                keep.since
            } else {
                crate::clock::now_ms()
            },
            ..Status::new(state)
        };
    }
    match &error {
        Some(error) => tracing::warn!("server {:?} is {}: {error}", up.name, state.as_str()),
        None => tracing::info!("server {:?} is {}", up.name, state.as_str()),
    }
    pool.emit(PoolEvent::Status {
        server: up.name.clone(),
    });
}

/// How long before a service account's token runs out a new one is got:
/// more than rmcp's 30 s, after which it would stop sending the token.
const RENEW_BEFORE: Duration = Duration::from_secs(60);

/// The least time between two renewals, for tokens that live less than
/// [`RENEW_BEFORE`].
const RENEW_AT_MOST_EVERY: Duration = Duration::from_secs(5);

/// For a service account (`"grant": "clientCredentials"`), gets a new token
/// before the kept one runs out, for as long as the connection lasts: rmcp
/// reads the token from the store for every request, so the connection
/// goes on with the new one and no call meets an expired token. (A
/// person's sign-in is refreshed by rmcp with its refresh token.) Never
/// ends; a failed renewal is tried again after [`SIGN_IN_POLL`].
async fn renew_tokens(up: &Upstream, pool: &PoolInner) {
    let Some(credentials) = credentials(up, pool).filter(|_| up.signs_in_unattended()) else {
        return std::future::pending().await;
    };
    loop {
        let Some(left) = credentials.token_left().await else {
            // The server did not say how long its tokens live.
            return std::future::pending().await;
        };
        tokio::time::sleep(left.saturating_sub(RENEW_BEFORE).max(RENEW_AT_MOST_EVERY)).await;
        match sign_in_unattended(up, pool, None).await {
            Ok(_) => tracing::info!(
                "server {:?}: got a new token for its service account",
                up.name
            ),
            Err(why) => {
                tracing::warn!(
                    "server {:?}: a new token could not be got ({why}); trying again",
                    up.name
                );
                tokio::time::sleep(SIGN_IN_POLL).await;
            }
        }
    }
}

/// Serves one connection until it ends or the server is stopped; returns
/// why it ended.
async fn run_connection(
    up: &Upstream,
    pool: &PoolInner,
    connection: Connection,
    mut refresh: mpsc::UnboundedReceiver<ListKind>,
) -> String {
    let Connection {
        service,
        raw,
        mut child,
        lane,
    } = connection;
    let peer = service.peer().clone();
    let info = peer.peer_info();
    {
        let mut shared = up.shared();
        shared.peer = Some(peer.clone());
        shared.raw = Some(raw.clone());
        shared.lane = lane.clone();
        shared.list_errors.clear();
        shared.status.protocol_version = info.as_ref().map(|i| i.protocol_version.to_string());
        shared.status.server_info = info
            .as_ref()
            .and_then(|i| serde_json::to_value(&i.server_info).ok());
    }
    // A 2026-07-28 server reads who the client is from each request.
    if let (Some(lane), Some(info)) = (&lane, &info)
        && !info.protocol_version.has_initialize()
    {
        let client = rmcp::ClientHandler::get_info(service.service());
        let meta = rmcp::model::RequestMetaObject::with_client_context(
            info.protocol_version.clone(),
            client.client_info,
            client.capabilities,
        );
        if let Ok(serde_json::Value::Object(meta)) = serde_json::to_value(meta) {
            lane.stamp_each_request(meta);
        }
    }
    set_state(up, pool, State::Up, None);
    for kind in [ListKind::Tools, ListKind::Prompts, ListKind::Resources] {
        refresh_list(up, pool, &peer, &raw, kind).await;
    }
    // A 2026-07-28 server sends list changes only on a subscription.
    if info
        .as_ref()
        .is_some_and(|i| !i.protocol_version.has_initialize())
    {
        listen_for_changes(
            up.name.clone(),
            peer.clone(),
            service.service().refresh.clone(),
            pool.hosts.clone(),
        );
    }
    // Settled once its lists are in, so one-shot commands see them.
    up.shared().settled = true;
    pool.emit(PoolEvent::Status {
        server: up.name.clone(),
    });
    let cancel = service.cancellation_token();
    let refused = CancellationToken::new();
    up.shared().connection = Some(refused.clone());
    let mut ended = tokio::spawn(service.waiting());
    let renewals = renew_tokens(up, pool);
    tokio::pin!(renewals);
    let reason = loop {
        tokio::select! {
            () = &mut renewals => {}
            () = up.stop.cancelled() => {
                cancel.cancel();
                let _ = (&mut ended).await;
                break "stopped".to_string();
            }
            () = refused.cancelled() => {
                cancel.cancel();
                let _ = (&mut ended).await;
                let why = up.shared().ended_because.take();
                break why.unwrap_or_else(|| "the server refused its sign-in".into());
            }
            result = &mut ended => {
                break match result {
                    Ok(reason) => format!("connection closed ({reason:?})"),
                    Err(error) => format!("connection task failed: {error}"),
                };
            }
            Some(kind) = refresh.recv() => {
                refresh_list(up, pool, &peer, &raw, kind).await;
            }
        }
    };
    {
        let mut shared = up.shared();
        shared.connection = None;
        shared.ended_because = None;
    }
    match child.take() {
        Some(child) => {
            let exit = child.stop().await;
            if reason == "stopped" { reason } else { exit }
        }
        None => reason,
    }
}

/// Opens a `subscriptions/listen` stream on a 2026-07-28 server and turns
/// what it sends into refreshes (and resource updates for the hosts),
/// until the connection ends.
fn listen_for_changes(
    server: String,
    peer: Peer<RoleClient>,
    refresh: mpsc::UnboundedSender<ListKind>,
    hosts: Arc<Hosts>,
) {
    tokio::spawn(async move {
        let filter = rmcp::model::SubscriptionFilter::builder()
            .tools_list_changed()
            .prompts_list_changed()
            .resources_list_changed()
            .build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::warn!(
                    "server {server:?} would not let us listen for list changes: {error}"
                );
                return;
            }
        };
        while let Ok(Some(notification)) = subscription.next().await {
            let kind = match notification {
                ServerNotification::ToolListChangedNotification(_) => ListKind::Tools,
                ServerNotification::PromptListChangedNotification(_) => ListKind::Prompts,
                ServerNotification::ResourceListChangedNotification(_) => ListKind::Resources,
                ServerNotification::ResourceUpdatedNotification(update) => {
                    hosts.resource_updated(update.params);
                    continue;
                }
                _ => continue,
            };
            if refresh.send(kind).is_err() {
                return;
            }
        }
    });
}

/// Re-lists one kind and publishes the new listing.
async fn refresh_list(
    up: &Upstream,
    pool: &PoolInner,
    peer: &Peer<RoleClient>,
    raw: &RawLog,
    kind: ListKind,
) {
    let capabilities = peer
        .peer_info()
        .map(|i| i.capabilities.clone())
        .unwrap_or_default();
    let lists: &[&'static str] = match kind {
        ListKind::Tools if capabilities.tools.is_some() => &["tools/list"],
        ListKind::Prompts if capabilities.prompts.is_some() => &["prompts/list"],
        ListKind::Resources if capabilities.resources.is_some() => {
            &["resources/list", "resources/templates/list"]
        }
        _ => &[],
    };
    let mut fetched = Vec::new();
    for method in lists {
        let Some((listed, key)) = list_method(method) else {
            continue;
        };
        match list_pages(peer, raw, method, key, &up.subject()).await {
            Ok(items) => fetched.push((listed, items)),
            Err((error, challenge)) => {
                // Keep the last good list: a failed refresh is not an empty
                // one. The status says why it could not be read.
                let why = format!("{method} failed: {error}");
                tracing::warn!(server = %up.name, "{why}");
                let mut shared = up.shared();
                shared.list_errors.insert(*method, why);
                shared.status.list_error = shared.list_errors.values().next().cloned();
                if challenge.is_some() {
                    shared.status.challenge = challenge;
                }
                drop(shared);
                pool.emit(PoolEvent::Status {
                    server: up.name.clone(),
                });
                return;
            }
        }
    }
    {
        let mut shared = up.shared();
        for method in lists {
            shared.list_errors.remove(method);
        }
        shared.status.list_error = shared.list_errors.values().next().cloned();
        for (listed, items) in fetched {
            if let Some(list) = shared.listing.items_mut(listed) {
                *list = items;
            }
        }
        shared.status.tools = shared.listing.tools.len();
        shared.status.prompts = shared.listing.prompts.len();
        shared.status.resources = shared.listing.resources.len();
    }
    pool.emit(PoolEvent::Listing {
        server: up.name.clone(),
    });
}

/// All pages of one list method, as the raw JSON the server sent.
async fn list_pages(
    peer: &Peer<RoleClient>,
    raw: &RawLog,
    method: &str,
    key: &str,
    subject: &str,
) -> Result<Vec<Value>, (String, Option<String>)> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    // A server that keeps returning cursors must not hold us forever.
    for _ in 0..1000 {
        let params = match &cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let request: ClientRequest = typed_message(method, params)
            .map_err(|e| (format!("cannot build {method}: {e}"), None))?;
        let mut options = PeerRequestOptions::no_options();
        options.timeout = Some(LIST_TIMEOUT);
        let result = request_raw(peer, Some(raw), request, options)
            .await
            .map_err(|e| (service_failure(subject, &e), request_challenge(&e)))?;
        if let Some(Value::Array(page)) = result.get(key) {
            items.extend(page.iter().cloned());
        }
        cursor = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(String::from);
        if cursor.is_none() {
            return Ok(items);
        }
    }
    Err((format!("{subject} returned more than 1000 pages"), None))
}
