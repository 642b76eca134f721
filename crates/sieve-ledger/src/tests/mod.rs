//! The ledger against a real SQLite file and a real PostgreSQL database:
//! every operation, every filter and order of a listing, concurrent
//! writers (threads, processes, replicas), the plans each database picks,
//! and a database that goes away and comes back.
//!
//! What both backends promise is tested once, in `both`, and run twice
//! (the [`on_both!`] list): on a new file, and on a new database of the one
//! PostgreSQL server this test binary starts. `sqlite` and `postgres` hold
//! what only one of them has. A missing PostgreSQL fails the tests that
//! need it, saying what to install; it never skips them.

mod audit;
mod both;
mod measurements;
mod postgres;
mod sqlite;

use super::*;
use serde_json::json;
use sieve_core::tasks::{Cursor, OrderBy};
use sieve_postgres::testing::TestServer;
use std::collections::HashSet;
use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

const SERVERS: [&str; 3] = ["github", "files", "k8s"];
const METHODS: [&str; 2] = ["tools/call", "prompts/get"];

fn record(id: &str, created: i64, updated: i64) -> TaskRecord {
    TaskRecord {
        id: id.into(),
        kind: EntryKind::Task,
        server: "github".into(),
        upstream_id: Some(format!("up-{id}")),
        method: "tools/call".into(),
        tool: Some("github__run_job".into()),
        params: json!({"name": "run_job", "arguments": {"n": 1}}),
        status: TaskStatus::Working,
        status_message: None,
        created_at: created,
        last_updated_at: updated,
        ttl_ms: Some(60_000),
        poll_interval_ms: Some(500),
        profile: Some("default".into()),
        retry_of: None,
        owner: None,
        result: None,
    }
}

/// A varied ledger: three servers, two methods, every status, and
/// timestamps drawn from a few values so many entries tie. Entry `i`
/// has `seq` `i + 1`.
fn fixture(ledger: &Ledger, n: usize) -> Vec<TaskRecord> {
    let records: Vec<TaskRecord> = (0..n)
        .map(|i| {
            let created = 1_000 + (i as i64 / 9) * 10;
            let mut r = record(&format!("t{i:04}"), created, created + (i as i64 % 4) * 7);
            r.server = SERVERS[i % 3].into();
            r.method = METHODS[usize::from(i % 7 == 0)].into();
            r.status = TaskStatus::ALL[(i / 2) % 5];
            r.owner = match i % 4 {
                0 | 3 => Some("alice".into()),
                1 => Some("bob".into()),
                _ => None,
            };
            if i % 5 == 0 {
                r.kind = EntryKind::Call;
                r.upstream_id = None;
            }
            r
        })
        .collect();
    assert_eq!(ledger.insert_all(&records).expect("fixture inserts"), n);
    records
}

/// What `list` must return over all pages: the matching visible
/// entries in order.
fn expected(
    records: &[TaskRecord],
    query: &TaskQuery,
    visible: &dyn Fn(&TaskRecord) -> bool,
) -> Vec<String> {
    let mut rows: Vec<(i64, i64, &TaskRecord)> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| query.matches(r) && visible(r))
        .map(|(i, r)| (query.key(r), i as i64 + 1, r))
        .collect();
    rows.sort_by_key(|&(key, seq, _)| (key, seq));
    if query.descending {
        rows.reverse();
    }
    rows.into_iter().map(|(_, _, r)| r.id.clone()).collect()
}

/// Every page of `query`, followed through its cursors.
fn walk(
    ledger: &Ledger,
    query: &TaskQuery,
    visible: &dyn Fn(&TaskRecord) -> bool,
) -> (Vec<String>, usize) {
    let mut query = query.clone();
    let mut ids = Vec::new();
    let mut pages = 0;
    loop {
        let page = ledger.list(&query, visible).expect("list");
        pages += 1;
        assert!(
            page.tasks.len() <= query.limit as usize,
            "page within limit"
        );
        ids.extend(page.tasks.into_iter().map(|t| t.id));
        match page.next_cursor {
            Some(text) => query.cursor = Some(Cursor::decode(&text).expect("our cursor")),
            None => return (ids, pages),
        }
        assert!(pages < 10_000, "listing ends");
    }
}

fn all(_: &TaskRecord) -> bool {
    true
}

/// Filter shapes: each filter alone and the combinations hosts use.
fn shapes() -> Vec<(&'static str, TaskQuery)> {
    let q = TaskQuery::default;
    vec![
        ("none", q()),
        (
            "status",
            TaskQuery {
                statuses: vec![TaskStatus::Failed],
                ..q()
            },
        ),
        (
            "statuses",
            TaskQuery {
                statuses: vec![TaskStatus::Working, TaskStatus::Cancelled],
                ..q()
            },
        ),
        (
            "server",
            TaskQuery {
                servers: vec!["files".into()],
                ..q()
            },
        ),
        (
            "servers",
            TaskQuery {
                servers: vec!["files".into(), "k8s".into()],
                ..q()
            },
        ),
        (
            "method",
            TaskQuery {
                methods: vec!["prompts/get".into()],
                ..q()
            },
        ),
        (
            "taskIds",
            TaskQuery {
                task_ids: ["t0003", "t0100", "t0101", "t0250", "nope"]
                    .map(String::from)
                    .to_vec(),
                ..q()
            },
        ),
        (
            "createdAfter",
            TaskQuery {
                created_after: Some(1_150),
                ..q()
            },
        ),
        (
            "createdBefore",
            TaskQuery {
                created_before: Some(1_150),
                ..q()
            },
        ),
        (
            "lastUpdatedAfter",
            TaskQuery {
                last_updated_after: Some(1_150),
                ..q()
            },
        ),
        (
            "lastUpdatedBefore",
            TaskQuery {
                last_updated_before: Some(1_150),
                ..q()
            },
        ),
        (
            "created window",
            TaskQuery {
                created_after: Some(1_100),
                created_before: Some(1_200),
                ..q()
            },
        ),
        (
            "status+server",
            TaskQuery {
                statuses: vec![TaskStatus::Completed],
                servers: vec!["github".into()],
                ..q()
            },
        ),
        (
            "status+window",
            TaskQuery {
                statuses: vec![TaskStatus::Working, TaskStatus::Failed],
                last_updated_after: Some(1_050),
                last_updated_before: Some(1_250),
                ..q()
            },
        ),
        (
            "server+method",
            TaskQuery {
                servers: vec!["k8s".into()],
                methods: vec!["tools/call".into()],
                ..q()
            },
        ),
        (
            "server+method+status",
            TaskQuery {
                servers: vec!["github".into(), "k8s".into()],
                methods: vec!["tools/call".into()],
                statuses: vec![TaskStatus::Completed, TaskStatus::Working],
                ..q()
            },
        ),
        (
            "method+status+created",
            TaskQuery {
                methods: vec!["tools/call".into()],
                statuses: vec![TaskStatus::InputRequired],
                created_after: Some(1_020),
                ..q()
            },
        ),
        (
            "owner",
            TaskQuery {
                owner: Some("alice".into()),
                ..q()
            },
        ),
        (
            "owner+server+status",
            TaskQuery {
                owner: Some("bob".into()),
                servers: vec!["files".into()],
                statuses: vec![TaskStatus::Completed, TaskStatus::Failed],
                ..q()
            },
        ),
        (
            "owner+method+created",
            TaskQuery {
                owner: Some("alice".into()),
                methods: vec!["prompts/get".into()],
                created_after: Some(1_020),
                ..q()
            },
        ),
        (
            "ids+status",
            TaskQuery {
                task_ids: ["t0003", "t0004", "t0010"].map(String::from).to_vec(),
                statuses: vec![TaskStatus::Working],
                ..q()
            },
        ),
    ]
}

/// Every shape in both orders and by both keys.
fn variants() -> Vec<(String, TaskQuery)> {
    let mut out = Vec::new();
    for (name, shape) in shapes() {
        for order_by in [OrderBy::LastUpdatedAt, OrderBy::CreatedAt] {
            for descending in [true, false] {
                let query = TaskQuery {
                    order_by,
                    descending,
                    ..shape.clone()
                };
                out.push((
                    format!("{name} by {} desc={descending}", order_by.as_str()),
                    query,
                ));
            }
        }
    }
    out
}

/// A new, empty ledger of one test, and how to reach its entries again.
struct Fresh {
    ledger: Ledger,
    /// The file's folder, removed when the test ends, or the database's
    /// address.
    kept: Kept,
}

enum Kept {
    Folder(tempfile::TempDir),
    Database(String),
}

impl Fresh {
    fn sqlite() -> Fresh {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Ledger::open(&dir.path().join("state/tasks.db")).expect("ledger opens");
        Fresh {
            ledger,
            kept: Kept::Folder(dir),
        }
    }

    /// A ledger in a new database `name` of the shared server.
    fn postgres(name: &str) -> Fresh {
        let url = database(name);
        Fresh {
            ledger: Ledger::postgres(Database::connect(&url).expect("the database connects"))
                .expect("ledger opens"),
            kept: Kept::Database(url),
        }
    }

    /// Another handle on the same entries, as another process or replica
    /// has: a connection of its own to the file, or a pool of its own.
    fn again(&self) -> Ledger {
        match &self.kept {
            Kept::Folder(dir) => {
                Ledger::open(&dir.path().join("state/tasks.db")).expect("ledger opens again")
            }
            Kept::Database(url) => {
                Ledger::postgres(Database::connect(url).expect("the database connects again"))
                    .expect("ledger opens again")
            }
        }
    }

    /// What a child process opens: the file, or the database's address.
    fn address(&self) -> String {
        match &self.kept {
            Kept::Folder(dir) => dir.path().join("state/tasks.db").display().to_string(),
            Kept::Database(url) => url.clone(),
        }
    }
}

impl Deref for Fresh {
    type Target = Ledger;

    fn deref(&self) -> &Ledger {
        &self.ledger
    }
}

/// Opens what [`Fresh::address`] gave.
fn open_address(address: &str) -> Ledger {
    if address.starts_with("postgres://") {
        Ledger::postgres(Database::connect(address).expect("the database connects"))
            .expect("ledger opens")
    } else {
        Ledger::open(Path::new(address)).expect("ledger opens")
    }
}

/// The PostgreSQL server of this test binary, started on first use and
/// stopped when the process exits.
static SERVER: Mutex<Option<TestServer>> = Mutex::new(None);

unsafe extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn stop_server() {
    let server = SERVER.lock().unwrap_or_else(PoisonError::into_inner).take();
    drop(server);
}

/// A new database `name` on the shared server, and its address.
fn database(name: &str) -> String {
    let mut server = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    if server.is_none() {
        *server = Some(TestServer::start());
        // SAFETY: registers a plain function with the C library, which
        // calls it once at exit, when the test harness has finished.
        let registered = unsafe { atexit(stop_server) };
        assert_eq!(registered, 0, "the server's stop is registered for exit");
    }
    server.as_ref().expect("started").database(name)
}

/// Runs `sql`, with `{table}` for the ledger's table, on its database
/// behind the ledger's back.
fn execute(ledger: &Ledger, sql: &str) {
    let sql = sql.replace("{table}", ledger.table());
    match &ledger.backend {
        Backend::Sqlite(b) => b.conn().execute_batch(&sql).expect("statement runs"),
        Backend::Postgres(b) => {
            let error = b.database().error("a test's statement");
            b.database()
                .run(move |client| async move { client.batch_execute(&sql).await.map_err(error) })
                .expect("statement runs")
        }
    }
}

fn count(ledger: &Ledger) -> i64 {
    let sql = format!("SELECT count(*) FROM {}", ledger.table());
    match &ledger.backend {
        Backend::Sqlite(b) => b
            .conn()
            .query_row(&sql, [], |row| row.get(0))
            .expect("count"),
        Backend::Postgres(b) => {
            let error = b.database().error("counting");
            b.database()
                .run(move |client| async move {
                    let row = client.query_one(&sql, &[]).await.map_err(error)?;
                    Ok::<i64, DbError>(row.get(0))
                })
                .expect("count")
        }
    }
}

/// Each test of `both` on a new SQLite file (`on_sqlite::NAME`) and on a
/// new PostgreSQL database (`on_postgres::NAME`).
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test]
            fn $name() {
                super::both::$name(&super::Fresh::sqlite());
            })*
        }

        mod on_postgres {
            $(#[test]
            fn $name() {
                super::both::$name(&super::Fresh::postgres(stringify!($name)));
            })*
        }
    };
}

on_both!(
    insert_then_get_round_trips_every_field,
    last_update_is_never_before_creation,
    ids_and_upstream_ids_are_unique,
    a_failed_batch_inserts_nothing,
    update_changes_status_and_keeps_what_is_not_given,
    a_late_working_notification_does_not_reopen_a_finished_task,
    find_upstream_is_per_server,
    live_lists_running_upstream_tasks_oldest_first,
    purge_deletes_only_old_finished_entries,
    reopening_keeps_the_entries,
    an_entry_changed_behind_our_back_is_reported,
    every_filter_and_order_lists_what_matches,
    filters_agree_with_task_query_matches_on_random_ledgers,
    equal_timestamps_page_without_loss_or_repeats,
    limit_one_walks_the_whole_ledger,
    time_bounds_are_exclusive,
    a_cursor_from_another_order_continues_after_its_position,
    hidden_entries_do_not_shorten_pages,
    nearly_everything_hidden_stops_early_with_a_cursor,
    clones_and_second_handles_write_from_threads_without_loss,
    audit_records_round_trip_newest_first,
    audit_filters_and_pages_list_what_matches,
    purge_deletes_old_audit_records,
    a_silent_replicas_calls_are_marked_cut_off,
    measured_calls_are_medians_and_percentiles_per_tool,
    only_the_last_calls_of_each_tool_are_kept,
);

/// Set in a child copy of this test binary: the ledger it writes to.
const CHILD_LEDGER: &str = "MCP_SIEVE_LEDGER_TEST_CHILD";

/// Two processes, the test and a child copy of it running `test`, write
/// to the ledger `fresh` makes at once; neither loses an entry or an
/// update.
fn two_processes_write_at_once(test: &str, fresh: impl FnOnce() -> Fresh) {
    let write = |ledger: &Ledger, who: &str| {
        for i in 0..300 {
            let id = format!("{who}-{i}");
            let mut r = record(&id, i, i);
            r.server = who.into();
            ledger.insert(&r).expect("insert");
            ledger
                .update(&id, TaskStatus::Failed, None, None, i + 1)
                .expect("update");
        }
    };
    if let Ok(address) = std::env::var(CHILD_LEDGER) {
        write(&open_address(&address), "child");
        return;
    }
    let ledger = fresh();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--test-threads=1"])
        .env(CHILD_LEDGER, ledger.address())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("child test process starts");
    write(&ledger, "parent");
    assert!(
        child.wait().unwrap().success(),
        "child wrote without errors"
    );
    assert_eq!(count(&ledger), 600, "both processes' entries kept");
    let failed = TaskQuery {
        statuses: vec![TaskStatus::Failed],
        servers: vec!["child".into()],
        limit: 500,
        ..TaskQuery::default()
    };
    assert_eq!(
        walk(&ledger, &failed, &all).0.len(),
        300,
        "the child's updates kept"
    );
}

#[test]
fn two_processes_write_a_file_at_once_without_loss() {
    two_processes_write_at_once(
        "tests::two_processes_write_a_file_at_once_without_loss",
        Fresh::sqlite,
    );
}

#[test]
fn two_processes_write_a_database_at_once_without_loss() {
    two_processes_write_at_once(
        "tests::two_processes_write_a_database_at_once_without_loss",
        || Fresh::postgres("two_processes"),
    );
}

#[test]
fn new_ids_look_right_and_differ() {
    let ids: HashSet<String> = (0..1000).map(|_| Ledger::new_id()).collect();
    assert_eq!(ids.len(), 1000);
    for id in ids {
        assert_eq!(id.len(), 27, "{id}");
        assert!(id.starts_with("st-") && id[3..].bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
