//! The documents as rows of a PostgreSQL database (`sieve_postgres`):
//! each change one transaction holding the document's lock, the previous
//! text kept beside it, every replica told of it through LISTEN/NOTIFY.

use super::{Backend, Change, Doc, Watching};
use crate::error::StoreError;
use crate::watch::FileChange;
use sieve_postgres::{Database, DbError, Notice, RenameOutcome};
use std::path::PathBuf;
use tokio::sync::mpsc;

/// The channel `sieve_documents`' trigger notifies, with the key.
pub const DOCUMENTS_CHANNEL: &str = "sieve_documents";

/// The channel the ledger's writes notify.
pub const TASKS_CHANNEL: &str = "sieve_tasks";

/// A team's documents in one database.
#[derive(Debug, Clone)]
pub struct Postgres {
    db: Database,
}

impl Postgres {
    pub fn new(db: Database) -> Postgres {
        Postgres { db }
    }
}

impl From<DbError> for StoreError {
    fn from(error: DbError) -> StoreError {
        StoreError::Database(error)
    }
}

impl Backend for Postgres {
    fn location(&self, doc: &Doc) -> PathBuf {
        PathBuf::from(format!("{}/{}", self.db.url(), doc.key()))
    }

    fn read(&self, doc: &Doc) -> Result<Option<String>, StoreError> {
        Ok(self.db.read_document(&doc.key())?)
    }

    fn update(&self, doc: &Doc, change: Change<'_>) -> Result<(), StoreError> {
        self.db.update_document(&doc.key(), change)
    }

    fn create(&self, doc: &Doc, text: &str) -> Result<bool, StoreError> {
        Ok(self.db.create_document(&doc.key(), text)?)
    }

    fn profile_names(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .db
            .document_keys("profiles/")?
            .iter()
            .filter_map(|key| match Doc::from_key(key) {
                Some(Doc::Profile(name)) => Some(name),
                _ => None,
            })
            .collect())
    }

    fn rename_profile(&self, from: &str, to: &str) -> Result<(), StoreError> {
        let (source, target) = (Doc::Profile(from.into()), Doc::Profile(to.into()));
        match self.db.rename_document(&source.key(), &target.key())? {
            RenameOutcome::Renamed => Ok(()),
            RenameOutcome::Missing => Err(StoreError::NoProfile {
                name: from.to_string(),
            }),
            RenameOutcome::Taken => Err(StoreError::ProfileExists {
                name: to.to_string(),
            }),
        }
    }

    fn delete_profile(&self, name: &str) -> Result<(), StoreError> {
        if self.db.remove_document(&Doc::Profile(name.into()).key())? {
            Ok(())
        } else {
            Err(StoreError::NoProfile {
                name: name.to_string(),
            })
        }
    }

    fn forget_previous(&self, doc: &Doc) -> Result<(), StoreError> {
        Ok(self.db.forget_previous(&doc.key())?)
    }

    /// Every document change and ledger write, from any replica; when the
    /// database comes back after a loss, a rescan, since what changed
    /// meanwhile is unknown.
    fn watch(&self) -> anyhow::Result<(Watching, mpsc::Receiver<FileChange>)> {
        let (send, receive) = mpsc::channel(64);
        let mut documents = self.db.listen(DOCUMENTS_CHANNEL);
        let mut tasks = self.db.listen(TASKS_CHANNEL);
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        self.db.spawn(async move {
            loop {
                let change = tokio::select! {
                    notice = documents.recv() => match notice {
                        Some(Notice::Changed(key)) => match Doc::from_key(&key) {
                            Some(Doc::Config) => Some(FileChange::Config),
                            Some(Doc::Approvals) => Some(FileChange::Approvals),
                            Some(Doc::Profile(name)) => Some(FileChange::Profile(name)),
                            Some(Doc::Token) | None => None,
                        },
                        Some(Notice::Back) => Some(FileChange::Rescan),
                        Some(Notice::Lost(_)) => None,
                        None => return,
                    },
                    notice = tasks.recv() => match notice {
                        Some(Notice::Changed(_) | Notice::Back) => Some(FileChange::Tasks),
                        Some(Notice::Lost(_)) => None,
                        None => return,
                    },
                    _ = &mut stopped => return,
                };
                if let Some(change) = change
                    && send.send(change).await.is_err()
                {
                    return;
                }
            }
        });
        Ok((Watching::new(stop), receive))
    }

    fn database(&self) -> Option<&Database> {
        Some(&self.db)
    }
}
