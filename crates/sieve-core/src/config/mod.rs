//! `config.json`: upstream servers, concern definitions, overlays, settings.
//!
//! `mcpServers` has the shape of Claude Desktop's file, so a user can paste
//! theirs. Everything is validated when the text is parsed: a config that
//! loads is one the proxy can act on.
//!
//! Layout: `server.rs` (how a server is reached, the roots it is told),
//! `oauth.rs` (the client a sign-in uses), `overlay.rs` (labels added by
//! glob); their types are re-exported here. This file holds the whole
//! document, its settings and the checks that need all of it.

mod audit;
mod identity;
mod oauth;
mod overlay;
mod server;

// Its home was this module, and callers still import it from here.
pub use crate::glob::{GlobError, compile_glob};
pub use audit::Audit;
pub use identity::{Identity, ProfileFor};
pub use oauth::{
    ClientMetadataUrlError, Grant, OAuthClient, OAuthClientError, SIGNING_ALGORITHMS,
    check_client_metadata_url,
};
pub use overlay::{Overlay, OverlayError, Overlays};
pub use server::{Origin, Root, Roots, RootsError, ServerConfig, ServerEntryError, Transport};

use crate::naming::{
    DEFAULT_PROFILE, DEFAULT_SEPARATOR, is_valid_profile_name, is_valid_separator,
};
use crate::parse::{ParseError, decode, error_at};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The whole `config.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    /// Upstream servers by name, in Claude Desktop's shape.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, ServerConfig>,
    /// The concerns a profile or host may set, with their values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub concerns: Vec<ConcernDef>,
    /// Labels the user adds to primitives by exposed-name glob.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlays: Vec<Overlay>,
    /// Groups the user renamed, old name to new (derived ones too); two
    /// renamed to one name are merged.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub group_renames: BTreeMap<String, String>,
    /// Everything else.
    #[serde(default, skip_serializing_if = "Settings::is_default")]
    pub settings: Settings,
}

/// A concern a profile or host can set, as in the concern proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConcernDef {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub values: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// The values are listed from the strictest: a chosen value keeps
    /// primitives at that level or a stricter one (`security: medium`
    /// keeps `high` and `medium`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ordered: bool,
}

/// The concern every tool has a value of from its annotations (DESIGN §3).
pub const SECURITY: &str = "security";

/// The concern of what calling a tool costs the person (DESIGN §3).
pub const COST: &str = "cost";

/// The concerns in force when `config.json` declares none: `security`
/// (high, medium, low) and `cost` (minimal, moderate, high), both ordered
/// from the strictest.
pub fn builtin_concerns() -> &'static [ConcernDef] {
    static BUILTIN: std::sync::LazyLock<Vec<ConcernDef>> = std::sync::LazyLock::new(|| {
        let def = |name: &str, description: &str, values: [&str; 3], default: &str| ConcernDef {
            name: name.to_string(),
            description: description.to_string(),
            values: values.map(String::from).to_vec(),
            default: Some(default.to_string()),
            ordered: true,
        };
        vec![
            def(
                SECURITY,
                "How safe a tool is to let a model call: read-only tools are high, tools that may destroy data low",
                ["high", "medium", "low"],
                "medium",
            ),
            def(
                COST,
                "What calling a tool costs",
                ["minimal", "moderate", "high"],
                "moderate",
            ),
        ]
    });
    &BUILTIN
}

/// A value a declared concern does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{value:?} is not a value of concern {name:?}; expected one of {}",
    values.join(", ")
)]
#[non_exhaustive]
pub struct ConcernValueError {
    /// The concern.
    pub name: String,
    /// The value given.
    pub value: String,
    /// The values the concern takes.
    pub values: Vec<String>,
}

/// Settings with defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Settings {
    /// Joins server and upstream name in exposed names.
    #[serde(
        default = "default_separator",
        skip_serializing_if = "is_default_separator"
    )]
    pub separator: String,
    /// Days the task ledger keeps finished entries.
    #[serde(
        default = "default_retention",
        skip_serializing_if = "is_default_retention"
    )]
    pub task_retention_days: u32,
    /// Seconds a `tools/call` may take before the proxy cancels it and
    /// records it as cut off (a task is not a call: it may run longer).
    #[serde(
        default = "default_call_timeout",
        skip_serializing_if = "is_default_call_timeout"
    )]
    pub call_timeout_seconds: u64,
    /// Milliseconds a host's first list (`tools/list` and the others) may
    /// wait for servers still starting for the first time; after that it
    /// gets what is up, and `list_changed` as the rest arrive. `0` never
    /// waits. `initialize` and calls never wait.
    #[serde(
        default = "default_startup_wait",
        skip_serializing_if = "is_default_startup_wait"
    )]
    pub startup_wait_ms: u64,
    /// The profile of hosts that name none: the HTTP endpoint `/mcp` (the
    /// app's and `mcp-sieve serve --http`'s) and `mcp-sieve serve` without
    /// `--profile`. Switching it reaches connected hosts live.
    #[serde(
        default = "default_active_profile",
        skip_serializing_if = "is_default_active_profile"
    )]
    pub active_profile: String,
    /// The desktop app: closing its window keeps it (and the proxy it
    /// runs for hosts) in the tray rather than quitting.
    #[serde(
        default = "default_close_to_tray",
        skip_serializing_if = "is_default_close_to_tray"
    )]
    pub close_to_tray: bool,
    /// The largest message the proxy takes from a host, in bytes: a
    /// stdio line or an HTTP body. A bigger one is refused with an error
    /// naming this setting rather than buffered.
    #[serde(
        default = "default_max_message_bytes",
        skip_serializing_if = "is_default_max_message_bytes"
    )]
    pub max_message_bytes: u64,
    /// Quarantine of new and changed tools (DESIGN §9): on unless turned
    /// off here.
    #[serde(default = "default_on", skip_serializing_if = "is_on")]
    pub quarantine: bool,
    /// Derived groups (DESIGN §3): each tool of a server that sends no
    /// categories of its own gets the group of the subject it acts on. On
    /// unless turned off here.
    #[serde(default = "default_on", skip_serializing_if = "is_on")]
    pub derive_groups: bool,
    /// A team's state (DESIGN §12): `postgres://USER:PASSWORD@HOST/DB`.
    /// Set in this machine's `config.json`, it points every command, the
    /// app and the proxy at the team's database, where config, profiles,
    /// approvals and the task ledger then live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The audit (DESIGN §12): every `tools/call` recorded beside the task
    /// ledger, kept for `taskRetentionDays`. Off unless turned on.
    #[serde(default, skip_serializing_if = "Audit::is_off")]
    pub audit: Audit,
    /// The team's identity provider (DESIGN §12): its people's access
    /// tokens are taken over HTTP beside the static token, and a claim of
    /// theirs chooses their profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    /// MCP registries (API v0.1) to browse and add servers from, by base
    /// URL; the first is searched unless another is named. Empty means the
    /// official one, [`crate::registry::OFFICIAL`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registries: Vec<String>,
}

fn default_on() -> bool {
    true
}

fn is_on(value: &bool) -> bool {
    *value
}

fn default_close_to_tray() -> bool {
    true
}

/// The smallest `settings.maxMessageBytes`: an `initialize` must fit.
pub const MIN_MESSAGE_BYTES: u64 = 4096;

fn default_max_message_bytes() -> u64 {
    16 * 1024 * 1024
}

fn is_default_max_message_bytes(value: &u64) -> bool {
    *value == default_max_message_bytes()
}

// What `config.json` does not say is not written back: only the settings a
// person changed appear in the file.
fn is_default_separator(value: &str) -> bool {
    value == DEFAULT_SEPARATOR
}

fn is_default_retention(value: &u32) -> bool {
    *value == default_retention()
}

fn is_default_call_timeout(value: &u64) -> bool {
    *value == default_call_timeout()
}

fn is_default_startup_wait(value: &u64) -> bool {
    *value == default_startup_wait()
}

fn is_default_active_profile(value: &str) -> bool {
    value == DEFAULT_PROFILE
}

fn is_default_close_to_tray(value: &bool) -> bool {
    *value == default_close_to_tray()
}

fn default_active_profile() -> String {
    DEFAULT_PROFILE.to_string()
}

fn default_call_timeout() -> u64 {
    600
}

/// Long enough for a local server (a cached `npx` package, a Python
/// script) to answer its handshake and lists, so a host that lists right
/// after connecting sees it; short enough not to be felt as a hang.
fn default_startup_wait() -> u64 {
    2000
}

/// The longest `settings.startupWaitMs`: a host waiting longer for its
/// first list may give up on the proxy.
pub const MAX_STARTUP_WAIT_MS: u64 = 60_000;

fn default_separator() -> String {
    DEFAULT_SEPARATOR.to_string()
}

fn default_retention() -> u32 {
    30
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            separator: default_separator(),
            task_retention_days: default_retention(),
            call_timeout_seconds: default_call_timeout(),
            startup_wait_ms: default_startup_wait(),
            active_profile: default_active_profile(),
            close_to_tray: default_close_to_tray(),
            max_message_bytes: default_max_message_bytes(),
            quarantine: default_on(),
            derive_groups: default_on(),
            state: None,
            audit: Audit::default(),
            identity: None,
            registries: Vec::new(),
        }
    }
}

impl Settings {
    fn is_default(&self) -> bool {
        *self == Settings::default()
    }
}

impl Config {
    /// Parses and validates `config.json` text read from `file`.
    pub fn parse(file: &str, text: &str) -> Result<Config, ParseError> {
        let config: Config = decode(file, text)?;
        config.validate(file, text)?;
        Ok(config)
    }

    /// The concerns in force: those `config.json` declares, or when it
    /// declares none, the built-in `security` and `cost`.
    pub fn concerns_in_force(&self) -> &[ConcernDef] {
        if self.concerns.is_empty() {
            builtin_concerns()
        } else {
            &self.concerns
        }
    }

    /// The concern in force called `name`, if there is one.
    pub fn concern(&self, name: &str) -> Option<&ConcernDef> {
        self.concerns_in_force().iter().find(|c| c.name == name)
    }

    /// Servers that are not disabled, by name.
    pub fn enabled_servers(&self) -> impl Iterator<Item = (&String, &ServerConfig)> {
        self.mcp_servers.iter().filter(|(_, s)| !s.disabled)
    }

    fn validate(&self, file: &str, text: &str) -> Result<(), ParseError> {
        let fail = |path: String, needle: &str, expected: String| {
            Err(error_at(file, text, &path, needle, expected))
        };
        // Numbers are located by their key: the first "0" in the file
        // could be anywhere.
        if self.settings.call_timeout_seconds == 0 {
            return fail(
                "settings.callTimeoutSeconds".into(),
                "callTimeoutSeconds",
                "must be at least 1 (seconds)".into(),
            );
        }
        if self.settings.startup_wait_ms > MAX_STARTUP_WAIT_MS {
            return fail(
                "settings.startupWaitMs".into(),
                "startupWaitMs",
                format!(
                    "must be at most {MAX_STARTUP_WAIT_MS} (milliseconds); 0 answers lists without waiting"
                ),
            );
        }
        if self.settings.max_message_bytes < MIN_MESSAGE_BYTES {
            return fail(
                "settings.maxMessageBytes".into(),
                "maxMessageBytes",
                format!("must be at least {MIN_MESSAGE_BYTES} (bytes)"),
            );
        }
        if !is_valid_separator(&self.settings.separator) {
            return fail(
                "settings.separator".into(),
                &self.settings.separator,
                format!(
                    "separator {:?} must be 1-4 of the characters A-Z a-z 0-9 _ . -",
                    self.settings.separator
                ),
            );
        }
        if !is_valid_profile_name(&self.settings.active_profile) {
            return fail(
                "settings.activeProfile".into(),
                &self.settings.active_profile,
                format!(
                    "{:?} cannot name a profile: use 1-64 of the characters A-Z a-z 0-9 _ -",
                    self.settings.active_profile
                ),
            );
        }
        if let Some((field, needle, expected)) =
            self.settings.identity.as_ref().and_then(Identity::problem)
        {
            return fail(format!("settings.identity.{field}"), &needle, expected);
        }
        for (from, to) in &self.group_renames {
            if from.trim().is_empty() || to.trim().is_empty() {
                return fail(
                    format!("groupRenames.{from}"),
                    "groupRenames",
                    "a group name is empty; give the old and the new name".into(),
                );
            }
        }
        for name in self.mcp_servers.keys() {
            if name.trim().is_empty() {
                return fail("mcpServers".into(), name, "a server name is empty".into());
            }
        }
        for (i, concern) in self.concerns.iter().enumerate() {
            let path = format!("concerns[{i}]");
            if concern.name.trim().is_empty() {
                return fail(path, &concern.name, "concern name is empty".into());
            }
            if self.concerns[..i].iter().any(|c| c.name == concern.name) {
                return fail(
                    path,
                    &concern.name,
                    format!("concern {:?} is declared twice", concern.name),
                );
            }
            if concern.values.is_empty() {
                return fail(
                    format!("{path}.values"),
                    &concern.name,
                    format!("concern {:?} has no values", concern.name),
                );
            }
            for (j, value) in concern.values.iter().enumerate() {
                if concern.values[..j].contains(value) {
                    return fail(
                        format!("{path}.values[{j}]"),
                        value,
                        format!("value {value:?} is listed twice"),
                    );
                }
            }
            if let Some(default) = &concern.default
                && !concern.values.contains(default)
            {
                return fail(
                    format!("{path}.default"),
                    default,
                    format!(
                        "default {default:?} is not one of the values {}",
                        concern.values.join(", ")
                    ),
                );
            }
        }
        for (i, overlay) in self.overlays.iter().enumerate() {
            if let Err(err) = compile_glob(&overlay.pattern) {
                return fail(
                    format!("overlays[{i}].match"),
                    &overlay.pattern,
                    err.to_string(),
                );
            }
            for (name, value) in &overlay.concerns {
                if let Err(expected) = self.check_concern_value(name, value) {
                    return fail(
                        format!("overlays[{i}].concerns.{name}"),
                        value,
                        expected.to_string(),
                    );
                }
            }
        }
        Ok(())
    }

    /// Checks that `value` is allowed for concern `name` when the concern
    /// is declared; undeclared concerns may carry any value.
    pub fn check_concern_value(&self, name: &str, value: &str) -> Result<(), ConcernValueError> {
        match self.concern(name) {
            Some(def) if !def.values.iter().any(|v| v == value) => Err(ConcernValueError {
                name: name.to_string(),
                value: value.to_string(),
                values: def.values.clone(),
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESIGN_EXAMPLE: &str = r#"{
      "mcpServers": {
        "github":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "secret-token"} },
        "everything": { "command": "node", "args": ["server-everything/dist/index.js", "stdio"] },
        "remote":     { "type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer secret-header"} }
      },
      "concerns": [
        { "name": "security", "description": "Security level required", "values": ["high", "medium", "low"], "default": "medium" },
        { "name": "cost",     "description": "Cost of running the tool", "values": ["minimal", "moderate", "high"], "default": "moderate" }
      ],
      "overlays": [
        { "match": "github__*delete*", "tags": ["destructive"], "concerns": {"security": "low"} },
        { "match": "github__*issue*",  "groups": ["issues"] }
      ]
    }"#;

    #[test]
    fn parses_the_design_example() {
        let config = Config::parse("config.json", DESIGN_EXAMPLE).expect("valid");
        assert_eq!(config.mcp_servers.len(), 3);
        assert!(matches!(
            &config.mcp_servers["remote"].transport,
            Transport::Http { url, .. } if url == "https://example.test/mcp"
        ));
        assert!(matches!(
            &config.mcp_servers["github"].transport,
            Transport::Stdio { command, env, .. } if command == "npx" && env.len() == 1
        ));
        assert_eq!(config.concern("cost").unwrap().values.len(), 3);
        assert_eq!(config.settings.separator, "__");
        let overlays = Overlays::new(&config.overlays).unwrap();
        let hits: Vec<_> = overlays.matching("github__delete_issue").collect();
        assert_eq!(hits.len(), 2, "both overlays match");
    }

    #[test]
    fn round_trips_in_claude_desktop_shape() {
        let config = Config::parse("config.json", DESIGN_EXAMPLE).unwrap();
        let text = serde_json::to_string_pretty(&config).unwrap();
        assert!(text.contains("\"type\": \"http\""), "{text}");
        assert!(!text.contains("\"type\": \"stdio\""), "{text}");
        assert_eq!(Config::parse("again", &text).unwrap(), config);
    }

    #[test]
    fn debug_output_hides_secrets() {
        let config = Config::parse("config.json", DESIGN_EXAMPLE).unwrap();
        let debug = format!("{config:?}");
        assert!(debug.contains("GITHUB_TOKEN"), "names are shown");
        assert!(!debug.contains("secret-token"), "{debug}");
        assert!(!debug.contains("secret-header"), "{debug}");
    }

    #[test]
    fn empty_document_is_an_empty_config() {
        let config = Config::parse("c", "{}").unwrap();
        assert!(config.mcp_servers.is_empty());
        assert_eq!(config.settings, Settings::default());
    }

    /// The error `config.json` text is refused with (also used by the tests
    /// of the parts of an entry).
    pub(super) fn error_of(text: &str) -> ParseError {
        Config::parse("config.json", text).expect_err("must be rejected")
    }

    #[test]
    fn unknown_top_level_keys_are_rejected() {
        let err = error_of(r#"{"overlay": []}"#);
        assert!(err.expected.contains("unknown field `overlay`"), "{err}");
        assert_eq!(err.line, 1);
    }

    #[test]
    fn concerns_are_validated() {
        let err = error_of(r#"{"concerns": [{"name": "s", "values": ["a"], "default": "b"}]}"#);
        assert_eq!(err.path, "concerns[0].default");
        assert!(err.expected.contains("not one of the values a"), "{err}");
        let err = error_of(
            r#"{"concerns": [{"name": "s", "values": ["a"]}, {"name": "s", "values": ["b"]}]}"#,
        );
        assert!(err.expected.contains("declared twice"), "{err}");
        let err = error_of(r#"{"concerns": [{"name": "s", "values": []}]}"#);
        assert!(err.expected.contains("no values"), "{err}");
    }

    #[test]
    fn overlays_are_validated_with_position() {
        let text = "{\n \"overlays\": [\n  {\"match\": \"a[\", \"tags\": [\"x\"]}\n ]\n}";
        let err = error_of(text);
        assert_eq!(err.path, "overlays[0].match");
        assert_eq!(err.line, 3);
        assert!(err.expected.contains("invalid glob \"a[\""), "{err}");
        let text = r#"{"concerns": [{"name": "security", "values": ["high"]}],
                      "overlays": [{"match": "*", "concerns": {"security": "ultra"}}]}"#;
        let err = error_of(text);
        assert_eq!(err.path, "overlays[0].concerns.security");
        assert!(err.expected.contains("expected one of high"), "{err}");
    }

    #[test]
    fn separator_is_validated() {
        let err = error_of(r#"{"settings": {"separator": "/"}}"#);
        assert_eq!(err.path, "settings.separator");
    }

    #[test]
    fn the_active_profile_must_be_a_profile_name() {
        let err = error_of(r#"{"settings": {"activeProfile": "../work"}}"#);
        assert_eq!(err.path, "settings.activeProfile");
        assert!(err.expected.contains("cannot name a profile"), "{err}");
        let config = Config::parse("config.json", r#"{"settings": {"activeProfile": "work"}}"#)
            .expect("a profile name is accepted");
        assert_eq!(config.settings.active_profile, "work");
        assert_eq!(Config::default().settings.active_profile, "default");
    }

    #[test]
    fn the_startup_wait_has_a_default_and_a_bound() {
        let wait = |text: &str| Config::parse("c", text).map(|c| c.settings.startup_wait_ms);
        assert_eq!(wait("{}").unwrap(), 2000);
        assert_eq!(wait(r#"{"settings": {"startupWaitMs": 0}}"#).unwrap(), 0);
        assert_eq!(
            wait(r#"{"settings": {"startupWaitMs": 60000}}"#).unwrap(),
            60_000
        );
        let err = error_of(r#"{"settings": {"startupWaitMs": 60001}}"#);
        assert_eq!(err.path, "settings.startupWaitMs", "{err}");
        assert!(err.expected.contains("at most 60000"), "{err}");
    }

    #[test]
    fn a_bad_identity_provider_is_named_by_its_field() {
        let err = error_of(
            r#"{"settings": {"identity": {"issuer": "http://login.example.com", "audience": "x"}}}"#,
        );
        assert_eq!(err.path, "settings.identity.issuer", "{err}");
        assert!(err.expected.contains("https://"), "{err}");
        assert_eq!(err.line, 1, "points at the issuer: {err}");
        let err = error_of(r#"{"settings": {"identity": {"issuer": "https://a.example"}}}"#);
        assert!(err.to_string().contains("audience"), "{err}");
        let ok = Config::parse(
            "c",
            r#"{"settings": {"identity": {"issuer": "https://a.example", "audience": "https://s.example/mcp", "claim": "groups", "profiles": {"eng": "eng"}}}}"#,
        )
        .expect("a good identity parses");
        let identity = ok.settings.identity.expect("identity");
        assert_eq!(identity.profiles["eng"], "eng");
    }

    #[test]
    fn the_audit_is_a_switch_or_asks_for_arguments() {
        let audit = |text: &str| Config::parse("c", text).map(|c| c.settings.audit);
        assert_eq!(audit("{}").unwrap(), Audit::default());
        let on = Audit {
            on: true,
            arguments: false,
        };
        let with_arguments = Audit {
            on: true,
            arguments: true,
        };
        assert_eq!(audit(r#"{"settings": {"audit": true}}"#).unwrap(), on);
        assert_eq!(
            audit(r#"{"settings": {"audit": false}}"#).unwrap(),
            Audit::default()
        );
        assert_eq!(
            audit(r#"{"settings": {"audit": {"arguments": true}}}"#).unwrap(),
            with_arguments
        );
        for (audit, written) in [
            (Audit::default(), "{}"),
            (on, r#"{"audit":true}"#),
            (with_arguments, r#"{"audit":{"arguments":true}}"#),
        ] {
            let settings = Settings {
                audit,
                ..Settings::default()
            };
            assert_eq!(serde_json::to_string(&settings).unwrap(), written);
        }
        for bad in [r#""yes""#, r#"{"args": true}"#, "1"] {
            let err = error_of(&format!(r#"{{"settings": {{"audit": {bad}}}}}"#));
            assert_eq!(err.path, "settings.audit", "{err}");
            assert!(err.expected.contains("{\"arguments\": true}"), "{err}");
        }
    }
}
