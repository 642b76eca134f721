//! What a person is told when a proxy or the app starts and the groups
//! its profiles name have changed under them: a name written bare (before
//! groups belonged to their server) now meaning that group in several
//! servers, and a group a profile names that is gone since the last start
//! (derived groups are named anew as derivation improves).
//!
//! Each start compares the servers' groups now with those it saw last
//! time, kept per kind of start (`proxy`, `app`) in the data folder's
//! `groups-seen.json`, so the app says it even when a host's proxy
//! started first. A server that did not answer keeps what was seen of it.

use super::{ApiError, ErrorCode, Result};
use sieve_core::Catalog;
use sieve_core::labels::{group_matches, split_group};
use sieve_store::store::{Store, atomic_write, lock_file, lock_path};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// What `groups-seen.json` keeps: per kind of start, per server, its groups.
type Seen = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The file of the groups seen at each kind of start.
pub fn seen_file(store: &Store) -> PathBuf {
    store.home().data_dir().join("groups-seen.json")
}

/// The notices of a start of kind `who` (`proxy`, `app`) with the servers'
/// groups in `catalog`, each one sentence; then what was seen is kept for
/// the next start. Empty when nothing a profile names changed.
pub fn group_notices(store: &Store, catalog: &Catalog, who: &str) -> Result<Vec<String>> {
    let path = seen_file(store);
    let _lock = lock_file(&lock_path(&path))?;
    let mut seen: Seen = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|error| {
            ApiError::new(
                ErrorCode::Invalid,
                format!(
                    "{} does not read ({error}); delete it and the next start says again what changed in the groups",
                    path.display()
                ),
            )
        })?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Seen::new(),
        Err(error) => {
            return Err(sieve_store::error::StoreError::Io {
                action: "read",
                path,
                cause: error,
            }
            .into());
        }
    };
    let now = groups_by_server(catalog);
    let before = seen.get(who);
    let mut notices = Vec::new();
    for name in store.profile_names()? {
        let Ok(loaded) = store.load_profile(&name, None) else {
            continue;
        };
        let groups = &loaded.profile.groups;
        for (list, named) in [("groups.any", &groups.any), ("groups.none", &groups.none)] {
            for group in named {
                notices.extend(notice(&name, list, group, &now, before));
            }
        }
    }
    let kept = seen.entry(who.to_string()).or_default();
    let changed = now
        .iter()
        .any(|(server, groups)| kept.get(server) != Some(groups));
    if changed {
        kept.extend(now);
        let text = serde_json::to_string_pretty(&seen).expect("the seen groups encode");
        atomic_write(&path, text.as_bytes())?;
    }
    Ok(notices)
}

/// Every server's groups in `catalog`, `SERVER/GROUP` each.
fn groups_by_server(catalog: &Catalog) -> BTreeMap<String, BTreeSet<String>> {
    let mut by_server: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for primitive in catalog.primitives() {
        let groups = by_server.entry(primitive.server.clone()).or_default();
        groups.extend(
            primitive
                .labels
                .groups
                .iter()
                .filter(|g| split_group(g).is_some())
                .cloned(),
        );
    }
    by_server
}

/// What to say of `group`, named in `list` of profile `profile`, or
/// nothing when it means what it meant at the last start.
fn notice(
    profile: &str,
    list: &str,
    group: &str,
    now: &BTreeMap<String, BTreeSet<String>>,
    before: Option<&BTreeMap<String, BTreeSet<String>>>,
) -> Option<String> {
    let matching = |groups: &BTreeMap<String, BTreeSet<String>>| -> Vec<String> {
        groups
            .values()
            .flatten()
            .filter(|g| group_matches(g, group))
            .cloned()
            .collect()
    };
    let means = matching(now);
    match before {
        // The first start that keeps groups per server: a bare name in a
        // profile means that group in each server that has it, which is
        // news where two or more have it.
        None if split_group(group).is_none() && means.len() >= 2 => Some(format!(
            "profile {profile:?}: {list} names {group:?} without a server; groups now belong to their server, so it means {}; `mcp-sieve profiles set {profile} group on|off SERVER/GROUP` (or the Tools screen) switches one of them alone",
            means.join(" and ")
        )),
        // Gone since the last start, on a server that answered.
        Some(before) if means.is_empty() => {
            let was: Vec<String> = matching(before)
                .into_iter()
                .filter(|g| split_group(g).is_some_and(|(server, _)| now.contains_key(server)))
                .collect();
            if was.is_empty() {
                return None;
            }
            let servers: BTreeSet<&str> = was
                .iter()
                .filter_map(|g| split_group(g).map(|(s, _)| s))
                .collect();
            let has: Vec<String> = servers
                .iter()
                .map(|server| {
                    let names: Vec<&str> = now[*server].iter().map(String::as_str).collect();
                    format!("{server} has {}", names.join(", "))
                })
                .collect();
            Some(format!(
                "profile {profile:?}: {list} names {group:?}, which is gone since the last start (derived groups are named anew as derivation improves); {}",
                has.join("; ")
            ))
        }
        _ => None,
    }
}

/// [`group_notices`] once `engine`'s servers have each been listed or
/// failed (at most [`SETTLE`](crate::catalog::SETTLE)).
pub async fn at_start(engine: &sieve_gateway::engine::Engine, who: &str) -> Result<Vec<String>> {
    engine.settled(crate::catalog::SETTLE).await;
    group_notices(engine.store(), &engine.catalog(), who)
}
