//! Live reload: which of the user's files changed, as it happens.
//!
//! [`watch`] watches the config folder (for `config.json`), the profiles
//! folder and the data folder (for the task ledger, which every proxy
//! process writes), and sends a [`FileChange`] for each file that changed. It
//! watches folders, not files: every write of ours, and of most editors,
//! replaces the file by renaming a temporary one over it, and a watch on
//! the old file would see only its removal.
//!
//! Only the files a proxy reads count: backups (`*.bak`), our temporary
//! files (`.sieve-*.tmp`), editor swap and lock files (`.x.json.swp`,
//! `x.json~`, `.#x.json`, vim's `4913`) and reads are ignored. A save makes
//! several events (create, write, rename, close) within a few milliseconds.
//! The event that says a file now holds all it will (renamed into place,
//! as every save of ours and most editors' ends, or closed after writing)
//! is sent at once, so a host hears of a profile edit within milliseconds.
//! Any other event (a write still going on, a removal that may be the
//! first half of a save) waits until the folders have been quiet for
//! [`QUIET`], at most [`MAX_DELAY`] while files keep changing, and each
//! such file is then sent once; one save is one change.
//!
//! A change says which file to read again, not what it now holds: the
//! receiver reads the file, and keeps its last good version when the new
//! one does not parse (or is gone).

use crate::home::Home;
use anyhow::{Context, Result};
use notify::event::{AccessKind, AccessMode, ModifyKind, RenameMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use sieve_core::profile::is_valid_profile_name;
use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How long the folders must be quiet before changes still under way are
/// sent.
pub const QUIET: Duration = Duration::from_millis(100);

/// The longest a change is held back while files keep changing.
pub const MAX_DELAY: Duration = Duration::from_millis(500);

/// A file an event touched, and what the event says of its writing.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    change: FileChange,
    edge: Edge,
}

/// Where a file's writing stands after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// Written, created or removed: more may follow.
    Underway,
    /// Renamed into place: the file holds all it will.
    Whole,
    /// Closed after writing: whole if it was written to since it was last
    /// sent. (An atomic save closes the renamed file after the rename, and
    /// that close must not send it twice.)
    Closed,
}

/// Changes a slow receiver has not taken yet; beyond this the watcher
/// waits for it rather than dropping a change.
const BUFFER: usize = 64;

/// A file a running proxy should read again.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileChange {
    /// `config.json` was written, replaced or removed.
    Config,
    /// `profiles/<name>.json` was written, replaced, removed or renamed
    /// (a rename changes two profiles: the old name and the new one).
    Profile(String),
    /// The task ledger (`tasks.db` or its write-ahead log) was written.
    Tasks,
    /// `approvals.json` was written (a tool approved, a server first seen).
    Approvals,
    /// `secrets.json` (the secret store when there is no keychain) was
    /// written, or the keychain's stamp (`secrets.changed`): a sign-in may
    /// have been stored.
    Secrets,
    /// Changes may have been missed (the system's event queue overflowed,
    /// or watching failed): read `config.json` and every profile again.
    Rescan,
}

/// Watching stops when this is dropped; the receiver then ends.
#[derive(Debug)]
pub struct HomeWatcher {
    _watcher: RecommendedWatcher,
}

/// Starts watching `home`'s `config.json` and profiles, creating the
/// profiles folder if it is missing (a folder must exist to be watched).
///
/// Changes arrive on the receiver; the caller reads the files again. Events
/// are gathered on a thread of the watcher's own, so this needs no tokio
/// runtime and the receiver can be used from any.
pub fn watch(home: &Home) -> Result<(HomeWatcher, mpsc::Receiver<FileChange>)> {
    let profiles = home.profiles_dir();
    std::fs::create_dir_all(&profiles)
        .with_context(|| format!("cannot create the profiles folder {}", profiles.display()))?;
    let layout = Layout::new(home);
    let (raw_tx, raw_rx) = std_mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        for change in layout.changes(event) {
            // Fails only once the gathering thread is gone, when nobody
            // listens any more.
            let _ = raw_tx.send(change);
        }
    })
    .context("cannot start watching the config files")?;
    let data = home.data_dir();
    std::fs::create_dir_all(data)
        .with_context(|| format!("cannot create the data folder {}", data.display()))?;
    let mut dirs = vec![home.config_dir(), profiles.as_path()];
    if data != home.config_dir() {
        dirs.push(data);
    }
    for dir in dirs {
        watcher
            .watch(dir, RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {} for changes", dir.display()))?;
    }
    let (tx, rx) = mpsc::channel(BUFFER);
    std::thread::Builder::new()
        .name("sieve-watch".into())
        .spawn(move || gather(raw_rx, tx))
        .context("cannot start the file watching thread")?;
    Ok((HomeWatcher { _watcher: watcher }, rx))
}

/// Sends a file that is whole at once, and the other changes of a burst
/// once each when the burst is over (a file sent whole is not sent again
/// for the events of the same save).
///
/// Runs until the watcher is dropped (its event handler, and with it the
/// raw sender, goes away) or the receiver is.
fn gather(raw: std_mpsc::Receiver<Seen>, out: mpsc::Sender<FileChange>) {
    while let Ok(first) = raw.recv() {
        let started = Instant::now();
        let mut waiting: Vec<FileChange> = Vec::new();
        let mut next = Some(first);
        let mut watching = true;
        while let Some(seen) = next.take() {
            let written = waiting.contains(&seen.change);
            match seen.edge {
                Edge::Underway if !written => waiting.push(seen.change),
                Edge::Underway => {}
                Edge::Closed if !written => {}
                Edge::Whole | Edge::Closed => {
                    waiting.retain(|c| c != &seen.change);
                    if out.blocking_send(seen.change).is_err() {
                        return;
                    }
                }
            }
            if waiting.is_empty() {
                break;
            }
            let until = (Instant::now() + QUIET).min(started + MAX_DELAY);
            match raw.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(seen) => next = Some(seen),
                Err(std_mpsc::RecvTimeoutError::Timeout) => {}
                Err(std_mpsc::RecvTimeoutError::Disconnected) => watching = false,
            }
        }
        for change in waiting {
            if out.blocking_send(change).is_err() {
                return;
            }
        }
        if !watching {
            return;
        }
    }
}

/// The watched folders, as given and as the system may report them
/// (macOS reports `/private/var/..` for `/var/..`).
#[derive(Debug, Clone)]
struct Layout {
    config_dirs: Vec<PathBuf>,
    profile_dirs: Vec<PathBuf>,
    data_dirs: Vec<PathBuf>,
}

impl Layout {
    fn new(home: &Home) -> Layout {
        let both = |dir: &Path| {
            let mut dirs = vec![dir.to_path_buf()];
            dirs.extend(dir.canonicalize().ok().filter(|c| c != dir));
            dirs
        };
        Layout {
            config_dirs: both(home.config_dir()),
            profile_dirs: both(&home.profiles_dir()),
            data_dirs: both(home.data_dir()),
        }
    }

    /// The files an event touches that a proxy reads.
    fn changes(&self, event: notify::Result<Event>) -> Vec<Seen> {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                tracing::warn!(%error, "watching the config files failed; reading them all again");
                return vec![Seen {
                    change: FileChange::Rescan,
                    edge: Edge::Whole,
                }];
            }
        };
        if event.need_rescan() {
            return vec![Seen {
                change: FileChange::Rescan,
                edge: Edge::Whole,
            }];
        }
        let edge = match event.kind {
            // The end of an atomic save.
            EventKind::Modify(ModifyKind::Name(RenameMode::To)) => Edge::Whole,
            // The end of a write in place (or of a save's temporary file,
            // after its rename).
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => Edge::Closed,
            // Opening or reading a file changes nothing, and reacting to it
            // would loop: every reload reads the files. Permissions and
            // times are not content.
            EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => return Vec::new(),
            // The same rename as its `From` and `To` halves.
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) if event.paths.len() == 2 => {
                return Vec::new();
            }
            _ => Edge::Underway,
        };
        event
            .paths
            .iter()
            .filter_map(|p| self.file(p))
            .map(|change| Seen { change, edge })
            .collect()
    }

    /// The change `path` stands for, if any.
    fn file(&self, path: &Path) -> Option<FileChange> {
        let dir = path.parent()?;
        let name = path.file_name()?.to_str()?;
        if self.profile_dirs.iter().any(|d| d == dir) {
            // Backups (`x.json.bak`), temporary and swap files do not end
            // in `.json`; lock files (`.#x.json`) are not profile names.
            let stem = name.strip_suffix(".json")?;
            return is_valid_profile_name(stem).then(|| FileChange::Profile(stem.to_string()));
        }
        // SQLite writes the log, and the database at checkpoints; its
        // shared-memory index changes on reads too, so it does not count.
        if matches!(name, "tasks.db" | "tasks.db-wal") && self.data_dirs.iter().any(|d| d == dir) {
            return Some(FileChange::Tasks);
        }
        if matches!(name, "secrets.json" | crate::secrets::KEYCHAIN_STAMP)
            && self.data_dirs.iter().any(|d| d == dir)
        {
            return Some(FileChange::Secrets);
        }
        if !self.config_dirs.iter().any(|d| d == dir) {
            return None;
        }
        match name {
            "config.json" => Some(FileChange::Config),
            "approvals.json" => Some(FileChange::Approvals),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use notify::event::{CreateKind, Flag};
    use sieve_core::{Config, Profile};
    use std::collections::BTreeSet;
    use std::fs;
    use tokio::time::timeout;

    /// Far above the fraction of a second a change takes, for slow and
    /// busy machines.
    const PATIENCE: Duration = Duration::from_secs(10);

    struct Fixture {
        _dir: tempfile::TempDir,
        store: Store,
        _watcher: HomeWatcher,
        changes: mpsc::Receiver<FileChange>,
    }

    impl Fixture {
        /// A watched home; `setup` runs on it before watching starts.
        fn new(setup: impl FnOnce(&Home)) -> Fixture {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let home = Home::at(dir.path());
            setup(&home);
            let (watcher, changes) = watch(&home).expect("watching starts");
            Fixture {
                _dir: dir,
                store: Store::new(home),
                _watcher: watcher,
                changes,
            }
        }

        fn home(&self) -> &Home {
            self.store.home()
        }

        async fn next(&mut self, waiting_for: &str) -> FileChange {
            timeout(PATIENCE, self.changes.recv())
                .await
                .unwrap_or_else(|_| panic!("no change arrived while waiting for {waiting_for}"))
                .expect("the watcher is still running")
        }

        /// Saves a profile as the app does and expects it to be the very
        /// next change: proof that nothing else (a duplicate, an ignored
        /// file) was sent before it.
        async fn expect_only_marker(&mut self, after: &str) {
            self.store
                .save_profile("marker", &Profile::default())
                .expect("the marker profile is saved");
            assert_eq!(
                self.next("the marker profile").await,
                FileChange::Profile("marker".into()),
                "{after} sent a change of its own"
            );
        }
    }

    #[tokio::test]
    async fn an_atomic_config_save_is_one_change() {
        let mut fx = Fixture::new(|home| {
            fs::write(home.config_file(), "{}").expect("a first config.json");
        });
        fx.store
            .save_config(&Config::default())
            .expect("config.json is saved");
        assert_eq!(fx.next("config.json").await, FileChange::Config);
        assert!(
            fx.home().config_dir().join("config.json.bak").exists(),
            "the save made a backup, whose events must not count"
        );
        fx.expect_only_marker("the config save").await;
    }

    #[tokio::test]
    async fn profiles_written_in_place_renamed_and_deleted() {
        let mut fx = Fixture::new(|_| {});
        let profiles = fx.home().profiles_dir();
        assert!(profiles.is_dir(), "watching creates the profiles folder");

        fx.store
            .save_profile("work", &Profile::default())
            .expect("saved");
        assert_eq!(fx.next("work").await, FileChange::Profile("work".into()));
        fx.expect_only_marker("the atomic save of work").await;

        // As an editor that writes in place does.
        fs::write(profiles.join("work.json"), "{\"groups\": [\"g\"]}").expect("written");
        assert_eq!(fx.next("work").await, FileChange::Profile("work".into()));
        fx.expect_only_marker("the in-place write of work").await;

        fs::rename(profiles.join("work.json"), profiles.join("play.json")).expect("renamed");
        let renamed = BTreeSet::from([fx.next("rename").await, fx.next("rename").await]);
        assert_eq!(
            renamed,
            BTreeSet::from([
                FileChange::Profile("play".into()),
                FileChange::Profile("work".into())
            ])
        );
        fx.expect_only_marker("the rename").await;

        fs::remove_file(profiles.join("play.json")).expect("deleted");
        assert_eq!(fx.next("play").await, FileChange::Profile("play".into()));
        fx.expect_only_marker("the deletion").await;
    }

    #[tokio::test]
    async fn backups_temporary_files_swap_files_and_reads_are_ignored() {
        let mut fx = Fixture::new(|home| {
            fs::write(home.config_file(), "{}").expect("a first config.json");
        });
        let profiles = fx.home().profiles_dir();
        let config_dir = fx.home().config_dir().to_path_buf();
        for dir in [&profiles, &config_dir] {
            for name in [
                "work.json.bak",
                "config.json.bak",
                ".sieve-a1b2c3.tmp",
                ".work.json.swp",
                ".config.json.swp",
                "work.json~",
                "config.json~",
                ".#work.json",
                "4913",
                "notes.txt",
            ] {
                fs::write(dir.join(name), "x").expect("noise written");
            }
        }
        fs::write(config_dir.join("other.json"), "{}").expect("written");
        fs::create_dir(profiles.join("nested")).expect("created");
        fs::write(profiles.join("nested/deep.json"), "{}").expect("written");
        fs::read_to_string(fx.home().config_file()).expect("config.json is read");
        fx.expect_only_marker("a file no proxy reads").await;
    }

    #[tokio::test]
    async fn dropping_the_watcher_ends_the_changes() {
        let Fixture {
            _watcher: watcher,
            mut changes,
            ..
        } = Fixture::new(|_| {});
        drop(watcher);
        let end = timeout(PATIENCE, changes.recv())
            .await
            .expect("the receiver ends soon after the watcher is dropped");
        assert_eq!(end, None);
    }

    fn layout() -> Layout {
        Layout::new(&Home::at(Path::new("/h")))
    }

    fn event(kind: EventKind, paths: &[&str]) -> notify::Result<Event> {
        let mut event = Event::new(kind);
        for path in paths {
            event = event.add_path(PathBuf::from(path));
        }
        Ok(event)
    }

    /// The files of `event`, and where the writing of each stands.
    fn seen(layout: &Layout, event: notify::Result<Event>) -> Vec<(FileChange, Edge)> {
        layout
            .changes(event)
            .into_iter()
            .map(|s| (s.change, s.edge))
            .collect()
    }

    #[test]
    fn events_become_file_changes() {
        let layout = layout();
        let create = EventKind::Create(CreateKind::File);
        assert_eq!(
            seen(
                &layout,
                event(create, &["/h/config.json", "/h/profiles/a.json"])
            ),
            [
                (FileChange::Config, Edge::Underway),
                (FileChange::Profile("a".into()), Edge::Underway)
            ]
        );
        // The end of an atomic save: whole at once.
        let renamed_to = EventKind::Modify(ModifyKind::Name(RenameMode::To));
        assert_eq!(
            seen(&layout, event(renamed_to, &["/h/profiles/b.json"])),
            [(FileChange::Profile("b".into()), Edge::Whole)]
        );
        // An approval made in another process reaches this one.
        assert_eq!(
            seen(&layout, event(renamed_to, &["/h/approvals.json"])),
            [(FileChange::Approvals, Edge::Whole)]
        );
        // The other halves of a rename: the old name waits for the burst to
        // end (it may be an editor's first step of a save); `Both` repeats
        // `From` and `To`.
        let renamed_from = EventKind::Modify(ModifyKind::Name(RenameMode::From));
        assert_eq!(
            seen(&layout, event(renamed_from, &["/h/profiles/b.json"])),
            [(FileChange::Profile("b".into()), Edge::Underway)]
        );
        let both = EventKind::Modify(ModifyKind::Name(RenameMode::Both));
        assert_eq!(
            seen(&layout, event(both, &["/h/.sieve-y.tmp", "/h/config.json"])),
            []
        );
        for ignored in [
            "/h/approvals.json.lock",
            "/h/approvals.json.bak",
            "/h/profiles/config.json.bak",
            "/h/profiles/bad name.json",
            "/h/profiles/-x.json",
            "/h/profiles",
            "/h/other/config.json",
            "/h/profiles/config.json/x",
            "/h/tasks.db-shm",
            "/h/profiles/tasks.db",
        ] {
            assert_eq!(seen(&layout, event(create, &[ignored])), [], "{ignored}");
        }
        // The ledger: every proxy process writes it, the app shows it live;
        // SQLite keeps it open, so its writes wait for the burst to end.
        let write = EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Content));
        assert_eq!(
            seen(&layout, event(write, &["/h/tasks.db-wal", "/h/tasks.db"])),
            [
                (FileChange::Tasks, Edge::Underway),
                (FileChange::Tasks, Edge::Underway)
            ]
        );
        // A sign-in stored by another process: in the secrets file, or in
        // the keychain, whose stamp says it changed.
        for stored in ["/h/secrets.json", "/h/secrets.changed"] {
            assert_eq!(
                seen(&layout, event(write, &[stored])),
                [(FileChange::Secrets, Edge::Underway)],
                "{stored}"
            );
        }
        let chmod = EventKind::Modify(ModifyKind::Metadata(
            notify::event::MetadataKind::Permissions,
        ));
        assert_eq!(seen(&layout, event(chmod, &["/h/config.json"])), []);
    }

    #[test]
    fn reads_are_ignored_but_a_finished_write_counts() {
        let layout = layout();
        let paths = ["/h/config.json"];
        for read in [
            AccessKind::Open(AccessMode::Any),
            AccessKind::Read,
            AccessKind::Close(AccessMode::Read),
        ] {
            assert_eq!(seen(&layout, event(EventKind::Access(read), &paths)), []);
        }
        let closed = EventKind::Access(AccessKind::Close(AccessMode::Write));
        assert_eq!(
            seen(&layout, event(closed, &paths)),
            [(FileChange::Config, Edge::Closed)]
        );
    }

    /// A whole file goes out at once, without waiting for the quiet time,
    /// and once: the close after an atomic save's rename sends nothing, the
    /// close of a file written in place sends it. Writes still under way
    /// wait for the quiet time.
    #[test]
    fn a_whole_file_is_sent_at_once_and_once() {
        let (raw, events) = std_mpsc::channel();
        let (out, mut changes) = mpsc::channel(BUFFER);
        let gathering = std::thread::spawn(move || gather(events, out));
        let send = |change: FileChange, edge| raw.send(Seen { change, edge }).expect("sent");
        let work = || FileChange::Profile("work".into());

        // An atomic save: renamed into place, then its file closed.
        let started = Instant::now();
        send(work(), Edge::Whole);
        send(work(), Edge::Closed);
        assert_eq!(changes.blocking_recv(), Some(work()));
        // In place: written, then closed.
        send(FileChange::Config, Edge::Underway);
        send(FileChange::Config, Edge::Closed);
        assert_eq!(changes.blocking_recv(), Some(FileChange::Config));
        assert!(
            started.elapsed() < QUIET,
            "whole files waited for the quiet time"
        );
        // The ledger is written and never closed: it waits for the quiet
        // time, and nothing was sent twice before it.
        let written = Instant::now();
        send(FileChange::Tasks, Edge::Underway);
        assert_eq!(changes.blocking_recv(), Some(FileChange::Tasks));
        assert!(
            written.elapsed() >= QUIET,
            "a write under way was sent before the folders were quiet"
        );
        drop(raw);
        assert_eq!(changes.blocking_recv(), None);
        gathering.join().expect("the gathering thread ends");
    }

    #[test]
    fn lost_events_and_errors_ask_for_a_rescan() {
        let layout = layout();
        let overflow = Event::new(EventKind::Other).set_flag(Flag::Rescan);
        assert_eq!(
            seen(&layout, Ok(overflow)),
            [(FileChange::Rescan, Edge::Whole)]
        );
        let error = notify::Error::generic("inotify went away");
        assert_eq!(
            seen(&layout, Err(error)),
            [(FileChange::Rescan, Edge::Whole)]
        );
    }
}
