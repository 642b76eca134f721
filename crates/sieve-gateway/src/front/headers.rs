//! The 2026-07-28 standard headers of a request, checked against its body
//! (the proxy routes nothing on them, but a middlebox may: a request whose
//! headers say one thing and whose body another is refused).

use axum::http::HeaderMap;
use base64::Engine;
use serde_json::Value;

/// Whether `Mcp-Method` (required) and `Mcp-Name` (for the methods that
/// name something) agree with `method` and `params`; why not.
pub(super) fn agree(headers: &HeaderMap, method: &str, params: &Value) -> Result<(), String> {
    match one(headers, "mcp-method")? {
        None => return Err("the Mcp-Method header is missing".into()),
        Some(value) if value != method => {
            return Err(format!(
                "the Mcp-Method header ({value}) is not the body's method ({method})"
            ));
        }
        Some(_) => {}
    }
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return Ok(()),
    };
    let Some(expected) = params.get(key).and_then(Value::as_str) else {
        return Ok(());
    };
    let Some(given) = one(headers, "mcp-name")? else {
        return Err(format!("the Mcp-Name header is missing for {method}"));
    };
    let given = decoded(given).ok_or("the Mcp-Name header is not valid Base64")?;
    if given != expected {
        return Err(format!(
            "the Mcp-Name header ({given}) is not the body's {key} ({expected})"
        ));
    }
    Ok(())
}

/// The header's one value: two of a singleton header, or one that is not
/// text, is refused.
pub(super) fn one<'h>(headers: &'h HeaderMap, name: &str) -> Result<Option<&'h str>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(format!("the {name} header is given twice"));
    }
    first
        .to_str()
        .map(Some)
        .map_err(|_| format!("the {name} header holds characters a header may not"))
}

/// A header value as sent: plain, or `=?base64?...?=`.
fn decoded(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|inner| inner.strip_suffix("?="))
    {
        Some(inner) => {
            let bytes = base64::prelude::BASE64_STANDARD.decode(inner).ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::front::header_map as headers;

    #[test]
    fn headers_must_say_what_the_body_says() {
        let call = json!({"name": "demo__echo"});
        let ok = headers(&[("mcp-method", "tools/call"), ("mcp-name", "demo__echo")]);
        assert_eq!(agree(&ok, "tools/call", &call), Ok(()));
        let encoded = headers(&[
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?ZGVtb19fZWNobw==?="),
        ]);
        assert_eq!(agree(&encoded, "tools/call", &call), Ok(()));
        let other = headers(&[("mcp-method", "tools/call"), ("mcp-name", "demo__other")]);
        assert!(agree(&other, "tools/call", &call).is_err());
        let no_name = headers(&[("mcp-method", "tools/call")]);
        assert!(agree(&no_name, "tools/call", &call).is_err());
        assert!(agree(&headers(&[]), "tools/list", &json!({})).is_err());
        let list = headers(&[("mcp-method", "tools/list")]);
        assert_eq!(agree(&list, "tools/list", &json!({})), Ok(()));
        assert!(agree(&list, "tools/call", &call).is_err());
        let twice = headers(&[("mcp-method", "tools/list"), ("mcp-method", "tools/list")]);
        assert!(agree(&twice, "tools/list", &json!({})).is_err());
    }
}
