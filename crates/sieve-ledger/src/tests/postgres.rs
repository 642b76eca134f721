//! What only PostgreSQL has: replicas, each with its own pool, sharing
//! one database and racing on the same entries; a database that goes
//! away and comes back; addresses shown without their password; the plans
//! PostgreSQL picks.

use super::*;
use crate::postgres::planner_settings;
use std::thread;

/// The PostgreSQL side of a ledger `Fresh::postgres` made.
fn database_of(ledger: &Ledger) -> &Database {
    match &ledger.backend {
        Backend::Postgres(b) => b.database(),
        Backend::Sqlite(_) => panic!("a PostgreSQL ledger"),
    }
}

/// `url` with a password, which messages must never show.
fn with_password(url: &str) -> String {
    url.replacen("postgres://sieve@", "postgres://sieve:s3cret-pw@", 1)
}

#[test]
fn replicas_see_each_others_entries() {
    let one = Fresh::postgres("replicas_see");
    let two = one.again();
    one.insert(&record("a", 1, 1)).unwrap();
    assert_eq!(two.get("a").unwrap().unwrap().id, "a", "got by the other");
    assert_eq!(
        two.find_upstream("github", "up-a").unwrap().unwrap().id,
        "a",
        "its notifications find it on the other"
    );
    let listed = two.list(&TaskQuery::default(), &all).unwrap();
    assert_eq!(listed.tasks.len(), 1, "listed by the other");
    assert_eq!(two.live().unwrap().len(), 1, "followed by the other");

    assert!(
        two.update(
            "a",
            TaskStatus::Cancelled,
            Some("cancelled by the host"),
            None,
            5
        )
        .unwrap(),
        "cancelled from the other"
    );
    let seen = one.get("a").unwrap().unwrap();
    assert_eq!(
        (seen.status, seen.status_message.as_deref()),
        (TaskStatus::Cancelled, Some("cancelled by the host"))
    );
    let retry = TaskRecord {
        retry_of: Some("a".into()),
        owner: None,
        ..record("a-retry", 6, 6)
    };
    two.insert(&retry).expect("retried from the other");
    let err = one.insert(&retry).unwrap_err();
    assert!(
        matches!(err, LedgerError::DuplicateId { .. }),
        "the first replica cannot record it again: {err}"
    );
    assert!(one.live().unwrap().iter().any(|r| r.id == "a-retry"));
}

#[test]
fn replicas_racing_on_the_same_entries_lose_nothing() {
    let fresh = Fresh::postgres("replicas_racing");
    let replicas = [fresh.ledger.clone(), fresh.again()];
    let ids: Vec<String> = (0..200).map(|i| format!("e{i:03}")).collect();

    // Four writers, two per replica, each inserting every entry, in
    // orders of their own: each entry is recorded once, the others told
    // it is there.
    let inserted: Vec<(usize, usize)> = (0..4)
        .map(|w| {
            let (ledger, ids) = (replicas[w % 2].clone(), ids.clone());
            thread::spawn(move || {
                let (mut ok, mut duplicate) = (0, 0);
                for i in 0..ids.len() {
                    let id = &ids[(i * (w + 1) * 7 + w * 13) % ids.len()];
                    match ledger.insert(&record(id, 1, 1)) {
                        Ok(()) => ok += 1,
                        Err(
                            LedgerError::DuplicateId { .. } | LedgerError::DuplicateUpstream { .. },
                        ) => duplicate += 1,
                        Err(other) => panic!("writer {w}: {other}"),
                    }
                }
                (ok, duplicate)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|writer| writer.join().expect("writer finished"))
        .collect();
    let recorded: usize = inserted.iter().map(|(ok, _)| ok).sum();
    assert_eq!(
        recorded, 200,
        "each entry recorded by one writer: {inserted:?}"
    );
    assert!(
        inserted.iter().all(|(ok, duplicate)| ok + duplicate == 200),
        "every other attempt refused as a duplicate: {inserted:?}"
    );
    assert_eq!(count(&fresh), 200);

    // Then both replicas race on every entry: two writers say it is
    // still working, again and again, while two finish it. No working
    // update, however late, reopens a finished entry.
    let updates: Vec<_> = (0..4)
        .map(|w| {
            let (ledger, ids) = (replicas[w % 2].clone(), ids.clone());
            thread::spawn(move || {
                let finishing = w >= 2;
                for round in 0..3 {
                    for (i, id) in ids.iter().enumerate() {
                        let (status, message) = if finishing {
                            (TaskStatus::Completed, format!("finished by {w}"))
                        } else {
                            (TaskStatus::Working, format!("round {round}"))
                        };
                        let now = 10 + (round * 1000 + i) as i64;
                        assert!(
                            ledger
                                .update(id, status, Some(&message), None, now)
                                .expect("update"),
                            "the entry exists"
                        );
                    }
                }
            })
        })
        .collect();
    for writer in updates {
        writer.join().expect("writer finished");
    }
    let (page, _) = walk(
        &fresh,
        &TaskQuery {
            limit: 100,
            ..TaskQuery::default()
        },
        &all,
    );
    assert_eq!(page.len(), 200);
    for id in &ids {
        let entry = fresh.get(id).unwrap().unwrap();
        assert_eq!(entry.status, TaskStatus::Completed, "{id} stays finished");
        assert!(
            entry
                .status_message
                .as_deref()
                .is_some_and(|m| m.starts_with("finished by")),
            "{id}: {:?}",
            entry.status_message
        );
    }
    assert!(fresh.again().live().unwrap().is_empty());
}

#[test]
fn a_large_insert_is_all_or_nothing_across_its_chunks() {
    let ledger = Fresh::postgres("large_insert");
    let mut batch: Vec<TaskRecord> = (0..2_500)
        .map(|i| record(&format!("big-{i}"), i, i))
        .collect();
    // A duplicate in the third chunk, after two were written.
    batch[2_400] = TaskRecord {
        upstream_id: None,
        ..record("big-7", 1, 1)
    };
    let err = ledger.insert_all(&batch).unwrap_err();
    assert!(
        matches!(err, LedgerError::DuplicateId { ref id, .. } if id == "big-7"),
        "{err}"
    );
    assert_eq!(count(&ledger), 0, "all or nothing");
    batch[2_400] = record("big-2400", 1, 1);
    assert_eq!(ledger.insert_all(&batch).unwrap(), 2_500);
    assert_eq!(count(&ledger), 2_500);
}

#[test]
fn messages_name_the_database_without_its_password() {
    let url = with_password(&database("password"));
    let ledger =
        Ledger::postgres(Database::connect(&url).expect("connects")).expect("ledger opens");
    ledger.insert(&record("a", 1, 1)).unwrap();
    let err = ledger.insert(&record("a", 1, 1)).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("postgres://sieve@127.0.0.1:") && message.contains("/password"),
        "names the database: {message}"
    );
    assert!(!message.contains("s3cret"), "no password: {message}");
    assert_eq!(ledger.path(), None, "a database is no file");
    assert!(!format!("{ledger:?}").contains("s3cret"));
}

#[test]
fn a_database_that_goes_away_fails_clearly_and_works_when_back() {
    let server = TestServer::start();
    let url = with_password(&server.database("away"));
    let ledger =
        Ledger::postgres(Database::connect(&url).expect("connects")).expect("ledger opens");
    ledger.insert(&record("a", 1, 1)).unwrap();
    // Connections in the pool, to find dead after the stop.
    fixture(&ledger, 30);

    server.stop();
    let failures: Vec<(&str, LedgerError)> = vec![
        ("get", ledger.get("a").unwrap_err()),
        ("insert", ledger.insert(&record("b", 2, 2)).unwrap_err()),
        (
            "update",
            ledger
                .update("a", TaskStatus::Failed, None, None, 3)
                .unwrap_err(),
        ),
        (
            "list",
            ledger.list(&TaskQuery::default(), &all).unwrap_err(),
        ),
        ("live", ledger.live().unwrap_err()),
        ("purge", ledger.purge(10).unwrap_err()),
    ];
    let shown = format!("postgres://sieve@127.0.0.1:{}/away", server.port());
    for (call, err) in failures {
        let message = err.to_string();
        assert!(
            matches!(err, LedgerError::Database(DbError::Unreachable { .. })),
            "{call}: {err:?}"
        );
        assert!(
            message.contains(&format!("cannot reach the database at {shown}"))
                && message.contains("check that PostgreSQL runs there"),
            "{call}: {message}"
        );
        assert!(!message.contains("s3cret"), "{call}: {message}");
    }

    server.start_again();
    assert_eq!(
        ledger.get("a").expect("works again").unwrap().status,
        TaskStatus::Working,
        "what was written before is there"
    );
    ledger.insert(&record("b", 2, 2)).expect("writes again");
    assert!(
        ledger
            .update("b", TaskStatus::Failed, None, None, 3)
            .unwrap()
    );
    let (listed, _) = walk(&ledger, &TaskQuery::default(), &all);
    assert_eq!(listed.len(), 32, "nothing lost, nothing written twice");
}

/// `EXPLAIN` of `sql` with `args` under the planner `settings`, each line
/// of the plan: the plan made for these values, then the generic one
/// PostgreSQL may switch to for a statement the pool's connections have
/// prepared and run many times.
fn explain(ledger: &Ledger, sql: &str, args: &[Arg], settings: &[(&str, &str)]) -> Vec<String> {
    let db = database_of(ledger);
    let error = db.error("explaining a query");
    let values: Vec<String> = args
        .iter()
        .map(|arg| match arg {
            Arg::Int(value) => value.to_string(),
            Arg::Text(value) | Arg::MaybeText(Some(value)) => {
                format!("'{}'", value.replace('\'', "''"))
            }
            Arg::MaybeText(None) => "NULL".to_string(),
        })
        .collect();
    let set: String = settings
        .iter()
        .map(|(name, value)| format!("SET {name} = {value}; "))
        .collect();
    let prepare = format!("{set}PREPARE walk AS {sql}");
    let execute = match values.is_empty() {
        true => "EXPLAIN EXECUTE walk".to_string(),
        false => format!("EXPLAIN EXECUTE walk({})", values.join(", ")),
    };
    db.run(move |client| async move {
        client.batch_execute(&prepare).await.map_err(&error)?;
        let mut lines = Vec::new();
        for mode in ["force_custom_plan", "force_generic_plan"] {
            client
                .batch_execute(&format!("SET plan_cache_mode = {mode}"))
                .await
                .map_err(&error)?;
            let rows = client.query(&execute, &[]).await.map_err(&error)?;
            lines.push(format!("{mode}:"));
            lines.extend(rows.iter().map(|row| row.get::<_, String>(0)));
        }
        client
            .batch_execute("RESET ALL; DEALLOCATE walk")
            .await
            .map_err(&error)?;
        Ok::<_, DbError>(lines)
    })
    .expect("explains")
}

#[test]
fn listings_walk_an_index_never_the_table() {
    let ledger = Fresh::postgres("plans");
    // Enough entries that an index beats reading the table, and the
    // statistics to know it.
    fixture(&ledger, 20_000);
    execute(&ledger, "ANALYZE {table}");
    let mut checked = 0;
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
            let Some(plan) = ListPlan::new(&query, 51, Dialect::Postgres) else {
                assert!(
                    cursor.is_some(),
                    "{name}: only a cursor beyond the bounds empties a plan"
                );
                continue;
            };
            let mut seen = HashSet::new();
            for (sql, args) in &plan.arms {
                if !seen.insert(sql) {
                    continue;
                }
                let settings = planner_settings(&plan);
                let text = explain(&ledger, sql, args, settings).join("\n");
                assert!(
                    !text.contains("Seq Scan"),
                    "{name}, cursor {cursor:?}: a scan of the table:\n{sql}\n{text}"
                );
                // Only the few entries found by id are sorted; every
                // other walk stops after a page.
                assert!(
                    plan.by_id || !text.contains("Sort"),
                    "{name}, cursor {cursor:?}: sorts the matches:\n{sql}\n{text}"
                );
                assert!(
                    text.contains("Index Scan") || text.contains("Index Only Scan"),
                    "{name}, cursor {cursor:?}: no index:\n{sql}\n{text}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "every shape's walks explained ({checked})");
    for (sql, args) in [
        ("SELECT seq FROM {table} WHERE id = $1", vec![text("t0005")]),
        (
            "SELECT seq FROM {table} WHERE server = $1 AND upstream_id = $2",
            vec![text("github"), text("up-t0005")],
        ),
        (
            "DELETE FROM {table} WHERE status IN ($1, $2, $3) AND last_updated_at < $4",
            vec![
                text("completed"),
                text("failed"),
                text("cancelled"),
                Arg::Int(1_050),
            ],
        ),
    ] {
        let sql = sql.replace("{table}", "sieve_tasks");
        let text = explain(&ledger, &sql, &args, &[]).join("\n");
        assert!(!text.contains("Seq Scan"), "{sql}:\n{text}");
    }
    // The live tasks, read when a proxy starts: a few among many
    // finished ones (the fixture has two in five live, which a scan
    // rightly reads faster).
    execute(
        &ledger,
        "UPDATE {table} SET status = 'completed' \
         WHERE status IN ('working', 'input_required') AND seq % 100 <> 0; ANALYZE {table}",
    );
    let sql = ledger.live_sql();
    let text = explain(&ledger, &sql, &[], &[]).join("\n");
    assert!(
        !text.contains("Seq Scan") && text.contains("sieve_tasks_status_"),
        "{sql}:\n{text}"
    );
}
