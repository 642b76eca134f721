//! A listing's plan: which index, which arms, which bounds, as SQL in
//! either dialect.
//!
//! Every listing walks one index in order, never the table:
//!
//! * `taskIds` are looked up by id (the list is short by nature).
//! * Otherwise the `servers`, `methods` and `status` filters pick an index
//!   whose leading columns they fix, e.g. `(server, status, key, seq)`.
//!   Each combination of their values is one *arm*, an ordered walk of one
//!   slice of that index, and the arms are merged (`merge`). `status` has
//!   only five values, so an index led by `server, status` also serves a
//!   `servers` filter alone (five arms): fewer indexes for every write.
//! * Time bounds on the order key, and those implied by `created_at <=
//!   last_updated_at` (`createdAfter` bounds `last_updated_at` too), are
//!   index ranges, so a walk starts and stops where they say. Bounds on
//!   the other time column are checked row by row.
//! * A cursor splits each arm in two: the entries sharing the cursor's key
//!   (`key = ? AND seq < ?`, one seek) and those beyond that key. SQLite
//!   does not seek on the `seq` half of a row value `(key, seq) < (?, ?)`,
//!   and would step through every entry of a crowded millisecond.
//! * On SQLite, indexes are named with `INDEXED BY`: without statistics
//!   the planner can pick a worse one, and the `EXPLAIN QUERY PLAN` test
//!   pins the plans. PostgreSQL has no such hint: a listing tells its
//!   planner not to sort (`postgres::planner_settings`), so every arm is
//!   an ordered walk of an index and the planner picks which; its
//!   `EXPLAIN` test checks each shape, for the values and generically.
//!
//! The plan is written once, with `?` for each parameter, and
//! [`Dialect::sql`] gives each database its own spelling.

use super::schema::{COLUMNS, Column, ENTRY_COLUMNS, LISTING_INDEXES};
use sieve_core::tasks::{OrderBy, TaskQuery, TaskStatus};
use std::fmt::Write as _;

/// The SQL each backend speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// The ledger's table: PostgreSQL's shares a team's database with the
    /// rest of MCP Sieve's state, so its name says whose it is.
    pub(super) fn table(self) -> &'static str {
        match self {
            Dialect::Sqlite => "tasks",
            Dialect::Postgres => "sieve_tasks",
        }
    }

    /// `sql`, written with `?` for each parameter in order, as this
    /// database takes it: SQLite as written, PostgreSQL with `$1`, `$2`,
    /// ... (the plans never write a `?` of their own, in a literal or
    /// otherwise).
    pub(super) fn sql(self, sql: &str) -> String {
        match self {
            Dialect::Sqlite => sql.to_string(),
            Dialect::Postgres => {
                let mut out = String::with_capacity(sql.len() + 16);
                for (n, part) in sql.split('?').enumerate() {
                    if n > 0 {
                        let _ = write!(out, "${n}");
                    }
                    out.push_str(part);
                }
                out
            }
        }
    }

    /// The select of entries from `index` (PostgreSQL picks its own).
    fn select(self, index: &str) -> String {
        match self {
            Dialect::Sqlite => format!("SELECT {COLUMNS} FROM tasks INDEXED BY {index}"),
            Dialect::Postgres => format!("SELECT {COLUMNS} FROM sieve_tasks"),
        }
    }

    /// The insert of one entry, its values in [`ENTRY_COLUMNS`] order.
    pub(super) fn insert(self) -> String {
        self.sql(&format!(
            "INSERT INTO {} ({ENTRY_COLUMNS}) VALUES ({})",
            self.table(),
            placeholders(18)
        ))
    }
}

/// A parameter of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Arg {
    Int(i64),
    Text(String),
    /// Text or NULL.
    MaybeText(Option<String>),
}

/// More arms than this and the listing uses a shorter index prefix,
/// filtering the remaining lists row by row instead.
const MAX_ARMS: usize = 64;

/// A listing as ordered walks of index slices (arms), each an SQL
/// statement in the plan's dialect and its parameters.
#[derive(Debug)]
pub(super) struct ListPlan {
    pub(super) arms: Vec<(String, Vec<Arg>)>,
    /// The arms look entries up by id, and sort the few they find;
    /// otherwise each walks an index in the listing's order.
    pub(super) by_id: bool,
}

impl ListPlan {
    /// `None` when the bounds leave nothing to list. Each arm returns at
    /// most `arm_limit` rows.
    pub(super) fn new(query: &TaskQuery, arm_limit: usize, dialect: Dialect) -> Option<ListPlan> {
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
        let mut walks: Vec<(Vec<String>, Vec<Arg>)> = Vec::new();
        if let Some(c) = tie.filter(|c| within(c.key)) {
            walks.push((
                vec![format!("{key} = ?"), format!("seq {seq_op} ?")],
                vec![Arg::Int(c.key), Arg::Int(c.seq)],
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
                    walk.1.push(Arg::Int(t));
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
        let owner: Vec<&str> = query.owner.iter().map(String::as_str).collect();
        let all_statuses: Vec<&str> = TaskStatus::ALL.iter().map(|s| s.as_str()).collect();
        let values = |column: Column| match column {
            Column::Server => &servers,
            Column::Method => &methods,
            Column::Status if statuses.is_empty() => &all_statuses,
            Column::Status => &statuses,
            Column::Owner => &owner,
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
        let mut common: Vec<Arg> = Vec::new();
        let mut one_of = |column: &str, list: &[&str], terms: &mut Vec<String>| {
            if !list.is_empty() {
                terms.push(format!("{column} IN ({})", placeholders(list.len())));
                common.extend(list.iter().map(|v| text(v)));
            }
        };
        one_of("id", &ids, &mut terms);
        for column in [
            Column::Server,
            Column::Method,
            Column::Status,
            Column::Owner,
        ] {
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
                common.push(Arg::Int(t));
            }
        }
        let direction = if query.descending { "DESC" } else { "ASC" };
        // Left alone, SQLite's planner walks the status index for
        // `taskIds` + `status` (it has no statistics); see the module doc.
        let select = dialect.select(index);
        // The limit is written in: it changes only with the page size, and
        // a plan PostgreSQL makes once for any limit guesses one.
        let order = format!(" ORDER BY {key} {direction}, seq {direction} LIMIT {arm_limit}");

        let mut combos: Vec<Vec<Arg>> = vec![Vec::new()];
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
            let sql = dialect.sql(&format!("{select}{filter}{order}"));
            for combo in &combos {
                let args = combo
                    .iter()
                    .chain(&common)
                    .chain(&walk_args)
                    .cloned()
                    .collect();
                arms.push((sql.clone(), args));
            }
        }
        Some(ListPlan {
            arms,
            by_id: !ids.is_empty(),
        })
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
pub(super) fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut list: Vec<&str> = values.collect();
    list.sort_unstable();
    list.dedup();
    list
}

pub(super) fn placeholders(count: usize) -> String {
    vec!["?"; count].join(", ")
}

pub(super) fn text(value: &str) -> Arg {
    Arg::Text(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_numbers_the_parameters_in_order() {
        let sql = "SELECT a FROM t WHERE b = ? AND c IN (?, ?) LIMIT ?";
        assert_eq!(Dialect::Sqlite.sql(sql), sql);
        assert_eq!(
            Dialect::Postgres.sql(sql),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3) LIMIT $4"
        );
        assert_eq!(Dialect::Postgres.sql("SELECT 1"), "SELECT 1");
    }
}
