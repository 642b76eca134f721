//! Derived groups: for a server that sends no categories of its own, the
//! subject each tool acts on (DESIGN §3): GitHub's `list_issues`,
//! `get_issue` and `add_issue_comment` → `issues`, `merge_pull_request` →
//! `pull-requests`, chrome-devtools' `performance_start_trace` →
//! `performance`.
//!
//! The method uses general knowledge of English and of how tool names are
//! written, never lists for particular servers:
//!
//! 1. A name is cut into words (`snake_case`, `kebab-case`, `camelCase`),
//!    and the verbs at either end (`get_`, `_list`), function words and
//!    modifiers (`by`, `all`, `latest`, `multiple`) are set aside. What is
//!    left are nouns, singular and with common abbreviations spelled out
//!    (`prs` → `pull-request`, `repo` → `repository`). A word that most
//!    tools start with (`browser_`, `kubectl_`), or a word of the
//!    server's own key (`sentry`), names the server, not a subject, and
//!    is set aside.
//!    Where the name leaves no noun, its title and then its description
//!    speak for it (their nouns; a participle such as `the provided
//!    element` describes a thing and names none). What a first sentence
//!    says is optional (`with an optional expiration time`) is an option
//!    many tools take, not what this one acts on, and is left out.
//! 2. Two nouns that always stand together (`pull request`, `helm chart`)
//!    are one subject.
//! 3. Each tool's subject is the noun among its own that heads most tool
//!    names of the server (`add_issue_comment` is about issues, because
//!    many names start with an issue and few with a comment), but the
//!    first noun of a name wins when it heads four names or more itself,
//!    an area of its own (`percyVisualTestIntegrationAgent` is about
//!    Percy, though more names start with a test).
//!    A verb the server writes in the plural (`list_searches`) is a noun
//!    in its names, so `start_search` is about a search, except as a
//!    name's first word with more after it (`update_issue` beside
//!    `get_recent_updates`). A first subject that, after the verb, names
//!    put before several subjects that head names of their own says
//!    where, not what (`list_repository_pull_requests`,
//!    `list_repository_tools`): those tools take the next subject.
//!    A subject that heads more than a third of the names (and more than
//!    fifteen) is too broad to be one area when, after it, the names say
//!    a source and a thing and the same things come from several sources
//!    (`web_data_amazon_product`, `web_data_walmart_product`): the tools
//!    part by thing; things two sources or more both offer (posts and
//!    comments of instagram and tiktok) are one area; a tool whose thing
//!    is its own goes where its source's other tools went
//!    (`split.rs`).
//! 4. Tools that start with one specific verb (`verify_`, not `get_`),
//!    three at least, whose subjects no other verb's names share, are an
//!    area of that activity.
//!    Where most names start with a word that names a thing, not the
//!    server (`browser_`), the tools whose names say no more than that
//!    and a verb (`browser_click`), or a subject no other name shares
//!    (`browser_press_key`), act on that thing itself: when they are a
//!    quarter of the tools or more, they are its group (`browser`); over
//!    three quarters, the word is the server's own name, whatever its key
//!    in the user's config (`docker-images`, `docker-logs`). First, as
//!    such a name says the verb only, what it acts on is read from its
//!    description: past the first word (the verb), the last noun of the
//!    first run of nouns (`Adds all files to the staging area` → file);
//!    three such tools that act on one thing, or one that acts on a thing
//!    a group is named after, are that thing's group, unless most of the
//!    namespace's tools speak of it (`Kubernetes resources`: where they
//!    all work). Where the word is the server's own (`playwright_click`
//!    under the key `playwright`, or such tools are over three quarters
//!    of all), the tools part the same way, and the
//!    rest, when still a quarter to three quarters of the tools, take the
//!    thing most of their texts name (`browser`), never the server's word.
//! 5. Small groups join the group whose subject their tools' texts keep
//!    naming (branches, commits and releases are "in a repository"; a
//!    larger group only when all its tools do, and not when they name
//!    the server's scope as often); a group a larger one's description
//!    lists in parentheses (`storage state (cookies, local storage)`)
//!    or joins by `and`/`or` twice or more (`files and directories`)
//!    joins it; groups, of any size, whose descriptions place them in
//!    one thing no group is named after (`in the database`) join under
//!    it;
//!    subjects written as one word that end alike (`localstorage`,
//!    `sessionstorage`) join under their last word; a tool left alone
//!    whose description names another tool of the server (`Use
//!    firecrawl_scrape instead`) joins that tool's group; a tool left
//!    alone still joins the group whose words its text shares most (and enough of
//!    them join for nine in ten tools to have a group), but two or more
//!    near no group that do not even name the scope the server's tools
//!    work in are a group of their own, `other`, as are two or more
//!    beside a single group (joined to it, the server would have one); past
//!    [`max_groups`] (fifteen, or a quarter of the tools) the smallest
//!    join their nearest.
//!
//! Where the names say too little for any of this (more than half the
//! tools have a subject, from name or prose, that no other tool has:
//! `git_stash`, `git_rebase`, `git_worktree`), the tools are grouped by
//! the words of their names, titles and descriptions' first sentences
//! instead (`cluster.rs`): each word weighted by
//! how few tools use it, words most tools use set aside as the scope,
//! the most alike tools joined first until no two groups are alike
//! enough, then loners into the nearest group until nine in ten tools
//! have one. A group is named by its most telling word, a thing before
//! a verb (`remote`, `branch`).
//!
//! Each tool says why it is in its group ([`Derived::why`]), in a
//! sentence made from the step that put it there.
//!
//! The result is a pure function of the set of tools: the same for any
//! order of the list, in every process, and no group has one member.

mod cluster;
mod english;
mod groups;
mod split;
mod words;

use english::is_noun;
use groups::{Groups, How, Reason, Weights, scope_words, small_size};
use std::collections::{BTreeMap, BTreeSet};
use words::{
    Source, Words, compounds, group_name, name_words, named_by_its_tools, namespace, plural_units,
    plural_verbs, prose_words, said_by_every_tool, said_by_nearly_every_name, server_words,
};

/// What derivation reads of one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolText {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The names of its input schema's properties.
    pub params: Vec<String>,
}

impl ToolText {
    /// The text of a tool definition as the server lists it.
    pub fn of(definition: &serde_json::Value) -> ToolText {
        let text = |value: Option<&serde_json::Value>| {
            value
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        ToolText {
            name: text(definition.get("name")).unwrap_or_default(),
            title: text(definition.get("title"))
                .or_else(|| text(definition.pointer("/annotations/title"))),
            // What a tool is about, it says first (`wording::opening`).
            description: text(definition.get("description"))
                .map(|d| crate::wording::opening(&d).to_string()),
            params: definition
                .pointer("/inputSchema/properties")
                .and_then(serde_json::Value::as_object)
                .map(|properties| properties.keys().cloned().collect())
                .unwrap_or_default(),
        }
    }
}

/// A tool's derived group, and why it is in it, in a sentence a person
/// reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    pub group: String,
    pub why: String,
}

/// The most groups derivation makes for a server of up to sixty tools;
/// a larger one gets up to a quarter of its tool count ([`max_groups`]).
pub const MAX_GROUPS: usize = 15;

/// The most groups derivation makes for a server of `tools` tools: a
/// server with many areas gets its areas, not a cap that lumps them.
pub fn max_groups(tools: usize) -> usize {
    MAX_GROUPS.max(tools / 4)
}

/// The derived group of each tool, index for index: a lowercase name of
/// words joined by `-` (`issues`, `pull-requests`), or `None` for a server
/// of fewer than four tools (its server group says it all).
pub fn derive(tools: &[ToolText]) -> Vec<Option<String>> {
    derive_for("", tools)
        .into_iter()
        .map(|derived| derived.map(|d| d.group))
        .collect()
}

/// As [`derive`], with why each tool is in its group, for the server
/// whose key in the user's config is `server` (`sentry`, `azure`): no
/// group is named after it.
pub fn derive_for(server: &str, tools: &[ToolText]) -> Vec<Option<Derived>> {
    if tools.len() < 4 {
        return vec![None; tools.len()];
    }
    // Work on the tools sorted by name, so the result does not depend on
    // the order the server listed them in.
    let mut order: Vec<usize> = (0..tools.len()).collect();
    order.sort_by(|&a, &b| tools[a].cmp_key().cmp(&tools[b].cmp_key()).then(a.cmp(&b)));
    let sorted: Vec<&ToolText> = order.iter().map(|&i| &tools[i]).collect();
    let words: Vec<Words> = sorted.iter().map(|tool| Words::of(tool)).collect();
    let mut server = server_words(server);
    server.extend(said_by_every_tool(&sorted, &words));
    server.extend(named_by_its_tools(&sorted, &words));
    let mut shared = name_words(&words);
    shared.extend(said_by_nearly_every_name(&words));
    shared.extend(server.iter().cloned());
    let mut prose_shared = prose_words(&words);
    prose_shared.extend(shared.iter().cloned());
    let compounds = compounds(&words, &shared);
    let nouns = plural_verbs(&words);
    let (units, sources): (Vec<Vec<String>>, Vec<Source>) = words
        .iter()
        .map(|w| w.units(&shared, &prose_shared, &compounds, &nouns))
        .unzip();
    let plural = plural_units(&words, &compounds);
    let leads: Vec<Option<String>> = words.iter().map(|w| w.lead_verb(&shared, &nouns)).collect();
    let verb_led: Vec<bool> = leads.iter().map(Option::is_some).collect();
    let mut groups = Groups::first(&units, &sources, &verb_led);
    split::split_crossed(&mut groups, &units, &nouns);
    split::split_families(&mut groups, &units, &verb_led);
    let subjects: Vec<Option<String>> = (0..words.len())
        .map(|t| groups.of(t).map(|(subject, _)| subject.to_string()))
        .collect();
    if cluster::names_say_little(&subjects) {
        let content: Vec<_> = words.iter().map(|w| w.content(&shared)).collect();
        let names: Vec<_> = words.iter().map(|w| w.own_name_words(&shared)).collect();
        if let Some(placed) = cluster::by_words(&content, &names, max_groups(tools.len())) {
            return by_words(&order, placed);
        }
    }
    let texts: Vec<BTreeSet<String>> = words
        .iter()
        .map(|w| {
            let mut text = w.text_units(&compounds);
            text.retain(|word| !server.contains(word));
            text
        })
        .collect();
    let scope = scope_words(&texts);
    groups.join_activities(&leads);
    groups.join_kinds();
    let own = name_words(&words)
        .into_iter()
        .find(|word| is_noun(word) && server.contains(word));
    if let Some((namespace, own)) = namespace(&words, &server)
        .map(|n| (n, false))
        .or(own.map(|n| (n, true)))
    {
        let within: Vec<bool> = words.iter().map(|w| w.starts_with(&namespace)).collect();
        let objects: Vec<Option<String>> = words
            .iter()
            .map(|w| w.object(&prose_shared, &compounds))
            .collect();
        groups.join_namespace(&namespace, &within, &objects, &texts, own);
    }
    let listed: Vec<BTreeSet<String>> = words.iter().map(Words::listed).collect();
    groups.join_listed(&listed);
    let pairs: Vec<BTreeSet<(String, String)>> =
        words.iter().map(|w| w.coordinated(&compounds)).collect();
    groups.join_coordinated(&pairs, small_size(tools.len()));
    // A place the texts set aside (the server's own name) is no area.
    let places: Vec<BTreeSet<String>> = words
        .iter()
        .zip(&texts)
        .map(|(w, text)| w.places(&compounds).intersection(text).cloned().collect())
        .collect();
    groups.join_containers(&texts, &places, &scope);
    // How much each shared word says, for both steps that judge nearness.
    let weights = Weights::of(&texts);
    let pointed = names_other_tools(&sorted);
    groups.join_pointed(&pointed);
    groups.join_loners(&texts, &weights, &scope);
    groups.cap(&texts, &weights, max_groups(tools.len()));
    let sizes = groups.sizes();
    // One group of every tool is the server itself (`server:NAME`
    // switches that), under a name that tells nothing apart: the AWS
    // documentation server's five tools were all `documentation`.
    if sizes.len() == 1 && sizes.values().all(|&size| size == tools.len()) {
        return vec![None; tools.len()];
    }
    let mut derived = vec![None; tools.len()];
    for (position, &index) in order.iter().enumerate() {
        derived[index] = groups.of(position).map(|(subject, reason)| {
            let group = group_name(subject, &plural);
            let lead = words[position].lead(&shared);
            let why = explain(lead, subject, &group, reason, sizes[subject]);
            Derived { group, why }
        });
    }
    derived
}

/// For each tool, the tools of the server (index, name) whose names its
/// description writes out, whole, the first written first (`Use
/// firecrawl_scrape instead`): names of two words or more, so a plain
/// word (`find`, `set`) names no tool.
fn names_other_tools(tools: &[&ToolText]) -> Vec<Vec<(usize, String)>> {
    let by_name: BTreeMap<&str, usize> = tools
        .iter()
        .enumerate()
        .filter(|(_, tool)| english::split(&tool.name).len() >= 2)
        .map(|(i, tool)| (tool.name.as_str(), i))
        .collect();
    let in_name = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    tools
        .iter()
        .enumerate()
        .map(|(at, tool)| {
            let mut named: Vec<(usize, String)> = Vec::new();
            for token in tool
                .description
                .as_deref()
                .unwrap_or_default()
                .split(|c: char| !in_name(c))
            {
                if let Some(&other) = by_name.get(token)
                    && other != at
                    && !named.iter().any(|(seen, _)| *seen == other)
                {
                    named.push((other, token.to_string()));
                }
            }
            named
        })
        .collect()
}

/// Each tool's group as [`cluster::by_words`] placed it (in name
/// order), back in the server's order, with why.
fn by_words(order: &[usize], placed: Vec<Option<cluster::Placed>>) -> Vec<Option<Derived>> {
    let mut sizes: std::collections::BTreeMap<String, usize> = Default::default();
    for place in placed.iter().flatten() {
        *sizes.entry(place.group.clone()).or_default() += 1;
    }
    let mut derived = vec![None; order.len()];
    for (place, &index) in placed.into_iter().zip(order) {
        derived[index] = place.map(|place| {
            let group = place.group.replace('-', " ");
            let others = sizes[&place.group] - 1;
            let why = if place.apart {
                format!(
                    "most names here say a subject no other name shares, so tools are grouped by their texts: its texts share no word with any group's, and it is with the {group} tools only so that nine in ten tools have a group"
                )
            } else if place.nearest || place.alike == 0 {
                format!(
                    "most names here say a subject no other name shares, so tools are grouped by their texts: its texts share the most words with those of the {group} tools"
                )
            } else {
                let as_do = match (place.alike, others) {
                    (1, 1) => format!("as does the other {group} tool"),
                    (k, n) if k == n => format!("as do all {n} other {group} tools"),
                    (1, n) => format!("as does one of the {n} other {group} tools"),
                    (k, n) => format!("as do {k} of the {n} other {group} tools"),
                };
                format!(
                    "most names here say a subject no other name shares, so tools are grouped by their texts: its texts speak of {}, {as_do}",
                    spoken_list(&place.shared),
                )
            };
            let why = if place.by_name {
                format!("{why}; the group is named by the word its tools' names share and no other's: {group}")
            } else {
                why
            };
            Derived {
                group: place.group,
                why,
            }
        });
    }
    derived
}

impl ToolText {
    /// What orders the tools before derivation: all of a tool's text, so
    /// two tools of one name still sort the same in every list order.
    fn cmp_key(&self) -> (&str, &Option<String>, &Option<String>, &Vec<String>) {
        (&self.name, &self.title, &self.description, &self.params)
    }
}

/// `a, b and c`.
fn spoken_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// One short sentence on why a tool is in `group`, of `size` tools.
fn explain(lead: Option<&str>, subject: &str, group: &str, reason: &Reason, size: usize) -> String {
    // "as are 3 others", "as is one other"; "as do 3 others", "as does one other".
    let (others, are, does) = match size - 1 {
        1 => ("one other".to_string(), "is", "does"),
        n => (format!("{n} others"), "are", "do"),
    };
    let spoken = |subject: &str| subject.replace('-', " ");
    match reason {
        Reason::Subject(Source::Name)
            if lead.is_some_and(|lead| {
                subject == lead || subject.starts_with(&format!("{lead}-"))
            }) =>
        {
            format!(
                "its name starts with `{}`, as {does} {others}",
                lead.unwrap_or_default()
            )
        }
        Reason::Subject(Source::Name) => {
            format!("its name is about {}, as {are} {others}", spoken(subject))
        }
        Reason::Subject(Source::Title) => {
            format!("its title is about {}, as {are} {others}", spoken(subject))
        }
        Reason::Subject(Source::Description) => {
            format!(
                "its description is about {}, as {are} {others}",
                spoken(subject)
            )
        }
        Reason::Qualified(place) => format!(
            "its name is about {} of {} {}, as {are} {others}: names say `{place}` before several subjects of their own",
            spoken(subject),
            if place.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            },
            spoken(place)
        ),
        Reason::Family(head) => format!(
            "its name says {}, as {does} {others}: names about {} say several such things, each an area of its own",
            spoken(subject),
            spoken(head)
        ),
        Reason::Kind(kind) => format!(
            "its name is about {}, a kind of {}",
            spoken(kind),
            spoken(subject)
        ),
        Reason::Container(part) => format!(
            "its name is about {}, and the texts of such tools speak of {}",
            spoken(part),
            spoken(subject)
        ),
        Reason::Activity(own) if own.is_empty() => {
            format!("its name starts with `{group}`, as {does} {others}")
        }
        Reason::Activity(own) => format!(
            "its name starts with `{group}`, as {does} {others}, and only they are about {}",
            spoken(own)
        ),
        Reason::Part(part) => format!(
            "its name is about {}, which texts name with {} as things of a kind",
            spoken(part),
            spoken(subject)
        ),
        Reason::Namespace(own) if own.is_empty() => format!(
            "its name says `{subject}` and a verb only: it works on {} itself, as {does} {others}",
            spoken(subject)
        ),
        Reason::Namespace(own) => format!(
            "its name says `{subject}` and {}, a subject no other name has: it works on {} itself, as {does} {others}",
            spoken(own),
            spoken(subject)
        ),
        Reason::Acts(namespace) => format!(
            "its name says `{namespace}` and a verb only, and its description acts on {}, as {does} {others}",
            spoken(subject)
        ),
        Reason::Rest(own) => format!(
            "{}joining the server's one group would leave it no other, so it is among the server's other tools, as {are} {others}",
            if own.is_empty() {
                String::new()
            } else {
                format!("its name is about {}, and ", spoken(own))
            }
        ),
        Reason::Driven(word) => format!(
            "its name says `{word}`, the server's own word, and a verb only: it works on the {} most such tools' texts name, as {does} {others}",
            spoken(subject)
        ),
        Reason::Near => format!("its texts share most words with the {group} tools"),
        Reason::Pointed(tool) => {
            format!("it was alone, and its description names `{tool}`, one of the {group} tools")
        }
        Reason::Apart(own) if own.is_empty() => {
            format!("its texts share too few words with any group's, as {does} {others}")
        }
        Reason::Apart(own) => format!(
            "its name is about {}, and its texts share too few words with any group's, as {does} {others}",
            spoken(own)
        ),
        Reason::Crossed(crossing) => {
            let thing = spoken(&crossing.thing);
            let said = match crossing.source.as_str() {
                "" => format!("its name says {thing} {}", crossing.head),
                source => format!(
                    "its name says {thing} {} from {}",
                    crossing.head,
                    spoken(source)
                ),
            };
            match &crossing.how {
                How::Thing { tools, sources } => format!(
                    "{said}, as {} from {sources} sources: `{}` alone names too many tools to be one area",
                    match tools - 1 {
                        1 => "does one other".to_string(),
                        n => format!("do {n} others"),
                    },
                    crossing.head
                ),
                How::Shared(with, shared) => format!(
                    "{said}, and {} offer both {thing} and {}: one area",
                    spoken_list(shared),
                    spoken(with)
                ),
                How::Source => format!(
                    "{said}, and the other tools of {} are in {group}",
                    spoken(&crossing.source)
                ),
            }
        }
        Reason::Capped(first) => format!(
            "its name is about {}, a small area nearest to {group}",
            spoken(first)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::english::{FUNCTION_WORDS, VERBS, normalise, split};
    use super::*;
    use std::collections::BTreeMap;

    /// A tool with only a name and a description.
    fn described(name: &str, description: &str) -> ToolText {
        ToolText {
            name: name.to_string(),
            description: Some(description.to_string()),
            ..ToolText::default()
        }
    }

    fn tools(names: &[&str]) -> Vec<ToolText> {
        names
            .iter()
            .map(|name| ToolText {
                name: name.to_string(),
                ..ToolText::default()
            })
            .collect()
    }

    fn groups(names: &[&str]) -> BTreeMap<String, Option<String>> {
        let texts = tools(names);
        texts
            .iter()
            .map(|t| t.name.clone())
            .zip(derive(&texts))
            .collect()
    }

    #[test]
    fn names_are_cut_into_words() {
        assert_eq!(split("list_pull_requests"), ["list", "pull", "requests"]);
        assert_eq!(split("get-tiny-image"), ["get", "tiny", "image"]);
        assert_eq!(split("browserTabsList"), ["browser", "tabs", "list"]);
        assert_eq!(
            split("Fetch a Notion page."),
            ["fetch", "a", "notion", "page"]
        );
    }

    #[test]
    fn prose_keeps_a_mixed_case_word_whole() {
        assert_eq!(
            super::english::split_prose("Simplify a LineString, as GeoJSON."),
            ["simplify", "a", "linestring", "as", "geojson"]
        );
        assert!(super::english::is_function_word("between"));
    }

    #[test]
    fn nouns_become_singular_and_abbreviations_spelled_out() {
        for (word, one) in [
            ("issues", "issue"),
            ("repositories", "repository"),
            ("branches", "branch"),
            ("status", "status"),
            ("analysis", "analysis"),
            ("repos", "repository"),
            ("prs", "pull-request"),
            ("dirs", "directory"),
        ] {
            assert_eq!(normalise(word), one, "{word}");
        }
    }

    #[test]
    fn every_word_list_is_sorted_for_its_binary_search() {
        assert!(VERBS.windows(2).all(|w| w[0] < w[1]), "VERBS");
        assert!(
            FUNCTION_WORDS.windows(2).all(|w| w[0] < w[1]),
            "FUNCTION_WORDS"
        );
    }

    #[test]
    fn families_of_things_a_large_group_s_names_say_are_groups_of_their_own() {
        let names = [
            "get_dag",
            "list_dags",
            "patch_dag",
            "delete_dag",
            "get_dag_run",
            "list_dag_runs",
            "delete_dag_run",
            "clear_dag_run",
            "get_dag_task",
            "list_dag_tasks",
            "patch_dag_task",
            "get_pool",
            "list_pools",
            "create_pool",
            "delete_pool",
        ];
        let found = groups(&names);
        let of = |name: &str| found[name].clone().unwrap_or_default();
        assert_eq!(of("get_dag"), of("patch_dag"));
        assert_eq!(of("get_dag_run"), of("clear_dag_run"));
        assert_eq!(of("get_dag_task"), of("patch_dag_task"));
        assert_ne!(of("get_dag"), of("get_dag_run"), "{found:?}");
        assert_ne!(of("get_dag"), of("get_dag_task"), "{found:?}");
        assert_ne!(of("get_dag_run"), of("get_dag_task"), "{found:?}");
        // One family beside the head's own tools stays with them.
        let one_family: Vec<&str> = names
            .into_iter()
            .filter(|name| {
                !name.contains("task") && *name != "clear_dag_run" && *name != "delete_pool"
            })
            .collect();
        let found = groups(&one_family);
        assert_eq!(found["get_dag"], found["get_dag_run"], "{found:?}");
    }

    #[test]
    fn tools_group_by_the_subject_they_act_on() {
        let found = groups(&[
            "list_issues",
            "get_issue",
            "add_issue_comment",
            "create_pull_request",
            "merge_pull_request",
            "list_pull_requests",
            "get_file_contents",
            "delete_file",
        ]);
        assert_eq!(found["add_issue_comment"].as_deref(), Some("issues"));
        assert_eq!(found["get_issue"].as_deref(), Some("issues"));
        assert_eq!(
            found["merge_pull_request"].as_deref(),
            Some("pull-requests")
        );
        assert_eq!(found["delete_file"].as_deref(), Some("file"));
    }

    #[test]
    fn a_word_every_name_starts_with_is_the_server_s_not_a_subject() {
        let found = groups(&[
            "browser_tabs",
            "browser_close_tab",
            "browser_network_requests",
            "browser_network_request",
            "browser_navigate",
            "browser_navigate_back",
        ]);
        assert_eq!(found["browser_close_tab"].as_deref(), Some("tabs"));
        assert_eq!(
            found["browser_network_requests"].as_deref(),
            Some("network-requests"),
            "two words that always stand together are one subject"
        );
    }

    #[test]
    fn a_tool_alone_joins_the_group_nearest_it_and_no_group_has_one_member() {
        let mut texts = tools(&[
            "create_entities",
            "delete_entities",
            "read_graph",
            "search_nodes",
            "open_nodes",
        ]);
        texts[2].description = Some("Read the entire knowledge graph of entities".into());
        let derived = derive(&texts);
        assert_eq!(derived[2].as_deref(), Some("entities"));
        let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
        for group in derived.iter().flatten() {
            *sizes.entry(group).or_default() += 1;
        }
        assert!(sizes.values().all(|&n| n >= 2), "{sizes:?}");
    }

    #[test]
    fn a_specific_verb_no_other_subject_shares_is_an_area() {
        let found = groups(&[
            "verify_value",
            "verify_list_visible",
            "verify_element_visible",
            "get_cookie",
            "list_cookies",
            "set_cookie",
        ]);
        assert_eq!(found["verify_value"].as_deref(), Some("verify"));
        assert_eq!(found["verify_list_visible"].as_deref(), Some("verify"));
        assert_eq!(found["set_cookie"].as_deref(), Some("cookies"));
    }

    #[test]
    fn things_texts_name_as_of_a_kind_share_a_group() {
        let mut texts = tools(&[
            "read_file",
            "write_file",
            "move_file",
            "get_file_info",
            "create_directory",
            "list_directory",
            "start_search",
            "list_searches",
            "stop_search",
        ]);
        texts[2].description = Some("Move or rename files and directories.".into());
        texts[3].description = Some("Metadata about a file or directory.".into());
        let derived = derive(&texts);
        assert_eq!(derived[4].as_deref(), Some("file"), "{derived:?}");
        assert_eq!(
            derived[6].as_deref(),
            Some("searches"),
            "a verb written in the plural is a noun: {derived:?}"
        );
    }

    #[test]
    fn tools_whose_names_say_only_the_namespace_and_a_verb_act_on_that_thing() {
        let found = derive_for(
            "playwright",
            &tools(&[
                "browser_click",
                "browser_hover",
                "browser_type",
                "browser_press_key",
                "browser_cookie_get",
                "browser_cookie_set",
                "browser_cookie_list",
                "browser_mouse_down",
                "browser_mouse_up",
            ]),
        );
        let group = |i: usize| found[i].as_ref().map(|d| d.group.as_str());
        for i in 0..4 {
            assert_eq!(group(i), Some("browser"), "{found:?}");
        }
        assert_eq!(group(4), Some("cookie"), "{found:?}");
        assert_eq!(group(7), Some("mouse"), "{found:?}");
        let why = &found[3].as_ref().unwrap().why;
        assert!(why.contains("key, a subject no other name has"), "{why}");
        // The server's own name is no namespace: `hubspot-` tools keep
        // their subjects and no group is named after it.
        let own = derive_for(
            "browser",
            &tools(&[
                "browser_click",
                "browser_hover",
                "browser_type",
                "browser_press_key",
                "browser_cookie_get",
                "browser_cookie_set",
            ]),
        );
        assert!(
            own.iter().flatten().all(|d| d.group != "browser"),
            "{own:?}"
        );
    }

    #[test]
    fn a_name_of_a_verb_only_is_about_what_its_description_acts_on() {
        let texts = vec![
            described("vcs_add", "Adds all files to the staging area"),
            described(
                "vcs_remove",
                "Removes a specific file from the staging area",
            ),
            described("vcs_commit", "Commits staged files"),
            described(
                "vcs_checkout",
                "Switches to a branch or creates a new branch",
            ),
            described("vcs_merge", "Merge a branch into the current branch"),
            described("vcs_rebase", "Rebase current branch onto another branch"),
            described("vcs_status", "Displays the status of the working tree"),
            described("vcs_log", "Shows commit history"),
            described("vcs_remote_add", "Adds a remote"),
            described("vcs_remote_remove", "Removes a remote"),
            described("vcs_stash_save", "Saves the changes in a stash"),
            described("vcs_stash_pop", "Applies the latest stash"),
        ];
        let found = derive_for("tool", &texts);
        let group = |i: usize| found[i].as_ref().map(|d| d.group.as_str());
        for i in 0..3 {
            assert_eq!(group(i), Some("file"), "{found:?}");
        }
        for i in 3..6 {
            assert_eq!(group(i), Some("branch"), "{found:?}");
        }
        let why = &found[4].as_ref().unwrap().why;
        assert!(why.contains("its description acts on branch"), "{why}");
        // A thing most of the namespace's tools speak of is where they all
        // work, not an area of some: they stay the namespace's group.
        let texts: Vec<ToolText> = [
            "kube_create",
            "kube_delete",
            "kube_describe",
            "kube_get",
            "kube_patch",
            "kube_logs",
        ]
        .iter()
        .map(|name| described(name, "Acts on resources of the cluster by resource type"))
        .chain([
            described("install_chart", "Install a chart"),
            described("remove_chart", "Remove a chart"),
        ])
        .collect();
        let found = derive_for("tool", &texts);
        assert!(
            found[..6]
                .iter()
                .all(|d| d.as_ref().is_some_and(|d| d.group == "kube")),
            "{found:?}"
        );
    }

    #[test]
    fn a_server_whose_tools_share_no_area_gets_no_group() {
        // npm's Puppeteer server: one thing each, driven in one browser.
        let texts = [
            ("puppeteer_navigate", "Navigate to a URL"),
            (
                "puppeteer_screenshot",
                "Take a screenshot of the current page or a specific element",
            ),
            ("puppeteer_click", "Click an element on the page"),
            ("puppeteer_fill", "Fill out an input field"),
            (
                "puppeteer_select",
                "Select an element on the page with Select tag",
            ),
            ("puppeteer_hover", "Hover an element on the page"),
            (
                "puppeteer_evaluate",
                "Execute JavaScript in the browser console",
            ),
        ]
        .map(|(name, description)| described(name, description));
        let found = derive_for("puppeteer", &texts);
        assert!(
            found.iter().all(Option::is_none),
            "one group of every tool would be the server itself: {found:?}"
        );
    }

    #[test]
    fn names_of_the_server_s_own_word_and_a_verb_are_the_thing_they_drive() {
        let mut texts = vec![
            described("web_get", "Perform an HTTP GET request"),
            described("web_post", "Perform an HTTP POST request"),
            described("web_put", "Perform an HTTP PUT request"),
            described("web_navigate", "Navigate the browser to a URL"),
            described("web_close", "Close the browser"),
            described("web_resize", "Resize the browser viewport"),
            described("web_go_back", "Go back in the browser history"),
            described("web_evaluate", "Run a script in the browser console"),
            described("web_press_key", "Press a key in the browser"),
        ];
        texts.extend((1..=4).map(|i| {
            described(
                &format!("report_step_{i}"),
                "Report a test step of a recorded session",
            )
        }));
        let found = derive_for("web", &texts);
        let group = |i: usize| found[i].as_ref().map(|d| d.group.as_str());
        for i in 0..3 {
            assert_eq!(group(i), Some("http"), "{found:?}");
        }
        for i in 3..9 {
            assert_eq!(group(i), Some("browser"), "{found:?}");
        }
        let why = &found[4].as_ref().unwrap().why;
        assert!(why.contains("the server's own word"), "{why}");
        assert!(
            found.iter().flatten().all(|d| d.group != "web"),
            "{found:?}"
        );
    }

    #[test]
    fn loners_beside_one_group_are_a_group_of_their_own() {
        let texts = vec![
            described("read_query", "Execute a SELECT query on the database"),
            described(
                "write_query",
                "Execute an INSERT or UPDATE query on the database",
            ),
            described("create_table", "Create a new table in the database"),
            described("list_tables", "List all tables in the database"),
            described("describe_table", "Get the schema of a table"),
            described("append_insight", "Add a business insight to the memo"),
        ];
        let found = derive_for("db", &texts);
        let groups: BTreeSet<&str> = found.iter().flatten().map(|d| d.group.as_str()).collect();
        assert!(groups.len() >= 2, "{found:?}");
        assert!(found.iter().all(Option::is_some), "{found:?}");
    }

    #[test]
    fn tools_near_no_group_and_outside_the_server_s_scope_are_its_other_tools() {
        let mut texts = tools(&[
            "read_file",
            "write_file",
            "list_files",
            "start_process",
            "kill_process",
            "list_processes",
            "get_usage_stats",
            "give_feedback",
        ]);
        texts[6].description = Some("Get usage statistics for debugging".into());
        texts[7].description = Some("Open a form to send feedback".into());
        let found = derive_for("", &texts);
        for i in [6, 7] {
            let found = found[i].as_ref().expect("in a group");
            assert_eq!(found.group, "other");
            assert!(found.why.contains("too few words"), "{}", found.why);
        }
    }

    #[test]
    fn a_participle_describes_a_thing_and_names_none() {
        let mut texts = tools(&[
            "click",
            "hover",
            "drag",
            "list_pages",
            "close_page",
            "new_page",
            "select_page",
        ]);
        texts[0].description = Some("Clicks on the provided element".into());
        texts[1].description = Some("Hover over the provided element".into());
        texts[2].description = Some("Drag an element onto another element".into());
        let found = derive(&texts);
        assert_eq!(found[0].as_deref(), Some("element"), "{found:?}");
        assert_eq!(found[1].as_deref(), Some("element"), "{found:?}");
    }

    #[test]
    fn a_group_of_most_tools_whose_names_cross_sources_and_things_splits_by_thing() {
        let mut names: Vec<String> = Vec::new();
        for shop in ["amazon", "walmart", "ebay", "etsy", "zara", "bestbuy"] {
            names.push(format!("web_data_{shop}_products"));
        }
        for (site, things) in [
            ("instagram", &["posts", "comments", "profiles", "reels"][..]),
            ("tiktok", &["posts", "comments", "profiles"][..]),
            ("reddit", &["posts", "comments"][..]),
            ("youtube", &["comments", "profiles"][..]),
        ] {
            for thing in things {
                names.push(format!("web_data_{site}_{thing}"));
            }
        }
        names.extend(["web_data_npm_package", "web_data_pypi_package"].map(String::from));
        names.extend(["scrape_as_html", "scrape_as_markdown", "scrape_batch"].map(String::from));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let found = derive_for("", &tools(&names));
        let of = |name: &str| {
            let i = names.iter().position(|n| *n == name).unwrap();
            found[i].clone().expect("in a group")
        };
        assert_eq!(of("web_data_amazon_products").group, "products");
        // Comments come from four sites, posts and profiles from three:
        // two of them at least offer both, so they are one area.
        let posts = of("web_data_tiktok_posts");
        assert_eq!(posts.group, "comments", "{found:?}");
        assert!(
            posts.why.contains("offer both post and comment"),
            "{}",
            posts.why
        );
        let reels = of("web_data_instagram_reels");
        assert_eq!(reels.group, "comments");
        assert!(
            reels
                .why
                .contains("other tools of instagram are in comments"),
            "{}",
            reels.why
        );
        assert_eq!(of("web_data_npm_package").group, "package");
        assert!(
            of("web_data_zara_products")
                .why
                .contains("as do 5 others from 6 sources"),
            "{found:?}"
        );
    }

    #[test]
    fn a_group_of_most_tools_whose_names_say_a_verb_and_a_thing_stays_one() {
        let mut names: Vec<String> = Vec::new();
        for verb in ["list", "create", "inspect", "delete", "upgrade", "pause"] {
            for thing in ["cluster", "project", "user"] {
                names.push(format!("atlas-{verb}-{thing}"));
            }
        }
        // As many tools outside it, so `atlas` names no namespace.
        for verb in ["list", "create", "drop", "rename", "describe", "count"] {
            for thing in ["collection", "index", "database"] {
                names.push(format!("{verb}-{thing}"));
            }
        }
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let found = derive(&tools(&names));
        assert!(
            found[..18].iter().all(|g| g.as_deref() == Some("atlas")),
            "{found:?}"
        );
    }

    #[test]
    fn a_small_server_gets_no_derived_groups() {
        assert_eq!(derive(&tools(&["echo", "add", "sum"])), vec![None; 3]);
    }

    fn namespaced(areas: &[(&str, usize)]) -> Vec<ToolText> {
        const VERBS_AT_END: &[&str] = &["get", "list", "create", "delete", "update", "set"];
        areas
            .iter()
            .flat_map(|(area, n)| {
                (0..*n).map(move |i| ToolText {
                    name: format!("{area}_item{}_{}", i / 6, VERBS_AT_END[i % 6]),
                    description: Some(format!("Works on {area} things")),
                    ..ToolText::default()
                })
            })
            .collect()
    }

    #[test]
    fn the_result_does_not_depend_on_the_order_of_the_list() {
        let texts = namespaced(&[("keyvault", 5), ("storage", 4), ("redis", 3), ("cosmos", 2)]);
        let derived = derive_for("azure", &texts);
        let mut reversed = texts.clone();
        reversed.reverse();
        let mut again = derive_for("azure", &reversed);
        again.reverse();
        assert_eq!(derived, again);
    }

    #[test]
    fn a_server_with_many_areas_gets_its_areas_up_to_a_quarter_of_its_tools() {
        let areas: Vec<(String, usize)> = (0..30)
            .map(|i| (format!("area{}", (b'a' + i as u8) as char), 3))
            .collect();
        let areas: Vec<(&str, usize)> = areas.iter().map(|(a, n)| (a.as_str(), *n)).collect();
        let texts = namespaced(&areas);
        let groups: BTreeSet<String> = derive(&texts).into_iter().flatten().collect();
        assert_eq!(max_groups(texts.len()), 22);
        assert!(
            groups.len() > MAX_GROUPS && groups.len() <= max_groups(texts.len()),
            "{} groups",
            groups.len()
        );
    }

    #[test]
    fn nine_in_ten_tools_are_in_a_group_and_each_says_why() {
        let mut texts = namespaced(&[("keyvault", 6), ("storage", 6)]);
        for name in ["echo", "add", "sum"] {
            texts.push(ToolText {
                name: name.into(),
                ..ToolText::default()
            });
        }
        let derived = derive_for("", &texts);
        let grouped = derived.iter().flatten().count();
        assert!(
            grouped * 10 >= texts.len() * 9,
            "{grouped} of {}",
            texts.len()
        );
        for found in derived.iter().flatten() {
            assert!(!found.why.is_empty(), "{found:?}");
        }
        assert!(derived[0].as_ref().unwrap().why.contains("`keyvault`"));
    }

    #[test]
    fn no_group_is_named_after_the_server() {
        let texts = tools(&[
            "find_projects",
            "create_project",
            "get_sentry_resource",
            "search_sentry_docs",
            "find_teams",
            "create_team",
        ]);
        for server in ["sentry", "sentry-mcp", "mcp-server-sentry"] {
            let derived = derive_for(server, &texts);
            assert!(
                derived.iter().flatten().all(|d| d.group != "sentry"),
                "{server}: {derived:?}"
            );
        }
    }

    #[test]
    fn an_option_many_tools_take_is_no_area() {
        use super::english::without_options;
        assert_eq!(
            without_options("Set a field in a hash with an optional expiration time"),
            "Set a field in a hash with an "
        );
        assert_eq!(
            without_options("List keys, optionally filtered by a pattern, in a database"),
            "List keys, , in a database"
        );
        assert_eq!(
            without_options("Read the optionality table"),
            "Read the optionality table"
        );
        // Tools named by a command (as a key-value store names them) whose
        // first sentences say the thing they act on and, for some, an
        // expiry they may set: the expiry is no area.
        let texts: Vec<ToolText> = [
            (
                "hset",
                "Set a field in a hash with an optional expiration time.",
            ),
            ("hget", "Get a field from a hash."),
            ("hdel", "Delete a field from a hash."),
            ("hkeys", "Get every field name of a hash."),
            (
                "lpush",
                "Push a value onto a list with an optional expiration time.",
            ),
            ("lpop", "Remove and return the first value of a list."),
            ("lrange", "Get a range of values from a list."),
            ("llen", "Get the length of a list."),
            (
                "sadd",
                "Add a member to a set with an optional expiration time.",
            ),
            ("srem", "Remove a member from a set."),
            ("smembers", "Get every member of a set."),
            ("scard", "Count the members of a set."),
            ("expire", "Set an expiration time on a key."),
            ("ttl", "Get the expiration time left on a key."),
        ]
        .iter()
        .map(|(name, description)| described(name, description))
        .collect();
        let found = derive_for("store", &texts);
        let group = |name: &str| {
            let at = texts.iter().position(|t| t.name == name).expect("a tool");
            found[at].as_ref().map(|d| d.group.clone())
        };
        for (optional, plain) in [("hset", "hget"), ("lpush", "lrange"), ("sadd", "srem")] {
            assert!(group(optional).is_some(), "{optional}: {found:?}");
            assert_eq!(group(optional), group(plain), "{optional}: {found:?}");
        }
        assert_ne!(group("hset"), group("lpush"), "{found:?}");
        assert_ne!(group("lpush"), group("sadd"), "{found:?}");
    }

    #[test]
    fn a_name_s_verb_beside_a_thing_says_less_than_the_thing() {
        let server = server_words("browser");
        let close_tab =
            Words::of(&described("browser_close_tab", "Close the current tab")).content(&server);
        assert_eq!(close_tab.get("tab"), Some(&2.0));
        assert_eq!(close_tab.get("close"), Some(&1.0));
        // A name of a verb only says it as a name's word.
        let close = Words::of(&described("browser_close", "Close the browser")).content(&server);
        assert_eq!(close.get("close"), Some(&2.0));
    }

    #[test]
    fn a_tool_alone_joins_the_group_of_the_tool_its_description_names() {
        let texts: Vec<ToolText> = [
            ("start_crawl", "Start a crawl of a website."),
            ("get_crawl", "Get the status and results of a crawl."),
            ("cancel_crawl", "Cancel a crawl that is running."),
            ("list_users", "List the users of the team."),
            ("get_user", "Get one user of the team."),
            ("delete_user", "Remove a user from the team."),
            ("list_monitors", "List the monitors."),
            ("get_monitor", "Get one monitor."),
            ("delete_monitor", "Delete a monitor."),
            (
                "extract",
                "Deprecated: use start_crawl with a schema instead.",
            ),
            (
                "parse",
                "Parse a document: as extract does, and as start_crawl.",
            ),
            ("balance", "Show the credit left to spend."),
        ]
        .iter()
        .map(|(name, description)| described(name, description))
        .collect();
        let sorted: Vec<&ToolText> = texts.iter().collect();
        let pointed = names_other_tools(&sorted);
        let named = |at: usize| -> Vec<&str> {
            pointed[at].iter().map(|(_, name)| name.as_str()).collect()
        };
        // Whole names of two words or more, the first written first; a
        // plain word (`extract`) names no tool.
        assert_eq!(named(9), ["start_crawl"]);
        assert_eq!(named(10), ["start_crawl"]);
        assert!(named(0).is_empty());
        let found = derive_for("scraper", &texts);
        let extract = found[9].as_ref().expect("extract has a group");
        assert_eq!(Some(&extract.group), found[0].as_ref().map(|d| &d.group));
        assert!(
            extract.why.contains("its description names `start_crawl`"),
            "{extract:?}"
        );
    }

    /// A brand a third of the descriptions write with a capital, and a
    /// name says, names the service: never a group, whatever the key.
    #[test]
    fn the_service_s_own_name_in_its_tools_texts_names_no_group() {
        let texts = [
            described("get_airflow_version", "Get the version of Airflow."),
            described("get_airflow_health", "Check whether Airflow is up."),
            described("list_dags", "List the DAGs Airflow knows."),
            described("get_dag", "Get one DAG."),
            described("pause_dag", "Pause a DAG."),
            described("list_pools", "List the pools."),
            described("get_pool", "Get a pool."),
            described("list_variables", "List the variables."),
            described("get_variable", "Get a variable."),
        ];
        let words: Vec<words::Words> = texts.iter().map(words::Words::of).collect();
        let sorted: Vec<&ToolText> = texts.iter().collect();
        assert_eq!(
            named_by_its_tools(&sorted, &words),
            ["airflow".to_string()].into()
        );
        let found = derive_for("scheduler", &texts);
        assert!(
            found.iter().flatten().all(|d| d.group != "airflow"),
            "{found:?}"
        );
        // Written small somewhere, or said by few, it is a word like any.
        let mut small = texts.clone();
        small[3] = described("get_dag", "Get one DAG from airflow.");
        let words: Vec<words::Words> = small.iter().map(words::Words::of).collect();
        let sorted: Vec<&ToolText> = small.iter().collect();
        assert!(named_by_its_tools(&sorted, &words).is_empty());
        // Code writes it small as code does (an address, an identifier):
        // that is no prose.
        let mut coded = texts.clone();
        coded[3] = described(
            "get_dag",
            "Get one DAG from airflow.example.com, as in `airflow_dag_id`.",
        );
        let words: Vec<words::Words> = coded.iter().map(words::Words::of).collect();
        let sorted: Vec<&ToolText> = coded.iter().collect();
        assert_eq!(
            named_by_its_tools(&sorted, &words),
            ["airflow".to_string()].into()
        );
    }

    /// A thing every description speaks of in small letters, and most
    /// names are about, is what the tools act on, not the server's name
    /// (Chroma's collections were a group named `name`).
    #[test]
    fn a_common_noun_every_tool_says_is_still_a_subject() {
        let texts = [
            described("chroma_list_collections", "List the collection names."),
            described("chroma_create_collection", "Create a new collection."),
            described("chroma_delete_collection", "Delete a collection."),
            described(
                "chroma_peek_collection",
                "Peek at a collection's first items.",
            ),
            described("chroma_add_documents", "Add documents to a collection."),
            described("chroma_get_documents", "Get documents from a collection."),
            described(
                "chroma_delete_documents",
                "Delete documents from a collection.",
            ),
        ];
        let found = derive_for("chroma", &texts);
        let groups: Vec<&str> = found.iter().flatten().map(|d| d.group.as_str()).collect();
        assert_eq!(
            groups,
            [
                "collections",
                "collections",
                "collections",
                "collections",
                "documents",
                "documents",
                "documents"
            ]
        );
        // An acronym every description writes in capitals is the
        // service's own.
        let eks = [
            described("get_eks_insights", "Get EKS insights."),
            described("list_k8s_pods", "List pods of an EKS cluster."),
            described("get_k8s_events", "Get events of an EKS cluster."),
        ];
        let words: Vec<words::Words> = eks.iter().map(words::Words::of).collect();
        let sorted: Vec<&ToolText> = eks.iter().collect();
        assert_eq!(
            words::said_by_every_tool(&sorted, &words),
            ["eks".to_string()].into()
        );
    }

    /// One group of every tool would be the server itself.
    #[test]
    fn one_group_of_every_tool_is_no_group() {
        // Every tool is about one thing (the AWS documentation server's
        // five tools were all `documentation`).
        let texts = [
            ("list_widgets", "List the widgets."),
            ("get_widget", "Get a widget."),
            ("create_widget", "Create a widget."),
            ("delete_widget", "Delete a widget."),
        ]
        .map(|(name, description)| described(name, description));
        let found = derive_for("awsdocs", &texts);
        assert!(found.iter().all(Option::is_none), "{found:?}");
    }

    /// A word nearly every name says, wherever in it, is the server's
    /// scope: Netlify's nine tools were one group, `services`.
    #[test]
    fn a_word_nearly_every_name_says_is_no_area() {
        let texts = [
            ("netlify-coding-rules", "Call when writing Netlify code."),
            ("netlify-user-services-reader", "Read the user."),
            ("netlify-deploy-services-reader", "Read deploys."),
            ("netlify-deploy-services-updater", "Deploy a site."),
            ("netlify-team-services-reader", "Read teams."),
            ("netlify-project-services-reader", "Read projects."),
            ("netlify-project-services-updater", "Update a project."),
            ("netlify-extension-services-reader", "Read extensions."),
            (
                "netlify-extension-services-updater",
                "Install an extension.",
            ),
        ]
        .map(|(name, description)| described(name, description));
        let found = derive_for("netlify", &texts);
        let groups: BTreeSet<&str> = found.iter().flatten().map(|d| d.group.as_str()).collect();
        assert!(!groups.contains("services"), "{found:?}");
        assert!(
            groups.contains("projects") || groups.contains("project"),
            "{found:?}"
        );
        assert!(groups.len() >= 2, "{found:?}");
    }

    /// A product of a server of several, said by its own tools, whose
    /// names it leads, is an area, not the server.
    #[test]
    fn a_product_its_own_tools_name_is_no_name_of_the_server() {
        let texts = [
            described("confluence_get_page", "Get a Confluence page."),
            described("confluence_search", "Search Confluence."),
            described("confluence_create_page", "Create a page in Confluence."),
            described("jira_get_issue", "Get an issue."),
            described("jira_search", "Search issues."),
            described("jira_create_issue", "Create an issue."),
        ];
        let words: Vec<words::Words> = texts.iter().map(words::Words::of).collect();
        let sorted: Vec<&ToolText> = texts.iter().collect();
        assert!(named_by_its_tools(&sorted, &words).is_empty());
    }
}
