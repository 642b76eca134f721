//! What a request gives besides its words: a web address, coordinates,
//! a day or a time, an email address. Each is found in the request by its
//! shape and in a tool by its parameters, and is a slot of its own in
//! [`super::ToolIndex`]'s ranking.

use crate::lexicon;
use serde_json::Value;

/// A kind of value a person may give in a request, which a tool's
/// parameters may take: "read https://example.com/post" gives a web
/// address, and the tools that take one (`url`, `urls`) are what the
/// person means, whatever the words around it say ("tell me the news
/// there" is not a news search). Found in the query by its shape, in a
/// tool by its parameters' names and formats. A file's path is not one:
/// most tools of a server that works on files take a path, and a name
/// like `Next.js` reads as a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Given {
    /// `https://...`, `www....`, `docs.example.com/path`.
    WebAddress,
    /// `48.8584, 2.2945`.
    Coordinates,
    /// A day or a time: "yesterday", "next Tuesday", "the last 24 hours",
    /// "March 3", "3pm", "2024-05-01".
    Time,
    /// `jane@example.com`.
    EmailAddress,
    /// Several things at once: "201, 202, 203 and 207", "these 40
    /// deals", "in one go".
    Several,
}

impl Given {
    const ALL: [Given; 5] = [
        Given::WebAddress,
        Given::Coordinates,
        Given::Time,
        Given::EmailAddress,
        Given::Several,
    ];

    /// The parameter names (their words) that take this kind of value;
    /// for [`Given::Several`], the words of a name made for a batch.
    fn parameters(self) -> &'static [&'static str] {
        match self {
            Given::WebAddress => &[
                "url", "urls", "uri", "uris", "link", "links", "website", "href",
            ],
            Given::Several => &["batch", "bulk", "multiple", "many"],
            Given::EmailAddress => &[
                "email",
                "emails",
                "sender",
                "senders",
                "recipient",
                "recipients",
                "cc",
                "bcc",
            ],
            Given::Coordinates => &[
                "latitude",
                "longitude",
                "lat",
                "lng",
                "lon",
                "coordinates",
                "latlng",
            ],
            Given::Time => &[
                "time",
                "times",
                "date",
                "dates",
                "datetime",
                "timestamp",
                "since",
                "until",
                "ago",
                "lookback",
                "timeframe",
                "timerange",
                "hours",
                "minutes",
                "days",
            ],
        }
    }
}

/// Days, months and the words of a time ago or to come, as a request
/// says them. `may`, `march` and `august`, also words of other kinds,
/// count only before a number ("March 3").
const DAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "yesterday",
    "today",
    "tonight",
    "tomorrow",
    "january",
    "february",
    "april",
    "june",
    "july",
    "september",
    "october",
    "november",
    "december",
];
const MONTHS_BEFORE_A_NUMBER: &[&str] = &[
    "may", "march", "august", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec",
];
/// "last", "past", "next" or "this" before one of these (with a number
/// between, "the last 24 hours") is a time.
const SPANS: &[&str] = &[
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "night",
    "morning",
    "afternoon",
    "evening",
    "quarter",
    "minute",
    "minutes",
    "weekend",
];
const SPAN_LEADS: &[&str] = &["last", "past", "next", "this", "previous", "coming"];

/// Whether the request's word at `at` of `words` (as [`given_in`] cuts
/// them) says a day or a time: a day's or a month's name (some months
/// only before a number), a clock or a date, or a span with "last",
/// "next" or "this" before it ("the last 24 hours").
fn says_a_time(words: &[String], at: usize) -> bool {
    let word = |at: usize| words.get(at).map(String::as_str);
    let is = |at: usize, list: &[&str]| word(at).is_some_and(|w| list.contains(&w));
    let Some(this) = word(at) else {
        return false;
    };
    let number_next = word(at + 1).is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()));
    let count_next = word(at + 1).is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()));
    let span_next = is(at + 1, SPANS) || (count_next && is(at + 2, SPANS));
    let led = (1..=2).any(|back| at >= back && is(at - back, SPAN_LEADS));
    DAYS.contains(&this)
        || (MONTHS_BEFORE_A_NUMBER.contains(&this) && number_next)
        || is_clock_or_date(this)
        || (SPAN_LEADS.contains(&this) && span_next)
        || (SPANS.contains(&this) && led)
}

/// Whether `word` (lower case, no punctuation) says a time of day
/// (`3pm`, `10:30`, `6am`) or a date (`2024-05-01`).
fn is_clock_or_date(word: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if let Some(hour) = word.strip_suffix("am").or_else(|| word.strip_suffix("pm")) {
        let hour = hour.split(':').next().unwrap_or("");
        return digits(hour) && hour.len() <= 2;
    }
    match word.split(':').collect::<Vec<_>>()[..] {
        [hour, minute]
            if digits(hour) && hour.len() <= 2 && digits(minute) && minute.len() == 2 =>
        {
            return true;
        }
        _ => {}
    }
    let parts: Vec<&str> = word.split('-').collect();
    parts.len() == 3 && parts[0].len() == 4 && parts.iter().all(|p| digits(p))
}

/// Endings of a host name that make a dotted word a web address rather
/// than a file: the common generic and country domains.
const WEB_ENDINGS: &[&str] = &[
    "com", "org", "net", "io", "app", "dev", "ai", "co", "gov", "edu", "info", "me", "uk", "de",
    "fr", "jp", "cn", "ca", "au", "us", "eu", "in", "ru", "br", "es", "it", "nl", "tv", "xyz",
    "cloud", "site", "tech", "page", "sh",
];

/// The kinds of values `query` gives, each once, and the query with
/// them taken out (their pieces are no words of the request: the
/// `google` of an address is not the maps tools').
pub(super) fn given_in(query: &str) -> (Vec<Given>, String) {
    let mut given = Vec::new();
    let mut words = Vec::new();
    let mut add = |kind: Given| {
        if !given.contains(&kind) {
            given.push(kind);
        }
    };
    let tokens: Vec<&str> = query.split_whitespace().collect();
    // Each token in lower case, only a clock's `:` and a date's `-` kept
    // of its punctuation.
    let trimmed: Vec<String> = tokens
        .iter()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric() && c != ':' && c != '-')
                .to_lowercase()
        })
        .collect();
    let number = |t: &str| {
        let t = t.trim_end_matches([',', ';', ')', '?', '.']);
        let t = t.trim_start_matches('(');
        t.contains('.')
            && t.trim_start_matches('-')
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.')
    };
    for (i, token) in tokens.iter().enumerate() {
        let bare = token.trim_matches(|c: char| {
            matches!(c, ',' | ';' | '(' | ')' | '?' | '!' | '"' | '\'' | '`')
        });
        let bare = bare.strip_suffix('.').unwrap_or(bare);
        let lower = bare.to_lowercase();
        // Two decimal numbers side by side, or `48.85,2.29`.
        let pair =
            lower.split(',').filter(|p| !p.is_empty()).count() == 2 && lower.split(',').all(number);
        if pair || (number(token) && tokens.get(i + 1).is_some_and(|next| number(next))) {
            add(Given::Coordinates);
            continue;
        }
        if i > 0 && number(token) && number(tokens[i - 1]) {
            continue;
        }
        if is_email_address(&lower) {
            add(Given::EmailAddress);
            continue;
        }
        if says_a_time(&trimmed, i) {
            // Its words stay words of the request: "today" is what a
            // tool of today's messages says.
            add(Given::Time);
        }
        if lower.starts_with("http://")
            || lower.starts_with("https://")
            || lower.starts_with("www.")
        {
            add(Given::WebAddress);
            continue;
        }
        let host = lower.split('/').next().unwrap_or("");
        let dotted = host.contains('.') && !host.starts_with('.') && !host.ends_with('.');
        let ending = host.rsplit('.').next().unwrap_or("");
        if dotted && host.split('.').all(|p| !p.is_empty()) && WEB_ENDINGS.contains(&ending) {
            add(Given::WebAddress);
            continue;
        }
        words.push(*token);
    }
    if says_several(&tokens, &trimmed) {
        add(Given::Several);
    }
    (given, words.join(" "))
}

/// Whether a request (its `tokens`, and their `words` in lower case as
/// [`given_in`] trims them) names several things at once: "in one go",
/// "these 40 deals", or a list ("201, 202, 203 and 207", "Dallas,
/// Houston and Austin").
fn says_several(tokens: &[&str], words: &[String]) -> bool {
    let comma = |at: usize| tokens.get(at).is_some_and(|t| t.ends_with(','));
    let joins = |at: usize| words.get(at).is_some_and(|w| w == "and" || w == "or");
    let listed =
        (0..tokens.len()).any(|i| comma(i) && (comma(i + 1) || comma(i + 2) || joins(i + 2)));
    let text = words.join(" ");
    let at_once = [
        "in one go",
        "at once",
        "in bulk",
        "in a batch",
        "all at once",
    ]
    .iter()
    .any(|phrase| text.contains(phrase));
    let counted = words.windows(2).any(|pair| {
        matches!(pair[0].as_str(), "these" | "those" | "all")
            && pair[1].parse::<u32>().is_ok_and(|n| n >= 2)
    });
    listed || at_once || counted
}

/// The kinds of values `definition`'s parameters take, by their names
/// (`url`, `latitude`) or a `uri` format, and whether it is made for
/// several things at once ([`Given::Several`], by its name's words or a
/// list it needs).
pub(super) fn takes_of(definition: &Value) -> Vec<Given> {
    let none = serde_json::Map::new();
    let properties = definition
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .unwrap_or(&none);
    let required: Vec<&str> = definition
        .pointer("/inputSchema/required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let name = definition.get("name").and_then(Value::as_str).unwrap_or("");
    let named = |name: &str, kind: Given| {
        lexicon::words(name)
            .iter()
            .any(|word| kind.parameters().contains(&word.as_str()))
    };
    // A tool made for several things says so in its name, or needs a
    // list as what it works on.
    let several = named(name, Given::Several)
        || properties.iter().any(|(name, property)| {
            required.contains(&name.as_str())
                && property.get("type").and_then(Value::as_str) == Some("array")
        });
    Given::ALL
        .into_iter()
        .filter(|&kind| {
            (kind == Given::Several && several)
                || properties.iter().any(|(name, property)| {
                    let format = property.get("format").and_then(Value::as_str);
                    named(name, kind)
                        || match kind {
                            Given::WebAddress => format == Some("uri"),
                            Given::Time => {
                                matches!(format, Some("date" | "date-time" | "time"))
                                    || bounds_a_time(name, property)
                            }
                            Given::EmailAddress => {
                                format == Some("email") || addresses_mail(name, property)
                            }
                            Given::Coordinates | Given::Several => false,
                        }
                })
        })
        .collect()
}

/// Whether `word` (lower case, its punctuation trimmed) is an email
/// address: a name, `@`, and a dotted domain with no path after it
/// (`git@host:repo` is where code lives, not whom to write to).
fn is_email_address(word: &str) -> bool {
    let Some((name, domain)) = word.split_once('@') else {
        return false;
    };
    !name.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && domain
            .chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-')
}

/// Whether a parameter named as a party to a message (`to`, `from`,
/// `reply_to`) takes an email address: its description says so.
fn addresses_mail(name: &str, property: &Value) -> bool {
    const PARTIES: &[&str] = &["to", "from", "reply", "address", "addresses"];
    named_and_said(name, property, PARTIES, &["email", "e-mail"])
}

/// Whether a parameter's name has one of `named` (as a word) and its
/// description one of `said`.
fn named_and_said(name: &str, property: &Value, named: &[&str], said: &[&str]) -> bool {
    let description = property
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_lowercase();
    lexicon::words(name)
        .iter()
        .any(|word| named.contains(&word.as_str()))
        && said.iter().any(|word| description.contains(word))
}

/// Whether a parameter named as a bound (`start`, `end`, `from`,
/// `after`) takes a time: its description says so.
fn bounds_a_time(name: &str, property: &Value) -> bool {
    const BOUNDS: &[&str] = &[
        "start", "end", "from", "to", "after", "before", "min", "max",
    ];
    const TIMES: &[&str] = &[
        "time",
        "date",
        "timestamp",
        "rfc3339",
        "iso 8601",
        "iso8601",
        "unix",
    ];
    named_and_said(name, property, BOUNDS, TIMES)
}
