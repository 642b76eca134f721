//! [`Id`]: a JSON-RPC id, a number or a string.

use serde::{Deserialize, Serialize};
use serde_json::Number;
use std::fmt;

/// A JSON-RPC id: a number or a string, compared and hashed as JSON-RPC
/// compares them (`7` and `"7"` are two ids; `7` is one id however its
/// message spelled it). `null` is no id: [`Message::id`](crate::Message::id)
/// gives `None` for an error response that names none.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    Number(Number),
    String(String),
}

impl Id {
    /// The id in `value`, when it is a number or a string.
    pub fn from_value(value: &serde_json::Value) -> Option<Id> {
        match value {
            serde_json::Value::Number(n) => Some(Id::Number(n.clone())),
            serde_json::Value::String(s) => Some(Id::String(s.clone())),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            Id::Number(n) => serde_json::Value::Number(n.clone()),
            Id::String(s) => serde_json::Value::String(s.clone()),
        }
    }

    /// Appends the id's JSON text to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            // Writing a number into a Vec cannot fail.
            Id::Number(n) => serde_json::to_writer(out, n).unwrap_or_default(),
            Id::String(s) => crate::write::string(s, out),
        }
    }
}

/// The id's JSON text: `7`, `"7"` (the key it is looked up by).
impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = Vec::new();
        self.write_json(&mut text);
        f.write_str(&String::from_utf8_lossy(&text))
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Id {
        Id::Number(n.into())
    }
}

impl From<u64> for Id {
    fn from(n: u64) -> Id {
        Id::Number(n.into())
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Id {
        Id::String(s.to_string())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Id {
        Id::String(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn numbers_and_strings_are_different_ids() {
        let ids: HashSet<Id> = [Id::from(7i64), Id::from("7"), Id::from(7u64)]
            .into_iter()
            .collect();
        assert_eq!(ids.len(), 2, "7 twice, \"7\" once: {ids:?}");
        assert_eq!(Id::from(7i64).to_string(), "7");
        assert_eq!(Id::from("a\"b").to_string(), r#""a\"b""#);
        let parsed: Id = serde_json::from_str("7").expect("a number id");
        assert_eq!(parsed, Id::from(7i64));
    }
}
