//! The engine of one proxy process: the user's config and profiles, the
//! upstream pool, and the catalog built from what the servers list.
//!
//! Host connections read from it ([`Engine::view`]) and subscribe to its
//! [`Change`]s to send `list_changed`. Files are reloaded on demand
//! ([`Engine::reload_config`], [`Engine::reload_profile`], called by the
//! file watcher): a file that does not parse is reported once and the last
//! good version stays in force.

use crate::hosts::Hosts;
use crate::store::{Store, StoreError};
use crate::upstream::{Endpoint, Pool, PoolEvent};
use crate::watch::FileChange;
use sieve_core::{Catalog, Config, Overlays, Profile, Rules};
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
}

struct State {
    config: Arc<Config>,
    overlays: Overlays,
    catalog: Arc<Catalog>,
}

/// The servers of a config; the built-in demo when it lists none.
pub fn endpoints(config: &Config) -> BTreeMap<String, Endpoint> {
    if config.mcp_servers.is_empty() {
        return BTreeMap::from([(BUILTIN_SERVER.to_string(), Endpoint::Builtin)]);
    }
    config
        .enabled_servers()
        .map(|(name, server)| (name.clone(), Endpoint::Configured(server.clone())))
        .collect()
}

impl Engine {
    /// Loads the config and starts every server. A config that does not
    /// parse stops the start with its error: there is no last good one yet.
    pub fn start(store: Store) -> Result<Arc<Engine>, StoreError> {
        let config = store.load_config()?;
        let overlays = Overlays::new(&config.overlays).expect("validated when parsed");
        let hosts = Arc::new(Hosts::default());
        let pool = Pool::new(hosts.clone());
        let (changes, _) = broadcast::channel(256);
        let engine = Arc::new(Engine {
            store,
            hosts,
            pool: pool.clone(),
            state: RwLock::new(State {
                config: Arc::new(config.clone()),
                overlays,
                catalog: Arc::new(Catalog::default()),
            }),
            profiles: Mutex::new(HashMap::new()),
            changes,
            watcher: Mutex::new(None),
        });
        let mut events = pool.events();
        let weak = Arc::downgrade(&engine);
        tokio::spawn(async move {
            loop {
                let event = match events.recv().await {
                    Ok(event) => Some(event),
                    // Missed events only mean the catalog is rebuilt once
                    // for several of them.
                    Err(broadcast::error::RecvError::Lagged(_)) => None,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let Some(engine) = weak.upgrade() else { return };
                match event {
                    Some(PoolEvent::Status { server }) => engine.emit(Change::Status(server)),
                    Some(PoolEvent::Listing { .. }) | None => engine.rebuild_catalog(),
                }
            }
        });
        pool.apply(endpoints(&config));
        Ok(engine)
    }

    fn emit(&self, change: Change) {
        let _ = self.changes.send(change);
    }

    fn rebuild_catalog(&self) {
        let listings = self.pool.listings();
        let mut state = self.state.write().expect("engine lock");
        let catalog = Catalog::build(&state.config.settings.separator, &state.overlays, &listings);
        state.catalog = Arc::new(catalog);
        drop(state);
        self.emit(Change::Catalog);
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

    /// The catalog in force.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.state.read().expect("engine lock").catalog.clone()
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
        }
        tracing::info!("config reloaded");
        self.pool.apply(endpoints(&config));
        self.rebuild_catalog();
        // Concern definitions may have changed what a profile may say.
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
        self.emit(Change::Config);
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
                        let names: Vec<String> = engine
                            .profiles
                            .lock()
                            .expect("profiles lock")
                            .keys()
                            .cloned()
                            .collect();
                        for name in names {
                            engine.reload_profile(&name);
                        }
                    }
                }
            }
        });
        Ok(())
    }

    /// Stops every server.
    pub async fn shutdown(&self) {
        self.pool.shutdown().await;
    }
}
