//! What calls through Sieve measured, for the built-in concern `cost`
//! (sieve-core's `cost`): for each `tools/call` that reached its server
//! and was answered (a result, even one saying the tool failed), the
//! tokens of its result and how long it took. Kept beside the task ledger
//! (the `measurements` table of the same SQLite file, or
//! `sieve_measurements` in the team's database), whether or not the audit
//! is on: a measurement holds no arguments and nothing of the result but
//! its size.
//!
//! Only the last [`CALLS_KEPT`] calls of each tool are kept: each write
//! drops the older ones of the tools it wrote, so the table holds at most
//! that many rows per tool ever called, however many calls pass. A tool is
//! named by its server and its upstream name, as the catalog looks its
//! measurements up; a tool renamed by its server starts afresh.
//!
//! [`Ledger::measured`] gives each tool's [`Measured`]: its calls, and the
//! median and 90th percentile of its tokens and of its durations,
//! computed here from the kept rows (the same on both databases; SQLite
//! has no percentiles of its own).

use super::query::{Arg, Dialect, placeholders, text};
use super::{Backend, Ledger, LedgerError};
use sieve_core::cost::{CALLS_KEPT, Measured, Measurements, kept_of_each_tool};

/// One call, measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallMeasurement {
    pub server: String,
    /// The tool's name on its server (not the exposed name).
    pub tool: String,
    /// When the call came in, in ms since the Unix epoch.
    pub at: i64,
    /// Tokens its result adds to the model's context.
    pub result_tokens: u64,
    pub duration_ms: u64,
}

/// Rows one insert writes at most, well within SQLite's limit of
/// parameters per statement.
const ROWS_PER_INSERT: usize = 200;

/// Tools one select asks for at most.
const TOOLS_PER_SELECT: usize = 100;

/// A kept call as its row holds it, read with the driver's `$get`, as
/// [`entry_of_row`](super::schema::entry_of_row) does.
macro_rules! measured_of_row {
    ($row:expr, $get:ident) => {
        $crate::measurements::MeasuredRow {
            server: $row.$get(0)?,
            tool: $row.$get(1)?,
            result_tokens: $row.$get(2)?,
            duration_ms: $row.$get(3)?,
        }
    };
}
pub(super) use measured_of_row;

/// The columns of a select, in [`MeasuredRow`]'s order.
const MEASURED_COLUMNS: &str = "server, tool, result_tokens, duration_ms";

pub(super) struct MeasuredRow {
    pub server: String,
    pub tool: String,
    pub result_tokens: i64,
    pub duration_ms: i64,
}

fn table(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "measurements",
        Dialect::Postgres => "sieve_measurements",
    }
}

/// A count as a column holds it.
fn int(value: u64) -> Arg {
    Arg::Int(i64::try_from(value).unwrap_or(i64::MAX))
}

impl Ledger {
    /// Records `calls`, then drops all but the newest [`CALLS_KEPT`] calls
    /// of each tool among them.
    pub fn measure_all(&self, calls: &[CallMeasurement]) -> Result<(), LedgerError> {
        let dialect = self.dialect();
        let table = table(dialect);
        let newest = newest_of_each_tool(calls);
        for chunk in newest.chunks(ROWS_PER_INSERT) {
            let row = format!("({})", placeholders(5));
            let sql = dialect.sql(&format!(
                "INSERT INTO {table} (server, tool, at, result_tokens, duration_ms) VALUES {}",
                vec![row.as_str(); chunk.len()].join(", ")
            ));
            let args: Vec<Arg> = chunk
                .iter()
                .flat_map(|call| {
                    [
                        text(&call.server),
                        text(&call.tool),
                        Arg::Int(call.at),
                        int(call.result_tokens),
                        int(call.duration_ms),
                    ]
                })
                .collect();
            self.execute(&sql, &args, "recording measured calls")?;
        }
        // The row that is one too old, if there is one, and every older
        // one: a walk of the tool's slice of the index from its newest.
        let prune = dialect.sql(&format!(
            "DELETE FROM {table} WHERE server = ? AND tool = ? AND id <= \
             (SELECT id FROM {table} WHERE server = ? AND tool = ? \
              ORDER BY id DESC LIMIT 1 OFFSET {CALLS_KEPT})"
        ));
        for (server, tool) in tools_of(calls) {
            let args = [text(server), text(tool), text(server), text(tool)];
            self.execute(&prune, &args, "dropping old measured calls")?;
        }
        Ok(())
    }

    /// What the kept calls of every tool measured.
    pub fn measured(&self) -> Result<Measurements, LedgerError> {
        let sql = format!(
            "SELECT {MEASURED_COLUMNS} FROM {} ORDER BY server, tool, id DESC",
            table(self.dialect())
        );
        let mut measurements = Measurements::new();
        self.gather(&sql, Vec::new(), &mut measurements)?;
        Ok(measurements)
    }

    /// What the kept calls of `tools`, each a server and a tool's upstream
    /// name, measured; a tool never measured is left out.
    pub fn measured_of(&self, tools: &[(String, String)]) -> Result<Measurements, LedgerError> {
        let mut measurements = Measurements::new();
        for chunk in tools.chunks(TOOLS_PER_SELECT) {
            let sql = format!(
                "SELECT {MEASURED_COLUMNS} FROM {} WHERE {} ORDER BY server, tool, id DESC",
                table(self.dialect()),
                vec!["(server = ? AND tool = ?)"; chunk.len()].join(" OR ")
            );
            let args = chunk
                .iter()
                .flat_map(|(server, tool)| [text(server), text(tool)])
                .collect();
            self.gather(&sql, args, &mut measurements)?;
        }
        Ok(measurements)
    }

    /// Adds to `into` what the rows `sql` selects measured: rows of
    /// [`MEASURED_COLUMNS`], each tool's together and newest first.
    fn gather(
        &self,
        sql: &str,
        args: Vec<Arg>,
        into: &mut Measurements,
    ) -> Result<(), LedgerError> {
        let sql = self.dialect().sql(sql);
        let action = "reading measured calls";
        let rows = match &self.backend {
            Backend::Sqlite(b) => b.select_measured(&sql, &args, action)?,
            Backend::Postgres(b) => b.select_measured(&sql, &args, action)?,
        };
        let mut calls: Vec<(u64, u64)> = Vec::new();
        let mut rows = rows.into_iter().peekable();
        while let Some(row) = rows.next() {
            // A write that failed before its prune may leave a few more.
            if calls.len() < CALLS_KEPT {
                let count = |n: i64| u64::try_from(n).unwrap_or(0);
                calls.push((count(row.result_tokens), count(row.duration_ms)));
            }
            let same_tool = rows
                .peek()
                .is_some_and(|next| next.server == row.server && next.tool == row.tool);
            if !same_tool {
                into.entry(row.server)
                    .or_default()
                    .insert(row.tool, Measured::of_calls(&calls));
                calls.clear();
            }
        }
        Ok(())
    }
}

/// The calls of `calls` that would be kept once they are written: the
/// newest [`CALLS_KEPT`] of each tool, in their order. A batch of a busy
/// tool writes no row only to drop it again.
fn newest_of_each_tool(calls: &[CallMeasurement]) -> Vec<&CallMeasurement> {
    let kept = kept_of_each_tool(calls.iter().map(|c| (c.server.as_str(), c.tool.as_str())));
    calls
        .iter()
        .zip(kept)
        .filter_map(|(call, keep)| keep.then_some(call))
        .collect()
}

/// The tools `calls` are of, each once.
fn tools_of(calls: &[CallMeasurement]) -> Vec<(&str, &str)> {
    let mut tools: Vec<(&str, &str)> = calls
        .iter()
        .map(|call| (call.server.as_str(), call.tool.as_str()))
        .collect();
    tools.sort_unstable();
    tools.dedup();
    tools
}
