//! A host's config file as a document whose server list can be read and
//! changed while everything else in it (comments, order, formatting, other
//! settings) stays as the user left it.
//!
//! Hosts keep their servers in three formats (JSON with or without
//! comments, TOML, YAML) and two shapes: an object of servers by name
//! (`mcpServers`, `[mcp_servers.NAME]`, Goose's `extensions`) or a list of
//! servers that each carry their name (Continue's `mcpServers`). A
//! [`Document`] hides both: entries go in and come out as JSON values
//! whatever the file's format, so the per-host shapes are written once.

use serde_json::Value;

/// The syntax of a host's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON; comments and trailing commas are read too (VS Code, Zed and
    /// opencode allow them, and the others' files seldom have them).
    Json,
    Toml,
    Yaml,
}

impl Format {
    /// The format's name in messages.
    pub fn title(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Toml => "TOML",
            Format::Yaml => "YAML",
        }
    }
}

/// Where a host's file keeps its servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerList {
    /// An object (table, mapping) of servers by name, at this key path
    /// from the top of the file.
    Map(&'static [&'static str]),
    /// A list at this top-level key whose items name themselves under
    /// `name_field` (Continue's `mcpServers: [{name: .., ..}]`).
    List {
        key: &'static str,
        name_field: &'static str,
    },
}

impl ServerList {
    /// The list's place as the user would read it (`mcpServers`,
    /// `mcp.servers`).
    pub fn describe(self) -> String {
        match self {
            ServerList::Map(path) => path.join("."),
            ServerList::List { key, .. } => key.to_string(),
        }
    }
}

/// A file that is not valid in its format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct SyntaxError {
    /// 1-based.
    pub line: usize,
    /// 1-based.
    pub column: usize,
    pub message: String,
}

/// A file that parses but does not have the shape the host gives it
/// (`mcpServers` a string, the top a list): why, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// A host's file, parsed, whose server list can be changed in place.
pub trait Document {
    /// The servers at `list`, in the file's order, each as a JSON value
    /// (a list's items without their name field); `None` when the file
    /// has no list there.
    fn servers(&self, list: ServerList) -> Result<Option<Vec<(String, Value)>>, ShapeError>;

    /// Makes server `name` at `list` be `entry` (a JSON object): replaced
    /// where it stands, or added at the end, the list made when missing.
    fn set(&mut self, list: ServerList, name: &str, entry: &Value) -> Result<(), ShapeError>;

    /// Takes server `name` out of `list`; whether it was there.
    fn remove(&mut self, list: ServerList, name: &str) -> Result<bool, ShapeError>;

    /// The file's text, everything not changed as it was.
    fn render(&self) -> String;
}

/// What the formats' tests share.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Document, ServerList};

    /// The names of the servers at `list`, in order.
    pub(crate) fn names(file: &dyn Document, list: ServerList) -> Vec<String> {
        file.servers(list)
            .unwrap()
            .unwrap_or_default()
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    }

    /// The lines of `after` that are not in `before`, and those of
    /// `before` that are not in `after`, in order.
    pub(crate) fn changed_lines<'a>(
        before: &'a str,
        after: &'a str,
    ) -> (Vec<&'a str>, Vec<&'a str>) {
        let before_lines: Vec<_> = before.lines().collect();
        let after_lines: Vec<_> = after.lines().collect();
        (
            after_lines
                .iter()
                .filter(|line| !before_lines.contains(line))
                .copied()
                .collect(),
            before_lines
                .iter()
                .filter(|line| !after_lines.contains(line))
                .copied()
                .collect(),
        )
    }
}
