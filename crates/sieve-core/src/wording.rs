//! How the proxy reads what a tool says of itself: the words of a name,
//! the sentences of a description, phrases found on word boundaries
//! ("all" is not in "install"), and the short quotes that explanations
//! show ("its description (\"Permanently deletes ...\")").

/// The words of a name, lowercase: `snake_case`, `kebab-case`, dotted,
/// `camelCase` and `PascalCase` alike (`getFileContents` → get, file,
/// contents). A run of capitals stays one word (`HTTPRequest`).
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut words);
        } else {
            // A capital after a small letter starts a word: `getFile`.
            if c.is_uppercase() && previous.is_some_and(char::is_lowercase) {
                flush(&mut word, &mut words);
            }
            word.extend(c.to_lowercase());
        }
        previous = Some(c);
    }
    flush(&mut word, &mut words);
    words
}

fn flush(word: &mut String, words: &mut Vec<String>) {
    if !word.is_empty() {
        words.push(std::mem::take(word));
    }
}

/// The words of prose, lowercase, split at anything but letters and
/// digits: "Read-only; can't" → read, only, can, t.
pub fn prose_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The sentences of `text`: cut at a full stop, question or exclamation
/// mark followed by white space, at a semicolon, and at line breaks.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text.trim();
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let bytes = rest.as_bytes();
        let end = (0..bytes.len())
            .find(|&i| {
                let next_is_space = bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace);
                matches!(bytes[i], b'\n' | b';')
                    || (matches!(bytes[i], b'.' | b'?' | b'!') && next_is_space)
            })
            .unwrap_or(bytes.len());
        let sentence = rest[..end].trim();
        rest = rest.get(end + 1..).unwrap_or("").trim_start();
        Some(sentence)
    })
    .filter(|s| !s.is_empty())
}

/// How much of a description the labels read: what a tool does, it says
/// first. Past this, a long description (a padded one, a manual pasted in)
/// only costs time at every listing; 1,500 bytes hold the first ten or
/// so sentences of any real server's tools.
pub const READ_AT_MOST: usize = 1_500;

/// The opening of `text` the labels read: all of it when short, else up
/// to the last sentence end within [`READ_AT_MOST`] bytes (or that many
/// bytes, cut at a character).
pub fn opening(text: &str) -> &str {
    if text.len() <= READ_AT_MOST {
        return text;
    }
    let mut end = READ_AT_MOST;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind(['.', '?', '!', '\n']) {
        Some(stop) if stop > 0 => &head[..=stop],
        _ => head,
    }
}

/// The first sentence of `text` (empty for an empty text).
pub fn first_sentence(text: &str) -> &str {
    sentences(text).next().unwrap_or("")
}

/// Whether `words` hold `phrase` (words separated by spaces, as
/// [`prose_words`] would cut them) as consecutive words.
pub fn has_phrase(words: &[String], phrase: &str) -> bool {
    // Called for every phrase of every list on every tool of every
    // server, so nothing is allocated: the phrase's words are compared
    // where its first word stands (phrases are written in lowercase).
    let mut parts = phrase
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    let Some(first) = parts.next() else {
        return false;
    };
    let rest = parts.clone().count();
    words.len() > rest
        && (0..words.len() - rest).any(|i| {
            words[i].eq_ignore_ascii_case(first)
                && parts
                    .clone()
                    .zip(&words[i + 1..])
                    .all(|(want, word)| word.eq_ignore_ascii_case(want))
        })
}

/// The first of `phrases` that `words` hold.
pub fn find_phrase<'p>(words: &[String], phrases: &[&'p str]) -> Option<&'p str> {
    phrases.iter().copied().find(|p| has_phrase(words, p))
}

/// A text read once for many questions: which of several phrase lists it
/// says, and where. Long descriptions of thousands of tools are read at
/// every listing, so the text is cut into words once, and a phrase whose
/// first word the text never uses is passed over at the cost of a lookup.
pub struct Prose<'a> {
    text: &'a str,
    words: std::collections::HashSet<String>,
}

impl<'a> Prose<'a> {
    pub fn new(text: &'a str) -> Prose<'a> {
        Prose {
            text,
            words: prose_words(text).into_iter().collect(),
        }
    }

    /// A quote of the first sentence that holds one of `phrases`.
    pub fn quote_saying(&self, phrases: &[&str]) -> Option<String> {
        let candidates: Vec<&str> = phrases
            .iter()
            .copied()
            .filter(|p| {
                p.split(|c: char| !c.is_alphanumeric())
                    .find(|w| !w.is_empty())
                    .is_some_and(|first| self.words.contains(&first.to_lowercase()))
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        sentences(self.text)
            .find(|s| find_phrase(&prose_words(s), &candidates).is_some())
            .map(quote)
    }
}

/// The first words of the first sentence of `text`, enough to recognise
/// it.
pub fn quote(text: &str) -> String {
    const WORDS: usize = 10;
    let words: Vec<&str> = first_sentence(text).split_whitespace().collect();
    if words.len() <= WORDS {
        words.join(" ")
    } else {
        format!("{} ...", words[..WORDS].join(" "))
    }
}

/// `text` without what it quotes: in a request, words in quotation marks
/// are what the person gives ("post 'back at 5' in #general", "a message
/// with 'lease renewal' in its subject"), not what they ask done, and
/// would find the tools whose texts share them. A quote opens at the start
/// of a word and closes at the end of one (`'`, `"`, `` ` ``, and the
/// curly marks); an apostrophe inside a word (`I'll`) or one with no mate
/// is left, and so is the text when nothing is quoted.
pub fn without_quotes(text: &str) -> std::borrow::Cow<'_, str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let closing = |open: char| match open {
        '\u{201c}' => &['\u{201d}'][..],
        '\u{2018}' => &['\u{2019}'][..],
        '\'' => &['\'', '\u{2019}'][..],
        '"' => &['"'][..],
        '`' => &['`'][..],
        _ => &[][..],
    };
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let opens_word = |i: usize| {
        (i == 0 || at(i - 1).is_some_and(|c| c.is_whitespace() || "([{:=".contains(c)))
            && at(i + 1).is_some_and(|c| !c.is_whitespace())
    };
    let closes_word = |i: usize| {
        i > 0
            && at(i - 1).is_some_and(|c| !c.is_whitespace())
            && at(i + 1).is_none_or(|c| c.is_whitespace() || ".,;:!?)]}".contains(c))
    };
    let mut spans = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let open = chars[i].1;
        let marks = closing(open);
        if marks.is_empty() || !opens_word(i) {
            i += 1;
            continue;
        }
        match (i + 1..chars.len()).find(|&j| marks.contains(&chars[j].1) && closes_word(j)) {
            Some(end) => {
                let stop = chars.get(end + 1).map_or(text.len(), |&(byte, _)| byte);
                spans.push((chars[i].0, stop));
                i = end + 1;
            }
            None => i += 1,
        }
    }
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut kept = String::with_capacity(text.len());
    let mut from = 0;
    for (start, stop) in spans {
        kept.push_str(&text[from..start]);
        from = stop;
    }
    kept.push_str(&text[from..]);
    std::borrow::Cow::Owned(kept)
}

/// `text` without what a person gives it to say: what it quotes
/// ([`without_quotes`]) and what it reports ("leave a note saying the tests
/// pass", "tell #ops that the deploy is done", "let the team know I pushed
/// a fix"), to the end of that clause. A verb of saying that is the
/// request's own ("what are people saying about it", "let me know when it
/// changes") is kept with what follows it.
pub fn without_what_is_said(text: &str) -> std::borrow::Cow<'_, str> {
    const BEING: &[&str] = &[
        "am", "is", "are", "was", "were", "be", "been", "keep", "keeps", "kept",
    ];
    const TELLING: &[&str] = &[
        "tell", "telling", "told", "inform", "remind", "notify", "warn",
    ];
    const WHOM: &[&str] = &["them", "him", "her", "everyone", "everybody"];
    const CONDITIONS: &[&str] = &["when", "whenever", "if", "once", "about"];
    let unquoted = without_quotes(text);
    let tokens: Vec<&str> = unquoted.split_whitespace().collect();
    // Each token in lower case without its punctuation, cut once.
    let words: Vec<String> = tokens
        .iter()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric() && c != '#')
                .to_lowercase()
        })
        .collect();
    let word = |at: usize| words.get(at).map_or("", String::as_str);
    let said_from = |at: usize| -> Option<usize> {
        let before = |back: usize| at.checked_sub(back).map(word);
        let before_is = |backs: std::ops::RangeInclusive<usize>, list: &[&str]| {
            backs
                .into_iter()
                .any(|back| before(back).is_some_and(|w| list.contains(&w)))
        };
        match word(at) {
            "saying" | "says" if at > 0 && !before_is(1..=2, BEING) => Some(at),
            "that" if before_is(1..=3, TELLING) => Some(at),
            w if WHOM.contains(&w) && before_is(1..=1, TELLING) && tokens.len() > at + 1 => {
                Some(at + 1)
            }
            "know"
                if before_is(1..=6, &["let"])
                    && tokens.len() > at + 1
                    && !CONDITIONS.contains(&word(at + 1)) =>
            {
                Some(at + 1)
            }
            _ => None,
        }
    };
    let mut kept: Vec<&str> = Vec::with_capacity(tokens.len());
    let mut at = 0;
    while at < tokens.len() {
        let Some(from) = said_from(at) else {
            kept.push(tokens[at]);
            at += 1;
            continue;
        };
        kept.extend(&tokens[at..from]);
        // What is said runs to the end of its clause: a stop, or a comma
        // before the next thing asked ("..., and copy Anna").
        let mut end = from;
        while end < tokens.len() {
            let token = tokens[end];
            end += 1;
            if token.ends_with(['.', ';', '?', '!'])
                || (token.ends_with(',') && matches!(word(end), "and" | "then"))
            {
                break;
            }
        }
        at = end;
    }
    // Whatever is cut takes a token at least, so nothing cut keeps them all.
    if kept.len() == tokens.len() {
        return unquoted;
    }
    std::borrow::Cow::Owned(kept.join(" "))
}

/// `n` with a comma between thousands: 5,200.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_request_quotes_is_left_out() {
        let cases = [
            ("post 'back at 5, sorry' in #general", "post  in #general"),
            (
                "a message with \"lease renewal\" in its subject",
                "a message with  in its subject",
            ),
            (
                "answer with \u{2018}Thanks, I'll read it\u{2019} today",
                "answer with  today",
            ),
            ("run `npm test` now", "run  now"),
            ("print(sorted(set('abc')))", "print(sorted(set()))"),
        ];
        for (text, kept) in cases {
            assert_eq!(without_quotes(text), kept, "{text}");
        }
        // Apostrophes in words and a mark with no mate stay.
        for text in [
            "I'll send what we've got",
            "the users' names",
            "he said \"wait",
        ] {
            assert_eq!(without_quotes(text), text);
        }
    }

    #[test]
    fn what_a_request_reports_is_left_out_to_the_end_of_its_clause() {
        let cases = [
            (
                "leave a note on PR 57 saying the tests look good",
                "leave a note on PR 57",
            ),
            (
                "tell #ops that the deploy is done. Then close it",
                "tell #ops Then close it",
            ),
            (
                "decline it and tell them I'm travelling",
                "decline it and tell them",
            ),
            ("let the team know I pushed a fix", "let the team know"),
            (
                "write to Tom saying we'll be late, and copy Anna",
                "write to Tom and copy Anna",
            ),
        ];
        for (text, kept) in cases {
            assert_eq!(without_what_is_said(text), kept, "{text}");
        }
        // The request's own verb of saying stays, with what follows it.
        for text in [
            "what are guests saying about this place",
            "what have people been saying in #general",
            "let me know whenever this ticket changes",
            "tell me the three main announcements",
        ] {
            assert_eq!(without_what_is_said(text), text);
        }
    }

    #[test]
    fn names_are_cut_into_words() {
        assert_eq!(name_words("getFileContents"), ["get", "file", "contents"]);
        assert_eq!(name_words("kubectl_get"), ["kubectl", "get"]);
        assert_eq!(name_words("get-tiny.image"), ["get", "tiny", "image"]);
        assert_eq!(name_words("HTTPRequest"), ["httprequest"]);
        assert!(name_words("__").is_empty());
    }

    #[test]
    fn sentences_end_at_stops_followed_by_space() {
        let text = "Read a file (v1.2). Then stop; or not\nNext line!";
        let all: Vec<&str> = sentences(text).collect();
        assert_eq!(
            all,
            ["Read a file (v1.2)", "Then stop", "or not", "Next line"]
        );
        assert_eq!(first_sentence(""), "");
        assert_eq!(first_sentence("One."), "One");
    }

    #[test]
    fn phrases_match_whole_words() {
        let words = prose_words("Install the chart; it is read-only");
        assert!(!has_phrase(&words, "all"));
        assert!(has_phrase(&words, "read-only"));
        assert!(has_phrase(&words, "read only"));
        assert_eq!(find_phrase(&words, &["x", "the chart"]), Some("the chart"));
        assert_eq!(
            Prose::new("Makes a file. It cannot be undone, ever.")
                .quote_saying(&["cannot be undone"]),
            Some("It cannot be undone, ever".to_string())
        );
    }

    #[test]
    fn a_long_text_is_read_to_a_sentence_end_within_the_limit() {
        let long = "Pads the list. ".repeat(200);
        let read = opening(&long);
        assert!(read.len() <= READ_AT_MOST && read.ends_with('.'), "{read}");
        assert_eq!(opening("Short."), "Short.");
        let wide = "é".repeat(2_000);
        assert!(opening(&wide).len() <= READ_AT_MOST);
    }

    #[test]
    fn quotes_are_short_and_numbers_readable() {
        assert_eq!(
            quote("one two three four five six seven eight nine ten eleven. Next"),
            "one two three four five six seven eight nine ten ..."
        );
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(5_200), "5,200");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
