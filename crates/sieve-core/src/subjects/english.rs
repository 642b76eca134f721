//! The English derivation knows: how names and sentences cut into words,
//! nouns in their dictionary form, and which words are verbs or function
//! words rather than subjects. General knowledge of the language, never
//! words of particular servers.

/// The first sentence of `text` (up to a full stop followed by a space or
/// a line end), or its first line.
pub(super) fn first_sentence(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    match line.find(". ") {
        Some(end) => line[..end].to_string(),
        None => line.trim_end_matches('.').to_string(),
    }
}

/// `sentence` without what it says is optional (`Set a field in a hash
/// with an optional expiration time` → `Set a field in a hash with an`):
/// an option a tool takes is no part of what it acts on, and the same
/// option (an expiry, a limit) is offered by tools of many areas. The
/// phrase runs from `optional` or `optionally` to the next comma,
/// semicolon, colon or parenthesis, or the sentence's end.
pub(super) fn without_options(sentence: &str) -> String {
    let mut kept = String::with_capacity(sentence.len());
    let mut rest = sentence;
    while let Some(start) = option_start(rest) {
        kept.push_str(&rest[..start]);
        let after = &rest[start..];
        match after.find([',', ';', ':', '(', ')']) {
            Some(end) => rest = &after[end..],
            None => rest = "",
        }
    }
    kept.push_str(rest);
    kept
}

/// Where the word `optional` or `optionally` starts in `text`, any case.
fn option_start(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("optional") {
        let start = from + at;
        let end = start + "optional".len();
        let before = lower[..start].chars().next_back();
        let after: String = lower[end..]
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect();
        if before.is_none_or(|c| !c.is_alphanumeric()) && (after.is_empty() || after == "ly") {
            return Some(start);
        }
        from = end;
    }
    None
}

/// Words of an identifier or a sentence: cut at anything not a letter or
/// digit and where a lowercase letter meets an uppercase one; lowercase.
pub(super) fn split(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The words of prose: as [`split`], but a word written in mixed case
/// (`LineString`, `GeoJSON`, `PostgreSQL`) is one name, as the prose means
/// it, not the words a program would make of it.
pub(super) fn split_prose(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A word in its dictionary form: singular, abbreviations spelled out.
pub(super) fn normalise(word: &str) -> String {
    if let Some(full) = ABBREVIATIONS
        .iter()
        .find(|(short, _)| *short == word)
        .map(|(_, full)| *full)
    {
        return full.to_string();
    }
    singular(word)
}

/// Common abbreviations in tool names, spelled out (singular).
pub(super) const ABBREVIATIONS: &[(&str, &str)] = &[
    ("pr", "pull-request"),
    ("prs", "pull-request"),
    ("mr", "merge-request"),
    ("mrs", "merge-request"),
    ("repo", "repository"),
    ("repos", "repository"),
    ("dir", "directory"),
    ("dirs", "directory"),
    ("org", "organization"),
    ("orgs", "organization"),
    ("organisation", "organization"),
    ("organisations", "organization"),
    ("msg", "message"),
    ("msgs", "message"),
    ("env", "environment"),
    ("envs", "environment"),
    ("config", "configuration"),
    ("configs", "configuration"),
    ("db", "database"),
    ("dbs", "database"),
    ("doc", "document"),
    ("docs", "document"),
    ("img", "image"),
    ("imgs", "image"),
    ("ns", "namespace"),
    ("deps", "dependency"),
    ("dep", "dependency"),
    ("stats", "statistic"),
    ("perf", "performance"),
    ("url", "url"),
    ("urls", "url"),
    ("ids", "id"),
];

/// The singular of an English noun, by its ending.
pub(super) fn singular(word: &str) -> String {
    const IRREGULAR: &[(&str, &str)] = &[
        ("children", "child"),
        // `-ies` is `-y` (`entities`) but for these `-ie` nouns.
        ("cookies", "cookie"),
        ("movies", "movie"),
        ("people", "person"),
        ("indices", "index"),
        ("indexes", "index"),
        ("data", "data"),
        ("analyses", "analysis"),
        ("statuses", "status"),
        ("aliases", "alias"),
        ("series", "series"),
        ("news", "news"),
    ];
    if let Some((_, one)) = IRREGULAR.iter().find(|(many, _)| *many == word) {
        return one.to_string();
    }
    if word.len() <= 3 || word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_string();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for ending in ["sses", "shes", "ches", "xes", "zes"] {
        if let Some(stem) = word.strip_suffix(ending) {
            return format!("{stem}{}", &ending[..ending.len() - 2]);
        }
    }
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word.to_string();
    }
    word.strip_suffix('s').unwrap_or(word).to_string()
}

/// Verbs that start or end a tool name (`get_issue`, `issue_read`): the
/// action, not the subject.
pub(super) const VERBS: &[&str] = &[
    "add",
    "analyse",
    "analyze",
    "apply",
    "approve",
    "archive",
    "assign",
    "attach",
    "call",
    "cancel",
    "check",
    "clean",
    "cleanup",
    "clear",
    "click",
    "clone",
    "close",
    "compare",
    "compute",
    "connect",
    "convert",
    "copy",
    "count",
    "create",
    "debug",
    "delete",
    "demonstrate",
    "deploy",
    "describe",
    "detach",
    "disable",
    "disconnect",
    "dismiss",
    "download",
    "drag",
    "drop",
    "dump",
    "echo",
    "edit",
    "emulate",
    "enable",
    "evaluate",
    "exec",
    "execute",
    "explain",
    "export",
    "fetch",
    "fill",
    "find",
    "fork",
    "format",
    "generate",
    "get",
    "go",
    "grant",
    "gzip",
    "handle",
    "hide",
    "hover",
    "import",
    "insert",
    "inspect",
    "install",
    "invite",
    "invoke",
    "kill",
    "launch",
    "link",
    "list",
    "load",
    "lock",
    "lookup",
    "make",
    "manage",
    "mark",
    "merge",
    "modify",
    "move",
    "navigate",
    "new",
    "open",
    "parse",
    "patch",
    "pause",
    "ping",
    "post",
    "press",
    "preview",
    "print",
    "publish",
    "push",
    "put",
    "query",
    "read",
    "reconnect",
    "record",
    "refresh",
    "register",
    "reject",
    "reload",
    "remove",
    "rename",
    "render",
    "reply",
    "reprioritize",
    "request",
    "reset",
    "resize",
    "resolve",
    "restart",
    "restore",
    "resume",
    "retrieve",
    "return",
    "revoke",
    "rollback",
    "rollout",
    "run",
    "save",
    "scale",
    "scan",
    "scroll",
    "search",
    "select",
    "send",
    "set",
    "show",
    "simulate",
    "sort",
    "star",
    "start",
    "stop",
    "submit",
    "subscribe",
    "summarise",
    "summarize",
    "switch",
    "sync",
    "take",
    "test",
    "toggle",
    "trigger",
    "type",
    "unarchive",
    "uninstall",
    "unlink",
    "unlock",
    "unresolve",
    "unstar",
    "unsubscribe",
    "update",
    "upgrade",
    "upload",
    "upsert",
    "validate",
    "verify",
    "view",
    "wait",
    "watch",
    "write",
];

/// Words that are neither action nor subject: articles, prepositions,
/// conjunctions, pronouns and the modifiers tool names use.
pub(super) const FUNCTION_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "across",
    "active",
    "after",
    "against",
    "all",
    "allowed",
    "along",
    "also",
    "amid",
    "among",
    "an",
    "and",
    "annotated",
    "any",
    "are",
    "around",
    "as",
    "async",
    "at",
    "available",
    "back",
    "basic",
    "batch",
    "be",
    "been",
    "before",
    "being",
    "below",
    "beneath",
    "besides",
    "between",
    "beyond",
    "both",
    "bulk",
    "by",
    "can",
    "could",
    "current",
    "custom",
    "default",
    "despite",
    "detail",
    "details",
    "during",
    "each",
    "either",
    "every",
    "existing",
    "for",
    "from",
    "full",
    "generic",
    "given",
    "global",
    "how",
    "if",
    "in",
    "info",
    "information",
    "into",
    "is",
    "it",
    "its",
    "latest",
    "long",
    "many",
    "may",
    "me",
    "might",
    "more",
    "multiple",
    "must",
    "my",
    "neither",
    "new",
    "not",
    "of",
    "off",
    "on",
    "one",
    "onto",
    "or",
    "other",
    "out",
    "over",
    "own",
    "pending",
    "per",
    "recent",
    "running",
    "same",
    "several",
    "shall",
    "should",
    "simple",
    "simulated",
    "since",
    "single",
    "some",
    "specific",
    "structured",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "those",
    "through",
    "throughout",
    "tiny",
    "to",
    "toward",
    "towards",
    "under",
    "until",
    "up",
    "upon",
    "using",
    "via",
    "visible",
    "was",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whose",
    "with",
    "within",
    "without",
    "would",
    "your",
];

/// Whether `verb` is one any subject takes (reading, writing, finding,
/// running it), so tools that start with it share no activity.
pub(super) fn is_general_verb(verb: &str) -> bool {
    const GENERAL: &[&str] = &[
        "add", "create", "delete", "describe", "do", "fetch", "find", "get", "have", "list",
        "make", "query", "read", "remove", "retrieve", "run", "search", "set", "show", "start",
        "stop", "take", "update", "view", "write",
    ];
    GENERAL.contains(&verb)
}

pub(super) fn is_verb(word: &str) -> bool {
    // `un-` undoes a verb and is one itself (`unroute`, `unpin`).
    VERBS.binary_search(&word).is_ok()
        || word
            .strip_prefix("un")
            .is_some_and(|rest| rest.len() > 2 && VERBS.binary_search(&rest).is_ok())
}

pub(super) fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.binary_search(&word).is_ok()
}

/// Whether `word` can name a subject: not a function word, not a number,
/// more than one letter.
pub(super) fn is_noun(word: &str) -> bool {
    word.chars().count() > 1 && !word.chars().all(|c| c.is_ascii_digit()) && !is_function_word(word)
}

/// Whether `word` is a verb's past participle (`provided`, `selected`),
/// which in a sentence describes a thing rather than names it (a name's
/// `reserved_ip` is a thing): `-ed` past a stem of three letters or
/// more, but not `-eed` (`feed`, `speed`).
pub(super) fn is_participle(word: &str) -> bool {
    word.len() > 5 && word.ends_with("ed") && !word.ends_with("eed")
}
