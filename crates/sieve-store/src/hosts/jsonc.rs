//! Hosts' JSON files, comments and trailing commas allowed, edited through
//! jsonc-parser's concrete syntax tree: what is not changed keeps its
//! bytes, comments and order included.

use super::document::{Document, ServerList, ShapeError, SyntaxError};
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::Value;

/// JSON as hosts read it: comments and trailing commas, nothing more.
pub fn options() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// A host's JSON file.
pub(crate) struct JsonFile {
    root: CstRootNode,
}

impl JsonFile {
    pub(crate) fn parse(text: &str) -> Result<JsonFile, SyntaxError> {
        // Parsed twice: the value parser says where a mistake is in the
        // terms a person reads, the tree is what gets edited.
        jsonc_parser::parse_to_value(text, &options()).map_err(|error| SyntaxError {
            line: error.line_display(),
            column: error.column_display(),
            message: error.kind().to_string(),
        })?;
        let root = CstRootNode::parse(text, &options()).map_err(|error| SyntaxError {
            line: error.line_display(),
            column: error.column_display(),
            message: error.kind().to_string(),
        })?;
        Ok(JsonFile { root })
    }

    /// The top-level object; `None` for an empty file.
    fn top(&self) -> Result<Option<CstObject>, ShapeError> {
        match self.root.value() {
            None => Ok(None),
            Some(value) => value
                .as_object()
                .map(Some)
                .ok_or_else(|| ShapeError("the file is not a JSON object".into())),
        }
    }

    /// The object at `path`, made (with the objects above it) when `make`.
    fn object_at(&self, path: &[&str], make: bool) -> Result<Option<CstObject>, ShapeError> {
        let mut object = match self.top()? {
            Some(top) => top,
            None if make => self.root.object_value_or_set(),
            None => return Ok(None),
        };
        for (depth, key) in path.iter().enumerate() {
            let place = path[..=depth].join(".");
            object = match object.get(key) {
                Some(prop) => match prop.value() {
                    Some(value) => match value.as_object() {
                        Some(inner) => inner,
                        None if value.to_serde_value() == Some(Value::Null) && make => {
                            prop.object_value_or_set()
                        }
                        None if value.to_serde_value() == Some(Value::Null) => return Ok(None),
                        None => {
                            return Err(ShapeError(format!(
                                "{place:?} is not an object of servers"
                            )));
                        }
                    },
                    None => return Ok(None),
                },
                None if make => object.object_value_or_set(key),
                None => return Ok(None),
            };
        }
        Ok(Some(object))
    }
}

fn map_path(list: ServerList) -> Result<&'static [&'static str], ShapeError> {
    match list {
        ServerList::Map(path) => Ok(path),
        ServerList::List { key, .. } => Err(ShapeError(format!(
            "a list of servers under {key:?} is not a shape any JSON host uses"
        ))),
    }
}

impl Document for JsonFile {
    fn servers(&self, list: ServerList) -> Result<Option<Vec<(String, Value)>>, ShapeError> {
        let Some(object) = self.object_at(map_path(list)?, false)? else {
            return Ok(None);
        };
        Ok(Some(
            object
                .properties()
                .into_iter()
                .filter_map(|prop| {
                    let name = prop.decoded_name()?;
                    let value = prop.value()?.to_serde_value()?;
                    Some((name, value))
                })
                .collect(),
        ))
    }

    fn set(&mut self, list: ServerList, name: &str, entry: &Value) -> Result<(), ShapeError> {
        let object = self
            .object_at(map_path(list)?, true)?
            .expect("made when missing");
        match object.get(name) {
            Some(prop) => prop.set_value(cst_value(entry)),
            None => {
                object.append(name, cst_value(entry));
            }
        }
        Ok(())
    }

    fn remove(&mut self, list: ServerList, name: &str) -> Result<bool, ShapeError> {
        let Some(object) = self.object_at(map_path(list)?, false)? else {
            return Ok(false);
        };
        match object.get(name) {
            Some(prop) => {
                prop.remove();
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn render(&self) -> String {
        self.root.to_string()
    }
}

/// `value` as the syntax tree takes it.
pub(crate) fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => CstInputValue::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), cst_value(value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SERVERS: ServerList = ServerList::Map(&["mcpServers"]);
    const NESTED: ServerList = ServerList::Map(&["mcp", "servers"]);

    const FILE: &str = r#"{
  // the user's theme
  "theme": "dark",
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "gh"] }, // kept
    "notes": {
      "url": "https://notes.test/mcp",
    },
  },
}
"#;

    #[test]
    fn an_untouched_file_renders_as_it_was() {
        let file = JsonFile::parse(FILE).unwrap();
        assert_eq!(file.render(), FILE);
    }

    #[test]
    fn servers_come_out_in_the_files_order() {
        let file = JsonFile::parse(FILE).unwrap();
        let servers = file.servers(SERVERS).unwrap().unwrap();
        let names: Vec<_> = servers.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["github", "notes"]);
        assert_eq!(
            servers[0].1,
            json!({"command": "npx", "args": ["-y", "gh"]})
        );
        assert_eq!(file.servers(NESTED).unwrap(), None);
    }

    #[test]
    fn set_replaces_in_place_and_adds_at_the_end_keeping_comments() {
        let mut file = JsonFile::parse(FILE).unwrap();
        file.set(SERVERS, "github", &json!({"command": "gh-mcp"}))
            .unwrap();
        file.set(
            SERVERS,
            "sieve",
            &json!({"command": "/bin/mcp-sieve", "args": ["serve"]}),
        )
        .unwrap();
        let text = file.render();
        assert!(
            text.contains("// the user's theme") && text.contains("// kept"),
            "{text}"
        );
        let again = JsonFile::parse(&text).unwrap();
        let names = again.servers(SERVERS).unwrap().unwrap();
        assert_eq!(names[0], ("github".into(), json!({"command": "gh-mcp"})));
        assert_eq!(names[2].0, "sieve");
    }

    #[test]
    fn remove_takes_out_one_server_only() {
        let mut file = JsonFile::parse(FILE).unwrap();
        assert!(file.remove(SERVERS, "notes").unwrap());
        assert!(!file.remove(SERVERS, "notes").unwrap());
        let text = file.render();
        let again = JsonFile::parse(&text).unwrap();
        assert_eq!(again.servers(SERVERS).unwrap().unwrap().len(), 1);
        assert!(text.contains("\"theme\": \"dark\""), "{text}");
    }

    #[test]
    fn lists_are_made_where_missing_even_nested_and_in_an_empty_file() {
        for start in ["", "{}", "// nothing yet\n", "{\"mcp\": null}"] {
            let mut file = JsonFile::parse(start).unwrap();
            file.set(NESTED, "sieve", &json!({"command": "/x"}))
                .unwrap();
            let again = JsonFile::parse(&file.render()).unwrap();
            assert_eq!(
                again.servers(NESTED).unwrap().unwrap(),
                [("sieve".to_string(), json!({"command": "/x"}))],
                "from {start:?}"
            );
        }
    }

    #[test]
    fn wrong_shapes_and_bad_syntax_are_said_in_words() {
        let error = JsonFile::parse("{\"mcpServers\": [1]}")
            .unwrap()
            .servers(SERVERS)
            .unwrap_err();
        assert_eq!(error.0, "\"mcpServers\" is not an object of servers");
        let error = JsonFile::parse("[]").unwrap().servers(SERVERS).unwrap_err();
        assert_eq!(error.0, "the file is not a JSON object");
        let error = JsonFile::parse("{\n  \"a\": }").err().unwrap();
        assert_eq!((error.line, error.column), (2, 8), "{error}");
    }
}
