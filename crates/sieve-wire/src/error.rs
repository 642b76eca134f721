//! [`Error`]: why bytes are not a message, in one sentence, with the
//! JSON-RPC code a server answers with and the id when it could be read.

use crate::Id;
use std::fmt;

/// JSON-RPC's code for text that is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid message.
pub const INVALID_REQUEST: i64 = -32600;

/// Why bytes are not a message (or a message's part is not the type asked
/// for). [`Error::code`] is the JSON-RPC code to answer with and
/// [`Error::id`] the message's id when it could be read, so the answer can
/// name the request it refuses.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    kind: ErrorKind,
    id: Option<Id>,
}

/// What is wrong; its `Display` is the sentence a person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    #[error("a message is empty")]
    Empty,
    #[error("a message is not JSON: it is not UTF-8 text (byte {at})")]
    NotUtf8 { at: usize },
    #[error("a message is not JSON: {reason} at line {line} column {column}")]
    NotJson {
        reason: String,
        line: usize,
        column: usize,
    },
    #[error("a message nests deeper than {limit} levels of arrays and objects")]
    TooDeep { limit: usize },
    #[error(
        "a message is a batch (a JSON array); MCP sends one message at a time since its 2025-06-18 revision"
    )]
    Batch,
    #[error("a message is a JSON object, not {found}")]
    NotObject { found: &'static str },
    #[error("a message has \"{field}\" twice")]
    Duplicate { field: &'static str },
    #[error("a message's \"jsonrpc\" is missing; it must be \"2.0\"")]
    NoVersion,
    #[error("a message's \"jsonrpc\" is {found}; it must be \"2.0\"")]
    WrongVersion { found: String },
    #[error("a message has no method, result or error")]
    NoKind,
    #[error("a message has both {0}")]
    Ambiguous(&'static str),
    #[error("a message's \"id\" is {found}; an id is a string or a number")]
    BadId { found: &'static str },
    #[error("a response has no \"id\"")]
    NoId,
    #[error("a message's \"method\" is {found}, not a string")]
    BadMethod { found: &'static str },
    #[error("a message's \"params\" are {found}; they are an object or an array")]
    BadParams { found: &'static str },
    #[error("a message's \"error\" is {found}, not an object")]
    BadError { found: &'static str },
    #[error("a message is over {limit} bytes")]
    TooLong { limit: usize },
    #[error("a message's {part} could not be read: {reason}")]
    Decode { part: &'static str, reason: String },
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind, id: None }
    }

    pub(crate) fn with_id(mut self, id: Option<Id>) -> Error {
        self.id = id;
        self
    }

    /// From a serde_json error over whole-message text.
    pub(crate) fn not_json(error: &serde_json::Error) -> Error {
        Error::new(ErrorKind::NotJson {
            reason: reason_of(error),
            line: error.line(),
            column: error.column(),
        })
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The message's id, when it could be read before the fault.
    pub fn id(&self) -> Option<&Id> {
        self.id.as_ref()
    }

    /// The JSON-RPC code of an answer refusing the message: `-32700` for
    /// what is not JSON, `-32600` for JSON that is no valid message.
    pub fn code(&self) -> i64 {
        match self.kind {
            ErrorKind::NotUtf8 { .. } | ErrorKind::NotJson { .. } | ErrorKind::Empty => PARSE_ERROR,
            _ => INVALID_REQUEST,
        }
    }

    /// The JSON-RPC error response refusing the message: this error's code
    /// and sentence, for its id (`null` when it could not be read).
    pub fn to_response(&self) -> Vec<u8> {
        crate::write::error_response(self.id.as_ref(), self.code(), &self.to_string(), None)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for Error {}

/// serde_json's description of a fault without its " at line L column C".
pub(crate) fn reason_of(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// What a JSON value is, for a sentence: "a number", "an array".
pub(crate) fn what(raw: &str) -> &'static str {
    match raw.as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use crate::{Error, ErrorKind, Message};

    fn error(text: &str) -> Error {
        Message::parse(text.as_bytes().to_vec()).expect_err(text)
    }

    /// Each sentence, as a person reads it, with its code and id.
    #[test]
    fn each_error_is_a_sentence_with_its_code() {
        let cases: [(&str, &str, i64, Option<&str>); 18] = [
            ("", "a message is empty", -32700, None),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":}"#,
                "a message is not JSON: expected value at line 1 column 34",
                -32700,
                None,
            ),
            (
                "{\"jsonrpc\":\n\"2.0\" x}",
                "a message is not JSON: expected `,` or `}` at line 2 column 7",
                -32700,
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
                "a message is not JSON: trailing characters at line 1 column 39",
                -32700,
                None,
            ),
            (
                "[1]",
                "a message is a batch (a JSON array); MCP sends one message at a time since its 2025-06-18 revision",
                -32600,
                None,
            ),
            (
                "42",
                "a message is a JSON object, not a number",
                -32600,
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
                "a message has \"id\" twice",
                -32600,
                None,
            ),
            (
                r#"{"id":1,"method":"m"}"#,
                "a message's \"jsonrpc\" is missing; it must be \"2.0\"",
                -32600,
                Some("1"),
            ),
            (
                r#"{"jsonrpc":"1.0","id":"a","method":"m"}"#,
                "a message's \"jsonrpc\" is \"1.0\"; it must be \"2.0\"",
                -32600,
                Some("\"a\""),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1}"#,
                "a message has no method, result or error",
                -32600,
                Some("1"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
                "a message has both a result and an error",
                -32600,
                Some("1"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#,
                "a message has both a method and a result or error",
                -32600,
                Some("1"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#,
                "a message's \"id\" is an array; an id is a string or a number",
                -32600,
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","result":{}}"#,
                "a response has no \"id\"",
                -32600,
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
                "a message's \"method\" is a number, not a string",
                -32600,
                Some("1"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"p"}"#,
                "a message's \"params\" are a string; they are an object or an array",
                -32600,
                Some("1"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":"no"}"#,
                "a message's \"error\" is a string, not an object",
                -32600,
                Some("1"),
            ),
            (
                &format!(
                    r#"{{"jsonrpc":"2.0","id":3,"method":"m","params":{{"a":{}{}}}}}"#,
                    "[".repeat(200),
                    "]".repeat(200)
                ),
                "a message nests deeper than 127 levels of arrays and objects",
                -32600,
                None,
            ),
        ];
        for (text, sentence, code, id) in cases {
            let error = error(text);
            assert_eq!(error.to_string(), sentence, "{text}");
            assert_eq!(error.code(), code, "{text}");
            assert_eq!(error.id().map(|id| id.to_string()).as_deref(), id, "{text}");
        }
        let utf8 = Message::parse(b"{\"a\":\"\xff\"}".to_vec()).expect_err("not UTF-8");
        assert_eq!(
            utf8.to_string(),
            "a message is not JSON: it is not UTF-8 text (byte 6)"
        );
        assert_eq!(utf8.code(), -32700);
        assert_eq!(
            ErrorKind::TooLong { limit: 10 }.to_string(),
            "a message is over 10 bytes"
        );
    }

    #[test]
    fn an_error_answers_with_its_id() {
        let error = error(r#"{"jsonrpc":"2.0","id":9}"#);
        let answer: serde_json::Value = serde_json::from_slice(&error.to_response()).expect("JSON");
        assert_eq!(answer["id"], 9);
        assert_eq!(answer["error"]["code"], -32600);
        assert_eq!(
            answer["error"]["message"],
            "a message has no method, result or error"
        );
        let typed =
            Message::parse(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":"x"}}"#.to_vec())
                .expect("a request")
                .params_as::<std::collections::HashMap<String, u32>>()
                .expect_err("n is no number");
        assert!(
            typed.to_string().starts_with(
                "a message's params could not be read: invalid type: string \"x\", expected u32"
            ),
            "{typed}"
        );
        assert_eq!(typed.id().map(ToString::to_string).as_deref(), Some("1"));
    }
}
