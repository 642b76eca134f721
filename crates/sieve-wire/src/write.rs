//! Building messages from raw parts: the JSON text of a result, params or
//! error data goes in as it is, never parsed again.

use crate::Id;

const OPEN: &[u8] = br#"{"jsonrpc":"2.0","#;

/// A response to `id` with `result`, the JSON text of its result.
pub fn response(id: &Id, result: &str) -> Vec<u8> {
    response_of(id, &[result])
}

/// A response to `id` whose result's JSON text is `parts` one after the
/// other: a large result made of pieces is copied once, into the message.
pub fn response_of(id: &Id, parts: &[&str]) -> Vec<u8> {
    let size: usize = parts.iter().map(|part| part.len()).sum();
    let mut out = Vec::with_capacity(size + 40);
    out.extend_from_slice(OPEN);
    out.extend_from_slice(br#""id":"#);
    id.write_json(&mut out);
    out.extend_from_slice(br#","result":"#);
    for part in parts {
        out.extend_from_slice(part.as_bytes());
    }
    out.push(b'}');
    out
}

/// An error response to `id` (`null` when it could not be read), with
/// `data` the JSON text of the error's data, if any.
pub fn error_response(id: Option<&Id>, code: i64, message: &str, data: Option<&str>) -> Vec<u8> {
    let mut out = Vec::with_capacity(message.len() + 80);
    out.extend_from_slice(OPEN);
    out.extend_from_slice(br#""id":"#);
    match id {
        Some(id) => id.write_json(&mut out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","error":{"code":"#);
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(br#","message":"#);
    string(message, &mut out);
    if let Some(data) = data {
        out.extend_from_slice(br#","data":"#);
        out.extend_from_slice(data.as_bytes());
    }
    out.extend_from_slice(b"}}");
    out
}

/// A request `id` for `method`, with `params` the JSON text of its
/// params, if any.
pub fn request(id: &Id, method: &str, params: Option<&str>) -> Vec<u8> {
    let mut out = Vec::with_capacity(params.map_or(0, str::len) + method.len() + 50);
    out.extend_from_slice(OPEN);
    out.extend_from_slice(br#""id":"#);
    id.write_json(&mut out);
    out.push(b',');
    method_and_params(method, params, &mut out);
    out
}

/// A request `id` for `method` whose params `params` writes, as JSON
/// text, straight into the message (no copy of a text made apart);
/// `capacity` is about how many bytes they take.
pub fn request_with(
    id: &Id,
    method: &str,
    capacity: usize,
    params: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    // Room for the envelope and what the caller writes beyond `capacity`
    // (a `_meta`): a large message is not copied again to grow.
    let mut out = Vec::with_capacity(capacity + method.len() + 512);
    out.extend_from_slice(OPEN);
    out.extend_from_slice(br#""id":"#);
    id.write_json(&mut out);
    out.push(b',');
    out.extend_from_slice(br#""method":"#);
    string(method, &mut out);
    out.extend_from_slice(br#","params":"#);
    params(&mut out);
    out.push(b'}');
    out
}

/// A notification of `method`, with `params` the JSON text of its params,
/// if any.
pub fn notification(method: &str, params: Option<&str>) -> Vec<u8> {
    let mut out = Vec::with_capacity(params.map_or(0, str::len) + method.len() + 40);
    out.extend_from_slice(OPEN);
    method_and_params(method, params, &mut out);
    out
}

fn method_and_params(method: &str, params: Option<&str>, out: &mut Vec<u8>) {
    out.extend_from_slice(br#""method":"#);
    string(method, out);
    if let Some(params) = params {
        out.extend_from_slice(br#","params":"#);
        out.extend_from_slice(params.as_bytes());
    }
    out.push(b'}');
}

/// `text` as a JSON string.
pub(crate) fn string(text: &str, out: &mut Vec<u8>) {
    // A name or an id as a rule needs no escape: its bytes go between the
    // quotes as they are.
    if !text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
        return;
    }
    // Writing a string into a Vec cannot fail.
    serde_json::to_writer(out, text).unwrap_or_default();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, Message};

    #[test]
    fn a_string_is_written_as_serde_json_writes_it() {
        for text in [
            "",
            "tools/call",
            "sieve-12",
            "ümlaut ✓ \u{7f}",
            "quote \" here",
            "back\\slash",
            "line\nbreak\ttab\u{1}",
        ] {
            let mut out = Vec::new();
            string(text, &mut out);
            let expected = serde_json::to_vec(text).expect("a string");
            assert_eq!(out, expected, "{text:?}");
        }
        let mut out = Vec::new();
        Id::Number(serde_json::Number::from(-42)).write_json(&mut out);
        Id::Number(serde_json::Number::from_f64(1.5).expect("finite")).write_json(&mut out);
        assert_eq!(out, b"-421.5");
    }

    #[test]
    fn built_messages_read_back() {
        let id = Id::from(3i64);
        let built = response(&id, r#"{"content":[]}"#);
        let read = Message::parse(built).expect("a response");
        assert_eq!(read.kind(), Kind::Response);
        assert_eq!(read.result(), Some(r#"{"content":[]}"#));
        let pieces = response_of(&id, &[r#"{"tools":"#, "[1,2]", "}"]);
        let read = Message::parse(pieces).expect("a response of pieces");
        assert_eq!(read.result(), Some(r#"{"tools":[1,2]}"#));

        let built = error_response(Some(&id), -32602, "bad \"name\"", Some(r#"{"k":1}"#));
        let value: serde_json::Value = serde_json::from_slice(&built).expect("JSON");
        assert_eq!(
            value,
            serde_json::json!({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad \"name\"","data":{"k":1}}})
        );
        let built = error_response(None, -32700, "m", None);
        assert_eq!(Message::parse(built).expect("an error").kind(), Kind::Error);

        let built = request(&Id::from("r"), "tools/list", Some("{}"));
        let read = Message::parse(built).expect("a request");
        assert_eq!(
            (read.kind(), read.method(), read.params()),
            (Kind::Request, Some("tools/list"), Some("{}"))
        );
        let built = notification("notifications/initialized", None);
        let read = Message::parse(built).expect("a notification");
        assert_eq!(read.kind(), Kind::Notification);
        assert_eq!(read.params(), None);
    }
}
