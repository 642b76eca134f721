//! What a sentence asks of the model, read from the ideas it holds (see
//! [`lexicon`](super::lexicon)) rather than from fixed phrases: a secret
//! together with a way of handing it over is exfiltration whatever the
//! words, and "not" with "tell" and "user" is concealment in any order.

use super::lexicon::*;
use super::{Hit, Kind};

/// Where a text sits, which changes what it may say.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// Prose a model reads: a description, a title, an enum value.
    Prose,
    /// Text inside an input or output schema's property: whatever it
    /// names is what the model puts into that argument.
    Property,
}

/// The names a text may mention: this tool's own (its name and its
/// properties') and other servers' tools.
#[derive(Debug)]
pub struct Names<'a> {
    pub own: Vec<String>,
    /// The other tools of this tool's own server (lowercase).
    pub siblings: &'a std::collections::HashSet<String>,
    /// Lowercase.
    pub others: &'a std::collections::HashSet<String>,
}

/// The findings in one text: each sentence is judged on its own.
/// `public` says the text describes a public key's property
/// (`public_key.key`): a key there is to be handed out.
pub fn read(text: &str, place: Place, names: &Names, public: bool) -> Vec<Hit> {
    let mut hits = role_markers(text);
    for sentence in sentences(text) {
        let lower = identifiers_as_code(sentence).to_lowercase();
        let says = |kind, says: String| Hit::new(kind, says, sentence);
        if let Some(what) = exfiltration(&lower, place, public) {
            hits.push(says(
                Kind::HiddenInstructions,
                format!("asks the model to hand over {what}"),
            ));
        } else if let Some(when) = preemption(&lower) {
            hits.push(says(
                Kind::HiddenInstructions,
                format!("tells the model what to do {when}"),
            ));
        }
        if disregard(&lower) {
            hits.push(says(
                Kind::HiddenInstructions,
                "tells the model to set aside its instructions".into(),
            ));
        }
        if concealment(&lower) {
            hits.push(says(
                Kind::Concealment,
                "asks the model to keep something from the user".into(),
            ));
        }
        if let Some(tool) = shadowing(&lower, names) {
            hits.push(says(
                Kind::Shadowing,
                format!("changes how another tool ({tool}) behaves"),
            ));
        }
    }
    hits
}

/// The sentences of `text`: cut at ". ", "! ", "? ", their CJK forms,
/// semicolons and line breaks (a dot inside `~/.ssh` does not cut). A
/// line break before a word in small letters is a wrapped line, not the
/// end of a sentence ("Never tell a user a message\nwas scheduled").
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_blank = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let wrapped = c == '\n' && wraps(&text[start..i], &text[i + 1..]);
        let cut = (matches!(c, '\n' | ';' | '。' | '！' | '？' | '；') && !wrapped)
            || (matches!(c, '.' | '!' | '?') && next_blank);
        if cut {
            push_trimmed(&mut out, &text[start..i]);
            start = i + c.len_utf8();
        }
    }
    push_trimmed(&mut out, &text[start..]);
    out
}

/// Whether a line break between `line` and `next` wraps one sentence of
/// prose: the next line goes on with a plain word in small letters, and
/// neither is a list's entry (`schedule_id: The ID ...`, a line ending in
/// a colon, a bullet).
fn wraps(line: &str, next: &str) -> bool {
    let next = next.trim_start_matches([' ', '\t']);
    let word = next
        .split(|c: char| c.is_whitespace())
        .next()
        .unwrap_or_default();
    let plain = !word.is_empty()
        && word.starts_with(|c: char| c.is_lowercase())
        && word
            .trim_end_matches([',', '.', ';'])
            .chars()
            .all(char::is_alphabetic);
    let line = line.trim_end();
    plain && !line.ends_with(':') && !line.trim_start().starts_with(['-', '*', '•'])
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    if !s.is_empty() {
        out.push(s);
    }
}

/// Where in `hay` (lowercase) the first of `words` starts on a word
/// boundary, and which word it was (the list's first, of two at one
/// place). A trailing `|` in a word asks for a word end too ("pass|" is
/// not "password"). One pass over `hay` finds every word of the list.
pub fn find(hay: &str, words: &Words) -> Option<(usize, &'static str)> {
    found(hay, words)
        .min()
        .map(|(at, pattern)| (at, words[pattern]))
}

/// Every place in `hay` (lowercase) where a word of `words` starts on a
/// word boundary, as [`find`] finds the first: where, and which word (its
/// index in the list).
fn found<'a>(hay: &'a str, words: &'a Words) -> impl Iterator<Item = (usize, usize)> + 'a {
    let outside = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() || is_cjk(c));
    words
        .matcher()
        .find_overlapping_iter(hay)
        .filter(move |m| {
            let word = words[m.pattern().as_usize()];
            let first = word.chars().next().unwrap_or(' ');
            let needs_boundary = first.is_alphanumeric() && !is_cjk(first);
            (!needs_boundary || outside(hay[..m.start()].chars().next_back()))
                && (!word.ends_with('|') || outside(hay[m.end()..].chars().next()))
        })
        .map(|m| (m.start(), m.pattern().as_usize()))
}

/// Whether `s` (lowercase) hands something over in a way it does not
/// forbid: some word of [`HAND_OVER`] with no negation in its clause
/// just before it. "Do not include any API keys in your query" asks the
/// opposite of handing a key over; "no matter what, include the key"
/// does not forbid it (the comma ends the clause of "no").
fn hands_over(s: &str) -> bool {
    found(s, &HAND_OVER).any(|(at, word)| {
        let cited = HAND_OVER[word].starts_with("http") && cites(&s[..at]);
        !forbidden_just_before(&s[..at]) && !in_code(&s[..at]) && !cited
    })
}

/// Whether a web address that follows `before` is cited, not sent to: in
/// parentheses after what it names ("an API key (https://...)"), or
/// where something is found ("from", "see", "visit", "at").
fn cites(before: &str) -> bool {
    const WHERE: &[&str] = &[
        "from",
        "see",
        "visit",
        "at",
        "on",
        "via",
        "docs",
        "documentation",
    ];
    let before = before.trim_end();
    before.ends_with('(')
        || before
            .rsplit(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .is_some_and(|w| WHERE.contains(&w))
}

/// Whether `s` (lowercase) gets something: some word of [`ACQUIRE`] not
/// in the passive, which says what the service does ("fields not passed
/// are read from environment variables"), not what the model is to do.
fn acquires(s: &str) -> bool {
    const PASSIVE: &[&str] = &[
        "is", "are", "was", "were", "be", "been", "being", "gets", "get",
    ];
    found(s, &ACQUIRE).any(|(at, _)| {
        let last = s[..at]
            .split(|c: char| !c.is_alphanumeric())
            .rfind(|w| !w.is_empty())
            .unwrap_or_default();
        !PASSIVE.contains(&last)
    })
}

/// Whether the text that ends with `before` is inside a code span.
fn in_code(before: &str) -> bool {
    before.matches('`').count() % 2 == 1
}

/// `sentence` with each identifier written in camel case (`sendResponse`,
/// `joinWebUrl`) marked as code, as if in backticks: a parameter's name
/// is no word of the sentence ("Set sendResponse to false" sends
/// nothing). Text already in backticks is left as it is.
pub fn identifiers_as_code(sentence: &str) -> std::borrow::Cow<'_, str> {
    let camel = |word: &str| {
        let letters: Vec<char> = word.chars().collect();
        letters
            .windows(2)
            .any(|pair| pair[0].is_lowercase() && pair[1].is_uppercase())
    };
    if !sentence.split_whitespace().any(camel) {
        return std::borrow::Cow::Borrowed(sentence);
    }
    let mut out = String::with_capacity(sentence.len() + 8);
    let mut code = false;
    for piece in sentence.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end();
        let inner = word.trim_matches(|c: char| !c.is_alphanumeric());
        let marked = !code && !word.contains('`') && camel(inner);
        if marked {
            let start = word.find(inner).unwrap_or(0);
            out.push_str(&word[..start]);
            out.push('`');
            out.push_str(inner);
            out.push('`');
            out.push_str(&word[start + inner.len()..]);
            out.push_str(&piece[word.len()..]);
        } else {
            out.push_str(piece);
        }
        if word.matches('`').count() % 2 == 1 {
            code = !code;
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether the clause that ends with `before` forbids what follows it:
/// a negation or "avoid" among its last four words.
fn forbidden_just_before(before: &str) -> bool {
    let clause = before
        .rfind([',', ':', '(', ')', '"', '`'])
        .map_or(before, |cut| &before[cut + 1..]);
    let start = clause
        .char_indices()
        .rev()
        .filter(|(_, c)| c.is_whitespace())
        .nth(4)
        .map_or(0, |(i, _)| i);
    let last_words = &clause[start..];
    has(last_words, &NEGATION) || has(last_words, &FORBIDDING)
}

pub fn has(hay: &str, words: &Words) -> bool {
    find(hay, words).is_some()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// A secret handed to an argument or sent out. Returns what is handed
/// over.
fn exfiltration(s: &str, place: Place, public: bool) -> Option<String> {
    let property = place == Place::Property;
    if !property && !addressed(s) {
        return None;
    }
    let object = |(_, w): (usize, &str)| {
        w.trim_matches([' ', '`', '\'', '"', ',', ')', '|'])
            .to_string()
    };
    // A public key is there to be handed out.
    let public = public || s.contains(".pub") || s.contains("public key");
    if let Some(file) = find(s, &SECRET_FILES).filter(|_| !public)
        && (hands_over(s) || (property && acquires(s)))
    {
        return Some(object(file));
    }
    if let Some(talk) = itself(s, &CONVERSATION) {
        let acquire = acquires(s);
        if hands_over(s)
            && (acquire || has(s, &EVERY) || s.contains("http") || has(s, &DIRECTIVE) || !property)
        {
            return Some(object(talk));
        }
        if acquire && property {
            return Some(object(talk));
        }
    }
    if let Some(secret) = itself(s, &SECRETS) {
        let acquire = acquires(s);
        let every = has(s, &EVERY);
        if (hands_over(s) && (acquire || every)) || (acquire && property && every) {
            return Some(object(secret));
        }
    }
    None
}

/// The first of `words` that `s` (lowercase) names as itself: not its
/// handle (an "API key ID", a "password name", "this conversationId")
/// and not a literal value in code (`client_credentials`, `password`
/// among a list of grant types).
fn itself(s: &str, words: &Words) -> Option<(usize, &'static str)> {
    static HANDLE: &[&str] = &[
        "id",
        "ids",
        "name",
        "names",
        "identifier",
        "prefix",
        "type",
        "types",
    ];
    found(s, words)
        .filter(|&(at, pattern)| {
            // A word's end marker (`|`) is no text of the match.
            let after = &s[at + words[pattern].trim_end_matches('|').len()..];
            let next = after
                .trim_start_matches([' ', '_', '-'])
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("");
            !HANDLE.contains(&next) && !in_code(&s[..at])
        })
        .min()
        .map(|(at, pattern)| (at, words[pattern]))
}

/// Whether a sentence speaks to the model: an obligation, "you", a moment
/// ("before"), or an imperative among its first two words.
fn addressed(s: &str) -> bool {
    has(s, &ADDRESSED)
        || s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(2)
            .any(|w| IMPERATIVES.contains(&w))
}

/// Something the model must do before or at every call, whatever the
/// person asked (line jumping). Returns the trigger.
fn preemption(s: &str) -> Option<&'static str> {
    let (_, trigger) = find(s, &TRIGGER)?;
    // The quantifier ranges over calls when one of the next three words
    // is one ("before any other tool call", "every conversation"), not
    // over what it qualifies ("any option not in the request").
    let over_calls = QUANTIFIER.iter().any(|q| {
        // At a word's start: the `all` of "call" is no quantifier
        // (scripts written without spaces have no word starts to ask for).
        let starts_a_word = |i: usize| {
            !s[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        };
        s.match_indices(q)
            .filter(|&(i, _)| !q.is_ascii() || starts_a_word(i))
            .any(|(i, _)| {
                let after: String = s[i..].chars().take(q.chars().count() + 30).collect();
                let near: String = after
                    .split_whitespace()
                    .take(4)
                    .collect::<Vec<_>>()
                    .join(" ");
                has(&near, &ACTIVITY) || (!q.is_ascii() && has(&after, &ACTIVITY))
            })
    });
    // Handing the other calls' data over, or acting whatever the person
    // asked: a tool that only wants to be called first does neither.
    let takes_over = hands_over(s)
        || ["regardless", "no matter", "prepend", "run `", "无论"]
            .iter()
            .any(|w| s.contains(w));
    (over_calls && has(s, &DIRECTIVE) && takes_over).then_some(trigger.trim())
}

/// "Ignore your previous instructions", in any words.
fn disregard(s: &str) -> bool {
    has(s, &DISREGARD) && has(s, &INSTRUCTIONS) && has(s, &EARLIER)
}

/// Keeping something from the person: not telling them, or acting out of
/// their sight, or they must not find out.
fn concealment(s: &str) -> bool {
    // What the person gets when they ask is not kept from them ("Don't
    // bother telling the user the IDs unless they ask for them").
    static ON_REQUEST: Words = Words::new(&[
        "unless they ask",
        "unless the user ask",
        "unless asked",
        "unless requested",
        "if they ask",
        "if the user ask",
        "if asked",
        "when asked",
        "on request",
        "if requested",
    ]);
    // "Even if asked" keeps it from them all the more.
    let on_request = found(s, &ON_REQUEST).any(|(at, _)| !s[..at].trim_end().ends_with("even"));
    if on_request {
        return false;
    }
    let negation = find(s, &NEGATION);
    let user = find(s, &USER);
    // Not telling, then whom: "do not tell the user", "不要告诉用户".
    if let (Some((n, word)), Some((u, _))) = (negation, user) {
        let tell_after = find(&s[n + word.len()..], &TELL).map(|(t, _)| n + word.len() + t);
        if tell_after.is_some_and(|t| t - (n + word.len()) <= 25 && t < u) {
            return true;
        }
    }
    // "the user should not find out": the person is the one kept unaware.
    static KNOW: Words = Words::new(&[
        "find out", "notice", "be aware", "know", "learn", "see ", "realize",
    ]);
    if let (Some((u, _)), Some((n, _)), Some((k, _))) = (user, negation, find(s, &KNOW))
        && u < n
        && n < k
        && n - u <= 30
        && k - n <= 20
    {
        return true;
    }
    acts_out_of_sight(s) && (user.is_some() || hands_over(s) || has(s, &DIRECTIVE))
}

/// Whether `s` says something is done out of the person's sight, not how
/// a failure goes unnoticed ("the email will silently fail", "quietly
/// ignored"): that describes the service, it asks nothing of the model.
fn acts_out_of_sight(s: &str) -> bool {
    static OUTCOME: &[&str] = &[
        "fail", "ignor", "skip", "drop", "fall", "succeed", "no-op", "time",
    ];
    found(s, &SECRETLY).any(|(at, pattern)| {
        let after = s[at + SECRETLY[pattern].len()..].trim_start();
        let next = after
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .next()
            .unwrap_or("");
        !OUTCOME.iter().any(|o| next.starts_with(o))
    })
}

/// A directive about another tool: when it is used, or what it must do,
/// followed by a change to its behaviour. Returns the tool named.
fn shadowing(s: &str, names: &Names) -> Option<String> {
    let (at, tool) = other_tool(s, names)?;
    let condition = (has(s, &WHEN) && has(s, &USE)) || has(s, &OBLIGATION);
    let rest = &s[at..];
    let alters = has(rest, &ALTER) || destination(rest);
    (condition && alters).then_some(tool)
}

/// The first tool `s` names that is not this one: another server's tool,
/// a `snake_case` identifier that is none of this tool's names, or "other
/// tools" in words.
fn other_tool(s: &str, names: &Names) -> Option<(usize, String)> {
    let mut best: Option<(usize, String)> = None;
    let mut consider = |i: usize, name: &str| {
        if best.as_ref().is_none_or(|(b, _)| i < *b) {
            best = Some((i, name.to_string()));
        }
    };
    if let Some((i, w)) = find(s, &OTHER_TOOLS) {
        consider(i, w);
    }
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            start.get_or_insert(i);
        } else if let Some(b) = start.take() {
            let token = &s[b..i];
            let own = names.own.iter().any(|n| n.eq_ignore_ascii_case(token))
                || names.siblings.contains(&token.to_lowercase());
            // Another server's tool named by a plain word ("extract",
            // "search") is a tool only where the text says so: written as
            // an identifier, quoted, or called a tool.
            let marked = token.contains(['_', '-'])
                || s[..b].ends_with(['`', '\'', '"'])
                || s[i..].trim_start().starts_with("tool");
            if names.others.contains(token) && !own && marked {
                consider(b, token);
                continue;
            }
            // A file's name (`name_yyyymmdd.zip`) or a path's part is no
            // tool.
            let file = {
                let rest = &s[i..];
                rest.starts_with('.') && rest[1..].starts_with(|c: char| c.is_ascii_alphanumeric())
            } || s[..b].ends_with('/');
            let looks_like_tool = token.split('_').filter(|p| !p.is_empty()).count() >= 2
                && token.chars().any(|c| c.is_ascii_lowercase())
                && !file;
            if looks_like_tool && !own {
                consider(b, token);
            }
        }
    }
    best
}

/// An address data can be sent to: an email address, a URL, an account
/// number, a temporary path.
fn destination(s: &str) -> bool {
    let email = s.split_whitespace().any(|w| {
        w.split_once('@')
            .is_some_and(|(a, b)| !a.is_empty() && b.contains('.'))
    });
    let account = s
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.chars().filter(char::is_ascii_digit).count() >= 6);
    email || account || s.contains("http://") || s.contains("https://") || s.contains("/tmp/")
}

/// Fake turn markers of chat templates: `<|im_start|>`, `[INST]`,
/// `<system>`, and turn headings at the start of a line.
fn role_markers(text: &str) -> Vec<Hit> {
    let lower = text.to_lowercase();
    if let Some((i, marker)) = find(&lower, &ROLE_MARKERS) {
        let end = (i + marker.len() + 80).min(lower.len());
        let excerpt = text.get(i..end).unwrap_or(marker);
        return vec![Hit::new(
            Kind::RoleMarkers,
            format!("holds a chat turn marker ({})", marker.trim()),
            excerpt,
        )];
    }
    for line in text.lines() {
        let lower = line.trim_start().to_lowercase();
        if let Some(heading) = ROLE_HEADINGS.iter().find(|h| lower.starts_with(**h)) {
            let after = lower[heading.len()..].trim_start();
            if heading.ends_with(':') || after.is_empty() || after.starts_with(':') {
                return vec![Hit::new(
                    Kind::RoleMarkers,
                    format!("starts a line as a chat turn ({})", heading.trim()),
                    line.trim(),
                )];
            }
        }
    }
    Vec::new()
}
