//! Padding: a long stretch of blanks or filler that pushes the rest of a
//! text out of the view a person reads it in, while the model reads on.

use super::{Hit, Kind};

/// Blank characters, Unicode's wide and non-breaking ones included.
fn is_blank(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{3000}' | '\u{2800}'
        )
}

/// A run of at least 100 blanks (or 20 line breaks), or 100 of the same
/// filler character, followed by more text.
pub fn padding(text: &str) -> Option<Hit> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let same = |d: char| if is_blank(c) { is_blank(d) } else { d == c };
        let filler = is_blank(c) || !(c.is_alphanumeric());
        let mut j = i;
        while j < chars.len() && same(chars[j]) {
            j += 1;
        }
        let run = &chars[i..j];
        let breaks = run.iter().filter(|&&d| d == '\n').count();
        let long = run.len() >= 100 || breaks >= 20;
        // The rest is copied only behind a long run: copying it behind
        // every run made a long text's scan quadratic.
        if filler && long {
            let after: String = chars[j..].iter().collect();
            if after.trim().chars().count() >= 3 {
                return Some(Hit::new(
                    Kind::Padding,
                    format!("hides text after {} characters of padding", run.len()),
                    after.trim(),
                ));
            }
        }
        i = j.max(i + 1);
    }
    None
}
