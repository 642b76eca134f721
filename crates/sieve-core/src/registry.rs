//! Entries of an MCP registry (API v0.1; the entry is a `server.json`) and
//! what adding one means: which of its packages or remotes is used, the
//! inputs it declares, and the server entry that runs it, the version
//! pinned. Pure: the registry is read, and the keychain written, by
//! `sieve-api`.
//!
//! A package becomes a command: npm through `npx -y pkg@version`, PyPI
//! through `uvx pkg==version` (never downloading a Python of its own), OCI
//! through `docker run -i --rm image:tag`. A streamable HTTP remote becomes
//! an HTTP server with its URL variables filled in and its headers.
//! Every environment variable, header and argument the entry declares is
//! an [`Input`]: given by the person, else its fixed value or default;
//! a required one that is none of these is refused by name.

use crate::config::Transport;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The official registry, used where `settings.registries` names none.
pub const OFFICIAL: &str = "https://registry.modelcontextprotocol.io";

/// One server version as a registry serves it (`server.json`); what MCP
/// Sieve does not use is left out, and unknown fields are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Reverse-DNS name with one slash, e.g. `io.github.upstash/context7`.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default)]
    pub description: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<Package>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remotes: Vec<Remote>,
}

/// A package the server is published as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `oci`, `nuget`, `mcpb`...
    pub registry_type: String,
    pub identifier: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_hint: Option<String>,
    #[serde(default)]
    pub transport: PackageTransport,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtime_arguments: Vec<Argument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub package_arguments: Vec<Argument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environment_variables: Vec<Input>,
}

/// How a started package speaks MCP.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageTransport {
    /// `stdio`, `streamable-http` or `sse`.
    #[serde(rename = "type", default = "stdio")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

fn stdio() -> String {
    "stdio".into()
}

/// A server already running somewhere, reached by URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Remote {
    /// `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    /// May hold `{variable}`s.
    pub url: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<Input>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Input>,
}

/// A value the entry asks for: an environment variable or header (with a
/// name), or a variable of another value (named by its key).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A fixed value, which may hold `{variable}`s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(default)]
    pub is_required: bool,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Input>,
}

/// A command-line argument of a package or of its runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    /// `positional` or `named`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A named argument's flag, e.g. `--context`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A positional argument's name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_hint: Option<String>,
    #[serde(flatten)]
    pub input: Input,
}

impl Argument {
    /// The name `--arg NAME=VALUE` gives it by: a named argument's flag
    /// without its dashes, a positional one's hint.
    pub fn key(&self) -> Option<&str> {
        match &self.name {
            Some(name) => Some(name.trim_start_matches('-')),
            None => self.value_hint.as_deref(),
        }
    }
}

/// What is added: one package or one remote of the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "index")]
pub enum Source {
    Package(usize),
    Remote(usize),
}

/// Where a value the person gives goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Section {
    Env,
    Header,
    Arg,
}

impl Section {
    /// The flag that gives a value of this section.
    pub fn flag(self, name: &str) -> String {
        match self {
            Section::Env => format!("--env {name}=VALUE"),
            Section::Header => format!("--header '{name}: VALUE'"),
            Section::Arg => format!("--arg {name}=VALUE"),
        }
    }

    fn what(self) -> &'static str {
        match self {
            Section::Env => "environment variable",
            Section::Header => "header",
            Section::Arg => "value",
        }
    }
}

/// The values a person gave, by section and name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given {
    pub env: BTreeMap<String, String>,
    pub headers: BTreeMap<String, String>,
    pub args: BTreeMap<String, String>,
}

impl Given {
    fn get(&self, section: Section, name: &str) -> Option<&str> {
        match section {
            Section::Env => self.env.get(name).map(String::as_str),
            // Header names are case-insensitive.
            Section::Header => self
                .headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str()),
            Section::Arg => self.args.get(name).map(String::as_str),
        }
    }

    /// Sets `name` of `section`.
    pub fn set(&mut self, section: Section, name: &str, value: String) {
        let map = match section {
            Section::Env => &mut self.env,
            Section::Header => &mut self.headers,
            Section::Arg => &mut self.args,
        };
        map.insert(name.to_string(), value);
    }
}

/// One value the chosen package or remote asks the person for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Asked {
    pub section: Section,
    pub name: String,
    pub description: String,
    pub required: bool,
    pub secret: bool,
    /// What is used when nothing is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The server entry an added registry entry becomes.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub source: Source,
    /// The version pinned (the package's, else the entry's).
    pub version: String,
    pub transport: Transport,
    /// The env variables or headers of `transport` whose values are
    /// secrets: they go to the keychain, never to `config.json`.
    pub secrets: Vec<String>,
    /// The program that runs a package (`npx`, `uvx`, `docker`).
    pub runner: Option<&'static str>,
}

impl Plan {
    /// The command or URL as a person reads it, secret values hidden.
    pub fn shown(&self) -> String {
        let hide = |key: &String, value: &String| {
            if self.secrets.contains(key) {
                format!("{key}=(secret)")
            } else {
                format!("{key}={value}")
            }
        };
        match &self.transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                let env: Vec<String> = env.iter().map(|(k, v)| hide(k, v)).collect();
                let line: Vec<String> = std::iter::once(command)
                    .chain(args)
                    .map(|word| shell_word(word))
                    .collect();
                let mut shown = env;
                shown.extend(line);
                shown.join(" ")
            }
            Transport::Http { url, headers, .. } => {
                let mut shown = url.clone();
                for (name, value) in headers {
                    let value = if self.secrets.contains(name) {
                        "(secret)"
                    } else {
                        value
                    };
                    shown.push_str(&format!(" with header '{name}: {value}'"));
                }
                shown
            }
        }
    }
}

/// `word` as a shell reads it back: as it is when it holds nothing a
/// shell would split or expand, else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@=:+,%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Why an entry cannot be added as asked; each a sentence with what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    #[error(
        "{name} needs the {what} {key:?}{about}; give it with {flag}",
        what = section.what(),
        flag = section.flag(key),
        about = if description.is_empty() { String::new() } else { format!(" ({description})") }
    )]
    Missing {
        name: String,
        section: Section,
        key: String,
        description: String,
    },
    #[error(
        "{name} is offered only as an MCP bundle (mcpb), which MCP Sieve does not install; \
         install the bundle in a host that takes bundles, or add the server by its command"
    )]
    BundleOnly { name: String },
    #[error(
        "{name} is reached only over the old HTTP+SSE transport, which MCP Sieve does not \
         speak; ask its authors for a streamable HTTP endpoint"
    )]
    SseOnly { name: String },
    #[error(
        "{name} offers no package MCP Sieve can run (npm, PyPI or OCI over stdio) and no \
         streamable HTTP remote; add it by hand with the command its documentation gives"
    )]
    Nothing { name: String },
    #[error(
        "{name}'s argument {key:?} is a secret, and arguments are written in config.json; \
         add the server by hand and keep the secret with `mcp-sieve servers secret`"
    )]
    SecretArgument { name: String, key: String },
}

/// The package or remote MCP Sieve adds of `entry`: the first package of
/// npm, PyPI or OCI run over stdio, else the first streamable HTTP remote.
pub fn choose(entry: &Entry) -> Result<Source, PlanError> {
    let runnable = |p: &Package| {
        matches!(p.registry_type.as_str(), "npm" | "pypi" | "oci") && p.transport.kind == "stdio"
    };
    if let Some(index) = entry.packages.iter().position(runnable) {
        return Ok(Source::Package(index));
    }
    if let Some(index) = entry
        .remotes
        .iter()
        .position(|r| r.kind == "streamable-http")
    {
        return Ok(Source::Remote(index));
    }
    let name = entry.name.clone();
    if entry.remotes.iter().any(|r| r.kind == "sse") {
        return Err(PlanError::SseOnly { name });
    }
    if entry.packages.iter().any(|p| p.registry_type == "mcpb") {
        return Err(PlanError::BundleOnly { name });
    }
    Err(PlanError::Nothing { name })
}

/// Every value `source` of `entry` asks for, in the order a form shows
/// them.
pub fn asked(entry: &Entry, source: Source) -> Vec<Asked> {
    let mut asked = Vec::new();
    let mut ask = |section: Section, name: &str, input: &Input, open: bool| {
        if name.is_empty() || asked.iter().any(|a: &Asked| a.name == name) {
            return;
        }
        // A fixed value is not asked for; its variables are.
        if open {
            asked.push(Asked {
                section,
                name: name.to_string(),
                description: input.description.clone(),
                required: input.is_required && input.default.is_none(),
                secret: input.is_secret,
                default: input.default.clone(),
            });
        }
    };
    let variables = |input: &Input, ask: &mut dyn FnMut(Section, &str, &Input, bool)| {
        for (name, variable) in &input.variables {
            ask(Section::Arg, name, variable, true);
        }
    };
    match source {
        Source::Package(index) => {
            let package = &entry.packages[index];
            for input in &package.environment_variables {
                ask(Section::Env, &input.name, input, input.value.is_none());
                variables(input, &mut ask);
            }
            for argument in package
                .runtime_arguments
                .iter()
                .chain(&package.package_arguments)
            {
                if let Some(key) = argument.key() {
                    ask(
                        Section::Arg,
                        key,
                        &argument.input,
                        argument.input.value.is_none(),
                    );
                }
                variables(&argument.input, &mut ask);
            }
        }
        Source::Remote(index) => {
            let remote = &entry.remotes[index];
            for (name, variable) in &remote.variables {
                ask(Section::Arg, name, variable, true);
            }
            for input in &remote.headers {
                ask(Section::Header, &input.name, input, input.value.is_none());
                variables(input, &mut ask);
            }
        }
    }
    asked
}

/// The server entry `source` of `entry` becomes with the values `given`.
pub fn plan(entry: &Entry, source: Source, given: &Given) -> Result<Plan, PlanError> {
    let mut fill = Filler {
        entry,
        given,
        secret: false,
    };
    match source {
        Source::Package(index) => package_plan(entry, index, &mut fill),
        Source::Remote(index) => remote_plan(entry, index, &mut fill),
    }
}

/// Resolves inputs to values, noting whether a secret went into them.
struct Filler<'a> {
    entry: &'a Entry,
    given: &'a Given,
    secret: bool,
}

impl Filler<'_> {
    /// The value of `input` named `key` of `section`: given, else its
    /// fixed value with its variables filled in, else its default; `None`
    /// for an optional one with none of these.
    fn value(
        &mut self,
        section: Section,
        key: &str,
        input: &Input,
    ) -> Result<Option<String>, PlanError> {
        if let Some(value) = (!key.is_empty())
            .then(|| self.given.get(section, key))
            .flatten()
        {
            self.secret |= input.is_secret;
            return Ok(Some(value.to_string()));
        }
        if let Some(template) = &input.value {
            self.secret |= input.is_secret;
            return self.template(template, &input.variables).map(Some);
        }
        if let Some(default) = &input.default {
            return Ok(Some(default.clone()));
        }
        if input.is_required {
            return Err(PlanError::Missing {
                name: self.entry.name.clone(),
                section,
                key: key.to_string(),
                description: input.description.clone(),
            });
        }
        Ok(None)
    }

    /// `template` with each `{variable}` of `variables` replaced.
    fn template(
        &mut self,
        template: &str,
        variables: &BTreeMap<String, Input>,
    ) -> Result<String, PlanError> {
        let mut text = template.to_string();
        for (name, variable) in variables {
            let placeholder = format!("{{{name}}}");
            if !text.contains(&placeholder) {
                continue;
            }
            let value = self
                .value(
                    Section::Arg,
                    name,
                    &Input {
                        is_required: true,
                        ..variable.clone()
                    },
                )?
                .unwrap_or_default();
            text = text.replace(&placeholder, &value);
        }
        Ok(text)
    }
}

fn package_plan(entry: &Entry, index: usize, fill: &mut Filler) -> Result<Plan, PlanError> {
    let package = &entry.packages[index];
    let version = package
        .version
        .clone()
        .unwrap_or_else(|| entry.version.clone());
    let mut env = BTreeMap::new();
    let mut secrets = Vec::new();
    for input in &package.environment_variables {
        fill.secret = false;
        if let Some(value) = fill.value(Section::Env, &input.name, input)? {
            if fill.secret {
                secrets.push(input.name.clone());
            }
            env.insert(input.name.clone(), value);
        }
    }
    let mut runtime = Vec::new();
    for argument in &package.runtime_arguments {
        push_argument(entry, argument, fill, &mut runtime, &mut env, &mut secrets)?;
    }
    let mut after = Vec::new();
    for argument in &package.package_arguments {
        push_argument(entry, argument, fill, &mut after, &mut env, &mut secrets)?;
    }
    let id = &package.identifier;
    let (runner, mut args) = match package.registry_type.as_str() {
        "npm" => {
            let mut args = vec!["-y".to_string()];
            args.extend(runtime);
            args.push(format!("{id}@{version}"));
            ("npx", args)
        }
        "pypi" => {
            env.insert("UV_PYTHON_DOWNLOADS".into(), "never".into());
            let mut args = runtime;
            args.push(format!("{id}=={version}"));
            ("uvx", args)
        }
        _ => {
            let image = image_with_tag(id, &version);
            let bare = image.rsplit_once(':').map_or(image.as_str(), |(b, _)| b);
            let mut args = vec!["run".to_string(), "-i".into(), "--rm".into()];
            // Entries written for an older schema spell out `run`, `-i`,
            // `--rm` and the image among the runtime arguments: each once.
            for word in runtime {
                if word == "run" || word == "-i" || word == "--rm" || word == bare || word == image
                {
                    continue;
                }
                args.push(word);
            }
            args.push(image);
            ("docker", args)
        }
    };
    args.extend(after);
    Ok(Plan {
        source: Source::Package(index),
        version,
        transport: Transport::Stdio {
            command: runner.to_string(),
            args,
            env,
            cwd: None,
        },
        secrets,
        runner: Some(runner),
    })
}

/// An OCI image reference with a tag: its own, else `version`.
fn image_with_tag(identifier: &str, version: &str) -> String {
    let last = identifier.rsplit('/').next().unwrap_or(identifier);
    if last.contains(':') || identifier.contains('@') {
        identifier.to_string()
    } else {
        format!("{identifier}:{version}")
    }
}

/// Appends `argument` to `args`. A `-e NAME=value` for docker whose value
/// is a secret passes `-e NAME` and puts the value in the environment,
/// which the keychain can hold; any other secret argument is refused.
fn push_argument(
    entry: &Entry,
    argument: &Argument,
    fill: &mut Filler,
    args: &mut Vec<String>,
    env: &mut BTreeMap<String, String>,
    secrets: &mut Vec<String>,
) -> Result<(), PlanError> {
    fill.secret = false;
    let key = argument.key().unwrap_or_default();
    let Some(value) = fill.value(Section::Arg, key, &argument.input)? else {
        return Ok(());
    };
    match &argument.name {
        Some(flag) => {
            if fill.secret {
                let passed = matches!(flag.as_str(), "-e" | "--env")
                    .then(|| value.split_once('='))
                    .flatten();
                let Some((name, secret)) = passed else {
                    return Err(PlanError::SecretArgument {
                        name: entry.name.clone(),
                        key: key.to_string(),
                    });
                };
                env.insert(name.to_string(), secret.to_string());
                secrets.push(name.to_string());
                args.extend([flag.clone(), name.to_string()]);
                return Ok(());
            }
            args.push(flag.clone());
            let boolean = argument.input.format.as_deref() == Some("boolean");
            if !(boolean && value == "true") {
                args.push(value);
            }
        }
        None => {
            if fill.secret {
                return Err(PlanError::SecretArgument {
                    name: entry.name.clone(),
                    key: key.to_string(),
                });
            }
            args.push(value);
        }
    }
    Ok(())
}

fn remote_plan(entry: &Entry, index: usize, fill: &mut Filler) -> Result<Plan, PlanError> {
    let remote = &entry.remotes[index];
    let url = fill.template(&remote.url, &remote.variables)?;
    let mut headers = BTreeMap::new();
    let mut secrets = Vec::new();
    for input in &remote.headers {
        fill.secret = false;
        if let Some(value) = fill.value(Section::Header, &input.name, input)? {
            if fill.secret {
                secrets.push(input.name.clone());
            }
            headers.insert(input.name.clone(), value);
        }
    }
    Ok(Plan {
        source: Source::Remote(index),
        version: entry.version.clone(),
        transport: Transport::Http {
            url,
            headers,
            oauth: None,
        },
        secrets,
        runner: None,
    })
}

/// Whether `latest` is a newer version than `added`: compared as numbers
/// part by part where both are dotted numbers, else any difference counts
/// (the registry marks which is latest, not how versions order).
pub fn is_newer(latest: &str, added: &str) -> bool {
    let parts = |v: &str| -> Option<Vec<u64>> {
        v.split(['.', '-', '+'])
            .take(3)
            .map(|p| p.parse().ok())
            .collect()
    };
    match (parts(latest), parts(added)) {
        (Some(a), Some(b)) => a > b,
        _ => latest != added,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(value: serde_json::Value) -> Entry {
        serde_json::from_value(value).expect("a server.json")
    }

    fn stdio(plan: &Plan) -> (&str, Vec<&str>, &BTreeMap<String, String>) {
        let Transport::Stdio {
            command, args, env, ..
        } = &plan.transport
        else {
            panic!("a command: {plan:?}")
        };
        (command, args.iter().map(String::as_str).collect(), env)
    }

    #[test]
    fn an_npm_package_runs_pinned_through_npx_and_its_secret_is_marked() {
        let context7 = entry(json!({
            "name": "io.github.upstash/context7", "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "@upstash/context7-mcp",
                "version": "1.0.26", "transport": {"type": "stdio"},
                "environmentVariables": [{"name": "CONTEXT7_API_KEY", "isSecret": true,
                    "isRequired": false, "description": "API key"}]}]
        }));
        let source = choose(&context7).unwrap();
        let plan = plan(&context7, source, &Given::default()).unwrap();
        let (command, args, env) = stdio(&plan);
        assert_eq!(
            (command, args),
            ("npx", vec!["-y", "@upstash/context7-mcp@1.0.26"])
        );
        assert!(env.is_empty(), "an optional value not given is left out");
        let mut given = Given::default();
        given.set(Section::Env, "CONTEXT7_API_KEY", "k-123".into());
        let plan = super::plan(&context7, source, &given).unwrap();
        assert_eq!(plan.secrets, ["CONTEXT7_API_KEY"]);
        assert_eq!(
            plan.shown(),
            "CONTEXT7_API_KEY=(secret) npx -y @upstash/context7-mcp@1.0.26"
        );
    }

    #[test]
    fn an_oci_entry_runs_docker_once_with_its_secret_in_the_environment() {
        let github = entry(json!({
            "name": "io.github.github/github-mcp-server", "version": "0.20.1",
            "packages": [{"registryType": "oci",
                "identifier": "ghcr.io/github/github-mcp-server:0.20.1",
                "transport": {"type": "stdio"},
                "runtimeArguments": [
                    {"type": "positional", "value": "run", "isRequired": true},
                    {"type": "named", "name": "-i", "value": "true", "format": "boolean"},
                    {"type": "named", "name": "--rm", "value": "true", "format": "boolean"},
                    {"type": "named", "name": "-e", "isRequired": true,
                     "value": "GITHUB_PERSONAL_ACCESS_TOKEN={token}",
                     "variables": {"token": {"isRequired": true, "isSecret": true}}},
                    {"type": "positional", "valueHint": "image_name",
                     "value": "ghcr.io/github/github-mcp-server"}]}]
        }));
        let source = choose(&github).unwrap();
        let asked = asked(&github, source);
        assert_eq!(
            asked
                .iter()
                .map(|a| (a.name.as_str(), a.required, a.secret))
                .collect::<Vec<_>>(),
            [("token", true, true)]
        );
        let error = plan(&github, source, &Given::default()).unwrap_err();
        assert!(error.to_string().contains("--arg token=VALUE"), "{error}");
        let mut given = Given::default();
        given.set(Section::Arg, "token", "ghp_x".into());
        let plan = plan(&github, source, &given).unwrap();
        let (command, args, env) = stdio(&plan);
        assert_eq!(command, "docker");
        assert_eq!(
            args,
            [
                "run",
                "-i",
                "--rm",
                "-e",
                "GITHUB_PERSONAL_ACCESS_TOKEN",
                "ghcr.io/github/github-mcp-server:0.20.1"
            ]
        );
        assert_eq!(env["GITHUB_PERSONAL_ACCESS_TOKEN"], "ghp_x");
        assert_eq!(plan.secrets, ["GITHUB_PERSONAL_ACCESS_TOKEN"]);
    }

    #[test]
    fn a_pypi_entry_runs_through_uvx_without_downloading_python() {
        let serena = entry(json!({
            "name": "io.github.oraios/serena", "version": "1.7.0",
            "packages": [{"registryType": "pypi", "identifier": "serena-agent",
                "version": "1.7.0", "transport": {"type": "stdio"},
                "packageArguments": [{"type": "named", "name": "--context",
                    "default": "desktop-app"}]}]
        }));
        let plan = plan(&serena, choose(&serena).unwrap(), &Given::default()).unwrap();
        let (command, args, env) = stdio(&plan);
        assert_eq!(
            (command, args),
            (
                "uvx",
                vec!["serena-agent==1.7.0", "--context", "desktop-app"]
            )
        );
        assert_eq!(env["UV_PYTHON_DOWNLOADS"], "never");
    }

    #[test]
    fn a_remote_fills_its_url_variables_and_needs_its_required_header() {
        let remote = entry(json!({
            "name": "com.example/tenant", "version": "2.0.0",
            "remotes": [
                {"type": "sse", "url": "https://old.example/sse"},
                {"type": "streamable-http", "url": "https://{tenant}.example/mcp",
                 "variables": {"tenant": {"default": "eu"}},
                 "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true}]}]
        }));
        let source = choose(&remote).unwrap();
        assert_eq!(source, Source::Remote(1));
        let error = plan(&remote, source, &Given::default()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "com.example/tenant needs the header \"Authorization\"; give it with --header 'Authorization: VALUE'"
        );
        let mut given = Given::default();
        given.set(Section::Header, "authorization", "Bearer t".into());
        let plan = plan(&remote, source, &given).unwrap();
        assert_eq!(
            plan.transport,
            Transport::Http {
                url: "https://eu.example/mcp".into(),
                headers: BTreeMap::from([("Authorization".into(), "Bearer t".into())]),
                oauth: None
            }
        );
        assert_eq!(plan.secrets, ["Authorization"]);
    }

    #[test]
    fn what_cannot_be_run_is_refused_in_a_sentence() {
        let sse = entry(json!({"name": "a/sse", "version": "1",
            "remotes": [{"type": "sse", "url": "https://x/sse"}]}));
        assert!(matches!(choose(&sse), Err(PlanError::SseOnly { .. })));
        let bundle = entry(json!({"name": "a/b", "version": "1",
            "packages": [{"registryType": "mcpb", "identifier": "https://x/b.mcpb"}]}));
        assert!(choose(&bundle).unwrap_err().to_string().contains("mcpb"));
    }

    #[test]
    fn newer_versions_compare_as_numbers() {
        assert!(is_newer("1.0.10", "1.0.9"));
        assert!(!is_newer("1.0.9", "1.0.10"));
        assert!(!is_newer("2.0.0", "2.0.0"));
        assert!(is_newer("2026.8.31", "2.0.0"));
    }
}
