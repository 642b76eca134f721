//! Each host's way of writing a server, to and from `config.json`'s (the
//! shape Claude Desktop made common: `command`, `args`, `env`, `cwd`, or
//! `"type": "http"`, `url`, `headers`).
//!
//! Reading ([`to_config`]) renames what a host names differently
//! (Windsurf's `serverUrl`, Gemini's `httpUrl`, opencode's command list,
//! Goose's `cmd`/`envs`/`uri`), turns "off" switches into `disabled`, and
//! says why an entry cannot be used (a built-in Goose extension, an SSE
//! server). Writing ([`from_config`]) does the reverse for MCP Sieve's own
//! entry.

use super::kind::HostKind;
use serde_json::{Map, Value, json};

/// Why a host's entry has no `config.json` equivalent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Untranslatable(pub String);

/// `raw`, an entry of `host`'s file, in `config.json`'s shape.
pub fn to_config(host: HostKind, raw: &Value) -> Result<Value, Untranslatable> {
    let Value::Object(raw) = raw else {
        return Err(Untranslatable("the entry is not an object".into()));
    };
    let mut entry = raw.clone();
    match host {
        HostKind::Windsurf => rename(&mut entry, "serverUrl", "url"),
        HostKind::Gemini | HostKind::Qwen => {
            if entry.contains_key("httpUrl") {
                rename(&mut entry, "httpUrl", "url");
                entry.insert("type".into(), json!("http"));
            } else if entry.contains_key("url") && host == HostKind::Qwen {
                // Qwen Code reads `url` as an SSE endpoint, whatever its
                // `type` says (docs/hosts-programs.md).
                entry.insert("type".into(), json!("sse"));
            } else if entry.contains_key("url") && !entry.contains_key("type") {
                // Gemini CLI 0.61 connects to a bare `url` as streamable
                // HTTP.
                entry.insert("type".into(), json!("http"));
            }
        }
        HostKind::Codex => {
            rename(&mut entry, "http_headers", "headers");
            if entry.contains_key("bearer_token_env_var") {
                return Err(Untranslatable(
                    "it takes its bearer token from an environment variable \
                     (bearer_token_env_var), which mcp-sieve does not read; add it to \
                     config.json with the Authorization header written out"
                        .into(),
                ));
            }
            if entry.contains_key("env_vars") {
                return Err(Untranslatable(
                    "it passes variables from Codex's own environment (env_vars), which \
                     mcp-sieve does not; add it to config.json with the values under \"env\""
                        .into(),
                ));
            }
            enabled_to_disabled(&mut entry);
        }
        HostKind::Opencode => opencode_to_config(&mut entry)?,
        HostKind::Zed => zed_to_config(&mut entry)?,
        HostKind::Continue => {
            if let Some(Value::Object(options)) = entry.remove("requestOptions")
                && let Some(headers) = options.get("headers")
            {
                entry.insert("headers".into(), headers.clone());
            }
        }
        HostKind::Goose => goose_to_config(&mut entry)?,
        _ => {}
    }
    Ok(Value::Object(entry))
}

/// `entry`, in `config.json`'s shape, as `host` writes it. The name is
/// the caller's: Continue's list items carry theirs, added by the file.
pub fn from_config(host: HostKind, name: &str, entry: &Value) -> Value {
    let Value::Object(entry) = entry else {
        return entry.clone();
    };
    let command = entry.get("command").cloned();
    let args = entry.get("args").cloned().unwrap_or(json!([]));
    let env = entry.get("env").cloned();
    let url = entry.get("url").cloned();
    let headers = entry.get("headers").cloned();
    let mut out = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            out.insert(key.to_string(), value);
        }
    };
    match (host, command) {
        (HostKind::Opencode, Some(command)) => {
            let mut words = vec![command];
            words.extend(args.as_array().cloned().unwrap_or_default());
            put("type", Some(json!("local")));
            put("command", Some(Value::Array(words)));
            put("environment", env);
            put("enabled", Some(json!(true)));
        }
        (HostKind::Opencode, None) => {
            put("type", Some(json!("remote")));
            put("url", url);
            put("headers", headers);
            put("enabled", Some(json!(true)));
        }
        (HostKind::Goose, command) => {
            let stdio = command.is_some();
            put("name", Some(json!(name)));
            put("enabled", Some(json!(true)));
            put("timeout", Some(json!(300)));
            if stdio {
                put("type", Some(json!("stdio")));
                put("cmd", command);
                put("args", Some(args));
                put("envs", Some(env.unwrap_or(json!({}))));
            } else {
                put("type", Some(json!("streamable_http")));
                put("uri", url);
                put("headers", headers);
            }
        }
        (_, Some(command)) => {
            let kind = match host {
                HostKind::ClaudeCode | HostKind::VsCode | HostKind::Cline => Some(json!("stdio")),
                HostKind::Continue => Some(json!("stdio")),
                _ => None,
            };
            put("type", kind);
            put("command", Some(command));
            put("args", Some(args));
            put("env", env);
        }
        (_, None) => {
            let (kind, url_key) = match host {
                HostKind::ClaudeCode | HostKind::VsCode => (Some("http"), "url"),
                HostKind::Cline => (Some("streamableHttp"), "url"),
                HostKind::Continue => (Some("streamable-http"), "url"),
                HostKind::Windsurf => (None, "serverUrl"),
                HostKind::Gemini | HostKind::Qwen => (None, "httpUrl"),
                _ => (None, "url"),
            };
            put("type", kind.map(|kind| json!(kind)));
            put(url_key, url);
            match host {
                HostKind::Codex => put("http_headers", headers),
                HostKind::Continue => put(
                    "requestOptions",
                    headers.map(|headers| json!({ "headers": headers })),
                ),
                _ => put("headers", headers),
            }
        }
    }
    Value::Object(out)
}

fn rename(entry: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(value) = entry.remove(from) {
        entry.insert(to.to_string(), value);
    }
}

/// `"enabled": false` (Codex, opencode, Goose) is `"disabled": true`.
fn enabled_to_disabled(entry: &mut Map<String, Value>) {
    if let Some(enabled) = entry.remove("enabled")
        && enabled == json!(false)
    {
        entry.insert("disabled".into(), json!(true));
    }
}

/// opencode: `{"type": "local", "command": ["npx", "-y", ..],
/// "environment": {..}}` or `{"type": "remote", "url", "headers"}`.
fn opencode_to_config(entry: &mut Map<String, Value>) -> Result<(), Untranslatable> {
    enabled_to_disabled(entry);
    entry.remove("timeout");
    match entry.remove("type").as_ref().and_then(Value::as_str) {
        Some("local") | None => {
            let Some(Value::Array(words)) = entry.remove("command") else {
                return Err(Untranslatable(
                    "a local opencode server needs \"command\" as a list of words".into(),
                ));
            };
            let mut words = words.into_iter();
            let program = words
                .next()
                .ok_or_else(|| Untranslatable("its \"command\" list is empty".into()))?;
            entry.insert("command".into(), program);
            entry.insert("args".into(), Value::Array(words.collect()));
            rename(entry, "environment", "env");
        }
        Some("remote") => {
            entry.insert("type".into(), json!("http"));
            entry.remove("oauth");
        }
        Some(other) => {
            return Err(Untranslatable(format!(
                "opencode server type {other:?} is neither \"local\" nor \"remote\""
            )));
        }
    }
    Ok(())
}

/// Zed: `{"command": "x", "args": [..], "env": {..}}`, the older
/// `{"command": {"path": "x", "args": [..], "env": {..}}}`, or
/// `{"url", "headers"}`; an extension's server is the extension's.
fn zed_to_config(entry: &mut Map<String, Value>) -> Result<(), Untranslatable> {
    if entry.get("source").and_then(Value::as_str) == Some("extension") {
        return Err(Untranslatable(
            "it is provided by a Zed extension, which starts it itself".into(),
        ));
    }
    entry.remove("source");
    entry.remove("settings");
    if let Some(Value::Object(command)) = entry.get("command").cloned() {
        entry.remove("command");
        for (key, value) in command {
            let key = if key == "path" {
                "command".to_string()
            } else {
                key
            };
            entry.insert(key, value);
        }
    }
    Ok(())
}

/// Goose: `{"type": "stdio", "cmd", "args", "envs"}` or
/// `{"type": "streamable_http", "uri", "headers"}`; its built-in
/// extensions are not servers anything else can start.
fn goose_to_config(entry: &mut Map<String, Value>) -> Result<(), Untranslatable> {
    enabled_to_disabled(entry);
    let kind = entry.remove("type");
    for key in [
        "name",
        "timeout",
        "bundled",
        "description",
        "env_keys",
        "available_tools",
    ] {
        entry.remove(key);
    }
    match kind.as_ref().and_then(Value::as_str) {
        Some("stdio") => {
            rename(entry, "cmd", "command");
            rename(entry, "envs", "env");
            if entry.get("env").is_some_and(|env| env == &json!({})) {
                entry.remove("env");
            }
        }
        Some("streamable_http") => {
            rename(entry, "uri", "url");
            entry.insert("type".into(), json!("http"));
            entry.remove("envs");
        }
        Some("sse") => {
            entry.insert("type".into(), json!("sse"));
        }
        Some(other) => {
            return Err(Untranslatable(format!(
                "it is a Goose {other} extension, not an MCP server another program can start"
            )));
        }
        None => return Err(Untranslatable("it has no \"type\"".into())),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio() -> Value {
        json!({"command": "/opt/mcp-sieve", "args": ["serve", "--profile", "work"]})
    }

    fn http() -> Value {
        json!({"type": "http", "url": "http://127.0.0.1:8765/mcp/p/work",
               "headers": {"Authorization": "Bearer t0ken"}})
    }

    /// What a config.json entry comes back as after a round trip through
    /// the host's shape (the `type` config.json leaves out for stdio).
    fn round_trip(host: HostKind, entry: &Value) -> Value {
        let written = from_config(host, "sieve", entry);
        let mut back = to_config(host, &written).unwrap();
        let back_map = back.as_object_mut().unwrap();
        if back_map.get("type") == Some(&json!("stdio")) {
            back_map.remove("type");
        }
        for kind in ["streamableHttp", "streamable-http"] {
            if back_map.get("type") == Some(&json!(kind)) {
                back_map.insert("type".into(), json!("http"));
            }
        }
        if !back_map.contains_key("type") && back_map.contains_key("url") {
            back_map.insert("type".into(), json!("http"));
        }
        back
    }

    #[test]
    fn every_host_reads_back_what_it_writes() {
        for host in HostKind::ALL {
            assert_eq!(round_trip(host, &stdio()), stdio(), "{host} stdio");
            if host.takes_http() {
                assert_eq!(round_trip(host, &http()), http(), "{host} http");
            }
        }
    }

    #[test]
    fn hosts_write_their_own_words() {
        assert_eq!(
            from_config(HostKind::Windsurf, "s", &http())["serverUrl"],
            json!("http://127.0.0.1:8765/mcp/p/work")
        );
        assert!(
            from_config(HostKind::Gemini, "s", &http())
                .get("httpUrl")
                .is_some()
        );
        assert_eq!(
            from_config(HostKind::Codex, "s", &http())["http_headers"]["Authorization"],
            json!("Bearer t0ken")
        );
        assert_eq!(
            from_config(HostKind::Opencode, "s", &stdio()),
            json!({"type": "local", "command": ["/opt/mcp-sieve", "serve", "--profile", "work"], "enabled": true})
        );
        assert_eq!(
            from_config(HostKind::Goose, "sieve", &stdio()),
            json!({"name": "sieve", "enabled": true, "timeout": 300, "type": "stdio",
                   "cmd": "/opt/mcp-sieve", "args": ["serve", "--profile", "work"], "envs": {}})
        );
        assert_eq!(
            from_config(HostKind::Cline, "s", &http())["type"],
            json!("streamableHttp")
        );
        assert_eq!(
            from_config(HostKind::Continue, "s", &http())["requestOptions"]["headers"],
            json!({"Authorization": "Bearer t0ken"})
        );
    }

    #[test]
    fn what_cannot_be_started_elsewhere_says_why() {
        let builtin = json!({"type": "builtin", "name": "developer", "enabled": true});
        let why = to_config(HostKind::Goose, &builtin).unwrap_err().0;
        assert!(why.contains("Goose builtin extension"), "{why}");
        let extension = json!({"source": "extension", "settings": {}});
        assert!(to_config(HostKind::Zed, &extension).is_err());
        let codex = json!({"url": "https://x.test/mcp", "bearer_token_env_var": "TOKEN"});
        assert!(
            to_config(HostKind::Codex, &codex)
                .unwrap_err()
                .0
                .contains("bearer_token_env_var")
        );
        assert_eq!(
            to_config(HostKind::Qwen, &json!({"url": "https://x.test/sse"})).unwrap()["type"],
            json!("sse")
        );
        assert_eq!(
            to_config(HostKind::Gemini, &json!({"url": "https://x.test/mcp"})).unwrap()["type"],
            json!("http")
        );
    }

    #[test]
    fn off_switches_become_disabled() {
        let codex = json!({"command": "x", "enabled": false});
        assert_eq!(
            to_config(HostKind::Codex, &codex).unwrap(),
            json!({"command": "x", "disabled": true})
        );
        let opencode = json!({"type": "local", "command": ["x", "a"], "enabled": true});
        assert_eq!(
            to_config(HostKind::Opencode, &opencode).unwrap(),
            json!({"command": "x", "args": ["a"]})
        );
        let zed_old = json!({"command": {"path": "x", "args": ["a"], "env": {}}, "settings": {}});
        assert_eq!(
            to_config(HostKind::Zed, &zed_old).unwrap(),
            json!({"command": "x", "args": ["a"], "env": {}})
        );
    }
}
