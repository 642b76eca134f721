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
//!    (`prs` → `pull-request`, `repo` → `repository`). A word that every
//!    other tool of the server carries too (`browser_`, `kubectl_`) names
//!    the server, not a subject, and is set aside while others remain.
//!    Where the name leaves no noun, its title and then its description
//!    speak for it.
//! 2. Two nouns that always stand together (`pull request`, `helm chart`)
//!    are one subject.
//! 3. Each tool's subject is the noun among its own that heads most tool
//!    names of the server (`add_issue_comment` is about issues, because
//!    many names start with an issue and few with a comment).
//! 4. Small groups join the group whose subject their tools' texts keep
//!    naming (branches, commits and releases are "in a repository"); a
//!    tool left alone joins the group whose words its text shares most;
//!    past about fifteen groups the smallest join their nearest.
//!
//! The result is a pure function of the set of tools: the same for any
//! order of the list, in every process, and no group has one member.

mod english;
mod groups;

use english::{first_sentence, is_function_word, is_noun, is_verb, normalise, split};
use groups::{Groups, Weights, scope_words};
use std::collections::{BTreeMap, BTreeSet};

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
            description: text(definition.get("description")),
            params: definition
                .pointer("/inputSchema/properties")
                .and_then(serde_json::Value::as_object)
                .map(|properties| properties.keys().cloned().collect())
                .unwrap_or_default(),
        }
    }
}

/// The most groups derivation makes for one server.
pub const MAX_GROUPS: usize = 15;

/// The derived group of each tool, index for index: a lowercase name of
/// words joined by `-` (`issues`, `pull-requests`), or `None` for a server
/// of fewer than four tools (its server group says it all).
pub fn derive(tools: &[ToolText]) -> Vec<Option<String>> {
    if tools.len() < 4 {
        return vec![None; tools.len()];
    }
    // Work on the tools sorted by name, so the result does not depend on
    // the order the server listed them in.
    let mut order: Vec<usize> = (0..tools.len()).collect();
    order.sort_by(|&a, &b| tools[a].name.cmp(&tools[b].name).then(a.cmp(&b)));
    let sorted: Vec<&ToolText> = order.iter().map(|&i| &tools[i]).collect();
    let words: Vec<Words> = sorted.iter().map(|tool| Words::of(tool)).collect();
    let shared = name_words(&words);
    let mut prose_shared = prose_words(&words);
    prose_shared.extend(shared.iter().cloned());
    let compounds = compounds(&words, &shared);
    let units: Vec<Vec<String>> = words
        .iter()
        .map(|w| w.units(&shared, &prose_shared, &compounds))
        .collect();
    let plural = plural_units(&words, &compounds);
    let mut groups = Groups::first(&units);
    let texts: Vec<BTreeSet<String>> = words.iter().map(|w| w.text_units(&compounds)).collect();
    let scope = scope_words(&texts);
    groups.join_kinds();
    groups.join_containers(&texts, &scope);
    // How much each shared word says, for both steps that judge nearness.
    let weights = Weights::of(&texts);
    groups.join_loners(&texts, &weights);
    groups.cap(&texts, &weights, MAX_GROUPS);
    let mut derived = vec![None; tools.len()];
    for (position, &index) in order.iter().enumerate() {
        derived[index] = groups
            .of(position)
            .map(|subject| group_name(subject, &plural));
    }
    derived
}

/// The words of one tool.
#[derive(Debug)]
struct Words {
    /// The name's words, normalised, in order.
    name: Vec<String>,
    /// For each of `name`, whether the name wrote it in the plural.
    plural: Vec<bool>,
    /// The title's and then the description's, for a name with no noun.
    title: Vec<String>,
    description: Vec<String>,
    params: Vec<String>,
}

impl Words {
    fn of(tool: &ToolText) -> Words {
        let prose = |text: &Option<String>| {
            text.as_deref()
                .map(|text| split(text).into_iter().map(|w| normalise(&w)).collect())
                .unwrap_or_default()
        };
        let raw = split(&tool.name);
        let name: Vec<String> = raw.iter().map(|w| normalise(w)).collect();
        let plural = raw
            .iter()
            .zip(&name)
            .map(|(raw, one)| raw != one && raw.ends_with('s') && !one.contains('-'))
            .collect();
        Words {
            name,
            plural,
            title: prose(&tool.title),
            // The first sentence says what the tool does; the rest is
            // usage notes that name every subject under the sun.
            description: prose(&tool.description.as_deref().map(first_sentence)),
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
    fn units(
        &self,
        shared: &BTreeSet<String>,
        prose_shared: &BTreeSet<String>,
        compounds: &BTreeSet<(String, String)>,
    ) -> Vec<String> {
        let from_name = nouns_of_name(&self.name, shared, compounds);
        if !from_name.is_empty() {
            return from_name;
        }
        for prose in [&self.title, &self.description] {
            let nouns = nouns_of_prose(prose, prose_shared, compounds);
            if !nouns.is_empty() {
                return nouns;
            }
        }
        Vec::new()
    }

    /// Every subject the tool's texts name (name, title, description,
    /// parameters), for telling which group a tool belongs near.
    fn text_units(&self, compounds: &BTreeSet<(String, String)>) -> BTreeSet<String> {
        [&self.name, &self.title, &self.description, &self.params]
            .into_iter()
            .flat_map(|words| join_compounds(words, compounds))
            .filter(|w| is_noun(w) && !is_verb(w))
            .collect()
    }
}

/// Words that start most of the server's tool names (`browser_`,
/// `kubectl_`): the server's own name, not a subject.
fn name_words(words: &[Words]) -> BTreeSet<String> {
    most(words, |tool| tool.name.first().into_iter().collect())
}

/// Words that stand in most of the server's descriptions (`Kubernetes`,
/// `GitHub`): not a subject when a name borrows its description's nouns.
fn prose_words(words: &[Words]) -> BTreeSet<String> {
    most(words, |tool| tool.description.iter().collect())
}

/// The words, not verbs, that `pick` finds in more than half the tools.
fn most(words: &[Words], pick: impl Fn(&Words) -> BTreeSet<&String>) -> BTreeSet<String> {
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

/// Pairs of words in tool names of which the first is a noun that never
/// stands without the second (`pull request`, `helm chart`, `port
/// forward`), twice or more: one subject each.
fn compounds(words: &[Words], shared: &BTreeSet<String>) -> BTreeSet<(String, String)> {
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
fn join_compounds(words: &[String], compounds: &BTreeSet<(String, String)>) -> Vec<String> {
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
fn nouns_of_name(
    name: &[String],
    shared: &BTreeSet<String>,
    compounds: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let words: Vec<String> = join_compounds(name, compounds)
        .into_iter()
        .filter(|w| !shared.contains(w))
        .collect();
    let mut start = 0;
    let mut end = words.len();
    // `create_or_update_file`: every verb and joining word at the start.
    while start < end && (is_verb(&words[start]) || is_function_word(&words[start])) {
        start += 1;
    }
    while end > start && (is_verb(&words[end - 1]) || is_function_word(&words[end - 1])) {
        end -= 1;
    }
    words[start..end]
        .iter()
        .filter(|w| is_noun(w))
        .cloned()
        .collect()
}

/// The subjects of a title or a sentence: its nouns, verbs anywhere set
/// aside (prose puts them in the middle too).
fn nouns_of_prose(
    prose: &[String],
    shared: &BTreeSet<String>,
    compounds: &BTreeSet<(String, String)>,
) -> Vec<String> {
    join_compounds(prose, compounds)
        .into_iter()
        .filter(|w| is_noun(w) && !is_verb(w) && !shared.contains(w))
        .collect()
}

/// The subjects some tool name writes in the plural (`list_issues`,
/// `browser_tabs`, `list_pull_requests`): their groups are named in the
/// plural; others (`performance`, `network`) stay as they are.
fn plural_units(words: &[Words], compounds: &BTreeSet<(String, String)>) -> BTreeSet<String> {
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
fn group_name(subject: &str, plural: &BTreeSet<String>) -> String {
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

#[cfg(test)]
mod tests {
    use super::english::{FUNCTION_WORDS, VERBS};
    use super::*;

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
    fn a_small_server_gets_no_derived_groups() {
        assert_eq!(derive(&tools(&["echo", "add", "sum"])), vec![None; 3]);
    }
}
