//! Text hidden in an encoding: base64, hex and percent-encoding. Each
//! candidate is decoded and kept only when it decodes to readable text;
//! the caller then reads that text with the same rules as any other, so
//! an honest example (`SGVsbG8=`, a commit SHA, a query string) passes and
//! an encoded instruction does not.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};

/// The readable texts hidden in `text`, each with the name of its
/// encoding.
pub fn decoded(text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for token in text.split(|c: char| {
        c.is_whitespace() || matches!(c, '`' | '\'' | '"' | ',' | '(' | ')' | '<' | '>')
    }) {
        let token = token.trim_end_matches(['.', ':', ';']);
        let is_hex = token.len() >= 16
            && token.len() % 2 == 0
            && token.bytes().all(|b| b.is_ascii_hexdigit());
        if let Some(s) = is_hex.then(|| hex(token)).flatten().and_then(readable) {
            out.push(("hex", s));
            continue;
        }
        if token.len() >= 16
            && token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_'))
        {
            let unpadded = token.trim_end_matches('=');
            let decoded = [STANDARD, URL_SAFE].iter().find_map(|engine| {
                let padded = format!("{unpadded}{}", "=".repeat((4 - unpadded.len() % 4) % 4));
                engine.decode(padded).ok()
            });
            if let Some(s) = decoded.and_then(readable) {
                out.push(("base64", s));
                continue;
            }
        }
        if token.matches('%').count() >= 3 {
            let s = percent_encoding::percent_decode_str(token).decode_utf8_lossy();
            if s != token {
                out.push(("percent-encoding", s.into_owned()));
            }
        }
    }
    out
}

fn hex(token: &str) -> Option<Vec<u8>> {
    (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&token[i..i + 2], 16).ok())
        .collect()
}

/// Bytes that are UTF-8 prose: printable, with spaces between words.
fn readable(bytes: Vec<u8>) -> Option<String> {
    let s = String::from_utf8(bytes).ok()?;
    let printable = s.chars().all(|c| !c.is_control() || c.is_whitespace());
    (printable && s.split_whitespace().count() >= 3).then_some(s)
}
