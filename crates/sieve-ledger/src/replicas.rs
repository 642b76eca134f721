//! Calls in flight, and the processes that run them.
//!
//! A team gateway's replica records each plain call as `working` when it
//! starts ([`Ledger::insert_running`], with the replica's id), and when it
//! ends deletes the entry (a success needs no retry) or records how it
//! failed; a task of a server that runs as the replica's child is recorded
//! as the replica's too, since it ends with the replica. Each replica says it is alive every few seconds
//! ([`Ledger::beat`]). Should one die mid-call, its entries would stay
//! `working` for ever; [`Ledger::sweep`], run by every replica, marks the
//! working calls of a replica silent for longer than the given time failed
//! and cut off, so they are listed and can be retried, never missing. A
//! replica that stops on purpose does the same for its own at once
//! ([`Ledger::leave`]).

use super::query::{Arg, Dialect, placeholders, text};
use super::schema::Entry;
use super::{Backend, Ledger, LedgerError};
use sieve_core::tasks::{TaskRecord, TaskStatus};

/// The message of a call its replica left unfinished.
fn cut_off(how: &str) -> String {
    format!("cut off: the gateway replica running it {how} before it was answered; retry it")
}

impl Ledger {
    /// Adds `record`, a call starting now, as run by `replica`.
    pub fn insert_running(&self, record: &TaskRecord, replica: &str) -> Result<(), LedgerError> {
        self.insert_running_all(std::slice::from_ref(record), replica)
    }

    /// Adds `records` as run by `replica`, in one transaction: all of
    /// them or none.
    pub fn insert_running_all(
        &self,
        records: &[TaskRecord],
        replica: &str,
    ) -> Result<(), LedgerError> {
        let entries = records.iter().map(|record| Entry {
            replica: Some(replica.to_string()),
            ..Entry::of(record)
        });
        match &self.backend {
            Backend::Sqlite(b) => b.insert_all(entries),
            Backend::Postgres(b) => b.insert_all(entries),
        }
        .map(drop)
    }

    /// Removes entry `id`; false when there was none.
    pub fn delete(&self, id: &str) -> Result<bool, LedgerError> {
        Ok(self.delete_all(&[id.to_string()])? > 0)
    }

    /// Removes the entries `ids` in one statement; how many there were.
    pub fn delete_all(&self, ids: &[String]) -> Result<usize, LedgerError> {
        if ids.is_empty() {
            return Ok(0);
        }
        let sql = self.dialect().sql(&format!(
            "DELETE FROM {} WHERE id IN ({})",
            self.table(),
            placeholders(ids.len())
        ));
        let args: Vec<Arg> = ids.iter().map(|id| text(id)).collect();
        self.execute(&sql, &args, "deleting entries")
    }

    /// Records that `replica` is alive at `now_ms`.
    pub fn beat(&self, replica: &str, now_ms: i64) -> Result<(), LedgerError> {
        let sql = self.dialect().sql(&format!(
            "INSERT INTO {} (id, started_at, seen_at) VALUES (?, ?, ?) \
             ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
            replicas(self.dialect())
        ));
        let args = [text(replica), Arg::Int(now_ms), Arg::Int(now_ms)];
        self.execute(&sql, &args, "recording that this replica is alive")
            .map(drop)
    }

    /// Marks failed the entries still running of every replica not seen
    /// since `silent_since_ms` (and of none recorded at all, if the entry
    /// is that old), then forgets those replicas. Returns how many entries
    /// it marked.
    pub fn sweep(&self, silent_since_ms: i64, now_ms: i64) -> Result<usize, LedgerError> {
        let dialect = self.dialect();
        let sql = dialect.sql(&format!(
            "UPDATE {tasks} SET status = ?, status_message = ?, last_updated_at = {later} \
             WHERE status IN ({running}) AND replica IS NOT NULL AND created_at < ? \
             AND replica NOT IN (SELECT id FROM {replicas} WHERE seen_at >= ?)",
            tasks = self.table(),
            later = later(dialect),
            running = placeholders(2),
            replicas = replicas(dialect),
        ));
        let args = [
            text(TaskStatus::Failed.as_str()),
            text(&cut_off("stopped answering")),
            Arg::Int(now_ms),
            text(TaskStatus::Working.as_str()),
            text(TaskStatus::InputRequired.as_str()),
            Arg::Int(silent_since_ms),
            Arg::Int(silent_since_ms),
        ];
        let marked = self.execute(&sql, &args, "marking the calls of a stopped replica")?;
        let forget = dialect.sql(&format!(
            "DELETE FROM {} WHERE seen_at < ?",
            replicas(dialect)
        ));
        self.execute(
            &forget,
            &[Arg::Int(silent_since_ms)],
            "forgetting stopped replicas",
        )?;
        Ok(marked)
    }

    /// `replica` stops: its calls still working are marked failed, and it
    /// is forgotten. Returns how many calls it marked.
    pub fn leave(&self, replica: &str, now_ms: i64) -> Result<usize, LedgerError> {
        let dialect = self.dialect();
        let sql = dialect.sql(&format!(
            "UPDATE {tasks} SET status = ?, status_message = ?, last_updated_at = {later} \
             WHERE replica = ? AND status IN ({working})",
            tasks = self.table(),
            later = later(dialect),
            working = placeholders(2),
        ));
        let args = [
            text(TaskStatus::Failed.as_str()),
            text(&cut_off("was stopped")),
            Arg::Int(now_ms),
            text(replica),
            text(TaskStatus::Working.as_str()),
            text(TaskStatus::InputRequired.as_str()),
        ];
        let marked = self.execute(&sql, &args, "marking this replica's calls")?;
        let forget = dialect.sql(&format!("DELETE FROM {} WHERE id = ?", replicas(dialect)));
        self.execute(&forget, &[text(replica)], "forgetting this replica")?;
        Ok(marked)
    }
}

fn replicas(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "replicas",
        Dialect::Postgres => "sieve_replicas",
    }
}

/// `now` as a new `last_updated_at`, never before the entry's creation.
fn later(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "max(?, created_at)",
        Dialect::Postgres => "greatest(?, created_at)",
    }
}
