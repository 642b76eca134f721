//! What both backends promise, each test run on each (see `on_both!`).

use super::*;
// The audit's and the measurements', in files of their own.
pub(super) use super::audit::*;
pub(super) use super::measurements::*;

pub(super) fn insert_then_get_round_trips_every_field(ledger: &Fresh) {
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

pub(super) fn last_update_is_never_before_creation(ledger: &Fresh) {
    ledger.insert(&record("a", 500, 100)).unwrap();
    assert_eq!(ledger.get("a").unwrap().unwrap().last_updated_at, 500);
    ledger
        .update("a", TaskStatus::Working, None, None, 400)
        .unwrap();
    assert_eq!(ledger.get("a").unwrap().unwrap().last_updated_at, 500);
}

pub(super) fn ids_and_upstream_ids_are_unique(ledger: &Fresh) {
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
        err.to_string().contains(&ledger.location().to_string()),
        "names the file or database: {err}"
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

pub(super) fn a_failed_batch_inserts_nothing(ledger: &Fresh) {
    let batch = [record("a", 1, 1), record("b", 1, 1), record("a", 2, 2)];
    assert!(ledger.insert_all(&batch).is_err());
    assert_eq!(count(ledger), 0, "all or nothing");
}

pub(super) fn update_changes_status_and_keeps_what_is_not_given(ledger: &Fresh) {
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

pub(super) fn a_late_working_notification_does_not_reopen_a_finished_task(ledger: &Fresh) {
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

pub(super) fn find_upstream_is_per_server(ledger: &Fresh) {
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

pub(super) fn live_lists_running_upstream_tasks_oldest_first(ledger: &Fresh) {
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

pub(super) fn purge_deletes_only_old_finished_entries(ledger: &Fresh) {
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
    let mut left: Vec<String> = walk(ledger, &TaskQuery::default(), &all)
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

pub(super) fn reopening_keeps_the_entries(ledger: &Fresh) {
    ledger.insert(&record("a", 1, 1)).unwrap();
    let again = ledger.again();
    assert_eq!(again.get("a").unwrap().unwrap().id, "a");
}

pub(super) fn an_entry_changed_behind_our_back_is_reported(ledger: &Fresh) {
    ledger.insert(&record("a", 1, 1)).unwrap();
    execute(ledger, "UPDATE {table} SET status = 'paused'");
    let err = ledger.get("a").unwrap_err();
    assert!(
        matches!(err, LedgerError::BadEntry { field: "status", ref id, .. } if id == "a"),
        "{err}"
    );
}

pub(super) fn every_filter_and_order_lists_what_matches(ledger: &Fresh) {
    let records = fixture(ledger, 300);
    for (name, query) in variants() {
        for limit in [7, 500] {
            let query = TaskQuery {
                limit,
                ..query.clone()
            };
            let want = expected(&records, &query, &all);
            let (got, _) = walk(ledger, &query, &all);
            assert_eq!(got, want, "{name}, limit {limit}");
            if name.starts_with("none") {
                assert_eq!(got.len(), 300);
            }
        }
    }
}

pub(super) fn filters_agree_with_task_query_matches_on_random_ledgers(ledger: &Fresh) {
    // The fixture's shapes, over a ledger with other proportions.
    let records = fixture(ledger, 1000);
    for (name, query) in variants() {
        let query = TaskQuery { limit: 13, ..query };
        assert_eq!(
            walk(ledger, &query, &all).0,
            expected(&records, &query, &all),
            "{name}"
        );
    }
}

pub(super) fn equal_timestamps_page_without_loss_or_repeats(ledger: &Fresh) {
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
                let (got, pages) = walk(ledger, &query, &all);
                assert_eq!(got, expected(&records, &query, &all), "limit {limit}");
                assert_eq!(pages, 250usize.div_ceil(limit as usize), "full pages");
            }
        }
    }
}

pub(super) fn limit_one_walks_the_whole_ledger(ledger: &Fresh) {
    let records = fixture(ledger, 120);
    let query = TaskQuery {
        limit: 1,
        ..TaskQuery::default()
    };
    let (got, pages) = walk(ledger, &query, &all);
    assert_eq!(got, expected(&records, &query, &all));
    assert_eq!(pages, 120, "the last page says nothing follows");
}

pub(super) fn time_bounds_are_exclusive(ledger: &Fresh) {
    ledger
        .insert_all([
            record("at99", 99, 199),
            record("at100", 100, 200),
            record("at101", 101, 201),
        ])
        .unwrap();
    let list = |query: TaskQuery| {
        let mut ids = walk(ledger, &query, &all).0;
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

pub(super) fn a_cursor_from_another_order_continues_after_its_position(ledger: &Fresh) {
    let records = fixture(ledger, 200);
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
    assert_eq!(walk(ledger, &query, &all).0, want);
}

pub(super) fn hidden_entries_do_not_shorten_pages(ledger: &Fresh) {
    let records = fixture(ledger, 1000);
    // One entry in ten visible: a page of 10 examines about 100 rows,
    // well inside the bound of 200.
    let tenth = |r: &TaskRecord| r.id.ends_with('7');
    let query = TaskQuery {
        limit: 10,
        ..TaskQuery::default()
    };
    let (got, pages) = walk(ledger, &query, &tenth);
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

pub(super) fn nearly_everything_hidden_stops_early_with_a_cursor(ledger: &Fresh) {
    let records = fixture(ledger, 1000);
    let rare = |r: &TaskRecord| r.id == "t0007" || r.id == "t0500";
    let query = TaskQuery {
        limit: 5,
        ..TaskQuery::default()
    };
    let first = ledger.list(&query, &rare).unwrap();
    assert!(first.tasks.len() < 2, "stopped after examining 100 rows");
    assert!(first.next_cursor.is_some(), "and says where to go on");
    let (got, _) = walk(ledger, &query, &rare);
    assert_eq!(got, expected(&records, &query, &rare), "nothing skipped");
}

pub(super) fn clones_and_second_handles_write_from_threads_without_loss(ledger: &Fresh) {
    let second = ledger.again();
    let first: &Ledger = ledger;
    let writers: Vec<_> = [first.clone(), first.clone(), second.clone(), second]
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
    assert_eq!(count(ledger), 600, "every entry kept");
    assert!(ledger.live().unwrap().is_empty(), "every update kept");
}

pub(super) fn a_silent_replicas_calls_are_marked_cut_off(ledger: &Fresh) {
    let call = |id: &str, created: i64| TaskRecord {
        kind: EntryKind::Call,
        upstream_id: None,
        ..record(id, created, created)
    };
    ledger.beat("alive", 1_000).unwrap();
    ledger.beat("dead", 1_000).unwrap();
    ledger
        .insert_running(&call("on-alive", 1_000), "alive")
        .unwrap();
    ledger
        .insert_running(&call("on-dead", 1_000), "dead")
        .unwrap();
    let mut task = record("task-on-dead", 1_000, 1_000);
    task.status = TaskStatus::InputRequired;
    ledger.insert_running(&task, "dead").unwrap();
    ledger
        .insert_running(&call("on-unknown", 1_000), "never-beat")
        .unwrap();
    ledger
        .insert_running(&call("on-unknown-new", 9_500), "starting")
        .unwrap();
    ledger.insert(&call("plain", 1_000)).unwrap();
    ledger.beat("alive", 9_000).unwrap();
    // Silent since before 5,000: "dead" (a call and a task of its child
    // server), and "never-beat"'s old call.
    assert_eq!(ledger.sweep(5_000, 10_000).unwrap(), 3);
    let status = |id: &str| ledger.get(id).unwrap().expect(id).status;
    assert_eq!(status("on-alive"), TaskStatus::Working);
    assert_eq!(status("on-dead"), TaskStatus::Failed);
    assert_eq!(status("task-on-dead"), TaskStatus::Failed);
    assert_eq!(status("on-unknown"), TaskStatus::Failed);
    assert_eq!(
        status("on-unknown-new"),
        TaskStatus::Working,
        "a call newer than the silence is not judged yet"
    );
    assert_eq!(
        status("plain"),
        TaskStatus::Working,
        "no replica, not swept"
    );
    let dead = ledger.get("on-dead").unwrap().unwrap();
    assert!(
        dead.status_message
            .as_deref()
            .is_some_and(|m| m.starts_with("cut off")),
        "{dead:?}"
    );
    assert_eq!(dead.last_updated_at, 10_000);
    assert_eq!(ledger.sweep(5_000, 10_000).unwrap(), 0, "once only");

    assert_eq!(ledger.leave("alive", 11_000).unwrap(), 1);
    assert_eq!(status("on-alive"), TaskStatus::Failed);
    assert!(ledger.delete("on-alive").unwrap());
    assert!(!ledger.delete("on-alive").unwrap());
    assert_eq!(ledger.get("on-alive").unwrap(), None);

    // Many at once, as a busy replica writes them.
    let many: Vec<TaskRecord> = (0..5).map(|i| call(&format!("many-{i}"), 20_000)).collect();
    ledger.insert_running_all(&many, "busy").unwrap();
    assert_eq!(status("many-4"), TaskStatus::Working);
    let ids: Vec<String> = many[..3].iter().map(|r| r.id.clone()).collect();
    assert_eq!(ledger.delete_all(&ids).unwrap(), 3);
    assert_eq!(ledger.get("many-0").unwrap(), None);
    assert_eq!(status("many-3"), TaskStatus::Working);
}
