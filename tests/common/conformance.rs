//! What `scripts/conformance.sh` (server scenarios) and
//! `scripts/conformance-client.sh` (client scenarios) print: a summary,
//! "N passed, M failed in S scenarios" (N and M count the suite's checks),
//! then one line per scenario, "pass NAME" or "fail NAME: why".

use std::collections::BTreeMap;

/// One run of the suite as the scripts report it.
#[derive(Debug)]
pub struct Report {
    /// The summary line as printed.
    pub summary: String,
    pub checks_passed: usize,
    pub checks_failed: usize,
    /// Each scenario that ran: `None` when it passed, else why it failed.
    pub scenarios: BTreeMap<String, Option<String>>,
}

impl Report {
    /// Reads a script's stdout; panics with it when it is not a report, or
    /// when the summary does not count every scenario listed once.
    pub fn parse(stdout: &str) -> Report {
        let mut lines = stdout.lines();
        let summary = lines.next().unwrap_or_default().to_string();
        let (checks_passed, checks_failed, ran) = parse_summary(&summary)
            .unwrap_or_else(|| panic!("no summary from the suite:\n{stdout}"));
        let scenarios: BTreeMap<String, Option<String>> = lines
            .map(|line| {
                if let Some(name) = line.strip_prefix("pass ") {
                    (name.to_string(), None)
                } else if let Some((name, why)) =
                    line.strip_prefix("fail ").and_then(|l| l.split_once(": "))
                {
                    (name.to_string(), Some(why.to_string()))
                } else {
                    panic!("not a scenario verdict: {line:?}")
                }
            })
            .collect();
        assert_eq!(
            ran,
            scenarios.len(),
            "the summary counts every scenario once: {stdout}"
        );
        Report {
            summary,
            checks_passed,
            checks_failed,
            scenarios,
        }
    }

    /// The scenarios that passed.
    pub fn passed(&self) -> impl Iterator<Item = &str> {
        self.scenarios
            .iter()
            .filter(|(_, failure)| failure.is_none())
            .map(|(name, _)| name.as_str())
    }
}

/// `(checks passed, checks failed, scenarios)` from
/// "N passed, M failed in S scenarios".
fn parse_summary(line: &str) -> Option<(usize, usize, usize)> {
    let (passed, rest) = line.split_once(" passed, ")?;
    let (failed, rest) = rest.split_once(" failed in ")?;
    let (ran, _) = rest.split_once(" scenario")?;
    Some((
        passed.parse().ok()?,
        failed.parse().ok()?,
        ran.parse().ok()?,
    ))
}
