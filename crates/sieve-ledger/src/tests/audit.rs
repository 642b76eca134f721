//! The audit on both databases: records round-trip, listings newest first
//! with every filter and page size, and the purge by retention.

use super::*;

fn call(i: usize, at: i64) -> AuditRecord {
    AuditRecord {
        id: 0,
        at,
        who: format!("claude-code 1.{i}"),
        profile: "default".into(),
        server: SERVERS[i % 3].into(),
        tool: format!("{}__tool_{}", SERVERS[i % 3], i % 2),
        status: AuditStatus::ALL[(i / 3) % 4],
        duration_ms: i as i64 * 3,
        arguments: i
            .is_multiple_of(4)
            .then(|| json!({"n": i, "text": "a ? b"})),
    }
}

/// Every page of `query` with its own limit, and the records in order.
fn walk_audit(ledger: &Ledger, query: &AuditQuery) -> Vec<AuditRecord> {
    let mut query = query.clone();
    let mut all = Vec::new();
    for _ in 0..1_000 {
        let page = ledger.audit_list(&query).expect("listing");
        assert!(page.records.len() <= query.limit.max(1) as usize);
        all.extend(page.records);
        match page.next_cursor {
            Some(cursor) => {
                query.cursor = Some(AuditCursor::decode(&cursor).expect("a cursor we gave"))
            }
            None => return all,
        }
    }
    panic!("the listing never ended");
}

pub(super) fn audit_records_round_trip_newest_first(ledger: &Fresh) {
    let written: Vec<AuditRecord> = (0..5).map(|i| call(i, 1_000 + i as i64)).collect();
    // Two one by one, three in one statement, in their order.
    for record in &written[..2] {
        ledger.audit(record).expect("recorded");
    }
    ledger.audit_all(&written[2..]).expect("recorded together");
    ledger.audit_all(&[]).expect("nothing to record");
    let page = ledger
        .audit_list(&AuditQuery {
            limit: 10,
            ..AuditQuery::default()
        })
        .expect("listing");
    assert_eq!(page.next_cursor, None, "all on one page");
    let read: Vec<AuditRecord> = page
        .records
        .iter()
        .map(|r| AuditRecord { id: 0, ..r.clone() })
        .collect();
    let newest_first: Vec<AuditRecord> = written.into_iter().rev().collect();
    assert_eq!(read, newest_first, "every field kept, newest first");
    assert!(page.records.windows(2).all(|w| w[0].id > w[1].id));
    assert_eq!(
        page.records[4].arguments,
        Some(json!({"n": 0, "text": "a ? b"})),
        "arguments as written"
    );
    assert_eq!(
        page.records[3].arguments, None,
        "no arguments when not asked"
    );
}

pub(super) fn audit_filters_and_pages_list_what_matches(ledger: &Fresh) {
    // Many calls share a millisecond, so pages end inside one.
    let written: Vec<AuditRecord> = (0..90).map(|i| call(i, 1_000 + (i as i64 / 7))).collect();
    for record in &written {
        ledger.audit(record).expect("recorded");
    }
    let queries = [
        AuditQuery::default(),
        AuditQuery {
            servers: vec!["files".into()],
            ..AuditQuery::default()
        },
        AuditQuery {
            statuses: vec![AuditStatus::Error],
            ..AuditQuery::default()
        },
        AuditQuery {
            statuses: vec![AuditStatus::Refused, AuditStatus::Cancelled],
            servers: vec!["github".into(), "k8s".into()],
            ..AuditQuery::default()
        },
        AuditQuery {
            tools: vec!["k8s__tool_1".into()],
            ..AuditQuery::default()
        },
        AuditQuery {
            since: Some(1_003),
            until: Some(1_010),
            ..AuditQuery::default()
        },
        AuditQuery {
            since: Some(1_005),
            servers: vec!["github".into()],
            statuses: vec![AuditStatus::Ok],
            ..AuditQuery::default()
        },
    ];
    for query in queries {
        let mut expected: Vec<(i64, usize)> = written
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                (query.servers.is_empty() || query.servers.contains(&r.server))
                    && (query.statuses.is_empty() || query.statuses.contains(&r.status))
                    && (query.tools.is_empty() || query.tools.contains(&r.tool))
                    && query.since.is_none_or(|t| r.at >= t)
                    && query.until.is_none_or(|t| r.at < t)
            })
            .map(|(i, r)| (r.at, i))
            .collect();
        expected.sort_unstable_by(|a, b| b.cmp(a));
        let expected: Vec<String> = expected
            .into_iter()
            .map(|(_, i)| written[i].who.clone())
            .collect();
        assert!(!expected.is_empty(), "{query:?} finds something");
        for limit in [1, 4, 1_000] {
            let query = AuditQuery {
                limit,
                ..query.clone()
            };
            let listed: Vec<String> = walk_audit(ledger, &query)
                .into_iter()
                .map(|r| r.who)
                .collect();
            assert_eq!(listed, expected, "{query:?}");
        }
    }
}

pub(super) fn purge_deletes_old_audit_records(ledger: &Fresh) {
    for (i, at) in [10, 20, 100, 200].into_iter().enumerate() {
        ledger.audit(&call(i, at)).expect("recorded");
    }
    assert_eq!(ledger.purge(100).expect("purged"), 2, "the two older calls");
    let left: Vec<i64> = walk_audit(
        ledger,
        &AuditQuery {
            limit: 10,
            ..AuditQuery::default()
        },
    )
    .into_iter()
    .map(|r| r.at)
    .collect();
    assert_eq!(left, [200, 100]);
}
