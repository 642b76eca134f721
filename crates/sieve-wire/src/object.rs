//! A JSON object's text changed where it must, every other byte as it
//! came: a result passed on from a server with one member added.

use crate::scan::{MAX_DEPTH, Member};

/// The text of a JSON object with its top-level members read, once, for
/// as many looks and changes as are wanted.
pub struct Object<'a> {
    text: &'a str,
    members: Vec<Member<'a>>,
}

impl<'a> Object<'a> {
    /// `text` read as one JSON object; `None` when it is not one.
    pub fn read(text: &'a str) -> Option<Object<'a>> {
        let members = crate::scan::members(text, MAX_DEPTH).ok()?;
        Some(Object { text, members })
    }

    /// An object whose members, in `text`, a read already found.
    pub(crate) fn from_members(text: &'a str, members: Vec<Member<'a>>) -> Object<'a> {
        Object { text, members }
    }

    /// The object's text, as it came.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The JSON text of member `key`'s value, if it has one.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        let text = self.text;
        self.members
            .iter()
            .find(|member| member.key == key)
            .map(|member| &text[member.value.clone()])
    }

    /// Each member's key with its value's JSON text, in order.
    pub fn members(&self) -> impl Iterator<Item = (&str, &'a str)> {
        let text = self.text;
        self.members
            .iter()
            .map(move |member| (&*member.key, &text[member.value.clone()]))
    }

    /// The object with a member `key` whose value is the JSON text
    /// `value` put first, when it has no member of that name; `None` when
    /// it has one. Every other byte stays as it came.
    pub fn with_member(&self, key: &str, value: &str) -> Option<String> {
        if self.members.iter().any(|member| member.key == key) {
            return None;
        }
        let object = self.text;
        let open = object.find('{')?;
        let mut key_json = Vec::with_capacity(key.len() + 2);
        crate::write::string(key, &mut key_json);
        let mut out = String::with_capacity(object.len() + key_json.len() + value.len() + 2);
        out.push_str(&object[..=open]);
        out.push_str(std::str::from_utf8(&key_json).ok()?);
        out.push(':');
        out.push_str(value);
        if !self.members.is_empty() {
            out.push(',');
        }
        out.push_str(&object[open + 1..]);
        Some(out)
    }
}

/// `object`, the JSON text of an object, with a member `key` whose value
/// is the JSON text `value` put first, when it has no member of that
/// name; `None` when it has one, or is not one JSON object. Every other
/// byte stays as it came.
pub fn with_member(object: &str, key: &str, value: &str) -> Option<String> {
    Object::read(object)?.with_member(key, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_added_only_where_there_is_none() {
        let added = with_member(
            r#" {"content":[{"x":"{"}], "z":1}"#,
            "resultType",
            r#""complete""#,
        )
        .expect("added");
        let value: serde_json::Value = serde_json::from_str(&added).expect("JSON");
        assert_eq!(
            value,
            serde_json::json!({"resultType":"complete","content":[{"x":"{"}],"z":1})
        );
        assert!(added.ends_with(r#""z":1}"#), "the rest as it came: {added}");
        assert_eq!(
            with_member("{}", "k", "[1]").as_deref(),
            Some(r#"{"k":[1]}"#)
        );
        assert_eq!(
            with_member(r#"{"k":null}"#, "k", "1"),
            None,
            "already there"
        );
        assert_eq!(with_member("[1]", "k", "1"), None, "not an object");
        assert_eq!(with_member(r#"{"k":"#, "j", "1"), None, "not JSON");
    }

    #[test]
    fn members_are_each_key_with_its_value_as_written() {
        let object =
            Object::read(r#" {"a": [1, {"b":2}] ,"isError":true,"s":"x\"y"}"#).expect("an object");
        let found: Vec<(&str, &str)> = object.members().collect();
        assert_eq!(
            found,
            [
                ("a", r#"[1, {"b":2}]"#),
                ("isError", "true"),
                ("s", r#""x\"y""#)
            ]
        );
        assert!(Object::read("[1]").is_none(), "not an object");
        assert!(Object::read(r#"{"a":"#).is_none(), "not JSON");
    }
}
