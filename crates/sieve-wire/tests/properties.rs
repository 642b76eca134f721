//! Properties of the reader and the framing, over generated input: any
//! bytes in any chunks give an error or a message, never a panic or a
//! hang; a valid message reads as serde_json reads it; `with_id` changes
//! the id and nothing else; lines and events come out the same however
//! the stream is cut.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use sieve_wire::object::Object;
use sieve_wire::{Decoded, Event, Id, Kind, Line, LineReader, Message, SseDecoder, sse};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::String),
        "[\"\\\\/\u{0}-\u{1f}\u{7f}-\u{10ffff}]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("\\PC{0,8}", inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec(("[a-zA-Z_]{1,8}", json_value()), 0..5)
        .prop_map(|pairs| pairs.into_iter().collect())
}

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        "\\PC{0,10}".prop_map(Value::String),
    ]
}

/// A valid message as a value: one of the four kinds, with fields no one
/// names beside the protocol's.
fn message() -> impl Strategy<Value = Value> {
    let kind = 0..4u8;
    (
        kind,
        id(),
        "[a-z/_]{1,20}",
        object(),
        json_value(),
        object(),
        any::<bool>(),
    )
        .prop_map(|(kind, id, method, params, outcome, extra, null_id)| {
            let mut message: Map<String, Value> = extra
                .into_iter()
                .filter(|(k, _)| {
                    !["jsonrpc", "id", "method", "params", "result", "error"].contains(&k.as_str())
                })
                .collect();
            message.insert("jsonrpc".into(), json!("2.0"));
            match kind {
                0 | 1 => {
                    if kind == 0 {
                        message.insert("id".into(), id);
                    }
                    message.insert("method".into(), json!(method));
                    message.insert("params".into(), Value::Object(params));
                }
                2 => {
                    message.insert("id".into(), id);
                    message.insert("result".into(), outcome);
                }
                _ => {
                    let id = if null_id { Value::Null } else { id };
                    message.insert("id".into(), id);
                    message.insert(
                        "error".into(),
                        json!({"code": -32000, "message": method, "data": outcome}),
                    );
                }
            }
            Value::Object(message)
        })
}

/// A message's text, compact or spaced out.
fn text_of(message: &Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(message).expect("a value encodes")
    } else {
        message.to_string()
    }
}

fn read(text: Option<&str>) -> Option<Value> {
    text.map(|t| serde_json::from_str(t).expect("a part is JSON"))
}

/// Bytes that are often nearly JSON: pieces of messages, brackets, quotes,
/// escapes, odd bytes.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"{".to_vec()),
        Just(b"}".to_vec()),
        Just(b"[".to_vec()),
        Just(b"]".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"\\".to_vec()),
        Just(b":".to_vec()),
        Just(b",".to_vec()),
        Just(b"\"jsonrpc\":\"2.0\"".to_vec()),
        Just(b"\"id\":".to_vec()),
        Just(b"\"method\":\"m\"".to_vec()),
        Just(b"\"result\":".to_vec()),
        Just(b"\"error\":".to_vec()),
        Just(b"\"params\":".to_vec()),
        Just(b"1".to_vec()),
        Just(b"-0.5e3".to_vec()),
        Just(b"null".to_vec()),
        Just(b"\\u00".to_vec()),
        Just(b" \r\n\t".to_vec()),
        prop::collection::vec(any::<u8>(), 1..4),
    ];
    prop::collection::vec(piece, 0..30).prop_map(|pieces| pieces.concat())
}

fn any_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        soup(),
        // A valid message with a few bytes changed.
        (
            message(),
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4)
        )
            .prop_map(|(message, edits)| {
                let mut bytes = message.to_string().into_bytes();
                for (at, byte) in edits {
                    let at = at.index(bytes.len());
                    bytes[at] = byte;
                }
                bytes
            }),
    ]
}

/// Where to cut a stream: chunk lengths, used in turn.
fn cuts() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1..40usize, 1..8)
}

fn chunks<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    for &cut in cuts.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, after) = rest.split_at(cut.min(rest.len()));
        out.push(chunk);
        rest = after;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Any bytes: an error or a message; not JSON (to serde_json) exactly
    /// when the error says so.
    #[test]
    fn any_bytes_give_an_error_or_a_message(bytes in any_bytes()) {
        let json = std::str::from_utf8(&bytes)
            .ok()
            .is_some_and(|t| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok());
        match Message::parse(bytes.clone()) {
            Ok(message) => {
                prop_assert!(json, "read as a message but not JSON: {:?}", String::from_utf8_lossy(&bytes));
                prop_assert_eq!(message.as_bytes(), &bytes[..]);
            }
            Err(error) => {
                prop_assert_eq!(error.code() == -32700, !json, "{}: {:?}", error, String::from_utf8_lossy(&bytes));
                prop_assert!(!error.to_string().is_empty());
            }
        }
    }

    /// A valid message's parts are what serde_json reads of the same bytes.
    #[test]
    fn a_message_reads_as_serde_json_reads_it(value in message(), pretty in any::<bool>()) {
        let text = text_of(&value, pretty);
        let value: Value = serde_json::from_str(&text).expect("JSON");
        let message = Message::parse(text.as_bytes()).expect("a valid message");
        let kind = match (value.get("method"), value.get("result"), value.get("id")) {
            (Some(_), _, Some(_)) => Kind::Request,
            (Some(_), _, None) => Kind::Notification,
            (None, Some(_), _) => Kind::Response,
            _ => Kind::Error,
        };
        prop_assert_eq!(message.kind(), kind);
        let id = value.get("id").and_then(Id::from_value);
        prop_assert_eq!(message.id(), id.as_ref());
        prop_assert_eq!(message.method(), value.get("method").and_then(Value::as_str));
        for (part, text) in [("params", message.params()), ("result", message.result()), ("error", message.error())] {
            let read = read(text);
            prop_assert_eq!(read.as_ref(), value.get(part), "{}", part);
        }
        let params: Option<Value> = message.params_as().expect("params decode");
        prop_assert_eq!(params.as_ref(), value.get("params"));
        // The members found in the same read are those a read of the
        // part's own text finds.
        let members = |object: Option<Object<'_>>| {
            object.map(|o| o.members().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>())
        };
        for (found, part) in [
            (message.params_object(), message.params()),
            (message.result_object(), message.result()),
        ] {
            prop_assert_eq!(members(found), members(part.and_then(Object::read)));
        }
    }

    /// An object's members are what serde_json reads, in order, each
    /// value's text as written; a member added goes first and leaves every
    /// other byte as it came; one already there is never added again.
    #[test]
    fn an_object_reads_as_serde_json_reads_it(
        members in object(),
        pretty in any::<bool>(),
        key in "[a-zA-Z_]{1,8}",
        value in json_value(),
    ) {
        let text = text_of(&Value::Object(members), pretty);
        // What serde_json reads of the text (a float may read back a hair
        // off what was written): the measure of what the scan reads.
        let Value::Object(members) = serde_json::from_str(&text).expect("JSON") else {
            unreachable!("an object's text reads as an object")
        };
        let object = Object::read(&text).expect("an object");
        let read: Vec<(String, Value)> = object
            .members()
            .map(|(k, v)| (k.to_string(), serde_json::from_str(v).expect("a member's value is JSON")))
            .collect();
        let expected: Vec<(String, Value)> = members.clone().into_iter().collect();
        prop_assert_eq!(read, expected);
        let value_text = value.to_string();
        let value: Value = serde_json::from_str(&value_text).expect("JSON");
        match object.with_member(&key, &value_text) {
            Some(added) => {
                prop_assert!(!members.contains_key(&key));
                let mut expected = members.clone();
                expected.insert(key.clone(), value.clone());
                let read: Value = serde_json::from_str(&added).expect("still JSON");
                prop_assert_eq!(read, Value::Object(expected));
                let open = text.find('{').expect("an object opens");
                let rest = &text[open + 1..];
                prop_assert!(added.ends_with(rest), "the rest as it came: {added}");
                let again = Object::read(&added).expect("still an object");
                prop_assert_eq!(again.members().next().map(|(k, _)| k.to_string()), Some(key.clone()));
            }
            None => prop_assert!(members.contains_key(&key)),
        }
    }

    /// `with_id` changes the id and no other byte.
    #[test]
    fn with_id_changes_only_the_id(value in message(), pretty in any::<bool>(), new in id()) {
        prop_assume!(value.get("id").is_some());
        let text = text_of(&value, pretty);
        let value: Value = serde_json::from_str(&text).expect("JSON");
        let message = Message::parse(text.as_bytes()).expect("a valid message");
        let new = Id::from_value(&new).expect("an id");
        let spliced = message.with_id(&new);
        let mut expected = value.clone();
        expected["id"] = new.to_value();
        let read: Value = serde_json::from_slice(&spliced).expect("still JSON");
        prop_assert_eq!(&read, &expected);
        let again = Message::parse(spliced.clone()).expect("still a message");
        prop_assert_eq!(again.id(), Some(&new));
        // The bytes before and after the id are the bytes that came.
        let raw = message.raw_id().expect("an id");
        let start = raw.as_ptr() as usize - message.text().as_ptr() as usize;
        let end = start + raw.len();
        let tail = text.len() - end;
        prop_assert_eq!(&spliced[..start], &text.as_bytes()[..start]);
        prop_assert_eq!(&spliced[spliced.len() - tail..], &text.as_bytes()[end..]);
    }

    /// Lines: the same whatever the chunks, and what splitting the whole
    /// stream at `\n` says.
    #[test]
    fn lines_do_not_depend_on_chunks(
        lines in prop::collection::vec(prop::collection::vec(prop_oneof![Just(b'\r'), Just(b' '), Just(b'x'), any::<u8>()], 0..30), 0..12),
        crlf in any::<bool>(),
        end in any::<bool>(),
        cuts in cuts(),
        max in prop_oneof![1..30usize, Just(usize::MAX)],
    ) {
        let lines: Vec<Vec<u8>> = lines
            .into_iter()
            .map(|l| l.into_iter().filter(|&b| b != b'\n').collect())
            .collect();
        let mut stream = lines.join(if crlf { &b"\r\n"[..] } else { &b"\n"[..] });
        if end {
            stream.push(b'\n');
        }
        let expected: Vec<Line> = stream
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            // Too long is seen before blank: a line is not kept to look.
            .filter(|l| l.len() > max || !l.iter().all(u8::is_ascii_whitespace))
            .map(|l| if l.len() > max { Line::TooLong { limit: max } } else { Line::Text(l.to_vec()) })
            .collect();
        let mut reader = LineReader::new(max);
        let mut got = Vec::new();
        for chunk in chunks(&stream, &cuts) {
            reader.feed(chunk, |line| got.push(line));
        }
        reader.finish(|line| got.push(line));
        prop_assert_eq!(got, expected);
    }

    /// Events: the same whatever the chunks.
    #[test]
    fn events_do_not_depend_on_chunks(
        pieces in prop::collection::vec(prop_oneof![
            Just("data"), Just("id"), Just("event"), Just("retry"), Just(":"), Just(": "),
            Just("\n"), Just("\r"), Just("\r\n"), Just("\n\n"), Just("12"), Just("{\"a\":1}"),
            Just("x"), Just("\u{feff}"), Just("\0"),
        ], 0..60),
        cuts in cuts(),
        max in 1..40usize,
    ) {
        let stream = pieces.concat().into_bytes();
        let decode = |chunks: Vec<&[u8]>| {
            let mut decoder = SseDecoder::new(max);
            let mut out = Vec::new();
            for chunk in chunks {
                decoder.feed(chunk, |d| out.push(d));
            }
            out
        };
        let whole = decode(vec![&stream[..]]);
        let bytewise = decode(stream.chunks(1).collect());
        prop_assert_eq!(&decode(chunks(&stream, &cuts)), &whole);
        prop_assert_eq!(&bytewise, &whole);
    }

    /// An encoded event decodes to itself (data's line ends as `\n`).
    #[test]
    fn encoded_events_read_back(
        id in proptest::option::of("[^\r\n\0]{0,10}"),
        event in proptest::option::of("[^\r\n]{0,10}"),
        data in proptest::option::of("\\PC{0,40}"),
        retry in proptest::option::of(any::<u64>()),
        cuts in cuts(),
    ) {
        prop_assume!(id.is_some() || data.is_some() || retry.is_some());
        // A value's first space is the separator's: encode writes one more.
        let event = Event { id, event, data, retry };
        let mut bytes = Vec::new();
        sse::encode(&event, &mut bytes);
        let mut decoder = SseDecoder::new(usize::MAX);
        let mut out = Vec::new();
        for chunk in chunks(&bytes, &cuts) {
            decoder.feed(chunk, |d| out.push(d));
        }
        let expected = Event {
            data: event.data.as_ref().map(|d| d.replace("\r\n", "\n").replace('\r', "\n")),
            ..event
        };
        prop_assert_eq!(out, vec![Decoded::Event(expected)]);
    }
}

/// Deep or long input is an answer in time, not a crash.
#[test]
fn deep_and_long_input_is_refused_quickly() {
    for open in ["[", "{\"a\":"] {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"p":{}}}}}"#,
            open.repeat(1_000_000)
        );
        let error = Message::parse(deep).expect_err("too deep or not JSON");
        assert!(matches!(error.code(), -32700 | -32600), "{error}");
        let error = Message::parse(open.repeat(1_000_000)).expect_err("not JSON");
        assert_eq!(error.code(), -32700, "{error}");
    }
    let closed = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"p":{}1{}}}}}"#,
        "[".repeat(500_000),
        "]".repeat(500_000)
    );
    let error = Message::parse(closed).expect_err("too deep");
    assert_eq!(
        error.to_string(),
        "a message nests deeper than 127 levels of arrays and objects"
    );
}
