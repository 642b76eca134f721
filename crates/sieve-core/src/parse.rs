//! Parsing JSON documents with errors a person can act on.
//!
//! Every file error carries the file, the line and column, the field path
//! (`tools.deny[1]`) and what was expected there. Syntax and type errors get
//! their position from `serde_json`; errors found after decoding (an invalid
//! glob, an unknown concern value) are located by finding the offending
//! value in the source text.

use serde::de::DeserializeOwned;
use std::fmt;

/// A document that could not be used, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct ParseError {
    /// The file (or other source) the text came from.
    pub file: String,
    /// 1-based line; 0 when the position is unknown.
    pub line: usize,
    /// 1-based column; 0 when the position is unknown.
    pub column: usize,
    /// The field path, e.g. `tools.deny[1]`; empty for the whole document.
    pub path: String,
    /// What was wrong and what was expected.
    pub expected: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.path.is_empty() && self.path != "." {
            write!(f, ": {}", self.path)?;
        }
        write!(f, ": {}", self.expected)
    }
}

/// Decodes `text` (from `file`) into `T`, with the field path in errors.
pub fn decode<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, ParseError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let path = err.path().to_string();
        from_json(file, text, path, err.into_inner())
    })?;
    // Trailing garbage after the document is an error too.
    de.end()
        .map_err(|err| from_json(file, text, String::new(), err))?;
    Ok(value)
}

fn from_json(file: &str, text: &str, path: String, err: serde_json::Error) -> ParseError {
    let (line, column) = char_column(text, err.line(), err.column());
    ParseError {
        file: file.to_string(),
        line,
        column,
        path,
        expected: without_string_value(&strip_position(&err.to_string())),
    }
}

/// serde quotes a string found where another type belongs (`invalid type:
/// string "Bearer …", expected a map`). That string may be a secret, an
/// env or header value written where the map belongs, so the message says
/// only that it was a string; the path says where.
fn without_string_value(message: &str) -> String {
    for kind in ["invalid type: ", "invalid value: "] {
        let Some(start) = message.find(&format!("{kind}string \"")) else {
            continue;
        };
        let Some(end) = message.rfind("\", expected") else {
            continue;
        };
        if end > start {
            return format!("{}{kind}a string{}", &message[..start], &message[end + 1..]);
        }
    }
    message.to_string()
}

/// `serde_json` counts columns in bytes, and says column 0 when it stopped
/// right after a newline; a person (and [`line_column`]) counts characters
/// from 1, so a line with `é` or `名` before the error is not off.
fn char_column(text: &str, line: usize, byte_column: usize) -> (usize, usize) {
    let Some(line_text) = line.checked_sub(1).and_then(|i| text.split('\n').nth(i)) else {
        return (line, byte_column);
    };
    // An error inside a multi-byte character is at that character.
    let mut end = byte_column.min(line_text.len());
    while !line_text.is_char_boundary(end) {
        end += 1;
    }
    (line, line_text[..end].chars().count().max(1))
}

/// `serde_json` appends " at line L column C"; we print the position first.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// A value that should be a list of strings and is not; `path` says where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path} must be a list of strings")]
#[non_exhaustive]
pub struct StringListError {
    pub path: String,
}

/// Reads an optional JSON list of strings (absent or null is empty); the
/// error says `{path} must be a list of strings`.
pub fn string_list(
    value: Option<&serde_json::Value>,
    path: &str,
) -> Result<Vec<String>, StringListError> {
    use serde_json::Value;
    let wrong = || StringListError {
        path: path.to_string(),
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(String::from).ok_or_else(wrong))
            .collect(),
        Some(_) => Err(wrong()),
    }
}

/// Builds an error for a value found invalid after decoding, located at the
/// first occurrence of `needle` (a JSON string value) in `text`.
pub fn error_at(file: &str, text: &str, path: &str, needle: &str, expected: String) -> ParseError {
    let quoted = serde_json::to_string(needle).unwrap_or_default();
    let (line, column) = match text.find(&quoted) {
        Some(offset) => line_column(text, offset),
        None => (0, 0),
    };
    ParseError {
        file: file.to_string(),
        line,
        column,
        path: path.to_string(),
        expected,
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        items: Vec<Item>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Item {
        n: u32,
    }

    #[test]
    fn type_errors_name_path_line_and_column() {
        let text = "{\n  \"items\": [{\"n\": 1}, {\"n\": \"two\"}]\n}";
        let err = decode::<Doc>("doc.json", text).unwrap_err();
        assert_eq!(err.line, 2);
        assert_eq!(err.path, "items[1].n");
        assert!(err.expected.contains("expected u32"), "{}", err.expected);
        assert!(err.to_string().starts_with("doc.json:2:"), "{err}");
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let err = decode::<Doc>("doc.json", "{\n  \"items\": [\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.expected.contains("EOF"), "{}", err.expected);
    }

    #[test]
    fn unknown_fields_and_trailing_text_are_rejected() {
        let err = decode::<Doc>("d", "{\"item\": []}").unwrap_err();
        assert!(
            err.expected.contains("unknown field `item`"),
            "{}",
            err.expected
        );
        let err = decode::<Doc>("d", "{\"items\": []} x").unwrap_err();
        assert!(err.expected.contains("trailing"), "{}", err.expected);
    }

    #[test]
    fn a_string_in_the_wrong_place_is_not_quoted() {
        let err = decode::<Doc>("d", r#"{"items": "Bearer s3cr3t, expected"}"#).unwrap_err();
        assert!(!err.to_string().contains("s3cr3t"), "{err}");
        assert!(
            err.expected.starts_with("invalid type: a string, expected"),
            "{err}"
        );
    }

    #[test]
    fn columns_count_characters_from_one() {
        // At the string's closing quote: serde_json says column 36 (bytes)
        // of a line 25 characters long.
        let err = decode::<Doc>("d", "{\"items\": \"éééééééééééé\"}").unwrap_err();
        assert_eq!((err.line, err.column), (1, 24), "{err}");
        // serde_json says 2:0 at the end of "{\n".
        let err = decode::<Doc>("d", "{\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 1), "{err}");
    }

    #[test]
    fn error_at_locates_the_value() {
        let text = "{\n  \"deny\": [\"ok\", \"[bad\"]\n}";
        let err = error_at("p.json", text, "deny[1]", "[bad", "invalid".into());
        assert_eq!((err.line, err.column), (2, 18));
        assert_eq!(err.to_string(), "p.json:2:18: deny[1]: invalid");
    }
}
