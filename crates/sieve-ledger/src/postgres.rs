//! The ledger on PostgreSQL: the `sieve_tasks` table of a team's database
//! (sieve-postgres's `migrations/0002_ledger.sql`, made when a replica
//! connects), which every replica reads and writes.
//!
//! Every call goes through the database's pool, on its runtime, while the
//! caller waits ([`Database::run`]). Replicas are settled by the database,
//! never in a replica's memory:
//!
//! * an insert is one transaction; the unique indexes on `id` and on
//!   `(server, upstream_id)` make the second of two replicas inserting
//!   one entry wait for the first to commit, then fail as a duplicate;
//! * an update is one statement: a replica that waits on the row's lock
//!   checks again that no final status is reopened against the row as
//!   the other left it, and the existence check reads the same snapshot;
//! * a purge is one statement.
//!
//! What takes more than one round trip holds one connection for its
//! length, in a [`Session`]: a task on the database's runtime owns the
//! connection and answers the caller's requests in order. An insert of
//! many entries sends them in chunks, one in flight while the next is
//! made, each chunk's inserts pipelined, all in one transaction. A listing
//! opens one read-only `REPEATABLE READ` transaction (one snapshot for
//! every arm), binds each arm as a portal and fetches from the portals in
//! batches as the merge asks, every arm it asks for in one round trip.

use super::audit::{AuditRow, audit_of_row};
use super::measurements::{MeasuredRow, measured_of_row};
use super::merge::{Merge, Step};
use super::query::{Arg, Dialect, ListPlan};
use super::schema::{Entry, entry_of_row};
use super::{LedgerError, Location, TERMINAL, TaskPage, duplicate};
use deadpool_postgres::Object;
use futures_util::future::{join, try_join_all};
use serde_json::Value;
use sieve_core::tasks::TaskStatus;
use sieve_postgres::tokio_postgres::error::SqlState;
use sieve_postgres::tokio_postgres::types::ToSql;
use sieve_postgres::tokio_postgres::{self, IsolationLevel, Row};
use sieve_postgres::{Database, DbError};
use std::future::Future;
use std::sync::mpsc;
use tokio::sync::mpsc as async_mpsc;

/// Entries an insert sends to the database at a time.
const CHUNK: usize = 1_000;

/// The unique index that makes an upstream task id unique per server.
const UPSTREAM_INDEX: &str = "sieve_tasks_upstream";

/// The ledger's table in one database.
pub(super) struct Postgres {
    db: Database,
    location: Location,
}

impl Postgres {
    pub(super) fn new(db: Database) -> Postgres {
        let location = Location::Database(db.url().to_string());
        Postgres { db, location }
    }

    pub(super) fn location(&self) -> &Location {
        &self.location
    }

    #[cfg(test)]
    pub(super) fn database(&self) -> &Database {
        &self.db
    }

    /// How a failure of `action` reads: a full disk as the ledger's, the
    /// rest as the database's (unreachable, or refusing `action`).
    fn failure(
        &self,
        action: &'static str,
    ) -> impl Fn(tokio_postgres::Error) -> LedgerError + Send + Sync + 'static {
        let location = self.location.clone();
        let database = self.db.error(action);
        move |error| {
            if error.code() == Some(&SqlState::DISK_FULL) {
                LedgerError::DiskFull {
                    ledger: location.clone(),
                }
            } else {
                LedgerError::Database(database(error))
            }
        }
    }

    /// Adds entries in one transaction: all of them or, on an error, none.
    pub(super) fn insert_all(
        &self,
        entries: impl Iterator<Item = Entry>,
    ) -> Result<usize, LedgerError> {
        let fail = self.failure("an insert into the task ledger");
        let location = self.location.clone();
        let session = self.session(move |client, chunks, replies| {
            serve_insert(client, chunks, replies, location, fail)
        })?;
        let mut entries = entries.peekable();
        let (mut count, mut waiting) = (0, 0);
        loop {
            let chunk: Vec<Entry> = entries.by_ref().take(CHUNK).collect();
            let last = entries.peek().is_none();
            count += chunk.len();
            session.send(Chunk {
                entries: chunk,
                last,
            })?;
            waiting += 1;
            while waiting > 1 || (last && waiting > 0) {
                session.receive()?;
                waiting -= 1;
            }
            if last {
                return Ok(count);
            }
        }
    }

    /// See [`Ledger::update`](super::Ledger::update). One statement: the
    /// row's lock orders two replicas' updates, and the second is checked
    /// against what the first left.
    pub(super) fn update(
        &self,
        id: &str,
        status: TaskStatus,
        message: Option<&str>,
        result: Option<&Value>,
        now_ms: i64,
    ) -> Result<bool, LedgerError> {
        let fail = self.failure("an update of the task ledger");
        let id = id.to_string();
        let message = message.map(str::to_string);
        let result = result.map(Value::to_string);
        let [t1, t2, t3] = TERMINAL.map(TaskStatus::as_str);
        self.db.run(move |client| async move {
            let statement = client
                .prepare_cached(
                    "WITH changed AS (
                         UPDATE sieve_tasks SET status = $2,
                             status_message = coalesce($3, status_message),
                             result = coalesce($4, result),
                             last_updated_at = greatest($5, created_at)
                         WHERE id = $1 AND ($6 OR status NOT IN ($7, $8, $9))
                         RETURNING 1)
                     SELECT EXISTS (SELECT 1 FROM changed)
                         OR EXISTS (SELECT 1 FROM sieve_tasks WHERE id = $1)",
                )
                .await
                .map_err(&fail)?;
            let row = client
                .query_one(
                    &statement,
                    &[
                        &id,
                        &status.as_str(),
                        &message,
                        &result,
                        &now_ms,
                        &status.is_terminal(),
                        &t1,
                        &t2,
                        &t3,
                    ],
                )
                .await
                .map_err(&fail)?;
            Ok(row.get(0))
        })
    }

    /// The entries `sql`, a select of `COLUMNS`, finds with `args`.
    pub(super) fn select(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<Vec<Entry>, LedgerError> {
        self.query(sql, args, action, entry_of)
    }

    /// The audit records `sql`, a select of `AUDIT_COLUMNS`, finds.
    pub(super) fn select_audit(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<Vec<AuditRow>, LedgerError> {
        self.query(sql, args, action, |row| Ok(audit_of_row!(row, try_get)))
    }

    /// The measured calls `sql`, a select of `MEASURED_COLUMNS`, finds.
    pub(super) fn select_measured(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<Vec<MeasuredRow>, LedgerError> {
        self.query(sql, args, action, |row| Ok(measured_of_row!(row, try_get)))
    }

    /// The rows `sql` finds with `args`, each read by `read`.
    fn query<T: Send + 'static>(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
        read: fn(&Row) -> Result<T, tokio_postgres::Error>,
    ) -> Result<Vec<T>, LedgerError> {
        let fail = self.failure(action);
        let (sql, args) = (sql.to_string(), args.to_vec());
        self.db.run(move |client| async move {
            let statement = client.prepare_cached(&sql).await.map_err(&fail)?;
            let rows = client
                .query(&statement, &values(&args))
                .await
                .map_err(&fail)?;
            rows.iter()
                .map(read)
                .collect::<Result<_, _>>()
                .map_err(&fail)
        })
    }

    /// Runs `sql`, returning how many rows it changed.
    pub(super) fn execute(
        &self,
        sql: &str,
        args: &[Arg],
        action: &'static str,
    ) -> Result<usize, LedgerError> {
        let fail = self.failure(action);
        let (sql, args) = (sql.to_string(), args.to_vec());
        self.db.run(move |client| async move {
            let statement = client.prepare_cached(&sql).await.map_err(&fail)?;
            let changed = client
                .execute(&statement, &values(&args))
                .await
                .map_err(&fail)?;
            Ok(usize::try_from(changed).unwrap_or(usize::MAX))
        })
    }

    /// Runs `plan`'s arms as portals of one snapshot, fetching from each
    /// only as far as `merge` asks: first its share of a page and one
    /// more, then twice what it has fetched, so a listing that skips many
    /// hidden entries takes a few round trips, not one per row, and one of
    /// many arms does not read a page from each.
    pub(super) fn list(
        &self,
        plan: ListPlan,
        merge: &mut Merge,
        limit: usize,
    ) -> Result<TaskPage, LedgerError> {
        let fail = self.failure("a listing of the task ledger");
        let mut fetched = vec![0usize; plan.arms.len()];
        let first = limit.div_ceil(plan.arms.len().max(1)) + 1;
        let settings = planner_settings(&plan);
        let arms = plan.arms;
        let session = self.session(move |client, fetches, replies| {
            serve_listing(client, arms, settings, fetches, replies, fail)
        })?;
        loop {
            match merge.step() {
                // Dropping the session ends its transaction.
                Step::Page(page) => return Ok(page),
                Step::Fill(needed) => {
                    let fetch = needed
                        .into_iter()
                        .map(|arm| {
                            let rows = fetched[arm].max(first);
                            (arm, i32::try_from(rows).unwrap_or(i32::MAX))
                        })
                        .collect();
                    for (arm, entries, done) in session.ask(fetch)? {
                        fetched[arm] += entries.len();
                        let records = entries
                            .into_iter()
                            .map(|entry| entry.into_record(&self.location))
                            .collect::<Result<Vec<_>, _>>()?;
                        merge.fill(arm, records, done);
                    }
                }
            }
        }
    }

    /// Starts `serve` on a connection of its own, on the database's
    /// runtime, and gives the way to talk to it.
    fn session<Req, Rep, F, Fut>(&self, serve: F) -> Result<Session<Req, Rep>, LedgerError>
    where
        Req: Send + 'static,
        Rep: Send + 'static,
        F: FnOnce(Object, async_mpsc::UnboundedReceiver<Req>, Replies<Rep>) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (requests, take_requests) = async_mpsc::unbounded_channel();
        let (give_replies, replies) = mpsc::channel();
        self.db.run(move |client| async move {
            tokio::spawn(serve(client, take_requests, give_replies));
            Ok::<_, LedgerError>(())
        })?;
        Ok(Session {
            requests,
            replies,
            url: self.db.url().to_string(),
        })
    }
}

/// Where a session's task sends its replies, each answering one request
/// in order; after an error it sends nothing more and ends.
type Replies<Rep> = mpsc::Sender<Result<Rep, LedgerError>>;

/// A conversation with a task that holds one connection: requests go to
/// it, replies come back in order. Dropped, it ends the task, which gives
/// the connection back.
struct Session<Req, Rep> {
    requests: async_mpsc::UnboundedSender<Req>,
    replies: mpsc::Receiver<Result<Rep, LedgerError>>,
    url: String,
}

impl<Req, Rep> Session<Req, Rep> {
    fn send(&self, request: Req) -> Result<(), LedgerError> {
        // A task that has ended has said why, unless it died.
        self.requests
            .send(request)
            .map_err(|_| match self.receive() {
                Err(error) => error,
                Ok(_) => self.ended(),
            })
    }

    fn receive(&self) -> Result<Rep, LedgerError> {
        self.replies.recv().unwrap_or_else(|_| Err(self.ended()))
    }

    fn ask(&self, request: Req) -> Result<Rep, LedgerError> {
        self.send(request)?;
        self.receive()
    }

    fn ended(&self) -> LedgerError {
        LedgerError::Database(DbError::Unreachable {
            url: self.url.clone(),
            cause: "the connection's work ended before it answered".to_string(),
        })
    }
}

/// Entries to insert; the last chunk commits.
struct Chunk {
    entries: Vec<Entry>,
    last: bool,
}

/// An insert's task: one transaction, each chunk's inserts pipelined,
/// acknowledged, and the last committed. A caller that goes away before
/// its last chunk leaves the transaction rolled back.
async fn serve_insert(
    mut client: Object,
    mut chunks: async_mpsc::UnboundedReceiver<Chunk>,
    replies: Replies<()>,
    location: Location,
    fail: impl Fn(tokio_postgres::Error) -> LedgerError,
) {
    let outcome = async {
        let tx = client.transaction().await.map_err(&fail)?;
        let insert = tx
            .prepare_cached(&Dialect::Postgres.insert())
            .await
            .map_err(&fail)?;
        while let Some(chunk) = chunks.recv().await {
            try_join_all(chunk.entries.iter().map(|entry| {
                let (tx, insert, fail, location) = (&tx, &insert, &fail, &location);
                async move {
                    tx.execute(insert, &entry_values(entry))
                        .await
                        .map_err(|error| match unique_index(&error) {
                            Some(index) => duplicate(location, entry, index == UPSTREAM_INDEX),
                            None => fail(error),
                        })
                }
            }))
            .await?;
            if chunk.last {
                tx.commit().await.map_err(&fail)?;
                return Ok(true);
            }
            if replies.send(Ok(())).is_err() {
                break;
            }
        }
        Ok(false)
    }
    .await;
    match outcome {
        Ok(true) => drop(replies.send(Ok(()))),
        Ok(false) => {}
        Err(error) => drop(replies.send(Err(error))),
    }
}

/// The unique index an insert broke, if that is why it failed.
fn unique_index(error: &tokio_postgres::Error) -> Option<&str> {
    let db = error.as_db_error()?;
    (*db.code() == SqlState::UNIQUE_VIOLATION).then(|| db.constraint().unwrap_or(""))
}

/// Arms and how many rows to fetch from each.
type Fetch = Vec<(usize, i32)>;
/// Each arm's rows, and whether its portal has no more.
type Fetched = Vec<(usize, Vec<Entry>, bool)>;

/// What a listing's transaction tells PostgreSQL's planner, `SET LOCAL`:
///
/// * `random_page_cost` 1.1, the usual figure for data in memory or on
///   SSD: at the default of 4 (for spinning disks) the planner prefers
///   walking the plain time index, whose order follows the table's, and
///   filtering, over the index that fits the filter, and a ledger's
///   newest entries are not spread as evenly as it assumes (the live ones
///   crowd its top);
/// * unless the listing looks entries up by id, no sorting: like SQLite's
///   `INDEXED BY`, every arm is then an ordered walk of an index, which
///   stops after a page, and PostgreSQL only picks which index;
/// * and then generic plans: which index an arm walks follows from which
///   columns it fixes, not from their values, so each statement is
///   planned once per connection rather than at every bind (a listing of
///   3 servers has 15 arms).
pub(super) fn planner_settings(plan: &ListPlan) -> &'static [(&'static str, &'static str)] {
    if plan.by_id {
        &[("random_page_cost", "1.1")]
    } else {
        &[
            ("random_page_cost", "1.1"),
            ("enable_sort", "off"),
            ("plan_cache_mode", "force_generic_plan"),
        ]
    }
}

/// A listing's task: one read-only snapshot, a portal per arm, and the
/// merge's fetches, each in one round trip.
async fn serve_listing(
    mut client: Object,
    arms: Vec<(String, Vec<Arg>)>,
    settings: &'static [(&'static str, &'static str)],
    mut fetches: async_mpsc::UnboundedReceiver<Fetch>,
    replies: Replies<Fetched>,
    fail: impl Fn(tokio_postgres::Error) -> LedgerError,
) {
    let outcome = async {
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .map_err(&fail)?;
        let settings: String = settings
            .iter()
            .map(|(name, value)| format!("SET LOCAL {name} = {value};"))
            .collect();
        // Pipelined: `join` sends the settings first, and the server
        // applies them before it plans the portals.
        let (set, portals) = join(
            tx.batch_execute(&settings),
            try_join_all(arms.iter().map(|(sql, args)| {
                let tx = &tx;
                async move {
                    let statement = tx.prepare_cached(sql).await?;
                    tx.bind(&statement, &values(args)).await
                }
            })),
        )
        .await;
        set.map_err(&fail)?;
        let portals = portals.map_err(&fail)?;
        while let Some(fetch) = fetches.recv().await {
            let fetched = try_join_all(fetch.into_iter().map(|(arm, rows)| {
                let (tx, portal) = (&tx, &portals[arm]);
                async move {
                    let got = tx.query_portal(portal, rows).await?;
                    let done = got.len() < usize::try_from(rows).unwrap_or(0);
                    let entries = got.iter().map(entry_of).collect::<Result<_, _>>()?;
                    Ok::<_, tokio_postgres::Error>((arm, entries, done))
                }
            }))
            .await
            .map_err(&fail)?;
            if replies.send(Ok(fetched)).is_err() {
                break;
            }
        }
        tx.commit().await.map_err(&fail)
    }
    .await;
    if let Err(error) = outcome {
        let _ = replies.send(Err(error));
    }
}

/// The parameters of a statement.
pub(super) fn values(args: &[Arg]) -> Vec<&(dyn ToSql + Sync)> {
    args.iter()
        .map(|arg| match arg {
            Arg::Int(value) => value as &(dyn ToSql + Sync),
            Arg::Text(value) => value as &(dyn ToSql + Sync),
            Arg::MaybeText(value) => value as &(dyn ToSql + Sync),
        })
        .collect()
}

/// An entry's values, in `ENTRY_COLUMNS` order.
fn entry_values(e: &Entry) -> [&(dyn ToSql + Sync); 18] {
    [
        &e.id,
        &e.kind,
        &e.server,
        &e.upstream_id,
        &e.method,
        &e.tool,
        &e.params,
        &e.status,
        &e.status_message,
        &e.created_at,
        &e.last_updated_at,
        &e.ttl_ms,
        &e.poll_interval_ms,
        &e.profile,
        &e.retry_of,
        &e.result,
        &e.owner,
        &e.replica,
    ]
}

/// A row selected with `COLUMNS`.
fn entry_of(row: &Row) -> Result<Entry, tokio_postgres::Error> {
    Ok(entry_of_row!(row, try_get))
}
