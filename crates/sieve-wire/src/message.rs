//! [`Message`]: one JSON-RPC message, read once, kept as the bytes that
//! came with where each part lies.

use crate::Id;
use crate::error::{Error, ErrorKind, what};
use crate::object::Object;
use crate::scan::{self, MAX_DEPTH, Member};
use std::borrow::Cow;
use std::ops::Range;

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `method`, `id` and optional `params`: answered with a response.
    Request,
    /// `method` and optional `params`, no `id`.
    Notification,
    /// `id` and `result`.
    Response,
    /// `id` (perhaps `null`) and `error`.
    Error,
}

/// One JSON-RPC message: the bytes as they came, read once into its kind,
/// id, method and the places of its params, result or error. Every part
/// is available as raw JSON text without a second parse, typed on demand
/// ([`Message::params_as`]); fields the protocol does not name stay in the
/// bytes and go on with them ([`Message::with_id`]).
#[derive(Debug, Clone)]
pub struct Message {
    /// The bytes as they came, checked to be UTF-8 once, when read.
    text: String,
    parts: Parts,
}

#[derive(Default)]
struct Places {
    jsonrpc: Option<Range<usize>>,
    id: Option<Range<usize>>,
    method: Option<Range<usize>>,
    params: Option<Range<usize>>,
    result: Option<Range<usize>>,
    error: Option<Range<usize>>,
}

impl Message {
    /// Reads one message from `bytes` (a line, a body, an SSE event's
    /// data), nested at most [`MAX_DEPTH`] levels deep.
    pub fn parse(bytes: impl Into<Vec<u8>>) -> Result<Message, Error> {
        Message::parse_with_depth(bytes.into(), MAX_DEPTH)
    }

    /// [`Message::parse`], giving the bytes back with the error, so what
    /// is no message can still be passed on as it came.
    pub fn parse_vec(bytes: Vec<u8>) -> Result<Message, (Error, Vec<u8>)> {
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => return Err((not_utf8(e.utf8_error()), e.into_bytes())),
        };
        match read(&text, MAX_DEPTH) {
            Ok(parts) => Ok(Message { text, parts }),
            Err(error) => Err((error, text.into_bytes())),
        }
    }

    /// [`Message::parse`] with another nesting limit.
    pub fn parse_with_depth(bytes: Vec<u8>, max_depth: usize) -> Result<Message, Error> {
        let text = String::from_utf8(bytes).map_err(|e| not_utf8(e.utf8_error()))?;
        read(&text, max_depth).map(|parts| Message { text, parts })
    }

    pub fn kind(&self) -> Kind {
        self.parts.kind
    }

    /// The id of a request or response; `None` for a notification and for
    /// an error response whose id is `null`.
    pub fn id(&self) -> Option<&Id> {
        self.parts.id.as_ref()
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        if let Some(method) = &self.parts.method_unescaped {
            return Some(method);
        }
        let at = self.parts.method_at.as_ref()?;
        Some(&self.text()[at.start + 1..at.end - 1])
    }

    /// The params' JSON text, as it came.
    pub fn params(&self) -> Option<&str> {
        self.part(&self.parts.params_at)
    }

    /// A response's result, as it came.
    pub fn result(&self) -> Option<&str> {
        match self.parts.kind {
            Kind::Response => self.part(&self.parts.outcome_at),
            _ => None,
        }
    }

    /// An error response's error object, as it came.
    pub fn error(&self) -> Option<&str> {
        match self.parts.kind {
            Kind::Error => self.part(&self.parts.outcome_at),
            _ => None,
        }
    }

    /// The id's JSON text as it came (`null` included).
    pub fn raw_id(&self) -> Option<&str> {
        self.part(&self.parts.id_at)
    }

    /// The params decoded into `T`; absent params read as `null`.
    pub fn params_as<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, Error> {
        self.decode("params", self.params())
    }

    /// The result decoded into `T`.
    pub fn result_as<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, Error> {
        self.decode("result", self.result())
    }

    /// The error object decoded into `T`.
    pub fn error_as<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, Error> {
        self.decode("error", self.error())
    }

    fn decode<'a, T: serde::Deserialize<'a>>(
        &'a self,
        part: &'static str,
        text: Option<&'a str>,
    ) -> Result<T, Error> {
        serde_json::from_str(text.unwrap_or("null")).map_err(|e| {
            Error::new(ErrorKind::Decode {
                part,
                reason: crate::error::reason_of(&e),
            })
            .with_id(self.parts.id.clone())
        })
    }

    /// The params' members, as [`Object`] reads them, without reading
    /// their text again; `None` when there are no params or they are not
    /// an object.
    pub fn params_object(&self) -> Option<Object<'_>> {
        self.object(&self.parts.params_at)
    }

    /// A response's result's members, as [`Object`] reads them, without
    /// reading its text again; `None` when it is not a response, or its
    /// result is not an object.
    pub fn result_object(&self) -> Option<Object<'_>> {
        match self.parts.kind {
            Kind::Response => self.object(&self.parts.outcome_at),
            _ => None,
        }
    }

    /// The message's bytes, as they came.
    pub fn as_bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.text.into_bytes()
    }

    /// The message's text, as it came.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The bytes as they came with `id` in place of the message's id,
    /// every other byte unchanged. A notification has no id to change:
    /// its bytes come back as they are.
    pub fn with_id(&self, id: &Id) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text.len() + 16);
        self.write_with_id(id, &mut out);
        out
    }

    /// [`Message::with_id`], appended to `out`.
    pub fn write_with_id(&self, id: &Id, out: &mut Vec<u8>) {
        match &self.parts.id_at {
            Some(at) => {
                out.extend_from_slice(&self.as_bytes()[..at.start]);
                id.write_json(out);
                out.extend_from_slice(&self.as_bytes()[at.end..]);
            }
            None => out.extend_from_slice(self.as_bytes()),
        }
    }

    /// The bytes as they came with `method` in place of the message's
    /// method, every other byte unchanged (a response comes back as it is).
    pub fn with_method(&self, method: &str) -> Vec<u8> {
        let Some(at) = &self.parts.method_at else {
            return self.as_bytes().to_vec();
        };
        let mut out = Vec::with_capacity(self.text.len() + method.len());
        out.extend_from_slice(&self.as_bytes()[..at.start]);
        crate::write::string(method, &mut out);
        out.extend_from_slice(&self.as_bytes()[at.end..]);
        out
    }

    fn part(&self, at: &Option<Range<usize>>) -> Option<&str> {
        at.as_ref().map(|at| &self.text[at.clone()])
    }

    /// The part at `at` as an object: its members as the read found them,
    /// or read now when it did not (a key with escapes).
    fn object(&self, at: &Option<Range<usize>>) -> Option<Object<'_>> {
        let at = at.as_ref()?;
        let text = &self.text[at.clone()];
        let Some((_, inner)) = self.parts.inner.as_ref().filter(|(of, _)| of == at) else {
            return Object::read(text);
        };
        let members = inner
            .iter()
            .map(|place| Member {
                key: match &place.key {
                    PlaceKey::At(key) => Cow::Borrowed(&self.text[key.clone()]),
                    PlaceKey::Unescaped(key) => Cow::Borrowed(&**key),
                },
                value: place.value.start - at.start..place.value.end - at.start,
                inner: None,
            })
            .collect();
        Some(Object::from_members(text, members))
    }
}

/// Where a message's parts lie, read from its bytes.
#[derive(Debug, Clone)]
struct Parts {
    kind: Kind,
    id: Option<Id>,
    /// Where the id's value lies (`null` included).
    id_at: Option<Range<usize>>,
    /// Where the method's string lies, quotes included.
    method_at: Option<Range<usize>>,
    /// The method, unescaped, when its text has escapes.
    method_unescaped: Option<String>,
    params_at: Option<Range<usize>>,
    /// The result of a response or the error of an error response.
    outcome_at: Option<Range<usize>>,
    /// The members of the params or the result, when it is an object,
    /// with where that object lies.
    inner: Option<(Range<usize>, Vec<Place>)>,
}

/// Where a member of the params or the result lies in the message.
#[derive(Debug, Clone)]
struct Place {
    key: PlaceKey,
    value: Range<usize>,
}

/// A member's key: where it lies, or unescaped when it had escapes.
#[derive(Debug, Clone)]
enum PlaceKey {
    At(Range<usize>),
    Unescaped(Box<str>),
}

/// Bytes that are not UTF-8, said where.
fn not_utf8(e: std::str::Utf8Error) -> Error {
    Error::new(ErrorKind::NotUtf8 {
        at: e.valid_up_to(),
    })
}

/// The one read of a message's bytes.
fn read(text: &str, max_depth: usize) -> Result<Parts, Error> {
    let mut places = Places::default();
    let mut inner = None;
    for member in scan::members_reading(text, max_depth, &["params", "result"])? {
        if let Some(members) = member.inner {
            inner = Some((member.value.clone(), places_of(text, members)));
        }
        let (slot, field) = match &*member.key {
            "jsonrpc" => (&mut places.jsonrpc, "jsonrpc"),
            "id" => (&mut places.id, "id"),
            "method" => (&mut places.method, "method"),
            "params" => (&mut places.params, "params"),
            "result" => (&mut places.result, "result"),
            "error" => (&mut places.error, "error"),
            _ => continue,
        };
        // Two readers could take two different values: refused.
        if slot.replace(member.value).is_some() {
            return Err(Error::new(ErrorKind::Duplicate { field }));
        }
    }
    let raw = |range: &Range<usize>| &text[range.clone()];
    let id = match &places.id {
        None => None,
        Some(at) => read_id(raw(at))?,
    };
    let fail = |kind: ErrorKind| Err(Error::new(kind).with_id(id.clone()));
    match places.jsonrpc.as_ref().map(raw) {
        None => return fail(ErrorKind::NoVersion),
        Some("\"2.0\"") => {}
        Some(other) => {
            return fail(ErrorKind::WrongVersion {
                found: other.chars().take(40).collect(),
            });
        }
    }
    let kind = match (&places.method, &places.result, &places.error) {
        (Some(_), None, None) if places.id.is_some() => Kind::Request,
        (Some(_), None, None) => Kind::Notification,
        (None, Some(_), None) => Kind::Response,
        (None, None, Some(_)) => Kind::Error,
        (None, None, None) => return fail(ErrorKind::NoKind),
        (None, Some(_), Some(_)) => return fail(ErrorKind::Ambiguous("a result and an error")),
        (Some(_), _, _) => return fail(ErrorKind::Ambiguous("a method and a result or error")),
    };
    if places.id.is_some() && id.is_none() && kind != Kind::Error {
        // `null` names no request; only an error may answer one.
        return fail(ErrorKind::BadId { found: "null" });
    }
    if kind == Kind::Response && places.id.is_none() {
        return fail(ErrorKind::NoId);
    }
    let mut method_unescaped = None;
    if let Some(at) = &places.method {
        let text = raw(at);
        if !text.starts_with('"') {
            return fail(ErrorKind::BadMethod { found: what(text) });
        }
        if text.contains('\\') {
            method_unescaped = serde_json::from_str::<String>(text).ok();
        }
    }
    if let Some(at) = &places.params
        && !matches!(raw(at).as_bytes()[0], b'{' | b'[')
    {
        return fail(ErrorKind::BadParams {
            found: what(raw(at)),
        });
    }
    if let Some(at) = &places.error
        && !raw(at).starts_with('{')
    {
        return fail(ErrorKind::BadError {
            found: what(raw(at)),
        });
    }
    let outcome_at = places.result.or(places.error);
    Ok(Parts {
        kind,
        id,
        id_at: places.id,
        method_at: places.method,
        method_unescaped,
        params_at: places.params,
        outcome_at,
        inner,
    })
}

/// The members read of a message's params or result, as places in its
/// text.
fn places_of(text: &str, members: Vec<scan::Member<'_>>) -> Vec<Place> {
    members
        .into_iter()
        .map(|member| Place {
            key: match member.key {
                Cow::Borrowed(key) => {
                    let at = key.as_ptr() as usize - text.as_ptr() as usize;
                    PlaceKey::At(at..at + key.len())
                }
                Cow::Owned(key) => PlaceKey::Unescaped(key.into_boxed_str()),
            },
            value: member.value,
        })
        .collect()
}

/// An id's value: `None` for `null`.
fn read_id(text: &str) -> Result<Option<Id>, Error> {
    let id = match text.as_bytes()[0] {
        b'n' => return Ok(None),
        b'"' => serde_json::from_str(text).map(Id::String),
        b'-' | b'0'..=b'9' => serde_json::from_str(text).map(Id::Number),
        _ => {
            return Err(Error::new(ErrorKind::BadId { found: what(text) }));
        }
    };
    // The scan checked the JSON; only a number serde_json cannot hold
    // (an exponent past f64) fails here.
    id.map(Some).map_err(|_| {
        Error::new(ErrorKind::BadId {
            found: "a number out of range",
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_members_of_params_and_results_are_read_with_the_message() {
        let members = |object: Object<'_>| {
            object
                .members()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        let response = Message::parse(
            br#"{"jsonrpc":"2.0","id":1,"result" : { "a\u0062" : 1 ,"c":{"d":[]},"e":"}"  } }"#
                .to_vec(),
        )
        .expect("a response");
        let result = response.result_object().expect("an object");
        assert_eq!(result.text(), r#"{ "a\u0062" : 1 ,"c":{"d":[]},"e":"}"  }"#);
        assert_eq!(
            members(result),
            [("ab", "1"), ("c", r#"{"d":[]}"#), ("e", r#""}""#)].map(|(k, v)| (k.into(), v.into()))
        );
        assert_eq!(response.params_object().map(|o| o.text()), None);
        // A key with escapes is read whole, then its members when asked.
        let escaped =
            Message::parse(br#"{"jsonrpc":"2.0","id":1,"res\u0075lt":{"k":{}}}"#.to_vec())
                .expect("a response");
        assert_eq!(
            members(escaped.result_object().expect("an object")),
            [("k".to_string(), "{}".to_string())]
        );
        let empty =
            Message::parse(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{ }}"#.to_vec())
                .expect("a request");
        assert_eq!(empty.params_object().map(|o| o.text()), Some("{ }"));
        assert!(members(empty.params_object().expect("an object")).is_empty());
        let list =
            Message::parse(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#.to_vec())
                .expect("a request");
        assert!(list.params_object().is_none(), "params that are no object");
        let scalar =
            Message::parse(br#"{"jsonrpc":"2.0","id":1,"result":5}"#.to_vec()).expect("a response");
        assert!(
            scalar.result_object().is_none(),
            "a result that is no object"
        );
    }

    #[test]
    fn reads_each_kind_and_its_parts() {
        let request = Message::parse(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"},"x-extra":[1]}"#
                .to_vec(),
        )
        .expect("a request");
        assert_eq!(request.kind(), Kind::Request);
        assert_eq!(request.id(), Some(&Id::from(7i64)));
        assert_eq!(request.method(), Some("tools/call"));
        assert_eq!(request.params(), Some(r#"{"name":"t"}"#));
        assert_eq!(request.result(), None);

        let note = Message::parse(br#"{"method":"notifications/x","jsonrpc":"2.0"}"#.to_vec())
            .expect("a notification");
        assert_eq!(note.kind(), Kind::Notification);
        assert_eq!(note.id(), None);
        assert_eq!(note.params(), None);

        let response =
            Message::parse(br#"{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}"#.to_vec())
                .expect("a response");
        assert_eq!(response.kind(), Kind::Response);
        assert_eq!(response.result(), Some(r#"{"tools":[]}"#));

        let error = Message::parse(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#.to_vec(),
        )
        .expect("an error response");
        assert_eq!(error.kind(), Kind::Error);
        assert_eq!(error.id(), None);
        assert_eq!(error.raw_id(), Some("null"));
        assert_eq!(error.error(), Some(r#"{"code":-32700,"message":"m"}"#));
    }

    #[test]
    fn splices_the_id_and_the_method() {
        let text =
            "{ \"jsonrpc\":\"2.0\", \"id\" : 12 ,\"method\":\"m\\u0031\",\"params\":{\"k\":1}}";
        let message = Message::parse(text).expect("a request");
        assert_eq!(message.method(), Some("m1"));
        let spliced = message.with_id(&Id::from("s-1"));
        assert_eq!(
            String::from_utf8(spliced).expect("text"),
            text.replace("12", "\"s-1\"")
        );
        let renamed = message.with_method("x/y");
        assert_eq!(
            String::from_utf8(renamed).expect("text"),
            text.replace("m\\u0031", "x/y")
        );
    }
}
