//! A team gateway's state on PostgreSQL (DESIGN §12): the connection, the
//! schema, and the two ways the rest of MCP Sieve uses it.
//!
//! * [`Database`]: a pool of connections (deadpool over tokio-postgres)
//!   on a small runtime of its own, the schema brought up to date when it
//!   connects ([`MIGRATIONS`], under an advisory lock so replicas starting
//!   together migrate once), and [`Database::run`], the blocking door the
//!   synchronous store and ledger go through: the query runs on the
//!   database's runtime and the caller waits, from any thread, inside a
//!   tokio runtime or not.
//! * Documents (`sieve_documents`): the user's files as rows, read,
//!   changed under a lock held while the caller decides
//!   ([`Database::update_document`]), made only when absent, renamed and
//!   removed; the store keeps all it knows of their contents.
//! * Secrets (`sieve_secrets`): a team's `${secret:..}` values as the
//!   bytes sieve-store sealed them to; never a value in the clear.
//! * [`Database::listen`]: `LISTEN` on a channel, the notices delivered
//!   to a tokio channel; a lost connection is reported and reconnected
//!   with backoff, and reported again when it is back, so the engine can
//!   keep serving its last good state and catch up.
//! * [`testing`] (feature `testing`): a real PostgreSQL server on a
//!   temporary folder and a free port, for tests.
//!
//! Addresses are never shown with their password ([`redact`]).

mod documents;
mod secrets;
#[cfg(feature = "testing")]
pub mod testing;

pub use documents::{DocumentChange, RenameOutcome};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
pub use tokio_postgres;
use tokio_postgres::NoTls;

/// The schema, in order: (version, name, SQL). A database at version N has
/// run the first N.
pub const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "documents",
        include_str!("../migrations/0001_documents.sql"),
    ),
    (2, "ledger", include_str!("../migrations/0002_ledger.sql")),
    (
        3,
        "tasks notify",
        include_str!("../migrations/0003_tasks_notify.sql"),
    ),
    (4, "audit", include_str!("../migrations/0004_audit.sql")),
    (
        5,
        "audit notify",
        include_str!("../migrations/0005_audit_notify.sql"),
    ),
    (
        6,
        "owners and replicas",
        include_str!("../migrations/0006_owners_and_replicas.sql"),
    ),
    (7, "secrets", include_str!("../migrations/0007_secrets.sql")),
    (
        8,
        "measurements",
        include_str!("../migrations/0008_measurements.sql"),
    ),
];

/// What can go wrong with the database, said for a person.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum DbError {
    #[error(
        "{url:?} is not a PostgreSQL address MCP Sieve can use ({reason}); write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE"
    )]
    BadUrl { url: String, reason: String },
    #[error(
        "cannot reach the database at {url} ({cause}); check that PostgreSQL runs there and takes connections"
    )]
    Unreachable { url: String, cause: String },
    #[error("the database at {url} refused {action} ({cause})")]
    Query {
        url: String,
        action: &'static str,
        cause: String,
    },
    #[error(
        "the database at {url} has MCP Sieve's schema version {found}, newer than this MCP Sieve knows ({known}); update MCP Sieve on this machine"
    )]
    Newer { url: String, found: i32, known: i32 },
}

/// `url` without its password, for messages and logs.
pub fn redact(url: &str) -> String {
    match tokio_postgres::Config::from_str(url) {
        Ok(config) => {
            let user = config.get_user().unwrap_or("");
            let hosts: Vec<String> = config
                .get_hosts()
                .iter()
                .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
                .map(|(host, port)| match host {
                    tokio_postgres::config::Host::Tcp(name) => format!("{name}:{port}"),
                    #[cfg(unix)]
                    tokio_postgres::config::Host::Unix(path) => {
                        format!("{}:{port}", path.display())
                    }
                })
                .collect();
            let at = if user.is_empty() {
                String::new()
            } else {
                format!("{user}@")
            };
            format!(
                "postgres://{at}{}/{}",
                hosts.join(","),
                config.get_dbname().unwrap_or("")
            )
        }
        Err(_) => "(an address that does not parse)".to_string(),
    }
}

/// A pool of connections to one database, on a runtime of its own.
#[derive(Clone)]
pub struct Database {
    pool: Pool,
    config: tokio_postgres::Config,
    runtime: Arc<OwnRuntime>,
    url: Arc<str>,
    /// Whether a listener found the database gone and has not heard it
    /// back: the loss and the return are said once, however many listen.
    lost: Arc<std::sync::atomic::AtomicBool>,
}

/// The database's runtime, shut down without waiting when the last handle
/// goes: a store may be dropped anywhere, an async task included, where a
/// runtime may not block to wait for its threads.
struct OwnRuntime(Option<tokio::runtime::Runtime>);

impl OwnRuntime {
    fn spawn<F>(&self, task: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0.as_ref().expect("running until dropped").spawn(task)
    }
}

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database").field("url", &self.url).finish()
    }
}

/// Where waiting for the database gives up: a query that takes longer is
/// a database that is not answering.
const WAIT: Duration = Duration::from_secs(10);

impl Database {
    /// Connects to `url` (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`)
    /// and brings MCP Sieve's schema up to date.
    pub fn connect(url: &str) -> Result<Database, DbError> {
        let shown = redact(url);
        let config = tokio_postgres::Config::from_str(url).map_err(|error| DbError::BadUrl {
            url: shown.clone(),
            reason: error.to_string(),
        })?;
        let mut config = config;
        if config.get_application_name().is_none() {
            config.application_name("mcp-sieve");
        }
        config.connect_timeout(Duration::from_secs(5));
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("sieve-postgres")
            .enable_all()
            .build()
            .map_err(|error| DbError::Unreachable {
                url: shown.clone(),
                cause: format!("cannot start its threads: {error}"),
            })?;
        let pool = {
            let _inside = runtime.enter();
            Pool::builder(manager)
                .max_size(16)
                .runtime(deadpool_postgres::Runtime::Tokio1)
                .wait_timeout(Some(WAIT))
                .create_timeout(Some(Duration::from_secs(5)))
                .build()
                .map_err(|error| DbError::BadUrl {
                    url: shown.clone(),
                    reason: error.to_string(),
                })?
        };
        let database = Database {
            pool,
            config,
            runtime: Arc::new(OwnRuntime(Some(runtime))),
            url: shown.into(),
            lost: Arc::default(),
        };
        database.migrate()?;
        Ok(database)
    }

    /// The address, without its password.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// An error of `action` on this database.
    pub fn error(&self, action: &'static str) -> impl Fn(tokio_postgres::Error) -> DbError + use<> {
        let url = self.url.to_string();
        move |error| {
            if error.is_closed() || error.as_db_error().is_none() {
                DbError::Unreachable {
                    url: url.clone(),
                    cause: error.to_string(),
                }
            } else {
                let cause = error
                    .as_db_error()
                    .map(|db| db.message().to_string())
                    .unwrap_or_else(|| error.to_string());
                DbError::Query {
                    url: url.clone(),
                    action,
                    cause,
                }
            }
        }
    }

    /// Runs `work` with a pooled connection on the database's runtime and
    /// waits for it, from any thread. `work` gets the connection by value
    /// (it goes back to the pool when dropped).
    pub fn run<T, E, F, Fut>(&self, work: F) -> Result<T, E>
    where
        F: FnOnce(deadpool_postgres::Object) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        let pool = self.pool.clone();
        let url = self.url.to_string();
        let (send, receive) = std::sync::mpsc::sync_channel(1);
        self.runtime.spawn(async move {
            let outcome = match pool.get().await {
                Ok(client) => work(client).await,
                Err(error) => Err(E::from(DbError::Unreachable {
                    url,
                    cause: error.to_string(),
                })),
            };
            let _ = send.send(outcome);
        });
        receive.recv().unwrap_or_else(|_| {
            Err(E::from(DbError::Unreachable {
                url: self.url.to_string(),
                cause: "the query was dropped".into(),
            }))
        })
    }

    /// Runs `task` on the database's runtime, in the background.
    pub fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        self.runtime.spawn(task);
    }

    /// Brings the schema up to date, once even when replicas start
    /// together.
    fn migrate(&self) -> Result<(), DbError> {
        let error = self.error("bringing MCP Sieve's schema up to date");
        let url = self.url.to_string();
        self.run(move |mut client| async move {
            let tx = client.transaction().await.map_err(&error)?;
            // One migrating replica at a time; the lock ends with the
            // transaction.
            tx.execute("SELECT pg_advisory_xact_lock(7355608001)", &[])
                .await
                .map_err(&error)?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS sieve_schema (
                     version    integer PRIMARY KEY,
                     name       text NOT NULL,
                     applied_at timestamptz NOT NULL DEFAULT now()
                 )",
            )
            .await
            .map_err(&error)?;
            let row = tx
                .query_one("SELECT COALESCE(MAX(version), 0) FROM sieve_schema", &[])
                .await
                .map_err(&error)?;
            let found: i32 = row.get(0);
            let known = MIGRATIONS.last().map_or(0, |(version, _, _)| *version);
            if found > known {
                return Err(DbError::Newer { url, found, known });
            }
            for (version, name, sql) in MIGRATIONS.iter().filter(|(v, _, _)| *v > found) {
                tx.batch_execute(sql).await.map_err(&error)?;
                tx.execute(
                    "INSERT INTO sieve_schema (version, name) VALUES ($1, $2)",
                    &[version, name],
                )
                .await
                .map_err(&error)?;
            }
            tx.commit().await.map_err(&error)?;
            Ok(())
        })
    }

    /// Listens on `channel`: each notification's payload arrives as
    /// [`Notice::Changed`]. When the connection is lost, [`Notice::Lost`]
    /// says why and the listener reconnects with backoff (0.1 s doubling to
    /// 5 s); [`Notice::Back`] says it listens again, after which the
    /// caller should read everything afresh (notifications sent meanwhile
    /// are gone). Ends when the receiver is dropped.
    pub fn listen(&self, channel: &'static str) -> tokio::sync::mpsc::UnboundedReceiver<Notice> {
        let (send, receive) = tokio::sync::mpsc::unbounded_channel();
        let config = self.config.clone();
        let url = self.url.to_string();
        let said = self.lost.clone();
        self.runtime.spawn(async move {
            use std::sync::atomic::Ordering;
            let mut delay = Duration::from_millis(100);
            let mut lost = false;
            loop {
                match listen_once(&config, channel, &send, lost, &said).await {
                    Ok(()) => return, // the receiver is gone
                    Err((cause, listened)) => {
                        if send.is_closed() {
                            return;
                        }
                        if listened {
                            // It was back, then lost again.
                            lost = false;
                            delay = Duration::from_millis(100);
                        }
                        if !lost {
                            if !said.swap(true, Ordering::SeqCst) {
                                tracing::warn!(
                                    "lost the database at {url} ({cause}); hosts are served from the last state read while it reconnects"
                                );
                            }
                            let _ = send.send(Notice::Lost(cause));
                        }
                        lost = true;
                        tokio::time::sleep(delay).await;
                        delay = (delay * 2).min(Duration::from_secs(5));
                    }
                }
            }
        });
        receive
    }
}

/// What a listener hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A notification, with its payload.
    Changed(String),
    /// The connection was lost, and why.
    Lost(String),
    /// Listening again after a loss; what changed meanwhile is unknown.
    Back,
}

/// One connection's life as a listener: `Ok` when the receiver is gone,
/// else why the connection ended and whether it listened before it did.
async fn listen_once(
    config: &tokio_postgres::Config,
    channel: &str,
    send: &tokio::sync::mpsc::UnboundedSender<Notice>,
    was_lost: bool,
    said: &std::sync::atomic::AtomicBool,
) -> Result<(), (String, bool)> {
    use futures_util::StreamExt;
    let (client, mut connection) = config
        .connect(NoTls)
        .await
        .map_err(|error| (error.to_string(), false))?;
    let (messages_send, mut messages) = tokio::sync::mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        let mut stream = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = stream.next().await {
            match message {
                Ok(message) => {
                    if messages_send.send(Ok(message)).is_err() {
                        return;
                    }
                }
                Err(error) => {
                    let _ = messages_send.send(Err(error.to_string()));
                    return;
                }
            }
        }
        let _ = messages_send.send(Err("the server closed the connection".to_string()));
    });
    let listening = client
        .batch_execute(&format!("LISTEN {channel}"))
        .await
        .map_err(|error| error.to_string());
    if let Err(cause) = listening {
        driver.abort();
        return Err((cause, false));
    }
    if was_lost {
        if said.swap(false, std::sync::atomic::Ordering::SeqCst) {
            tracing::info!("the database is back; reading the state again");
        }
        if send.send(Notice::Back).is_err() {
            driver.abort();
            return Ok(());
        }
    }
    let outcome = loop {
        tokio::select! {
            message = messages.recv() => match message {
                Some(Ok(tokio_postgres::AsyncMessage::Notification(notice))) => {
                    if send.send(Notice::Changed(notice.payload().to_string())).is_err() {
                        break Ok(());
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(cause)) => break Err(cause),
                None => break Err("the connection ended".to_string()),
            },
            _ = send.closed() => break Ok(()),
        }
    };
    driver.abort();
    drop(client);
    outcome.map_err(|cause| (cause, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_shown_without_their_password() {
        let shown = redact("postgres://sieve:s3cret@db.example:6543/team");
        assert_eq!(shown, "postgres://sieve@db.example:6543/team");
        assert!(!redact("postgres://a:s3cret@h/d").contains("s3cret"));
        assert_eq!(redact("not a url ::"), "(an address that does not parse)");
    }

    #[test]
    fn a_bad_address_says_how_to_write_one() {
        let error = Database::connect("postgres://a:b@h:notaport/d").unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
            "{text}"
        );
        assert!(!text.contains(":b@"), "no password in {text}");
    }
}
