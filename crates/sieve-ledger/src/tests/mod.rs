//! The ledger against a real SQLite file: every operation, every filter
//! and order of a listing, concurrent writers, and the plans SQLite picks.

use super::*;
use serde_json::json;
use sieve_core::tasks::{Cursor, OrderBy};
use std::collections::HashSet;

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
        result: None,
    }
}

fn open() -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().expect("temp dir");
    let ledger = Ledger::open(&dir.path().join("state/tasks.db")).expect("ledger opens");
    (dir, ledger)
}

fn count(ledger: &Ledger) -> i64 {
    ledger
        .conn()
        .query_row("SELECT count(*) FROM tasks", [], |row| row.get(0))
        .expect("count")
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

#[test]
fn opens_a_private_wal_file_in_a_new_folder() {
    let (dir, ledger) = open();
    let path = dir.path().join("state/tasks.db");
    assert_eq!(ledger.path(), path);
    let conn = ledger.conn();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal", "shared between processes needs WAL");
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 1);
    let fk: i64 = conn
        .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(fk, 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only this user may read the ledger");
    }
}

#[cfg(unix)]
#[test]
fn an_existing_readable_file_is_made_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    fs::write(&path, b"").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    Ledger::open(&path).expect("an empty file is a new ledger");
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn insert_then_get_round_trips_every_field() {
    let (_dir, ledger) = open();
    let mut full = record("st-1", 10, 20);
    full.status_message = Some("step 2".into());
    full.retry_of = Some("st-0".into());
    full.result = Some(json!({"content": [{"type": "text", "text": "done"}]}));
    let mut bare = record("st-2", 10, 10);
    bare.kind = EntryKind::Call;
    (
        bare.upstream_id,
        bare.tool,
        bare.ttl_ms,
        bare.poll_interval_ms,
        bare.profile,
    ) = (None, None, None, None, None);
    bare.params = json!(null);
    ledger.insert(&full).unwrap();
    ledger.insert(&bare).unwrap();
    assert_eq!(ledger.get("st-1").unwrap(), Some(full));
    assert_eq!(ledger.get("st-2").unwrap(), Some(bare));
    assert_eq!(ledger.get("st-3").unwrap(), None);
}

#[test]
fn last_update_is_never_before_creation() {
    let (_dir, ledger) = open();
    ledger.insert(&record("a", 500, 100)).unwrap();
    assert_eq!(ledger.get("a").unwrap().unwrap().last_updated_at, 500);
    ledger
        .update("a", TaskStatus::Working, None, None, 400)
        .unwrap();
    assert_eq!(ledger.get("a").unwrap().unwrap().last_updated_at, 500);
}

#[test]
fn ids_and_upstream_ids_are_unique() {
    let (_dir, ledger) = open();
    ledger.insert(&record("a", 1, 1)).unwrap();
    let again = TaskRecord {
        upstream_id: None,
        ..record("a", 2, 2)
    };
    let err = ledger.insert(&again).unwrap_err();
    assert!(
        matches!(err, LedgerError::DuplicateId { ref id, .. } if id == "a"),
        "{err}"
    );
    assert!(
        err.to_string().contains("tasks.db"),
        "names the file: {err}"
    );

    let mut same_upstream = record("b", 1, 1);
    same_upstream.upstream_id = Some("up-a".into());
    let err = ledger.insert(&same_upstream).unwrap_err();
    assert!(
        matches!(err, LedgerError::DuplicateUpstream { .. }),
        "{err}"
    );

    same_upstream.server = "files".into();
    ledger
        .insert(&same_upstream)
        .expect("another server may reuse an upstream id");
    for id in ["c1", "c2"] {
        let mut call = record(id, 1, 1);
        call.upstream_id = None;
        ledger.insert(&call).expect("calls have no upstream id");
    }
}

#[test]
fn a_failed_batch_inserts_nothing() {
    let (_dir, ledger) = open();
    let batch = [record("a", 1, 1), record("b", 1, 1), record("a", 2, 2)];
    assert!(ledger.insert_all(&batch).is_err());
    assert_eq!(count(&ledger), 0, "all or nothing");
}

#[test]
fn update_changes_status_and_keeps_what_is_not_given() {
    let (_dir, ledger) = open();
    ledger.insert(&record("a", 1, 1)).unwrap();
    assert!(
        !ledger
            .update("zz", TaskStatus::Failed, None, None, 5)
            .unwrap(),
        "no such id"
    );

    assert!(
        ledger
            .update("a", TaskStatus::InputRequired, Some("need a name"), None, 5)
            .unwrap()
    );
    let r = ledger.get("a").unwrap().unwrap();
    assert_eq!(
        (r.status, r.status_message.as_deref(), r.last_updated_at),
        (TaskStatus::InputRequired, Some("need a name"), 5)
    );

    let result = json!({"content": []});
    assert!(
        ledger
            .update("a", TaskStatus::Completed, None, Some(&result), 9)
            .unwrap()
    );
    let r = ledger.get("a").unwrap().unwrap();
    assert_eq!(r.status, TaskStatus::Completed);
    assert_eq!(
        r.status_message.as_deref(),
        Some("need a name"),
        "kept when not given"
    );
    assert_eq!(r.result, Some(result.clone()));
    assert_eq!(r.last_updated_at, 9);
}

#[test]
fn a_late_working_notification_does_not_reopen_a_finished_task() {
    let (_dir, ledger) = open();
    ledger.insert(&record("a", 1, 1)).unwrap();
    ledger
        .update("a", TaskStatus::Failed, Some("boom"), None, 10)
        .unwrap();
    for status in [TaskStatus::Working, TaskStatus::InputRequired] {
        assert!(
            ledger
                .update("a", status, Some("late"), Some(&json!(1)), 20)
                .unwrap(),
            "the entry exists"
        );
        let r = ledger.get("a").unwrap().unwrap();
        assert_eq!(
            (
                r.status,
                r.status_message.as_deref(),
                r.last_updated_at,
                r.result
            ),
            (TaskStatus::Failed, Some("boom"), 10, None),
            "a stale update changes nothing"
        );
    }
    ledger
        .update("a", TaskStatus::Cancelled, None, None, 30)
        .unwrap();
    assert_eq!(
        ledger.get("a").unwrap().unwrap().status,
        TaskStatus::Cancelled,
        "one final status may follow another"
    );
}

#[test]
fn find_upstream_is_per_server() {
    let (_dir, ledger) = open();
    let mut other = record("b", 1, 1);
    other.server = "files".into();
    other.upstream_id = Some("up-a".into());
    ledger.insert_all([record("a", 1, 1), other]).unwrap();
    assert_eq!(
        ledger.find_upstream("github", "up-a").unwrap().unwrap().id,
        "a"
    );
    assert_eq!(
        ledger.find_upstream("files", "up-a").unwrap().unwrap().id,
        "b"
    );
    assert_eq!(ledger.find_upstream("k8s", "up-a").unwrap(), None);
    assert_eq!(ledger.find_upstream("github", "up-b").unwrap(), None);
}

#[test]
fn live_lists_running_upstream_tasks_oldest_first() {
    let (_dir, ledger) = open();
    let mut call = record("call", 1, 1);
    call.kind = EntryKind::Call;
    call.upstream_id = None;
    let mut done = record("done", 2, 2);
    done.status = TaskStatus::Completed;
    let mut asking = record("asking", 3, 3);
    asking.status = TaskStatus::InputRequired;
    ledger
        .insert_all([
            record("newer", 5, 5),
            call,
            done,
            asking,
            record("older", 4, 9),
        ])
        .unwrap();
    let ids: Vec<String> = ledger.live().unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(ids, ["asking", "older", "newer"]);
}

#[test]
fn purge_deletes_only_old_finished_entries() {
    let (_dir, ledger) = open();
    let records: Vec<TaskRecord> = TaskStatus::ALL
        .iter()
        .enumerate()
        .flat_map(|(i, &status)| {
            [("old", 10), ("new", 100)].map(|(age, at)| TaskRecord {
                status,
                ..record(&format!("{age}-{i}"), at, at)
            })
        })
        .collect();
    ledger.insert_all(&records).unwrap();
    assert_eq!(
        ledger.purge(100).unwrap(),
        3,
        "old completed, failed, cancelled"
    );
    let mut left: Vec<String> = walk(&ledger, &TaskQuery::default(), &all)
        .0
        .into_iter()
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "new-0", "new-1", "new-2", "new-3", "new-4", "old-0", "old-1"
        ]
    );
}

#[test]
fn reopening_keeps_the_entries() {
    let (dir, ledger) = open();
    ledger.insert(&record("a", 1, 1)).unwrap();
    drop(ledger);
    let again = Ledger::open(&dir.path().join("state/tasks.db")).unwrap();
    assert_eq!(again.get("a").unwrap().unwrap().id, "a");
}

#[test]
fn a_newer_schema_is_refused() {
    let (dir, ledger) = open();
    ledger
        .conn()
        .pragma_update(None, "user_version", 7)
        .unwrap();
    drop(ledger);
    let err = Ledger::open(&dir.path().join("state/tasks.db")).unwrap_err();
    assert!(
        matches!(
            err,
            LedgerError::TooNew {
                found: 7,
                known: 1,
                ..
            }
        ),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("tasks.db") && message.contains("update MCP Sieve"),
        "{message}"
    );
}

#[test]
fn a_corrupt_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let mut noise = vec![0u8; 8192];
    getrandom::fill(&mut noise).unwrap();
    fs::write(&path, &noise).unwrap();
    let err = Ledger::open(&path).unwrap_err();
    assert!(matches!(err, LedgerError::Corrupt { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(&path.display().to_string()) && message.contains("move it aside"),
        "{message}"
    );
}

#[test]
fn an_entry_changed_behind_our_back_is_reported() {
    let (_dir, ledger) = open();
    ledger.insert(&record("a", 1, 1)).unwrap();
    ledger
        .conn()
        .execute("UPDATE tasks SET status = 'paused'", [])
        .unwrap();
    let err = ledger.get("a").unwrap_err();
    assert!(
        matches!(err, LedgerError::BadEntry { field: "status", ref id, .. } if id == "a"),
        "{err}"
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

#[test]
fn every_filter_and_order_lists_what_matches() {
    let (_dir, ledger) = open();
    let records = fixture(&ledger, 300);
    for (name, query) in variants() {
        for limit in [7, 500] {
            let query = TaskQuery {
                limit,
                ..query.clone()
            };
            let want = expected(&records, &query, &all);
            let (got, _) = walk(&ledger, &query, &all);
            assert_eq!(got, want, "{name}, limit {limit}");
            if name.starts_with("none") {
                assert_eq!(got.len(), 300);
            }
        }
    }
}

#[test]
fn filters_agree_with_task_query_matches_on_random_ledgers() {
    // The fixture's shapes, over a ledger with other proportions.
    let (_dir, ledger) = open();
    let records = fixture(&ledger, 1000);
    for (name, query) in variants() {
        let query = TaskQuery { limit: 13, ..query };
        assert_eq!(
            walk(&ledger, &query, &all).0,
            expected(&records, &query, &all),
            "{name}"
        );
    }
}

#[test]
fn equal_timestamps_page_without_loss_or_repeats() {
    let (_dir, ledger) = open();
    let records: Vec<TaskRecord> = (0..250).map(|i| record(&format!("t{i}"), 42, 42)).collect();
    ledger.insert_all(&records).unwrap();
    for order_by in [OrderBy::LastUpdatedAt, OrderBy::CreatedAt] {
        for descending in [true, false] {
            for limit in [1, 7, 50] {
                let query = TaskQuery {
                    order_by,
                    descending,
                    limit,
                    ..TaskQuery::default()
                };
                let (got, pages) = walk(&ledger, &query, &all);
                assert_eq!(got, expected(&records, &query, &all), "limit {limit}");
                assert_eq!(pages, 250usize.div_ceil(limit as usize), "full pages");
            }
        }
    }
}

#[test]
fn limit_one_walks_the_whole_ledger() {
    let (_dir, ledger) = open();
    let records = fixture(&ledger, 120);
    let query = TaskQuery {
        limit: 1,
        ..TaskQuery::default()
    };
    let (got, pages) = walk(&ledger, &query, &all);
    assert_eq!(got, expected(&records, &query, &all));
    assert_eq!(pages, 120, "the last page says nothing follows");
}

#[test]
fn time_bounds_are_exclusive() {
    let (_dir, ledger) = open();
    ledger
        .insert_all([
            record("at99", 99, 199),
            record("at100", 100, 200),
            record("at101", 101, 201),
        ])
        .unwrap();
    let list = |query: TaskQuery| {
        let mut ids = walk(&ledger, &query, &all).0;
        ids.sort();
        ids
    };
    let q = TaskQuery::default;
    assert_eq!(
        list(TaskQuery {
            created_after: Some(100),
            ..q()
        }),
        ["at101"]
    );
    assert_eq!(
        list(TaskQuery {
            created_before: Some(100),
            ..q()
        }),
        ["at99"]
    );
    assert_eq!(
        list(TaskQuery {
            last_updated_after: Some(200),
            ..q()
        }),
        ["at101"]
    );
    assert_eq!(
        list(TaskQuery {
            last_updated_before: Some(200),
            ..q()
        }),
        ["at99"]
    );
    assert_eq!(
        list(TaskQuery {
            created_after: Some(99),
            created_before: Some(101),
            ..q()
        }),
        ["at100"]
    );
    assert!(
        list(TaskQuery {
            created_after: Some(100),
            created_before: Some(101),
            ..q()
        })
        .is_empty()
    );
    assert!(
        list(TaskQuery {
            created_after: Some(300),
            created_before: Some(10),
            ..q()
        })
        .is_empty(),
        "an empty window lists nothing"
    );
}

#[test]
fn a_cursor_from_another_order_continues_after_its_position() {
    let (_dir, ledger) = open();
    let records = fixture(&ledger, 200);
    let first = ledger
        .list(
            &TaskQuery {
                limit: 30,
                ..TaskQuery::default()
            },
            &all,
        )
        .unwrap();
    let cursor = Cursor::decode(&first.next_cursor.unwrap()).unwrap();
    // Read as a position in createdAt ascending order: entries strictly
    // after (key, seq) there.
    let query = TaskQuery {
        order_by: OrderBy::CreatedAt,
        descending: false,
        cursor: Some(cursor),
        limit: 500,
        ..TaskQuery::default()
    };
    let want: Vec<String> = {
        let full = TaskQuery {
            cursor: None,
            ..query.clone()
        };
        let seqs: Vec<(i64, i64, String)> = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.created_at, i as i64 + 1, r.id.clone()))
            .collect();
        let mut after: Vec<_> = seqs
            .into_iter()
            .filter(|&(k, s, _)| (k, s) > (cursor.key, cursor.seq))
            .collect();
        after.sort();
        assert_eq!(full.limit, 500);
        after.into_iter().map(|(_, _, id)| id).collect()
    };
    assert_eq!(walk(&ledger, &query, &all).0, want);
}

#[test]
fn hidden_entries_do_not_shorten_pages() {
    let (_dir, ledger) = open();
    let records = fixture(&ledger, 1000);
    // One entry in ten visible: a page of 10 examines about 100 rows,
    // well inside the bound of 200.
    let tenth = |r: &TaskRecord| r.id.ends_with('7');
    let query = TaskQuery {
        limit: 10,
        ..TaskQuery::default()
    };
    let (got, pages) = walk(&ledger, &query, &tenth);
    assert_eq!(got, expected(&records, &query, &tenth));
    // Ten full pages, then an empty one: after the tenth, hidden
    // entries follow, and only examining them shows none is visible.
    assert_eq!(pages, 11);
    let mut query = query;
    for _ in 0..10 {
        let page = ledger.list(&query, &tenth).unwrap();
        assert_eq!(page.tasks.len(), 10, "every page full");
        query.cursor = Cursor::decode(&page.next_cursor.unwrap());
    }
}

#[test]
fn nearly_everything_hidden_stops_early_with_a_cursor() {
    let (_dir, ledger) = open();
    let records = fixture(&ledger, 1000);
    let rare = |r: &TaskRecord| r.id == "t0007" || r.id == "t0500";
    let query = TaskQuery {
        limit: 5,
        ..TaskQuery::default()
    };
    let first = ledger.list(&query, &rare).unwrap();
    assert!(first.tasks.len() < 2, "stopped after examining 100 rows");
    assert!(first.next_cursor.is_some(), "and says where to go on");
    let (got, _) = walk(&ledger, &query, &rare);
    assert_eq!(got, expected(&records, &query, &rare), "nothing skipped");
}

#[test]
fn clones_and_second_handles_write_from_threads_without_loss() {
    let (dir, ledger) = open();
    let second = Ledger::open(&dir.path().join("state/tasks.db")).unwrap();
    let writers: Vec<_> = [ledger.clone(), ledger.clone(), second.clone(), second]
        .into_iter()
        .enumerate()
        .map(|(w, handle)| {
            std::thread::spawn(move || {
                for i in 0..150 {
                    let id = format!("w{w}-{i}");
                    handle.insert(&record(&id, i, i)).expect("insert");
                    handle
                        .update(&id, TaskStatus::Completed, None, None, i + 1)
                        .expect("update");
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().expect("writer finished");
    }
    assert_eq!(count(&ledger), 600, "every entry kept");
    assert!(ledger.live().unwrap().is_empty(), "every update kept");
}

/// Set in a child copy of this test binary: the ledger it writes to.
const CHILD_LEDGER: &str = "MCP_SIEVE_LEDGER_TEST_CHILD";

#[test]
fn two_processes_write_at_once_without_loss() {
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
    if let Ok(path) = std::env::var(CHILD_LEDGER) {
        write(
            &Ledger::open(Path::new(&path)).expect("child opens"),
            "child",
        );
        return;
    }
    let (dir, ledger) = open();
    let path = dir.path().join("state/tasks.db");
    let name = concat!(module_path!(), "::two_processes_write_at_once_without_loss");
    let name = name.split_once("::").map_or(name, |(_, rest)| rest);
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1"])
        .env(CHILD_LEDGER, &path)
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

/// `EXPLAIN QUERY PLAN` of each walk of `query`, or `None` when the
/// plan is empty.
fn plans_of(ledger: &Ledger, query: &TaskQuery) -> Option<Vec<Vec<String>>> {
    let plan = ListPlan::new(query, 51)?;
    let conn = ledger.conn();
    let mut seen = HashSet::new();
    let mut plans = Vec::new();
    for (sql, args) in &plan.arms {
        if seen.insert(sql) {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt
                .query_map(params_from_iter(args), |row| row.get::<_, String>(3))
                .unwrap();
            plans.push(rows.map(Result::unwrap).collect());
        }
    }
    Some(plans)
}

#[test]
fn listings_never_scan_the_table_or_sort_it() {
    let (_dir, ledger) = open();
    fixture(&ledger, 50);
    for (name, shape) in variants() {
        for cursor in [
            None,
            Some(Cursor {
                key: 1_100,
                seq: 40,
            }),
        ] {
            let query = TaskQuery {
                cursor,
                ..shape.clone()
            };
            let Some(walks) = plans_of(&ledger, &query) else {
                assert!(
                    cursor.is_some(),
                    "{name}: only a cursor beyond the bounds empties a plan"
                );
                continue;
            };
            for plan in walks {
                let text = plan.join(" | ");
                assert!(
                    plan.iter().all(|line| line != "SCAN tasks"),
                    "{name}: full table scan: {text}"
                );
                if query.task_ids.is_empty() {
                    assert_eq!(plan.len(), 1, "{name}: {text}");
                    assert!(
                        !text.contains("TEMP B-TREE"),
                        "{name}: sorts the matches: {text}"
                    );
                } else {
                    assert!(plan[0].contains("tasks_id (id=?"), "{name}: {text}");
                    continue;
                }
                // A walk with no bound on the index may go all the
                // way down it; only listings with no filter on the
                // order key (or one SQLite cannot bound) may do so.
                let unbounded = plan[0].starts_with("SCAN");
                let filtered = !(query.statuses.is_empty()
                    && query.servers.is_empty()
                    && query.methods.is_empty());
                let key_bounded = match query.order_by {
                    OrderBy::LastUpdatedAt => query
                        .last_updated_after
                        .or(query.last_updated_before)
                        .or(query.created_after),
                    OrderBy::CreatedAt => query
                        .created_after
                        .or(query.created_before)
                        .or(query.last_updated_before),
                }
                .is_some();
                assert_eq!(
                    unbounded,
                    !(filtered || key_bounded || cursor.is_some()),
                    "{name}: {text}"
                );
            }
        }
    }
    for (sql, uses) in [
        ("SELECT * FROM tasks WHERE id = 'a'", "tasks_id (id=?)"),
        (
            "SELECT * FROM tasks WHERE server = 'a' AND upstream_id = 'b'",
            "tasks_upstream (server=? AND upstream_id=?)",
        ),
        (
            "DELETE FROM tasks WHERE status IN ('completed', 'failed') AND last_updated_at < 5",
            "tasks_status_updated (status=? AND last_updated_at<?)",
        ),
        (
            "SELECT * FROM tasks WHERE status IN ('working', 'input_required') AND kind = 'task' AND upstream_id IS NOT NULL ORDER BY created_at, seq",
            "tasks_status_",
        ),
    ] {
        let conn = ledger.conn();
        let text: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map([], |row| row.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            text.iter()
                .any(|l| l.starts_with("SEARCH") && l.contains(uses)),
            "{sql}: {text:?}"
        );
    }
}
