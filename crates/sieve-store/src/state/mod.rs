//! Where the user's documents live: files under a [`Home`](crate::home::Home)
//! (one person, one machine) or rows of a PostgreSQL database (a team's
//! gateway, DESIGN §12). The [`Store`](crate::store::Store) says what the
//! documents mean, parses and checks them; a [`Backend`] only keeps their
//! text, changes it under a lock, and says which changed. So the same
//! rules and errors hold whichever keeps them.
//!
//! * [`files`]: `config.json`, `profiles/NAME.json`, `approvals.json`,
//!   `http-token` in the home's folders, changed under OS locks.
//! * [`postgres`]: the same documents as rows of `sieve_documents`, changed
//!   in transactions, changes heard through LISTEN/NOTIFY.

pub mod files;
pub mod postgres;

use crate::error::StoreError;
use crate::watch::FileChange;
use std::path::PathBuf;
use tokio::sync::mpsc;

/// A document of the store.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Doc {
    Config,
    Approvals,
    /// The bearer token of the HTTP front.
    Token,
    Profile(String),
}

impl Doc {
    /// The document's name on every backend: its file's path under the
    /// config folder.
    pub fn key(&self) -> String {
        match self {
            Doc::Config => "config.json".into(),
            Doc::Approvals => "approvals.json".into(),
            Doc::Token => "http-token".into(),
            Doc::Profile(name) => format!("profiles/{name}.json"),
        }
    }

    /// The document a key names, if any (backups and others name none).
    pub fn from_key(key: &str) -> Option<Doc> {
        match key {
            "config.json" => Some(Doc::Config),
            "approvals.json" => Some(Doc::Approvals),
            "http-token" => Some(Doc::Token),
            _ => {
                let name = key.strip_prefix("profiles/")?.strip_suffix(".json")?;
                sieve_core::profile::is_valid_profile_name(name)
                    .then(|| Doc::Profile(name.to_string()))
            }
        }
    }
}

pub use crate::atomic::Change;

/// Keeps the documents' text.
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// Where `doc` is, as a person finds it: a file's path, or the
    /// database's address and the key.
    fn location(&self, doc: &Doc) -> PathBuf;

    /// The text of `doc`, if there is one.
    fn read(&self, doc: &Doc) -> Result<Option<String>, StoreError>;

    /// Changes `doc` under its lock: `change` sees the text as it is now
    /// (or `None`) and returns what to write (`None`: nothing). The text
    /// before is kept as the document's previous version.
    fn update(&self, doc: &Doc, change: Change<'_>) -> Result<(), StoreError>;

    /// Writes `text` as `doc` only when there is none; whether it wrote.
    fn create(&self, doc: &Doc, text: &str) -> Result<bool, StoreError>;

    /// The names of the profiles there are, in any order.
    fn profile_names(&self) -> Result<Vec<String>, StoreError>;

    /// Renames profile `from` to `to`: refused with `NoProfile` or
    /// `ProfileExists`, never replacing one.
    fn rename_profile(&self, from: &str, to: &str) -> Result<(), StoreError>;

    /// Removes profile `name`, keeping its last version beside it; refused
    /// with `NoProfile` when there is none.
    fn delete_profile(&self, name: &str) -> Result<(), StoreError>;

    /// Makes the previous version of `doc` what it is now.
    fn forget_previous(&self, doc: &Doc) -> Result<(), StoreError>;

    /// Starts telling which documents change, from any process or replica;
    /// watching stops when the returned guard is dropped.
    fn watch(&self) -> anyhow::Result<(Watching, mpsc::Receiver<FileChange>)>;

    /// `postgres://...` (without password) for a database, `None` for
    /// files.
    fn database(&self) -> Option<&sieve_postgres::Database> {
        None
    }
}

/// Keeps a backend's watching going; dropped, it stops.
pub struct Watching(#[allow(dead_code)] Box<dyn Send + Sync>);

impl std::fmt::Debug for Watching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watching")
    }
}

impl Watching {
    pub fn new(guard: impl Send + Sync + 'static) -> Watching {
        Watching(Box::new(guard))
    }
}
