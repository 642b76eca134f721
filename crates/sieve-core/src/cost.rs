//! What calling a tool costs the person, the built-in concern `cost`
//! (DESIGN §3): `minimal`, `moderate` or `high`, with the part of the tool
//! that decided it in words.
//!
//! * `high` only for money the tool says it spends: a verb that spends
//!   (`purchase`, `provision`, `scale`), one that creates a resource that
//!   is billed by the hour (`create_instance`, `launch_cluster`), a
//!   description that says a call costs (paid APIs, credits), an input
//!   that caps what a call spends (`maxCredits`) or, for a tool that
//!   changes something, its own action (name, title, first sentence)
//!   naming billing or payment. Subscribing to a channel buys no plan.
//! * `moderate` for large results or long calls. Before a tool has been
//!   called, its definition says so: a tool that reads and lists, searches
//!   or exports, returns logs, trees, file contents or a collection
//!   (`get_pull_request_files`), says it returns "all" or "the entire"
//!   thing, or pages through results; or a tool that runs, builds,
//!   installs or waits, says it runs long, or takes a timeout (not a
//!   `duration`, which sets a value). A count, a length or a yes/no
//!   (`llen`, `hexists`) and plurals of small attributes
//!   (`get_link_types`) are small.
//! * `minimal` otherwise.
//!
//! Once calls have passed through Sieve their measured size and time
//! ([`Measured`], over the last [`CALLS_KEPT`] calls of each tool, kept
//! with the ledger, handed in by the caller) take over for the `moderate`
//! / `minimal` choice: results or calls past the limits
//! ([`LARGE_RESULT_TOKENS`], [`LONG_CALL_MS`]) make a tool `moderate`,
//! and [`CALLS_TO_LOWER`] calls under both limits make a `moderate`
//! judged from the definition `minimal`. Measurements never make a tool
//! `high` nor take `high` away: what a call costs in money is not in its
//! result.

use crate::action::{Effect, Naming, Stated, stated, stated_in};
use crate::wording::{
    Prose, find_phrase, first_sentence, name_words, opening, prose_words, quote, thousands,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// The values of the built-in concern, from the cheapest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cost {
    Minimal,
    Moderate,
    High,
}

impl Cost {
    /// The concern value: `minimal`, `moderate`, `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Cost::Minimal => "minimal",
            Cost::Moderate => "moderate",
            Cost::High => "high",
        }
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tokens from which a call's result counts as large. About 8,000
/// characters, a page of text: single records and short lists stay under
/// it; file contents, logs and long listings pass it. One such result
/// puts as much into the model's context as six or seven typical tool
/// definitions, which is what hiding a handful of tools saves.
pub const LARGE_RESULT_TOKENS: u64 = 2_000;

/// Milliseconds from which a call counts as long. An API call or a file
/// read answers in well under a second; ten seconds is a wait a person
/// notices, and builds, crawls, deployments and waits for a person take
/// longer.
pub const LONG_CALL_MS: u64 = 10_000;

/// Measured calls needed before small, quick results lower a `moderate`
/// judged from the definition to `minimal`. One or two calls may have hit
/// an empty repository or a short file; three that agree are the fewest
/// that say the results are usually small. Raising needs one call: a
/// large result is a fact, not a trend.
pub const CALLS_TO_LOWER: u32 = 3;

/// The calls of each tool whose measurements are kept, the most recent:
/// enough for a 90th percentile that is not just the largest call, few
/// enough that a tool whose results changed (a repository that grew) is
/// judged by what it does now.
pub const CALLS_KEPT: usize = 50;

/// Which of a run of calls, in the order they came (each named by its
/// server and tool), are kept once written: the newest [`CALLS_KEPT`] of
/// each tool. A mask in the calls' order.
pub fn kept_of_each_tool<'a>(
    calls: impl DoubleEndedIterator<Item = (&'a str, &'a str)>,
) -> Vec<bool> {
    let mut seen: std::collections::HashMap<(&str, &str), usize> = Default::default();
    let mut kept: Vec<bool> = calls
        .rev()
        .map(|tool| {
            let count = seen.entry(tool).or_default();
            *count += 1;
            *count <= CALLS_KEPT
        })
        .collect();
    kept.reverse();
    kept
}

/// What the calls through Sieve measured, by server, then by the tool's
/// upstream name.
pub type Measurements = BTreeMap<String, BTreeMap<String, Measured>>;

/// What the calls of one tool through Sieve measured, from the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Measured {
    /// Calls measured.
    pub calls: u32,
    /// Median tokens of a call's result.
    pub median_tokens: u64,
    /// Tokens that nine calls in ten stay under or at.
    pub p90_tokens: u64,
    /// Median duration of a call, in milliseconds.
    pub median_ms: u64,
    /// Duration that nine calls in ten stay under or at.
    pub p90_ms: u64,
}

impl Measured {
    /// The measurements of `calls`, each the tokens of its result and its
    /// duration in milliseconds. Medians and 90th percentiles are taken
    /// by nearest rank, so each is what one of the calls measured: of
    /// three calls, the median is the middle one and the 90th percentile
    /// the largest.
    pub fn of_calls(calls: &[(u64, u64)]) -> Measured {
        let (mut tokens, mut ms): (Vec<u64>, Vec<u64>) = calls.iter().copied().unzip();
        tokens.sort_unstable();
        ms.sort_unstable();
        Measured {
            calls: u32::try_from(calls.len()).unwrap_or(u32::MAX),
            median_tokens: nearest_rank(&tokens, 50),
            p90_tokens: nearest_rank(&tokens, 90),
            median_ms: nearest_rank(&ms, 50),
            p90_ms: nearest_rank(&ms, 90),
        }
    }
}

/// The value `percent` of `sorted` values stay under or at; 0 for none.
fn nearest_rank(sorted: &[u64], percent: usize) -> u64 {
    let rank = (sorted.len() * percent).div_ceil(100);
    sorted.get(rank.saturating_sub(1)).copied().unwrap_or(0)
}

/// A cost and why, in words ("cost high: ...").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub value: Cost,
    pub why: String,
}

impl Judgement {
    fn new(value: Cost, why: impl fmt::Display) -> Judgement {
        Judgement {
            value,
            why: format!("cost {value}: {why}"),
        }
    }
}

/// The cost of a tool: from its definition (an MCP Tool object), then
/// its measurements when there are any.
pub fn judge(definition: &Value, measured: Option<&Measured>) -> Judgement {
    judge_stated(definition, stated(definition), measured)
}

/// [`judge`] for a tool of a server that names its tools `naming`
/// ([`crate::action::naming`]), as the catalog judges it.
pub fn judge_in(definition: &Value, naming: Naming, measured: Option<&Measured>) -> Judgement {
    judge_stated(definition, stated_in(definition, naming), measured)
}

/// [`judge`] for a tool whose stated effect the caller has read already
/// (the catalog reads it once for `security` and `cost` alike).
pub fn judge_stated(definition: &Value, said: Stated, measured: Option<&Measured>) -> Judgement {
    let judged = judge_definition(definition, said);
    match measured {
        Some(measured) => with_measurements(judged, measured),
        None => judged,
    }
}

/// The cost of a tool that has not been called, from its definition.
pub fn from_definition(definition: &Value) -> Judgement {
    judge_definition(definition, stated(definition))
}

fn judge_definition(definition: &Value, said: Stated) -> Judgement {
    let tool = Tool::of(definition, said);
    if let Some(why) = tool.spends() {
        return Judgement::new(Cost::High, why);
    }
    if let Some(why) = tool.returns_much().or_else(|| tool.runs_long()) {
        return Judgement::new(Cost::Moderate, why);
    }
    Judgement::new(
        Cost::Minimal,
        "nothing in its definition spends money, returns much or runs long",
    )
}

/// `judged` (from the definition) corrected by what calls measured.
pub fn with_measurements(judged: Judgement, measured: &Measured) -> Judgement {
    if judged.value == Cost::High || measured.calls == 0 {
        return judged;
    }
    let calls = match measured.calls {
        1 => "1 call".to_string(),
        n => format!("{n} calls"),
    };
    if measured.median_tokens >= LARGE_RESULT_TOKENS {
        let tokens = thousands(measured.median_tokens);
        let why = format!("its calls through Sieve returned a median of {tokens} tokens ({calls})");
        return Judgement::new(Cost::Moderate, why);
    }
    if measured.p90_tokens >= LARGE_RESULT_TOKENS {
        let tokens = thousands(measured.p90_tokens);
        let why = format!(
            "its calls through Sieve returned up to {tokens} tokens (90th percentile, {calls})"
        );
        return Judgement::new(Cost::Moderate, why);
    }
    if measured.median_ms >= LONG_CALL_MS {
        let took = seconds(measured.median_ms);
        let why = format!("its calls through Sieve took a median of {took} ({calls})");
        return Judgement::new(Cost::Moderate, why);
    }
    if measured.p90_ms >= LONG_CALL_MS {
        let took = seconds(measured.p90_ms);
        let why = format!("its calls through Sieve took up to {took} (90th percentile, {calls})");
        return Judgement::new(Cost::Moderate, why);
    }
    if judged.value == Cost::Moderate && measured.calls >= CALLS_TO_LOWER {
        let why = format!(
            "its calls through Sieve returned at most {} tokens in at most {} (90th percentile, \
             {calls}), under the limits of {} tokens and {}",
            thousands(measured.p90_tokens),
            seconds(measured.p90_ms),
            thousands(LARGE_RESULT_TOKENS),
            seconds(LONG_CALL_MS),
        );
        return Judgement::new(Cost::Minimal, why);
    }
    judged
}

/// Milliseconds in words: "850 ms", "12.5 s".
fn seconds(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1_000) {
        format!("{} s", ms / 1_000)
    } else {
        format!("{:.1} s", ms as f64 / 1_000.0)
    }
}

/// Verbs that spend money whatever they act on.
const SPENDING_VERBS: &[&str] = &["purchase", "buy", "pay", "provision", "scale"];
/// Words in the name of an input that is about money (compared without
/// `_`, `-` and case, at the end of the name, or `cost` before `id`):
/// `confirm_cost_id`, `budget`, `exploration_budget`; not a switch
/// (`exclude_from_budget`, a boolean) and not a record's field that
/// mentions a payment (`payment_account`, `payment_method`: bookkeeping
/// and payment tools carry them without spending). A `price` alone is
/// what a thing the tool makes or changes sells for (a product, a
/// payment link, an invoice item): others pay it; a price the call pays
/// is capped (`maxPrice`, [`SPEND_CAPS`]) or paid by a spending verb
/// (`purchase`).
const MONEY_INPUTS: &[&str] = &["cost", "costid", "budget"];
/// Verbs of money that comes in or is written down, not spent (each one
/// [`crate::action`] knows, since its verb is what is compared).
const BOOKKEEPING_VERBS: &[&str] = &["receive", "record", "log", "import"];
/// Words of an input that caps what a call spends, after `max`
/// (`maxCredits`, `max_spend`): the call is paid for even when it reads.
const SPEND_CAPS: &[&str] = &["credit", "cost", "price", "spend", "budget"];
/// Verbs that spend money when what they act on is a paid plan.
const PLAN_VERBS: &[&str] = &["upgrade", "subscribe", "order"];
/// What a paid plan is called, as the object of the tool's own action:
/// "Subscribe to a channel" buys nothing, nor does "returns the
/// subscription ID"; the noun `subscription` alone names no price.
const PLANS: &[&str] = &[
    "plan",
    "paid plan",
    "tier",
    "billing",
    "sku",
    "seat",
    "seats",
    "license",
];
/// Verbs that bring a resource into being.
const CREATING_VERBS: &[&str] = &[
    "create",
    "launch",
    "start",
    "spawn",
    "provision",
    "deploy",
    "add",
    "run",
];
/// Resources billed for as long as they exist.
const BILLED_RESOURCES: &[&str] = &[
    "instance",
    "instances",
    "vm",
    "vms",
    "cluster",
    "clusters",
    "gpu",
    "gpus",
    "droplet",
    "machine",
    "machines",
    "nodepool",
    "node pool",
    "virtual machine",
    "vps",
];
/// What a description says of a call that costs, whatever the tool does.
const PAID_CALLS: &[&str] = &[
    "paid api",
    "costs money",
    "cost money",
    "incurs",
    "incur charges",
    "incur costs",
    "will be charged",
    "is charged",
    "charged per",
    "per call fee",
    "uses credits",
    "consumes credits",
    "spends credits",
    "deducts credits",
];
/// Money words, for a tool that changes something.
const MONEY: &[&str] = &[
    "billable",
    "billed",
    "billing",
    "payment",
    "purchase",
    "purchases",
    "paid plan",
    "charge",
    "charges",
    "credit card",
];

/// Verbs of tools that return lists or whole documents.
const LISTING_VERBS: &[&str] = &[
    "list",
    "search",
    "query",
    "export",
    "dump",
    "snapshot",
    "screenshot",
    "crawl",
    "scrape",
    "download",
    "browse",
    "find",
    "fetch",
    "grep",
];
/// What a tool that reads returns much of, by the words of its name.
const BULKY: &[&str] = &[
    "logs",
    "log",
    "tree",
    "contents",
    "dump",
    "snapshot",
    "screenshot",
    "history",
    "diff",
    "transcript",
    "archive",
    "media",
    "audio",
    "video",
    "pdf",
];
/// Words of the first sentence of a description that say a tool that
/// reads returns lists: "Get or list resources", "Get the list of ...".
const LISTING_WORDS: &[&str] = &[
    "list",
    "lists",
    "listing",
    "search",
    "searches",
    "export",
    "exports",
    "dump",
    "dumps",
    "crawl",
    "crawls",
    "scrape",
    "scrapes",
    "download",
    "downloads",
];
/// Plural-looking words that name one thing.
const SINGULAR: &[&str] = &[
    "details", "settings", "status", "stats", "access", "address", "alias", "analysis", "canvas",
    "class", "process", "news", "series", "this", "its",
];
/// What the first sentence of a description says of a tool that returns
/// much, anywhere in it.
const WHOLE: &[&str] = &[
    "entire",
    "whole",
    "complete contents",
    "full contents",
    "recursive",
    "recursively",
    "base64",
];
/// The same, right after the verb ("Returns all environment variables"),
/// and only there: "the status of all checks" is one status.
const ALL: &[&str] = &["all", "every"];
/// Inputs of a tool that pages through results, compared without `_`,
/// `-` and case.
const PAGING: &[&str] = &[
    "page",
    "cursor",
    "after",
    "perpage",
    "pagesize",
    "pagetoken",
    "offset",
    "limit",
    "maxresults",
];
/// Verbs of tools whose calls take long.
const LONG_VERBS: &[&str] = &[
    "run", "execute", "exec", "wait", "await", "build", "compile", "deploy", "install", "upgrade",
    "crawl", "train", "poll",
];
/// What a name or description says of a call that takes long.
const TAKES_LONG: &[&str] = &[
    "long-running",
    "long running",
    "may take",
    "can take",
    "take a while",
    "takes a while",
    "several minutes",
    "few minutes",
    "wait for",
    "waits for",
    "waits until",
    "awaits",
    "until it completes",
    "deep research",
];
/// Inputs of a tool whose calls take long, compared as [`PAGING`] but at
/// the start of the name (`timeoutSeconds`, not `iteration_duration`).
/// Not `duration`: an input of that name sets how long something lasts (a
/// discount, a sprint), not how long the call takes.
const WAITING: &[&str] = &["timeout", "wait"];
/// What a tool that reads returns when it measures or tests one thing:
/// "Get the length of a list", "Check if a field exists" answer with a
/// number or a yes, whatever noun follows. Read in the name's words and
/// the first sentence, right after the verb (or its article) or anywhere
/// for the tests.
const MEASURES: &[&str] = &["length", "len", "count", "size", "number", "total"];
/// Not `exist`: "which environments exist" lists them.
const TESTS: &[&str] = &["exists", "whether", "check if", "true if"];
/// Plurals of small attributes of one record, not records: "issue link
/// types" or "issue dates" are a few short values. A collection of
/// records (`files`, `comments`, `issues`) is what is large. Only for a
/// tool that gets them ([`GETTING`]): `generate_typescript_types` writes a
/// whole file of types.
const ATTRIBUTES: &[&str] = &[
    "dates", "times", "types", "kinds", "names", "ids", "fields", "statuses", "states", "flags",
    "counts", "sizes",
];
/// Verbs that fetch what is already there, as opposed to making it.
const GETTING: &[&str] = &["get", "retrieve", "read", "show", "describe", "view"];

/// What the cost rules read of one tool.
struct Tool<'a> {
    name: Vec<String>,
    title: &'a str,
    description: &'a str,
    /// The description, read once for every phrase list.
    prose: Prose<'a>,
    params: Vec<(String, String)>,
    /// The inputs that are no switch (not `"type": "boolean"`).
    values: Vec<(String, String)>,
    stated: Stated,
    reads: bool,
}

impl<'a> Tool<'a> {
    fn of(definition: &'a Value, stated: Stated) -> Tool<'a> {
        let text = |key: &str| definition.get(key).and_then(Value::as_str).unwrap_or("");
        let read_only = definition
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool);
        let properties = definition
            .pointer("/inputSchema/properties")
            .and_then(Value::as_object);
        let key = |p: &str| p.replace(['_', '-'], "").to_lowercase();
        let switch =
            |property: &Value| property.get("type").and_then(Value::as_str) == Some("boolean");
        Tool {
            name: name_words(text("name")),
            title: text("title"),
            description: opening(text("description")),
            prose: Prose::new(opening(text("description"))),
            params: properties
                .into_iter()
                .flatten()
                .map(|(p, _)| (p.clone(), key(p)))
                .collect(),
            values: properties
                .into_iter()
                .flatten()
                .filter(|(_, property)| !switch(property))
                .map(|(p, _)| (p.clone(), key(p)))
                .collect(),
            // The server's word first; the verbs where it says nothing.
            reads: read_only.unwrap_or(stated.effect == Effect::Reads),
            stated,
        }
    }

    /// Why it spends money, if it says so.
    fn spends(&self) -> Option<String> {
        let verb = self.stated.verb.unwrap_or("");
        let evidence = self.stated.evidence.describe();
        if SPENDING_VERBS.contains(&verb) {
            return Some(format!("{evidence} says it spends money"));
        }
        if PLAN_VERBS.contains(&verb)
            && let Some(plan) = self.said_of_action(PLANS)
        {
            return Some(format!("{plan} says it buys a paid plan"));
        }
        if CREATING_VERBS.contains(&verb)
            && let Some(resource) = self.said_of_object(verb, BILLED_RESOURCES)
        {
            return Some(format!(
                "{resource} says it creates a resource billed while it runs"
            ));
        }
        // An input that confirms or caps what a call costs
        // (`confirm_cost_id`, `max_price`, `budget`): the server asks for
        // it because the call is paid for.
        if self.stated.effect != Effect::Reads
            && !self.reads
            && let Some((input, _)) = self
                .values
                .iter()
                .find(|(_, key)| MONEY_INPUTS.iter().any(|k| key.ends_with(k)))
        {
            return Some(format!("its input `{input}` says a call costs money"));
        }
        // A cap on what a call spends (`maxCredits`): asked for because
        // each call is paid for, reading or not.
        if let Some(input) = self.params.iter().find_map(|(name, key)| {
            let capped = key.strip_prefix("max")?;
            SPEND_CAPS
                .iter()
                .any(|k| capped.contains(k))
                .then_some(name.as_str())
        }) {
            return Some(format!(
                "its input `{input}` caps what a call spends, so calls are paid for"
            ));
        }
        let described = |phrases| self.prose.quote_saying(phrases);
        if let Some(quote) = described(PAID_CALLS) {
            return Some(format!(
                "its description says a call costs money (\"{quote}\")"
            ));
        }
        // Money words count in the tool's own action (name, title, first
        // sentence), not in the list of its inputs further on: "-
        // duplicate_charge_explanation (string)" charges nothing. Not in
        // what a verb says deletes: removing a saved payment method spends
        // nothing (a tool whose verb is not known may spend).
        let deletes = self.stated.effect == Effect::Destroys && self.stated.verb.is_some();
        // Nor in money coming in or written down: `receive_payment`,
        // "Record an expense" (a ledger's entries).
        let books = self
            .stated
            .verb
            .is_some_and(|verb| BOOKKEEPING_VERBS.contains(&verb));
        if self.stated.effect != Effect::Reads
            && !deletes
            && !books
            && !self.reads
            && let Some(part) = self.said_of_action(MONEY)
        {
            return Some(format!("{part} says it spends money"));
        }
        None
    }

    /// Why it returns much, if its definition says so. Only tools that
    /// read: "Mark all notifications as read" returns little.
    fn returns_much(&self) -> Option<String> {
        if !self.reads {
            return None;
        }
        let verb = self.stated.verb.unwrap_or("");
        if LISTING_VERBS.contains(&verb) {
            return Some(format!(
                "{} says it returns large results",
                self.stated.evidence.describe()
            ));
        }
        if self.measures_one() {
            return None;
        }
        let part = if let Some(word) = self.name.iter().find(|w| BULKY.contains(&w.as_str())) {
            format!("`{word}` in its name")
        } else if self
            .name
            .last()
            .is_some_and(|w| ATTRIBUTES.contains(&w.as_str()))
            && (GETTING.contains(&verb) || self.name.iter().any(|w| GETTING.contains(&w.as_str())))
        {
            return None;
        } else if let Some(last) = self
            .name
            .last()
            .filter(|w| self.name.len() > 1 && is_plural(w))
        {
            // The object of a name comes last, after its verb:
            // `get_discussion_comments`. A one-word name (`hexists`) has
            // no object to be plural.
            format!("`{last}` in its name")
        } else if self.describes(|words| {
            find_phrase(words, WHOLE).is_some()
                || find_phrase(words, LISTING_WORDS).is_some()
                || words
                    .get(1..3)
                    .is_some_and(|next| find_phrase(next, ALL).is_some())
        }) {
            format!("its description (\"{}\")", quote(self.description))
        } else {
            let input = self.param(PAGING, |key, k| key.ends_with(k))?;
            return Some(format!(
                "its input `{input}` pages through results, so they can be large"
            ));
        };
        Some(format!("{part} says it returns large results"))
    }

    /// Whether it answers with one measure or a yes/no: a name word or
    /// the first sentence's noun after its verb is a [`MEASURES`] word, or
    /// the first sentence tests ([`TESTS`]).
    fn measures_one(&self) -> bool {
        self.name.iter().any(|w| MEASURES.contains(&w.as_str()))
            || self.describes(|words| {
                find_phrase(words, TESTS).is_some()
                    || words
                        .iter()
                        .skip(1)
                        .take(2)
                        .any(|w| MEASURES.contains(&w.as_str()))
            })
    }

    /// Why its calls take long, if its definition says so.
    fn runs_long(&self) -> Option<String> {
        let verb = self.stated.verb.unwrap_or("");
        let part = if LONG_VERBS.contains(&verb) {
            self.stated.evidence.describe()
        } else if let Some(said) = self.said(TAKES_LONG) {
            said
        } else {
            format!(
                "its input `{}`",
                self.param(WAITING, |key, k| key.starts_with(k))?
            )
        };
        Some(format!("{part} says its calls can run long"))
    }

    /// Whether the words of the first sentence of its description pass
    /// `test`.
    fn describes(&self, test: impl Fn(&[String]) -> bool) -> bool {
        test(&prose_words(first_sentence(self.description)))
    }

    /// Where the name, title or description say one of `phrases`, in
    /// words: "`instance` in its name", "its description (\"...\")".
    fn said(&self, phrases: &[&str]) -> Option<String> {
        if let Some(phrase) = find_phrase(&self.name, phrases) {
            return Some(format!("`{phrase}` in its name"));
        }
        if find_phrase(&prose_words(self.title), phrases).is_some() {
            return Some(format!("its title (\"{}\")", quote(self.title)));
        }
        self.prose
            .quote_saying(phrases)
            .map(|q| format!("its description (\"{q}\")"))
    }

    /// Where the name, the title or the description's first sentence (what
    /// the tool does, not the setting it works in) says one of `phrases`.
    /// "Start a terminal process" with "This instance is running inside a
    /// container" further on starts no instance.
    fn said_of_action(&self, phrases: &[&str]) -> Option<String> {
        self.said_in(&self.name, |words| words, phrases)
    }

    /// Where what the tool's `verb` acts on says one of `phrases`: in its
    /// name, the words after the verb up to a preposition
    /// (`doks-create-nodepool`), or before it when none follow
    /// (`compute_vm_create`, `vm_create_from_template`); in its title or
    /// the first sentence of its description, the words after the first
    /// up to a preposition ("Create a new database cluster"). What the
    /// thing is made in is not what is made: `db-cluster-create-topic`,
    /// "Allow IP ranges to access your clusters".
    fn said_of_object(&self, verb: &str, phrases: &[&str]) -> Option<String> {
        let in_name = match self.name.iter().position(|w| w == verb) {
            Some(at) => match up_to_preposition(&self.name[at + 1..]) {
                [] => &self.name[..at],
                after => after,
            },
            None => &[],
        };
        self.said_in(
            in_name,
            |words| up_to_preposition(words.get(1..).unwrap_or_default()),
            phrases,
        )
    }

    /// Where `in_name` (words of the name), or the words `in_prose` keeps
    /// of the title, then of the description's first sentence, say one of
    /// `phrases`, in words: "`vm` in its name", "its title (\"...\")".
    fn said_in(
        &self,
        in_name: &[String],
        in_prose: impl Fn(&[String]) -> &[String],
        phrases: &[&str],
    ) -> Option<String> {
        if let Some(phrase) = find_phrase(in_name, phrases) {
            return Some(format!("`{phrase}` in its name"));
        }
        let says = |text: &str| find_phrase(in_prose(&prose_words(text)), phrases).is_some();
        if says(self.title) {
            return Some(format!("its title (\"{}\")", quote(self.title)));
        }
        let first = first_sentence(self.description);
        says(first).then(|| format!("its description (\"{}\")", quote(first)))
    }

    /// The first input whose name, without `_`, `-` and case, `fits` one
    /// of `keys` (`per_page` ends in `page`, `timeoutSeconds` starts with
    /// `timeout`).
    fn param(&self, keys: &[&str], fits: impl Fn(&str, &str) -> bool) -> Option<&str> {
        self.params
            .iter()
            .find(|(_, key)| keys.iter().any(|k| fits(key, k)))
            .map(|(name, _)| name.as_str())
    }
}

/// Words that end what a verb acts on: "create a topic in a cluster".
const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "for", "to", "from", "within", "inside", "into", "under", "with", "by",
    "via", "of",
];

/// `words` up to the first preposition.
fn up_to_preposition(words: &[String]) -> &[String] {
    let end = words
        .iter()
        .position(|w| PREPOSITIONS.contains(&w.as_str()))
        .unwrap_or(words.len());
    &words[..end]
}

/// Whether a word of a name is a plural noun: `files`, `comments`, but
/// not `status` or `details`.
fn is_plural(word: &str) -> bool {
    word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
        && !SINGULAR.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cost(tool: Value) -> (Cost, String) {
        let judged = from_definition(&tool);
        (judged.value, judged.why)
    }

    #[test]
    fn a_billed_resource_counts_when_it_is_what_the_tool_creates() {
        let high = |tool: Value| {
            let (value, why) = cost(tool.clone());
            assert_eq!(value, Cost::High, "{tool}: {why}");
            why
        };
        let not_high = |tool: Value| {
            let (value, why) = cost(tool.clone());
            assert_ne!(value, Cost::High, "{tool}: {why}");
        };
        // What follows the verb is what it makes; with nothing after it,
        // or only where it is made, what comes before.
        assert_eq!(
            high(json!({"name": "doks-create-nodepool"})),
            "cost high: `nodepool` in its name says it creates a resource billed while it runs"
        );
        high(json!({"name": "db-cluster-create"}));
        high(json!({"name": "vm_create_from_template"}));
        not_high(json!({"name": "db-cluster-create-topic"}));
        not_high(json!({"name": "db-cluster-create-user"}));
        // The description's first sentence alike.
        high(
            json!({"name": "x-create", "description": "Create a new managed vector database cluster."}),
        );
        not_high(
            json!({"name": "x-create", "description": "Create a topic in a database cluster."}),
        );
        not_high(json!({
            "name": "atlas-create-access-list",
            "description": "Allow IP ranges to access your Atlas clusters."
        }));
    }

    #[test]
    fn an_identifier_of_a_price_or_payment_spends_nothing() {
        let input = |name: &str, key: &str| {
            let mut properties = serde_json::Map::new();
            properties.insert(key.to_string(), json!({"type": "string"}));
            cost(json!({"name": name, "inputSchema": {"type": "object", "properties": properties}}))
        };
        assert_ne!(input("update_item", "priceId").0, Cost::High);
        assert_ne!(input("update_item", "payment_method_ids").0, Cost::High);
        // What a call costs is asked for whatever form it takes.
        assert_eq!(input("create_project", "confirm_cost_id").0, Cost::High);
        assert_eq!(input("create_item", "max_price").0, Cost::High);
        // A price the tool sets is what buyers pay, not the call.
        assert_ne!(input("create_product", "price").0, Cost::High);
        assert_ne!(input("create_invoice_item", "prices").0, Cost::High);
        assert_eq!(input("purchase_domain", "price").0, Cost::High);
        // Deleting a payment method spends nothing; adding a payment does.
        assert_ne!(
            cost(json!({"name": "delete_saved_payment_method"})).0,
            Cost::High
        );
        assert_eq!(cost(json!({"name": "create_payment"})).0, Cost::High);
        // A record's field that mentions a payment or a budget, and a
        // switch, spend nothing (QuickBooks' and Lunch Money's books); a
        // budget the call is given does.
        assert_ne!(input("create_expense", "payment_account").0, Cost::High);
        assert_ne!(input("receive_payment", "payment_method").0, Cost::High);
        let switch = cost(
            json!({"name": "create_category", "inputSchema": {"type": "object",
            "properties": {"exclude_from_budget": {"type": "boolean"}}}}),
        );
        assert_ne!(switch.0, Cost::High);
        assert_eq!(
            input("create_simulation_run", "exploration_budget").0,
            Cost::High
        );
    }

    #[test]
    fn a_billed_resource_counts_where_the_tool_creates_it_not_where_it_runs() {
        // Desktop Commander inside a container: the process it starts is
        // no instance, though a later sentence names one.
        let (value, why) = cost(json!({
            "name": "start_process",
            "description": "Start a terminal process on the authorized device. \
                This Desktop Commander instance is running inside a Docker container.",
            "annotations": {"destructiveHint": true}
        }));
        assert_eq!(value, Cost::Minimal, "{why}");
        let (value, why) = cost(json!({
            "name": "start",
            "description": "Starts a new virtual machine in the project. Returns its id."
        }));
        assert_eq!(value, Cost::High);
        assert_eq!(
            why,
            "cost high: its description (\"Starts a new virtual machine in the project\") says it creates a resource billed while it runs"
        );
    }

    #[test]
    fn money_it_says_it_spends_is_high() {
        let (value, why) =
            cost(json!({"name": "kubectl_scale", "description": "Scale a deployment"}));
        assert_eq!(value, Cost::High);
        assert_eq!(why, "cost high: `scale` in its name says it spends money");
        let (value, why) = cost(json!({"name": "create_instance"}));
        assert_eq!(value, Cost::High);
        assert_eq!(
            why,
            "cost high: `instance` in its name says it creates a resource billed while it runs"
        );
        let (value, why) = cost(json!({
            "name": "web_search",
            "description": "Searches the web. Each call uses credits of your plan."
        }));
        assert_eq!(value, Cost::High, "a paid API, even one that reads");
        assert_eq!(
            why,
            "cost high: its description says a call costs money (\"Each call uses credits of your plan\")"
        );
        assert_eq!(
            cost(json!({"name": "upgrade_plan"})).0,
            Cost::High,
            "a plan is bought"
        );
        assert_eq!(
            cost(json!({"name": "upgrade_helm_chart"})).0,
            Cost::Moderate,
            "a chart is not bought, but its upgrade takes long"
        );
        assert_eq!(
            cost(json!({"name": "list_billing_accounts", "description": "Lists billing accounts"}))
                .0,
            Cost::Moderate,
            "reading about billing spends nothing"
        );
        assert_eq!(
            cost(json!({"name": "create_repository", "description": "Create a new repository"})).0,
            Cost::Minimal
        );
        let (value, why) = cost(json!({
            "name": "create_branch",
            "description": "Creates a development branch on a project.",
            "inputSchema": {"type": "object", "properties": {"name": {}, "confirm_cost_id": {}}}
        }));
        assert_eq!(value, Cost::High, "the server asks to confirm the cost");
        assert_eq!(
            why,
            "cost high: its input `confirm_cost_id` says a call costs money"
        );
        assert_ne!(
            cost(json!({
                "name": "get_cost",
                "inputSchema": {"type": "object", "properties": {"cost_type": {}}}
            }))
            .0,
            Cost::High,
            "reading a cost spends nothing"
        );
    }

    #[test]
    fn large_results_by_definition_are_moderate() {
        for (tool, why) in [
            (
                json!({"name": "list_issues"}),
                "`list` in its name says it returns large results",
            ),
            (
                json!({"name": "get_file_contents"}),
                "`contents` in its name says it returns large results",
            ),
            (
                json!({"name": "kubectl_logs", "description": "Get logs from pods"}),
                "`logs` in its name says it returns large results",
            ),
            (
                json!({"name": "get_pull_request_files"}),
                "`files` in its name says it returns large results",
            ),
            (
                json!({"name": "read_graph", "description": "Read the entire knowledge graph"}),
                "its description (\"Read the entire knowledge graph\") says it returns large results",
            ),
            (
                json!({"name": "get_commits_of", "inputSchema": {"properties": {"per_page": {}}}}),
                "its input `per_page` pages through results, so they can be large",
            ),
            (
                json!({"name": "actions", "annotations": {"readOnlyHint": true}, "description": "Tools for listing workflows"}),
                "its description (\"Tools for listing workflows\") says it returns large results",
            ),
        ] {
            let (value, said) = cost(tool.clone());
            assert_eq!(value, Cost::Moderate, "{tool}");
            assert_eq!(said, format!("cost moderate: {why}"));
        }
        for name in [
            "get_issue",
            "get_pull_request_status",
            "get_notification_details",
        ] {
            assert_eq!(cost(json!({"name": name})).0, Cost::Minimal, "{name}");
        }
        for (description, want) in [
            ("Returns all environment variables", Cost::Moderate),
            ("Get or list Kubernetes resources", Cost::Moderate),
            (
                "Read a file and return it as base64-encoded data",
                Cost::Moderate,
            ),
            (
                "Get the combined status of all status checks",
                Cost::Minimal,
            ),
            ("Get a single label", Cost::Minimal),
        ] {
            let tool = json!({"name": "thing_get", "description": description});
            assert_eq!(cost(tool).0, want, "{description}");
        }
        let tool = json!({"name": "projects_write", "inputSchema": {"properties": {"iteration_duration": {}}}});
        assert_eq!(cost(tool).0, Cost::Minimal, "a duration it sets is no wait");
        assert_eq!(
            cost(json!({"name": "mark_all_notifications_read", "description": "Mark all notifications as read"})).0,
            Cost::Minimal,
            "only tools that read return much"
        );
    }

    #[test]
    fn long_calls_by_definition_are_moderate() {
        for (tool, why) in [
            (json!({"name": "exec_in_pod"}), "`exec` in its name"),
            (
                json!({"name": "trigger-long-running-operation"}),
                "`long-running` in its name",
            ),
            (
                json!({"name": "ask", "description": "Sends a form to the user. It awaits the user's response."}),
                "its description (\"It awaits the user's response\")",
            ),
            (
                json!({"name": "toggle", "inputSchema": {"properties": {"timeoutSeconds": {}}}}),
                "its input `timeoutSeconds`",
            ),
        ] {
            let (value, said) = cost(tool.clone());
            assert_eq!(value, Cost::Moderate, "{tool}");
            assert_eq!(
                said,
                format!("cost moderate: {why} says its calls can run long")
            );
        }
        let (value, why) = cost(json!({"name": "create_issue"}));
        assert_eq!(value, Cost::Minimal);
        assert_eq!(
            why,
            "cost minimal: nothing in its definition spends money, returns much or runs long"
        );
    }

    #[test]
    fn measurements_move_between_minimal_and_moderate_only() {
        let list = json!({"name": "list_issues"});
        let small = Measured {
            calls: 3,
            median_tokens: 300,
            p90_tokens: 900,
            median_ms: 200,
            p90_ms: 1_300,
        };
        let judged = judge(&list, Some(&small));
        assert_eq!(judged.value, Cost::Minimal);
        assert_eq!(
            judged.why,
            "cost minimal: its calls through Sieve returned at most 900 tokens in at most 1.3 s \
             (90th percentile, 3 calls), under the limits of 2,000 tokens and 10 s"
        );
        let few = Measured { calls: 2, ..small };
        assert_eq!(
            judge(&list, Some(&few)).value,
            Cost::Moderate,
            "two calls are too few"
        );
        let large = Measured {
            calls: 3,
            median_tokens: 5_200,
            p90_tokens: 9_000,
            ..small
        };
        let create = json!({"name": "create_issue"});
        let judged = judge(&create, Some(&large));
        assert_eq!(judged.value, Cost::Moderate);
        assert_eq!(
            judged.why,
            "cost moderate: its calls through Sieve returned a median of 5,200 tokens (3 calls)"
        );
        let slow = Measured {
            calls: 1,
            p90_ms: 30_000,
            ..Measured::default()
        };
        assert_eq!(
            judge(&create, Some(&slow)).why,
            "cost moderate: its calls through Sieve took up to 30 s (90th percentile, 1 call)"
        );
        let scale = json!({"name": "scale_cluster"});
        assert_eq!(judge(&scale, Some(&small)).value, Cost::High, "money stays");
        assert_eq!(judge(&create, Some(&small)), from_definition(&create));
        assert_eq!(
            judge(&list, Some(&Measured::default())),
            from_definition(&list)
        );
    }

    #[test]
    fn measurements_are_medians_and_90th_percentiles_by_nearest_rank() {
        assert_eq!(Measured::of_calls(&[]), Measured::default());
        let one = Measured::of_calls(&[(700, 40)]);
        assert_eq!(
            (
                one.calls,
                one.median_tokens,
                one.p90_tokens,
                one.median_ms,
                one.p90_ms
            ),
            (1, 700, 700, 40, 40),
            "one call is its own median and percentile"
        );
        // Tokens and durations are ranked each on their own.
        let three = Measured::of_calls(&[(9_000, 5), (100, 300), (400, 20)]);
        assert_eq!(
            three,
            Measured {
                calls: 3,
                median_tokens: 400,
                p90_tokens: 9_000,
                median_ms: 20,
                p90_ms: 300,
            }
        );
        let four = Measured::of_calls(&[(4, 4), (1, 1), (3, 3), (2, 2)]);
        assert_eq!(
            (four.median_tokens, four.p90_ms),
            (2, 4),
            "the lower middle"
        );
        // Of fifty calls, the 45th smallest: the five largest are the
        // tenth left above it.
        let fifty: Vec<(u64, u64)> = (1..=50).rev().map(|n| (n * 100, n)).collect();
        let measured = Measured::of_calls(&fifty);
        assert_eq!(measured.calls, 50);
        assert_eq!(
            (measured.median_tokens, measured.p90_tokens),
            (2_500, 4_500)
        );
        assert_eq!((measured.median_ms, measured.p90_ms), (25, 45));
    }

    #[test]
    fn plural_nouns_are_told_from_singular_ones() {
        for word in ["files", "comments", "teams", "links"] {
            assert!(is_plural(word), "{word}");
        }
        for word in ["status", "details", "access", "analysis", "gas", "news"] {
            assert!(!is_plural(word), "{word}");
        }
    }

    #[test]
    fn subscribing_to_a_channel_buys_no_plan() {
        // Redis: a channel is subscribed to, and the subscription it
        // returns names no price.
        for (name, description) in [
            (
                "subscribe",
                "Subscribe to a Redis channel and return a reusable subscription handle.",
            ),
            (
                "psubscribe",
                "Subscribe to Redis channels using a pattern.\n\nReturns:\n    A dictionary \
                 containing the subscription ID or an error message.",
            ),
        ] {
            let (value, why) = cost(json!({"name": name, "description": description}));
            assert_eq!(value, Cost::Minimal, "{name}: {why}");
        }
        let (value, why) = cost(json!({
            "name": "subscribe",
            "description": "Subscribe the workspace to the Pro plan."
        }));
        assert_eq!(value, Cost::High);
        assert_eq!(
            why,
            "cost high: its description (\"Subscribe the workspace to the Pro plan\") says it buys a paid plan"
        );
    }

    #[test]
    fn money_words_count_in_the_tools_own_action_not_its_inputs_list() {
        // Stripe's update_dispute lists `duplicate_charge_explanation`.
        let (value, why) = cost(json!({
            "name": "update_dispute",
            "description": "When you receive a dispute, contacting your customer is the best \
                first step. This tool helps.\n\nIt takes the following arguments:\n\
                - dispute (string): The ID of the dispute to update\n\
                - duplicate_charge_explanation (string)\n"
        }));
        assert_eq!(value, Cost::Minimal, "{why}");
        let (value, why) = cost(json!({
            "name": "create_charge",
            "description": "Charges the customer's card."
        }));
        assert_eq!(value, Cost::High);
        assert_eq!(why, "cost high: `charge` in its name says it spends money");
    }

    #[test]
    fn an_input_named_duration_sets_a_value_not_the_calls_time() {
        let (value, why) = cost(json!({
            "name": "create_coupon",
            "description": "This tool will create a coupon in Stripe.",
            "inputSchema": {"properties": {"name": {}, "duration": {}, "duration_in_months": {}}}
        }));
        assert_eq!(value, Cost::Minimal, "{why}");
    }

    #[test]
    fn a_measure_or_a_test_is_a_small_result() {
        for (name, description) in [
            ("llen", "Get the length of a Redis list."),
            ("hexists", "Check if a field exists in a Redis hash."),
            ("get_items_count", "Get items."),
        ] {
            let (value, why) = cost(json!({
                "name": name,
                "description": description,
                "annotations": {"readOnlyHint": true}
            }));
            assert_eq!(value, Cost::Minimal, "{name}: {why}");
        }
        // A one-word name has no plural object: `hexists`, `smembers`.
        let (value, why) = cost(json!({"name": "hexists", "annotations": {"readOnlyHint": true}}));
        assert_eq!(value, Cost::Minimal, "{why}");
        let (value, why) = cost(json!({
            "name": "get-environments",
            "description": "Identifies which environments exist in a project."
        }));
        assert_eq!(value, Cost::Moderate, "a list of what exists: {why}");
        // A listing verb still lists, whatever it counts.
        assert_eq!(
            cost(json!({"name": "list_issues", "description": "List issues and their count."})).0,
            Cost::Moderate
        );
    }

    #[test]
    fn plurals_of_small_attributes_are_no_large_result() {
        for (name, description) in [
            (
                "jira_get_issue_dates",
                "Get date information and status transition history for a Jira issue.",
            ),
            ("jira_get_link_types", "Get all available issue link types."),
        ] {
            let (value, why) = cost(json!({"name": name, "description": description}));
            assert_eq!(value, Cost::Minimal, "{name}: {why}");
        }
        // As the server sends it, where the title makes `link` its verb:
        // `get` in its name still says it gets.
        let (value, why) = cost(json!({
            "name": "jira_get_link_types",
            "description": "Get all available issue link types.",
            "annotations": {"title": "Get Link Types", "readOnlyHint": true}
        }));
        assert_eq!(value, Cost::Minimal, "{why}");
        assert_eq!(
            cost(json!({"name": "get_issue_comments"})).0,
            Cost::Moderate,
            "records are"
        );
        assert_eq!(
            cost(
                json!({"name": "generate_typescript_types", "annotations": {"readOnlyHint": true}})
            )
            .0,
            Cost::Moderate,
            "types it generates are a whole file"
        );
    }

    #[test]
    fn a_cap_on_what_a_call_spends_makes_it_paid() {
        let (value, why) = cost(json!({
            "name": "web_agent",
            "description": "Run web research that returns structured data.",
            "annotations": {"readOnlyHint": true},
            "inputSchema": {"properties": {"prompt": {}, "maxCredits": {}}}
        }));
        assert_eq!(value, Cost::High);
        assert_eq!(
            why,
            "cost high: its input `maxCredits` caps what a call spends, so calls are paid for"
        );
        assert_ne!(
            cost(json!({
                "name": "get_results",
                "annotations": {"readOnlyHint": true},
                "inputSchema": {"properties": {"maxResults": {}}}
            }))
            .0,
            Cost::High
        );
    }
}
