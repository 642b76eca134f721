//! Characters that hide text from the person while the model still reads
//! it: Unicode tags (ASCII smuggling), runs of variation selectors (bytes
//! smuggled behind an emoji), zero-width characters, and controls that
//! reverse or reorder text. Right-to-left text's own marks, emoji joiners
//! and flag tags are left alone.

use super::{Hit, Kind};

fn is_tag(c: char) -> bool {
    matches!(c as u32, 0xE0000..=0xE007F)
}

fn is_variation_selector(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

fn is_zero_width(c: char) -> bool {
    matches!(
        c as u32,
        0x200B..=0x200D | 0x2060..=0x2064 | 0xFEFF | 0x180E | 0x00AD | 0x115F | 0x1160 | 0x3164
    )
}

fn is_bidi_control(c: char) -> bool {
    matches!(c as u32, 0x202A..=0x202E | 0x2066..=0x2069 | 0x200E | 0x200F | 0x061C)
}

fn is_rtl_letter(c: char) -> bool {
    matches!(c as u32, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF)
}

fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x2600..=0x27BF | 0x1F000..=0x1FAFF | 0x2190..=0x21FF | 0x2B00..=0x2BFF | 0x3030 | 0x303D)
}

/// The text without the characters this module looks for, which is what
/// the other rules read (so "ig\u{200b}nore" is "ignore").
pub fn visible(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            !(is_tag(c) || is_variation_selector(c) || is_zero_width(c) || is_bidi_control(c))
        })
        .collect()
}

/// The findings of hidden characters in one text.
pub fn hidden(text: &str) -> Vec<Hit> {
    let mut hits = Vec::new();
    hits.extend(tags(text));
    hits.extend(variation_selectors(text));
    hits.extend(zero_width(text));
    hits.extend(bidi(text));
    hits
}

/// Runs of consecutive characters that satisfy `is`, with where they start.
fn runs(text: &str, is: impl Fn(char) -> bool) -> Vec<(usize, Vec<char>)> {
    let mut out: Vec<(usize, Vec<char>)> = Vec::new();
    let mut previous_in = false;
    for (i, c) in text.char_indices() {
        if is(c) {
            match out.last_mut() {
                Some((_, run)) if previous_in => run.push(c),
                _ => out.push((i, vec![c])),
            }
            previous_in = true;
        } else {
            previous_in = false;
        }
    }
    out
}

fn tags(text: &str) -> Option<Hit> {
    let hidden: String = runs(text, is_tag)
        .into_iter()
        .filter(|(at, run)| !is_flag(text, *at, run))
        .flat_map(|(_, run)| run)
        .filter_map(|c| char::from_u32(c as u32 - 0xE0000))
        .collect();
    (!hidden.is_empty()).then(|| {
        Hit::new(
            Kind::InvisibleUnicode,
            "hides text in invisible Unicode tags".into(),
            &format!("hidden: {hidden}"),
        )
    })
}

/// A subdivision flag (🏴 then a region code in tags then a cancel tag).
fn is_flag(text: &str, at: usize, run: &[char]) -> bool {
    text[..at].ends_with('\u{1F3F4}') && run.len() <= 8 && run.last() == Some(&'\u{E007F}')
}

fn variation_selectors(text: &str) -> Option<Hit> {
    let bytes: Vec<u8> = runs(text, is_variation_selector)
        .into_iter()
        .filter(|(_, run)| run.len() >= 2)
        .flat_map(|(_, run)| run)
        .map(|c| match c as u32 {
            v @ 0xFE00..=0xFE0F => (v - 0xFE00) as u8,
            v => (v - 0xE0100 + 16) as u8,
        })
        .collect();
    (!bytes.is_empty()).then(|| {
        Hit::new(
            Kind::InvisibleUnicode,
            "hides data in a run of variation selectors".into(),
            &format!("hidden: {}", String::from_utf8_lossy(&bytes)),
        )
    })
}

/// Zero-width characters other than the joiners that emoji and some
/// scripts (Persian, Indic) need between their letters.
fn zero_width(text: &str) -> Option<Hit> {
    let chars: Vec<char> = text.chars().collect();
    let suspicious = |i: usize| {
        let c = chars[i];
        if !is_zero_width(c) || (c == '\u{FEFF}' && i == 0) {
            return false;
        }
        if matches!(c, '\u{200C}' | '\u{200D}') {
            let before = i.checked_sub(1).map(|j| chars[j]);
            let after = chars.get(i + 1).copied();
            let joins = |x: Option<char>| {
                x.is_some_and(|x| {
                    (x.is_alphabetic() && !x.is_ascii()) || is_emoji(x) || is_variation_selector(x)
                })
            };
            return !(joins(before) || joins(after));
        }
        true
    };
    let found: Vec<usize> = (0..chars.len()).filter(|&i| suspicious(i)).collect();
    let longest_run = found
        .windows(2)
        .fold((1, 1), |(best, run), w| {
            let run = if w[1] == w[0] + 1 { run + 1 } else { 1 };
            (best.max(run), run)
        })
        .0;
    (found.len() >= 3 || (found.len() == 2 && longest_run >= 2)).then(|| {
        let bits: String = found
            .iter()
            .filter_map(|&i| match chars[i] {
                '\u{200B}' => Some('0'),
                '\u{200C}' => Some('1'),
                _ => None,
            })
            .collect();
        let decoded: Vec<u8> = bits
            .as_bytes()
            .chunks_exact(8)
            .filter_map(|b| u8::from_str_radix(std::str::from_utf8(b).ok()?, 2).ok())
            .collect();
        let shown = match String::from_utf8(decoded) {
            Ok(s) if s.len() >= 2 && s.chars().all(|c| !c.is_control()) => format!("hidden: {s}"),
            _ => format!(
                "{} zero-width characters in: {}",
                found.len(),
                visible(text)
            ),
        };
        Hit::new(
            Kind::InvisibleUnicode,
            "hides text with zero-width characters".into(),
            &shown,
        )
    })
}

/// Overrides always reverse what is shown; embeddings, isolates and marks
/// in text with no right-to-left letters only serve to hide; and an
/// embedding left open spills over what follows.
fn bidi(text: &str) -> Option<Hit> {
    let rtl = text.chars().any(is_rtl_letter);
    let count = |set: &[u32]| text.chars().filter(|c| set.contains(&(*c as u32))).count();
    let overrides = count(&[0x202D, 0x202E]);
    let openers = count(&[0x202A, 0x202B, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068]);
    let closers = count(&[0x202C, 0x2069]);
    let marks = count(&[0x200E, 0x200F, 0x061C]);
    let ltr_only = !rtl && (openers + marks) > 0 && (openers > 0 || marks >= 3);
    if overrides == 0 && !ltr_only && openers <= closers {
        return None;
    }
    let at = text.find(is_bidi_control).unwrap_or(0);
    let segment: String = text[at..]
        .chars()
        .filter(|c| !is_bidi_control(*c))
        .take(80)
        .collect();
    let shown = if overrides > 0 {
        format!(
            "shown reversed: {}",
            segment.chars().rev().collect::<String>()
        )
    } else {
        segment
    };
    Some(Hit::new(
        Kind::BidiControl,
        "uses direction controls to reorder or hide text".into(),
        &shown,
    ))
}
