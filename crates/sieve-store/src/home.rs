//! Where a user's files live.
//!
//! `--home DIR` (or `MCP_SIEVE_HOME=DIR`) puts everything under DIR, which
//! is what tests use. Otherwise the platform's folders from `directories`:
//! config (`config.json`, `profiles/`, the HTTP token) and data
//! (`tasks.db`).

use anyhow::{Context, Result};
use directories::ProjectDirs;
use std::path::{Path, PathBuf};

/// The folders of one user's MCP Sieve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    config_dir: PathBuf,
    data_dir: PathBuf,
    /// The one folder, when the user named it.
    explicit: Option<PathBuf>,
}

impl Home {
    /// `explicit` (from `--home` or `MCP_SIEVE_HOME`), else the platform's
    /// folders.
    pub fn resolve(explicit: Option<&Path>) -> Result<Home> {
        if let Some(dir) = explicit {
            return Ok(Home::at(dir));
        }
        let dirs = ProjectDirs::from("dev", "mcp-sieve", "mcp-sieve")
            .context("cannot find your home folder; set MCP_SIEVE_HOME or pass --home DIR")?;
        Ok(Home {
            config_dir: dirs.config_dir().to_path_buf(),
            data_dir: dirs.data_dir().to_path_buf(),
            explicit: None,
        })
    }

    /// Everything under one folder.
    pub fn at(dir: &Path) -> Home {
        Home {
            config_dir: dir.to_path_buf(),
            data_dir: dir.to_path_buf(),
            explicit: Some(std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())),
        }
    }

    /// The folder given with `--home` or `MCP_SIEVE_HOME`, made absolute;
    /// `None` for the platform's folders. Another process started for the
    /// same user (a host's `mcp-sieve serve`) must be given it too.
    pub fn explicit(&self) -> Option<&Path> {
        self.explicit.as_deref()
    }

    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// `config.json`.
    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.json")
    }

    /// `approvals.json`: the tool definitions the user approved.
    pub fn approvals_file(&self) -> PathBuf {
        self.config_dir.join("approvals.json")
    }

    /// `hosts.json`: the hosts routed through MCP Sieve and the servers
    /// each had, so unrouting can give them back.
    pub fn hosts_file(&self) -> PathBuf {
        self.config_dir.join("hosts.json")
    }

    /// The folder of profile files.
    pub fn profiles_dir(&self) -> PathBuf {
        self.config_dir.join("profiles")
    }

    /// `profiles/<name>.json`.
    pub fn profile_file(&self, name: &str) -> PathBuf {
        self.profiles_dir().join(format!("{name}.json"))
    }

    /// The task ledger.
    pub fn tasks_db(&self) -> PathBuf {
        self.data_dir.join("tasks.db")
    }

    /// The sentence vectors of the tools the search has read (a cache,
    /// shared by every proxy of the machine).
    pub fn sentence_vectors_file(&self) -> PathBuf {
        self.data_dir.join("sentence-vectors.bin")
    }

    /// The bearer token of the HTTP endpoint.
    pub fn token_file(&self) -> PathBuf {
        self.config_dir.join("http-token")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_home_holds_everything() {
        let home = Home::resolve(Some(Path::new("/tmp/h"))).unwrap();
        assert_eq!(home.config_file(), Path::new("/tmp/h/config.json"));
        assert_eq!(
            home.profile_file("work"),
            Path::new("/tmp/h/profiles/work.json")
        );
        assert_eq!(home.tasks_db(), Path::new("/tmp/h/tasks.db"));
    }

    #[test]
    fn platform_home_uses_project_dirs() {
        let home = Home::resolve(None).unwrap();
        assert!(home.config_dir().ends_with("mcp-sieve"), "{home:?}");
    }
}
