//! Why a call, a retry or a task request did not go through, and whose
//! doing it was: our own rules, the host's request, the upstream server,
//! or the task ledger (STYLE: proxy errors record where they came from).
//!
//! The pool and the tasks return [`CallError`]; it becomes a JSON-RPC
//! error once, where the MCP server answers a host (`From<CallError> for
//! ErrorData`, the codes and sentences hosts have always had), and an
//! `ApiError` once, in `sieve-api`, by its [`Origin`].

use rmcp::ErrorData;
use rmcp::model::ErrorCode;
use serde_json::{Value, json};
use sieve_core::Kind;
use sieve_core::tasks::TaskStatus;
use sieve_ledger::LedgerError;
use std::path::PathBuf;
use std::sync::Arc;

/// Where a [`CallError`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// Our own rules: a profile that hides the tool, the quarantine.
    Rules,
    /// The caller's request: something that is not there, or cannot be
    /// done to it now.
    Host,
    /// The upstream server: its error answer, or it could not be reached.
    Upstream,
    /// The task ledger.
    Ledger,
}

/// A call, retry or task request that did not go through. The message is
/// the sentence the host (or the person) reads.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The primitive is hidden under a profile that enforces, or held in
    /// quarantine (then `quarantined`, and the first reason says so).
    #[error("{}", refusal(*.kind, .name, .glob_name, .profile, .hidden_by, *.quarantined))]
    Refused {
        kind: Kind,
        name: String,
        /// The name to approve it by (`tools approve`).
        glob_name: String,
        profile: String,
        hidden_by: Vec<String>,
        quarantined: bool,
    },
    /// A task's tool is refused under the profile it is retried under.
    #[error(
        "task {id:?} calls a tool that is refused under profile {profile:?} ({}), so it is not run again",
        .hidden_by.join("; ")
    )]
    RetryRefused {
        id: String,
        profile: String,
        hidden_by: Vec<String>,
    },
    /// No tool has this name (exposed name or URI).
    #[error("there is no tool {name:?}")]
    NoTool { name: String },
    /// The ledger has no such entry, or the caller may not see it.
    #[error("there is no task {id:?}; tasks/list shows them")]
    NoTask { id: String },
    /// The entry is a call: no server runs it as a task.
    #[error("{id:?} is a call, not a task a server runs")]
    NotATask { id: String },
    /// A completed entry is retried only with force.
    #[error("task {id:?} completed; retry with force to run it again")]
    Completed { id: String },
    /// A live entry is retried only with force.
    #[error("task {id:?} is still {status}; cancel it first, or retry with force")]
    StillRunning { id: String, status: TaskStatus },
    /// An ended task cannot be cancelled.
    #[error("task {id:?} is already {status}; nothing to cancel")]
    AlreadyEnded { id: String, status: TaskStatus },
    /// The params do not fit the request `method`.
    #[error("cannot forward {method}: {why}")]
    Unsendable { method: String, why: String },
    /// The upstream server answered with an error (passed on as it came),
    /// or could not be reached, or answered with something that is not an
    /// answer; `data` is the error's JSON-RPC data.
    #[error("{message}")]
    Upstream {
        server: String,
        code: ErrorCode,
        message: String,
        data: Option<Value>,
    },
    /// The task ledger failed.
    #[error(transparent)]
    Ledger(Arc<LedgerError>),
    /// The task ledger could not be opened when the proxy started.
    #[error(
        "the task ledger {} could not be opened (the proxy's log says why)",
        .path.display()
    )]
    NoLedger { path: PathBuf },
    /// An entry was there a moment ago, and is no longer.
    #[error("task {id} left the ledger")]
    LeftLedger { id: String },
}

fn refusal(
    kind: Kind,
    name: &str,
    glob_name: &str,
    profile: &str,
    hidden_by: &[String],
    quarantined: bool,
) -> String {
    if quarantined {
        format!(
            "{kind} {name:?} is refused: {}; it stays hidden in every profile until approved \
             (`mcp-sieve tools quarantined` shows what changed, `mcp-sieve tools approve {glob_name}` lets it through)",
            hidden_by.first().map(String::as_str).unwrap_or_default(),
        )
    } else {
        format!(
            "{kind} {name:?} is hidden by profile {profile:?} ({}), so the proxy refuses it",
            hidden_by.join("; ")
        )
    }
}

impl CallError {
    /// Whose doing it was.
    pub fn origin(&self) -> Origin {
        match self {
            CallError::Refused { .. } | CallError::RetryRefused { .. } => Origin::Rules,
            CallError::NoTool { .. }
            | CallError::NoTask { .. }
            | CallError::NotATask { .. }
            | CallError::Completed { .. }
            | CallError::StillRunning { .. }
            | CallError::AlreadyEnded { .. }
            | CallError::Unsendable { .. } => Origin::Host,
            CallError::Upstream { .. } => Origin::Upstream,
            CallError::Ledger(_) | CallError::NoLedger { .. } | CallError::LeftLedger { .. } => {
                Origin::Ledger
            }
        }
    }

    /// An error of `server`'s, with its JSON-RPC code and data: its own
    /// answer, or ours about it.
    pub(crate) fn upstream(server: &str, error: ErrorData) -> CallError {
        CallError::Upstream {
            server: server.to_string(),
            code: error.code,
            message: error.message.into_owned(),
            data: error.data,
        }
    }

    /// Ours about `server` (it cannot be reached, went away, or answered
    /// with something that is no answer): an internal error for hosts,
    /// with `data`.
    pub(crate) fn of_server(server: &str, message: String, data: Option<Value>) -> CallError {
        CallError::Upstream {
            server: server.to_string(),
            code: ErrorCode::INTERNAL_ERROR,
            message,
            data,
        }
    }
}

impl From<LedgerError> for CallError {
    fn from(error: LedgerError) -> CallError {
        CallError::Ledger(Arc::new(error))
    }
}

impl From<CallError> for ErrorData {
    /// The one place a [`CallError`] becomes a JSON-RPC error: our rules
    /// and the host's request are invalid params (a refusal with the
    /// profile and its reasons as data), the upstream's error goes as it
    /// came, the ledger's is internal.
    fn from(error: CallError) -> ErrorData {
        let message = error.to_string();
        match error {
            CallError::Refused {
                profile, hidden_by, ..
            } => ErrorData::invalid_params(
                message,
                Some(json!({"profile": profile, "hiddenBy": hidden_by})),
            ),
            CallError::Upstream {
                code,
                message,
                data,
                ..
            } => ErrorData::new(code, message, data),
            CallError::Ledger(_) | CallError::NoLedger { .. } | CallError::LeftLedger { .. } => {
                ErrorData::internal_error(message, None)
            }
            CallError::RetryRefused { .. }
            | CallError::NoTool { .. }
            | CallError::NoTask { .. }
            | CallError::NotATask { .. }
            | CallError::Completed { .. }
            | CallError::StillRunning { .. }
            | CallError::AlreadyEnded { .. }
            | CallError::Unsendable { .. } => ErrorData::invalid_params(message, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_get_the_codes_and_sentences_they_always_had() {
        let refused = ErrorData::from(CallError::Refused {
            kind: Kind::Tool,
            name: "github__delete_repo".into(),
            glob_name: "github__delete_repo".into(),
            profile: "work".into(),
            hidden_by: vec!["tools.deny: matches \"*delete*\"".into(), "tags".into()],
            quarantined: false,
        });
        assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            refused.message,
            "tool \"github__delete_repo\" is hidden by profile \"work\" (tools.deny: matches \"*delete*\"; tags), so the proxy refuses it"
        );
        assert_eq!(
            refused.data,
            Some(
                json!({"profile": "work", "hiddenBy": ["tools.deny: matches \"*delete*\"", "tags"]})
            )
        );

        let held = CallError::Refused {
            kind: Kind::Tool,
            name: "demo__echo".into(),
            glob_name: "demo__echo".into(),
            profile: "work".into(),
            hidden_by: vec!["quarantined: new".into()],
            quarantined: true,
        };
        assert_eq!(held.origin(), Origin::Rules);
        assert_eq!(
            held.to_string(),
            "tool \"demo__echo\" is refused: quarantined: new; it stays hidden in every profile until approved \
             (`mcp-sieve tools quarantined` shows what changed, `mcp-sieve tools approve demo__echo` lets it through)"
        );

        let upstream = CallError::upstream(
            "demo",
            ErrorData::new(ErrorCode(-32001), "busy", Some(json!({"retry": 1}))),
        );
        assert_eq!(upstream.origin(), Origin::Upstream);
        assert_eq!(
            ErrorData::from(upstream),
            ErrorData::new(ErrorCode(-32001), "busy", Some(json!({"retry": 1})))
        );

        let still = CallError::StillRunning {
            id: "st-1".into(),
            status: TaskStatus::Working,
        };
        assert_eq!(still.origin(), Origin::Host);
        let still = ErrorData::from(still);
        assert_eq!(still.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            still.message,
            "task \"st-1\" is still working; cancel it first, or retry with force"
        );

        let gone = ErrorData::from(CallError::NoLedger {
            path: PathBuf::from("/data/tasks.db"),
        });
        assert_eq!(gone.code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(
            gone.message,
            "the task ledger /data/tasks.db could not be opened (the proxy's log says why)"
        );
    }
}
