//! Which hosts a person has, and which of them already go through MCP
//! Sieve: `absent` (no file, no folder, no program), `installed`, or
//! `routed` (its file holds MCP Sieve's entry), with the profile it gets.

use super::entry::{ENTRY, sieve_profile};
use super::file::HostFile;
use super::kind::{HostDirs, HostKind};
use serde::Serialize;
use std::path::PathBuf;

/// Where a host stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum HostState {
    /// Nothing of it on this machine.
    Absent,
    /// Its file, folder or program is here, without MCP Sieve's entry.
    Installed,
    /// Its file has MCP Sieve's entry.
    Routed,
}

/// A host as found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostStatus {
    pub host: HostKind,
    /// The name a person knows it by.
    pub title: &'static str,
    pub state: HostState,
    /// Its user-wide file (which may not exist yet).
    pub path: PathBuf,
    /// The profile MCP Sieve's entry serves, when routed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// `stdio` or `http`, when routed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<&'static str>,
    /// The other servers in its file.
    pub servers: Vec<String>,
    /// Whether it reads HTTP entries (all but Claude Desktop).
    pub takes_http: bool,
    /// Why its file could not be read, when it could not; it is then
    /// left alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Where `host` stands on the machine `dirs` describes.
pub fn detect(host: HostKind, dirs: &HostDirs) -> HostStatus {
    let path = host.user_path(dirs);
    let mut status = HostStatus {
        host,
        title: host.title(),
        state: HostState::Absent,
        path: path.clone(),
        profile: None,
        transport: None,
        servers: Vec::new(),
        takes_http: host.takes_http(),
        problem: None,
    };
    let present = path.is_file()
        || host.folder(dirs).is_dir()
        || host.program().is_some_and(|program| dirs.on_path(program));
    if !present {
        return status;
    }
    status.state = HostState::Installed;
    let servers = HostFile::open(host, &path).and_then(|file| file.servers());
    match servers {
        Ok(servers) => {
            for (name, entry) in servers {
                if name == ENTRY
                    && let Some(profile) = sieve_profile(host, &entry)
                {
                    status.state = HostState::Routed;
                    status.profile = Some(profile);
                    status.transport = Some(
                        if super::shape::to_config(host, &entry)
                            .is_ok_and(|entry| entry.get("url").is_some())
                        {
                            "http"
                        } else {
                            "stdio"
                        },
                    );
                } else {
                    status.servers.push(name);
                }
            }
        }
        Err(error) => status.problem = Some(error.to_string()),
    }
    status
}

/// Every host, in the order a person is offered them.
pub fn detect_all(dirs: &HostDirs) -> Vec<HostStatus> {
    HostKind::ALL
        .into_iter()
        .map(|host| detect(host, dirs))
        .collect()
}
