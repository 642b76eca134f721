//! Names that copy another server's tool: the same name once lookalike
//! letters (Cyrillic `і` for `i`, `1` for `l`, `0` for `o`) are read as
//! the letters they imitate, but not the same name.

use super::{Hit, Kind};

/// A name as it looks: lookalikes folded into the Latin letter they
/// imitate, lowercase.
pub fn skeleton(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            'а' | 'α' => 'a',
            'е' | 'ε' => 'e',
            'о' | 'ο' | 'σ' | '0' | 'O' => 'o',
            'р' | 'ρ' => 'p',
            'с' | 'ϲ' => 'c',
            'у' | 'γ' => 'y',
            'х' | 'χ' => 'x',
            'і' | 'ι' | 'ı' => 'i',
            'ј' => 'j',
            'ѕ' => 's',
            'ԁ' => 'd',
            'ɡ' => 'g',
            'ν' => 'v',
            'к' | 'κ' => 'k',
            'м' => 'm',
            'т' | 'τ' => 't',
            'н' => 'h',
            'в' => 'b',
            '1' | 'I' | '|' | 'ӏ' => 'l',
            c => c.to_lowercase().next().unwrap_or(c),
        })
        .collect()
}

/// A name that mixes Latin letters with letters of another script, the
/// usual way to copy a name while staying distinct from it.
pub fn mixed_script(name: &str) -> Option<Hit> {
    let latin = name.chars().any(|c| c.is_ascii_alphabetic());
    let foreign: String = name
        .chars()
        .filter(|c| c.is_alphabetic() && !c.is_ascii())
        .collect();
    (latin && !foreign.is_empty()).then(|| {
        Hit::new(
            Kind::NameCopy,
            format!("its name mixes lookalike letters ({foreign}) into Latin ones"),
            name,
        )
    })
}

/// The other server's tool whose name this one imitates, among others'
/// names keyed by how they look ([`skeleton`]).
pub fn copied<'a>(
    name: &str,
    by_look: &'a std::collections::HashMap<String, Vec<String>>,
) -> Option<&'a str> {
    by_look
        .get(&skeleton(name))?
        .iter()
        .find(|other| !other.eq_ignore_ascii_case(name))
        .map(String::as_str)
}
