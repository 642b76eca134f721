//! A JSON object's text changed where it must, every other byte as it
//! came: a result passed on from a server with one member added.

use crate::scan::MAX_DEPTH;

/// `object`, the JSON text of an object, with a member `key` whose value
/// is the JSON text `value` put first, when it has no member of that
/// name; `None` when it has one, or is not one JSON object. Every other
/// byte stays as it came.
pub fn with_member(object: &str, key: &str, value: &str) -> Option<String> {
    let members = crate::scan::members(object, MAX_DEPTH).ok()?;
    if members.iter().any(|member| member.key == key) {
        return None;
    }
    let open = object.find('{')?;
    let mut key_json = Vec::with_capacity(key.len() + 2);
    crate::write::string(key, &mut key_json);
    let mut out = String::with_capacity(object.len() + key_json.len() + value.len() + 2);
    out.push_str(&object[..=open]);
    out.push_str(std::str::from_utf8(&key_json).ok()?);
    out.push(':');
    out.push_str(value);
    if !members.is_empty() {
        out.push(',');
    }
    out.push_str(&object[open + 1..]);
    Some(out)
}

/// The members of `object`, the JSON text of an object, in order: each
/// key with its value's JSON text; `None` when it is not one JSON object.
pub fn members(object: &str) -> Option<Vec<(String, &str)>> {
    let members = crate::scan::members(object, MAX_DEPTH).ok()?;
    Some(
        members
            .into_iter()
            .map(|member| (member.key, &object[member.value]))
            .collect(),
    )
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
        let found =
            members(r#" {"a": [1, {"b":2}] ,"isError":true,"s":"x\"y"}"#).expect("an object");
        let found: Vec<(&str, &str)> = found.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            found,
            [
                ("a", r#"[1, {"b":2}]"#),
                ("isError", "true"),
                ("s", r#""x\"y""#)
            ]
        );
        assert!(members("[1]").is_none(), "not an object");
        assert!(members(r#"{"a":"#).is_none(), "not JSON");
    }
}
