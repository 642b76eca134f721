//! What only the SQLite file has: its permissions, write-ahead logging,
//! its schema version, a damaged file, and the plans SQLite picks.

use super::*;
use rusqlite::params_from_iter;
use std::fs;

/// The SQLite side of a ledger `Fresh::sqlite` made.
fn file(ledger: &Ledger) -> &Sqlite {
    match &ledger.backend {
        Backend::Sqlite(b) => b,
        Backend::Postgres(_) => panic!("a SQLite ledger"),
    }
}

#[test]
fn opens_a_private_wal_file_in_a_new_folder() {
    let ledger = Fresh::sqlite();
    let path = PathBuf::from(ledger.address());
    assert_eq!(ledger.path(), Some(path.as_path()));
    assert_eq!(ledger.location(), &Location::File(path.clone()));
    let conn = file(&ledger).conn();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal", "shared between processes needs WAL");
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 4);
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
fn a_version_1_file_gains_the_audit_owners_and_measurements_and_keeps_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(super::super::sqlite::SCHEMA_V1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
    }
    let ledger = Ledger::open(&path).expect("a version 1 file opens");
    ledger.insert(&record("kept", 1, 1)).unwrap();
    let call = AuditRecord {
        id: 0,
        at: 5,
        who: "host 1".into(),
        profile: "default".into(),
        server: "github".into(),
        tool: "github__x".into(),
        status: AuditStatus::Ok,
        duration_ms: 1,
        arguments: None,
    };
    ledger.audit(&call).expect("the audit table was added");
    let owned = TaskRecord {
        owner: Some("alice".into()),
        ..record("owned", 2, 2)
    };
    ledger.insert(&owned).expect("the owner column was added");
    assert_eq!(ledger.get("owned").unwrap(), Some(owned));
    assert_eq!(ledger.get("kept").unwrap().unwrap().owner, None);
    let measured = CallMeasurement {
        server: "github".into(),
        tool: "x".into(),
        at: 6,
        result_tokens: 10,
        duration_ms: 1,
    };
    ledger
        .measure_all(&[measured])
        .expect("the measurements table was added");
    let version: i64 = file(&ledger)
        .conn()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 4);
}

#[test]
fn a_newer_schema_is_refused() {
    let ledger = Fresh::sqlite();
    file(&ledger)
        .conn()
        .pragma_update(None, "user_version", 7)
        .unwrap();
    let err = Ledger::open(Path::new(&ledger.address())).unwrap_err();
    assert!(
        matches!(
            err,
            LedgerError::TooNew {
                found: 7,
                known: 4,
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

/// `EXPLAIN QUERY PLAN` of each walk of `query`, or `None` when the
/// plan is empty.
fn plans_of(ledger: &Ledger, query: &TaskQuery) -> Option<Vec<Vec<String>>> {
    let plan = ListPlan::new(query, 51, Dialect::Sqlite)?;
    let conn = file(ledger).conn();
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
    let ledger = Fresh::sqlite();
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
                    && query.methods.is_empty()
                    && query.owner.is_none());
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
        let conn = file(&ledger).conn();
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
