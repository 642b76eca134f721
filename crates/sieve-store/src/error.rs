//! What can go wrong with the user's documents, said for a person.

use sieve_core::{OverlayError, ParseError, RulesError};
use std::io;
use std::path::{Path, PathBuf};

/// What can go wrong with the user's files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The io error's own words ("Permission denied") end the sentence.
    /// (`cause` is not the error's `source`: the sentence holds it
    /// already, and a chain printed whole would say it twice.)
    #[error("cannot {action} {path}: {cause}")]
    Io {
        action: &'static str,
        path: PathBuf,
        cause: io::Error,
    },
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(
        "{path} does not parse, so it was left as it is ({error}); fix or delete it, then try again"
    )]
    Unparseable { path: PathBuf, error: ParseError },
    /// A change that would leave a file that does not load (checked before
    /// anything is written).
    #[error("{error}")]
    Invalid { error: ParseError },
    /// A file that parses but whose glob patterns are too large to
    /// compile (globset's size limits): `subject` names it for a person.
    #[error(
        "{subject} ({path}): its patterns could not be compiled: {error}; simplify the patterns"
    )]
    Uncompilable {
        subject: String,
        path: PathBuf,
        error: Uncompilable,
    },
    #[error("there is no profile {name:?}; `mcp-sieve profiles list` shows the profiles there are")]
    NoProfile { name: String },
    #[error("profile {name:?} exists already; pick another name or delete it first")]
    ProfileExists { name: String },
    #[error(
        "{name:?} cannot name a profile: use 1-64 letters, digits, '-' or '_', not starting with '-'"
    )]
    BadProfileName { name: String },
    #[error("the default profile cannot be deleted; edit it instead")]
    DefaultProfile,
    #[error("the default profile keeps its name; clone it to make one with another name")]
    DefaultProfileName,
    #[error(
        "profile {name:?} is the active one (hosts that name no profile get it); make another profile active first"
    )]
    ActiveProfile { name: String },
    /// The team's database could not be read or written.
    #[error(transparent)]
    Database(sieve_postgres::DbError),
    #[error(
        "{url} is not a state MCP Sieve can keep: give a PostgreSQL address, postgres://USER:PASSWORD@HOST:PORT/DATABASE, or none for this machine's files"
    )]
    BadState { url: String },
}

/// Patterns of a file that parse but cannot be compiled together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Uncompilable {
    /// The overlays of `config.json`.
    #[error(transparent)]
    Overlays(#[from] OverlayError),
    /// A profile's globs or tag expression.
    #[error(transparent)]
    Profile(#[from] RulesError),
}

pub(crate) fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> StoreError + 'a {
    move |cause| StoreError::Io {
        action,
        path: path.to_path_buf(),
        cause,
    }
}
