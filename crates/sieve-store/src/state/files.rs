//! The documents as files under a [`Home`]: each change one
//! read-modify-write under an exclusive OS lock on `<file>.lock`, written
//! atomically with the previous version kept as `<file>.bak`
//! (`crate::atomic`).

use super::{Backend, Change, Doc, Watching};
use crate::atomic::{
    atomic_write, backup_path, lock_file, lock_path, locked_change, read_optional, set_private,
};
use crate::error::{StoreError, io_error};
use crate::home::Home;
use crate::watch::FileChange;
use sieve_core::profile::is_valid_profile_name;
use std::fs;
use std::io;
use std::path::PathBuf;
use tokio::sync::mpsc;

/// The documents of one home, as files.
#[derive(Debug, Clone)]
pub struct Files {
    home: Home,
}

impl Files {
    pub fn new(home: Home) -> Files {
        Files { home }
    }

    fn path(&self, doc: &Doc) -> PathBuf {
        match doc {
            Doc::Config => self.home.config_file(),
            Doc::Approvals => self.home.approvals_file(),
            Doc::Token => self.home.token_file(),
            Doc::Profile(name) => self.home.profile_file(name),
        }
    }
}

impl Backend for Files {
    fn location(&self, doc: &Doc) -> PathBuf {
        self.path(doc)
    }

    fn read(&self, doc: &Doc) -> Result<Option<String>, StoreError> {
        read_optional(&self.path(doc))
    }

    fn update(&self, doc: &Doc, change: Change<'_>) -> Result<(), StoreError> {
        locked_change(&self.path(doc), change)
    }

    fn create(&self, doc: &Doc, text: &str) -> Result<bool, StoreError> {
        let path = self.path(doc);
        if path.exists() {
            return Ok(false);
        }
        let _lock = lock_file(&lock_path(&path))?;
        // Another process may have made it while this one waited.
        if path.exists() {
            return Ok(false);
        }
        atomic_write(&path, text.as_bytes())?;
        Ok(true)
    }

    fn profile_names(&self) -> Result<Vec<String>, StoreError> {
        let dir = self.home.profiles_dir();
        let mut names = Vec::new();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(names),
            Err(error) => return Err(io_error("read", &dir)(error)),
        };
        for entry in entries {
            let path = entry.map_err(io_error("read", &dir))?.path();
            if path.extension().is_some_and(|e| e == "json")
                && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
                && is_valid_profile_name(stem)
            {
                names.push(stem.to_string());
            }
        }
        Ok(names)
    }

    fn rename_profile(&self, from: &str, to: &str) -> Result<(), StoreError> {
        let source = self.home.profile_file(from);
        let missing = || StoreError::NoProfile {
            name: from.to_string(),
        };
        if !source.exists() {
            return Err(missing());
        }
        let target = self.home.profile_file(to);
        // Both files' locks, in one order so two renames cannot wait for
        // each other: no edit of `from` lands in the file being removed.
        let mut locks = [lock_path(&source), lock_path(&target)];
        locks.sort();
        let _held = [lock_file(&locks[0])?, lock_file(&locks[1])?];
        if !source.exists() {
            return Err(missing());
        }
        // A hard link is created only if `to` does not exist, so a profile
        // made meanwhile by another process is never replaced.
        fs::hard_link(&source, &target).map_err(|error| {
            if error.kind() == io::ErrorKind::AlreadyExists {
                StoreError::ProfileExists {
                    name: to.to_string(),
                }
            } else {
                io_error("rename", &source)(error)
            }
        })?;
        fs::remove_file(&source).map_err(io_error("rename", &source))
    }

    fn delete_profile(&self, name: &str) -> Result<(), StoreError> {
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

    fn forget_previous(&self, doc: &Doc) -> Result<(), StoreError> {
        let path = self.path(doc);
        let _lock = lock_file(&lock_path(&path))?;
        let backup = backup_path(&path);
        fs::copy(&path, &backup).map_err(io_error("back up", &path))?;
        set_private(&backup)
    }

    fn watch(&self) -> anyhow::Result<(Watching, mpsc::Receiver<FileChange>)> {
        let (watcher, changes) = crate::watch::watch(&self.home)?;
        Ok((Watching::new(watcher), changes))
    }
}
