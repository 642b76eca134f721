//! A server's child process: started in its own process group, so `npx`
//! and whatever it starts are stopped together (SIGTERM, then SIGKILL) and
//! always reaped, with the tail of its stderr kept to say why it died.

use crate::sync::Locked;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Lines of a child's stderr kept to explain why it died (enough for a
/// Node or Python stack trace around the line that says what failed).
const STDERR_TAIL: usize = 40;

/// Why a server's process could not be started or talked to.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(super) enum ChildError {
    /// The program could not be started (`cause` ends the sentence).
    #[error("cannot start {command:?}: {cause}")]
    Start {
        command: String,
        cause: std::io::Error,
    },
    /// It was started without the pipes it speaks MCP on.
    #[error("the child process has no stdin/stdout")]
    NoPipes,
}

/// A child process in its own process group, with its stderr tail kept.
pub(super) struct ChildProcess {
    child: tokio::process::Child,
    pid: Option<u32>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
}

impl ChildProcess {
    pub(super) fn spawn(
        server: &str,
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&str>,
    ) -> Result<ChildProcess, ChildError> {
        let mut cmd = tokio::process::Command::new(command);
        if sieve_sentence::one_thread_set_here() {
            // Set for the sentence model in this process, not the server's.
            cmd.env_remove("RAYON_NUM_THREADS");
        }
        cmd.args(args)
            .envs(env)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd.spawn().map_err(|cause| ChildError::Start {
            command: command.to_string(),
            cause,
        })?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let mut stderr_reader = None;
        if let Some(pipe) = child.stderr.take() {
            let tail = stderr.clone();
            let server = server.to_string();
            stderr_reader = Some(tokio::spawn(async move {
                let mut lines = BufReader::new(pipe).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(server = %server, "stderr: {line}");
                    let mut tail = tail.locked();
                    tail.push_back(line);
                    if tail.len() > STDERR_TAIL {
                        tail.pop_front();
                    }
                }
            }));
        }
        Ok(ChildProcess {
            pid: child.id(),
            child,
            stderr,
            stderr_reader,
        })
    }

    pub(super) fn pipes(
        &mut self,
    ) -> Result<(tokio::process::ChildStdout, tokio::process::ChildStdin), ChildError> {
        match (self.child.stdout.take(), self.child.stdin.take()) {
            (Some(out), Some(input)) => {
                // A server's list of thousands of tools, and many calls
                // at once, go through in fewer rounds.
                use std::os::fd::AsFd;
                sieve_demo::stdio::widen(out.as_fd());
                sieve_demo::stdio::widen(input.as_fd());
                Ok((out, input))
            }
            _ => Err(ChildError::NoPipes),
        }
    }

    /// Stops the whole process group (SIGTERM, then SIGKILL after 2 s) and
    /// reaps the child; returns how it ended, with its last stderr line.
    pub(super) async fn stop(mut self) -> String {
        self.signal(Signal::Terminate);
        let status = match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                self.signal(Signal::Kill);
                self.child.wait().await
            }
        };
        // Whatever else is left in the group goes too.
        self.signal(Signal::Kill);
        // Its last words may still be in the pipe; a grandchild holding the
        // pipe open must not hold us up, hence the bound.
        if let Some(reader) = self.stderr_reader.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
        }
        // Reaped and its group killed: nothing for `drop` to do.
        self.pid = None;
        let last = telling_line(&self.stderr.locked());
        let status = match status {
            Ok(status) => format!("process {status}"),
            Err(error) => format!("process could not be waited for: {error}"),
        };
        match last {
            Some(line) => format!("{status}; its last words: {line}"),
            None => status,
        }
    }

    fn signal(&self, signal: Signal) {
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            let signal = match signal {
                Signal::Terminate => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // SAFETY: killpg only sends a signal; the group id is the pid
            // of a child we started with `process_group(0)`, so it is the
            // leader of its own group and never ours.
            unsafe {
                libc::killpg(pid as libc::pid_t, signal);
            }
        }
    }
}

impl Drop for ChildProcess {
    /// A child dropped without [`ChildProcess::stop`] (a one-shot command
    /// ending, a start given up) takes its whole group with it:
    /// `kill_on_drop` alone reaches the child, not what `sh -c` or `npx`
    /// started. Nothing has reaped the child yet, so its group id is still
    /// its own.
    fn drop(&mut self) {
        self.signal(Signal::Kill);
    }
}

#[derive(Debug, Clone, Copy)]
enum Signal {
    Terminate,
    Kill,
}

/// The stderr line that best says why a child failed: the last one that
/// reads like an error (`Error: Cannot find module ...`, `ModuleNotFoundError:
/// ...`, `permission denied`), skipping stack frames; else the last line
/// that is not empty. Node ends a crash with its version banner, which on
/// its own explains nothing.
fn telling_line(tail: &VecDeque<String>) -> Option<String> {
    const SIGNS: [&str; 9] = [
        "error",
        "exception",
        "cannot ",
        "can't ",
        "not found",
        "no such file",
        "denied",
        "refused",
        "failed",
    ];
    let lines = || {
        tail.iter()
            .rev()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
    };
    lines()
        .filter(|l| !l.starts_with("at ") && !l.starts_with("File \""))
        .find(|l| {
            let lower = l.to_lowercase();
            SIGNS.iter().any(|sign| lower.contains(sign))
        })
        .or_else(|| lines().next())
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::telling_line;
    use std::collections::VecDeque;

    fn tail(text: &str) -> VecDeque<String> {
        text.lines().map(String::from).collect()
    }

    #[test]
    fn the_line_that_says_what_failed_beats_a_version_banner() {
        // What Node 22 prints for a missing script, banner last.
        let node = "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\n\
            Error: Cannot find module '/srv/server.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n\
            \x20   at Module._load (node:internal/modules/cjs/loader:1051:27)\n    at node:internal/main/run_main_module:28:49 {\n\
            \x20 code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v22.23.3\n";
        assert_eq!(
            telling_line(&tail(node)).as_deref(),
            Some("Error: Cannot find module '/srv/server.js'")
        );
        let python = "Traceback (most recent call last):\n  File \"/srv/server.py\", line 1, in <module>\n    import mcp_errors\nModuleNotFoundError: No module named 'mcp_errors'\n";
        assert_eq!(
            telling_line(&tail(python)).as_deref(),
            Some("ModuleNotFoundError: No module named 'mcp_errors'")
        );
        assert_eq!(
            telling_line(&tail("starting\nlistening on stdio\n\n")).as_deref(),
            Some("listening on stdio"),
            "without an error line, the last words"
        );
        assert_eq!(telling_line(&tail("\n  \n")), None);
    }
}
