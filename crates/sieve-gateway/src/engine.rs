//! The engine of one proxy process: the user's config and profiles, the
//! upstream pool, and the catalog built from what the servers list.
//!
//! Host connections read from it ([`Engine::published`]) and subscribe to its
//! [`Change`]s to send `list_changed`. Files are reloaded on demand
//! ([`Engine::reload_config`], [`Engine::reload_profile`], called by the
//! file watcher): a file that does not parse is reported once and the last
//! good version stays in force.
//!
//! Tasks and the ledger are the `tasks` module's; the engine
//! owns them and offers retry and cancel to the command line and the app.
//! What calls measured is put in force by `measured`, for the concern
//! `cost` of the catalog.

mod lists;
mod measured;
mod search;
pub(crate) use search::Search;

pub use lists::View as ListView;

use crate::error::CallError;
use crate::hosts::Hosts;
use crate::sync::{Locked, ReadWrite};
use crate::tasks::{Tasks, Viewer};
use crate::upstream::{Endpoint, Pool, PoolEvent};
use serde_json::Value;
use sieve_core::tasks::TaskRecord;
use sieve_core::{
    Approvals, Catalog, Config, Kind, Overlays, Primitive, Profile, Rules, ServerListing,
};
use sieve_ledger::Ledger;
use sieve_store::store::{Store, StoreError};
use sieve_store::watch::FileChange;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::broadcast;

/// The clock the ledger's times are read against.
pub use crate::clock::now_ms;
/// A server's connection state, as `servers list` and the app show it.
pub use crate::upstream::{State, Status};

/// Name of the built-in demo server when it stands in for an empty config.
pub const BUILTIN_SERVER: &str = "demo";

/// Something that may change what a host sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A server's listing changed, or the config's overlays or separator.
    Catalog,
    /// A profile in force changed: what its hosts see may differ.
    Profile(String),
    /// A profile file changed that changes no host's view: one no host is
    /// served under (made, edited, deleted), or the file of one in force
    /// removed (its last version stays in force). Views of the profile
    /// list want it; serving connections need not look.
    ProfileFile(String),
    /// `config.json` changed (concern definitions, servers).
    Config,
    /// `approvals.json` changed: a tool approved or kept hidden, a server
    /// seen for the first time. (What hosts list follows as `Catalog`.)
    Approvals,
    /// A server's connection state changed.
    Status(String),
    /// The task ledger was written, by this process or another.
    Tasks,
}

impl Change {
    /// Whether what a host lists may differ after it (server states,
    /// ledger writes and profile files not in force change no list).
    pub fn may_change_lists(&self) -> bool {
        !matches!(
            self,
            Change::Status(_) | Change::Tasks | Change::ProfileFile(_) | Change::Approvals
        )
    }
}

/// A profile in force, compiled.
#[derive(Debug)]
pub struct ActiveProfile {
    pub name: String,
    pub profile: Profile,
    pub rules: Rules,
}

/// Shared state of the proxy process.
pub struct Engine {
    store: Store,
    hosts: Arc<Hosts>,
    pool: Pool,
    state: RwLock<InForce>,
    profiles: Mutex<foldhash::HashMap<String, Arc<ActiveProfile>>>,
    /// Per profile in search mode, the search of the tools it lets be
    /// called (`search`).
    searches: search::Searches,
    changes: broadcast::Sender<Change>,
    watcher: Mutex<Option<sieve_store::state::Watching>>,
    tasks: Arc<Tasks>,
    stopping: tokio_util::sync::CancellationToken,
    /// Work on the measurements put off for a while (`measured`).
    measured_later: measured::Later,
    /// Lists as hosts see them, encoded once per view (`lists`).
    lists: lists::EncodedLists,
}

/// Every primitive of a catalog as the host sees it, in catalog order:
/// its definition with every field as the server sent it (`execution`,
/// `groups`, fields no revision names), the name exposed and Sieve's
/// labels under `_meta` ([`Primitive::host_definition`]); `None` where a
/// definition is not valid MCP (it is then left out of lists, with a
/// warning when the catalog is built).
#[derive(Debug, Default)]
pub struct HostForms {
    pub items: Vec<Option<Value>>,
}

impl HostForms {
    fn of(catalog: &Catalog) -> HostForms {
        /// The definition, once rmcp's model of its kind takes it.
        fn valid<T: serde::de::DeserializeOwned>(p: &Primitive) -> Option<Value> {
            let definition = p.host_definition();
            match T::deserialize(&definition) {
                Ok(_) => Some(definition),
                Err(error) => {
                    tracing::warn!(
                        "{} {} is not valid MCP and is left out: {error}",
                        p.kind,
                        p.exposed_name
                    );
                    None
                }
            }
        }
        use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
        let items = catalog
            .primitives()
            .iter()
            .map(|p| match p.kind {
                Kind::Tool => valid::<Tool>(p),
                Kind::Prompt => valid::<Prompt>(p),
                Kind::Resource => valid::<Resource>(p),
                Kind::ResourceTemplate => valid::<ResourceTemplate>(p),
                Kind::Task => None,
            })
            .collect();
        HostForms { items }
    }
}

/// What one request is served with, read at once: the config in force,
/// the catalog built under it, and that catalog in the host's typed form.
/// A request holds these for its whole life, so a config or catalog that
/// changes meanwhile is seen by the next request, never half by this one.
#[derive(Clone)]
pub struct Published {
    pub config: Arc<Config>,
    pub catalog: Arc<Catalog>,
    pub forms: Arc<HostForms>,
}

/// The config in force and the catalog built under it.
struct InForce {
    config: Arc<Config>,
    overlays: Overlays,
    /// `approvals.json` as last read or written (DESIGN §9).
    approvals: Arc<Approvals>,
    catalog: Arc<Catalog>,
    forms: Arc<HostForms>,
    /// What calls through Sieve measured, which the catalog's `cost`
    /// was judged with (`measured`).
    measured: Arc<sieve_core::Measurements>,
    /// The pool generation the catalog was built from.
    generation: u64,
    /// The pool generation whose listings went into `approvals.json`
    /// (first use, pending definitions). Only a new listing is recorded:
    /// recording on every rebuild would have two processes that see
    /// different definitions answer each other's writes forever.
    recorded: u64,
    /// The scanner's findings on the listings of one pool generation: a
    /// listing is scanned once, however often the catalog is rebuilt
    /// (a profile, an overlay or the config changing).
    scanned: (u64, Arc<sieve_core::catalog::Findings>),
}

/// The servers of a config; the built-in demo when it lists none.
pub(crate) fn endpoints(config: &Config) -> BTreeMap<String, Endpoint> {
    if config.mcp_servers.is_empty() {
        return BTreeMap::from([(
            BUILTIN_SERVER.to_string(),
            Endpoint::InProcess(serve_builtin),
        )]);
    }
    config
        .enabled_servers()
        .map(|(name, server)| (name.clone(), Endpoint::Configured(Box::new(server.clone()))))
        .collect()
}

/// Compiles the overlays of `config`. Their globs were checked when it was
/// parsed; what can still fail is a pattern too large to compile.
fn compile_overlays(store: &Store, config: &Config) -> Result<Overlays, StoreError> {
    Overlays::new(&config.overlays).map_err(|error| StoreError::Uncompilable {
        subject: "the overlays of config.json".into(),
        path: store.location(&sieve_store::state::Doc::Config),
        error: error.into(),
    })
}

/// The error a call to (or read of) `p` gets under `profile`, if it is
/// refused: hidden by a profile that enforces, or in quarantine. It
/// names every reason, and `data` carries them as `hiddenBy`.
pub(crate) fn refused(
    profile: &ActiveProfile,
    p: &Primitive,
    narrowing: Option<&sieve_core::Narrowing>,
) -> Option<CallError> {
    let reasons = profile.rules.refusal(p, narrowing);
    if reasons.is_empty() {
        return None;
    }
    let quarantined = reasons
        .iter()
        .any(|r| matches!(r.rule, sieve_core::Rule::Quarantined { .. }));
    Some(CallError::Refused {
        kind: p.kind,
        name: p.exposed_name.clone(),
        glob_name: p.glob_name().to_string(),
        profile: profile.name.clone(),
        hidden_by: reasons.iter().map(ToString::to_string).collect(),
        quarantined,
    })
}

/// Looks secrets up in `home`'s store (or `team`'s, sealed, when its key
/// is given), opened the first time one is asked for (most configs have
/// none, and opening asks D-Bus).
fn secret_lookup(
    home: sieve_store::home::Home,
    team: Option<sieve_postgres::Database>,
) -> crate::upstream::SecretLookup {
    let opened = Arc::new(std::sync::OnceLock::new());
    Arc::new(move |name: &str| {
        let secrets =
            opened.get_or_init(|| sieve_store::secrets::Secrets::open_for(&home, team.as_ref()));
        match secrets {
            Ok(secrets) => secrets.get(name),
            Err(error) => Err(error.clone()),
        }
    })
}

/// Serves the built-in demo server on one in-memory connection.
fn serve_builtin(io: tokio::io::DuplexStream) {
    use rmcp::ServiceExt;
    tokio::spawn(async move {
        if let Ok(server) = sieve_demo::DemoServer::new().serve(io).await {
            let _ = server.waiting().await;
        }
    });
}

impl Engine {
    /// Loads the config and starts every server. A config that does not
    /// parse stops the start with its error: there is no last good one yet.
    pub fn start(store: Store) -> Result<Arc<Engine>, StoreError> {
        let config = store.load_config()?;
        let overlays = compile_overlays(&store, &config)?;
        let approvals = store.load_approvals()?;
        let hosts = Arc::new(Hosts::default());
        let db = store.home().tasks_db();
        let ledger = crate::tasks::open_ledger(
            &db,
            store.backend().database(),
            config.settings.task_retention_days,
        );
        let pool = Pool::new(
            hosts.clone(),
            crate::tasks::on_upstream_status(ledger.clone()),
        );
        pool.set_secrets(secret_lookup(
            store.home().clone(),
            store.backend().database().cloned(),
        ));
        let secrets = crate::oauth::SharedSecrets::new(store.home().clone());
        pool.set_credentials(Arc::new(move |server: &str| {
            crate::oauth::Credentials::stored(secrets.clone(), server)
        }));
        let stopping = tokio_util::sync::CancellationToken::new();
        let measured = measured::load(ledger.as_ref());
        let (measured_sink, measurements) = tokio::sync::mpsc::unbounded_channel();
        let tasks = Tasks::new(
            ledger,
            db,
            pool.clone(),
            hosts.clone(),
            stopping.clone(),
            measured_sink,
        );
        let (changes, _) = broadcast::channel(256);
        let searches = search::Searches::new(store.home().sentence_vectors_file());
        let engine = Arc::new(Engine {
            store,
            hosts,
            pool: pool.clone(),
            state: RwLock::new(InForce {
                config: Arc::new(config.clone()),
                overlays,
                approvals: Arc::new(approvals),
                catalog: Arc::new(Catalog::default()),
                forms: Arc::new(HostForms::default()),
                measured,
                generation: u64::MAX,
                recorded: u64::MAX,
                scanned: (u64::MAX, Arc::default()),
            }),
            profiles: Mutex::default(),
            searches,
            lists: lists::EncodedLists::default(),
            changes,
            watcher: Mutex::new(None),
            tasks,
            stopping,
            measured_later: measured::Later::default(),
        });
        measured::follow(&engine, measurements);
        let mut events = pool.events();
        let weak = Arc::downgrade(&engine);
        tokio::spawn(async move {
            loop {
                let mut relist = match events.recv().await {
                    Ok(PoolEvent::Status { server }) => {
                        let Some(engine) = weak.upgrade() else { return };
                        engine.emit(Change::Status(server));
                        false
                    }
                    Ok(PoolEvent::Listing { .. }) => true,
                    // Missed events only mean one rebuild for several.
                    Err(broadcast::error::RecvError::Lagged(_)) => true,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                // Servers list in bursts (three lists each, many servers at
                // start): everything already queued makes one rebuild.
                loop {
                    match events.try_recv() {
                        Ok(PoolEvent::Status { server }) => {
                            if let Some(engine) = weak.upgrade() {
                                engine.emit(Change::Status(server));
                            }
                        }
                        Ok(PoolEvent::Listing { .. })
                        | Err(broadcast::error::TryRecvError::Lagged(_)) => relist = true,
                        Err(_) => break,
                    }
                }
                let Some(engine) = weak.upgrade() else { return };
                if relist {
                    engine.rebuild_catalog();
                }
            }
        });
        pool.apply(endpoints(&config));
        engine.tasks.resume();
        Ok(engine)
    }

    fn emit(&self, change: Change) {
        let _ = self.changes.send(change);
    }

    fn rebuild_catalog(&self) {
        // A request may have built it already (see `published`).
        let current = self.state.reading().generation == self.pool.generation();
        if !current {
            self.build_catalog();
        }
        self.emit(Change::Catalog);
    }

    /// Builds the catalog from the pool's current listings. The generation
    /// is read first, so a listing that changes meanwhile makes the next
    /// reader build again rather than be missed.
    fn build_catalog(&self) -> Published {
        let generation = self.pool.generation();
        let listings = self.pool.listings();
        let scanned = self.scanned(generation, &listings);
        let recorded = self.state.reading().recorded;
        if recorded != generation {
            self.record_seen(&listings, &scanned);
            self.state.writing().recorded = generation;
        }
        let mut state = self.state.writing();
        let options = sieve_core::BuildOptions {
            measured: state.measured.clone(),
            ..sieve_core::BuildOptions::of(&state.config)
        };
        let mut catalog = Catalog::build_with(&options, &state.overlays, &listings);
        // Scanned whether or not quarantine holds: a finding sets `security: low`.
        catalog.judge_found(&state.approvals, state.config.settings.quarantine, &scanned);
        let catalog = Arc::new(catalog);
        let forms = Arc::new(HostForms::of(&catalog));
        state.catalog = catalog.clone();
        state.forms = forms.clone();
        state.generation = generation;
        Published {
            config: state.config.clone(),
            catalog,
            forms,
        }
    }

    /// The findings on the listings of pool generation `generation`,
    /// scanned now if that generation has not been (each tool against the
    /// other servers' tool names).
    fn scanned(
        &self,
        generation: u64,
        listings: &[ServerListing],
    ) -> Arc<sieve_core::catalog::Findings> {
        {
            let state = self.state.reading();
            if state.scanned.0 == generation {
                return state.scanned.1.clone();
            }
        }
        let servers: Vec<sieve_core::scan::ServerTools> = listings
            .iter()
            .map(|l| sieve_core::scan::ServerTools::of(&l.server, &l.tools))
            .collect();
        let found = sieve_core::scan::findings_of(&servers);
        // Prompts are scanned and told, not held: quarantine holds tools.
        for listing in listings {
            for prompt in &listing.prompts {
                if let Some(first) = sieve_core::scan::scan_prompt(prompt).first() {
                    tracing::warn!(
                        server = %listing.server,
                        prompt = prompt.get("name").and_then(serde_json::Value::as_str).unwrap_or_default(),
                        "the scanner found that {} (`mcp-sieve scan` lists every finding)",
                        first.reason()
                    );
                }
            }
        }
        let found = Arc::new(found);
        self.state.writing().scanned = (generation, found.clone());
        found
    }

    /// Records in `approvals.json` what the servers list: every tool of a
    /// server that lists tools for the first time is approved (trust on
    /// first use; a server that has listed no tools yet may still be
    /// starting), and a tool in quarantine is recorded as pending, for the
    /// command line and the app to show and approve (a pending definition
    /// the server went back on is dropped).
    fn record_seen(&self, listings: &[ServerListing], scanned: &sieve_core::catalog::Findings) {
        if !self.state.reading().config.settings.quarantine {
            return;
        }
        let findings = |server: &str, tool: &serde_json::Value| {
            let name = tool
                .get("name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            scanned
                .get(&(server.to_string(), name.to_string()))
                .cloned()
                .unwrap_or_default()
        };
        let news = |approvals: &Approvals| {
            listings.iter().any(|l| {
                if approvals.knows(&l.server) {
                    l.tools.iter().any(|tool| {
                        approvals.needs_record(&l.server, tool, &findings(&l.server, tool))
                    })
                } else {
                    !l.tools.is_empty()
                }
            })
        };
        {
            let state = self.state.reading();
            if !state.config.settings.quarantine || !news(&state.approvals) {
                return;
            }
        }
        let recorded = self.store.update_approvals(|approvals| {
            for listing in listings.iter().filter(|l| !l.tools.is_empty()) {
                if approvals.trust_first_use(&listing.server, &listing.tools, |tool| {
                    findings(&listing.server, tool)
                }) {
                    tracing::info!(
                        server = %listing.server,
                        tools = listing.tools.len(),
                        "first listing of the server: its tools are approved (trust on first use)"
                    );
                    continue;
                }
                for tool in &listing.tools {
                    if approvals.record(&listing.server, tool, &findings(&listing.server, tool))
                        == sieve_core::approvals::Recorded::Held
                    {
                        tracing::warn!(
                            server = %listing.server,
                            tool = tool.get("name").and_then(serde_json::Value::as_str).unwrap_or_default(),
                            "a tool is new or changed: it is in quarantine until approved \
                             (`mcp-sieve tools quarantined` shows it)"
                        );
                    }
                }
            }
        });
        match recorded {
            Ok((approvals, ())) => {
                self.state.writing().approvals = Arc::new(approvals);
                // The watcher will find nothing new: this process wrote it.
                self.emit(Change::Approvals);
            }
            Err(error) => {
                // New servers stay unjudged (trusted) in this process, and
                // are tried again at the next listing; quarantine holds.
                tracing::error!("{error}; what the servers list could not be recorded");
            }
        }
    }

    /// `approvals.json` as this process last read or wrote it.
    pub fn approvals(&self) -> Arc<Approvals> {
        self.state.reading().approvals.clone()
    }

    /// Puts `approvals` (just written by this process) in force: the
    /// catalog is judged again and hosts are told what changed.
    pub fn apply_approvals(&self, approvals: Approvals) {
        {
            let mut state = self.state.writing();
            if *state.approvals == approvals {
                return;
            }
            state.approvals = Arc::new(approvals);
            state.generation = u64::MAX;
        }
        self.rebuild_catalog();
        self.emit(Change::Approvals);
    }

    /// Re-reads `approvals.json` after another process wrote it. A file
    /// that does not parse keeps the last good approvals in force.
    pub fn reload_approvals(&self) {
        match self.store.load_approvals() {
            Ok(approvals) => self.apply_approvals(approvals),
            Err(error) => {
                tracing::error!("{error}; keeping the last good approvals");
            }
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub(crate) fn hosts(&self) -> &Arc<Hosts> {
        &self.hosts
    }

    pub(crate) fn pool(&self) -> &Pool {
        &self.pool
    }

    pub(crate) fn tasks(&self) -> &Arc<Tasks> {
        &self.tasks
    }

    /// Waits until every server has been listed or has failed once, or
    /// `limit` passes; for commands that list once and exit.
    pub async fn settled(&self, limit: Duration) {
        self.pool.settled(limit).await;
    }

    /// Waits until the servers run in this process (the built-in demo)
    /// have answered, within `settings.startupWaitMs`: they are part of
    /// the proxy and answer in a moment, so hosts are served once they
    /// have, and a host's first call finds them. Servers outside the
    /// process are never waited for here.
    pub async fn in_process_started(&self) {
        let window = Duration::from_millis(self.config().settings.startup_wait_ms);
        self.pool.in_process_started(window).await;
    }

    /// The connection state of every server.
    pub fn statuses(&self) -> BTreeMap<String, Status> {
        self.pool.statuses()
    }

    /// The last known listing of every server, down ones included.
    pub fn listings(&self) -> Vec<ServerListing> {
        self.pool.listings()
    }

    /// Changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// The catalog in force, never older than the servers' listings: a
    /// request right after a server answered sees what it listed even if
    /// the background rebuild has not run yet.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.published().catalog
    }

    /// The catalog with its primitives in the host's typed form (index for
    /// index), built once per catalog rather than per list request.
    pub fn published(&self) -> Published {
        {
            let state = self.state.reading();
            if state.generation == self.pool.generation() {
                return Published {
                    config: state.config.clone(),
                    catalog: state.catalog.clone(),
                    forms: state.forms.clone(),
                };
            }
        }
        self.build_catalog()
    }

    /// The items `view` shows as the JSON array a host is sent, encoded
    /// by `encode` the first time that view is listed.
    pub fn encoded_list(&self, view: &ListView, encode: impl FnOnce() -> String) -> Arc<str> {
        self.lists.get_or_encode(view, encode)
    }

    /// The config in force.
    pub fn config(&self) -> Arc<Config> {
        self.state.reading().config.clone()
    }

    /// The profile of hosts that name none (`settings.activeProfile` of
    /// the config in force).
    pub fn active_profile(&self) -> String {
        self.config().settings.active_profile.clone()
    }

    /// Profile `name` in force: loaded on first use (the default profile is
    /// created then), then kept until a valid edit replaces it.
    pub fn profile(&self, name: &str) -> Result<Arc<ActiveProfile>, StoreError> {
        if let Some(active) = self.profiles.locked().get(name) {
            return Ok(active.clone());
        }
        let active = Arc::new(self.load_profile(name)?);
        self.profiles
            .locked()
            .insert(name.to_string(), active.clone());
        Ok(active)
    }

    fn load_profile(&self, name: &str) -> Result<ActiveProfile, StoreError> {
        let config = self.config();
        let loaded = self.store.load_profile(name, Some(&config))?;
        // Its globs were checked when it was parsed; a set of them can
        // still be too large to compile.
        let rules = Rules::new(&loaded.profile).map_err(|error| StoreError::Uncompilable {
            subject: format!("profile {}", loaded.name),
            path: loaded.path.clone(),
            error: error.into(),
        })?;
        Ok(ActiveProfile {
            name: loaded.name,
            profile: loaded.profile,
            rules,
        })
    }

    /// Re-reads profile `name` after its file changed. Only profiles in use
    /// are reloaded; a bad edit keeps the last good version.
    pub fn reload_profile(&self, name: &str) {
        if !self.profiles.locked().contains_key(name) {
            // No host is served under it, but the file changed (made,
            // edited, deleted): views of the profile list want to know.
            self.emit(Change::ProfileFile(name.to_string()));
            return;
        }
        match self.load_profile(name) {
            Ok(active) => {
                let changed = {
                    let mut profiles = self.profiles.locked();
                    let changed = profiles
                        .get(name)
                        .is_none_or(|old| old.profile != active.profile);
                    profiles.insert(name.to_string(), Arc::new(active));
                    changed
                };
                if changed {
                    self.searches.forget(name);
                    tracing::info!(profile = name, "profile reloaded");
                    self.emit(Change::Profile(name.to_string()));
                }
            }
            Err(StoreError::NoProfile { .. }) => {
                tracing::warn!(
                    profile = name,
                    "profile file was removed; keeping its last version in force"
                );
                self.emit(Change::ProfileFile(name.to_string()));
            }
            Err(error) => {
                tracing::error!("{error}; keeping the last good version of profile {name:?}");
            }
        }
    }

    /// Re-reads `config.json` after it changed: servers are started or
    /// stopped, labels and names rebuilt, profiles re-checked. A bad edit
    /// keeps the last good config.
    pub fn reload_config(&self) {
        let config = match self.store.load_config() {
            Ok(config) => config,
            Err(error) => {
                tracing::error!("{error}; keeping the last good config");
                return;
            }
        };
        if *self.config() == config {
            return;
        }
        let overlays = match compile_overlays(&self.store, &config) {
            Ok(overlays) => overlays,
            Err(error) => {
                tracing::error!("{error}; keeping the last good config");
                return;
            }
        };
        {
            let mut state = self.state.writing();
            state.config = Arc::new(config.clone());
            state.overlays = overlays;
            // Names and labels depend on the config: build again (and
            // record, should quarantine have just been turned on).
            state.generation = u64::MAX;
            state.recorded = u64::MAX;
        }
        tracing::info!("config reloaded");
        self.pool.apply(endpoints(&config));
        // `servers login` may have stored a sign-in along with the edit.
        self.pool.retry_sign_ins();
        self.rebuild_catalog();
        // Concern definitions may have changed what a profile may say.
        self.reload_profiles();
        self.emit(Change::Config);
    }

    /// Re-reads every profile in use.
    fn reload_profiles(&self) {
        let names: Vec<String> = self.profiles.locked().keys().cloned().collect();
        for name in names {
            self.reload_profile(&name);
        }
    }

    /// Watches `config.json` and the profile files and applies every valid
    /// change live, for as long as the engine lives.
    pub fn watch_files(self: &Arc<Self>) -> anyhow::Result<()> {
        // The files of this machine, or every replica's changes of a
        // team's database: the same changes either way.
        let (watcher, mut changes) = self.store.backend().watch()?;
        *self.watcher.locked() = Some(watcher);
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(change) = changes.recv().await {
                let Some(engine) = weak.upgrade() else { return };
                match change {
                    FileChange::Config => engine.reload_config(),
                    FileChange::Profile(name) => engine.reload_profile(&name),
                    FileChange::Tasks => {
                        engine.emit(Change::Tasks);
                        // Another process may have measured calls.
                        engine.reload_measured_soon();
                    }
                    FileChange::Approvals => engine.reload_approvals(),
                    FileChange::Secrets => engine.pool.retry_sign_ins(),
                    FileChange::Rescan => {
                        engine.reload_config();
                        engine.reload_approvals();
                        engine.reload_profiles();
                    }
                }
            }
        });
        Ok(())
    }

    /// The task ledger, or why there is none.
    pub fn ledger(&self) -> Result<&Ledger, CallError> {
        self.tasks.ledger()
    }

    /// Runs entry `id` again: the recorded request to the same server, as
    /// a new entry that points to the old one. A completed entry (or one
    /// still running) is only run again with `force`; the tool must be
    /// visible under `profile`. A signed-in person (`owner`) retries only
    /// their own entries.
    pub async fn retry(
        &self,
        id: &str,
        force: bool,
        profile: &ActiveProfile,
        owner: Option<&str>,
    ) -> Result<(TaskRecord, Result<Value, CallError>), CallError> {
        let catalog = self.catalog();
        let viewer = Viewer {
            catalog: &catalog,
            rules: &profile.rules,
            narrowing: None,
            owner,
        };
        self.tasks.retry(id, force, &profile.name, &viewer).await
    }

    /// The search of `profile` over `catalog`, built by `build` the
    /// first time and again only when either is replaced (a new listing,
    /// an edited profile): `sieve__find_tools` is asked often, the
    /// catalog changes seldom.
    pub(crate) fn search(
        &self,
        catalog: &Arc<Catalog>,
        profile: &Arc<ActiveProfile>,
        build: impl FnOnce() -> sieve_core::search::ToolIndex,
    ) -> Arc<search::Search> {
        self.searches.of(catalog, profile, build)
    }

    /// A search for one connection alone, whose concerns narrow what it
    /// may call.
    pub(crate) fn own_search(&self, index: sieve_core::search::ToolIndex) -> Arc<search::Search> {
        self.searches.own(index)
    }

    /// Calls tool `name` (exposed name or URI) with `arguments` under
    /// `profile`, as the app's "Try" does: refused with the profile's
    /// reasons when it hides the tool and enforces, else called upstream and
    /// recorded in the ledger whatever the outcome.
    pub async fn try_tool(
        &self,
        profile: &ActiveProfile,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<(TaskRecord, Result<Value, CallError>), CallError> {
        let catalog = self.catalog();
        let tool = catalog.find_tool(name).ok_or_else(|| CallError::NoTool {
            name: name.to_string(),
        })?;
        if let Some(error) = refused(profile, tool, None) {
            return Err(error);
        }
        let params = serde_json::json!({"name": tool.name, "arguments": arguments});
        let call = crate::tasks::Call {
            server: &tool.server,
            tool: &tool.exposed_name,
            params: crate::sent::Params::Json(&params),
            profile: &profile.name,
            owner: None,
            local: crate::tasks::Call::is_local(&self.config(), &tool.server),
        };
        self.tasks.try_call(&call).await
    }

    /// Cancels task `record` upstream and records it.
    pub async fn cancel(&self, record: &TaskRecord) -> Result<(), CallError> {
        self.tasks.cancel(record).await
    }

    /// Stops every server.
    pub async fn shutdown(&self) {
        self.tasks.flush_measurements().await;
        self.tasks.leave().await;
        self.stopping.cancel();
        self.pool.shutdown().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sieve_store::home::Home;

    /// A glob that parses, but whose compiled form passes globset's size
    /// limit (an NFA of over 10 MiB): every `*?` is a few more states.
    fn oversized_glob() -> String {
        format!("*{}x*", "*?".repeat(60_000))
    }

    fn write_profile(store: &Store, name: &str, deny: &[String]) {
        let path = store.home().profile_file(name);
        std::fs::create_dir_all(path.parent().expect("profiles folder")).expect("profiles folder");
        let text = serde_json::json!({"tools": {"deny": deny}}).to_string();
        std::fs::write(path, text).expect("profile written");
    }

    #[tokio::test]
    async fn a_profile_whose_patterns_do_not_compile_is_refused_and_its_last_good_version_stays() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::new(Home::at(dir.path()));
        let engine = Engine::start(store.clone()).expect("the engine starts on an empty config");
        let oversized = oversized_glob();
        write_profile(&store, "work", std::slice::from_ref(&oversized));
        store
            .load_profile("work", None)
            .expect("the profile parses: each glob is valid on its own");

        let error = engine
            .profile("work")
            .expect_err("patterns that do not compile cannot be put in force");
        assert!(
            matches!(&error, StoreError::Uncompilable { path, .. } if *path == store.home().profile_file("work")),
            "the error names the file: {error:?}"
        );
        let message = error.to_string();
        assert!(
            message.starts_with("profile work (")
                && message.contains("its patterns could not be compiled")
                && message.ends_with("simplify the patterns"),
            "a person can tell what to do: {message}"
        );

        let good = vec!["demo__echo".to_string()];
        write_profile(&store, "work", &good);
        let active = engine.profile("work").expect("a good profile loads");
        assert_eq!(active.profile.tools.deny, good);

        // A bad edit of a profile in use: reported, the good one stays.
        write_profile(&store, "work", &[oversized]);
        engine.reload_profile("work");
        let active = engine.profile("work").expect("still in force");
        assert_eq!(
            active.profile.tools.deny, good,
            "live reload keeps the last good version"
        );
        engine.shutdown().await;
    }
}
