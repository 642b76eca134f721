//! The words a plain-words query may mean (DESIGN §9, issue 34): what
//! `sieve__find_tools` expands a query with before it ranks tools.
//!
//! Two sources, both offline and deterministic:
//!
//! * A table derived from WordNet 3.0 (Debian's `wordnet-base`) by
//!   `scripts/wordnet-table.py`: for each word and collocation, the
//!   synonyms and derived forms of its most used senses, and irregular
//!   forms (`ran` → `run`); after a `|`, the broader actions of a verb's
//!   senses (to discard is to remove), and after a second `|`, the
//!   content words of the definition of a common word's most used sense
//!   ("remember": knowledge, memory), both tried only when no tool has
//!   the word or any of its relatives. It is compiled in gzipped (1.8
//!   MB) and unpacked (5.5 MB of sorted lines, looked up by binary search) only
//!   while an index holds it: [`Lexicon::shared`] hands out one copy, and
//!   the last index dropped frees it, so a proxy with no search profile
//!   unpacks it only for a moment, when derived groups look up the noun
//!   of a verb (`subjects`: a group of `navigate` tools is `navigation`).
//! * A table of the words used alike in software requests
//!   (`scripts/software-neighbours.py`): each word of a general and a
//!   software vocabulary (WordNet's tagged words, Debian's package
//!   descriptions) read by a sentence model (all-MiniLM-L6-v2, from PyPI)
//!   in "create a new <word>", with its nearest words there ("folder":
//!   directory, "notification": alert, "teammate": collaborator). It is
//!   compiled in gzipped (0.2 MB; 0.7 MB unpacked) and unpacked with the
//!   WordNet table; the model itself is not carried.
//! * [`SOFTWARE_SENSES`], a short hand-written list of words that mean
//!   the same in software and that a general dictionary does not link
//!   (folder and directory, app and application, show and list).
//!
//! A query becomes [`Slot`]s, one per meaningful word (or collocation):
//! the word itself, then its software senses, then its WordNet
//! relatives and its neighbours in software requests, each with a lower
//! weight. The ranking counts, per slot,
//! the best of its alternatives, so a word with many relatives weighs no
//! more than a word with none. Question words add a slot of what they
//! ask for: "which" a list, "when" and "what happened" a history, "why"
//! a cause.

use flate2::read::GzDecoder;
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, Mutex, Weak};

const WORDNET: &[u8] = include_bytes!("../data/wordnet-related.txt.gz");
const NEIGHBOURS: &[u8] = include_bytes!("../data/software-neighbours.txt.gz");

/// How much an alternative counts against the word the person typed.
const SAME_SENSE: f32 = 0.7;
const RELATED: f32 = 0.4;
/// A word used like the typed one in software requests
/// (`scripts/software-neighbours.py`) counts as a WordNet relative does.
const NEIGHBOUR: f32 = RELATED;
/// A broader word's weight: "discard" may be a tool's "remove".
const BROADER: f32 = 0.25;
/// A word of its definition's weight: "remember" may be a tool's
/// "memory".
const DEFINING: f32 = 0.2;
/// How far apart (in words) the parts of a collocation may stand:
/// "give a customer their money back" is "give back".
const COLLOCATION_SPAN: usize = 5;

/// Words that mean the same thing when a person asks software for
/// something. Each line is one sense; a word may be in several.
pub const SOFTWARE_SENSES: &[&[&str]] = &[
    // what a person asks to see
    &["list", "show", "view", "display", "enumerate", "browse"],
    &[
        "get", "retrieve", "fetch", "read", "show", "view", "inspect", "describe", "details",
        "info",
    ],
    &[
        "search", "find", "look", "lookup", "query", "locate", "seek",
    ],
    // what a person asks to change
    &[
        "create", "make", "new", "add", "generate", "build", "post", "insert", "open",
    ],
    &[
        "delete",
        "remove",
        "drop",
        "erase",
        "destroy",
        "purge",
        "clear",
        "uninstall",
    ],
    &[
        "update", "change", "edit", "modify", "set", "patch", "alter",
    ],
    &["write", "save", "store", "put"],
    &["rename", "move"],
    &["copy", "duplicate", "clone"],
    &["undo", "revert", "reset", "rollback"],
    &["restart", "reboot", "reload"],
    &[
        "run", "execute", "exec", "launch", "invoke", "trigger", "play", "start", "kick_off",
    ],
    &[
        "stop",
        "kill",
        "terminate",
        "halt",
        "abort",
        "cancel",
        "end",
    ],
    &["close", "shut", "quit", "exit"],
    &["open", "navigate", "go", "visit", "load", "goto"],
    &["upload", "send", "attach", "push"],
    &["download", "pull", "fetch", "export", "clone"],
    &["deploy", "release", "publish", "ship"],
    &["approve", "accept", "allow", "grant", "permit"],
    &["resize", "size", "width", "height", "big", "large", "small"],
    &["select", "choose", "pick", "option"],
    &["click", "press", "tap"],
    &["type", "enter", "fill", "input"],
    // what a person asks about
    &["directory", "folder", "dir"],
    &["file", "document"],
    &["process", "program"],
    &["app", "application"],
    &["image", "picture", "photo", "screenshot", "snapshot"],
    &[
        "me",
        "self",
        "whoami",
        "user",
        "account",
        "profile",
        "identity",
        "authenticated",
    ],
    &["page", "url", "website", "site", "webpage", "link"],
    &["log", "logs", "output"],
    &[
        "error",
        "issue",
        "problem",
        "bug",
        "exception",
        "failure",
        "crash",
    ],
    &["key", "token", "credential", "secret"],
    &["database", "db"],
    &["record", "document", "row", "entry", "item"],
    &["command", "shell", "terminal", "cli"],
    &["permission", "access", "role"],
    &[
        "stats",
        "statistics",
        "metrics",
        "usage",
        "analytics",
        "traffic",
    ],
    &["schema", "structure", "fields", "columns", "migration"],
    &["tree", "structure", "hierarchy"],
    &["diff", "changes", "difference", "compare"],
    &[
        "users",
        "user",
        "people",
        "person",
        "member",
        "members",
        "everyone",
        "everybody",
    ],
    &["config", "configuration", "settings", "preferences"],
    &["comment", "note", "reply"],
    // what people call the things a tracker tracks, and its rounds of work
    &["ticket", "issue", "story", "card"],
    &["sprint", "cycle", "iteration"],
    &["priority", "urgent", "urgency"],
    &["watch", "follow", "subscribe"],
    // mail
    &["email", "mail"],
    &["subject", "title"],
    &["todo", "task"],
    &[
        "performance",
        "speed",
        "latency",
        "fast",
        "slow",
        "faster",
        "slower",
    ],
    // how a build or a check went, as people say it
    &["status", "state", "health", "green", "broken"],
    &[
        "resize", "scale", "bigger", "smaller", "larger", "grow", "shrink",
    ],
    &[
        "cost", "price", "pricing", "billing", "bill", "money", "owe", "balance", "invoice", "pay",
        "spend",
    ],
    // many things at once
    &["batch", "bulk", "many", "multiple"],
    // acting as something else
    &[
        "emulate",
        "emulation",
        "simulate",
        "pretend",
        "impersonate",
        "mimic",
    ],
    &["schedule", "cron", "scheduled", "recurring"],
    // what a question about the past asks for ("what happened", "when")
    &[
        "history",
        "log",
        "activity",
        "audit",
        "timeline",
        "changelog",
    ],
    // what "why" asks for
    &[
        "cause", "reason", "root", "analyze", "analysis", "diagnose", "explain",
    ],
];

/// Words that say nothing of what a tool does.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "into", "on", "onto", "to", "from", "for", "with", "by", "at",
    "as", "is", "are", "was", "were", "be", "been", "this", "that", "these", "those", "some", "it",
    "its", "there", "their", "them", "they", "what", "which", "how", "do", "does", "did", "can",
    "could", "should", "would", "will", "may", "have", "has", "had", "and", "or", "but", "so",
    "please", "just", "want", "need", "you", "your", "our", "we", "us", "then", "than", "if",
    "about", "via", "using", "use", "exist", "exists",
];

/// Words that finish a verb ("turn off", "set up", "give back").
const PARTICLES: &[&str] = &[
    "up", "down", "off", "on", "out", "back", "in", "over", "away",
];

/// Words that ask which things there are: a question for a list.
const ASKS_WHICH: &[&str] = &["which", "exist", "exists", "available"];

/// Words that name the person asking; all become "me" where the query
/// asks about that person ([`ASKS_WHO`]), and say nothing otherwise ("do
/// I owe", "turn off my server": whose, not what).
const FIRST_PERSON: &[&str] = &["i", "me", "my", "mine", "myself", "am"];

/// Words that ask when, or what happened: a question for a history.
const ASKS_WHEN: &[&str] = &[
    "when",
    "happened",
    "recently",
    "lately",
    "today",
    "yesterday",
];

/// Words that make a query about the person asking ("who am i").
const ASKS_WHO: &[&str] = &["who", "whoami", "am"];

/// One word of a query: the stems that count for it, each with a weight
/// (1 for the word itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub alternatives: Vec<(String, f32)>,
    /// Broader words (to discard is to remove), tried only when no tool
    /// has any of the alternatives: a word the catalog does not speak
    /// falls back on what it is a kind of.
    pub broader: Vec<(String, f32)>,
}

/// A table of sorted lines, `word rest...`, looked up by binary search.
struct Table {
    text: String,
    /// (start, end of the key, end of the line) of each table line.
    lines: Vec<(u32, u32, u32)>,
}

impl Table {
    fn unpack(gzipped: &[u8], capacity: usize) -> Table {
        let mut text = String::with_capacity(capacity);
        GzDecoder::new(gzipped)
            .read_to_string(&mut text)
            .expect("a table compiled into the program is gzipped UTF-8");
        let mut lines = Vec::with_capacity(capacity / 40);
        let mut start = 0usize;
        for line in text.split_inclusive('\n') {
            let end = start + line.len();
            if !line.starts_with('#') {
                let key_end = start + line.find(' ').unwrap_or(line.trim_end().len());
                lines.push((start as u32, key_end as u32, end as u32));
            }
            start = end;
        }
        Table { text, lines }
    }

    /// The rest of `word`'s line, or nothing.
    fn line(&self, word: &str) -> &str {
        self.lines
            .binary_search_by(|(start, key_end, _)| {
                self.text[*start as usize..*key_end as usize].cmp(word)
            })
            .ok()
            .map(|i| {
                let (_, key_end, end) = self.lines[i];
                self.text[key_end as usize..end as usize].trim()
            })
            .unwrap_or_default()
    }
}

/// The WordNet table and the software senses, ready to expand queries.
pub struct Lexicon {
    wordnet: Table,
    neighbours: Table,
    /// Stem → the indexes of the software senses it is in.
    senses: HashMap<String, Vec<usize>>,
    stemmer: Stemmer,
}

static SHARED: Mutex<Weak<Lexicon>> = Mutex::new(Weak::new());

impl Lexicon {
    /// The one lexicon in memory, unpacked now if no index holds it.
    pub fn shared() -> Arc<Lexicon> {
        let mut shared = SHARED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(lexicon) = shared.upgrade() {
            return lexicon;
        }
        let lexicon = Arc::new(Lexicon::load());
        *shared = Arc::downgrade(&lexicon);
        lexicon
    }

    /// Whether a lexicon is unpacked now (for tests of its lifetime).
    pub fn is_loaded() -> bool {
        SHARED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .strong_count()
            > 0
    }

    fn load() -> Lexicon {
        let wordnet = Table::unpack(WORDNET, 5_500_000);
        let neighbours = Table::unpack(NEIGHBOURS, 1_000_000);
        let stemmer = Stemmer::create(Algorithm::English);
        let mut senses: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, sense) in SOFTWARE_SENSES.iter().enumerate() {
            for word in *sense {
                let stem = stemmer.stem(word).into_owned();
                let of_stem = senses.entry(stem).or_default();
                if !of_stem.contains(&i) {
                    of_stem.push(i);
                }
            }
        }
        Lexicon {
            wordnet,
            neighbours,
            senses,
            stemmer,
        }
    }

    /// The stem a word is indexed and searched by.
    pub fn stem(&self, word: &str) -> String {
        self.stemmer.stem(word).into_owned()
    }

    /// The WordNet relatives of `word` (collocations with `_`).
    pub fn related(&self, word: &str) -> impl Iterator<Item = &str> {
        self.section(word, 0)
    }

    /// The broader words of `word`'s senses (WordNet's hypernyms: to
    /// discard is to get rid of, to remove).
    pub fn broader(&self, word: &str) -> impl Iterator<Item = &str> {
        self.section(word, 1)
    }

    /// The content words of the definition of `word`'s most used
    /// sense ("remember": knowledge, memory).
    pub fn defining(&self, word: &str) -> impl Iterator<Item = &str> {
        self.section(word, 2)
    }

    /// Section `n` of `word`'s table line (its parts between `|`: the
    /// relatives, the broader words, the defining words), word by word.
    fn section(&self, word: &str, n: usize) -> impl Iterator<Item = &str> {
        self.wordnet
            .line(word)
            .split('|')
            .nth(n)
            .into_iter()
            .flat_map(str::split_whitespace)
    }

    /// The words nearest `word` in a software setting
    /// (`scripts/software-neighbours.py`), nearest first; a plural falls
    /// back on its singular.
    pub fn neighbours(&self, word: &str) -> impl Iterator<Item = &str> {
        let mut line = self.neighbours.line(word);
        if line.is_empty()
            && let Some(singular) = word.strip_suffix('s')
        {
            line = self.neighbours.line(singular);
        }
        line.split_whitespace()
    }

    /// The stems of the software senses `stem` is in.
    fn same_sense(&self, stem: &str) -> Vec<String> {
        let mut stems = Vec::new();
        for i in self.senses.get(stem).into_iter().flatten() {
            for word in SOFTWARE_SENSES[*i] {
                let other = self.stem(word);
                if !stems.contains(&other) {
                    stems.push(other);
                }
            }
        }
        stems
    }

    /// What a query means, slot by slot.
    pub fn expand(&self, query: &str) -> Vec<Slot> {
        let typed = words(query);
        let asks_which = typed.iter().any(|word| ASKS_WHICH.contains(&word.as_str()))
            || (typed.iter().any(|word| word == "what")
                && typed.iter().any(|word| word == "there"));
        let asks_who = typed.iter().any(|word| ASKS_WHO.contains(&word.as_str()));
        let asks_when = typed.iter().any(|word| ASKS_WHEN.contains(&word.as_str()));
        let asks_why = typed.iter().any(|word| word == "why");
        // "show me", "my server", "do I owe": the person is whom the
        // answer is for or whose the thing is, not what the query is
        // about ("who am i" is).
        let spelled: Vec<&String> = typed
            .iter()
            .filter(|word| asks_who || !FIRST_PERSON.contains(&word.as_str()))
            .collect();
        let words: Vec<String> = spelled
            .iter()
            .map(|word| {
                if FIRST_PERSON.contains(&word.as_str()) {
                    "me".to_string()
                } else {
                    word.to_string()
                }
            })
            .collect();
        let mut slots: Vec<Slot> = Vec::new();
        let mut push = |slot: Slot| {
            if !slot.alternatives.is_empty() && !slots.contains(&slot) {
                slots.push(slot);
            }
        };
        // Particles that a collocation has taken ("turn off", "drop
        // down"): they are part of the first word's slot, not slots of
        // their own ("off" alone is to kill).
        let mut taken = vec![false; words.len()];
        for (i, word) in words.iter().enumerate() {
            if taken[i] || STOP_WORDS.contains(&word.as_str()) {
                continue;
            }
            let mut slot = self.slot_of(word);
            // A collocation ("give ... back", "look up") is a sense of its
            // first word here.
            for (j, later) in words.iter().enumerate().skip(i + 1).take(COLLOCATION_SPAN) {
                let collocation = format!("{word}_{later}");
                let known = self.related(&collocation).next().is_some();
                self.add_relatives(&mut slot, &collocation, SAME_SENSE);
                for stem in self.same_sense(&self.stem(&collocation)) {
                    add(&mut slot, stem, SAME_SENSE);
                }
                if known && j == i + 1 && PARTICLES.contains(&later.as_str()) {
                    // The particle stays a word of the slot: a name may
                    // say it alone (`power_off`).
                    taken[j] = true;
                    add(&mut slot, self.stem(later), SAME_SENSE);
                }
            }
            // A three-word phrase ("get rid of", "keep track of") is one
            // sense: its words are no slots of their own.
            if let [second, third, ..] = &words[(i + 1).min(words.len())..] {
                let phrase = format!("{word}_{second}_{third}");
                if self.related(&phrase).next().is_some() {
                    self.add_relatives(&mut slot, &phrase, SAME_SENSE);
                    add_broader(&mut slot, self, &phrase);
                    taken[i + 1] = true;
                    taken[i + 2] = true;
                }
            }
            // Two or three words a name may write as one, as typed:
            // "drop down" is `dropdown`, "log in" `login`, "who am i"
            // `whoami`.
            let joinable = |word: &str| !STOP_WORDS.contains(&word) && word != "me";
            let mut joined = spelled[i].clone();
            for next in spelled.iter().skip(i + 1).take(2) {
                if !joinable(next) || !joinable(word) {
                    break;
                }
                joined.push_str(next);
                add(&mut slot, self.stem(&joined), 1.0);
            }
            push(slot);
        }
        // "which namespaces exist", "what teams are there": a question for
        // a list. One slot of the listing sense; it matches most tools, so
        // it weighs little and settles what the other words leave even.
        if asks_which {
            push(self.slot_of("list"));
        }
        // "when did it change", "what happened": a question for a
        // history; "why": for a cause.
        if asks_when {
            push(self.sense_slot("history"));
        }
        if asks_why {
            push(self.sense_slot("cause"));
        }
        slots
    }

    /// A slot of `word`'s software senses only, each alternative a
    /// lesser weight (what a question word asks for, not a word typed).
    fn sense_slot(&self, word: &str) -> Slot {
        Slot {
            alternatives: self
                .same_sense(&self.stem(word))
                .into_iter()
                .map(|stem| (stem, SAME_SENSE))
                .collect(),
            broader: Vec::new(),
        }
    }

    fn slot_of(&self, word: &str) -> Slot {
        let mut slot = Slot {
            alternatives: vec![(self.stem(word), 1.0)],
            broader: Vec::new(),
        };
        for stem in self.same_sense(&self.stem(word)) {
            add(&mut slot, stem, SAME_SENSE);
        }
        self.add_relatives(&mut slot, word, RELATED);
        add_broader(&mut slot, self, word);
        // The words used alike in software requests ("notification":
        // alert; "teammate": collaborator), as a relative.
        let near: Vec<String> = self.neighbours(word).map(|w| self.stem(w)).collect();
        for stem in near {
            add(&mut slot, stem, NEIGHBOUR);
        }
        slot
    }

    /// Adds the single-word WordNet relatives of `word` with `weight`.
    fn add_relatives(&self, slot: &mut Slot, word: &str, weight: f32) {
        let relatives: Vec<String> = self
            .related(word)
            .filter(|other| !other.contains('_'))
            .map(|other| self.stem(other))
            .collect();
        for stem in relatives {
            add(slot, stem, weight);
        }
    }
}

/// Adds the single-word broader words of `word` to `slot`'s fallback.
fn add_broader(slot: &mut Slot, lexicon: &Lexicon, word: &str) {
    let broader = lexicon.broader(word).map(|other| (other, BROADER));
    let defining = lexicon.defining(word).map(|other| (other, DEFINING));
    let fallback: Vec<(String, f32)> = broader
        .chain(defining)
        .filter(|(other, _)| !other.contains('_'))
        .map(|(other, weight)| (lexicon.stem(other), weight))
        .collect();
    for (stem, weight) in fallback {
        if !slot.alternatives.iter().any(|(s, _)| *s == stem)
            && !slot.broader.iter().any(|(s, _)| *s == stem)
        {
            slot.broader.push((stem, weight));
        }
    }
}

/// Adds `stem` to `slot` unless it is there with a higher weight.
fn add(slot: &mut Slot, stem: String, weight: f32) {
    match slot.alternatives.iter_mut().find(|(s, _)| *s == stem) {
        Some((_, w)) => *w = w.max(weight),
        None => slot.alternatives.push((stem, weight)),
    }
}

/// The lower-case words of a text or an identifier:
/// `createPullRequest`, `pull-request.v2`, "Open a PR" → words.
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else {
            if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase()) && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.extend(c.to_lowercase());
        }
        previous = Some(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_sentences_become_words() {
        assert_eq!(words("createPullRequest"), ["create", "pull", "request"]);
        assert_eq!(words("get-file.v2"), ["get", "file", "v2"]);
        assert_eq!(words("Who am I?"), ["who", "am", "i"]);
    }

    #[test]
    fn wordnet_relates_words_and_forms() {
        let lexicon = Lexicon::shared();
        let refund: Vec<&str> = lexicon.related("refund").collect();
        assert!(refund.contains(&"repay"), "{refund:?}");
        assert!(lexicon.related("ran").any(|w| w == "run"));
        assert_eq!(lexicon.related("zzzz-not-a-word").count(), 0);
    }

    #[test]
    fn a_query_becomes_slots_of_meaning() {
        let lexicon = Lexicon::shared();
        let slots = lexicon.expand("who am I");
        assert!(
            slots
                .iter()
                .any(|slot| slot.alternatives.iter().any(|(stem, _)| stem == "whoami")),
            "{slots:?}"
        );
        // "am" and "I" are one person: one slot, not two.
        assert_eq!(slots.len(), 2, "{slots:?}");
        let folder = &lexicon.expand("the folder")[0];
        assert_eq!(folder.alternatives[0], ("folder".to_string(), 1.0));
        assert!(
            folder
                .alternatives
                .contains(&("directori".to_string(), SAME_SENSE))
        );
        let money_back = lexicon.expand("give a customer their money back");
        assert!(
            money_back
                .iter()
                .any(|slot| slot.alternatives.iter().any(|(stem, _)| stem == "refund")),
            "{money_back:?}"
        );
        assert!(lexicon.expand("the of a").is_empty());
        let has = |slots: &[Slot], stem: &str| {
            slots
                .iter()
                .any(|slot| slot.alternatives.iter().any(|(s, _)| s == stem))
        };
        // "show me": whom the answer is for, not a question about me.
        assert!(!has(&lexicon.expand("show me the pods"), "me"));
        // A particle a collocation takes is no slot of its own ("off"
        // alone is to kill); two words a name writes as one are tried so.
        let turn_off = lexicon.expand("turn off the flag");
        assert_eq!(turn_off.len(), 2, "{turn_off:?}");
        // ... but it stays a word of its verb's slot: a name may say it
        // alone (`power_off`).
        assert!(
            turn_off[0]
                .alternatives
                .contains(&("off".to_string(), SAME_SENSE)),
            "{turn_off:?}"
        );
        // "my server", "do I owe": whose, not a question about the person.
        assert!(!has(&lexicon.expand("turn off my server"), "me"));
        assert!(!has(&lexicon.expand("how much do I owe"), "me"));
        assert!(has(&lexicon.expand("a drop-down list"), "dropdown"));
        // "which ... exist" asks for a list.
        assert!(has(&lexicon.expand("which namespaces exist"), "list"));
        // "when", "what happened" ask for a history; "why" for a cause.
        assert!(has(&lexicon.expand("when did the flag change"), "histori"));
        assert!(!has(&lexicon.expand("change the flag"), "histori"));
        assert!(has(&lexicon.expand("why did the build fail"), "caus"));
        // Three words a name writes as one.
        assert!(has(&lexicon.expand("who am i"), "whoami"));
    }

    #[test]
    fn words_used_alike_in_software_requests_are_relatives() {
        let lexicon = Lexicon::shared();
        let notification: Vec<&str> = lexicon.neighbours("notification").collect();
        assert!(notification.contains(&"alert"), "{notification:?}");
        // A plural falls back on its singular's line.
        assert!(lexicon.neighbours("notifications").any(|w| w == "alert"));
        assert_eq!(lexicon.neighbours("zzzz-not-a-word").count(), 0);
        let slots = lexicon.expand("my teammate");
        assert!(
            slots[0]
                .alternatives
                .contains(&("collabor".to_string(), NEIGHBOUR)),
            "{slots:?}"
        );
    }

    #[test]
    fn a_phrase_has_the_software_senses_of_what_it_means() {
        let lexicon = Lexicon::shared();
        // "kick off" is to start a run: trigger and execute count for it.
        let slots = lexicon.expand("kick off the nightly pipeline");
        let kick = &slots[0].alternatives;
        assert!(
            kick.contains(&("trigger".to_string(), SAME_SENSE)),
            "{kick:?}"
        );
        assert!(
            kick.contains(&("execut".to_string(), SAME_SENSE)),
            "{kick:?}"
        );
        // A tracker's words: a ticket is an issue, a sprint a cycle.
        let slots = lexicon.expand("ticket sprint");
        assert!(
            slots[0]
                .alternatives
                .contains(&("issu".to_string(), SAME_SENSE))
        );
        assert!(
            slots[1]
                .alternatives
                .contains(&("cycl".to_string(), SAME_SENSE))
        );
    }

    #[test]
    fn a_three_word_phrase_is_one_sense() {
        let lexicon = Lexicon::shared();
        let slots = lexicon.expand("get rid of the old branch");
        // get rid of, old, branch: "rid" is no slot of its own.
        assert_eq!(slots.len(), 3, "{slots:?}");
        assert!(
            slots[0]
                .alternatives
                .iter()
                .any(|(stem, _)| stem == "remov"),
            "{slots:?}"
        );
    }

    #[test]
    fn a_word_falls_back_on_what_it_is_a_kind_of_and_its_definition() {
        let lexicon = Lexicon::shared();
        // To discard is to get rid of, to remove (WordNet's hypernym).
        let discard = &lexicon.expand("discard")[0];
        assert!(
            discard.broader.contains(&("remov".to_string(), BROADER)),
            "{discard:?}"
        );
        assert!(!discard.alternatives.iter().any(|(stem, _)| stem == "remov"));
        // To remember is to recall knowledge from memory (its gloss).
        let remember = &lexicon.expand("remember")[0];
        assert!(
            remember.broader.contains(&("memori".to_string(), DEFINING)),
            "{remember:?}"
        );
    }
}
