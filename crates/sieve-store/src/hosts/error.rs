//! What can go wrong with a host's file or MCP Sieve's entry in it.

use crate::store::StoreError;
use std::path::PathBuf;

/// What can go wrong with a host's entry or file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostFileError {
    /// The stdio entry names `mcp-sieve` by a relative path.
    #[error(
        "{} is not an absolute path; hosts start servers from their own folder, so give the full path of mcp-sieve",
        command.display()
    )]
    NotAbsolute { command: PathBuf },
    /// An HTTP entry for a host that reads only stdio entries.
    #[error(
        "{host} starts its local servers itself and does not read HTTP entries from its config file; use the stdio entry"
    )]
    StdioOnly { host: &'static str },
    #[error("cannot find your home folder; name the host's file")]
    NoHome,
    #[error("cannot read {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// The host's file does not parse, or not as the host's; it is left
    /// as it is.
    #[error(
        "{} does not parse ({reason}), so it was left as it is; fix it in {host}, then try again",
        path.display()
    )]
    Broken {
        path: PathBuf,
        reason: String,
        host: &'static str,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl HostFileError {
    /// The field of the caller's request at fault, where one is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            HostFileError::NotAbsolute { .. } => Some("command"),
            HostFileError::StdioOnly { .. } => Some("transport"),
            _ => None,
        }
    }
}
