//! Files changed safely: read-change-write under an exclusive OS lock on
//! `<file>.lock`, written atomically (temporary file, fsync, rename) with
//! the previous version kept as `<file>.bak`, private to the user.
//!
//! The lock is on a file of its own because a write replaces the file by a
//! rename: a lock on the file itself would stay with the old one, and a
//! process opening the new one would not wait for it.

use crate::error::{StoreError, io_error};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A change of a text: what it is (or `None`) in, what to write (`None`:
/// nothing) out.
pub type Change<'a> = &'a mut dyn FnMut(Option<&str>) -> Result<Option<String>, StoreError>;

/// The text of `path`, or `None` when there is no such file.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, StoreError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error("read", path)(e)),
    }
}

/// `<file>.lock` beside `path`: the lock file [`update_locked`](crate::store::update_locked) holds.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// Makes `path` readable and writable by its owner only.
pub(crate) fn set_private(path: &Path) -> Result<(), StoreError> {
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

/// The text of `path` changed under its lock: `change` sees it (or
/// `None`) and says what to write (`None`: nothing), written atomically
/// with a `.bak`.
pub(crate) fn locked_change(path: &Path, change: Change<'_>) -> Result<(), StoreError> {
    let _lock = lock_file(&lock_path(path))?;
    let text = read_optional(path)?;
    if let Some(written) = change(text.as_deref())? {
        atomic_write(path, written.as_bytes())?;
    }
    Ok(())
}
