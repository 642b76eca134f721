//! The connection's lifecycle and what it is told: the baseline taken at
//! `initialize` (2025-11-25) or before a `subscriptions/listen`
//! acknowledgement (2026-07-28), and `list_changed` for exactly the kinds
//! whose visible set changed since (by fingerprints of what it saw).

use super::SieveServer;
use crate::engine::Change;
use crate::link::{HostLink, HostNotice, HostRequest, Listening};
use crate::sync::Locked;
use rmcp::ErrorData;
use rmcp::model::{
    InitializeRequestParams, InitializeResult, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParam, ServerNotification, SubscriptionFilter,
};
use serde_json::json;
use sieve_core::{Catalog, Kind, Narrowing};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Weak};

/// Hashes of what a connection sees, per list method, and the catalog
/// they were last taken from.
#[derive(Debug, Clone, Default)]
pub(super) struct Fingerprints {
    tools: u64,
    prompts: u64,
    resources: u64,
    templates: u64,
    /// A `Weak` keeps the catalog's allocation, so no later catalog can
    /// take its address.
    catalog: Weak<Catalog>,
}

impl Fingerprints {
    /// The hash of `kind`'s list.
    fn of(&mut self, kind: Kind) -> Option<&mut u64> {
        match kind {
            Kind::Tool => Some(&mut self.tools),
            Kind::Prompt => Some(&mut self.prompts),
            Kind::Resource => Some(&mut self.resources),
            Kind::ResourceTemplate => Some(&mut self.templates),
            Kind::Task => None,
        }
    }
}

/// A listener's resource updates, set up before its acknowledgement.
pub(super) type Following = (
    crate::hosts::Listening,
    tokio::sync::mpsc::UnboundedReceiver<String>,
);

impl SieveServer {
    /// What this connection sees now (profile and connection concerns).
    fn fingerprints(&self) -> Option<Fingerprints> {
        let catalog = self.engine.catalog();
        Some(Fingerprints {
            tools: self.fingerprint(&catalog, Kind::Tool)?,
            prompts: self.fingerprint(&catalog, Kind::Prompt)?,
            resources: self.fingerprint(&catalog, Kind::Resource)?,
            templates: self.fingerprint(&catalog, Kind::ResourceTemplate)?,
            catalog: Arc::downgrade(&catalog),
        })
    }

    /// The hash of what this connection sees of `kind` in `catalog`.
    fn fingerprint(&self, catalog: &Catalog, kind: Kind) -> Option<u64> {
        let name = self.current_profile();
        let concerns = self.state().concerns.clone();
        let profile = self.engine.profile(&name).ok()?;
        let narrowing = Narrowing::default().concerns(&concerns);
        let mut hasher = DefaultHasher::new();
        // The search tools come and go with search mode.
        if kind == Kind::Tool {
            profile.rules.search_mode().hash(&mut hasher);
        }
        for p in catalog.primitives() {
            if p.kind == kind && profile.rules.listed(p, Some(&narrowing)) {
                p.host_definition().to_string().hash(&mut hasher);
            }
        }
        Some(hasher.finish())
    }

    /// The host has just been sent its list of `kind` from `catalog`: that
    /// is what it has seen, so a server that answered before the list is
    /// not announced to it as a change afterwards.
    pub(super) fn listed(&self, kind: Kind, catalog: &Arc<Catalog>) {
        let _seen = self.conn.seen_lock.locked();
        // Seen from this very catalog: nothing new (and a list of
        // thousands of tools is not hashed once more per request).
        let current = self
            .state()
            .seen
            .as_ref()
            .is_none_or(|seen| std::ptr::eq(seen.catalog.as_ptr(), Arc::as_ptr(catalog)));
        if current {
            return;
        }
        let Some(hash) = self.fingerprint(catalog, kind) else {
            return;
        };
        if let Some(seen) = self.state().seen.as_mut().and_then(|seen| seen.of(kind)) {
            *seen = hash;
        }
    }

    /// The kinds whose visible set changed since the last call (templates
    /// go with resources: one notification tells of both).
    fn changed_kinds(&self) -> Vec<Kind> {
        let _seen = self.conn.seen_lock.locked();
        let Some(now) = self.fingerprints() else {
            return Vec::new();
        };
        let before = self.state().seen.replace(now.clone());
        let Some(before) = before else {
            return Vec::new();
        };
        let mut kinds = Vec::new();
        if before.tools != now.tools {
            kinds.push(Kind::Tool);
        }
        if before.prompts != now.prompts {
            kinds.push(Kind::Prompt);
        }
        if before.resources != now.resources || before.templates != now.templates {
            kinds.push(Kind::Resource);
        }
        kinds
    }

    /// The change stream and baseline taken at `initialize` or before a
    /// listen acknowledgement (or taken now, if there are none); the
    /// baseline becomes what this connection has seen.
    fn take_pending_changes(&self) -> tokio::sync::broadcast::Receiver<Change> {
        let pending = self.state().pending_listen.take();
        match pending {
            Some((baseline, changes)) => {
                if self.state().seen.is_none() {
                    self.state().seen = baseline;
                }
                changes
            }
            None => {
                let changes = self.engine.subscribe();
                self.mark_seen();
                changes
            }
        }
    }

    /// Records the current view as seen, so later changes are diffed
    /// against it.
    fn mark_seen(&self) {
        let _seen = self.conn.seen_lock.locked();
        if let Some(now) = self.fingerprints() {
            self.state().seen = Some(now);
        }
    }

    /// Subscribes upstream to the resources a 2026-07-28 listener asks to
    /// follow and routes their updates to it. Done before rmcp sends the
    /// listen acknowledgement (see `accepted_subscription_filter`): once the
    /// host has it, an update must not be missed. Which of them the host may
    /// see is decided in `listen`, under the request's profile.
    async fn follow_resources(&self, uris: Vec<String>) -> Following {
        if !uris.is_empty() {
            self.started().await;
        }
        let published = self.engine.published();
        let mut followed = std::collections::HashSet::new();
        for uri in uris {
            let Ok(resource) = self.resource_for(&published.catalog, &published.config, &uri, true)
            else {
                continue;
            };
            let subscribed = self
                .engine
                .pool()
                .call(
                    &resource.server,
                    "resources/subscribe",
                    json!({ "uri": uri }),
                )
                .await;
            if subscribed.is_ok() {
                followed.insert(uri);
            }
        }
        self.engine.hosts().listen(followed)
    }

    /// 2025-11-25 `initialize`: the profile and concerns of the
    /// connection, and the baseline later changes are diffed against.
    pub(super) async fn handle_initialize(
        &self,
        request: InitializeRequestParams,
        context: HostRequest,
    ) -> Result<InitializeResult, ErrorData> {
        self.profile_name(&context.extensions);
        let raw = self.raw_params(&context);
        if let Some(concerns) = raw.get("concerns") {
            self.set_concerns(concerns, "params.concerns")?;
        }
        let result = self.negotiate_initialize(&request)?;
        // Later requests are served under the revision agreed, not the
        // one asked.
        let mut agreed = request;
        agreed.protocol_version = result.protocol_version.clone();
        context.link.set_client(agreed);
        // Answered at once, whatever the servers are doing. The baseline
        // and the change stream are taken now: rmcp runs handlers
        // concurrently, so the host's first requests may be handled
        // before `initialized` is; a server that answers later reaches
        // the host as `list_changed`.
        {
            let _seen = self.conn.seen_lock.locked();
            let changes = self.engine.subscribe();
            let baseline = self.fingerprints();
            let mut state = self.state();
            state.seen = baseline.clone();
            state.pending_listen = Some((baseline, changes));
        }
        Ok(result)
    }

    /// `notifications/initialized`: the connection becomes a host that
    /// upstream traffic can reach and that is told about changes.
    pub(super) fn handle_initialized(&self, context: HostNotice) {
        // Concerns in `initialized` (the concern proposal's option A).
        let raw = context
            .extensions
            .get::<super::RawParams>()
            .map(|own| own.0.clone());
        if let Some(concerns) = raw.as_ref().and_then(|p| p.get("concerns"))
            && let Err(error) = self.set_concerns(concerns, "params.concerns")
        {
            tracing::warn!("ignoring the host's concerns: {}", error.message);
        }
        let host = self
            .engine
            .hosts()
            .register(context.link.clone(), self.sees());
        self.state().host = Some(host);
        self.forward_changes(context.link);
    }

    /// Whether this connection's profile, as it is when asked, shows a
    /// server. Holds the connection weakly: the registry must not keep a
    /// closed connection alive.
    pub(super) fn sees(&self) -> crate::hosts::Sees {
        let engine = Arc::downgrade(&self.engine);
        let conn = Arc::downgrade(&self.conn);
        Arc::new(move |server: &str| {
            let (Some(engine), Some(conn)) = (engine.upgrade(), conn.upgrade()) else {
                return false;
            };
            let me = SieveServer { engine, conn };
            let name = me.current_profile();
            me.engine
                .profile(&name)
                .is_ok_and(|profile| profile.rules.allows_server(server))
        })
    }

    /// The host's roots changed: the servers that take roots from hosts
    /// and that this host's profile shows ask again.
    pub(super) fn handle_roots_list_changed(&self) {
        self.engine.pool().host_roots_changed(self.sees().as_ref());
    }

    /// The filter a listen is acknowledged with (all it asked for), after
    /// its baseline is taken and its resources are followed.
    pub(super) fn accept_listen(&self, requested: &SubscriptionFilter) -> SubscriptionFilter {
        let changes = self.engine.subscribe();
        let baseline = self.fingerprints();
        self.state().pending_listen = Some((baseline, changes));
        let uris = requested.resource_subscriptions.clone().unwrap_or_default();
        // This hook is synchronous, and the acknowledgement follows it: the
        // upstream subscriptions are made here, on a runtime that can wait.
        let can_wait = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if !uris.is_empty() && can_wait {
            let following = tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current().block_on(self.follow_resources(uris))
            });
            self.state().pending_follow = Some(following);
        }
        requested.clone()
    }

    /// 2026-07-28 `subscriptions/listen`: list changes and resource
    /// updates this host's profile shows, until the host ends the stream.
    pub(super) async fn handle_listen(&self, context: Listening) -> Result<(), ErrorData> {
        let mut changes = self.take_pending_changes();
        let request = context.request();
        let pending = self.state().pending_follow.take();
        let uris = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        let (_following, mut updates) = match pending {
            Some(following) => following,
            None => self.follow_resources(uris.clone()).await,
        };
        // The resources this host's profile shows.
        let visible: std::collections::HashSet<String> = match self.view(&request, false) {
            Ok(view) => uris
                .into_iter()
                .filter(|uri| {
                    self.resource_for(&view.catalog, &view.config, uri, true)
                        .is_ok_and(|r| self.check_visible(&view, &r).is_ok())
                })
                .collect(),
            Err(_) => Default::default(),
        };
        if self.conn.fixed_profile.is_none() {
            // Over HTTP the profile comes with the request, which the
            // acknowledgement step did not see: the baseline is taken
            // again under the right profile, and anything that changed
            // meanwhile is announced rather than missed.
            self.profile_name(&request.extensions);
            self.mark_seen();
            let mut listed_changed = false;
            loop {
                match changes.try_recv() {
                    Ok(change) => listed_changed |= change.may_change_lists(),
                    Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {
                        listed_changed = true;
                    }
                    Err(_) => break,
                }
            }
            if listed_changed {
                for kind in [Kind::Tool, Kind::Prompt, Kind::Resource] {
                    context.send(list_changed(kind)).await;
                }
            }
        }
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                Some(uri) = updates.recv() => {
                    if visible.contains(&uri) {
                        let updated = ResourceUpdatedNotificationParam::new(uri);
                        context.send(ServerNotification::ResourceUpdatedNotification(
                            ResourceUpdatedNotification::new(updated),
                        )).await;
                    }
                    continue;
                }
                change = changes.recv() => match change {
                    Ok(change) if !change.may_change_lists() => continue,
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
            for kind in self.changed_kinds() {
                // A refusal only means the host did not ask for this kind.
                context.send(list_changed(kind)).await;
            }
        }
    }

    /// Sends `list_changed` for each changed kind through `notify`.
    pub(super) async fn announce<F, Fut>(&self, notify: F) -> bool
    where
        F: Fn(Kind) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        for kind in self.changed_kinds() {
            if !notify(kind).await {
                return false;
            }
        }
        true
    }

    /// Keeps a 2025-11-25 connection told about changes until it closes.
    fn forward_changes(&self, peer: HostLink) {
        let server = self.clone();
        let mut changes = self.take_pending_changes();
        tokio::spawn(async move {
            loop {
                match changes.recv().await {
                    Ok(change) if !change.may_change_lists() => continue,
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
                if peer.is_closed() {
                    break;
                }
                let alive = server
                    .announce(|kind| {
                        let peer = peer.clone();
                        async move { notify_peer(&peer, kind).await }
                    })
                    .await;
                if !alive {
                    break;
                }
            }
            let host = server.state().host.take();
            if let Some(host) = host {
                server.engine.hosts().unregister(host);
            }
        });
    }
}

pub(super) async fn notify_peer(peer: &HostLink, kind: Kind) -> bool {
    peer.notify(list_changed(kind)).await.is_ok()
}

/// `list_changed` of `kind`.
pub(super) fn list_changed(kind: Kind) -> ServerNotification {
    match kind {
        Kind::Tool => ServerNotification::ToolListChangedNotification(Default::default()),
        Kind::Prompt => ServerNotification::PromptListChangedNotification(Default::default()),
        _ => ServerNotification::ResourceListChangedNotification(Default::default()),
    }
}
