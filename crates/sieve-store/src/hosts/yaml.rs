//! Continue's and Goose's `config.yaml`, edited through yaml-edit's lossless
//! syntax tree: what is not changed keeps its bytes, comments, blank lines,
//! quoting, flow or block style, indentation and line breaks included.
//!
//! Goose keeps its servers in a mapping by name (`extensions:`), Continue
//! in a list whose items carry their name (`mcpServers: [- name: ..]`).
//! Values come out as JSON by YAML 1.2's core schema (`yes` is a string,
//! `0x10` is 16), aliases read as what their anchor holds; merge keys
//! (`<<`) are read as ordinary keys, not merged. A list item without a
//! name (Continue's `- uses: owner/block` from its hub) is no server of
//! the file's own: it is skipped, and left as it is.
//!
//! Writing a server keeps everything outside it as it was. Inside it, a key
//! whose value stays the same keeps its line and the comments on it; a
//! changed nested mapping (`env`) is changed key by key the same way; any
//! other changed value is written anew in block style (yaml-edit keeps the
//! comment after it on its line), so a changed `args: [a, b]` becomes a
//! block list. A new server goes after the last, in block style with the
//! list's indentation (two spaces where the list or mapping is new),
//! strings quoted only where YAML needs it; an empty `[]` or `{}` that is to
//! hold it becomes a block, a flow list with items stays flow. JSON nulls
//! are written as YAML nulls. Removing a server removes its lines. A file of
//! more than one YAML document (split by `---`) is refused as a wrong shape.
//!
//! yaml-edit's parser reads on past what YAML forbids; its validator then
//! refuses the file with where and why (duplicate keys, tabs for indent,
//! misaligned entries, undefined aliases), so a broken file is never edited.

use super::document::{Document, ServerList, ShapeError, SyntaxError};
use serde_json::{Map, Value};
use yaml_edit::validator::{Severity, Validator};
use yaml_edit::{AnchorRegistry, Mapping, Scalar, Sequence, YamlNode};

/// A host's YAML file.
#[derive(Debug)]
pub(crate) struct YamlFile {
    file: yaml_edit::YamlFile,
}

impl YamlFile {
    pub(crate) fn parse(text: &str) -> Result<YamlFile, SyntaxError> {
        let parsed = yaml_edit::YamlFile::parse(text);
        if let Some(error) = parsed.positioned_errors().first() {
            return Err(syntax_error(text, error.range.start, &error.message));
        }
        let file = parsed.tree();
        for document in file.documents() {
            let violation = Validator::new()
                .validate(&document)
                .into_iter()
                .find(|violation| violation.severity == Severity::Error);
            if let Some(violation) = violation {
                let offset = violation.text_range.map_or(0, |range| range.start);
                return Err(syntax_error(text, offset, &violation.message));
            }
        }
        Ok(YamlFile { file })
    }

    /// The file's one document; `None` when it has none (only comments).
    fn document(&self) -> Result<Option<yaml_edit::Document>, ShapeError> {
        let mut documents = self.file.documents();
        let first = documents.next();
        match documents.count() {
            0 => Ok(first),
            more => Err(ShapeError(format!(
                "the file holds {} YAML documents split by ---, not one",
                more + 1
            ))),
        }
    }

    /// The top-level mapping and the anchors aliases name; `None` for a
    /// file with nothing in it.
    fn top(&self) -> Result<Option<(Mapping, AnchorRegistry)>, ShapeError> {
        let Some(document) = self.document()? else {
            return Ok(None);
        };
        let anchors = AnchorRegistry::from_document(&document);
        if let Some(top) = document.as_mapping() {
            return Ok(Some((top, anchors)));
        }
        let kind = if document.as_sequence().is_some() {
            "a list"
        } else if document.as_scalar().is_some() {
            // `~` too: yaml-edit cannot turn it into a mapping.
            "a scalar"
        } else {
            // An empty document: `---` and comments.
            return Ok(None);
        };
        Err(ShapeError(format!(
            "the top of the file is {kind}, not a mapping of settings"
        )))
    }

    /// The mapping of servers at `path`; `None` when it is missing or
    /// empty (`extensions:`).
    fn mapping_at(&self, path: &[&str]) -> Result<Option<(Mapping, AnchorRegistry)>, ShapeError> {
        let Some((mut mapping, anchors)) = self.top()? else {
            return Ok(None);
        };
        for (depth, key) in path.iter().enumerate() {
            mapping = match value_of(&mapping, key) {
                None => return Ok(None),
                Some(YamlNode::Mapping(inner)) => inner,
                Some(YamlNode::Scalar(scalar)) if scalar.is_null() => return Ok(None),
                Some(other) => {
                    return Err(ShapeError(format!(
                        "{:?} is {}, not a mapping of servers by name",
                        path[..=depth].join("."),
                        kind(&other, &anchors)
                    )));
                }
            }
        }
        Ok(Some((mapping, anchors)))
    }

    /// The list at `key`; `None` when it is missing or empty (`mcpServers:`).
    fn sequence_at(&self, key: &str) -> Result<Option<(Sequence, AnchorRegistry)>, ShapeError> {
        let Some((top, anchors)) = self.top()? else {
            return Ok(None);
        };
        match value_of(&top, key) {
            None => Ok(None),
            Some(YamlNode::Sequence(sequence)) => Ok(Some((sequence, anchors))),
            Some(YamlNode::Scalar(scalar)) if scalar.is_null() => Ok(None),
            Some(other) => Err(ShapeError(format!(
                "{key:?} is {}, not a list of servers",
                kind(&other, &anchors)
            ))),
        }
    }

    /// Puts `value` at `path` from the top, below the deepest mapping on
    /// the way that is there, making the mappings missing (and the file's
    /// document, when it has none).
    fn make(&self, path: &[&str], value: Built) -> Result<(), ShapeError> {
        let (top, _) = match self.top()? {
            Some(found) => found,
            None => {
                // An empty document (or none): its first key goes in
                // through the document, which has no mapping to take it.
                let document = self.file.ensure_document();
                let (first, rest) = path.split_first().expect("a path names a key");
                let value = nest(rest, value);
                let done = match &value {
                    Built::Mapping(mapping) => document.set(*first, mapping),
                    Built::Sequence(sequence) => document.set(*first, sequence),
                };
                return match done {
                    true => Ok(()),
                    false => Err(ShapeError(format!(
                        "the top of the file cannot take {first:?}; it holds no mapping of settings"
                    ))),
                };
            }
        };
        let (mut mapping, mut depth) = (top, 0);
        while depth + 1 < path.len() {
            match value_of(&mapping, path[depth]) {
                Some(YamlNode::Mapping(inner)) if !is_empty_flow(&inner) => mapping = inner,
                _ => break,
            }
            depth += 1;
        }
        set_built(&mapping, path[depth], nest(&path[depth + 1..], value));
        Ok(())
    }
}

/// What [`YamlFile::make`] puts in place: a new mapping or list.
enum Built {
    Mapping(Mapping),
    Sequence(Sequence),
}

/// `value` inside mappings under `keys`, outermost first.
fn nest(keys: &[&str], value: Built) -> Built {
    keys.iter().rev().fold(value, |inner, key| {
        let outer = Mapping::new();
        set_built(&outer, key, inner);
        Built::Mapping(outer)
    })
}

fn set_built(mapping: &Mapping, key: &str, value: Built) {
    match &value {
        Built::Mapping(inner) => mapping.set(key, inner),
        Built::Sequence(inner) => mapping.set(key, inner),
    }
}

fn is_empty_flow(mapping: &Mapping) -> bool {
    mapping.is_empty() && mapping.is_flow_style()
}

impl Document for YamlFile {
    fn servers(&self, list: ServerList) -> Result<Option<Vec<(String, Value)>>, ShapeError> {
        match list {
            ServerList::Map(path) => {
                let Some((mapping, anchors)) = self.mapping_at(path)? else {
                    return Ok(None);
                };
                let place = path.join(".");
                mapping
                    .iter()
                    .map(|(key, value)| {
                        let name = key_text(&key);
                        match json(&value, &anchors, 0)? {
                            Value::Object(server) => Ok((name, Value::Object(server))),
                            other => Err(ShapeError(format!(
                                "server {name:?} in {place:?} is {}, not a mapping of its settings",
                                kind_of(&other)
                            ))),
                        }
                    })
                    .collect::<Result<_, _>>()
                    .map(Some)
            }
            ServerList::List { key, name_field } => {
                let Some((sequence, anchors)) = self.sequence_at(key)? else {
                    return Ok(None);
                };
                let mut servers = Vec::new();
                for (index, item) in sequence.values().enumerate() {
                    let mut server = match json(&item, &anchors, 0)? {
                        Value::Object(server) => server,
                        other => {
                            return Err(ShapeError(format!(
                                "item {} of {key:?} is {}, not a mapping with a {name_field:?}",
                                index + 1,
                                kind_of(&other)
                            )));
                        }
                    };
                    if let Some(Value::String(name)) = server.shift_remove(name_field) {
                        servers.push((name, Value::Object(server)));
                    }
                }
                Ok(Some(servers))
            }
        }
    }

    fn set(&mut self, list: ServerList, name: &str, entry: &Value) -> Result<(), ShapeError> {
        let Value::Object(entry) = entry else {
            return Err(ShapeError(format!(
                "the entry for server {name:?} is not an object of settings"
            )));
        };
        match list {
            ServerList::Map(path) => {
                if let Some((mapping, anchors)) = self.mapping_at(path)?
                    && !is_empty_flow(&mapping)
                {
                    match find_key(&mapping, name) {
                        Some((_, YamlNode::Mapping(server))) => merge(&server, entry, &anchors)?,
                        Some((key, _)) => mapping.set(key, build_mapping(entry)),
                        None => mapping.set(name, build_mapping(entry)),
                    }
                    return Ok(());
                }
                let servers = Mapping::new();
                servers.set(name, build_mapping(entry));
                self.make(path, Built::Mapping(servers))
            }
            ServerList::List { key, name_field } => {
                // The name first, as a person writes it.
                let mut named = Map::new();
                named.insert(name_field.to_string(), Value::String(name.to_string()));
                named.extend(
                    entry
                        .iter()
                        .filter(|(field, _)| field.as_str() != name_field)
                        .map(|(field, value)| (field.clone(), value.clone())),
                );
                if let Some((sequence, anchors)) = self.sequence_at(key)?
                    && !(sequence.is_empty() && sequence.is_flow_style())
                {
                    let mut at = items_named(&sequence, name_field, name, &anchors)?;
                    match at.first() {
                        Some(&first) => {
                            match sequence.get(first) {
                                Some(YamlNode::Mapping(item)) => merge(&item, &named, &anchors)?,
                                _ => {
                                    sequence.set(first, build_mapping(&named));
                                }
                            }
                            // Never two servers of one name.
                            at.remove(0);
                            for index in at.into_iter().rev() {
                                sequence.remove(index);
                            }
                        }
                        None => sequence.push(build_mapping(&named)),
                    }
                    return Ok(());
                }
                let sequence = Sequence::new();
                sequence.push(build_mapping(&named));
                self.make(&[key], Built::Sequence(sequence))
            }
        }
    }

    fn remove(&mut self, list: ServerList, name: &str) -> Result<bool, ShapeError> {
        match list {
            ServerList::Map(path) => {
                let Some((mapping, _)) = self.mapping_at(path)? else {
                    return Ok(false);
                };
                Ok(match find_key(&mapping, name) {
                    Some((key, _)) => mapping.remove(key).is_some(),
                    None => false,
                })
            }
            ServerList::List { key, name_field } => {
                let Some((sequence, anchors)) = self.sequence_at(key)? else {
                    return Ok(false);
                };
                let at = items_named(&sequence, name_field, name, &anchors)?;
                for &index in at.iter().rev() {
                    sequence.remove(index);
                }
                Ok(!at.is_empty())
            }
        }
    }

    fn render(&self) -> String {
        self.file.to_string()
    }
}

/// The value at `key` in `mapping`, matched by the key's text.
fn value_of(mapping: &Mapping, key: &str) -> Option<YamlNode> {
    find_key(mapping, key).map(|(_, value)| value)
}

/// The key and value of entry `name`, matched by the key's text (so a
/// server named `123` or `true` is found whatever YAML reads its key as).
fn find_key(mapping: &Mapping, name: &str) -> Option<(YamlNode, YamlNode)> {
    mapping.iter().find(|(key, _)| key_text(key) == name)
}

/// The places in `sequence` of the items whose `name_field` is `name`.
fn items_named(
    sequence: &Sequence,
    name_field: &str,
    name: &str,
    anchors: &AnchorRegistry,
) -> Result<Vec<usize>, ShapeError> {
    let mut at = Vec::new();
    for (index, item) in sequence.values().enumerate() {
        let item = resolve(item, anchors, 0)?;
        if let YamlNode::Mapping(item) = item
            && let Some(value) = value_of(&item, name_field)
            && json(&value, anchors, 0)? == name
        {
            at.push(index);
        }
    }
    Ok(at)
}

/// Makes `mapping` hold `entry`: keys gone from it removed, a key whose
/// value is the same left as written, a nested mapping merged the same
/// way, any other value written anew, new keys at the end.
fn merge(
    mapping: &Mapping,
    entry: &Map<String, Value>,
    anchors: &AnchorRegistry,
) -> Result<(), ShapeError> {
    let gone: Vec<YamlNode> = mapping
        .keys()
        .filter(|key| !entry.contains_key(&key_text(key)))
        .collect();
    for key in gone {
        mapping.remove(key);
    }
    for (key, value) in entry {
        let Some((existing_key, existing)) = find_key(mapping, key) else {
            put(mapping, key, value);
            continue;
        };
        if json(&existing, anchors, 0)? == *value {
            continue;
        }
        match (&existing, value) {
            (YamlNode::Mapping(inner), Value::Object(object)) if !inner.is_empty() => {
                merge(inner, object, anchors)?;
            }
            _ => put(mapping, existing_key, value),
        }
    }
    Ok(())
}

/// Sets `key` of `mapping` to `value`, written as new.
fn put(mapping: &Mapping, key: impl yaml_edit::AsYaml, value: &Value) {
    match value {
        Value::Null => mapping.set(key, None::<&str>),
        Value::Bool(b) => mapping.set(key, *b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => mapping.set(key, i),
            (None, Some(u), _) => mapping.set(key, u),
            (None, None, f) => mapping.set(key, f.unwrap_or_default()),
        },
        Value::String(s) => mapping.set(key, s.as_str()),
        Value::Array(items) => mapping.set(key, build_sequence(items)),
        Value::Object(object) => mapping.set(key, build_mapping(object)),
    }
}

fn build_mapping(object: &Map<String, Value>) -> Mapping {
    let mapping = Mapping::new();
    for (key, value) in object {
        put(&mapping, key.as_str(), value);
    }
    mapping
}

fn build_sequence(items: &[Value]) -> Sequence {
    let sequence = Sequence::new();
    for item in items {
        match item {
            Value::Null => sequence.push(None::<&str>),
            Value::Bool(b) => sequence.push(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => sequence.push(i),
                (None, Some(u), _) => sequence.push(u),
                (None, None, f) => sequence.push(f.unwrap_or_default()),
            },
            Value::String(s) => sequence.push(s.as_str()),
            Value::Array(inner) => sequence.push(build_sequence(inner)),
            Value::Object(object) => sequence.push(build_mapping(object)),
        }
    }
    sequence
}

/// How deep aliases may lead before an anchor is taken to hold itself.
const MAX_DEPTH: usize = 64;

/// `node`, with an alias followed to what its anchor holds.
fn resolve(node: YamlNode, anchors: &AnchorRegistry, depth: usize) -> Result<YamlNode, ShapeError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    match node {
        YamlNode::Alias(alias) => {
            let target = anchors.resolve_alias(&alias).map_err(|error| {
                ShapeError(format!(
                    "the alias *{} cannot be read: {error}",
                    alias.name()
                ))
            })?;
            resolve(target, anchors, depth + 1)
        }
        other => Ok(other),
    }
}

fn too_deep() -> ShapeError {
    ShapeError(format!(
        "aliases lead more than {MAX_DEPTH} deep, so an anchor holds an alias to itself"
    ))
}

/// `node` as JSON, by YAML 1.2's core schema.
fn json(node: &YamlNode, anchors: &AnchorRegistry, depth: usize) -> Result<Value, ShapeError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok(match node {
        YamlNode::Scalar(scalar) => scalar_json(scalar, false),
        YamlNode::Mapping(mapping) => {
            let mut object = Map::new();
            for (key, value) in mapping.iter() {
                object.insert(key_text(&key), json(&value, anchors, depth + 1)?);
            }
            Value::Object(object)
        }
        YamlNode::Sequence(sequence) => Value::Array(
            sequence
                .values()
                .map(|item| json(&item, anchors, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        YamlNode::Alias(_) => {
            let target = resolve(node.clone(), anchors, depth)?;
            json(&target, anchors, depth + 1)?
        }
        YamlNode::TaggedNode(tagged) => {
            if let Some(mapping) = tagged.as_mapping() {
                json(&YamlNode::Mapping(mapping), anchors, depth + 1)?
            } else if let Some(sequence) = tagged.as_sequence() {
                json(&YamlNode::Sequence(sequence), anchors, depth + 1)?
            } else if let Some(scalar) = tagged.value() {
                scalar_json(&scalar, tagged.tag().as_deref() == Some("!!str"))
            } else {
                Value::Null
            }
        }
    })
}

fn scalar_json(scalar: &Scalar, text: bool) -> Value {
    if text || scalar.is_quoted() || scalar.is_block() {
        return Value::String(scalar.as_string());
    }
    if scalar.is_null() {
        return Value::Null;
    }
    if let Some(b) = scalar.as_bool() {
        return Value::Bool(b);
    }
    if let Some(i) = scalar.as_i64() {
        return Value::from(i);
    }
    if let Ok(u) = scalar.as_string().parse::<u64>() {
        return Value::from(u);
    }
    scalar
        .as_f64()
        .and_then(serde_json::Number::from_f64)
        .map_or_else(|| Value::String(scalar.as_string()), Value::Number)
}

fn key_text(key: &YamlNode) -> String {
    match key {
        YamlNode::Scalar(scalar) => scalar.as_string(),
        other => other.to_string().trim().to_string(),
    }
}

fn kind(node: &YamlNode, anchors: &AnchorRegistry) -> &'static str {
    match node {
        // Written through, a change would land at the anchor.
        YamlNode::Alias(_) => "an alias",
        _ => json(node, anchors, 0).map_or("unreadable", |value| kind_of(&value)),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// `message` at byte `offset` of `text`, its first sentence only: the
/// parser goes on with what it expected, found and suggests.
fn syntax_error(text: &str, offset: u32, message: &str) -> SyntaxError {
    let position = yaml_edit::byte_offset_to_line_column(text, offset as usize);
    let end = [". Expected:", ". Found:", ". Context:", ". Suggestion:"]
        .iter()
        .filter_map(|tail| message.find(tail))
        .min()
        .unwrap_or(message.len());
    SyntaxError {
        line: position.line,
        column: position.column,
        message: message[..end].to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::hosts::document::testing::changed_lines;

    fn names(file: &YamlFile, list: ServerList) -> Vec<String> {
        crate::hosts::document::testing::names(file, list)
    }
    use super::*;
    use serde_json::json;

    const CONTINUE: ServerList = ServerList::List {
        key: "mcpServers",
        name_field: "name",
    };
    const GOOSE: ServerList = ServerList::Map(&["extensions"]);

    const CONTINUE_FILE: &str = "# Continue's settings
name: Local Assistant
version: 1.0.0
schema: v1

models:
  - name: Claude # the default
    provider: anthropic
    model: claude-sonnet-4

mcpServers:
  # for the repo
  - name: github
    command: npx
    args: [\"-y\", \"@modelcontextprotocol/server-github\"] # pinned
    env:
      GITHUB_TOKEN: ghp_x # from the keychain later
  - uses: anthropic/memory-mcp
  - name: docs
    type: streamable-http
    url: https://docs.test/mcp
    requestOptions:
      headers:
        Authorization: Bearer t

# rules last
rules:
  - Be brief
";

    const GOOSE_FILE: &str = "GOOSE_PROVIDER: openai
GOOSE_MODEL: gpt-4o
extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  # fetches pages
  fetch:
    args:
    - mcp-server-fetch
    cmd: uvx
    enabled: true
    envs: {}
    name: fetch
    timeout: 300
    type: stdio
GOOSE_MODE: smart_approve
";

    fn parse(text: &str) -> YamlFile {
        YamlFile::parse(text).unwrap_or_else(|error| panic!("{error} in {text:?}"))
    }

    fn sieve() -> Value {
        json!({
            "type": "stdio",
            "command": "/usr/bin/mcp-sieve",
            "args": ["serve", "--profile", "continue"],
            "env": {"RUST_LOG": "warn", "EMPTY": null},
            "cwd": null,
        })
    }

    #[test]
    fn an_untouched_file_renders_byte_for_byte() {
        let odd = "a:   1   # x\r\nb:\r\n- 'q'\r\n-   \"r\"\r\n\r\nc: {d: [1,2]}\r\n";
        for text in [
            CONTINUE_FILE,
            GOOSE_FILE,
            "",
            "# only\n# comments",
            "---\na: 1\n...\n",
            odd,
        ] {
            assert_eq!(parse(text).render(), text);
        }
    }

    #[test]
    fn continue_servers_come_out_without_their_name_skipping_hub_blocks() {
        let file = parse(CONTINUE_FILE);
        assert_eq!(
            file.servers(CONTINUE).unwrap().unwrap(),
            [
                (
                    "github".to_string(),
                    json!({
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-github"],
                        "env": {"GITHUB_TOKEN": "ghp_x"},
                    })
                ),
                (
                    "docs".to_string(),
                    json!({
                        "type": "streamable-http",
                        "url": "https://docs.test/mcp",
                        "requestOptions": {"headers": {"Authorization": "Bearer t"}},
                    })
                ),
            ]
        );
    }

    #[test]
    fn goose_extensions_come_out_by_name_in_the_files_order() {
        let file = parse(GOOSE_FILE);
        let servers = file.servers(GOOSE).unwrap().unwrap();
        assert_eq!(names(&file, GOOSE), ["developer", "fetch"]);
        assert_eq!(
            servers[1].1,
            json!({
                "args": ["mcp-server-fetch"],
                "cmd": "uvx",
                "enabled": true,
                "envs": {},
                "name": "fetch",
                "timeout": 300,
                "type": "stdio",
            })
        );
    }

    #[test]
    fn scalars_read_by_the_core_schema_and_aliases_read_through() {
        let file = parse(
            "extensions:\n  x:\n    a: 1\n    b: '1'\n    c: yes\n    d: ~\n    e: 1.5\n    \
             f: 0x10\n    g: |\n      two\n      lines\n    h: !!str 5\n    i: \"esc\\t\"\n    \
             j: &shared [one]\n    k: *shared\n    l: True\n    m: .inf\n",
        );
        assert_eq!(
            file.servers(GOOSE).unwrap().unwrap()[0].1,
            json!({
                "a": 1, "b": "1", "c": "yes", "d": null, "e": 1.5, "f": 16,
                "g": "two\nlines\n", "h": "5", "i": "esc\t", "j": ["one"], "k": ["one"],
                "l": true, "m": ".inf",
            })
        );
    }

    #[test]
    fn an_anchor_that_holds_itself_is_refused_not_followed_forever() {
        let text = "extensions:\n  x: &loop\n    again: *loop\n";
        match YamlFile::parse(text) {
            Err(error) => assert_eq!(error.line, 3, "{error}"),
            Ok(file) => {
                let error = file.servers(GOOSE).unwrap_err();
                assert!(error.to_string().contains("alias"), "{error}");
            }
        }
    }

    #[test]
    fn a_file_without_the_list_has_none() {
        for text in [
            "",
            "# nothing\n",
            "---\n",
            "# a\n---\n# b\n...\n",
            "name: x\n",
            "mcpServers:\nextensions: ~\n",
        ] {
            let file = parse(text);
            assert_eq!(file.servers(CONTINUE).unwrap(), None, "{text:?}");
            assert_eq!(file.servers(GOOSE).unwrap(), None, "{text:?}");
        }
        assert_eq!(
            parse("mcpServers: []\n").servers(CONTINUE).unwrap(),
            Some(vec![])
        );
    }

    #[test]
    fn a_new_continue_server_goes_at_the_end_of_the_list_name_first() {
        let mut file = parse(CONTINUE_FILE);
        file.set(CONTINUE, "sieve", &sieve()).unwrap();
        let text = file.render();
        let expected = CONTINUE_FILE.replace(
            "        Authorization: Bearer t\n",
            "        Authorization: Bearer t\n  - name: sieve\n    type: stdio\n    \
             command: /usr/bin/mcp-sieve\n    args:\n    - serve\n    - '--profile'\n    \
             - continue\n    env:\n      RUST_LOG: warn\n      EMPTY: null\n    \
             cwd: null\n",
        );
        assert_eq!(text, expected);
        let again = parse(&text);
        assert_eq!(names(&again, CONTINUE), ["github", "docs", "sieve"]);
        // Nulls are written as nulls (Goose writes `bundled: null`), so an
        // entry given back reads as it was.
        let expected_entry = sieve();
        assert_eq!(
            again.servers(CONTINUE).unwrap().unwrap()[2].1,
            expected_entry
        );
    }

    #[test]
    fn a_new_goose_extension_goes_after_the_last() {
        let mut file = parse(GOOSE_FILE);
        file.set(
            GOOSE,
            "sieve",
            &json!({"type": "stdio", "cmd": "/usr/bin/mcp-sieve", "args": ["serve"], "envs": {},
                    "enabled": true, "name": "sieve", "timeout": 300}),
        )
        .unwrap();
        let text = file.render();
        let expected = GOOSE_FILE.replace(
            "GOOSE_MODE: smart",
            "  sieve:\n    type: stdio\n    cmd: /usr/bin/mcp-sieve\n    args:\n    - serve\n    \
             envs: {}\n    enabled: true\n    name: sieve\n    timeout: 300\nGOOSE_MODE: smart",
        );
        assert_eq!(text, expected);
        assert_eq!(names(&parse(&text), GOOSE), ["developer", "fetch", "sieve"]);
    }

    #[test]
    fn servers_are_made_in_an_empty_file_one_of_only_comments_or_one_without_the_list() {
        for text in [
            "",
            "# my settings\n",
            "# a\n# b",
            "---\n",
            "name: Local\n",
            "mcpServers:\n",
            "mcpServers: []\n",
        ] {
            let mut file = parse(text);
            file.set(CONTINUE, "sieve", &json!({"command": "/x"}))
                .unwrap();
            let out = file.render();
            let again = parse(&out);
            assert_eq!(
                again.servers(CONTINUE).unwrap().unwrap(),
                [("sieve".into(), json!({"command": "/x"}))],
                "from {text:?}: {out}"
            );
            assert!(
                out.contains("- name: sieve\n"),
                "block style from {text:?}: {out}"
            );
            let kept = text
                .trim_end_matches("mcpServers: []\n")
                .trim_end_matches("mcpServers:\n");
            assert!(out.starts_with(kept.trim_end()), "{out}");
        }
        assert_eq!(
            {
                let mut file = parse("# my settings\n");
                file.set(CONTINUE, "sieve", &json!({"command": "/x"}))
                    .unwrap();
                file.render()
            },
            "# my settings\nmcpServers:\n- name: sieve\n  command: /x\n"
        );
        for text in [
            "",
            "# c\n",
            "extensions:\n",
            "extensions: {}\n",
            "GOOSE_MODE: auto\n",
        ] {
            let mut file = parse(text);
            file.set(GOOSE, "sieve", &json!({"cmd": "/x", "envs": {"A": "1"}}))
                .unwrap();
            let out = file.render();
            assert_eq!(
                parse(&out).servers(GOOSE).unwrap().unwrap(),
                [("sieve".into(), json!({"cmd": "/x", "envs": {"A": "1"}}))],
                "from {text:?}: {out}"
            );
            assert!(
                out.contains("  sieve:\n"),
                "block style from {text:?}: {out}"
            );
        }
    }

    #[test]
    fn a_nested_map_path_is_made_where_missing() {
        let nested = ServerList::Map(&["mcp", "servers"]);
        for text in [
            "",
            "theme: dark\n",
            "mcp:\n",
            "mcp: {}\n",
            "mcp:\n  enabled: true\n",
        ] {
            let mut file = parse(text);
            file.set(nested, "x", &json!({"command": "/x"})).unwrap();
            let out = file.render();
            assert_eq!(
                parse(&out).servers(nested).unwrap().unwrap(),
                [("x".into(), json!({"command": "/x"}))],
                "from {text:?}: {out}"
            );
        }
    }

    #[test]
    fn replacing_a_server_changes_only_its_changed_lines() {
        let mut file = parse(CONTINUE_FILE);
        file.set(
            CONTINUE,
            "github",
            &json!({
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {"GITHUB_TOKEN": "ghp_y"},
            }),
        )
        .unwrap();
        let text = file.render();
        let (added, gone) = changed_lines(CONTINUE_FILE, &text);
        assert_eq!(
            gone,
            ["      GITHUB_TOKEN: ghp_x # from the keychain later"]
        );
        assert_eq!(added.len(), 1, "{added:?}");
        assert!(
            added[0].starts_with("      GITHUB_TOKEN: ghp_y"),
            "{added:?}"
        );
        assert!(text.contains("  # for the repo\n  - name: github\n"));
        assert_eq!(names(&parse(&text), CONTINUE), ["github", "docs"]);
    }

    #[test]
    fn replacing_keeps_the_place_and_drops_keys_no_longer_there() {
        let mut file = parse(CONTINUE_FILE);
        file.set(
            CONTINUE,
            "github",
            &json!({"type": "streamable-http", "url": "https://gh.test"}),
        )
        .unwrap();
        let text = file.render();
        let again = parse(&text);
        assert_eq!(names(&again, CONTINUE), ["github", "docs"]);
        assert_eq!(
            again.servers(CONTINUE).unwrap().unwrap()[0].1,
            json!({"type": "streamable-http", "url": "https://gh.test"})
        );
        assert!(text.contains("  - uses: anthropic/memory-mcp\n"), "{text}");
        assert!(
            text.ends_with("# rules last\nrules:\n  - Be brief\n"),
            "{text}"
        );

        let mut file = parse(GOOSE_FILE);
        file.set(
            GOOSE,
            "developer",
            &json!({"type": "builtin", "name": "developer"}),
        )
        .unwrap();
        let text = file.render();
        assert!(text.contains("extensions:\n  developer:\n    name: developer\n    type: builtin\n  # fetches pages\n"), "{text}");
    }

    #[test]
    fn setting_the_same_entries_again_changes_nothing() {
        for (text, list) in [(CONTINUE_FILE, CONTINUE), (GOOSE_FILE, GOOSE)] {
            let mut file = parse(text);
            for (name, entry) in file.servers(list).unwrap().unwrap() {
                file.set(list, &name, &entry).unwrap();
            }
            assert_eq!(file.render(), text);
        }
    }

    #[test]
    fn a_duplicate_name_in_the_list_is_folded_into_the_first() {
        let text = "mcpServers:\n  - name: a\n    command: one\n  - name: b\n    command: two\n  - name: a\n    command: three\n";
        let mut file = parse(text);
        assert_eq!(names(&file, CONTINUE), ["a", "b", "a"]);
        file.set(CONTINUE, "a", &json!({"command": "four"}))
            .unwrap();
        assert_eq!(
            file.render(),
            "mcpServers:\n  - name: a\n    command: four\n  - name: b\n    command: two\n"
        );
        let mut file = parse(text);
        assert!(file.remove(CONTINUE, "a").unwrap());
        assert_eq!(names(&file, CONTINUE), ["b"]);
    }

    #[test]
    fn remove_takes_out_the_server_and_nothing_else() {
        let mut file = parse(CONTINUE_FILE);
        assert!(file.remove(CONTINUE, "docs").unwrap());
        assert!(!file.remove(CONTINUE, "docs").unwrap());
        let text = file.render();
        let (added, gone) = changed_lines(CONTINUE_FILE, &text);
        assert_eq!(added, Vec::<&str>::new());
        assert_eq!(
            gone,
            [
                "  - name: docs",
                "    type: streamable-http",
                "    url: https://docs.test/mcp",
                "    requestOptions:",
                "      headers:",
                "        Authorization: Bearer t",
            ]
        );

        let mut file = parse(GOOSE_FILE);
        assert!(file.remove(GOOSE, "developer").unwrap());
        let text = file.render();
        assert!(text.starts_with("GOOSE_PROVIDER: openai\nGOOSE_MODEL: gpt-4o\nextensions:\n  # fetches pages\n  fetch:\n"), "{text}");
        assert_eq!(names(&parse(&text), GOOSE), ["fetch"]);
        assert!(!parse("").remove(GOOSE, "x").unwrap());
        assert!(!parse("").remove(CONTINUE, "x").unwrap());
    }

    #[test]
    fn names_that_need_quotes_round_trip() {
        let mut file = parse(GOOSE_FILE);
        for name in ["my.server", "a: b", "#hash", "123", "true", "- dash"] {
            file.set(GOOSE, name, &json!({"cmd": "/x"})).unwrap();
        }
        let text = file.render();
        assert_eq!(
            names(&parse(&text), GOOSE),
            [
                "developer",
                "fetch",
                "my.server",
                "a: b",
                "#hash",
                "123",
                "true",
                "- dash"
            ],
            "{text}"
        );
        let mut again = parse(&text);
        assert!(again.remove(GOOSE, "123").unwrap());
        assert!(again.remove(GOOSE, "a: b").unwrap());

        let mut file = parse("");
        file.set(
            CONTINUE,
            "a: b",
            &json!({"command": "/x", "args": ["--flag", "x: y", ""]}),
        )
        .unwrap();
        let again = parse(&file.render());
        assert_eq!(
            again.servers(CONTINUE).unwrap().unwrap(),
            [(
                "a: b".into(),
                json!({"command": "/x", "args": ["--flag", "x: y", ""]})
            )]
        );
    }

    #[test]
    fn every_json_value_is_written_and_read_back() {
        let entry = json!({
            "s": "text", "multi": "line\nbreak", "quoted": "true", "n": 3, "neg": -7,
            "big": 18446744073709551615u64, "f": 0.25, "b": false,
            "list": [1, "two", null, {"k": "v"}, []], "empty": {}, "deep": {"a": {"b": "c"}},
        });
        let mut file = parse("extensions: {}\n");
        file.set(GOOSE, "x", &entry).unwrap();
        let again = parse(&file.render());
        assert_eq!(
            again.servers(GOOSE).unwrap().unwrap()[0].1,
            entry,
            "{}",
            file.render()
        );
    }

    #[test]
    fn wrong_shapes_are_said_in_words() {
        let error = parse("mcpServers: 3\n").servers(CONTINUE).unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"mcpServers\" is a number, not a list of servers"
        );
        let error = parse("mcpServers: {a: 1}\n")
            .set(CONTINUE, "x", &json!({}))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"mcpServers\" is a mapping, not a list of servers"
        );
        let error = parse("mcpServers:\n  - name: a\n  - just text\n")
            .servers(CONTINUE)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "item 2 of \"mcpServers\" is a string, not a mapping with a \"name\""
        );
        let error = parse("extensions:\n  - a\n").servers(GOOSE).unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"extensions\" is a list, not a mapping of servers by name"
        );
        let error = parse("extensions:\n  fetch: uvx\n")
            .servers(GOOSE)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "server \"fetch\" in \"extensions\" is a string, not a mapping of its settings"
        );
        for (text, kind) in [
            ("- a\n", "a list"),
            ("just text\n", "a scalar"),
            ("~\n", "a scalar"),
        ] {
            let error = parse(text).servers(GOOSE).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("the top of the file is {kind}, not a mapping of settings")
            );
            assert!(parse(text).set(CONTINUE, "x", &json!({})).is_err());
        }
        let error = parse("a: 1\n---\nb: 2\n").servers(GOOSE).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the file holds 2 YAML documents split by ---, not one"
        );
        assert!(parse("").set(GOOSE, "x", &json!("uvx")).is_err());
        let error = parse("base: &b {a: 1}\nextensions: *b\n")
            .servers(GOOSE)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"extensions\" is an alias, not a mapping of servers by name"
        );
    }

    #[test]
    fn a_server_that_is_not_a_mapping_is_replaced_by_one() {
        let mut file = parse("extensions:\n  fetch: uvx # old\n  other: {}\n");
        file.set(GOOSE, "fetch", &json!({"cmd": "uvx"})).unwrap();
        assert_eq!(
            parse(&file.render()).servers(GOOSE).unwrap().unwrap()[0],
            ("fetch".into(), json!({"cmd": "uvx"}))
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        for (text, line, column) in [
            ("name: x\nmcpServers: [1, 2\n", 3, 1),
            ("a: 'open\n", 1, 4),
            ("a: 1\na: 2\n", 2, 1),
            ("a:\n\tb: 1\n", 2, 1),
            ("a: *nowhere\n", 1, 4),
            ("a:\n  b: 1\n c: 2\n", 3, 1),
            ("a: b: c\n", 1, 5),
        ] {
            let error = YamlFile::parse(text).unwrap_err();
            assert_eq!(
                (error.line, error.column),
                (line, column),
                "{text:?}: {error}"
            );
            assert!(
                !error.message.is_empty() && !error.message.contains("Suggestion"),
                "{error}"
            );
        }
    }
}
