//! The files of one user: `config.json`, `profiles/<name>.json` and
//! `approvals.json`.
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

use crate::home::Home;
use sieve_core::profile::{DEFAULT_PROFILE, is_valid_profile_name};
use sieve_core::{Approvals, Config, OverlayError, ParseError, Profile, RulesError};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What can go wrong with the user's files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The io error's own words ("Permission denied") end the sentence.
    /// (`cause` is not the error's `source`: the sentence holds it
    /// already, and a chain printed whole would say it twice.)
    #[error("cannot {action} {path}: {cause}")]
    Io {
        action: &'static str,
        path: PathBuf,
        cause: io::Error,
    },
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(
        "{path} does not parse, so it was left as it is ({error}); fix or delete it, then try again"
    )]
    Unparseable { path: PathBuf, error: ParseError },
    /// A change that would leave a file that does not load (checked before
    /// anything is written).
    #[error("{error}")]
    Invalid { error: ParseError },
    /// A file that parses but whose glob patterns are too large to
    /// compile (globset's size limits): `subject` names it for a person.
    #[error(
        "{subject} ({path}): its patterns could not be compiled: {error}; simplify the patterns"
    )]
    Uncompilable {
        subject: String,
        path: PathBuf,
        error: Uncompilable,
    },
    #[error("there is no profile {name:?}; `mcp-sieve profiles list` shows the profiles there are")]
    NoProfile { name: String },
    #[error("profile {name:?} exists already; pick another name or delete it first")]
    ProfileExists { name: String },
    #[error(
        "{name:?} cannot name a profile: use 1-64 letters, digits, '-' or '_', not starting with '-'"
    )]
    BadProfileName { name: String },
    #[error("the default profile cannot be deleted; edit it instead")]
    DefaultProfile,
    #[error("the default profile keeps its name; clone it to make one with another name")]
    DefaultProfileName,
    #[error(
        "profile {name:?} is the active one (hosts that name no profile get it); make another profile active first"
    )]
    ActiveProfile { name: String },
}

/// Patterns of a file that parse but cannot be compiled together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Uncompilable {
    /// The overlays of `config.json`.
    #[error(transparent)]
    Overlays(#[from] OverlayError),
    /// A profile's globs or tag expression.
    #[error(transparent)]
    Profile(#[from] RulesError),
}

fn io_error<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> StoreError + 'a {
    move |cause| StoreError::Io {
        action,
        path: path.to_path_buf(),
        cause,
    }
}

/// A profile as read from disk: its text and what it says.
#[derive(Debug, Clone)]
pub struct LoadedProfile {
    pub name: String,
    pub path: PathBuf,
    pub text: String,
    pub profile: Profile,
}

/// Reads and writes the files under a [`Home`].
#[derive(Debug, Clone)]
pub struct Store {
    home: Home,
}

impl Store {
    pub fn new(home: Home) -> Store {
        Store { home }
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    /// `config.json`, or the empty config when there is none yet.
    pub fn load_config(&self) -> Result<Config, StoreError> {
        let path = self.home.config_file();
        match read_optional(&path)? {
            Some(text) => Ok(Config::parse(&path.display().to_string(), &text)?),
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
        let path = self.home.config_file();
        let file = path.display().to_string();
        update_locked(
            &path,
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
        let path = self.home.config_file();
        let _lock = lock_file(&lock_path(&path))?;
        let backup = backup_path(&path);
        fs::copy(&path, &backup).map_err(io_error("back up", &path))?;
        set_private(&backup)
    }

    /// `approvals.json`, or none yet when there is no file.
    pub fn load_approvals(&self) -> Result<Approvals, StoreError> {
        let path = self.home.approvals_file();
        match read_optional(&path)? {
            Some(text) => Ok(Approvals::parse(&path.display().to_string(), &text)?),
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
        let path = self.home.approvals_file();
        let file = path.display().to_string();
        update_locked(
            &path,
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
        let path = self.home.profile_file(name);
        let text = read_optional(&path)?.ok_or_else(|| StoreError::NoProfile {
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
        let path = self.home.profile_file(DEFAULT_PROFILE);
        if path.exists() {
            return Ok(());
        }
        let _lock = lock_file(&lock_path(&path))?;
        // Another process may have made it while this one waited.
        if path.exists() {
            return Ok(());
        }
        let profile = Profile {
            description: "Everything every server offers".into(),
            ..Profile::default()
        };
        atomic_write(&path, pretty(&profile).as_bytes())
    }

    /// Profile names in order, `default` included.
    pub fn profile_names(&self) -> Result<Vec<String>, StoreError> {
        self.ensure_default()?;
        let dir = self.home.profiles_dir();
        let mut names = Vec::new();
        for entry in fs::read_dir(&dir).map_err(io_error("read", &dir))? {
            let path = entry.map_err(io_error("read", &dir))?.path();
            if path.extension().is_some_and(|e| e == "json")
                && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
                && is_valid_profile_name(stem)
            {
                names.push(stem.to_string());
            }
        }
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
        let path = self.home.profile_file(name);
        let file = path.display().to_string();
        update_locked(
            &path,
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
        let path = self.home.profile_file(name);
        let file = path.display().to_string();
        update_locked(
            &path,
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
        let path = self.home.profile_file(name);
        let exists = || StoreError::ProfileExists {
            name: name.to_string(),
        };
        if path.exists() {
            return Err(exists());
        }
        let profile = match from {
            Some(source) => self.load_profile(source, None)?.profile,
            None => Profile::default(),
        };
        let _lock = lock_file(&lock_path(&path))?;
        if path.exists() {
            return Err(exists());
        }
        atomic_write(&path, pretty(&profile).as_bytes())?;
        Ok(profile)
    }

    /// The bearer token of the HTTP endpoint: read from the config folder,
    /// or made (32 random bytes, hex) and written there readable by the
    /// user only.
    pub fn http_token(&self) -> Result<String, StoreError> {
        let path = self.home.token_file();
        let read = || -> Result<Option<String>, StoreError> {
            Ok(read_optional(&path)?
                .map(|text| text.trim().to_string())
                .filter(|token| token.len() >= 32))
        };
        if let Some(token) = read()? {
            return Ok(token);
        }
        // Made under the file's lock, so two processes starting at once
        // agree on one token instead of each keeping its own.
        let _lock = lock_file(&lock_path(&path))?;
        if let Some(token) = read()? {
            return Ok(token);
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| StoreError::Io {
            action: "make a random token for",
            path: path.clone(),
            cause: io::Error::other(e.to_string()),
        })?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        atomic_write(&path, format!("{token}\n").as_bytes())?;
        set_private(&path)?;
        Ok(token)
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
        let source = self.home.profile_file(from);
        if !source.exists() {
            return Err(StoreError::NoProfile {
                name: from.to_string(),
            });
        }
        let target = self.home.profile_file(to);
        // Both files' locks, in one order so two renames cannot wait for
        // each other: no edit of `from` lands in the file being removed.
        let mut locks = [lock_path(&source), lock_path(&target)];
        locks.sort();
        let _held = [lock_file(&locks[0])?, lock_file(&locks[1])?];
        if !source.exists() {
            return Err(StoreError::NoProfile {
                name: from.to_string(),
            });
        }
        // A hard link is created only if `to` does not exist, so a profile
        // made meanwhile by another process is never replaced.
        fs::hard_link(&source, &target).map_err(|error| {
            if error.kind() == io::ErrorKind::AlreadyExists {
                StoreError::ProfileExists {
                    name: to.to_string(),
                }
            } else {
                StoreError::Io {
                    action: "rename",
                    path: source.clone(),
                    cause: error,
                }
            }
        })?;
        fs::remove_file(&source).map_err(io_error("rename", &source))?;
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
        let path = self.home.profile_file(name);
        let _lock = lock_file(&lock_path(&path))?;
        if !path.exists() {
            return Err(StoreError::NoProfile {
                name: name.to_string(),
            });
        }
        let backup = backup_path(&path);
        fs::rename(&path, &backup).map_err(io_error("delete", &path))
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

fn read_optional(path: &Path) -> Result<Option<String>, StoreError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error("read", path)(e)),
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
    (absent, write): (Absent, WriteWhen),
    parse: impl FnOnce(&str) -> Result<T, ParseError>,
    render: impl FnOnce(&T) -> Result<String, StoreError>,
    change: impl FnOnce(&mut T) -> Result<R, E>,
) -> Result<R, E>
where
    T: Default + Clone + PartialEq,
    E: From<StoreError>,
{
    let _lock = lock_file(&lock_path(path))?;
    let before = match read_optional(path)? {
        Some(text) => parse(&text).map_err(|error| StoreError::Unparseable {
            path: path.to_path_buf(),
            error,
        })?,
        None => match absent {
            Absent::Refuse(error) => return Err(error.into()),
            Absent::Empty => T::default(),
        },
    };
    let mut value = before.clone();
    let result = change(&mut value)?;
    if write == WriteWhen::Always || value != before {
        let text = render(&value)?;
        atomic_write(path, text.as_bytes())?;
    }
    Ok(result)
}

/// `<file>.lock` beside `path`: the lock file [`update_locked`] holds.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// Makes `path` readable and writable by its owner only.
fn set_private(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o600))
            .map_err(io_error("restrict", path))?;
    }
    Ok(())
}

/// Holds the lock file `path` (made, mode 0600, if it is not there) until
/// the returned file is dropped: how processes take turns at a
/// read-change-write of a shared file.
pub fn lock_file(path: &Path) -> Result<fs::File, StoreError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io_error("create folder", dir))?;
    }
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io_error("open", path))?;
    set_private(path)?;
    lock.lock().map_err(io_error("lock", path))?;
    Ok(lock)
}

/// `<file>.bak` beside `path`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

/// Replaces `path` with `bytes` so that a reader sees the old or the new
/// content, never a part; the old content is kept as `<file>.bak`.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_error("create folder", dir))?;
    let mut temp = tempfile::Builder::new()
        .prefix(".sieve-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io_error("create a temporary file in", dir))?;
    temp.write_all(bytes)
        .map_err(io_error("write", temp.path()))?;
    temp.as_file()
        .sync_all()
        .map_err(io_error("sync", temp.path()))?;
    if path.exists() {
        // Copy, not rename: the target must exist at every moment for the
        // proxies that watch it.
        let backup = backup_path(path);
        fs::copy(path, &backup).map_err(io_error("back up", path))?;
        // The copy keeps the old file's mode; a config the user left
        // readable by others must not stay so in its backup.
        set_private(&backup)?;
    }
    temp.persist(path)
        .map_err(|e| io_error("replace", path)(e.error))?;
    if let Ok(folder) = fs::File::open(dir) {
        // Makes the rename durable; not every platform can sync a folder.
        let _ = folder.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
