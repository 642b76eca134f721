//! The words of a tool's name and texts, and the subjects they name:
//! verbs and function words set aside, compounds joined, the server's own
//! words left out.

use super::ToolText;
use super::english::{
    first_sentence, is_function_word, is_general_verb, is_noun, is_participle, is_verb, normalise,
    split, split_prose, without_options,
};
use std::collections::{BTreeMap, BTreeSet};

/// Where a tool's subjects were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    Name,
    Title,
    Description,
}

/// The words of a server's key in the user's config (`sentry`,
/// `azure-mcp`, `mcp-server-kubernetes`), without the words every MCP
/// server's name carries: a group is never named after its server.
pub(super) fn server_words(server: &str) -> BTreeSet<String> {
    const GENERIC: &[&str] = &["context", "mcp", "model", "protocol", "server"];
    let words: Vec<String> = split(server).iter().map(|w| normalise(w)).collect();
    let mut named: BTreeSet<String> = words
        .iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .cloned()
        .collect();
    // `chrome-devtools` is also written `chromedevtools`.
    if named.len() > 1 {
        named.insert(named.iter().map(String::as_str).collect::<String>());
    }
    named
}

/// Words that each tool's whole description says and some tool's name
/// says too (`EKS` in every one of an EKS server's descriptions, and in
/// `get_eks_insights`): the server's own, as its key's are, whatever key
/// the user gave it. A word every tool says tells no tool's area apart.
/// A name is written with capitals: a word the prose writes in small
/// letters (`collection`, in every description of a vector store's tools
/// and the subject of most of its names) is a thing the tools act on.
pub(super) fn said_by_every_tool(tools: &[&ToolText], words: &[Words]) -> BTreeSet<String> {
    let in_names: BTreeSet<&String> = words.iter().flat_map(|w| &w.name).collect();
    let written_small = written_small(tools);
    let mut every: Option<BTreeSet<String>> = None;
    for tool in tools {
        let said: BTreeSet<String> = tool
            .description
            .as_deref()
            .map(|text| split(text).iter().map(|w| normalise(w)).collect())
            .unwrap_or_default();
        every = Some(match every {
            None => said,
            Some(so_far) => so_far.intersection(&said).cloned().collect(),
        });
    }
    every
        .unwrap_or_default()
        .into_iter()
        .filter(|word| {
            in_names.contains(word)
                && !is_verb(word)
                && !is_function_word(word)
                && !written_small.contains(word)
        })
        .collect()
}

/// The words the tools' prose writes in small letters somewhere (code is
/// not prose: an address, a path, an identifier).
fn written_small(tools: &[&ToolText]) -> BTreeSet<String> {
    let mut small = BTreeSet::new();
    for tool in tools {
        let text = tool.description.as_deref().unwrap_or_default();
        for chunk in prose_chunks(text) {
            for token in chunk.split(|c: char| !c.is_alphanumeric()) {
                if token.chars().next().is_some_and(char::is_lowercase) {
                    small.insert(normalise(token));
                }
            }
        }
    }
    small
}

/// The whitespace-separated chunks of `text` that are prose, not code:
/// not quoted (`'aws eks create-cluster'`, in backticks or quotes), and
/// not an address, a path or an identifier (`docs.google.com`,
/// `google_doc_id`, `a/b`, `key=value`).
fn prose_chunks(text: &str) -> Vec<&str> {
    let mut prose = Vec::new();
    let mut quoted: Option<char> = None;
    for chunk in text.split_whitespace() {
        if let Some(quote) = quoted {
            if chunk
                .trim_end_matches(|c: char| !c.is_alphanumeric() && c != quote)
                .ends_with(quote)
            {
                quoted = None;
            }
            continue;
        }
        let opening = chunk
            .chars()
            .next()
            .filter(|c| ['\'', '"', '`'].contains(c));
        if let Some(quote) = opening {
            let rest = &chunk[quote.len_utf8()..];
            let closes = rest
                .trim_end_matches(|c: char| !c.is_alphanumeric() && c != quote)
                .ends_with(quote);
            if !closes {
                quoted = Some(quote);
            }
            continue;
        }
        let inner = chunk.trim_matches(|c: char| !c.is_alphanumeric());
        if !inner.contains(['.', '/', '_', '@', ':', '=']) {
            prose.push(chunk);
        }
    }
    prose
}

/// Words the tools call their server by, whatever key the user gave it: a
/// proper noun (written with a capital wherever a description says it:
/// `Alpaca`, `GitHub`; an acronym, `DAG`, is a thing) that a third of the
/// tools' descriptions or more
/// say, and some tool's name too (`search_alpaca_docs`). It names the
/// service, not an area of it.
pub(super) fn named_by_its_tools(tools: &[&ToolText], words: &[Words]) -> BTreeSet<String> {
    let in_names: BTreeSet<&String> = words.iter().flat_map(|w| &w.name).collect();
    // Per word, the tools whose descriptions say it with a capital.
    let mut saying: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut written_small: BTreeSet<String> = BTreeSet::new();
    for (at, tool) in tools.iter().enumerate() {
        let mut capitalised = BTreeSet::new();
        let text = tool.description.as_deref().unwrap_or_default();
        // An address, a path or an identifier (`docs.google.com`,
        // `google_doc_id`) writes a name in small letters as code does:
        // only prose counts.
        for token in prose_chunks(text)
            .into_iter()
            .flat_map(|chunk| chunk.split(|c: char| !c.is_alphanumeric()))
        {
            let Some(first) = token.chars().next() else {
                continue;
            };
            let word = normalise(&token.to_lowercase());
            // A name, not an acronym: `Alpaca`, `GitHub`, not `DAG`.
            if first.is_uppercase() && token.chars().any(char::is_lowercase) {
                capitalised.insert(word);
            } else {
                written_small.insert(word);
            }
        }
        for word in capitalised {
            saying.entry(word).or_default().push(at);
        }
    }
    // A product whose own tools say it, nine in ten of them with names
    // led by it (`confluence_get_page`: Confluence), is an area of a
    // server of several, not the server.
    let leads_each = |word: &str, saying: &[usize]| {
        let led = saying
            .iter()
            .filter(|&&t| words[t].name.first().is_some_and(|first| first == word))
            .count();
        led * 10 >= saying.len() * 9
    };
    saying
        .into_iter()
        .filter(|(word, tools_saying)| {
            tools_saying.len() * 3 >= tools.len()
                && !leads_each(word, tools_saying)
                && !written_small.contains(word)
                && in_names.contains(word)
                && !is_verb(word)
                && !is_function_word(word)
        })
        .map(|(word, _)| word)
        .collect()
}

/// The words of one tool.
#[derive(Debug)]
pub(super) struct Words {
    /// The name's words, normalised, in order.
    name: Vec<String>,
    /// For each of `name`, whether the name wrote it in the plural.
    plural: Vec<bool>,
    /// The title's and then the description's, for a name with no noun.
    title: Vec<String>,
    description: Vec<String>,
    params: Vec<String>,
    /// What the first sentence lists in parentheses (`storage state
    /// (cookies, local storage)`): each item's words, normalised.
    listed: Vec<Vec<String>>,
}

impl Words {
    pub(super) fn of(tool: &ToolText) -> Words {
        let prose = |text: &Option<String>| {
            text.as_deref()
                .map(|text| {
                    split_prose(text)
                        .into_iter()
                        .map(|w| normalise(&w))
                        .collect()
                })
                .unwrap_or_default()
        };
        let raw = split(&tool.name);
        let name: Vec<String> = raw.iter().map(|w| normalise(w)).collect();
        let plural = raw
            .iter()
            .zip(&name)
            .map(|(raw, one)| raw != one && raw.ends_with('s') && !one.contains('-'))
            .collect();
        let listed = tool
            .description
            .as_deref()
            .map(|text| listed_in_parentheses(&first_sentence(text)))
            .unwrap_or_default();
        Words {
            name,
            plural,
            listed,
            title: prose(&tool.title),
            // The first sentence says what the tool does; the rest is
            // usage notes that name every subject under the sun. What it
            // says is optional is an option, not what the tool acts on.
            description: prose(
                &tool
                    .description
                    .as_deref()
                    .map(|text| without_options(&first_sentence(text))),
            ),
            params: tool
                .params
                .iter()
                .flat_map(|p| split(p))
                .map(|w| normalise(&w))
                .collect(),
        }
    }

    /// The subjects the name names, in order: verbs at its ends, function
    /// words and the server's own word set aside, compounds joined. A
    /// name with none borrows its title's, then its description's nouns.
    pub(super) fn units(
        &self,
        shared: &BTreeSet<String>,
        prose_shared: &BTreeSet<String>,
        compounds: &BTreeSet<(String, String)>,
        nouns: &BTreeSet<String>,
    ) -> (Vec<String>, Source) {
        let from_name = nouns_of_name(&self.name, shared, compounds, nouns);
        if !from_name.is_empty() {
            return (from_name, Source::Name);
        }
        for (prose, source) in [
            (&self.title, Source::Title),
            (&self.description, Source::Description),
        ] {
            let nouns = nouns_of_prose(prose, prose_shared, compounds);
            if !nouns.is_empty() {
                return (nouns, source);
            }
        }
        (Vec::new(), Source::Name)
    }

    /// Pairs of nouns the first sentence joins with `and` or `or` (`files
    /// and directories`): things of one kind.
    pub(super) fn coordinated(
        &self,
        compounds: &BTreeSet<(String, String)>,
    ) -> BTreeSet<(String, String)> {
        join_compounds(&self.description, compounds)
            .windows(3)
            .filter(|w| {
                (w[1] == "and" || w[1] == "or")
                    && [&w[0], &w[2]].iter().all(|x| is_noun(x) && !is_verb(x))
                    && w[0] != w[2]
            })
            .flat_map(|w| [(w[0].clone(), w[2].clone()), (w[2].clone(), w[0].clone())])
            .collect()
    }

    /// The subjects the first sentence lists in parentheses, each as one
    /// word (`local storage` → localstorage) and as its last.
    pub(super) fn listed(&self) -> BTreeSet<String> {
        self.listed
            .iter()
            .flat_map(|item| [item.concat(), item.last().cloned().unwrap_or_default()])
            .filter(|w| is_noun(w))
            .collect()
    }

    /// The verb the name starts with, past the server's words, unless
    /// it is a noun here (`searches`).
    pub(super) fn lead_verb(
        &self,
        shared: &BTreeSet<String>,
        nouns: &BTreeSet<String>,
    ) -> Option<String> {
        self.lead(shared)
            .filter(|w| is_verb(w) && !nouns.contains(*w))
            .map(str::to_string)
    }

    /// Whether the name starts with `word`.
    pub(super) fn starts_with(&self, word: &str) -> bool {
        self.name.first().is_some_and(|first| first == word)
    }

    /// The first word of the name that is not the server's.
    /// The name's words but those of `shared` (the server's, its
    /// tools' common prefix), in order.
    pub(super) fn own_name_words(&self, shared: &BTreeSet<String>) -> Vec<String> {
        self.name
            .iter()
            .filter(|w| !shared.contains(*w))
            .cloned()
            .collect()
    }

    pub(super) fn lead(&self, shared: &BTreeSet<String>) -> Option<&str> {
        self.name
            .iter()
            .find(|w| !shared.contains(*w))
            .map(String::as_str)
    }

    /// Where the tool's description says it works: the last noun of
    /// each phrase after `in`, `to`, `from` and the like (`Lists all
    /// migrations in the database` → database).
    pub(super) fn places(&self, compounds: &BTreeSet<(String, String)>) -> BTreeSet<String> {
        const PLACES: &[&str] = &["from", "in", "inside", "into", "on", "onto", "to", "within"];
        let words = join_compounds(&self.description, compounds);
        let mut places = BTreeSet::new();
        for (i, word) in words.iter().enumerate() {
            if !PLACES.contains(&word.as_str()) {
                continue;
            }
            let phrase = words[i + 1..]
                .iter()
                .skip_while(|w| is_function_word(w))
                .take_while(|w| is_noun(w) && !is_verb(w));
            if let Some(last) = phrase.last() {
                places.insert(last.clone());
            }
        }
        places
    }

    /// The thing the description's first clause acts on: past its first
    /// word (the verb) and the words that go before a noun (`all`, `a`,
    /// `staged`), the
    /// last noun of the first run of nouns (`Adds all files to the
    /// staging area` → file; `Shows commit history` → history), unless
    /// the server's words or the scope most of its texts name.
    pub(super) fn object(
        &self,
        shared: &BTreeSet<String>,
        compounds: &BTreeSet<(String, String)>,
    ) -> Option<String> {
        let words = join_compounds(&self.description, compounds);
        // A name of a verb only is described in the imperative or the
        // third person (`Rebase ...`, `Initializes ...`): its first word is
        // that verb, whether or not it is one of the verbs we know.
        let run: Vec<&String> = words
            .iter()
            .skip(1)
            .skip_while(|w| is_function_word(w) || is_participle(w))
            .take_while(|w| is_noun(w) && !is_verb(w) && !is_participle(w))
            .collect();
        run.last()
            .filter(|w| !shared.contains(w.as_str()))
            .map(|w| w.to_string())
    }

    /// Every word of the tool's name, title and first sentence that can
    /// say what it works on: the name's verbs too (`merge`, `rebase`),
    /// but no verb any subject takes, no participle and none of the
    /// server's words; the name's count twice, the title's and
    /// description's once. Parameters are left out: their options
    /// (`force`, `limit`) outnumber the subjects they name.
    pub(super) fn content(&self, server: &BTreeSet<String>) -> BTreeMap<String, f64> {
        // `mcp` names the protocol every server speaks, never an area.
        let telling = |w: &&String| {
            is_noun(w)
                && !is_general_verb(w)
                && !is_participle(w)
                && !server.contains(*w)
                && *w != "mcp"
        };
        let mut content: BTreeMap<String, f64> = BTreeMap::new();
        // Prose puts verbs anywhere (`Manage branches`, `Switch branches`).
        for word in [&self.title, &self.description]
            .into_iter()
            .flatten()
            .filter(telling)
            .filter(|w| !is_verb(w))
        {
            content.insert(word.clone(), 1.0);
        }
        // A name's verb tells an area only where the name has nothing
        // else to say (`git_rebase`); beside a thing it is what is done to
        // that thing (`close_tab` is about tabs, as `new_tab` is).
        let name: Vec<&String> = self.name.iter().filter(telling).collect();
        let says_a_thing = name.iter().any(|w| !is_verb(w));
        for word in name {
            let weight = if says_a_thing && is_verb(word) {
                1.0
            } else {
                2.0
            };
            content.insert(word.clone(), weight);
        }
        content
    }

    /// Every subject the tool's texts name (name, title, description,
    /// parameters), for telling which group a tool belongs near.
    pub(super) fn text_units(&self, compounds: &BTreeSet<(String, String)>) -> BTreeSet<String> {
        [&self.name, &self.title, &self.description, &self.params]
            .into_iter()
            .flat_map(|words| join_compounds(words, compounds))
            .filter(|w| is_noun(w) && !is_verb(w))
            .collect()
    }
}

/// The items of each parenthesis in `sentence`, split at commas, `and`
/// and `or`: a list of the kinds or parts of what stands before it.
fn listed_in_parentheses(sentence: &str) -> Vec<Vec<String>> {
    let mut items = Vec::new();
    let mut rest = sentence;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        for part in inner.split(',') {
            let words: Vec<String> = split(part).iter().map(|w| normalise(w)).collect();
            for item in words.split(|w| w == "and" || w == "or") {
                if !item.is_empty() && item.len() <= 3 {
                    items.push(item.to_vec());
                }
            }
        }
        rest = &rest[open + close..];
    }
    items
}

/// Words that start most of the server's tool names (`browser_`,
/// `kubectl_`): the server's own name, not a subject.
pub(super) fn name_words(words: &[Words]) -> BTreeSet<String> {
    most(words, |tool| tool.name.first().into_iter().collect())
}

/// Words nearly every tool's name says past a word that varies
/// (`services` of `netlify-deploy-services-reader`,
/// `netlify-team-services-reader`): the scope of the whole server, as its
/// key is, not one area of it. A word of the prefix most names share
/// (`data` of `web_data_`) is left to the steps that read prefixes.
pub(super) fn said_by_nearly_every_name(words: &[Words]) -> BTreeSet<String> {
    if words.len() < 4 {
        return BTreeSet::new();
    }
    let leads = name_words(words);
    let mut count: BTreeMap<&String, usize> = BTreeMap::new();
    for tool in words {
        // Past the name's run of shared leading words.
        let prefix = tool
            .name
            .iter()
            .take_while(|w| leads.contains(*w))
            .count()
            .max(usize::from(!tool.name.is_empty()));
        let after: BTreeSet<&String> = tool.name.iter().skip(prefix + 1).collect();
        for word in after {
            *count.entry(word).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(word, n)| *n * 4 >= words.len() * 3 && !is_verb(word) && !is_function_word(word))
        .map(|(word, _)| word.clone())
        .collect()
}

/// The word most of the server's tool names start with, when it names
/// a thing the tools act on (`browser_`), not the server (`hubspot-`).
pub(super) fn namespace(words: &[Words], server: &BTreeSet<String>) -> Option<String> {
    name_words(words)
        .into_iter()
        .find(|word| is_noun(word) && !server.contains(word))
}

/// Words that stand in most of the server's descriptions (`Kubernetes`,
/// `GitHub`): not a subject when a name borrows its description's nouns.
pub(super) fn prose_words(words: &[Words]) -> BTreeSet<String> {
    most(words, |tool| tool.description.iter().collect())
}

/// The words, not verbs, that `pick` finds in more than half the tools.
pub(super) fn most(
    words: &[Words],
    pick: impl Fn(&Words) -> BTreeSet<&String>,
) -> BTreeSet<String> {
    let mut count: BTreeMap<&String, usize> = BTreeMap::new();
    for tool in words {
        for word in pick(tool) {
            *count.entry(word).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(word, n)| *n * 2 > words.len() && !is_verb(word))
        .map(|(word, _)| word.clone())
        .collect()
}

/// Verbs some tool name writes in the plural (`list_searches`): nouns
/// in this server's names, so `start_search` is about a search; but
/// not as a name's first word with more after it (`search_files`).
pub(super) fn plural_verbs(words: &[Words]) -> BTreeSet<String> {
    words
        .iter()
        .flat_map(|tool| tool.name.iter().zip(&tool.plural))
        .filter(|(word, plural)| **plural && is_verb(word))
        .map(|(word, _)| word.clone())
        .collect()
}

/// Pairs of words in tool names of which the first is a noun that never
/// stands without the second (`pull request`, `helm chart`, `port
/// forward`), twice or more: one subject each.
pub(super) fn compounds(words: &[Words], shared: &BTreeSet<String>) -> BTreeSet<(String, String)> {
    let mut pairs: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
    for tool in words {
        for (i, word) in tool.name.iter().enumerate() {
            if !is_noun(word) || is_verb(word) || shared.contains(word) {
                continue;
            }
            *uses.entry(word).or_default() += 1;
            if let Some(next) = tool.name.get(i + 1)
                && is_noun(next)
                && !shared.contains(next)
            {
                *pairs.entry((word, next)).or_default() += 1;
            }
        }
    }
    pairs
        .into_iter()
        .filter(|((first, _), n)| *n >= 2 && uses[first] == *n)
        .map(|((first, second), _)| (first.to_string(), second.to_string()))
        .collect()
}

/// `words` with each compound pair made one word (`pull-request`).
pub(super) fn join_compounds(
    words: &[String],
    compounds: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let mut joined = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        if let Some(next) = words.get(i + 1)
            && compounds.contains(&(words[i].clone(), next.clone()))
        {
            joined.push(format!("{}-{next}", words[i]));
            i += 2;
        } else {
            joined.push(words[i].clone());
            i += 1;
        }
    }
    joined
}

/// The subjects a name names: its words with compounds joined, without
/// the verbs at its start and end, function words and server words.
pub(super) fn nouns_of_name(
    name: &[String],
    shared: &BTreeSet<String>,
    compounds: &BTreeSet<(String, String)>,
    nouns: &BTreeSet<String>,
) -> Vec<String> {
    let words: Vec<String> = join_compounds(name, compounds)
        .into_iter()
        .filter(|w| !shared.contains(w))
        .collect();
    let aside = |w: &String| (is_verb(w) && !nouns.contains(w)) || is_function_word(w);
    let mut start = 0;
    let mut end = words.len();
    // `create_or_update_file`: every verb and joining word at the start.
    // A name's first word is a verb when one can be and more words
    // follow, even where the server writes it in the plural elsewhere:
    // `update_issue` beside `get_recent_updates` is about an issue.
    while start < end && (aside(&words[start]) || (start == 0 && end > 1 && is_verb(&words[0]))) {
        start += 1;
    }
    while end > start && aside(&words[end - 1]) {
        end -= 1;
    }
    words[start..end]
        .iter()
        .filter(|w| is_noun(w))
        .cloned()
        .collect()
}

/// The subjects of a title or a sentence: its nouns, verbs anywhere set
/// aside (prose puts them in the middle too), and participles (`the
/// provided element`).
pub(super) fn nouns_of_prose(
    prose: &[String],
    shared: &BTreeSet<String>,
    compounds: &BTreeSet<(String, String)>,
) -> Vec<String> {
    join_compounds(prose, compounds)
        .into_iter()
        .filter(|w| is_noun(w) && !is_verb(w) && !is_participle(w) && !shared.contains(w))
        .collect()
}

/// The subjects some tool name writes in the plural (`list_issues`,
/// `browser_tabs`, `list_pull_requests`): their groups are named in the
/// plural; others (`performance`, `network`) stay as they are.
pub(super) fn plural_units(
    words: &[Words],
    compounds: &BTreeSet<(String, String)>,
) -> BTreeSet<String> {
    let mut plural = BTreeSet::new();
    for tool in words {
        for (i, word) in tool.name.iter().enumerate() {
            if !tool.plural[i] {
                continue;
            }
            match i.checked_sub(1).map(|before| &tool.name[before]) {
                Some(before) if compounds.contains(&(before.clone(), word.clone())) => {
                    plural.insert(format!("{before}-{word}"));
                }
                _ => {
                    plural.insert(word.clone());
                }
            }
        }
    }
    plural
}

/// A group's name: its subject, in the plural where tool names use one.
pub(super) fn group_name(subject: &str, plural: &BTreeSet<String>) -> String {
    if !plural.contains(subject) {
        return subject.to_string();
    }
    let (stem, last) = match subject.rsplit_once('-') {
        Some((stem, last)) => (format!("{stem}-"), last),
        None => (String::new(), subject),
    };
    let many = if let Some(base) = last.strip_suffix('y')
        && !base.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{base}ies")
    } else if last.ends_with(['s', 'x', 'z']) || last.ends_with("ch") || last.ends_with("sh") {
        format!("{last}es")
    } else {
        format!("{last}s")
    };
    format!("{stem}{many}")
}
