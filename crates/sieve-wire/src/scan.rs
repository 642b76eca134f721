//! The one pass over a message's text: the top-level object's keys and
//! where each value lies, every value checked as JSON by serde_json without
//! building it (one deserializer over the whole text, each value taken as
//! the raw text it is), the members of the values asked for read in the
//! same pass, and how deep arrays and objects nest.

use crate::error::{Error, ErrorKind};
use serde::de::{DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::ops::Range;

/// serde_json's own recursion limit is 128; a message one level inside it
/// keeps every part decodable by serde.
pub const MAX_DEPTH: usize = 127;

/// A top-level member: its key (unescaped; borrowed from the text unless
/// it had escapes) and where its value lies.
pub(crate) struct Member<'a> {
    pub key: Cow<'a, str>,
    pub value: Range<usize>,
    /// The members of its value, read in the same pass, when the scan was
    /// asked for them and the value is an object.
    pub inner: Option<Vec<Member<'a>>>,
}

/// The members of the JSON object `text`, in order; an error when `text`
/// is not one JSON object or nests deeper than `max_depth`.
pub(crate) fn members(text: &str, max_depth: usize) -> Result<Vec<Member<'_>>, Error> {
    members_reading(text, max_depth, &[])
}

/// [`members`], with the members of the values of the keys `inside` read
/// in the same pass where those values are objects (a request's params, a
/// response's result), so nothing reads their text a second time.
pub(crate) fn members_reading<'a>(
    text: &'a str,
    max_depth: usize,
    inside: &[&str],
) -> Result<Vec<Member<'a>>, Error> {
    let bytes = text.as_bytes();
    match bytes.get(skip_space(bytes, 0)) {
        None => return Err(Error::new(ErrorKind::Empty)),
        Some(b'{') => {}
        Some(b'[') => {
            valid_json(text)?;
            return Err(Error::new(ErrorKind::Batch));
        }
        Some(_) => {
            valid_json(text)?;
            let found = crate::error::what(text.trim_start());
            return Err(Error::new(ErrorKind::NotObject { found }));
        }
    }
    if nests_deeper_than(bytes, max_depth) {
        // Not JSON at all says more than too deep.
        valid_json(text)?;
        return Err(Error::new(ErrorKind::TooDeep { limit: max_depth }));
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    let members = reader
        .deserialize_map(MembersOf { text, inside })
        .and_then(|members| reader.end().map(|()| members))
        .map_err(|_| not_json(text))?;
    Ok(members)
}

/// Reads an object's members as [`Member`]s of `text`, the text read; the
/// values of the keys `inside` that are objects, member by member too.
struct MembersOf<'a, 'k> {
    text: &'a str,
    inside: &'k [&'k str],
}

impl<'de> Visitor<'de> for MembersOf<'de, '_> {
    type Value = Vec<Member<'de>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::with_capacity(4);
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if self.inside.contains(&&*key)
                && let Some(start) = object_after(self.text, &key)
            {
                let (inner, end) = map.next_value_seed(InnerSeed {
                    text: self.text,
                    start,
                })?;
                members.push(Member {
                    key,
                    value: start..end,
                    inner: Some(inner),
                });
                continue;
            }
            let value: &'de RawValue = map.next_value()?;
            let at = value.get().as_ptr() as usize - self.text.as_ptr() as usize;
            members.push(Member {
                key,
                value: at..at + value.get().len(),
                inner: None,
            });
        }
        Ok(members)
    }
}

/// Where the object that is the value of `key` begins, when `key` was
/// borrowed from `text` (so it had no escapes, and its closing quote is
/// right after it); `None` when the value is not an object, or the key
/// was unescaped into a copy, which lies elsewhere (the value is then
/// read whole, as any).
fn object_after(text: &str, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let from = (key.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    if from + key.len() >= bytes.len() {
        return None;
    }
    // Past the key, its closing quote and the space around the colon.
    let colon = skip_space(bytes, from + key.len() + 1);
    if bytes.get(colon) != Some(&b':') {
        return None;
    }
    let start = skip_space(bytes, colon + 1);
    (bytes.get(start) == Some(&b'{')).then_some(start)
}

/// Reads an object that begins at `start` of `text` into its members,
/// and where it ends.
struct InnerSeed<'a> {
    text: &'a str,
    start: usize,
}

impl<'de> DeserializeSeed<'de> for InnerSeed<'de> {
    type Value = (Vec<Member<'de>>, usize);

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<Self::Value, D::Error> {
        let members = reader.deserialize_map(MembersOf {
            text: self.text,
            inside: &[],
        })?;
        // serde_json read the object whole: past its last value (or its
        // opening brace) there is only space before its closing one.
        let last = members
            .last()
            .map_or(self.start + 1, |member| member.value.end);
        let close = skip_space(self.text.as_bytes(), last);
        if self.text.as_bytes().get(close) != Some(&b'}') {
            return Err(serde::de::Error::custom("an object that does not close"));
        }
        Ok((members, close + 1))
    }
}

/// A key as the text has it when it can be borrowed, else unescaped
/// (serde's borrowing of a `Cow`).
#[derive(serde::Deserialize)]
struct Key<'a>(#[serde(borrow)] Cow<'a, str>);

/// The fault in `text` as serde_json words it, with the line and column
/// of the whole message (found again on this path only, which is rare).
fn not_json(text: &str) -> Error {
    match valid_json(text) {
        Err(error) => error,
        // The scan refuses only what serde_json does; were they ever to
        // disagree, the message is still refused.
        Ok(()) => Error::new(ErrorKind::NotJson {
            reason: "unexpected text".to_string(),
            line: 1,
            column: 1,
        }),
    }
}

fn valid_json(text: &str) -> Result<(), Error> {
    serde_json::from_str::<IgnoredAny>(text)
        .map(drop)
        .map_err(|e| Error::not_json(&e))
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Whether the arrays and objects of JSON text nest deeper than `limit`
/// (brackets inside strings do not count). serde_json skips a value
/// without a depth limit; a message nested deeper than a typed decode
/// could follow is refused here, not later without a word.
pub fn nests_deeper_than(text: &[u8], limit: usize) -> bool {
    // Text with no more opening brackets than the limit cannot nest deeper
    // (most messages): they are found many bytes at a time, and counted
    // up to one past the limit, before the walk that skips strings.
    let opening = memchr::memchr2_iter(b'[', b'{', text)
        .take(limit + 1)
        .count();
    if opening <= limit {
        return false;
    }
    let mut depth = 0usize;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' => {
                // To the closing quote, past escaped ones, a string's text
                // skipped by memchr (a file's text may hold many brackets).
                at += 1;
                loop {
                    let rest = text.get(at..).unwrap_or_default();
                    match memchr::memchr2(b'"', b'\\', rest) {
                        Some(found) if rest[found] == b'\\' => at += found + 2,
                        Some(found) => {
                            at += found;
                            break;
                        }
                        // A string that never closes: nothing nests after it.
                        None => return false,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert!(!nests_deeper_than(br#"{"a":[[1]]}"#, 3));
        assert!(nests_deeper_than(br#"{"a":[[[1]]]}"#, 3));
        assert!(!nests_deeper_than(br#"{"a":"[[[[[[\"[[["}"#, 1));
        assert!(!nests_deeper_than(br#"{"a":"\\"}"#, 1));
        // More brackets than the limit, side by side or in strings, is
        // not deeper than it.
        assert!(!nests_deeper_than(br#"{"a":[1],"b":[2],"c":"[[[["}"#, 2));
        assert!(nests_deeper_than(br#"{"a":[{"b":[1]}]}"#, 3));
        // Strings skipped past their escapes, with brackets in them.
        let text = br#"{"a":"{\"{[\\","b":[[["x\"]]]],"c":"#;
        assert!(nests_deeper_than(text, 3));
        assert!(!nests_deeper_than(text, 4));
        assert!(
            !nests_deeper_than(br#"{"a":"[[[[\"#, 1),
            "a string that never closes"
        );
        assert!(!nests_deeper_than(br#"[{"a":"[[[[\"#, 2));
        assert!(nests_deeper_than(br#"[{"a":"[[[[\"","b":[1]}]"#, 2));
        assert!(!nests_deeper_than(br#"[{"a":"[[[[\"","b":1}]"#, 2));
    }

    #[test]
    fn members_and_where_they_lie() {
        let text = " { \"a\" : [1, {\"b\":2}] ,\"\\u0069d\":\"x\" } ";
        let members = members(text, 10).expect("an object");
        let found: Vec<(&str, &str)> = members
            .iter()
            .map(|m| (&*m.key, &text[m.value.clone()]))
            .collect();
        assert_eq!(found, [("a", "[1, {\"b\":2}]"), ("id", "\"x\"")]);
    }
}
