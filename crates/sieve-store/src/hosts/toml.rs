//! Codex CLI's `config.toml`, edited through toml_edit's document: what is
//! not changed keeps its bytes, comments, order and quoting included.
//!
//! Servers are tables, `[mcp_servers.NAME]` (dotted keys and inline tables
//! are read too). Their values come out as JSON: strings, integers, floats,
//! booleans, arrays, tables and inline tables as objects, datetimes as their
//! text. A new server is written as a standard table after the last one
//! (after the comments that end the file, when it is written last), the
//! objects inside it (`env`, `http_headers`) as inline tables; JSON nulls
//! are left out, TOML having none. An existing server is changed in place
//! key by key, so a key whose value stays the same keeps its line, its
//! comments and its spelling, and a changed value keeps the comment after
//! it; a changed inline table is written anew. Removing a server removes
//! its table with the comment lines just above its header, which toml_edit
//! counts as the table's own. toml_edit writes line breaks as `\n`: a file
//! whose lines end in `\r\n` gets them back on every line once changed.

use super::document::{Document, ServerList, ShapeError, SyntaxError};
use serde_json::{Map, Value};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike};

/// A host's TOML file.
#[derive(Debug)]
pub(crate) struct TomlFile {
    doc: DocumentMut,
    /// The text parsed, given back as it was while nothing has changed.
    original: String,
}

impl TomlFile {
    pub(crate) fn parse(text: &str) -> Result<TomlFile, SyntaxError> {
        let doc = text.parse::<DocumentMut>().map_err(|error| {
            let (line, column) = line_column(text, error.span().map_or(0, |span| span.start));
            SyntaxError {
                line,
                column,
                message: error.message().trim().to_string(),
            }
        })?;
        Ok(TomlFile {
            doc,
            original: text.to_string(),
        })
    }

    /// The table of servers at `path`; `None` when it is not there.
    fn table_at(&self, path: &[&str]) -> Result<Option<&dyn TableLike>, ShapeError> {
        let mut table: &dyn TableLike = self.doc.as_table();
        for (depth, key) in path.iter().enumerate() {
            table = match table.get(key) {
                None | Some(Item::None) => return Ok(None),
                Some(item) => item
                    .as_table_like()
                    .ok_or_else(|| not_a_table(&path[..=depth], item))?,
            };
        }
        Ok(Some(table))
    }

    /// The table of servers at `path`, made (with the tables above it) when
    /// missing.
    fn table_at_mut(&mut self, path: &[&str]) -> Result<&mut dyn TableLike, ShapeError> {
        let mut table: &mut dyn TableLike = self.doc.as_table_mut();
        for (depth, key) in path.iter().enumerate() {
            if table.get(key).is_none_or(Item::is_none) {
                // Implicit: no `[mcp_servers]` header of its own, only the
                // `[mcp_servers.NAME]` tables under it.
                let mut made = Table::new();
                made.set_implicit(true);
                table.insert(key, Item::Table(made));
            }
            let item = table.get_mut(key).expect("made when missing");
            if !item.is_table_like() {
                return Err(not_a_table(&path[..=depth], item));
            }
            table = item.as_table_like_mut().expect("checked to be a table");
        }
        Ok(table)
    }

    /// Puts the comments that end the file (which toml_edit keeps after
    /// every table) above server `name`, new at `path`, when it is the
    /// table written last: so a file of only comments keeps them on top.
    fn after_trailing_comments(&mut self, path: &[&str], name: &str) {
        let trailing = self.doc.trailing().as_str().unwrap_or_default().to_string();
        if trailing.is_empty() {
            return;
        }
        let Ok(Some(container)) = self.table_at(path) else {
            return;
        };
        let Some(Item::Table(new)) = container.get(name) else {
            return;
        };
        if !is_written_last(&self.doc, new) {
            return;
        }
        let mut prefix = trailing;
        if !prefix.trim().is_empty() {
            prefix.push('\n');
        }
        self.doc.set_trailing("");
        if let Ok(container) = self.table_at_mut(path)
            && let Some(Item::Table(new)) = container.get_mut(name)
        {
            new.decor_mut().set_prefix(prefix);
        }
    }
}

/// Whether toml_edit writes `table` after every other table of `doc`: it
/// writes them in the order they had in the file, a table made since right
/// after the one before it in the tree.
fn is_written_last(doc: &DocumentMut, table: &Table) -> bool {
    fn visit<'t>(table: &'t Table, top: bool, each: &mut impl FnMut(&'t Table, bool)) {
        if !table.is_dotted() {
            each(table, top);
        }
        for (_, item) in table.iter() {
            match item {
                Item::Table(inner) => visit(inner, false, each),
                Item::ArrayOfTables(tables) => {
                    for inner in tables.iter() {
                        visit(inner, false, each);
                    }
                }
                _ => {}
            }
        }
    }
    let mut order = Vec::new();
    let mut position = 0;
    visit(doc.as_table(), true, &mut |each, top| {
        position = each.position().unwrap_or(position);
        order.push((!top, position, std::ptr::eq(each, table)));
    });
    order.sort_by_key(|&(nested, position, _)| (nested, position));
    order.last().is_some_and(|&(_, _, it)| it)
}

fn not_a_table(path: &[&str], item: &Item) -> ShapeError {
    ShapeError(format!(
        "{:?} is {}, not a table of servers",
        path.join("."),
        with_article(item.type_name())
    ))
}

fn with_article(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

fn map_path(list: ServerList) -> Result<&'static [&'static str], ShapeError> {
    match list {
        ServerList::Map(path) => Ok(path),
        ServerList::List { key, .. } => Err(ShapeError(format!(
            "a list of servers under {key:?} is not a shape any TOML host uses"
        ))),
    }
}

impl Document for TomlFile {
    fn servers(&self, list: ServerList) -> Result<Option<Vec<(String, Value)>>, ShapeError> {
        let path = map_path(list)?;
        let Some(table) = self.table_at(path)? else {
            return Ok(None);
        };
        table
            .iter()
            .map(|(name, item)| match item.as_table_like() {
                Some(server) => Ok((name.to_string(), table_json(server))),
                None => Err(ShapeError(format!(
                    "server {name:?} in {:?} is {}, not a table of its settings",
                    path.join("."),
                    with_article(item.type_name())
                ))),
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    fn set(&mut self, list: ServerList, name: &str, entry: &Value) -> Result<(), ShapeError> {
        let Value::Object(fields) = entry else {
            return Err(ShapeError(format!(
                "the entry for server {name:?} is not an object of settings"
            )));
        };
        let path = map_path(list)?;
        let table = self.table_at_mut(path)?;
        match table.get_mut(name) {
            // In place: a table merged, an inline one (or a stray value)
            // replaced where it stands.
            Some(item) => assign(item, entry),
            // An inline table of servers turns the new one inline itself.
            None => {
                table.insert(name, Item::Table(new_table(fields)));
                self.after_trailing_comments(path, name);
            }
        }
        Ok(())
    }

    fn remove(&mut self, list: ServerList, name: &str) -> Result<bool, ShapeError> {
        let path = map_path(list)?;
        if self.table_at(path)?.is_none() {
            return Ok(false);
        }
        Ok(self
            .table_at_mut(path)?
            .remove(name)
            .is_some_and(|item| !item.is_none()))
    }

    fn render(&self) -> String {
        let text = self.doc.to_string();
        if self.original.contains("\r\n") {
            if text == self.original.replace("\r\n", "\n") {
                return self.original.clone();
            }
            return text.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        text
    }
}

fn new_table(entry: &Map<String, Value>) -> Table {
    let mut table = Table::new();
    merge(&mut table, entry);
    table
}

/// Makes `table` hold `entry`: keys gone from it removed, a key whose value
/// is the same left as written, a table (with its comments) merged the same
/// way, any other value replaced, new keys at the end.
fn merge(table: &mut dyn TableLike, entry: &Map<String, Value>) {
    let gone: Vec<String> = table
        .iter()
        .map(|(key, _)| key.to_string())
        .filter(|key| entry.get(key).is_none_or(Value::is_null))
        .collect();
    for key in gone {
        table.remove(&key);
    }
    for (key, value) in entry {
        let Some(item) = table.get_mut(key) else {
            if let Some(new) = toml_value(value) {
                table.insert(key, Item::Value(new));
            }
            continue;
        };
        let was_value = item.is_value();
        assign(item, value);
        if !was_value && let Some(mut key) = table.key_mut(key) {
            // A key from a `[a.b]` header, now `b = ..`: spaced as new.
            key.fmt();
        }
    }
}

/// Makes `item` be `value` (not null): left as written when it already is,
/// merged when both are tables, else replaced keeping the comment after it.
fn assign(item: &mut Item, value: &Value) {
    if item_json(item).as_ref() == Some(value) {
        return;
    }
    if let (Item::Table(table), Value::Object(object)) = (&mut *item, value) {
        return merge(table, object);
    }
    let Some(mut new) = toml_value(value) else {
        return;
    };
    if let Some(old) = item.as_value() {
        *new.decor_mut() = old.decor().clone();
    }
    *item = Item::Value(new);
}

/// `value` in TOML; `None` for null, which TOML cannot say.
fn toml_value(value: &Value) -> Option<toml_edit::Value> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64()?.into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            toml_edit::Value::Array(items.iter().filter_map(toml_value).collect::<Array>())
        }
        Value::Object(object) => {
            let mut table = InlineTable::new();
            merge(&mut table, object);
            toml_edit::Value::InlineTable(table)
        }
    })
}

fn item_json(item: &Item) -> Option<Value> {
    match item {
        Item::None => None,
        Item::Value(value) => Some(value_json(value)),
        Item::Table(table) => Some(table_json(table)),
        Item::ArrayOfTables(tables) => Some(Value::Array(
            tables.iter().map(|table| table_json(table)).collect(),
        )),
    }
}

fn table_json(table: &dyn TableLike) -> Value {
    Value::Object(
        table
            .iter()
            .filter_map(|(key, item)| Some((key.to_string(), item_json(item)?)))
            .collect(),
    )
}

fn value_json(value: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match value {
        V::String(s) => Value::String(s.value().clone()),
        V::Integer(i) => Value::from(*i.value()),
        // A float JSON cannot hold (nan, inf) is null.
        V::Float(f) => Value::from(*f.value()),
        V::Boolean(b) => Value::Bool(*b.value()),
        V::Datetime(d) => Value::String(d.value().to_string()),
        V::Array(items) => Value::Array(items.iter().map(value_json).collect()),
        V::InlineTable(table) => table_json(table),
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use crate::hosts::document::testing::changed_lines;

    fn names(file: &TomlFile) -> Vec<String> {
        crate::hosts::document::testing::names(file, SERVERS)
    }
    use super::*;
    use serde_json::json;

    const SERVERS: ServerList = ServerList::Map(&["mcp_servers"]);

    const CONFIG: &str = r#"# Codex settings
model = "o3"  # the default model
approval_policy = "on-request"

[profiles.fast]
model = "o4-mini"

# GitHub's server, from npm
[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"] # pinned later
env = { GITHUB_TOKEN = "ghp_x" }
startup_timeout_sec = 20

[mcp_servers."docs.internal"]
url = "https://docs.test/mcp"
http_headers = { Authorization = "Bearer t" }
enabled = false

[sandbox_workspace_write]
network_access = true # keep me
"#;

    fn parse(text: &str) -> TomlFile {
        TomlFile::parse(text).unwrap_or_else(|error| panic!("{error} in {text:?}"))
    }

    #[test]
    fn an_untouched_file_renders_byte_for_byte() {
        let odd = "a=1\r\nb = 'x' # c\r\n\r\n[t]  # head\r\n  k  =  [ 1 ,2, ]\r\n";
        for text in [CONFIG, "", "\n\n# only a comment", odd] {
            assert_eq!(parse(text).render(), text);
        }
    }

    #[test]
    fn servers_come_out_as_json_in_the_files_order() {
        let file = parse(CONFIG);
        let servers = file.servers(SERVERS).unwrap().unwrap();
        assert_eq!(
            servers,
            [
                (
                    "github".to_string(),
                    json!({
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-github"],
                        "env": {"GITHUB_TOKEN": "ghp_x"},
                        "startup_timeout_sec": 20,
                    })
                ),
                (
                    "docs.internal".to_string(),
                    json!({
                        "url": "https://docs.test/mcp",
                        "http_headers": {"Authorization": "Bearer t"},
                        "enabled": false,
                    })
                ),
            ]
        );
    }

    #[test]
    fn every_toml_value_has_a_json_reading() {
        let file = parse(
            "[mcp_servers.x]\nenv.A = \"1\"\nratio = 1.5\nwhen = 1979-05-27T07:32:00Z\n\
             nested = { deep = { on = true } }\n\n[mcp_servers.x.http_headers]\nX-Key = 'lit'\n\n\
             [[mcp_servers.x.tools]]\nname = \"a\"\n",
        );
        assert_eq!(
            file.servers(SERVERS).unwrap().unwrap()[0].1,
            json!({
                "env": {"A": "1"},
                "ratio": 1.5,
                "when": "1979-05-27T07:32:00Z",
                "nested": {"deep": {"on": true}},
                "http_headers": {"X-Key": "lit"},
                "tools": [{"name": "a"}],
            })
        );
    }

    #[test]
    fn a_file_without_servers_has_none() {
        for text in [
            "",
            "# nothing\n",
            "model = \"o3\"\n[profiles.a]\nmodel = \"b\"\n",
        ] {
            assert_eq!(parse(text).servers(SERVERS).unwrap(), None, "{text:?}");
        }
        assert_eq!(
            parse("[mcp_servers]\n").servers(SERVERS).unwrap(),
            Some(vec![])
        );
    }

    #[test]
    fn a_new_server_is_a_standard_table_after_the_last_one() {
        let mut file = parse(CONFIG);
        file.set(
            SERVERS,
            "sieve",
            &json!({
                "command": "/usr/bin/mcp-sieve",
                "args": ["serve", "--profile", "codex"],
                "env": {"RUST_LOG": "warn", "EMPTY": null},
                "startup_timeout_sec": 30,
                "cwd": null,
            }),
        )
        .unwrap();
        let text = file.render();
        let expected = CONFIG.replace(
            "[sandbox_workspace_write]",
            "[mcp_servers.sieve]\ncommand = \"/usr/bin/mcp-sieve\"\n\
             args = [\"serve\", \"--profile\", \"codex\"]\nenv = { RUST_LOG = \"warn\" }\n\
             startup_timeout_sec = 30\n\n[sandbox_workspace_write]",
        );
        assert_eq!(text, expected);
        assert_eq!(names(&parse(&text)), ["github", "docs.internal", "sieve"]);
    }

    #[test]
    fn servers_are_made_in_an_empty_file_or_one_of_only_comments() {
        for text in ["", "# my settings\n", "model = \"o3\""] {
            let mut file = parse(text);
            file.set(
                SERVERS,
                "sieve",
                &json!({"command": "/x", "env": {"A": "1"}}),
            )
            .unwrap();
            let out = file.render();
            assert!(out.starts_with(text), "{out}");
            assert!(out.contains("[mcp_servers.sieve]\n"), "{out}");
            assert!(!out.contains("[mcp_servers]\n"), "{out}");
            let again = parse(&out);
            assert_eq!(
                again.servers(SERVERS).unwrap().unwrap(),
                [("sieve".into(), json!({"command": "/x", "env": {"A": "1"}}))],
                "{out}"
            );
        }
    }

    #[test]
    fn comments_that_end_the_file_stay_above_a_server_written_last() {
        let text = "model = \"o3\"\n# [mcp_servers.old]\n# command = \"x\"\n";
        let mut file = parse(text);
        file.set(SERVERS, "sieve", &json!({"command": "/x"}))
            .unwrap();
        assert_eq!(
            file.render(),
            format!("{text}\n[mcp_servers.sieve]\ncommand = \"/x\"\n")
        );
        // Not written last: the comments stay at the end.
        let text = "[mcp_servers.a]\ncommand = \"a\"\n\n[other]\nx = 1\n# end\n";
        let mut file = parse(text);
        file.set(SERVERS, "sieve", &json!({"command": "/x"}))
            .unwrap();
        assert_eq!(
            file.render(),
            "[mcp_servers.a]\ncommand = \"a\"\n\n[mcp_servers.sieve]\ncommand = \"/x\"\n\n\
             [other]\nx = 1\n# end\n"
        );
    }

    #[test]
    fn a_file_with_crlf_line_breaks_keeps_them() {
        let text = "model = 1\r\n\r\n[mcp_servers.a]\r\ncommand = \"a\" # c\r\n# end\r\n";
        let mut file = parse(text);
        file.set(SERVERS, "a", &json!({"command": "a"})).unwrap();
        assert_eq!(
            file.render(),
            text,
            "an unchanged file is given back as it was"
        );
        file.set(SERVERS, "b", &json!({"command": "b"})).unwrap();
        let out = file.render();
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
        assert!(!out.contains("\r\r"), "{out:?}");
        assert!(out.starts_with("model = 1\r\n\r\n[mcp_servers.a]\r\ncommand = \"a\" # c\r\n"));
        assert_eq!(names(&parse(&out)), ["a", "b"]);
    }

    #[test]
    fn replacing_a_server_changes_only_its_changed_lines() {
        let mut file = parse(CONFIG);
        file.set(
            SERVERS,
            "github",
            &json!({
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github@1.2"],
                "env": {"GITHUB_TOKEN": "ghp_x", "GITHUB_HOST": "ghe.test"},
                "startup_timeout_sec": 20,
            }),
        )
        .unwrap();
        let text = file.render();
        let (added, gone) = changed_lines(CONFIG, &text);
        assert_eq!(
            added,
            [
                "args = [\"-y\", \"@modelcontextprotocol/server-github@1.2\"] # pinned later",
                "env = { GITHUB_TOKEN = \"ghp_x\", GITHUB_HOST = \"ghe.test\" }",
            ]
        );
        assert_eq!(gone.len(), 2, "{gone:?}");
        assert!(text.contains("# GitHub's server, from npm\n[mcp_servers.github]"));
        assert_eq!(names(&parse(&text)), ["github", "docs.internal"]);
    }

    #[test]
    fn replacing_keeps_the_servers_place_and_drops_keys_no_longer_there() {
        let mut file = parse(CONFIG);
        file.set(SERVERS, "github", &json!({"url": "https://gh.test/mcp"}))
            .unwrap();
        let text = file.render();
        assert_eq!(names(&parse(&text)), ["github", "docs.internal"]);
        let github = &parse(&text).servers(SERVERS).unwrap().unwrap()[0].1;
        assert_eq!(github, &json!({"url": "https://gh.test/mcp"}));
        assert!(text.contains("[mcp_servers.github]\nurl = \"https://gh.test/mcp\"\n\n"));
        assert!(text.ends_with("[sandbox_workspace_write]\nnetwork_access = true # keep me\n"));
    }

    #[test]
    fn a_value_of_another_kind_replaces_a_subtable() {
        let text = "[mcp_servers.x]\ncommand = \"a\"\n\n[mcp_servers.x.env]\nA = \"1\"\n";
        let mut file = parse(text);
        file.set(SERVERS, "x", &json!({"command": "a", "env": "none"}))
            .unwrap();
        assert_eq!(
            file.render(),
            "[mcp_servers.x]\ncommand = \"a\"\nenv = \"none\"\n"
        );
    }

    #[test]
    fn setting_the_same_entry_again_changes_nothing() {
        let mut file = parse(CONFIG);
        for (name, entry) in file.servers(SERVERS).unwrap().unwrap() {
            file.set(SERVERS, &name, &entry).unwrap();
        }
        assert_eq!(file.render(), CONFIG);
    }

    #[test]
    fn names_that_need_quotes_round_trip() {
        let mut file = parse("");
        for name in ["my.server", "with space", "ünï", "a\"b"] {
            file.set(SERVERS, name, &json!({"command": "/x"})).unwrap();
        }
        let text = file.render();
        assert!(text.contains("[mcp_servers.\"my.server\"]"), "{text}");
        assert_eq!(
            names(&parse(&text)),
            ["my.server", "with space", "ünï", "a\"b"]
        );
        let mut again = parse(&text);
        assert!(again.remove(SERVERS, "my.server").unwrap());
        assert_eq!(names(&again), ["with space", "ünï", "a\"b"]);
    }

    #[test]
    fn remove_takes_out_the_table_and_nothing_else() {
        let mut file = parse(CONFIG);
        assert!(file.remove(SERVERS, "github").unwrap());
        assert!(!file.remove(SERVERS, "github").unwrap());
        let text = file.render();
        let (added, gone) = changed_lines(CONFIG, &text);
        assert_eq!(added, Vec::<&str>::new());
        assert_eq!(
            gone,
            [
                "# GitHub's server, from npm",
                "[mcp_servers.github]",
                "command = \"npx\"",
                "args = [\"-y\", \"@modelcontextprotocol/server-github\"] # pinned later",
                "env = { GITHUB_TOKEN = \"ghp_x\" }",
                "startup_timeout_sec = 20",
            ]
        );
        assert_eq!(names(&parse(&text)), ["docs.internal"]);
        assert!(!parse("").remove(SERVERS, "x").unwrap());
    }

    #[test]
    fn servers_written_inline_or_with_dotted_keys_stay_so() {
        let inline = "[mcp_servers]\nx = { command = \"a\" }\n";
        let mut file = parse(inline);
        file.set(SERVERS, "x", &json!({"command": "b"})).unwrap();
        file.set(SERVERS, "y", &json!({"command": "c"})).unwrap();
        let text = file.render();
        assert!(
            text.starts_with("[mcp_servers]\nx = { command = \"b\" }\n"),
            "{text}"
        );
        assert_eq!(names(&parse(&text)), ["x", "y"]);

        let whole_inline = "mcp_servers = { x = { command = \"a\" } }\n";
        let mut file = parse(whole_inline);
        file.set(SERVERS, "y", &json!({"command": "c", "env": {"A": "1"}}))
            .unwrap();
        let again = parse(&file.render());
        assert_eq!(
            again.servers(SERVERS).unwrap().unwrap()[1],
            ("y".into(), json!({"command": "c", "env": {"A": "1"}}))
        );

        let dotted = "mcp_servers.x.command = \"a\"\nmcp_servers.x.args = [\"1\"]\n";
        let mut file = parse(dotted);
        file.set(SERVERS, "x", &json!({"command": "a", "args": ["2"]}))
            .unwrap();
        assert_eq!(
            file.render(),
            "mcp_servers.x.command = \"a\"\nmcp_servers.x.args = [\"2\"]\n"
        );
    }

    #[test]
    fn wrong_shapes_are_said_in_words() {
        let error = parse("mcp_servers = 3\n").servers(SERVERS).unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"mcp_servers\" is an integer, not a table of servers"
        );
        let error = parse("mcp_servers = [1]\n")
            .set(SERVERS, "x", &json!({}))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"mcp_servers\" is an array, not a table of servers"
        );
        let error = parse("[mcp_servers]\nx = \"npx\"\n")
            .servers(SERVERS)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "server \"x\" in \"mcp_servers\" is a string, not a table of its settings"
        );
        let nested = ServerList::Map(&["mcp", "servers"]);
        let error = parse("mcp = \"on\"\n").servers(nested).unwrap_err();
        assert!(
            error.to_string().starts_with("\"mcp\" is a string"),
            "{error}"
        );
        let list = ServerList::List {
            key: "servers",
            name_field: "name",
        };
        assert!(parse("").servers(list).is_err());
        assert!(parse("").set(SERVERS, "x", &json!("npx")).is_err());
    }

    #[test]
    fn a_server_that_is_not_a_table_is_replaced_by_one() {
        let mut file = parse("[mcp_servers]\nx = \"npx\"\n");
        file.set(SERVERS, "x", &json!({"command": "npx"})).unwrap();
        assert_eq!(
            parse(&file.render()).servers(SERVERS).unwrap().unwrap(),
            [("x".into(), json!({"command": "npx"}))]
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        let error = TomlFile::parse("model = \"o3\"\n[mcp_servers.x\ncommand = 1\n").unwrap_err();
        assert_eq!((error.line, error.column), (2, 15), "{error}");
        assert!(!error.message.is_empty());
        let error = TomlFile::parse("a = 1\nä = = 2\n").unwrap_err();
        assert_eq!(error.line, 2, "{error}");
        let error = TomlFile::parse("[t]\nk = 1\nk = 2\n").unwrap_err();
        assert_eq!(error.line, 3, "{error}");
    }

    #[test]
    fn line_and_column_count_characters_from_one() {
        assert_eq!(line_column("", 0), (1, 1));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
        assert_eq!(line_column("é\nxé", 6), (2, 3));
        assert_eq!(line_column("é\nxé", 5), (2, 2));
        assert_eq!(line_column("é", 1), (1, 1));
    }
}
