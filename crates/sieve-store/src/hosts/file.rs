//! A host's config file on disk: read once, its servers listed, changed in
//! place, and written back atomically with a `.bak` only when its text
//! changed. A file that does not parse is never written.

use super::document::{Document, Format, SyntaxError};
use super::error::HostFileError;
use super::kind::HostKind;
use crate::store::{atomic_write, backup_path};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Parses `text` as a host file in `format`. An empty file (or one of
/// only whitespace and comments) is an empty document.
pub fn parse_document(format: Format, text: &str) -> Result<Box<dyn Document>, SyntaxError> {
    match format {
        Format::Json => Ok(Box::new(super::jsonc::JsonFile::parse(text)?)),
        Format::Toml => Ok(Box::new(super::toml::TomlFile::parse(text)?)),
        Format::Yaml => Ok(Box::new(super::yaml::YamlFile::parse(text)?)),
    }
}

/// A host's file, parsed.
pub struct HostFile {
    host: HostKind,
    path: PathBuf,
    /// The text as read; `None` when there was no file.
    original: Option<String>,
    document: Box<dyn Document>,
}

/// What writing a host's file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostWrite {
    pub path: PathBuf,
    /// The previous file, when there was one and it changed.
    pub backup: Option<PathBuf>,
    /// False when the file already said exactly this.
    pub changed: bool,
}

impl HostFile {
    /// Reads `host`'s file at `path`; a missing file is an empty one.
    pub fn open(host: HostKind, path: &Path) -> Result<HostFile, HostFileError> {
        let original = match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(cause) => {
                return Err(HostFileError::Read {
                    path: path.to_path_buf(),
                    cause,
                });
            }
        };
        let document =
            parse_document(host.format(), original.as_deref().unwrap_or("")).map_err(|error| {
                HostFileError::Broken {
                    path: path.to_path_buf(),
                    reason: format!("{} at {error}", host.format().title()),
                    host: host.title(),
                }
            })?;
        Ok(HostFile {
            host,
            path: path.to_path_buf(),
            original,
            document,
        })
    }

    pub fn host(&self) -> HostKind {
        self.host
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file is there.
    pub fn exists(&self) -> bool {
        self.original.is_some()
    }

    fn broken(&self, reason: String) -> HostFileError {
        HostFileError::Broken {
            path: self.path.clone(),
            reason,
            host: self.host.title(),
        }
    }

    /// The servers the host has, in the file's order, as the file writes
    /// them: from the first of the host's lists that is in the file.
    pub fn servers(&self) -> Result<Vec<(String, Value)>, HostFileError> {
        for list in self.host.server_lists() {
            let found = self
                .document
                .servers(*list)
                .map_err(|error| self.broken(error.0))?;
            if let Some(servers) = found {
                return Ok(servers);
            }
        }
        Ok(Vec::new())
    }

    /// The server called `name`, as the file writes it.
    pub fn server(&self, name: &str) -> Result<Option<Value>, HostFileError> {
        Ok(self
            .servers()?
            .into_iter()
            .find_map(|(found, value)| (found == name).then_some(value)))
    }

    /// Makes server `name` be `entry` (in the host's own shape), where the
    /// host keeps its servers.
    pub fn set(&mut self, name: &str, entry: &Value) -> Result<(), HostFileError> {
        let list = self.host.server_lists()[0];
        self.document
            .set(list, name, entry)
            .map_err(|error| self.broken(error.0))
    }

    /// Takes server `name` out of every list the host reads; whether it
    /// was there.
    pub fn remove(&mut self, name: &str) -> Result<bool, HostFileError> {
        let mut removed = false;
        for list in self.host.server_lists() {
            removed |= self
                .document
                .remove(*list, name)
                .map_err(|error| self.broken(error.0))?;
        }
        Ok(removed)
    }

    /// The file's text as it would be written now.
    pub fn text(&self) -> String {
        let mut text = self.document.render();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// Writes the file when its text changed, keeping the old one as
    /// `.bak`. A link (dotfiles kept in a repository) stays a link: the
    /// file it points to is written.
    pub fn save(&self) -> Result<HostWrite, HostFileError> {
        let text = self.text();
        if self.original.as_deref() == Some(text.as_str())
            || (self.original.is_none() && text.trim().is_empty())
        {
            return Ok(HostWrite {
                path: self.path.clone(),
                backup: None,
                changed: false,
            });
        }
        let target = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        atomic_write(&target, text.as_bytes())?;
        Ok(HostWrite {
            path: self.path.clone(),
            backup: self.original.as_ref().map(|_| backup_path(&target)),
            changed: true,
        })
    }
}
