//! The documents of one user (or one team): `config.json`,
//! `profiles/<name>.json`, `approvals.json` and the HTTP token, kept as
//! files or in PostgreSQL by a [`Backend`] (`crate::state`).
//!
//! Every change is one read-modify-write under an exclusive OS lock on
//! that file ([`Store::update_config`], [`Store::update_profile`],
//! [`Store::update_approvals`], and [`update_locked`] under them): the
//! file is read again under the lock, changed, checked as a load would
//! check it, written atomically (temp file, fsync, rename, fsync of the
//! folder) keeping the previous version as `<file>.bak`, and the lock
//! released. So the app, any number of command lines and every proxy
//! process may change one file at once and no change is lost. Readers
//! take no lock and never wait: a rename shows them the old or the new
//! file, whole. A file that does not parse is never overwritten: changes
//! to it are refused with the parse error, so a hand edit with a typo is
//! not lost to the app or a command.

use crate::atomic::locked_change;
pub use crate::atomic::{atomic_write, backup_path, lock_file, lock_path};
pub use crate::error::{StoreError, Uncompilable};
use crate::home::Home;
use crate::state::{Backend, Doc};
use sieve_core::profile::{DEFAULT_PROFILE, is_valid_profile_name};
use sieve_core::{Approvals, Config, ParseError, Profile};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A profile as read from disk: its text and what it says.
#[derive(Debug, Clone)]
pub struct LoadedProfile {
    pub name: String,
    pub path: PathBuf,
    pub text: String,
    pub profile: Profile,
}

/// Reads and writes the documents of a [`Home`]: its files, or a
/// team's database.
#[derive(Debug, Clone)]
pub struct Store {
    home: Home,
    backend: Arc<dyn Backend>,
}

impl Store {
    /// The files under `home`.
    pub fn new(home: Home) -> Store {
        let backend = Arc::new(crate::state::files::Files::new(home.clone()));
        Store { home, backend }
    }

    /// The store a person names: `--state URL`, `MCP_SIEVE_STATE`, or
    /// `settings.state` in this machine's `config.json` (which then only
    /// points at the team's database); none of them, the files of `home`.
    pub fn open(home: Home, state: Option<&str>) -> Result<Store, StoreError> {
        let named = match state.map(str::trim).filter(|url| !url.is_empty()) {
            Some(url) => Some(url.to_string()),
            None => {
                let path = home.config_file();
                match crate::atomic::read_optional(&path)? {
                    Some(text) => {
                        Config::parse(&path.display().to_string(), &text)?
                            .settings
                            .state
                    }
                    None => None,
                }
            }
        };
        let Some(url) = named else {
            return Ok(Store::new(home));
        };
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(StoreError::BadState {
                url: sieve_postgres::redact(&url),
            });
        }
        let db = sieve_postgres::Database::connect(&url)?;
        let backend = Arc::new(crate::state::postgres::Postgres::new(db));
        Ok(Store::with_backend(home, backend))
    }

    /// The documents of `backend`; `home` still holds what stays on this
    /// machine (the task ledger's folder, `hosts.json`, secrets).
    pub fn with_backend(home: Home, backend: Arc<dyn Backend>) -> Store {
        Store { home, backend }
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    /// What keeps the documents.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// Whether the documents are a team's, in its database (`--state`).
    pub fn is_team(&self) -> bool {
        self.backend.database().is_some()
    }

    /// Where `doc` is, as messages name it.
    pub fn location(&self, doc: &Doc) -> PathBuf {
        self.backend.location(doc)
    }

    /// Where `doc`'s previous version is kept (the file's `.bak`, or its
    /// row's previous text in a team's database), as messages name it.
    pub fn previous_location(&self, doc: &Doc) -> String {
        let location = self.location(doc);
        match self.backend.database() {
            Some(_) => format!(
                "the previous version of {} in the team's database",
                location.display()
            ),
            None => backup_path(&location).display().to_string(),
        }
    }

    /// Where the HTTP front's bearer token is kept, as a person is told:
    /// the team's database, where every replica finds the same one, or
    /// this machine's file.
    pub fn token_location(&self) -> String {
        match self.backend.database() {
            Some(db) => format!("the team's database at {}", db.url()),
            None => self.location(&Doc::Token).display().to_string(),
        }
    }

    fn file_name(&self, doc: &Doc) -> String {
        self.location(doc).display().to_string()
    }

    /// Changes `doc` as [`update_locked`] changes a file, through the
    /// backend.
    fn update_doc<T, R, E>(
        &self,
        doc: &Doc,
        when: (Absent, WriteWhen),
        parse: impl FnOnce(&str) -> Result<T, ParseError>,
        render: impl FnOnce(&T) -> Result<String, StoreError>,
        change: impl FnOnce(&mut T) -> Result<R, E>,
    ) -> Result<R, E>
    where
        T: Default + Clone + PartialEq,
        E: From<StoreError>,
    {
        typed_update(
            self.location(doc),
            |change| self.backend.update(doc, change),
            when,
            parse,
            render,
            change,
        )
    }

    /// `config.json`, or the empty config when there is none yet.
    pub fn load_config(&self) -> Result<Config, StoreError> {
        match self.backend.read(&Doc::Config)? {
            Some(text) => Ok(Config::parse(&self.file_name(&Doc::Config), &text)?),
            None => Ok(Config::default()),
        }
    }

    /// Changes `config.json` under its lock: reads it again, lets `change`
    /// edit it, checks the result as a load would and writes it when it
    /// changed. Nothing is written when `change` or the check fails, or
    /// when the file on disk does not parse.
    pub fn update_config<R, E: From<StoreError>>(
        &self,
        change: impl FnOnce(&mut Config) -> Result<R, E>,
    ) -> Result<R, E> {
        self.change_config(WriteWhen::Changed, change)
    }

    fn change_config<R, E: From<StoreError>>(
        &self,
        write: WriteWhen,
        change: impl FnOnce(&mut Config) -> Result<R, E>,
    ) -> Result<R, E> {
        let file = self.file_name(&Doc::Config);
        self.update_doc(
            &Doc::Config,
            (Absent::Empty, write),
            |text| Config::parse(&file, text),
            |config| {
                let text = pretty(config);
                // What is written must load: the same parse a reader does.
                Config::parse(&file, &text).map_err(|error| StoreError::Invalid { error })?;
                Ok(text)
            },
            change,
        )
    }

    /// Replaces `config.json` with `config` (under its lock, checked, never
    /// over a file that does not parse). Prefer [`Store::update_config`]:
    /// a whole replacement loses what another process changed since
    /// `config` was read.
    pub fn save_config(&self, config: &Config) -> Result<(), StoreError> {
        self.change_config(WriteWhen::Always, |current| {
            *current = config.clone();
            Ok::<_, StoreError>(())
        })
    }

    /// Makes `config.json.bak` a copy of `config.json` as it is now, under
    /// the file's lock: after a secret was moved out of the file, the
    /// backup must not keep it.
    pub fn refresh_config_backup(&self) -> Result<(), StoreError> {
        self.backend.forget_previous(&Doc::Config)
    }

    /// `approvals.json`, or none yet when there is no file.
    pub fn load_approvals(&self) -> Result<Approvals, StoreError> {
        match self.backend.read(&Doc::Approvals)? {
            Some(text) => Ok(Approvals::parse(&self.file_name(&Doc::Approvals), &text)?),
            None => Ok(Approvals::default()),
        }
    }

    /// Reads `approvals.json`, lets `change` edit it and writes it back if
    /// it changed, all under the file's lock, so approvals two processes
    /// make at once both stay. Returns what the file holds afterwards. A
    /// file that does not parse is left as it is and the change refused.
    pub fn update_approvals<R>(
        &self,
        change: impl FnOnce(&mut Approvals) -> R,
    ) -> Result<(Approvals, R), StoreError> {
        let file = self.file_name(&Doc::Approvals);
        self.update_doc(
            &Doc::Approvals,
            (Absent::Empty, WriteWhen::Changed),
            |text| Approvals::parse(&file, text),
            |approvals| Ok(approvals.to_json()),
            |approvals| {
                let result = change(approvals);
                Ok::<_, StoreError>((approvals.clone(), result))
            },
        )
    }

    /// Loads profile `name`; the `default` profile is created on first use.
    /// With `config`, concern values are checked against its definitions.
    pub fn load_profile(
        &self,
        name: &str,
        config: Option<&Config>,
    ) -> Result<LoadedProfile, StoreError> {
        check_name(name)?;
        if name == DEFAULT_PROFILE {
            self.ensure_default()?;
        }
        let doc = Doc::Profile(name.to_string());
        let path = self.location(&doc);
        let text = self
            .backend
            .read(&doc)?
            .ok_or_else(|| StoreError::NoProfile {
                name: name.to_string(),
            })?;
        let file = path.display().to_string();
        let profile = Profile::parse(&file, &text)?;
        if let Some(config) = config {
            profile.check_against(config, &file, &text)?;
        }
        Ok(LoadedProfile {
            name: name.to_string(),
            path,
            text,
            profile,
        })
    }

    /// Creates `profiles/default.json` (an empty profile: everything shows)
    /// when it does not exist. An existing file is left alone.
    pub fn ensure_default(&self) -> Result<(), StoreError> {
        let profile = Profile {
            description: "Everything every server offers".into(),
            ..Profile::default()
        };
        // Made only when absent: another process may make it meanwhile.
        self.backend
            .create(&Doc::Profile(DEFAULT_PROFILE.into()), &pretty(&profile))
            .map(drop)
    }

    /// Profile names in order, `default` included.
    pub fn profile_names(&self) -> Result<Vec<String>, StoreError> {
        self.ensure_default()?;
        let mut names = self.backend.profile_names()?;
        names.sort();
        Ok(names)
    }

    /// Changes profile `name` under its file's lock: reads it again, lets
    /// `change` edit it, checks the result as a load would and writes it
    /// when it changed. The profile must exist (the `default` one is made
    /// on first use); nothing is written when `change` or the check fails.
    pub fn update_profile<R, E: From<StoreError>>(
        &self,
        name: &str,
        change: impl FnOnce(&mut Profile) -> Result<R, E>,
    ) -> Result<R, E> {
        check_name(name)?;
        if name == DEFAULT_PROFILE {
            self.ensure_default()?;
        }
        let doc = Doc::Profile(name.to_string());
        let file = self.file_name(&doc);
        self.update_doc(
            &doc,
            (
                Absent::Refuse(StoreError::NoProfile {
                    name: name.to_string(),
                }),
                WriteWhen::Changed,
            ),
            |text| Profile::parse(&file, text),
            |profile| profile_text(&file, profile),
            change,
        )
    }

    /// Writes profile `name` whole (made if it is not there), under its
    /// lock, never over a file that does not parse. Prefer
    /// [`Store::update_profile`] for a change to an existing profile: a
    /// whole replacement loses what another process changed meanwhile.
    pub fn save_profile(&self, name: &str, profile: &Profile) -> Result<(), StoreError> {
        check_name(name)?;
        let doc = Doc::Profile(name.to_string());
        let file = self.file_name(&doc);
        self.update_doc(
            &doc,
            (Absent::Empty, WriteWhen::Always),
            |text| Profile::parse(&file, text),
            |profile| profile_text(&file, profile),
            |current| {
                *current = profile.clone();
                Ok::<_, StoreError>(())
            },
        )
    }

    /// Creates profile `name`, empty or as a copy of `from`; a name taken
    /// meanwhile by another process is refused, never replaced.
    pub fn new_profile(&self, name: &str, from: Option<&str>) -> Result<Profile, StoreError> {
        check_name(name)?;
        let profile = match from {
            Some(source) => self.load_profile(source, None)?.profile,
            None => Profile::default(),
        };
        if self
            .backend
            .create(&Doc::Profile(name.to_string()), &pretty(&profile))?
        {
            Ok(profile)
        } else {
            Err(StoreError::ProfileExists {
                name: name.to_string(),
            })
        }
    }

    /// The bearer token of the HTTP endpoint: read, or made (32 random
    /// bytes, hex) and kept readable by the user only; every process (and
    /// every replica of a team gateway) agrees on one.
    pub fn http_token(&self) -> Result<String, StoreError> {
        let read = || -> Result<Option<String>, StoreError> {
            Ok(self
                .backend
                .read(&Doc::Token)?
                .map(|text| text.trim().to_string())
                .filter(|token| token.len() >= 32))
        };
        if let Some(token) = read()? {
            return Ok(token);
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| StoreError::Io {
            action: "make a random token for",
            path: self.location(&Doc::Token),
            cause: io::Error::other(e.to_string()),
        })?;
        let made: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        // Under the token's lock, so two processes starting at once agree
        // on one token instead of each keeping its own.
        self.backend.update(&Doc::Token, &mut |text| {
            let kept = text.map(str::trim).filter(|token| token.len() >= 32);
            Ok(match kept {
                Some(_) => None,
                None => Some(format!("{made}\n")),
            })
        })?;
        read()?.ok_or_else(|| StoreError::Io {
            action: "keep the token in",
            path: self.location(&Doc::Token),
            cause: io::Error::other("it was not there after writing it"),
        })
    }

    /// Renames profile `from` to `to`. The default profile keeps its name
    /// (it always exists); a taken name is refused, never replaced.
    pub fn rename_profile(&self, from: &str, to: &str) -> Result<(), StoreError> {
        check_name(from)?;
        check_name(to)?;
        if from == DEFAULT_PROFILE {
            return Err(StoreError::DefaultProfileName);
        }
        // `default` always exists, so nothing is renamed onto it.
        self.ensure_default()?;
        self.backend.rename_profile(from, to)?;
        // The active profile stays active under its new name.
        self.update_config(|config| {
            if config.settings.active_profile == from {
                config.settings.active_profile = to.to_string();
            }
            Ok::<_, StoreError>(())
        })
    }

    /// The profile of hosts that name none (`settings.activeProfile`).
    pub fn active_profile(&self) -> Result<String, StoreError> {
        Ok(self.load_config()?.settings.active_profile)
    }

    /// Makes profile `name` the active one: it must exist and load, so
    /// hosts that name no profile are never pointed at nothing.
    pub fn set_active_profile(&self, name: &str) -> Result<(), StoreError> {
        self.update_config(|config| {
            self.load_profile(name, Some(config))?;
            config.settings.active_profile = name.to_string();
            Ok::<_, StoreError>(())
        })
    }

    /// Deletes profile `name`; its last version stays as `<name>.json.bak`.
    pub fn delete_profile(&self, name: &str) -> Result<(), StoreError> {
        check_name(name)?;
        if name == DEFAULT_PROFILE {
            return Err(StoreError::DefaultProfile);
        }
        if self.active_profile()? == name {
            return Err(StoreError::ActiveProfile {
                name: name.to_string(),
            });
        }
        self.backend.delete_profile(name)
    }
}

fn check_name(name: &str) -> Result<(), StoreError> {
    if is_valid_profile_name(name) {
        Ok(())
    } else {
        Err(StoreError::BadProfileName {
            name: name.to_string(),
        })
    }
}

/// `value` as the files hold it: pretty JSON and a final newline.
fn pretty(value: &impl serde::Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("our types serialise");
    text.push('\n');
    text
}

/// A profile's text, checked to load as it will be read.
fn profile_text(file: &str, profile: &Profile) -> Result<String, StoreError> {
    let text = pretty(profile);
    Profile::parse(file, &text).map_err(|error| StoreError::Invalid { error })?;
    Ok(text)
}

/// What [`update_locked`] starts from when the file is not there.
pub enum Absent {
    /// The empty value (what a missing file means).
    Empty,
    /// Nothing: the change is refused with this error.
    Refuse(StoreError),
}

/// When [`update_locked`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteWhen {
    /// Only when the change made a difference.
    Changed,
    /// Every time (a save of a whole value: it also makes the file).
    Always,
}

/// The one way a user's file is changed: under the exclusive lock of
/// `<file>.lock`, read `path` again (`parse`), let `change` edit the
/// value, then `render` it (which also checks it loads) and write it
/// atomically with a `.bak`; then release the lock.
///
/// The lock is on a file of its own because a write replaces `path` by a
/// rename: a lock on `path` itself would stay with the old file, and a
/// process opening the new one would not wait for it. A file that does
/// not parse is never overwritten: the change is refused with
/// [`StoreError::Unparseable`]. Readers take no lock.
pub fn update_locked<T, R, E>(
    path: &Path,
    when: (Absent, WriteWhen),
    parse: impl FnOnce(&str) -> Result<T, ParseError>,
    render: impl FnOnce(&T) -> Result<String, StoreError>,
    change: impl FnOnce(&mut T) -> Result<R, E>,
) -> Result<R, E>
where
    T: Default + Clone + PartialEq,
    E: From<StoreError>,
{
    typed_update(
        path.to_path_buf(),
        |change| locked_change(path, change),
        when,
        parse,
        render,
        change,
    )
}

/// A typed read-change-write of a text that `run` holds locked: the text
/// parsed (a text that does not parse refused, never overwritten; a
/// missing one `absent`), `change` applied, the result rendered (which
/// also checks it loads) and written when `write` says so. The caller's
/// error comes back as it was.
fn typed_update<T, R, E>(
    location: PathBuf,
    run: impl FnOnce(crate::atomic::Change<'_>) -> Result<(), StoreError>,
    (absent, write): (Absent, WriteWhen),
    parse: impl FnOnce(&str) -> Result<T, ParseError>,
    render: impl FnOnce(&T) -> Result<String, StoreError>,
    change: impl FnOnce(&mut T) -> Result<R, E>,
) -> Result<R, E>
where
    T: Default + Clone + PartialEq,
    E: From<StoreError>,
{
    let mut steps = Some((absent, parse, render, change));
    let mut outcome: Option<Result<R, E>> = None;
    run(&mut |text| {
        let (absent, parse, render, change) = steps.take().expect("a change runs once");
        let before = match text {
            Some(text) => parse(text).map_err(|error| StoreError::Unparseable {
                path: location.clone(),
                error,
            })?,
            None => match absent {
                Absent::Refuse(error) => return Err(error),
                Absent::Empty => T::default(),
            },
        };
        let mut value = before.clone();
        match change(&mut value) {
            Ok(result) => outcome = Some(Ok(result)),
            Err(error) => {
                // Nothing is written; the caller's error is theirs.
                outcome = Some(Err(error));
                return Ok(None);
            }
        }
        if write == WriteWhen::Always || value != before {
            Ok(Some(render(&value)?))
        } else {
            Ok(None)
        }
    })?;
    outcome.expect("the change ran")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(Home::at(dir.path()));
        (dir, store)
    }

    #[test]
    fn default_profile_is_created_on_first_use() {
        let (dir, store) = store();
        assert_eq!(store.profile_names().unwrap(), ["default"]);
        assert!(dir.path().join("profiles/default.json").exists());
        let loaded = store.load_profile("default", None).unwrap();
        assert!(loaded.profile.servers.is_none());
    }

    #[test]
    fn writes_keep_one_backup() {
        let (dir, store) = store();
        let mut p = Profile::default();
        store.save_profile("work", &p).unwrap();
        p.groups = sieve_core::GroupRule::any(vec!["issues".into()]);
        store.save_profile("work", &p).unwrap();
        let backup = fs::read_to_string(dir.path().join("profiles/work.json.bak")).unwrap();
        assert_eq!(backup.trim(), "{}");
        assert_eq!(store.load_profile("work", None).unwrap().profile, p);
        let leftovers: Vec<_> = fs::read_dir(dir.path().join("profiles"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn unparseable_files_are_never_overwritten() {
        let (dir, store) = store();
        let path = dir.path().join("profiles/work.json");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "{\"tools\": {\"deny\": [\"x\"]},}").unwrap();
        let err = store.save_profile("work", &Profile::default()).unwrap_err();
        assert!(matches!(err, StoreError::Unparseable { .. }), "{err}");
        assert!(err.to_string().contains("left as it is"), "{err}");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{\"tools\": {\"deny\": [\"x\"]},}"
        );
        let err = store.load_profile("work", None).unwrap_err();
        assert!(err.to_string().contains("work.json:1:"), "{err}");

        fs::write(dir.path().join("config.json"), "{").unwrap();
        assert!(matches!(
            store.save_config(&Config::default()),
            Err(StoreError::Unparseable { .. })
        ));
        assert_eq!(
            fs::read_to_string(dir.path().join("config.json")).unwrap(),
            "{"
        );
    }

    #[test]
    fn a_broken_default_profile_is_not_replaced() {
        let (dir, store) = store();
        let path = dir.path().join("profiles/default.json");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "not json").unwrap();
        assert!(store.load_profile("default", None).is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "not json");
    }

    #[test]
    fn the_active_profile_exists_follows_a_rename_and_cannot_be_deleted() {
        let (dir, store) = store();
        assert_eq!(store.active_profile().unwrap(), "default");
        assert!(matches!(
            store.set_active_profile("work"),
            Err(StoreError::NoProfile { .. })
        ));
        assert!(!dir.path().join("config.json").exists(), "nothing written");
        store.new_profile("work", None).unwrap();
        store.set_active_profile("work").unwrap();
        assert_eq!(store.active_profile().unwrap(), "work");
        let err = store.delete_profile("work").unwrap_err();
        assert!(matches!(err, StoreError::ActiveProfile { .. }), "{err}");
        assert!(
            err.to_string().contains("make another profile active"),
            "{err}"
        );
        store.rename_profile("work", "office").unwrap();
        assert_eq!(store.active_profile().unwrap(), "office");
        store.set_active_profile("default").unwrap();
        store.delete_profile("office").unwrap();
    }

    #[test]
    fn new_clone_and_delete() {
        let (dir, store) = store();
        let p = Profile {
            groups: sieve_core::GroupRule::any(vec!["g".into()]),
            ..Profile::default()
        };
        store.save_profile("base", &p).unwrap();
        assert_eq!(store.new_profile("copy", Some("base")).unwrap(), p);
        assert!(matches!(
            store.new_profile("copy", None),
            Err(StoreError::ProfileExists { .. })
        ));
        assert!(matches!(
            store.new_profile("x", Some("nope")),
            Err(StoreError::NoProfile { .. })
        ));
        assert!(matches!(
            store.new_profile("../etc", None),
            Err(StoreError::BadProfileName { .. })
        ));
        store.delete_profile("copy").unwrap();
        assert!(dir.path().join("profiles/copy.json.bak").exists());
        assert_eq!(store.profile_names().unwrap(), ["base", "default"]);
        assert!(matches!(
            store.delete_profile("default"),
            Err(StoreError::DefaultProfile)
        ));
        assert!(matches!(
            store.delete_profile("copy"),
            Err(StoreError::NoProfile { .. })
        ));
    }

    #[test]
    fn concern_values_are_checked_on_load() {
        let (dir, store) = store();
        fs::write(
            dir.path().join("config.json"),
            r#"{"concerns": [{"name": "cost", "values": ["minimal", "high"]}]}"#,
        )
        .unwrap();
        fs::create_dir_all(dir.path().join("profiles")).unwrap();
        fs::write(
            dir.path().join("profiles/p.json"),
            r#"{"concerns": {"cost": "free"}}"#,
        )
        .unwrap();
        let config = store.load_config().unwrap();
        let err = store.load_profile("p", Some(&config)).unwrap_err();
        assert!(err.to_string().contains("concerns.cost"), "{err}");
        assert!(store.load_profile("p", None).is_ok());
    }

    #[test]
    fn http_token_is_made_once_and_private() {
        let (dir, store) = store();
        let token = store.http_token().unwrap();
        assert_eq!(token.len(), 64);
        assert_eq!(
            store.http_token().unwrap(),
            token,
            "the same token every time"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.path().join("http-token"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn missing_config_is_empty() {
        let (_dir, store) = store();
        assert_eq!(store.load_config().unwrap(), Config::default());
    }
}
