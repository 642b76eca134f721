//! MCP Sieve's own entry in a host's file: how the host reaches it (stdio
//! or HTTP), the entry in the host's shape, the snippet a person pastes,
//! and the writer that puts it into the host's file.

use super::error::HostFileError;
use super::file::{HostFile, HostWrite, parse_document};
use super::kind::{HostDirs, HostKind};
use super::shape;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

type Result<T, E = HostFileError> = std::result::Result<T, E>;

/// The name of MCP Sieve's entry in a host's server list.
pub const ENTRY: &str = "sieve";

/// How a host reaches MCP Sieve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "camelCase")]
pub enum Connection {
    /// The host starts `COMMAND [--home HOME] serve --profile PROFILE`.
    Stdio {
        /// The absolute path of `mcp-sieve`.
        command: PathBuf,
        profile: String,
        /// Set when the user's files are not in the platform's folders,
        /// so the host's proxy reads the same ones.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        home: Option<PathBuf>,
    },
    /// The host connects to a running HTTP proxy with its bearer token.
    Http { url: String, token: String },
}

impl Connection {
    /// The profile the host gets: the stdio entry's, or the last part of
    /// an HTTP URL ending in `/p/NAME`.
    pub fn profile(&self) -> Option<&str> {
        match self {
            Connection::Stdio { profile, .. } => Some(profile),
            Connection::Http { url, .. } => profile_in_url(url),
        }
    }
}

/// The endpoint of `profile` on an HTTP proxy whose base endpoint is
/// `base` (`http://127.0.0.1:8765/mcp`): always `/mcp/p/NAME`, since `/mcp`
/// serves whichever profile is active and a host's entry names its own.
pub fn profile_url(base: &str, profile: &str) -> String {
    format!("{}/p/{profile}", base.trim_end_matches('/'))
}

/// The profile an HTTP endpoint ending in `/p/NAME` serves.
pub fn profile_in_url(url: &str) -> Option<&str> {
    let (_, profile) = url.trim_end_matches('/').rsplit_once("/p/")?;
    (!profile.is_empty() && !profile.contains('/')).then_some(profile)
}

/// MCP Sieve's entry in `config.json`'s shape.
fn neutral(host: HostKind, connection: &Connection) -> Result<Value> {
    match connection {
        Connection::Stdio {
            command,
            profile,
            home,
        } => {
            if !command.is_absolute() {
                return Err(HostFileError::NotAbsolute {
                    command: command.clone(),
                });
            }
            let mut args = Vec::new();
            if let Some(home) = home {
                args.extend([json!("--home"), json!(home)]);
            }
            args.extend([json!("serve"), json!("--profile"), json!(profile)]);
            Ok(json!({"command": command, "args": args}))
        }
        Connection::Http { url, token } => {
            if !host.takes_http() {
                return Err(HostFileError::StdioOnly { host: host.title() });
            }
            Ok(json!({"type": "http", "url": url,
                      "headers": {"Authorization": format!("Bearer {token}")}}))
        }
    }
}

/// MCP Sieve's entry for `host`, in the host's shape.
pub fn entry(host: HostKind, connection: &Connection) -> Result<Value> {
    Ok(shape::from_config(host, ENTRY, &neutral(host, connection)?))
}

/// The snippet a person pastes into `host`'s file, in its format: the
/// server list with MCP Sieve's entry in it.
pub fn snippet(host: HostKind, connection: &Connection) -> Result<String> {
    let entry = entry(host, connection)?;
    let mut document = parse_document(host.format(), "").expect("an empty file parses");
    document
        .set(host.server_lists()[0], ENTRY, &entry)
        .expect("an empty file takes a list");
    Ok(document.render())
}

/// Where `host` keeps its user-wide config file.
pub fn default_path(host: HostKind) -> Result<PathBuf> {
    let dirs = HostDirs::current().ok_or(HostFileError::NoHome)?;
    Ok(host.user_path(&dirs))
}

/// Puts MCP Sieve's entry into `host`'s file at `path` (made when
/// missing), replacing an older `sieve` entry and keeping everything else.
pub fn write(host: HostKind, path: &Path, connection: &Connection) -> Result<HostWrite> {
    let wanted = entry(host, connection)?;
    let mut file = HostFile::open(host, path)?;
    if file.server(ENTRY)?.as_ref() != Some(&wanted) {
        file.set(ENTRY, &wanted)?;
    }
    file.save()
}

/// Whether `entry` (in `host`'s shape) is MCP Sieve's, and the profile it
/// serves: a stdio entry running `mcp-sieve ... serve [--profile NAME]`
/// (`default` without one), or an HTTP one ending in `/p/NAME`.
pub fn sieve_profile(host: HostKind, entry: &Value) -> Option<String> {
    let entry = shape::to_config(host, entry).ok()?;
    if let Some(url) = entry.get("url").and_then(Value::as_str) {
        return profile_in_url(url).map(str::to_string);
    }
    let command = entry.get("command")?.as_str()?;
    let args: Vec<String> = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|args| {
            args.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    serves_sieve(command, &args)
}

/// The profile a command line `mcp-sieve [--home DIR] [--state URL] serve
/// [--profile NAME]` serves (`default` without `--profile`), when that is
/// what `command` and `args` run: the program itself, or an argument of
/// a launcher (`npx -y mcp-sieve@1.2`, `cargo run --bin mcp-sieve --`).
/// The program is recognised by its name, `mcp-sieve` or `mcp-sieve-*`
/// (a renamed build), written with `/` or `\\` (a file from another
/// machine), with or without `.exe`; it must be told to `serve`, so
/// `mcp-sieve demo-server` is a server like any other.
pub fn serves_sieve(command: &str, args: &[String]) -> Option<String> {
    let words: Vec<&str> = std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .collect();
    let at = words.iter().position(|word| {
        let file = word.rsplit(['/', '\\']).next().unwrap_or(word);
        let file = file.to_ascii_lowercase();
        let file = file.strip_suffix(".exe").unwrap_or(&file);
        let package = file.split('@').next().unwrap_or(file);
        package == "mcp-sieve" || package.starts_with("mcp-sieve-")
    })?;
    let mut rest = words[at + 1..].iter();
    // Global options before the command.
    loop {
        match rest.next()? {
            &"--home" | &"--state" => {
                rest.next()?;
            }
            option if option.starts_with("--home=") || option.starts_with("--state=") => {}
            &"serve" => break,
            _ => return None,
        }
    }
    let rest: Vec<&str> = rest.copied().collect();
    let named = rest.iter().enumerate().find_map(|(at, arg)| match *arg {
        "--profile" | "-p" => rest.get(at + 1).copied(),
        _ => arg.strip_prefix("--profile="),
    });
    Some(named.unwrap_or("default").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> (String, Vec<String>) {
        let mut words = line.split(' ').map(String::from);
        (words.next().unwrap(), words.collect())
    }

    #[test]
    fn mcp_sieve_serving_is_recognised_however_it_is_started() {
        for (line, profile) in [
            ("/usr/bin/mcp-sieve serve", Some("default")),
            (
                "/opt/mcp-sieve --home /h serve --profile work",
                Some("work"),
            ),
            (
                "C:\\Tools\\MCP-SIEVE.EXE --state=postgres://x serve -p ops",
                Some("ops"),
            ),
            (
                "/t/debug/mcp-sieve-under-test --home /h serve --profile=codex",
                Some("codex"),
            ),
            ("npx -y mcp-sieve@1.2.0 serve --profile p", Some("p")),
            ("/usr/bin/mcp-sieve demo-server", None),
            ("/usr/bin/mcp-sieve serve-other", None),
            ("/usr/bin/node server.js serve --profile x", None),
            ("/usr/bin/mcp-sieved serve", None),
        ] {
            let (command, args) = words(line);
            assert_eq!(serves_sieve(&command, &args).as_deref(), profile, "{line}");
        }
    }
}
