//! The processes a process started, read from `/proc`: to find an upstream
//! server's process (to crash it) and to check that none is left behind.

use std::collections::BTreeMap;

/// One living process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    /// Its command line, arguments joined by spaces.
    pub command: String,
}

/// Every living descendant of `pid` (children of any of its threads, their
/// children, and so on), zombies excluded.
pub fn descendants(pid: u32) -> Vec<Process> {
    let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if let Some((parent, state)) = parent_of(child)
            && state != 'Z'
        {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(parent) = queue.pop() {
        for &child in children.get(&parent).into_iter().flatten() {
            queue.push(child);
            let command = std::fs::read(format!("/proc/{child}/cmdline"))
                .map(|raw| {
                    String::from_utf8_lossy(&raw)
                        .split('\0')
                        .filter(|part| !part.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            found.push(Process {
                pid: child,
                command,
            });
        }
    }
    found
}

/// The parent and state of `pid`, from `/proc/PID/stat` (whose second field,
/// the command name, may hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((parent, state))
}

/// Kills `pid` with SIGKILL, as a crash would.
pub fn crash(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -KILL {pid} failed");
}

/// Resident memory of process `pid` in KiB (`VmRSS`).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS for process {pid}"))
}
