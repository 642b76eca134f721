//! The library API under the command line and the desktop app: every view
//! and every edit a person makes, as plain functions over a [`Store`](sieve_store::store::Store) (and,
//! for what needs live servers, an [`Engine`](sieve_gateway::engine::Engine)).
//!
//! `mcp-sieve` parses flags and prints what these return; the app's Tauri
//! commands call the same functions and hand the results to the page. So
//! neither computes anything itself, and both always agree.
//!
//! * [`catalog`]: what the servers list ([`Listed`]), from live servers,
//!   catalog files or the built-in demo; the rows of every tool, prompt and
//!   resource with labels, `visible` and `hiddenBy`; the token report per
//!   server and per group.
//! * [`servers`]: server rows with live state, secrets left out.
//! * [`login`]: signing in to an HTTP server (OAuth) and keeping the
//!   sign-in in the secret store.
//! * [`probe`]: one HTTP server reached as the proxy reaches its
//!   upstreams, what it offers, and what a conformance scenario asks of a
//!   client.
//! * [`profiles`]: profile summaries (valid, or the parse error) and
//!   profile edits ([`ProfileEdit`]) that validate, then write atomically.
//! * [`quarantine`]: the tools held because they are new or changed since
//!   approved, with both definitions; approve and keep hidden.
//! * [`registry`]: servers from an MCP registry (API v0.1): search, show
//!   a server's versions, add one with its version pinned and where it
//!   came from kept, and newer versions published since.
//! * [`scan`]: the scanner's findings on a live server's or a catalog
//!   file's tools (`mcp-sieve scan`).
//! * [`settings`]: `config.json`'s settings, and the app's own switch.
//! * [`audit`]: the calls recorded with `settings.audit` on, filtered
//!   like tasks.
//! * [`tasks`]: task queries from filter values, one entry with its retry
//!   chain, retry and cancel.
//! * [`labels`]: labelling tools (groups, tags, concern values), renaming
//!   and merging groups, defining concerns, each written as the fewest
//!   overlays that say it.
//! * [`hosts`]: the config snippet for Claude Desktop, Cursor and VS Code,
//!   and a writer that adds the `sieve` entry to a host's file.
//!
//! Every function fails with one [`ApiError`]: a sentence a person can act
//! on, and a [`ErrorCode`] only where a caller branches on it.

pub mod audit;
pub mod catalog;
pub mod hosts;
pub mod labels;
pub mod login;
pub mod notices;
pub mod probe;
pub mod profiles;
pub mod quarantine;
pub mod registry;
pub mod scan;
pub mod secrets;
pub mod servers;
pub mod settings;
pub mod tasks;

pub use catalog::{HiddenReason, Listed, PrimitiveRow, TokenReport};

// What the command line and the app name of the layers below. They link
// this crate alone (the app also the gateway, to start its engine), so
// these are the only doors: the user's files, a running engine and its
// changes, the proxy's transports, the built-in demo server.
pub use sieve_core::tasks::TaskRecord;
pub use sieve_core::{ConcernDef, Disclosure, Kind, OAuthClient, Profile, TokenCount};
pub use sieve_gateway::engine::{Change, Engine, now_ms};
pub use sieve_gateway::serve;
pub use sieve_sentence::run_on_one_thread;
pub use sieve_store::home::Home;
pub use sieve_store::hosts::HostKind;
pub use sieve_store::import::ImportReport;
pub use sieve_store::state::Doc;
pub use sieve_store::store::{Store, backup_path};

/// The logs MCP Sieve writes unless `MCP_SIEVE_LOG` says otherwise: what
/// it does itself; rmcp narrates every handshake at info, so only its
/// errors.
pub const DEFAULT_LOG: &str = "warn,rmcp=error,deadpool=error,sieve_gateway=info,sieve_store=info,sieve_ledger=info,sieve_postgres=info,sieve_api=info";

/// Added to any log filter: rmcp's sign-in narrates codes and token
/// responses at debug, so never below info there, whatever was asked for.
pub const LOG_FLOOR: &str = "rmcp::transport::auth=info";

/// The built-in demo server, for `mcp-sieve demo-server`.
pub mod demo {
    pub use sieve_demo::{DemoServer, serve_stdio};
}
pub use hosts::{Connection, HostWrite};
pub use profiles::{PatternList, ProfileEdit, ProfileSummary, TagState};
pub use servers::ServerRow;
pub use tasks::{TaskDetail, TaskFilter, TaskPage};

use serde::Serialize;
use sieve_gateway::error::{CallError, Origin};
use sieve_store::store::StoreError;

/// What kind of failure an [`ApiError`] is, for callers that act on it
/// (the app marks a field red for `invalid`, offers "create it" for
/// `not_found`, "fix the file" for `broken_file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// A value the caller gave is not valid (a glob, a concern value, a
    /// name, a filter): nothing was written.
    Invalid,
    /// The profile, task or server named does not exist.
    NotFound,
    /// The name is taken.
    Exists,
    /// A file on disk does not parse; it was left as it is.
    BrokenFile,
    /// A server did not answer or refused the request.
    Upstream,
    /// Reading or writing a file failed.
    Io,
}

/// One error at the API's edge: `{code, message}` when serialised, the
/// message a whole sentence that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// The parameter or field the error is about, where there is one (the
    /// command line names its flag, the app marks the field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ApiError {
    /// An error whose message is `message`'s sentence: a string, or a
    /// library's error (its Display is the sentence).
    pub fn new(code: ErrorCode, message: impl std::fmt::Display) -> ApiError {
        ApiError {
            code,
            message: message.to_string(),
            field: None,
        }
    }

    pub fn invalid(field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError {
            field: Some(field.to_string()),
            ..ApiError::new(ErrorCode::Invalid, message)
        }
    }
}

impl From<sieve_store::hosts::HostFileError> for ApiError {
    fn from(error: sieve_store::hosts::HostFileError) -> ApiError {
        use sieve_store::hosts::HostFileError;
        let code = match &error {
            HostFileError::Store(_) | HostFileError::Read { .. } | HostFileError::NoHome => {
                ErrorCode::Io
            }
            HostFileError::Broken { .. } => ErrorCode::BrokenFile,
            _ => ErrorCode::Invalid,
        };
        if let HostFileError::Store(store) = error {
            return ApiError::from(store);
        }
        ApiError {
            field: error.field().map(String::from),
            ..ApiError::new(code, error)
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        let code = match &error {
            StoreError::NoProfile { .. } => ErrorCode::NotFound,
            StoreError::ProfileExists { .. } => ErrorCode::Exists,
            StoreError::Unparseable { .. } | StoreError::Parse(_) => ErrorCode::BrokenFile,
            StoreError::Io { .. } => ErrorCode::Io,
            _ => ErrorCode::Invalid,
        };
        ApiError::new(code, error.to_string())
    }
}

impl From<sieve_store::secrets::SecretError> for ApiError {
    /// The secret store could not be opened, read or written.
    fn from(error: sieve_store::secrets::SecretError) -> ApiError {
        ApiError::new(ErrorCode::Io, error)
    }
}

impl From<sieve_ledger::LedgerError> for ApiError {
    fn from(error: sieve_ledger::LedgerError) -> ApiError {
        ApiError::new(ErrorCode::Io, error.to_string())
    }
}

impl From<CallError> for ApiError {
    /// A call, retry or cancel that did not go through, by whose doing it
    /// was: our rules and the caller's request are `invalid` (an entry or
    /// tool that is not there, `not_found`), the server's error is
    /// `upstream`, the ledger's `io`.
    fn from(error: CallError) -> ApiError {
        let code = match (&error, error.origin()) {
            (CallError::NoTask { .. } | CallError::NoTool { .. }, _) => ErrorCode::NotFound,
            (_, Origin::Rules | Origin::Host) => ErrorCode::Invalid,
            (_, Origin::Upstream) => ErrorCode::Upstream,
            // The ledger, and any origin added later.
            (_, _) => ErrorCode::Io,
        };
        ApiError::new(code, error)
    }
}

/// The task ledger (tasks and audit) of `store`'s state: the team's
/// database under `--state`, else this machine's `tasks.db`.
fn ledger(store: &Store) -> Result<sieve_ledger::Ledger> {
    let ledger =
        sieve_ledger::Ledger::of_state(&store.home().tasks_db(), store.backend().database())?;
    Ok(ledger)
}

/// Results of the API.
pub type Result<T, E = ApiError> = std::result::Result<T, E>;
