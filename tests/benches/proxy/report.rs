//! Printing: the machine, and tables whose columns line up.

use crate::Plan;
use std::time::Duration;

/// One line about where and how the numbers were taken.
pub fn machine(plan: &Plan) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "MCP Sieve proxy benchmarks ({}), {cores} cores, {cpu}",
        if plan.smoke {
            "smoke run: small sizes, figures not meaningful"
        } else {
            "full run"
        }
    );
}

/// A table printed as Markdown, columns padded to line up.
pub struct Table {
    title: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(title: impl Into<String>, header: &[&str]) -> Table {
        Table {
            title: title.into(),
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        assert_eq!(
            cells.len(),
            self.header.len(),
            "a row has a cell per column"
        );
        self.rows.push(cells);
    }

    pub fn print(&self) {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r[i].chars().count())
                    .chain([self.header[i].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            format!("| {} |", padded.join(" | "))
        };
        println!("\n{}\n", self.title);
        println!("{}", line(&self.header));
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        println!("|-{}-|", rule.join("-|-"));
        for row in &self.rows {
            println!("{}", line(row));
        }
    }
}

/// Milliseconds with three decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

/// `value / base` as `1.23×`.
pub fn ratio(value: f64, base: f64) -> String {
    if base == 0.0 {
        return "–".into();
    }
    format!("{:.2}×", value / base)
}

/// The `q`-quantile of sorted `times` (nearest rank).
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64) * q).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
