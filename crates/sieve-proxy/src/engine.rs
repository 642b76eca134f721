//! The engine of one proxy process: the user's config and profiles, the
//! upstream pool, and the catalog built from what the servers list.
//!
//! Host connections read from it ([`Engine::published`]) and subscribe to its
//! [`Change`]s to send `list_changed`. Files are reloaded on demand
//! ([`Engine::reload_config`], [`Engine::reload_profile`], called by the
//! file watcher): a file that does not parse is reported once and the last
//! good version stays in force.

use crate::hosts::Hosts;
use crate::ledger::Ledger;
use crate::store::{Store, StoreError};
use crate::upstream::{Endpoint, Pool, PoolEvent};
use crate::watch::FileChange;
use rmcp::ErrorData;
use rmcp::model::ServerResult;
use serde_json::Value;
use sieve_core::tasks::{EntryKind, TaskRecord, TaskStatus};
use sieve_core::{Catalog, Config, Kind, Narrowing, Overlays, Primitive, Profile, Rules};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::broadcast;

/// Name of the built-in demo server when it stands in for an empty config.
pub const BUILTIN_SERVER: &str = "demo";

/// Something that may change what a host sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A server's listing changed, or the config's overlays or separator.
    Catalog,
    /// A profile file changed.
    Profile(String),
    /// `config.json` changed (concern definitions, servers).
    Config,
    /// A server's connection state changed.
    Status(String),
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
    state: RwLock<State>,
    profiles: Mutex<HashMap<String, Arc<ActiveProfile>>>,
    changes: broadcast::Sender<Change>,
    watcher: Mutex<Option<crate::watch::HomeWatcher>>,
    ledger: Option<Ledger>,
    stopping: tokio_util::sync::CancellationToken,
}

/// Every primitive of a catalog as rmcp's typed value for the host, in
/// catalog order; `None` where a definition is not valid MCP (it is then
/// left out of lists, with a warning when the catalog is built).
#[derive(Debug, Default)]
pub struct HostForms {
    pub items: Vec<Option<HostForm>>,
}

/// One primitive in the host's form.
#[derive(Debug, Clone)]
pub enum HostForm {
    Tool(rmcp::model::Tool),
    Prompt(rmcp::model::Prompt),
    Resource(rmcp::model::Resource),
    Template(rmcp::model::ResourceTemplate),
}

impl HostForms {
    fn of(catalog: &Catalog) -> HostForms {
        fn typed<T: serde::de::DeserializeOwned>(p: &Primitive) -> Option<T> {
            serde_json::from_value(p.host_definition())
                .map_err(|error| {
                    tracing::warn!(
                        "{} {} is not valid MCP and is left out: {error}",
                        p.kind,
                        p.exposed_name
                    );
                })
                .ok()
        }
        let items = catalog
            .primitives()
            .iter()
            .map(|p| match p.kind {
                Kind::Tool => typed(p).map(HostForm::Tool),
                Kind::Prompt => typed(p).map(HostForm::Prompt),
                Kind::Resource => typed(p).map(HostForm::Resource),
                Kind::ResourceTemplate => typed(p).map(HostForm::Template),
                Kind::Task => None,
            })
            .collect();
        HostForms { items }
    }
}

/// Milliseconds since the Unix epoch, the ledger's clock.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Opens the ledger and drops what retention says is old. The proxy works
/// without a ledger (tasks are then not recorded), so a failure is logged.
fn open_ledger(store: &Store, config: &Config) -> Option<Ledger> {
    match Ledger::open(&store.home().tasks_db()) {
        Ok(ledger) => {
            let keep = i64::from(config.settings.task_retention_days) * 86_400_000;
            if let Err(error) = ledger.purge(now_ms() - keep) {
                tracing::warn!("{error}");
            }
            Some(ledger)
        }
        Err(error) => {
            tracing::error!("{error}; tasks and failed calls will not be recorded");
            None
        }
    }
}

/// The first text of a tool result, to say why it failed.
fn first_text(result: &Value) -> Option<String> {
    result["content"]
        .as_array()?
        .iter()
        .find_map(|c| c["text"].as_str())
        .map(|t| t.chars().take(500).collect())
}

/// How a finished call ends up in the ledger: `None` for a success, which
/// needs no retry.
pub fn call_outcome(
    outcome: &Result<ServerResult, ErrorData>,
    cancelled: bool,
) -> Option<(TaskStatus, String, Value)> {
    match outcome {
        Ok(ServerResult::CallToolResult(result)) if result.is_error == Some(true) => {
            let value = serde_json::to_value(result).unwrap_or_default();
            let message = first_text(&value).unwrap_or_else(|| "the tool reported an error".into());
            Some((TaskStatus::Failed, message, value))
        }
        Ok(_) => None,
        Err(error) if cancelled => Some((
            TaskStatus::Cancelled,
            "cancelled by the host".into(),
            serde_json::to_value(error).unwrap_or_default(),
        )),
        Err(error) => Some((
            TaskStatus::Failed,
            error.message.to_string(),
            serde_json::to_value(error).unwrap_or_default(),
        )),
    }
}

struct State {
    config: Arc<Config>,
    overlays: Overlays,
    catalog: Arc<Catalog>,
    forms: Arc<HostForms>,
    /// The pool generation the catalog was built from.
    generation: u64,
}

/// The servers of a config; the built-in demo when it lists none.
pub fn endpoints(config: &Config) -> BTreeMap<String, Endpoint> {
    if config.mcp_servers.is_empty() {
        return BTreeMap::from([(
            BUILTIN_SERVER.to_string(),
            Endpoint::InProcess(serve_builtin),
        )]);
    }
    config
        .enabled_servers()
        .map(|(name, server)| (name.clone(), Endpoint::Configured(server.clone())))
        .collect()
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
        let overlays = Overlays::new(&config.overlays).expect("validated when parsed");
        let hosts = Arc::new(Hosts::default());
        let ledger = open_ledger(&store, &config);
        let pool = Pool::new(hosts.clone(), ledger.clone());
        let (changes, _) = broadcast::channel(256);
        let engine = Arc::new(Engine {
            store,
            hosts,
            pool: pool.clone(),
            state: RwLock::new(State {
                config: Arc::new(config.clone()),
                overlays,
                catalog: Arc::new(Catalog::default()),
                forms: Arc::new(HostForms::default()),
                generation: u64::MAX,
            }),
            profiles: Mutex::new(HashMap::new()),
            changes,
            watcher: Mutex::new(None),
            ledger,
            stopping: tokio_util::sync::CancellationToken::new(),
        });
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
        engine.resume_tasks();
        Ok(engine)
    }

    /// Follows again every task the ledger has as live (after a restart, or
    /// tasks another proxy process started and left), once servers answer.
    fn resume_tasks(self: &Arc<Self>) {
        let Some(ledger) = self.ledger.clone() else {
            return;
        };
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let live = match ledger.live() {
                Ok(live) if !live.is_empty() => live,
                Ok(_) => return,
                Err(error) => {
                    tracing::warn!("{error}");
                    return;
                }
            };
            let Some(engine) = weak.upgrade() else { return };
            engine
                .pool
                .settled(std::time::Duration::from_secs(30))
                .await;
            let servers = engine.pool.statuses();
            for record in live {
                if servers.contains_key(&record.server) {
                    crate::relay::spawn_follow(engine.clone(), record);
                }
            }
        });
    }

    /// Cancelled when the engine shuts down: background work stops.
    pub fn stopping(&self) -> tokio_util::sync::CancellationToken {
        self.stopping.clone()
    }

    fn emit(&self, change: Change) {
        let _ = self.changes.send(change);
    }

    fn rebuild_catalog(&self) {
        // A request may have built it already (see `published`).
        let current = self.state.read().expect("engine lock").generation == self.pool.generation();
        if !current {
            self.build_catalog();
        }
        self.emit(Change::Catalog);
    }

    /// Builds the catalog from the pool's current listings. The generation
    /// is read first, so a listing that changes meanwhile makes the next
    /// reader build again rather than be missed.
    fn build_catalog(&self) -> (Arc<Catalog>, Arc<HostForms>) {
        let generation = self.pool.generation();
        let listings = self.pool.listings();
        let mut state = self.state.write().expect("engine lock");
        let catalog = Arc::new(Catalog::build(
            &state.config.settings.separator,
            &state.overlays,
            &listings,
        ));
        let forms = Arc::new(HostForms::of(&catalog));
        state.catalog = catalog.clone();
        state.forms = forms.clone();
        state.generation = generation;
        (catalog, forms)
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn hosts(&self) -> &Arc<Hosts> {
        &self.hosts
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// Changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// The catalog in force, never older than the servers' listings: a
    /// request right after a server answered sees what it listed even if
    /// the background rebuild has not run yet.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.published().0
    }

    /// The catalog with its primitives in the host's typed form (index for
    /// index), built once per catalog rather than per list request.
    pub fn published(&self) -> (Arc<Catalog>, Arc<HostForms>) {
        {
            let state = self.state.read().expect("engine lock");
            if state.generation == self.pool.generation() {
                return (state.catalog.clone(), state.forms.clone());
            }
        }
        self.build_catalog()
    }

    /// The config in force.
    pub fn config(&self) -> Arc<Config> {
        self.state.read().expect("engine lock").config.clone()
    }

    /// Profile `name` in force: loaded on first use (the default profile is
    /// created then), then kept until a valid edit replaces it.
    pub fn profile(&self, name: &str) -> Result<Arc<ActiveProfile>, StoreError> {
        if let Some(active) = self.profiles.lock().expect("profiles lock").get(name) {
            return Ok(active.clone());
        }
        let active = Arc::new(self.load_profile(name)?);
        self.profiles
            .lock()
            .expect("profiles lock")
            .insert(name.to_string(), active.clone());
        Ok(active)
    }

    fn load_profile(&self, name: &str) -> Result<ActiveProfile, StoreError> {
        let config = self.config();
        let loaded = self.store.load_profile(name, Some(&config))?;
        let rules = Rules::new(&loaded.profile).expect("globs validated when parsed");
        Ok(ActiveProfile {
            name: loaded.name,
            profile: loaded.profile,
            rules,
        })
    }

    /// Re-reads profile `name` after its file changed. Only profiles in use
    /// are reloaded; a bad edit keeps the last good version.
    pub fn reload_profile(&self, name: &str) {
        if !self
            .profiles
            .lock()
            .expect("profiles lock")
            .contains_key(name)
        {
            return;
        }
        match self.load_profile(name) {
            Ok(active) => {
                let changed = {
                    let mut profiles = self.profiles.lock().expect("profiles lock");
                    let changed = profiles
                        .get(name)
                        .is_none_or(|old| old.profile != active.profile);
                    profiles.insert(name.to_string(), Arc::new(active));
                    changed
                };
                if changed {
                    tracing::info!(profile = name, "profile reloaded");
                    self.emit(Change::Profile(name.to_string()));
                }
            }
            Err(StoreError::NoProfile { .. }) => {
                tracing::warn!(
                    profile = name,
                    "profile file was removed; keeping its last version in force"
                );
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
        let overlays = Overlays::new(&config.overlays).expect("validated when parsed");
        {
            let mut state = self.state.write().expect("engine lock");
            state.config = Arc::new(config.clone());
            state.overlays = overlays;
            // Names and labels depend on the config: build again.
            state.generation = u64::MAX;
        }
        tracing::info!("config reloaded");
        self.pool.apply(endpoints(&config));
        self.rebuild_catalog();
        // Concern definitions may have changed what a profile may say.
        self.reload_profiles();
        self.emit(Change::Config);
    }

    /// Re-reads every profile in use.
    fn reload_profiles(&self) {
        let names: Vec<String> = self
            .profiles
            .lock()
            .expect("profiles lock")
            .keys()
            .cloned()
            .collect();
        for name in names {
            self.reload_profile(&name);
        }
    }

    /// Watches `config.json` and the profile files and applies every valid
    /// change live, for as long as the engine lives.
    pub fn watch_files(self: &Arc<Self>) -> anyhow::Result<()> {
        let (watcher, mut changes) = crate::watch::watch(self.store.home())?;
        *self.watcher.lock().expect("watcher lock") = Some(watcher);
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(change) = changes.recv().await {
                let Some(engine) = weak.upgrade() else { return };
                match change {
                    FileChange::Config => engine.reload_config(),
                    FileChange::Profile(name) => engine.reload_profile(&name),
                    FileChange::Rescan => {
                        engine.reload_config();
                        engine.reload_profiles();
                    }
                }
            }
        });
        Ok(())
    }

    /// The task ledger, or why there is none.
    pub fn ledger(&self) -> Result<&Ledger, ErrorData> {
        self.ledger.as_ref().ok_or_else(|| {
            ErrorData::internal_error(
                format!(
                    "the task ledger {} could not be opened (the proxy's log says why)",
                    self.store.home().tasks_db().display()
                ),
                None,
            )
        })
    }

    /// Records a plain `tools/call` of `tool` (exposed name) that did not
    /// succeed, so it can be retried; returns the new entry's id.
    pub fn record_call(
        &self,
        server: &str,
        tool: &str,
        params: &Value,
        profile: &str,
        outcome: (TaskStatus, String, Value),
        retry_of: Option<&str>,
    ) -> Option<String> {
        let ledger = self.ledger.as_ref()?;
        let (status, message, result) = outcome;
        let now = now_ms();
        let record = TaskRecord {
            id: Ledger::new_id(),
            kind: EntryKind::Call,
            server: server.to_string(),
            upstream_id: None,
            method: "tools/call".into(),
            tool: Some(tool.to_string()),
            params: params.clone(),
            status,
            status_message: Some(message),
            created_at: now,
            last_updated_at: now,
            ttl_ms: None,
            poll_interval_ms: None,
            profile: Some(profile.to_string()),
            retry_of: retry_of.map(String::from),
            result: Some(result),
        };
        match ledger.insert(&record) {
            Ok(()) => Some(record.id),
            Err(error) => {
                tracing::warn!("{error}");
                None
            }
        }
    }

    /// Whether the profile lets a caller see `record`: a task is as visible
    /// as the tool that started it.
    pub fn task_visible(
        catalog: &Catalog,
        profile: &ActiveProfile,
        narrowing: Option<&Narrowing>,
        record: &TaskRecord,
    ) -> bool {
        let name = record.tool.as_deref().unwrap_or_default();
        let tool = catalog
            .find(Kind::Tool, name)
            .cloned()
            .unwrap_or_else(|| Primitive::unlisted_tool(&record.server, name));
        let task = Primitive::task(
            &tool,
            record.upstream_id.as_deref().unwrap_or_default(),
            &record.id,
        );
        profile.rules.is_visible(&task, narrowing)
    }

    /// Runs entry `id` again: the recorded request to the same server, as
    /// a new entry that points to the old one. A completed entry (or one
    /// still running) is only run again with `force`; the tool must be
    /// visible under `profile`.
    pub async fn retry(
        &self,
        id: &str,
        force: bool,
        profile: &ActiveProfile,
    ) -> Result<(TaskRecord, Result<Value, ErrorData>), ErrorData> {
        let ledger = self.ledger()?;
        let old = ledger
            .get(id)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("there is no task {id:?}; tasks/list shows them"),
                    None,
                )
            })?;
        if !force && old.status == TaskStatus::Completed {
            return Err(ErrorData::invalid_params(
                format!("task {id:?} completed; retry with force to run it again"),
                None,
            ));
        }
        if !force && !old.status.is_terminal() {
            return Err(ErrorData::invalid_params(
                format!(
                    "task {id:?} is still {}; cancel it first, or retry with force",
                    old.status
                ),
                None,
            ));
        }
        if !Engine::task_visible(&self.catalog(), profile, None, &old) && profile.rules.enforce() {
            return Err(ErrorData::invalid_params(
                format!(
                    "task {id:?} calls a tool that profile {:?} hides, so it is not run again",
                    profile.name
                ),
                None,
            ));
        }
        let now = now_ms();
        let mut record = TaskRecord {
            id: Ledger::new_id(),
            kind: EntryKind::Call,
            upstream_id: None,
            status: TaskStatus::Working,
            status_message: Some(format!("retry of {id}")),
            created_at: now,
            last_updated_at: now,
            retry_of: Some(id.to_string()),
            profile: Some(profile.name.clone()),
            result: None,
            ..old.clone()
        };
        ledger
            .insert(&record)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let outcome = self
            .pool
            .call(&old.server, &old.method, old.params.clone())
            .await;
        let (status, message, result) = call_outcome(&outcome, false).unwrap_or_else(|| {
            let value = outcome
                .as_ref()
                .map(|r| serde_json::to_value(r).unwrap_or_default())
                .unwrap_or_default();
            (TaskStatus::Completed, "completed".to_string(), value)
        });
        let _ = ledger.update(&record.id, status, Some(&message), Some(&result), now_ms());
        record.status = status;
        record.status_message = Some(message);
        record.result = Some(result.clone());
        record.last_updated_at = now_ms();
        let answer = match outcome {
            Ok(_) => Ok(result),
            Err(error) => Err(error),
        };
        Ok((record, answer))
    }

    /// Stops every server.
    pub async fn shutdown(&self) {
        self.stopping.cancel();
        self.pool.shutdown().await;
    }
}
