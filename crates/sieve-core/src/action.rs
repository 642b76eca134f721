//! What a tool says it does: it reads, changes or destroys. Servers that
//! send no annotations leave the proxy only this to go on (DESIGN §3:
//! `list_issues` is `high`, `delete_repository` `low`), and the cost of a
//! call depends on it too (a list returns much, a create little).
//!
//! The method is general English, never lists for particular servers:
//!
//! 1. The verbs of the tool's name (`list_issues`, `kubectl_get`,
//!    `create_or_update_file`). Words that are as often nouns as verbs in
//!    tool names (`run` of `get_workflow_run`, `commit` of `list_commits`,
//!    `review`, `push`) count only when the name holds no plain verb. When
//!    a name holds several plain verbs, the one that does the most harm
//!    decides: `get_or_create` may create.
//! 2. Where the name holds no verb, the first words of its title, then of
//!    the first sentence of its description ("Deletes a ...", "Returns
//!    ...", "Tools for listing ..."), with the verbs joined to them by
//!    "or" / "and" ("Add or remove ..."); failing those, the first later
//!    sentence of the description that opens with a verb ("Map a
//!    website's structure. Returns a list of URLs ...").
//! 3. What the description adds: a change it says cannot be undone
//!    ("permanently", "overwrites") destroys; a tool that runs what it is
//!    given (`execute`, `query`) reads when its description says it is
//!    read-only, and destroys when it names deleting.
//!
//! A tool that says nothing readable is taken at the spec's default for a
//! tool without annotations: it may destroy data.

use crate::wording::{Prose, first_sentence, name_words, opening, prose_words, quote, sentences};
use serde_json::Value;

/// What a call of the tool does to the world, from the least harm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// Reads and changes nothing.
    Reads,
    /// Changes something that can be changed back.
    Changes,
    /// May destroy data.
    Destroys,
}

/// Which part of the definition told the effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// A verb of its name (`list` of `list_issues`).
    Name { verb: String },
    /// Its title, quoted up to the words that told.
    Title(String),
    /// Its description, quoted up to the words that told.
    Description(String),
    /// It says nothing readable about what it does.
    Nothing,
}

impl Evidence {
    /// In words, to follow "derived from": "`list` in its name", "its
    /// description (\"Permanently deletes ...\")".
    pub fn describe(&self) -> String {
        match self {
            Evidence::Name { verb } => format!("`{verb}` in its name"),
            Evidence::Title(quote) => format!("its title (\"{quote}\")"),
            Evidence::Description(quote) => format!("its description (\"{quote}\")"),
            Evidence::Nothing => "nothing in its name, title or description".into(),
        }
    }
}

/// The effect a tool states, and where it states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stated {
    pub effect: Effect,
    pub evidence: Evidence,
    /// The verb that decided, in its plain form (`delete` for "Deletes"),
    /// when a verb did.
    pub verb: Option<&'static str>,
}

/// How firmly a word is a verb in a tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strength {
    /// Hardly ever anything but a verb (`list`, `delete`).
    Plain,
    /// As often a noun (`run`, `commit`, `review`).
    Ambiguous,
}

/// The verb `word` is, in its plain form, with its effect. Only plain
/// forms are known; callers normalise inflected words first. Verbs that
/// switch a service off or on (pause, resume, activate, suspend, freeze)
/// and rotating a secret (the old one stops working) are left out: the
/// servers that annotate such tools mark them destructive, which is what
/// a verb not known here gets (docs/files.md, `security`).
fn verb(word: &str) -> Option<(&'static str, Effect, Strength)> {
    use Effect::*;
    use Strength::*;
    const TABLE: &[(&[&str], Effect, Strength)] = &[
        (
            &[
                "list",
                "get",
                "read",
                "search",
                "find",
                "describe",
                "show",
                "fetch",
                "query",
                "view",
                "lookup",
                "retrieve",
                "inspect",
                "check",
                "count",
                "explain",
                "browse",
                "download",
                "export",
                "preview",
                "verify",
                "validate",
                "diff",
                "compare",
                "summarize",
                "summarise",
                "analyze",
                "analyse",
                "ping",
                "echo",
                "print",
                "display",
                "scan",
                "lint",
                "calculate",
                "compute",
                "estimate",
                "poll",
                "wait",
                "await",
                "tail",
                "grep",
                "locate",
                "identify",
                "detect",
                "dump",
                "snapshot",
                "screenshot",
                "crawl",
                "scrape",
                "return",
                "whoami",
                "peek",
                "measure",
                "discover",
                "diagnose",
                "troubleshoot",
                "recognize",
                "recognise",
                "parse",
                // Data taken out of a page or a document (Bright Data and
                // Firecrawl mark their extract tools read-only).
                "extract",
            ],
            Reads,
            Plain,
        ),
        (
            &["open", "watch", "test", "stat", "expect"],
            Reads,
            Ambiguous,
        ),
        (
            &[
                "create",
                "update",
                "add",
                "set",
                "send",
                "write",
                "move",
                "rename",
                "edit",
                "modify",
                "insert",
                "upload",
                "execute",
                "exec",
                "apply",
                "assign",
                "unassign",
                "approve",
                "invite",
                "publish",
                "import",
                "lock",
                "unlock",
                "subscribe",
                "unsubscribe",
                "toggle",
                "enable",
                "disable",
                "follow",
                "unfollow",
                "mark",
                "copy",
                "clone",
                "transfer",
                "sync",
                "refresh",
                "reconnect",
                "connect",
                "disconnect",
                "navigate",
                "click",
                "fill",
                "hover",
                "press",
                "drag",
                "scroll",
                "save",
                "generate",
                "make",
                "build",
                "compile",
                "deploy",
                "install",
                "upgrade",
                "restart",
                "reboot",
                "start",
                "stop",
                "cancel",
                "close",
                "reopen",
                "unarchive",
                "restore",
                "revert",
                "rollback",
                "dismiss",
                "resolve",
                "unresolve",
                "reprioritize",
                "reorder",
                "cordon",
                "uncordon",
                "drain",
                "invoke",
                "submit",
                "trigger",
                "notify",
                "share",
                "unshare",
                "attach",
                "detach",
                "link",
                "unlink",
                "register",
                "configure",
                "initialize",
                "replace",
                "upsert",
                "append",
                "prepend",
                "compress",
                "schedule",
                "buy",
                "purchase",
                "pay",
                "provision",
                "emit",
                "annotate",
                "react",
                "unstar",
                "unpin",
                "manage",
                "forward",
                "resize",
                "launch",
                "scale",
                "spawn",
                "put",
                "convert",
                "reassign",
                "recycle",
                "mute",
                "unmute",
                "acknowledge",
                "promote",
                "demote",
                "transform",
                "translate",
                "rephrase",
                "paraphrase",
                "reword",
                "synthesize",
                "scaffold",
                "ingest",
                "escalate",
                "snooze",
                "retry",
                "rerun",
                "renew",
                "accept",
                "reject",
                "decline",
                "deny",
                "confirm",
                "boot",
            ],
            Changes,
            Plain,
        ),
        (
            &[
                "run",
                "post",
                "patch",
                "push",
                "merge",
                "commit",
                "comment",
                "label",
                "tag",
                "review",
                "release",
                "log",
                "star",
                "request",
                "pin",
                "fork",
                "reply",
                "call",
                "type",
                "select",
                "record",
                "receive",
                "order",
                "book",
                "archive",
                "change",
                "switch",
                "reserve",
                "end",
                "refund",
                "reverse",
                "grant",
                "setup",
                "duplicate",
                "replay",
                "shutdown",
                "continue",
                "report",
                "act",
            ],
            Changes,
            Ambiguous,
        ),
        (
            &[
                "delete",
                "remove",
                "drop",
                "destroy",
                "purge",
                "terminate",
                "revoke",
                "reset",
                "erase",
                "wipe",
                "truncate",
                "kill",
                "uninstall",
                "deregister",
                "unregister",
                "unpublish",
                "clear",
                "cleanup",
                "clean",
                "prune",
                "evict",
                "overwrite",
                "discard",
                "flush",
                "shred",
            ],
            Destroys,
            Plain,
        ),
    ];
    TABLE.iter().find_map(|(words, effect, strength)| {
        words
            .iter()
            .find(|w| **w == word)
            .map(|w| (*w, *effect, *strength))
    })
}

/// Verbs whose effect is whatever they are given to run: the description
/// says which.
const OPEN_ENDED: &[&str] = &["run", "execute", "exec", "query", "call", "invoke"];

/// The effect `definition` (an MCP Tool object) states, its name read as
/// nothing says how its server names tools.
pub fn stated(definition: &Value) -> Stated {
    stated_in(definition, Naming::Unknown)
}

/// The effect `definition` states, its name read the way its server
/// names its tools ([`naming`]).
pub fn stated_in(definition: &Value, naming: Naming) -> Stated {
    let text = |key: &str| definition.get(key).and_then(Value::as_str).unwrap_or("");
    let title = match text("title") {
        "" => definition
            .pointer("/annotations/title")
            .and_then(Value::as_str)
            .unwrap_or(""),
        title => title,
    };
    let description = opening(text("description"));
    let mut found = from_name(text("name"), naming)
        .or_else(|| from_prose(title).map(|(s, q)| s.with(Evidence::Title(q))))
        .or_else(|| from_prose(description).map(|(s, q)| s.with(Evidence::Description(q))))
        .or_else(|| from_later_sentence(description))
        .unwrap_or(Stated {
            effect: Effect::Destroys,
            evidence: Evidence::Nothing,
            verb: None,
        });
    found.refine(description);
    found
}

impl Stated {
    fn with(mut self, evidence: Evidence) -> Stated {
        self.evidence = evidence;
        self
    }

    /// What the description adds to the verb that decided.
    fn refine(&mut self, description: &str) {
        let open_ended = self.verb.is_some_and(|v| OPEN_ENDED.contains(&v));
        let prose = Prose::new(description);
        let says = |phrases| prose.quote_saying(phrases);
        let (effect, quote) = if open_ended && let Some(q) = says(READ_ONLY_SAYINGS) {
            (Effect::Reads, q)
        } else if open_ended && let Some(q) = says(DELETING_WORDS) {
            (Effect::Destroys, q)
        } else if self.effect == Effect::Changes
            && let Some(q) = says(FOR_GOOD)
        {
            (Effect::Destroys, q)
        } else {
            return;
        };
        self.effect = effect;
        self.evidence = Evidence::Description(quote);
    }
}

/// What a description says of a tool that changes nothing.
const READ_ONLY_SAYINGS: &[&str] = &[
    "read-only",
    "readonly",
    "select statements",
    "select queries",
];
/// What names deleting, in the description of an open-ended tool.
const DELETING_WORDS: &[&str] = &[
    "delete", "deletes", "deleting", "drop", "drops", "truncate", "destroy", "destroys", "remove",
    "removes",
];
/// What says a change cannot be taken back.
const FOR_GOOD: &[&str] = &[
    "permanently",
    "irreversible",
    "irreversibly",
    "cannot be undone",
    "can't be undone",
    "can not be undone",
    "overwrite",
    "overwrites",
    "overwriting",
    "force push",
    "force pushes",
];

/// Where a server's tool names put the verb that says what each does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Naming {
    /// Before what it acts on (`get_pipeline_schedule`,
    /// `linear_getIssues`): the first verb of a name is its action, and a
    /// later one names a thing (the schedule, not scheduling).
    VerbFirst,
    /// After it (`compute_vm_create`, `keyvault_secret_get`): the last
    /// verb is the action, and an earlier one names an area (compute).
    VerbLast,
    /// Not known: of a name's verbs, the one doing most harm decides.
    #[default]
    Unknown,
}

/// Share of a server's names, among those with a verb, that must put it
/// at one end for [`naming`] to say the server names that way.
const NAMING_SHARE: f64 = 0.6;
/// Names with a verb a server needs before [`naming`] judges its way.
const NAMING_NAMES: usize = 4;

/// How a server names its tools, from the names: where their plain verbs
/// stand. A name whose last word is a plain verb puts it last; one whose
/// first verb opens it, or follows one word (a namespace: `browser_click`,
/// `linear_getIssues`), puts it first.
pub fn naming<'a>(names: impl IntoIterator<Item = &'a str>) -> Naming {
    let (mut with_verb, mut first, mut last) = (0usize, 0usize, 0usize);
    for name in names {
        let words = name_words(name);
        let plain = |w: &String| plain_verb(w).is_some();
        let Some(at) = words.iter().position(plain) else {
            continue;
        };
        with_verb += 1;
        if words.len() > 1 && words.last().is_some_and(plain) {
            last += 1;
        } else if at <= 1 {
            first += 1;
        }
    }
    if with_verb < NAMING_NAMES {
        return Naming::Unknown;
    }
    let share = |n: usize| n as f64 / with_verb as f64;
    if share(last) >= NAMING_SHARE && last > first {
        Naming::VerbLast
    } else if share(first) >= NAMING_SHARE && first > last {
        Naming::VerbFirst
    } else {
        Naming::Unknown
    }
}

/// The verb of a name. Of its plain verbs: where the server puts its
/// verbs first, the first one and those joined to it by "or" or "and"
/// (`get_or_create` may create); where it puts them last, the last one
/// and those joined to it; else the one doing most harm. Failing plain
/// verbs, of its ambiguous ones, the one doing most harm.
fn from_name(name: &str, naming: Naming) -> Option<Stated> {
    let words = name_words(name);
    let force_push = words.windows(2).any(|w| w[0] == "force" && w[1] == "push");
    if force_push {
        return Some(Stated {
            effect: Effect::Destroys,
            evidence: Evidence::Name {
                verb: "force_push".into(),
            },
            verb: Some("push"),
        });
    }
    let verbs: Vec<_> = words.iter().filter_map(|w| verb(w)).collect();
    let strongest = |strength: Strength| {
        verbs
            .iter()
            .filter(|v| v.2 == strength)
            // The first of equals: `get_list` says get.
            .fold(
                None,
                |best: Option<&(&str, Effect, Strength)>, v| match best {
                    Some(b) if b.1 >= v.1 => Some(b),
                    _ => Some(v),
                },
            )
    };
    let (verb, effect, _) = match naming {
        Naming::Unknown => strongest(Strength::Plain).copied(),
        Naming::VerbFirst => joined_verb(&words, false),
        Naming::VerbLast => joined_verb(&words, true),
    }
    .or_else(|| strongest(Strength::Ambiguous).copied())?;
    Some(Stated {
        effect,
        evidence: Evidence::Name {
            verb: verb.to_string(),
        },
        verb: Some(verb),
    })
}

/// `word` as a [`Strength::Plain`] verb: hardly ever anything else.
fn plain_verb(word: &str) -> Option<(&'static str, Effect, Strength)> {
    verb(word).filter(|v| v.2 == Strength::Plain)
}

/// The first plain verb of `words` (the last, when `from_end`) with the
/// verbs joined to it by "or" or "and": of those, the one doing most harm.
fn joined_verb(words: &[String], from_end: bool) -> Option<(&'static str, Effect, Strength)> {
    let at = if from_end {
        words.iter().rposition(|w| plain_verb(w).is_some())?
    } else {
        words.iter().position(|w| plain_verb(w).is_some())?
    };
    let mut found = plain_verb(&words[at])?;
    let joiner = |w: &String| w == "or" || w == "and";
    // Verbs joined after it (`create_or_update`) and before it
    // (`get_or_create`, read from its end).
    let mut i = at;
    while words.get(i + 1).is_some_and(joiner)
        && let Some(next) = words.get(i + 2).and_then(|w| verb(w))
    {
        if next.1 > found.1 {
            found = next;
        }
        i += 2;
    }
    let mut i = at;
    while i >= 2
        && joiner(&words[i - 1])
        && let Some(before) = verb(&words[i - 2])
    {
        if before.1 > found.1 {
            found = before;
        }
        i -= 2;
    }
    Some(found)
}

/// Words that may come before the verb of a sentence describing a tool:
/// "This tool lets you delete ...", "Tools for listing ...".
const LEAD_INS: &[&str] = &[
    "this", "tool", "tools", "to", "use", "used", "for", "it", "that", "which", "you", "can",
    "will", "lets", "let", "allows", "allow", "helps", "help", "please", "a", "an", "the", "and",
];

/// The verbs opening `text` (a title or a description) and a quote of it.
fn from_prose(text: &str) -> Option<(Stated, String)> {
    let words = prose_words(first_sentence(text));
    let mut at = words
        .iter()
        // Adverbs ("Permanently deletes") qualify the verb that follows;
        // "apply" and "reply" are verbs themselves.
        .position(|w| {
            !LEAD_INS.contains(&w.as_str()) && (!w.ends_with("ly") || inflected(w).is_some())
        })?;
    let mut found: Option<(&'static str, Effect)> = None;
    while let Some((plain, effect, _)) = words.get(at).and_then(|w| inflected(w)) {
        if found.is_none_or(|(_, best)| effect > best) {
            found = Some((plain, effect));
        }
        // "Create or update", "Add and/or remove": the joined verbs count.
        match words.get(at + 1).map(String::as_str) {
            Some("or") => at += 2,
            // "and/or" is cut into two words.
            Some("and") if words.get(at + 2).is_some_and(|w| w == "or") => at += 3,
            Some("and") => at += 2,
            _ => break,
        }
    }
    let (plain, effect) = found?;
    Some((
        Stated {
            effect,
            evidence: Evidence::Nothing,
            verb: Some(plain),
        },
        quote(text),
    ))
}

/// What a later sentence of the description says a call does, when the
/// name, the title and the first sentence say nothing readable: the
/// first later sentence that opens with a verb said of the tool ("Map a
/// website's structure. Returns a list of URLs ..."), a verb in its
/// third person (`returns`, `lists`); an imperative ("Follow ...",
/// "Include ...") speaks to the model, and what a call returns on an
/// error says nothing of what it does. The quote is of that sentence.
fn from_later_sentence(description: &str) -> Option<Stated> {
    sentences(description).skip(1).find_map(|sentence| {
        let words = prose_words(sentence);
        // A plural noun before a verb ("Deletes are refused") is no verb.
        let noun_before = words
            .get(1)
            .is_some_and(|w| SAID_OF_A_NOUN.contains(&w.as_str()));
        let said_of_the_tool = !noun_before
            && words.first().is_some_and(|first| {
                first.len() > 2
                    && first.ends_with('s')
                    && !first.ends_with("ss")
                    && verb(first).is_none()
                    && inflected(first).is_some()
            });
        if !said_of_the_tool || words.iter().any(|w| w.starts_with("error")) {
            return None;
        }
        from_prose(sentence).map(|(s, q)| s.with(Evidence::Description(q)))
    })
}

/// What a person's request asks done, when it says so plainly: a
/// question ("what's on my calendar", "is the cluster green", "how many
/// ...") reads; a request that opens with a verb known here, past the
/// words that lead into one ("please", "can you", "I need to"), does what
/// that verb does ("delete ...", "send ...", "list ..."). `None` when it
/// opens otherwise, or with a word as often a noun (`run`, `push`) or
/// with a verb of many senses ("pull up", "take out").
pub fn asked(request: &str) -> Option<Effect> {
    let words = prose_words(request);
    let at = words
        .iter()
        .position(|w| !REQUEST_LEAD_INS.contains(&w.as_str()))?;
    let first = words[at].as_str();
    if QUESTION_WORDS.contains(&first) {
        return Some(Effect::Reads);
    }
    // A verb with a particle after it is another verb ("pull up", "take
    // out", "set up"); a light verb is whatever its object makes it ("get
    // rid of", "get me a certificate", "put it on hold").
    if LIGHT_VERBS.contains(&first)
        || words
            .get(at + 1)
            .is_some_and(|w| PARTICLES.contains(&w.as_str()))
    {
        return None;
    }
    plain_verb(first).map(|(_, effect, _)| effect)
}

/// Words a request may open with before its verb or question.
const REQUEST_LEAD_INS: &[&str] = &[
    "please", "can", "could", "would", "will", "you", "i", "we", "want", "need", "to", "help",
    "me", "us", "let", "lets", "s", "d", "m", "ll", "go", "ahead", "and", "ok", "okay", "hey",
    "so", "now", "just", "quickly", "also", "then", "first", "actually", "like",
];

/// Words that open a question.
const QUESTION_WORDS: &[&str] = &[
    "what", "whats", "which", "who", "whos", "whom", "whose", "when", "whens", "where", "wheres",
    "why", "how", "hows", "is", "isn", "are", "aren", "was", "were", "do", "does", "did", "has",
    "have", "any", "anything",
];

/// Verbs that say little until their object does.
const LIGHT_VERBS: &[&str] = &["get", "put", "take", "give", "make", "keep"];

/// Words that make a verb before them another verb.
const PARTICLES: &[&str] = &[
    "up", "out", "off", "down", "over", "away", "back", "in", "on",
];

/// Words that follow a plural noun opening a sentence, never a verb.
const SAID_OF_A_NOUN: &[&str] = &[
    "are", "were", "can", "cannot", "will", "must", "should", "may", "might", "have", "do", "don",
];

/// `word` as a verb in any of its common forms: "deletes", "fetches",
/// "queries", "listing", "creating", "running", "removed".
fn inflected(word: &str) -> Option<(&'static str, Effect, Strength)> {
    let mut forms = vec![word.to_string()];
    for (suffix, replacement) in [
        ("ies", "y"),
        ("es", ""),
        ("s", ""),
        ("ing", ""),
        ("ing", "e"),
        ("ed", ""),
        ("ed", "e"),
        ("d", ""),
    ] {
        if let Some(stem) = word.strip_suffix(suffix).filter(|s| s.len() >= 2) {
            forms.push(format!("{stem}{replacement}"));
            // "running" → "run", "dropped" → "drop".
            let mut chars = stem.chars().rev();
            if replacement.is_empty() && chars.next() == chars.next() {
                forms.push(stem[..stem.len() - 1].to_string());
            }
        }
    }
    forms.iter().find_map(|f| verb(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn effect(tool: Value) -> (Effect, String) {
        let s = stated(&tool);
        (s.effect, s.evidence.describe())
    }

    #[test]
    fn a_request_asks_to_read_when_it_is_a_question_and_else_what_its_verb_does() {
        use Effect::*;
        for (request, asked_for) in [
            ("what's on my calendar next Tuesday?", Some(Reads)),
            ("which of my notes are tagged recipe", Some(Reads)),
            (
                "how many docs are in the papers collection now?",
                Some(Reads),
            ),
            ("is the cluster green?", Some(Reads)),
            ("any news on the launch date?", Some(Reads)),
            ("list my open pull requests", Some(Reads)),
            ("can you delete the staging bucket", Some(Destroys)),
            ("please send the invoice to Acme", Some(Changes)),
            ("I need to create a new project", Some(Changes)),
            // A light verb or a verb and its particle say nothing alone.
            ("get rid of this ticket", None),
            ("get me an https certificate", None),
            ("pull up my last four weekly reviews", None),
            // A word as often a noun, and no verb at all.
            ("run this and tell me what it prints", None),
            ("drive files mentioning onboarding", None),
            ("", None),
        ] {
            assert_eq!(asked(request), asked_for, "{request}");
        }
    }

    #[test]
    fn a_later_sentence_said_of_the_tool_decides_when_nothing_before_does() {
        let tool = |name: &str, description: &str| {
            effect(json!({"name": name, "description": description}))
        };
        for (name, description, want, quote) in [
            (
                "tavily_map",
                "Map a website's structure. Returns a list of URLs found starting from the base URL.",
                Effect::Reads,
                "Returns a list of URLs",
            ),
            (
                "site_research",
                "Perform comprehensive research on a topic. Use this tool when you need many sources. Returns a detailed response.",
                Effect::Reads,
                "Returns a detailed response",
            ),
            (
                "vault_sweep",
                "Sweep the vault. Deletes every secret older than a year.",
                Effect::Destroys,
                "Deletes every secret",
            ),
        ] {
            let (found, why) = tool(name, description);
            assert_eq!(found, want, "{name}: {why}");
            assert!(why.contains(quote), "{name}: {why}");
        }
        // An imperative speaks to the model; an error return says nothing
        // of what a call does: the spec's default stays.
        for (name, description) in [
            (
                "cloud_design",
                "Design it. Follow the framework's principles.",
            ),
            (
                "cluster_pause",
                "Pause or resume it. Returns an error if it is paused.",
            ),
            ("warp_rebase", "Rebase it. This will run newer migrations."),
            (
                "ask_helper",
                "Ask the helper. Deletes are refused outright.",
            ),
        ] {
            let (found, why) = tool(name, description);
            assert_eq!(found, Effect::Destroys, "{name}: {why}");
            assert!(why.starts_with("nothing"), "{name}: {why}");
        }
    }

    #[test]
    fn the_verb_of_the_name_decides() {
        for (name, want) in [
            ("list_issues", Effect::Reads),
            ("get_file_contents", Effect::Reads),
            ("kubectl_get", Effect::Reads),
            ("search_repositories", Effect::Reads),
            ("list_commits", Effect::Reads),
            ("get_workflow_run", Effect::Reads),
            ("extract_structured_data", Effect::Reads),
            ("issue_read", Effect::Reads),
            ("create_issue", Effect::Changes),
            ("create_or_update_file", Effect::Changes),
            ("get_or_create_branch", Effect::Changes),
            ("mark_all_notifications_read", Effect::Changes),
            ("push_files", Effect::Changes),
            ("star_repository", Effect::Changes),
            ("delete_repository", Effect::Destroys),
            ("kubectl_delete", Effect::Destroys),
            ("git_force_push", Effect::Destroys),
            ("revokeToken", Effect::Destroys),
        ] {
            assert_eq!(stated(&json!({"name": name})).effect, want, "{name}");
        }
        assert_eq!(
            effect(json!({"name": "list_issues"})).1,
            "`list` in its name"
        );
    }

    #[test]
    fn a_server_s_names_say_where_their_verb_stands() {
        let verb_first = [
            "get_pipeline_schedule",
            "list_issues",
            "create_issue",
            "delete_branch",
            "search_code",
        ];
        assert_eq!(naming(verb_first), Naming::VerbFirst);
        // A namespace before the verb is still the verb first.
        let namespaced = [
            "linear_getIssues",
            "linear_createIssue",
            "linear_deleteIssue",
            "linear_searchIssues",
        ];
        assert_eq!(naming(namespaced), Naming::VerbFirst);
        let verb_last = [
            "compute_vm_create",
            "keyvault_secret_get",
            "storage_account_list",
            "deploy_plan_get",
            "monitor_metrics_query",
        ];
        assert_eq!(naming(verb_last), Naming::VerbLast);
        // Too few names with a verb, or half one way and half the other.
        assert_eq!(naming(["get_issue", "list_issues", "x"]), Naming::Unknown);
        let mixed = ["get_issue", "list_issues", "issue_create", "issue_delete"];
        assert_eq!(naming(mixed), Naming::Unknown);
    }

    #[test]
    fn where_a_server_puts_its_verbs_a_later_verb_names_a_thing() {
        let read = |name: &str, way: Naming| {
            let s = stated_in(&json!({"name": name}), way);
            (s.effect, s.evidence.describe())
        };
        // Verbs first: what follows the first verb is what it acts on.
        for name in [
            "get_pipeline_schedule",
            "list_pipeline_trigger_jobs",
            "jira_get_link_types",
            "jira_get_create_fields",
            "genai-simulation-get-scenario-set",
        ] {
            assert_eq!(read(name, Naming::VerbFirst).0, Effect::Reads, "{name}");
            assert_eq!(
                read(name, Naming::Unknown).0,
                Effect::Changes,
                "{name}: unknown, the most harm"
            );
        }
        assert_eq!(
            read("get_pipeline_schedule", Naming::VerbFirst).1,
            "`get` in its name"
        );
        // Verbs joined to the first still count, before it and after.
        assert_eq!(
            read("get_or_create_branch", Naming::VerbFirst).0,
            Effect::Changes
        );
        assert_eq!(
            read("create_or_delete_x", Naming::VerbFirst).0,
            Effect::Destroys
        );
        assert_eq!(
            read("x_list_and_delete", Naming::VerbLast).0,
            Effect::Destroys
        );
        // Verbs last: an earlier verb names an area.
        assert_eq!(read("deploy_plan_get", Naming::VerbLast).0, Effect::Reads);
        assert_eq!(
            read("compute_vm_create", Naming::VerbLast).0,
            Effect::Changes
        );
        assert_eq!(
            read("search_index_delete", Naming::VerbLast).0,
            Effect::Destroys
        );
        // A name without a plain verb: its ambiguous words, as before.
        assert_eq!(read("git_log", Naming::VerbFirst).0, Effect::Changes);
        // What the description says still refines the verb.
        let s = stated_in(
            &json!({"name": "set_x_value", "description": "Overwrites the value for good."}),
            Naming::VerbFirst,
        );
        assert_eq!(s.effect, Effect::Destroys);
    }

    #[test]
    fn title_then_description_speak_where_the_name_has_no_verb() {
        let (e, why) = effect(json!({"name": "entities", "title": "Delete Entities"}));
        assert_eq!(
            (e, why.as_str()),
            (Effect::Destroys, "its title (\"Delete Entities\")")
        );
        let (e, why) = effect(json!({
            "name": "repo_thing",
            "description": "Permanently deletes a repository and all of its issues. Use with care."
        }));
        assert_eq!(e, Effect::Destroys);
        assert_eq!(
            why,
            "its description (\"Permanently deletes a repository and all of its issues\")"
        );
        for (description, want) in [
            ("Returns the sum of two numbers", Effect::Reads),
            ("Tools for listing workflows", Effect::Reads),
            ("Fetches a URL from the internet", Effect::Reads),
            ("This tool lets you create a gist", Effect::Changes),
            ("Add or remove a label", Effect::Destroys),
            ("Queries the index", Effect::Reads),
            ("A detailed tool for thinking", Effect::Destroys),
        ] {
            let tool = json!({"name": "thing", "description": description});
            assert_eq!(stated(&tool).effect, want, "{description}");
        }
    }

    #[test]
    fn a_tool_that_says_nothing_may_destroy() {
        let s = stated(&json!({"name": "sequentialthinking"}));
        assert_eq!(
            (s.effect, s.evidence),
            (Effect::Destroys, Evidence::Nothing)
        );
        // Nor does switching a service off or on, or a new secret.
        for name in [
            "pause_subscription",
            "resume_subscription",
            "rotate_webhook_secret",
        ] {
            assert_eq!(
                stated(&json!({"name": name})).effect,
                Effect::Destroys,
                "{name}"
            );
        }
    }

    #[test]
    fn everyday_verbs_of_reading_and_changing_are_known() {
        for (name, want) in [
            ("discover_tools", Effect::Reads),
            ("vm_troubleshoot", Effect::Reads),
            ("speech_stt_recognize", Effect::Reads),
            ("parse", Effect::Reads),
            ("image-action-convert", Effect::Changes),
            ("nfs-reassign", Effect::Changes),
            ("doks-recycle-nodes", Effect::Changes),
            ("scaffold_ios_project", Effect::Changes),
            ("mute_host", Effect::Changes),
            ("acknowledge_event", Effect::Changes),
            ("translate_document", Effect::Changes),
            ("rephrase-text", Effect::Changes),
            // As often nouns: they count where no plain verb does.
            ("shutdown-droplet", Effect::Changes),
            ("get_refund", Effect::Reads),
            ("list_incident_change_events", Effect::Reads),
        ] {
            assert_eq!(stated(&json!({"name": name})).effect, want, "{name}");
        }
        // Their inflected forms open a description.
        let s = stated(&json!({"name": "x", "description": "Translates a document."}));
        assert_eq!(s.effect, Effect::Changes);
    }

    #[test]
    fn the_description_qualifies_open_ended_and_lasting_changes() {
        let (e, why) = effect(json!({
            "name": "execute_sql",
            "description": "Run a SQL query against the database. The connection is read-only."
        }));
        assert_eq!(e, Effect::Reads);
        assert_eq!(why, "its description (\"The connection is read-only\")");
        let tool =
            json!({"name": "query", "description": "Runs SQL; may insert, update or delete rows"});
        assert_eq!(stated(&tool).effect, Effect::Destroys);
        let tool = json!({"name": "query", "description": "Runs a SELECT on the warehouse"});
        assert_eq!(stated(&tool).effect, Effect::Reads);
        let tool = json!({"name": "write_file", "description": "Create a file. Overwrites an existing one without warning."});
        let (e, why) = effect(tool);
        assert_eq!(e, Effect::Destroys);
        assert_eq!(
            why,
            "its description (\"Overwrites an existing one without warning\")"
        );
        let tool =
            json!({"name": "list_archive", "description": "Lists items archived permanently"});
        assert_eq!(stated(&tool).effect, Effect::Reads, "a read stays a read");
    }
}
