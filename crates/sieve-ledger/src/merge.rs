//! The merge of a listing's arms into one page, the same for both
//! backends: it asks for rows ([`Step::Fill`]) and says when the page is
//! done ([`Step::Page`]). SQLite hands it one row at a time from its
//! statements; PostgreSQL a batch per round trip from its portals. It
//! never does I/O itself.
//!
//! The caller's `visible` test runs here, after SQL. The merge goes on
//! until the page is full, so hidden entries do not shorten pages, but
//! stops after examining `budget` entries and returns a cursor after the
//! last one examined, so a listing where nearly everything is hidden still
//! answers promptly.

use super::TaskPage;
use sieve_core::tasks::{Cursor, TaskQuery, TaskRecord};
use std::collections::VecDeque;

/// What the merge needs next.
#[derive(Debug)]
pub(super) enum Step {
    /// Rows of these arms (each has none left in hand and may have more).
    Fill(Vec<usize>),
    /// The page, done.
    Page(TaskPage),
}

/// One arm's rows in hand, each with its place `(key, seq)`.
#[derive(Default)]
struct Arm {
    rows: VecDeque<((i64, i64), TaskRecord)>,
    /// Its statement has no more rows.
    done: bool,
}

/// A listing's merge in progress.
pub(super) struct Merge<'q> {
    query: &'q TaskQuery,
    visible: &'q dyn Fn(&TaskRecord) -> bool,
    arms: Vec<Arm>,
    limit: usize,
    budget: usize,
    tasks: Vec<TaskRecord>,
    examined: usize,
    /// The place of the last entry examined.
    last: Option<(i64, i64)>,
    /// The page is full, or the budget spent: only whether more follow is
    /// left to learn.
    full: bool,
}

impl<'q> Merge<'q> {
    /// A page of at most `limit` of `query`'s entries that `visible`
    /// accepts, from `arms` ordered walks, examining at most `budget`.
    pub(super) fn new(
        query: &'q TaskQuery,
        arms: usize,
        limit: usize,
        budget: usize,
        visible: &'q dyn Fn(&TaskRecord) -> bool,
    ) -> Merge<'q> {
        Merge {
            query,
            visible,
            arms: (0..arms).map(|_| Arm::default()).collect(),
            limit,
            budget,
            tasks: Vec::new(),
            examined: 0,
            last: None,
            full: false,
        }
    }

    /// Hands over the next rows of `arm`, `(seq, entry)` in its order;
    /// `done` when its statement has no more.
    pub(super) fn fill(
        &mut self,
        arm: usize,
        rows: impl IntoIterator<Item = (i64, TaskRecord)>,
        done: bool,
    ) {
        let query = self.query;
        let arm = &mut self.arms[arm];
        arm.rows.extend(
            rows.into_iter()
                .map(|(seq, record)| ((query.key(&record), seq), record)),
        );
        arm.done = done;
    }

    /// Merges what is in hand, until rows are needed or the page is done.
    pub(super) fn step(&mut self) -> Step {
        loop {
            // Every arm's next row is known before one is taken, and
            // before saying whether more follow the page.
            let needed: Vec<usize> = (0..self.arms.len())
                .filter(|&i| self.arms[i].rows.is_empty() && !self.arms[i].done)
                .collect();
            if !needed.is_empty() {
                return Step::Fill(needed);
            }
            if self.full {
                let more = self.arms.iter().any(|arm| !arm.rows.is_empty());
                return Step::Page(self.page(more));
            }
            let descending = self.query.descending;
            let ahead = |a: (i64, i64), b: (i64, i64)| if descending { a > b } else { a < b };
            let next = self
                .arms
                .iter()
                .enumerate()
                .filter_map(|(i, arm)| arm.rows.front().map(|(place, _)| (i, *place)))
                .reduce(|best, other| if ahead(other.1, best.1) { other } else { best });
            let Some((index, _)) = next else {
                return Step::Page(self.page(false));
            };
            let (place, record) = self.arms[index].rows.pop_front().expect("arm has a head");
            self.examined += 1;
            self.last = Some(place);
            if (self.visible)(&record) {
                self.tasks.push(record);
            }
            self.full = self.tasks.len() == self.limit || self.examined == self.budget;
        }
    }

    fn page(&mut self, more: bool) -> TaskPage {
        TaskPage {
            tasks: std::mem::take(&mut self.tasks),
            next_cursor: self
                .last
                .filter(|_| more)
                .map(|(key, seq)| Cursor { key, seq }.encode()),
        }
    }
}
