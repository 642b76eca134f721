//! How a listing runs: the plan (which index, which arms, which bounds)
//! as SQL, and the merge of its arms into one page.
//!
//! Every listing walks one index in order, never the table:
//!
//! * `taskIds` are looked up by id (the list is short by nature).
//! * Otherwise the `servers`, `methods` and `status` filters pick an index
//!   whose leading columns they fix, e.g. `(server, status, key, seq)`.
//!   Each combination of their values is one *arm*, an ordered walk of one
//!   slice of that index, and the arms are merged here. `status` has only
//!   five values, so an index led by `server, status` also serves a
//!   `servers` filter alone (five arms): fewer indexes for every write.
//! * Time bounds on the order key, and those implied by `created_at <=
//!   last_updated_at` (`createdAfter` bounds `last_updated_at` too), are
//!   index ranges, so a walk starts and stops where they say. Bounds on
//!   the other time column are checked row by row.
//! * A cursor splits each arm in two: the entries sharing the cursor's key
//!   (`key = ? AND seq < ?`, one seek) and those beyond that key. SQLite
//!   does not seek on the `seq` half of a row value `(key, seq) < (?, ?)`,
//!   and would step through every entry of a crowded millisecond.
//! * Indexes are named with `INDEXED BY`: without statistics the planner
//!   can pick a worse one, and the `EXPLAIN QUERY PLAN` test pins the plans.

use super::schema::{COLUMNS, Column, LISTING_INDEXES, read_row};
use super::{LedgerError, TaskPage, sql_error};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, Rows, params_from_iter};
use sieve_core::tasks::{Cursor, OrderBy, TaskQuery, TaskRecord, TaskStatus};
use std::path::Path;

/// More arms than this and the listing uses a shorter index prefix,
/// filtering the remaining lists row by row instead.
const MAX_ARMS: usize = 64;

/// A listing as ordered walks of index slices (arms), each an SQL
/// statement and its parameters.
#[derive(Debug)]
pub(super) struct ListPlan {
    pub(super) arms: Vec<(String, Vec<SqlValue>)>,
}

impl ListPlan {
    /// `None` when the bounds leave nothing to list. Each arm returns at
    /// most `arm_limit` rows.
    pub(super) fn new(query: &TaskQuery, arm_limit: usize) -> Option<ListPlan> {
        let (key, other) = match query.order_by {
            OrderBy::CreatedAt => ("created_at", "last_updated_at"),
            OrderBy::LastUpdatedAt => ("last_updated_at", "created_at"),
        };
        let (key_after, key_before, other_after, other_before) = match query.order_by {
            OrderBy::CreatedAt => (
                query.created_after,
                query.created_before,
                query.last_updated_after,
                query.last_updated_before,
            ),
            OrderBy::LastUpdatedAt => (
                query.last_updated_after,
                query.last_updated_before,
                query.created_after,
                query.created_before,
            ),
        };
        // Exclusive bounds on the key. created_at <= last_updated_at, so
        // a bound on one side of that bounds the other, which keeps the
        // walk short.
        let mut low = key_after;
        let mut high = key_before;
        match query.order_by {
            OrderBy::LastUpdatedAt => low = low.max(other_after),
            OrderBy::CreatedAt => high = min_some(high, other_before),
        }
        // SQLite seeks to `key < ?` but not to the `seq` part of a row
        // value `(key, seq) < (?, ?)`: it would step through every entry
        // sharing the cursor's key. So what follows a cursor is two walks,
        // the entries sharing its key (`key = ? AND seq < ?`, a seek) and
        // those beyond its key.
        let (seq_op, tie, beyond_low, beyond_high) = match query.cursor {
            None => ("<", None, low, high),
            Some(c) if query.descending => ("<", Some(c), low, min_some(high, Some(c.key))),
            Some(c) => (">", Some(c), low.max(Some(c.key)), high),
        };
        let within = |k: i64| low.is_none_or(|l| k > l) && high.is_none_or(|h| k < h);
        let mut walks: Vec<(Vec<String>, Vec<SqlValue>)> = Vec::new();
        if let Some(c) = tie.filter(|c| within(c.key)) {
            walks.push((
                vec![format!("{key} = ?"), format!("seq {seq_op} ?")],
                vec![SqlValue::Integer(c.key), SqlValue::Integer(c.seq)],
            ));
        }
        let open_range = match (beyond_low, beyond_high) {
            (Some(l), Some(h)) => l.checked_add(1).is_some_and(|next| next < h),
            _ => true,
        };
        if open_range {
            let mut walk = (Vec::new(), Vec::new());
            for (bound, op) in [(beyond_low, ">"), (beyond_high, "<")] {
                if let Some(t) = bound {
                    walk.0.push(format!("{key} {op} ?"));
                    walk.1.push(SqlValue::Integer(t));
                }
            }
            walks.push(walk);
        }
        if walks.is_empty() {
            return None;
        }

        let ids = distinct(query.task_ids.iter().map(String::as_str));
        let servers = distinct(query.servers.iter().map(String::as_str));
        let methods = distinct(query.methods.iter().map(String::as_str));
        let statuses = distinct(query.statuses.iter().map(|s| s.as_str()));
        let all_statuses: Vec<&str> = TaskStatus::ALL.iter().map(|s| s.as_str()).collect();
        let values = |column: Column| match column {
            Column::Server => &servers,
            Column::Method => &methods,
            Column::Status if statuses.is_empty() => &all_statuses,
            Column::Status => &statuses,
        };

        // Ids pick their few rows through the id index; otherwise the
        // first index whose leading columns are all filtered (status may
        // be enumerated) and whose arms stay few.
        let (index, prefix): (&str, &[Column]) = if !ids.is_empty() {
            ("tasks_id", &[])
        } else {
            LISTING_INDEXES
                .iter()
                .find(|(prefix, _, _)| {
                    let usable = prefix
                        .iter()
                        .all(|&c| c == Column::Status || !values(c).is_empty())
                        && (prefix != &[Column::Status] || !statuses.is_empty());
                    let arms: usize = prefix.iter().map(|&c| values(c).len()).product();
                    usable && arms <= MAX_ARMS
                })
                .map(|&(prefix, updated, created)| {
                    let name = match query.order_by {
                        OrderBy::LastUpdatedAt => updated,
                        OrderBy::CreatedAt => created,
                    };
                    (name, prefix)
                })
                .expect("the plain index takes any query")
        };

        let mut terms: Vec<String> = prefix.iter().map(|c| format!("{} = ?", c.name())).collect();
        let mut common: Vec<SqlValue> = Vec::new();
        let mut one_of = |column: &str, list: &[&str], terms: &mut Vec<String>| {
            if !list.is_empty() {
                terms.push(format!("{column} IN ({})", placeholders(list.len())));
                common.extend(list.iter().map(|v| text(v)));
            }
        };
        one_of("id", &ids, &mut terms);
        for column in [Column::Server, Column::Method, Column::Status] {
            if !prefix.contains(&column) {
                let list = if column == Column::Status {
                    &statuses
                } else {
                    values(column)
                };
                one_of(column.name(), list, &mut terms);
            }
        }
        for (bound, op) in [(other_after, ">"), (other_before, "<")] {
            if let Some(t) = bound {
                terms.push(format!("{other} {op} ?"));
                common.push(SqlValue::Integer(t));
            }
        }
        let limit = SqlValue::Integer(i64::try_from(arm_limit).unwrap_or(i64::MAX));
        let direction = if query.descending { "DESC" } else { "ASC" };
        // Left alone, the planner walks the status index for `taskIds` +
        // `status` (it has no statistics); see the module doc.
        let select = format!("SELECT {COLUMNS} FROM tasks INDEXED BY {index}");
        let order = format!(" ORDER BY {key} {direction}, seq {direction} LIMIT ?");

        let mut combos: Vec<Vec<SqlValue>> = vec![Vec::new()];
        for &column in prefix {
            combos = combos
                .iter()
                .flat_map(|combo| {
                    values(column).iter().map(move |v| {
                        let mut combo = combo.clone();
                        combo.push(text(v));
                        combo
                    })
                })
                .collect();
        }
        let mut arms = Vec::with_capacity(combos.len() * walks.len());
        for (walk_terms, walk_args) in walks {
            let all_terms: Vec<&str> = terms
                .iter()
                .chain(&walk_terms)
                .map(String::as_str)
                .collect();
            let filter = if all_terms.is_empty() {
                String::new()
            } else {
                format!(" WHERE {}", all_terms.join(" AND "))
            };
            let sql = format!("{select}{filter}{order}");
            for combo in &combos {
                let args = combo
                    .iter()
                    .chain(&common)
                    .chain(&walk_args)
                    .chain([&limit])
                    .cloned()
                    .collect();
                arms.push((sql.clone(), args));
            }
        }
        Some(ListPlan { arms })
    }

    /// Runs the plan on `conn` (the ledger at `path`): merges its arms in
    /// order, skipping hidden entries.
    pub(super) fn page(
        &self,
        conn: &Connection,
        path: &Path,
        query: &TaskQuery,
        limit: usize,
        budget: usize,
        visible: &dyn Fn(&TaskRecord) -> bool,
    ) -> Result<TaskPage, LedgerError> {
        let mut statements = Vec::with_capacity(self.arms.len());
        for (sql, _) in &self.arms {
            statements.push(
                conn.prepare_cached(sql)
                    .map_err(sql_error(path, "preparing a listing"))?,
            );
        }
        let mut arms = Vec::with_capacity(self.arms.len());
        for (statement, (_, args)) in statements.iter_mut().zip(&self.arms) {
            let rows = statement
                .query(params_from_iter(args))
                .map_err(sql_error(path, "listing entries"))?;
            let mut arm = Arm { rows, head: None };
            arm.advance(path, query)?;
            arms.push(arm);
        }
        let ahead = |a: (i64, i64), b: (i64, i64)| if query.descending { a > b } else { a < b };
        let mut tasks = Vec::new();
        let mut examined = 0;
        loop {
            let next = arms
                .iter()
                .enumerate()
                .filter_map(|(i, arm)| arm.head.as_ref().map(|head| (i, head.0)))
                .reduce(|best, other| if ahead(other.1, best.1) { other } else { best });
            let Some((index, (key, seq))) = next else {
                return Ok(TaskPage {
                    tasks,
                    next_cursor: None,
                });
            };
            let (_, record) = arms[index].advance(path, query)?.expect("arm has a head");
            examined += 1;
            if visible(&record) {
                tasks.push(record);
            }
            if tasks.len() == limit || examined == budget {
                let more = arms.iter().any(|arm| arm.head.is_some());
                return Ok(TaskPage {
                    tasks,
                    next_cursor: more.then(|| Cursor { key, seq }.encode()),
                });
            }
        }
    }
}

/// An entry and its place in a listing's order: `(key, seq)`.
type Placed = ((i64, i64), TaskRecord);

/// One ordered stream of a listing, with its next entry read ahead.
struct Arm<'s> {
    rows: Rows<'s>,
    head: Option<Placed>,
}

impl Arm<'_> {
    /// Returns the head and reads the next one.
    fn advance(&mut self, path: &Path, query: &TaskQuery) -> Result<Option<Placed>, LedgerError> {
        let next = match self
            .rows
            .next()
            .map_err(sql_error(path, "listing entries"))?
        {
            Some(row) => {
                let (seq, record) = read_row(path, row)?;
                Some(((query.key(&record), seq), record))
            }
            None => None,
        };
        Ok(std::mem::replace(&mut self.head, next))
    }
}

/// The tighter of two optional upper bounds.
fn min_some(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The values of a filter list without repeats, which would repeat arms.
fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut list: Vec<&str> = values.collect();
    list.sort_unstable();
    list.dedup();
    list
}

pub(super) fn placeholders(count: usize) -> String {
    vec!["?"; count].join(", ")
}

pub(super) fn text(value: &str) -> SqlValue {
    SqlValue::Text(value.to_string())
}
