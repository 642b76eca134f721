//! `tasks/list` against a task ledger of 1,000,000 entries (several
//! servers, methods and statuses over 30 days, many equal timestamps): the
//! first page of 50 for each filter the API offers, alone and combined,
//! through the ledger query the proxy's `tasks/list` runs, on SQLite (one
//! machine) and on PostgreSQL (a team gateway) side by side, the same
//! entries in both. Target: under 5 ms each.
//!
//! The SQLite ledger is built once (one transaction, one prepared insert)
//! and kept under `$CARGO_TARGET_DIR/mcp-sieve-bench` (or the temp folder),
//! named by [`DATA_VERSION`]; bump that when the schema or the generator
//! changes. The PostgreSQL one is built in each run, in a server of the
//! run's own (sieve-postgres's `TestServer`: PostgreSQL's defaults but
//! `fsync=off`), through the same `insert_all`, then vacuumed and
//! analysed as autovacuum would. Before the timed runs, each case runs
//! seven times with `auto_explain` logging every plan (the seventh is past
//! the five after which PostgreSQL may switch a prepared statement to a
//! generic plan): the table names the indexes the plans used, and a plan
//! that reads the whole table fails the run. A smoke run builds 20,000
//! entries in a temporary folder instead.

use serde_json::json;
use sieve_core::tasks::{Cursor, EntryKind, OrderBy, TaskQuery, TaskRecord, TaskStatus};
use sieve_ledger::Ledger;
use sieve_postgres::testing::TestServer;
use sieve_postgres::{Database, DbError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::Plan;
use crate::report::{Table, ms, quantile};

/// Names the cached ledger: schema version and generator version.
const DATA_VERSION: &str = "schema1-data1";
const ENTRIES: usize = 1_000_000;
/// "Now" for the generated data, fixed so the cached ledger stays valid.
const NOW: i64 = 1_795_168_800_000;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;
const SPAN: i64 = 30 * DAY;
/// Every this many entries, a burst of [`BURST`] created in one millisecond.
const BURST_EVERY: usize = 200;
const BURST: usize = 12;

const SERVERS: [(&str, u64); 8] = [
    ("github", 30),
    ("filesystem", 20),
    ("kubernetes", 15),
    ("postgres", 10),
    ("slack", 8),
    ("sentry", 7),
    ("linear", 6),
    ("browser", 4),
];
const METHODS: [(&str, u64); 3] = [
    ("tools/call", 92),
    ("resources/read", 5),
    ("prompts/get", 3),
];
const TOOLS: [&str; 6] = [
    "search",
    "run_job",
    "list_items",
    "create_issue",
    "query",
    "fetch",
];
const PROFILES: [&str; 3] = ["default", "work", "review"];

/// splitmix64: a small, fast, reproducible generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// True with probability `per_mille`/1000.
    fn chance(&mut self, per_mille: u64) -> bool {
        self.next() % 1000 < per_mille
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn weighted<'a>(&mut self, items: &[(&'a str, u64)]) -> &'a str {
        let total: u64 = items.iter().map(|(_, w)| w).sum();
        let mut pick = self.below(total);
        for (item, weight) in items {
            if pick < *weight {
                return item;
            }
            pick -= weight;
        }
        unreachable!("pick is below the total")
    }
}

/// The id of entry `i`, reproducible so cases can name entries.
fn id_of(i: usize) -> String {
    let mut rng = Rng(i as u64 ^ 0x5eed);
    format!("st-{:08x}{:016x}", rng.next() as u32, rng.next())
}

/// When entry `i` was created: spread evenly over 30 days, in bursts
/// that share a millisecond.
fn created_of(i: usize, entries: usize) -> i64 {
    let slot = i - i % BURST_EVERY + (i % BURST_EVERY).saturating_sub(BURST - 1);
    NOW - SPAN + (slot as i64) * (SPAN / entries as i64)
}

fn entry(i: usize, entries: usize, rng: &mut Rng) -> TaskRecord {
    let created_at = created_of(i, entries);
    let server = rng.weighted(&SERVERS);
    let method = rng.weighted(&METHODS);
    let tool = TOOLS[rng.below(TOOLS.len() as u64) as usize];
    let recent = NOW - created_at < 2 * HOUR;
    let kind = if rng.chance(80) {
        EntryKind::Call
    } else {
        EntryKind::Task
    };
    // Recent entries are often still running; old ones have finished,
    // bar a few stuck ones. Calls are recorded only when they failed or
    // were cut off.
    let status = match (kind, recent) {
        (EntryKind::Call, _) if rng.chance(700) => TaskStatus::Failed,
        (EntryKind::Call, _) => TaskStatus::Cancelled,
        (EntryKind::Task, true) if rng.chance(400) => TaskStatus::Working,
        (EntryKind::Task, true) if rng.chance(80) => TaskStatus::InputRequired,
        (EntryKind::Task, false) if rng.chance(2) => TaskStatus::Working,
        (EntryKind::Task, false) if rng.chance(1) => TaskStatus::InputRequired,
        _ if rng.chance(100) => TaskStatus::Failed,
        _ if rng.chance(50) => TaskStatus::Cancelled,
        _ => TaskStatus::Completed,
    };
    // Most tasks take seconds, a few minutes.
    let took = (rng.below(1_000) as i64).pow(2) * 600 / 1_000;
    let last_updated_at = if status.is_terminal() {
        created_at + took
    } else {
        (created_at + took).max(NOW - rng.below(60_000) as i64)
    };
    let (status_message, result) = match status {
        TaskStatus::Completed => (
            None,
            Some(
                json!({"content": [{"type": "text", "text": format!("{tool} finished: {} items", rng.below(500))}]}),
            ),
        ),
        TaskStatus::Failed => (
            Some(format!(
                "{server} returned an error: timeout after {} s",
                rng.below(120)
            )),
            Some(json!({"code": -32603, "message": "upstream error"})),
        ),
        TaskStatus::Cancelled => (Some("cancelled by the host".to_string()), None),
        TaskStatus::InputRequired => (Some("waiting for an answer".to_string()), None),
        TaskStatus::Working => (Some(format!("step {} of 5", rng.below(5) + 1)), None),
    };
    TaskRecord {
        id: id_of(i),
        kind,
        server: server.to_string(),
        upstream_id: (kind == EntryKind::Task).then(|| format!("task-{:x}", rng.next())),
        method: method.to_string(),
        tool: Some(format!("{server}__{tool}")),
        params: json!({
            "name": tool,
            "arguments": {"query": format!("repo:example/{} is:open label:bug", rng.below(1_000)), "limit": 50}
        }),
        status,
        status_message,
        created_at,
        last_updated_at,
        ttl_ms: (kind == EntryKind::Task).then_some(3_600_000),
        poll_interval_ms: (kind == EntryKind::Task).then_some(1_000),
        profile: Some(PROFILES[rng.below(3) as usize].to_string()),
        retry_of: rng.chance(20).then(|| id_of(i.saturating_sub(1))),
        owner: None,
        result,
    }
}

/// Fills `ledger` with the generated entries, in one `insert_all`.
fn fill(ledger: &Ledger, entries: usize) {
    let started = Instant::now();
    let mut rng = Rng(42);
    ledger
        .insert_all((0..entries).map(|i| entry(i, entries, &mut rng)))
        .expect("bench entries insert");
    eprintln!(
        "built {entries} entries in {:.1} s in {}",
        started.elapsed().as_secs_f64(),
        ledger.location()
    );
}

fn build(path: &Path, entries: usize) -> Ledger {
    let ledger = Ledger::open(path).expect("bench ledger opens");
    fill(&ledger, entries);
    ledger
}

/// The cached 1M-entry ledger, built on first use. It is built under a
/// temporary name and renamed when complete, so an interrupted build is
/// never reused.
fn cached_ledger() -> Ledger {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join("mcp-sieve-bench");
    let path = dir.join(format!("tasks-{DATA_VERSION}-{ENTRIES}.db"));
    if !path.exists() {
        let partial = dir.join(format!("tasks-{DATA_VERSION}-{ENTRIES}.partial.db"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", partial.display()));
        }
        drop(build(&partial, ENTRIES));
        std::fs::rename(&partial, &path).expect("rename the built ledger");
    }
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    eprintln!("ledger {} ({} MB)", path.display(), size / 1_000_000);
    Ledger::open(&path).expect("cached ledger opens")
}

/// What the caller's profile lets it see.
type Visible = fn(&TaskRecord) -> bool;

fn cases(entries: usize) -> Vec<(&'static str, TaskQuery, Visible)> {
    let q = TaskQuery::default;
    let all: Visible = |_| true;
    let burst = entries / 2 - (entries / 2) % BURST_EVERY;
    vec![
        ("no filter", q(), all),
        (
            "status failed",
            TaskQuery {
                statuses: vec![TaskStatus::Failed],
                ..q()
            },
            all,
        ),
        (
            "status working, input_required",
            TaskQuery {
                statuses: vec![TaskStatus::Working, TaskStatus::InputRequired],
                ..q()
            },
            all,
        ),
        (
            "servers slack",
            TaskQuery {
                servers: vec!["slack".into()],
                ..q()
            },
            all,
        ),
        (
            "servers github, linear, browser",
            TaskQuery {
                servers: ["github", "linear", "browser"].map(String::from).to_vec(),
                ..q()
            },
            all,
        ),
        (
            "methods prompts/get",
            TaskQuery {
                methods: vec!["prompts/get".into()],
                ..q()
            },
            all,
        ),
        (
            "taskIds (5 ids)",
            TaskQuery {
                task_ids: [7, entries / 3, entries / 2, entries - 9, entries - 1]
                    .map(id_of)
                    .to_vec(),
                ..q()
            },
            all,
        ),
        (
            "createdAfter last 3h",
            TaskQuery {
                created_after: Some(NOW - 3 * HOUR),
                ..q()
            },
            all,
        ),
        (
            "lastUpdatedBefore 15 days ago",
            TaskQuery {
                last_updated_before: Some(NOW - 15 * DAY),
                ..q()
            },
            all,
        ),
        (
            "orderBy createdAt asc",
            TaskQuery {
                order_by: OrderBy::CreatedAt,
                descending: false,
                ..q()
            },
            all,
        ),
        (
            "cursor inside equal timestamps",
            TaskQuery {
                order_by: OrderBy::CreatedAt,
                cursor: Some(Cursor {
                    key: created_of(burst, entries),
                    seq: burst as i64 + 6,
                }),
                ..q()
            },
            all,
        ),
        (
            "status + server",
            TaskQuery {
                statuses: vec![TaskStatus::Completed],
                servers: vec!["github".into()],
                ..q()
            },
            all,
        ),
        (
            "status + time window",
            TaskQuery {
                statuses: vec![TaskStatus::Failed],
                last_updated_after: Some(NOW - 7 * DAY),
                last_updated_before: Some(NOW - 6 * DAY),
                ..q()
            },
            all,
        ),
        (
            "server + method + status",
            TaskQuery {
                servers: vec!["postgres".into()],
                methods: vec!["resources/read".into()],
                statuses: vec![TaskStatus::Completed],
                ..q()
            },
            all,
        ),
        (
            "servers (3) + status (2) + createdAfter 7d",
            TaskQuery {
                servers: ["github", "slack", "sentry"].map(String::from).to_vec(),
                statuses: vec![TaskStatus::Failed, TaskStatus::Cancelled],
                created_after: Some(NOW - 7 * DAY),
                ..q()
            },
            all,
        ),
        ("profile hides 9 tools in 10", q(), |r: &TaskRecord| {
            r.id.ends_with('7')
        }),
    ]
}

/// The ledger in a PostgreSQL server of this run's own.
struct Postgres {
    server: TestServer,
    url: String,
    ledger: Ledger,
}

impl Postgres {
    /// Starts the server and builds the ledger: `entries` entries, then
    /// vacuumed and analysed.
    fn build(entries: usize) -> Postgres {
        let server = TestServer::start();
        let url = server.database("bench");
        let ledger = Ledger::postgres(Database::connect(&url).expect("bench database connects"))
            .expect("bench ledger opens");
        fill(&ledger, entries);
        let postgres = Postgres {
            server,
            url,
            ledger,
        };
        postgres.execute("VACUUM ANALYZE sieve_tasks");
        postgres
    }

    /// Runs `sql` on a connection of its own.
    fn execute(&self, sql: &str) {
        let db = Database::connect(&self.url).expect("bench database connects");
        let error = db.error("running a statement of the benchmark");
        let sql = sql.to_string();
        db.run(move |client| async move { client.batch_execute(&sql).await.map_err(error) })
            .unwrap_or_else(|e: DbError| panic!("{e}"));
    }

    /// The indexes each case's plans use, from `auto_explain`'s log of
    /// seven runs of it on connections that load it. Panics on a plan that
    /// reads the whole table.
    fn plans(&self, cases: &[(&'static str, TaskQuery, Visible)]) -> Vec<String> {
        self.execute(
            "ALTER DATABASE bench SET session_preload_libraries = 'auto_explain'; \
             ALTER DATABASE bench SET auto_explain.log_min_duration = 0",
        );
        let explained = Ledger::postgres(Database::connect(&self.url).expect("connects"))
            .expect("bench ledger opens");
        let log = self.server.dir().join("log");
        let size = || std::fs::metadata(&log).map_or(0, |m| m.len());
        let mut indexes = Vec::new();
        for (name, query, visible) in cases {
            let start = size();
            for _ in 0..7 {
                explained.list(query, visible).expect("list");
            }
            // A listing's portals are logged when its transaction ends,
            // just after the page is returned: wait for the log to settle.
            let deadline = Instant::now() + Duration::from_secs(5);
            let mut last = size();
            loop {
                std::thread::sleep(Duration::from_millis(100));
                let now = size();
                if now == last || Instant::now() > deadline {
                    break;
                }
                last = now;
            }
            let text = std::fs::read(&log).expect("the server's log");
            let text = String::from_utf8_lossy(&text[start as usize..]);
            assert!(
                !text.contains("Seq Scan on sieve_tasks"),
                "{name}: PostgreSQL read the whole table:\n{text}"
            );
            let mut used: Vec<&str> = text
                .split_whitespace()
                .collect::<Vec<_>>()
                .windows(2)
                .filter(|w| w[0] == "using" || (w[0] == "on" && w[1].starts_with("sieve_tasks_")))
                .map(|w| w[1].trim_start_matches("sieve_tasks_"))
                .collect();
            used.sort_unstable();
            used.dedup();
            assert!(!used.is_empty(), "{name}: no index in the plans:\n{text}");
            indexes.push(used.join(", "));
        }
        self.execute("ALTER DATABASE bench RESET ALL");
        indexes
    }
}

/// The p50 and p99 of `runs` listings of `query` after 3 warm-up runs, and
/// the ids of the page.
fn time(
    ledger: &Ledger,
    runs: usize,
    query: &TaskQuery,
    visible: Visible,
) -> (Duration, Duration, Vec<String>) {
    let mut ids = Vec::new();
    let mut times: Vec<Duration> = (0..runs + 3)
        .map(|_| {
            let started = Instant::now();
            let page = ledger.list(query, &visible).expect("list");
            let took = started.elapsed();
            ids = page.tasks.into_iter().map(|t| t.id).collect();
            took
        })
        .skip(3)
        .collect();
    times.sort();
    (quantile(&times, 0.5), quantile(&times, 0.99), ids)
}

pub fn run(plan: &Plan) {
    let (_dir, sqlite, entries, runs) = if plan.smoke {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = build(&dir.path().join("tasks.db"), 20_000);
        (Some(dir), ledger, 20_000, 5)
    } else {
        (None, cached_ledger(), ENTRIES, 51)
    };
    let postgres = Postgres::build(entries);
    let cases = cases(entries);
    let indexes = postgres.plans(&cases);
    let mut table = Table::new(
        format!(
            "tasks/list on a ledger of {entries} entries, first page of 50, {runs} runs after 3 warm-up runs; ms"
        ),
        &[
            "filter",
            "SQLite p50",
            "SQLite p99",
            "PostgreSQL p50",
            "PostgreSQL p99",
            "rows",
            "PostgreSQL's indexes",
        ],
    );
    for ((name, query, visible), indexes) in cases.into_iter().zip(indexes) {
        let (file_p50, file_p99, file_ids) = time(&sqlite, runs, &query, visible);
        let (db_p50, db_p99, db_ids) = time(&postgres.ledger, runs, &query, visible);
        assert_eq!(
            file_ids, db_ids,
            "{name}: both databases list the same page"
        );
        table.row(vec![
            name.to_string(),
            ms(file_p50),
            ms(file_p99),
            ms(db_p50),
            ms(db_p99),
            file_ids.len().to_string(),
            indexes,
        ]);
    }
    table.print();
}
