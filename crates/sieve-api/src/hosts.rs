//! Connecting a host: the exact entry Claude Desktop, Cursor or VS Code
//! needs to reach MCP Sieve, and a writer that puts it into the host's file
//! (`sieve_store::hosts`, where the hosts' files are kept), failing with an
//! [`ApiError`](crate::ApiError) like every API function.

use crate::Result;
use serde_json::Value;
pub use sieve_store::hosts::{Connection, ENTRY, HostKind, HostWrite, profile_url};
use std::path::{Path, PathBuf};

/// MCP Sieve's entry for `host`, as it goes under the server list.
pub fn entry(host: HostKind, connection: &Connection) -> Result<Value> {
    Ok(sieve_store::hosts::entry(host, connection)?)
}

/// The snippet a person pastes into `host`'s file: the server list with
/// MCP Sieve's entry in it.
pub fn snippet(host: HostKind, connection: &Connection) -> Result<Value> {
    Ok(sieve_store::hosts::snippet(host, connection)?)
}

/// Where `host` keeps its config file for this user.
pub fn default_path(host: HostKind) -> Result<PathBuf> {
    Ok(sieve_store::hosts::default_path(host)?)
}

/// Puts MCP Sieve's entry into `host`'s file at `path` (made when
/// missing), replacing an older `sieve` entry and keeping everything else.
pub fn write(host: HostKind, path: &Path, connection: &Connection) -> Result<HostWrite> {
    Ok(sieve_store::hosts::write(host, path, connection)?)
}
