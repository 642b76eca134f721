//! The user's files as rows of `sieve_documents`: read, changed under a
//! lock held while the caller decides, made only when absent, listed,
//! renamed and removed. Texts are opaque here; what they say is the
//! store's business, which parses and checks them exactly as files.

use crate::{Database, DbError};
use std::time::Duration;

/// A change of a document's text: what it is (or `None`) in, what to
/// write (`None`: nothing) out.
pub type DocumentChange<'a, E> = &'a mut dyn FnMut(Option<&str>) -> Result<Option<String>, E>;

/// How long a change may take between reading a document and saying what
/// to write, before the database gives up its lock.
const DECIDE: Duration = Duration::from_secs(30);

impl Database {
    /// The text of document `key`, if there is one.
    pub fn read_document(&self, key: &str) -> Result<Option<String>, DbError> {
        let error = self.error("reading a document");
        let key = key.to_string();
        self.run(move |client| async move {
            let row = client
                .query_opt("SELECT body FROM sieve_documents WHERE key = $1", &[&key])
                .await
                .map_err(&error)?;
            Ok(row.map(|row| row.get(0)))
        })
    }

    /// Changes document `key` as one transaction holding its lock (taken
    /// even when the document does not exist yet, so two replicas making
    /// it agree): `change` sees the text (or `None`) on the caller's thread
    /// and returns what to write, or `None` to write nothing. The text
    /// before becomes `previous`. A failing `change` writes nothing and
    /// its error is returned.
    pub fn update_document<E>(&self, key: &str, change: DocumentChange<'_, E>) -> Result<(), E>
    where
        E: From<DbError>,
    {
        let error = self.error("changing a document");
        let key = key.to_string();
        let (to_caller, read) = std::sync::mpsc::sync_channel::<Result<Option<String>, DbError>>(1);
        let (decide, decided) = tokio::sync::oneshot::channel::<Option<String>>();
        let (to_caller_done, done) = std::sync::mpsc::sync_channel::<Result<(), DbError>>(1);
        let pool = self.pool.clone();
        let url = self.url.to_string();
        self.runtime.spawn(async move {
            let outcome = async {
                let mut client = pool.get().await.map_err(|e| DbError::Unreachable {
                    url: url.clone(),
                    cause: e.to_string(),
                })?;
                let tx = client.transaction().await.map_err(&error)?;
                tx.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                    &[&key],
                )
                .await
                .map_err(&error)?;
                let row = tx
                    .query_opt("SELECT body FROM sieve_documents WHERE key = $1", &[&key])
                    .await
                    .map_err(&error)?;
                let body: Option<String> = row.map(|row| row.get(0));
                if to_caller.send(Ok(body)).is_err() {
                    return Ok(());
                }
                let text = match tokio::time::timeout(DECIDE, decided).await {
                    Ok(Ok(Some(text))) => text,
                    // Nothing to write, the caller failed, or it took too
                    // long: the transaction rolls back.
                    _ => return Ok(()),
                };
                tx.execute(
                    "INSERT INTO sieve_documents (key, body) VALUES ($1, $2)
                     ON CONFLICT (key) DO UPDATE
                     SET previous = sieve_documents.body, body = EXCLUDED.body,
                         version = sieve_documents.version + 1, updated_at = now()",
                    &[&key, &text],
                )
                .await
                .map_err(&error)?;
                tx.commit().await.map_err(&error)
            }
            .await;
            match outcome {
                Ok(()) => {
                    let _ = to_caller_done.send(Ok(()));
                }
                Err(failure) => {
                    // Before the read the caller waits on `read`; after it,
                    // on `done`: say it on both.
                    let _ = to_caller.send(Err(failure.clone()));
                    let _ = to_caller_done.send(Err(failure));
                }
            }
        });
        let current = read.recv().unwrap_or_else(|_| {
            Err(DbError::Unreachable {
                url: self.url.to_string(),
                cause: "the change was dropped".into(),
            })
        })?;
        match change(current.as_deref()) {
            Ok(text) => {
                let _ = decide.send(text);
                done.recv().unwrap_or(Ok(())).map_err(E::from)
            }
            Err(failure) => {
                drop(decide);
                let _ = done.recv();
                Err(failure)
            }
        }
    }

    /// Writes `text` as document `key` only when there is none; whether it
    /// was written.
    pub fn create_document(&self, key: &str, text: &str) -> Result<bool, DbError> {
        let error = self.error("making a document");
        let (key, text) = (key.to_string(), text.to_string());
        self.run(move |client| async move {
            let made = client
                .execute(
                    "INSERT INTO sieve_documents (key, body) VALUES ($1, $2)
                     ON CONFLICT (key) DO NOTHING",
                    &[&key, &text],
                )
                .await
                .map_err(&error)?;
            Ok(made == 1)
        })
    }

    /// The keys that start with `prefix`, in order.
    pub fn document_keys(&self, prefix: &str) -> Result<Vec<String>, DbError> {
        let error = self.error("listing documents");
        let pattern = format!(
            "{}%",
            prefix
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        self.run(move |client| async move {
            let rows = client
                .query(
                    "SELECT key FROM sieve_documents WHERE key LIKE $1 ORDER BY key",
                    &[&pattern],
                )
                .await
                .map_err(&error)?;
            Ok(rows.iter().map(|row| row.get(0)).collect())
        })
    }

    /// Moves document `from` to `to`, both locked: `Ok(false)` when `from`
    /// is missing, an error when `to` exists (never replaced).
    pub fn rename_document(&self, from: &str, to: &str) -> Result<RenameOutcome, DbError> {
        let error = self.error("renaming a document");
        let (from, to) = (from.to_string(), to.to_string());
        self.run(move |mut client| async move {
            let tx = client.transaction().await.map_err(&error)?;
            let mut keys = [from.clone(), to.clone()];
            keys.sort();
            for key in &keys {
                tx.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                    &[key],
                )
                .await
                .map_err(&error)?;
            }
            let taken = tx
                .query_opt("SELECT 1 FROM sieve_documents WHERE key = $1", &[&to])
                .await
                .map_err(&error)?;
            if taken.is_some() {
                return Ok(RenameOutcome::Taken);
            }
            let moved = tx
                .execute(
                    "UPDATE sieve_documents SET key = $2, version = version + 1, updated_at = now()
                     WHERE key = $1",
                    &[&from, &to],
                )
                .await
                .map_err(&error)?;
            if moved == 0 {
                return Ok(RenameOutcome::Missing);
            }
            tx.commit().await.map_err(&error)?;
            Ok(RenameOutcome::Renamed)
        })
    }

    /// Removes document `key`, keeping its text under `key + ".bak"`;
    /// whether it was there.
    pub fn remove_document(&self, key: &str) -> Result<bool, DbError> {
        let error = self.error("removing a document");
        let key = key.to_string();
        self.run(move |mut client| async move {
            let tx = client.transaction().await.map_err(&error)?;
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                &[&key],
            )
            .await
            .map_err(&error)?;
            let gone = tx
                .query_opt(
                    "DELETE FROM sieve_documents WHERE key = $1 RETURNING body",
                    &[&key],
                )
                .await
                .map_err(&error)?;
            let Some(row) = gone else {
                return Ok(false);
            };
            let body: String = row.get(0);
            tx.execute(
                "INSERT INTO sieve_documents (key, body) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET previous = sieve_documents.body,
                     body = EXCLUDED.body, version = sieve_documents.version + 1, updated_at = now()",
                &[&format!("{key}.bak"), &body],
            )
            .await
            .map_err(&error)?;
            tx.commit().await.map_err(&error)?;
            Ok(true)
        })
    }

    /// Makes `previous` of document `key` its text now (as a file's
    /// `.bak` is refreshed after a secret was moved out of it).
    pub fn forget_previous(&self, key: &str) -> Result<(), DbError> {
        let error = self.error("refreshing a document's previous text");
        let key = key.to_string();
        self.run(move |client| async move {
            client
                .execute(
                    "UPDATE sieve_documents SET previous = body WHERE key = $1",
                    &[&key],
                )
                .await
                .map_err(&error)?;
            Ok(())
        })
    }
}

/// What [`Database::rename_document`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameOutcome {
    Renamed,
    /// There is no document to rename.
    Missing,
    /// The new key is taken; nothing changed.
    Taken,
}
