//! Groups by shared words, for a server whose names say little: where
//! most names are about a subject no other name shares (`git_stash`,
//! `git_rebase`, `git_worktree`), the names give no areas, so the tools'
//! texts do. Each tool is its words (name, title, the first sentence of
//! its description), each word weighted by how few of the server's tools use
//! it; tools whose words are alike join, the closest first, until no two
//! groups are alike enough, and then as many more as the limit on groups
//! and the share of tools in a group ask for.

use super::english::is_verb;
use crate::lexicon::Lexicon;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// How alike (the mean cosine of their tools' weighted words) two groups
/// must be to join while the limits ask for nothing.
const ALIKE: f64 = 0.4;

/// A word in more than this share of the tools (as a fraction: 2 in 5) is
/// the scope they all work in, and says nothing of an area.
fn is_scope(tools_with: usize, tools: usize) -> bool {
    tools_with * 5 > tools * 2
}

/// The most tools grouped by words. Joining the closest groups one pair
/// at a time holds a likeness for every two tools and compares them all
/// at each join: the square of the tools in memory, their cube in time
/// (400 tools take about a second in a debug build; a server padded to
/// 4,600 tools held a listing for minutes). A larger server keeps the
/// groups its names give.
pub(super) const MOST_TOOLS: usize = 300;

/// Whether the names say too little for their subjects to be the
/// groups: more than half the tools have a subject no other tool's name
/// shares, or none; and there are few enough tools to group by words
/// ([`MOST_TOOLS`]).
pub(super) fn names_say_little(subjects: &[Option<String>]) -> bool {
    if subjects.len() > MOST_TOOLS {
        return false;
    }
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for subject in subjects.iter().flatten() {
        *count.entry(subject).or_default() += 1;
    }
    let alone = subjects
        .iter()
        .filter(|s| s.as_deref().is_none_or(|s| count[s] < 2))
        .count();
    alone * 2 > subjects.len()
}

/// One tool's place in the groups made from words.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Placed {
    /// The group's most telling word, or the word its tools' names
    /// share and no other's has.
    pub(super) group: String,
    /// Whether the group is named by its tools' names (`group` is in
    /// each of them, and in no other tool's).
    pub(super) by_name: bool,
    /// The group's telling words this tool's texts have too, at most two.
    pub(super) shared: Vec<String>,
    /// How many of the group's other tools have one of `shared` too.
    pub(super) alike: usize,
    /// Whether it joined only so that nine in ten tools have a group.
    pub(super) nearest: bool,
    /// Whether it shares no word with any group, and joined one only so
    /// that nine in ten tools have a group.
    pub(super) apart: bool,
}

/// The groups of tools whose `content` words (word → how much it says in
/// the tool) are alike, index for index; `None` for a tool in no group,
/// and `None` for all when the words find fewer than two groups.
pub(super) fn by_words(
    content: &[BTreeMap<String, f64>],
    names: &[Vec<String>],
    most: usize,
) -> Option<Vec<Option<Placed>>> {
    let n = content.len();
    // How many tools use each word.
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for tool in content {
        for word in tool.keys() {
            *df.entry(word).or_default() += 1;
        }
    }
    // Words one tool has say nothing of nearness; words most say, nothing
    // of areas.
    let idf: BTreeMap<&str, f64> = df
        .iter()
        .filter(|&(_, &d)| d >= 2 && !is_scope(d, n))
        .map(|(&word, &d)| (word, (n as f64 / d as f64).ln()))
        .collect();
    let vectors: Vec<BTreeMap<&str, f64>> = content
        .iter()
        .map(|tool| {
            let vector: BTreeMap<&str, f64> = tool
                .iter()
                .filter_map(|(word, weight)| {
                    idf.get_key_value(word.as_str())
                        .map(|(&w, idf)| (w, weight * idf))
                })
                .collect();
            let norm = vector.values().map(|w| w * w).sum::<f64>().sqrt();
            vector
                .into_iter()
                .map(|(w, x)| (w, if norm == 0.0 { 0.0 } else { x / norm }))
                .collect()
        })
        .collect();
    let cosine = |a: usize, b: usize| -> f64 {
        vectors[a]
            .iter()
            .map(|(w, x)| x * vectors[b].get(w).copied().unwrap_or(0.0))
            .sum()
    };
    // The summed likeness between every two clusters, kept as they join
    // (average linkage: the sum over their tools' pairs, divided by the
    // pairs).
    let mut sums: Vec<Vec<f64>> = (0..n)
        .map(|a| (0..n).map(|b| cosine(a, b)).collect())
        .collect();
    let mut clusters: Vec<Vec<usize>> = (0..n).map(|t| vec![t]).collect();
    let linkage = |sums: &[Vec<f64>], clusters: &[Vec<usize>], a: usize, b: usize| {
        sums[a][b] / (clusters[a].len() * clusters[b].len()) as f64
    };
    let join = |sums: &mut Vec<Vec<f64>>, clusters: &mut Vec<Vec<usize>>, a: usize, b: usize| {
        let with_b = sums[b].clone();
        for (with_a, add) in sums[a].iter_mut().zip(&with_b) {
            *with_a += add;
        }
        let with_a = sums[a].clone();
        for (row, value) in sums.iter_mut().zip(&with_a) {
            row[a] = *value;
        }
        sums.remove(b);
        for row in sums.iter_mut() {
            row.remove(b);
        }
        let taken = clusters.remove(b);
        clusters[if a > b { a - 1 } else { a }].extend(taken);
    };
    loop {
        let groups = clusters.iter().filter(|c| c.len() >= 2).count();
        if clusters.len() <= 2 {
            break;
        }
        let mut best: Option<(f64, usize, usize)> = None;
        for a in 0..clusters.len() {
            for b in a + 1..clusters.len() {
                let alike = linkage(&sums, &clusters, a, b);
                if best.is_none_or(|(x, ..)| alike > x) {
                    best = Some((alike, a, b));
                }
            }
        }
        let Some((alike, a, b)) = best else { break };
        // Past the limit, the closest two groups join however unlike;
        // a tool alone joining a group adds no group.
        if alike < ALIKE && groups <= most {
            break;
        }
        join(&mut sums, &mut clusters, a, b);
    }
    let mut placed_near: BTreeSet<usize> = BTreeSet::new();
    let mut placed_apart: BTreeSet<usize> = BTreeSet::new();
    // Nine in ten tools in a group: the loners nearest a group join it;
    // one that shares no word with any group joins the first by name
    // (joining the largest instead, or making such tools a group of
    // their own, fits the servers' published areas worse).
    loop {
        let grouped: usize = clusters.iter().filter(|c| c.len() >= 2).map(Vec::len).sum();
        if grouped * 10 >= n * 9 {
            break;
        }
        let mut best: Option<(f64, usize, usize)> = None;
        for l in (0..clusters.len()).filter(|&c| clusters[c].len() == 1) {
            for g in (0..clusters.len()).filter(|&c| clusters[c].len() >= 2) {
                let alike = linkage(&sums, &clusters, l, g);
                if best.is_none_or(|(x, ..)| alike > x) {
                    best = Some((alike, l, g));
                }
            }
        }
        let Some((alike, l, g)) = best else { break };
        if alike > 0.0 {
            placed_near.insert(clusters[l][0]);
        } else {
            placed_apart.insert(clusters[l][0]);
        }
        // `join` keeps the first's place: the group takes the loner.
        join(&mut sums, &mut clusters, g, l);
    }
    let mut groups: Vec<Vec<usize>> = clusters.into_iter().filter(|c| c.len() >= 2).collect();
    if groups.len() < 2 {
        return None;
    }
    // Larger groups choose their name first; a group whose telling words
    // another has taken all is about that group's word, and joins it.
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    let mut named: Vec<(String, Vec<usize>)> = Vec::new();
    let mut from_names: BTreeSet<String> = BTreeSet::new();
    // Unpacked once for every group that needs it, and only if one does.
    let mut lexicon: Option<Arc<Lexicon>> = None;
    for group in groups {
        // A word every member's name says and no other tool's is what
        // the group is (`brave_web_search`, `brave_news_search`: search),
        // however many tools' texts use it.
        if let Some(word) =
            name_of_only(names, &group).filter(|w| !named.iter().any(|(name, _)| name == w))
        {
            from_names.insert(word.clone());
            named.push((word, group));
            continue;
        }
        let telling = telling(&idf, content, &group);
        // A group is named by a thing, not a verb or what can be done
        // to a thing (`clickable`), where it can be.
        let free = |w: &str| {
            !named.iter().any(|(name, _)| name == w) && w.chars().all(|c| c.is_ascii_alphanumeric())
        };
        // A verb's `-ing` form (`returning`) only where no thing is left.
        let chosen = telling
            .iter()
            .map(|&(_, w)| w)
            .filter(|w| free(w))
            .min_by_key(|w| (is_verb(w) || is_ability(w), is_gerund(w)));
        match (chosen, telling.first()) {
            (Some(word), _) if is_verb(word) || is_ability(word) => {
                let name = thing_of(word, content, &group, &free, &mut lexicon);
                named.push((name, group));
            }
            (Some(word), _) => named.push((word.to_string(), group)),
            (None, Some(&(_, best))) => {
                if let Some((_, members)) = named.iter_mut().find(|(name, _)| *name == best) {
                    members.extend(group);
                }
            }
            // No word it shares: its tools stay in no group.
            (None, None) => {}
        }
    }
    if named.len() < 2 {
        return None;
    }
    let mut placed = vec![None; n];
    for (name, group) in &named {
        let top: Vec<&str> = telling(&idf, content, group)
            .iter()
            .take(4)
            .map(|&(_, w)| w)
            .collect();
        for &tool in group {
            let shared: Vec<String> = top
                .iter()
                .filter(|w| content[tool].contains_key(**w))
                .take(2)
                .map(|w| w.to_string())
                .collect();
            let alike = group
                .iter()
                .filter(|&&other| {
                    other != tool && shared.iter().any(|w| content[other].contains_key(w))
                })
                .count();
            placed[tool] = Some(Placed {
                group: name.to_string(),
                by_name: from_names.contains(name),
                shared,
                alike,
                nearest: placed_near.contains(&tool),
                apart: placed_apart.contains(&tool),
            });
        }
    }
    Some(placed)
}

/// A word in the name of every tool of `group` and of no other tool,
/// when there is one (the first in order) and it names a thing: a verb
/// only where every name has it after another word, as English puts a
/// compound's head (`web_search`, `news_search`), not leading what is
/// done (`go_back`).
fn name_of_only(names: &[Vec<String>], group: &[usize]) -> Option<String> {
    let first = names.get(*group.first()?)?;
    first
        .iter()
        .filter(|w| w.len() > 1 && w.chars().all(|c| c.is_ascii_alphanumeric()))
        .find(|w| {
            let only = names
                .iter()
                .enumerate()
                .all(|(tool, name)| group.contains(&tool) == name.contains(*w));
            let head = || {
                group.iter().all(|&tool| {
                    names[tool]
                        .iter()
                        .position(|n| n == *w)
                        .is_some_and(|at| at > 0)
                })
            };
            only && (!is_verb(w) || head())
        })
        .cloned()
}

/// Whether `word` is a known verb's `-ing` form (`returning`,
/// `computing`, `running`).
fn is_gerund(word: &str) -> bool {
    word.strip_suffix("ing").is_some_and(|stem| {
        let undoubled = stem
            .len()
            .checked_sub(1)
            .filter(|&last| last > 0 && stem[last..] == stem[last - 1..last])
            .map(|last| &stem[..last]);
        is_verb(stem) || is_verb(&format!("{stem}e")) || undoubled.is_some_and(is_verb)
    })
}

/// Whether `word` says what can be done to a thing (`clickable`,
/// `hoverable`, `writable`): a verb we know and `-able` or `-ible`.
fn is_ability(word: &str) -> bool {
    ["able", "ible"].iter().any(|suffix| {
        word.strip_suffix(suffix)
            .is_some_and(|stem| is_verb(stem) || is_verb(&format!("{stem}e")))
    })
}

/// The name of a group whose most telling word is a verb (`go`,
/// `navigate`) or an ability: a thing every member's texts name,
/// however many tools do (`page`), else the noun English makes of the
/// verb (`navigation`, from the lexicon's derived forms, unpacked only
/// for this), else the word.
fn thing_of(
    word: &str,
    content: &[BTreeMap<String, f64>],
    group: &[usize],
    free: &dyn Fn(&str) -> bool,
    lexicon: &mut Option<Arc<Lexicon>>,
) -> String {
    let shared = content[group[0]]
        .keys()
        .filter(|w| !is_verb(w) && !is_ability(w) && free(w))
        .find(|w| group.iter().all(|&t| content[t].contains_key(*w)));
    if let Some(shared) = shared {
        return shared.clone();
    }
    let verb = is_ability(word)
        .then(|| word.get(..word.len() - 4))
        .flatten()
        .unwrap_or(word);
    // A derived noun keeps the verb's stem (`navigat-`, `evaluat-`).
    let stem: String = verb
        .chars()
        .take(verb.len().saturating_sub(1).max(3))
        .collect();
    let lexicon = lexicon.get_or_insert_with(Lexicon::shared);
    let nominal = lexicon.related(verb).find(|related| {
        related.starts_with(&stem)
            && ["ion", "ment", "ure", "ance", "ence"]
                .iter()
                .any(|suffix| related.ends_with(suffix))
            && related.chars().all(|c| c.is_ascii_lowercase())
            && free(related)
    });
    nominal.map_or_else(|| word.to_string(), str::to_string)
}

/// The words a group's tools say, most telling first: how much each
/// member says it, summed, times its rarity (ties: alphabetical).
fn telling<'a>(
    idf: &BTreeMap<&'a str, f64>,
    content: &[BTreeMap<String, f64>],
    group: &[usize],
) -> Vec<(f64, &'a str)> {
    let mut telling: Vec<(f64, &str)> = idf
        .iter()
        .map(|(&word, idf)| {
            let with: f64 = group.iter().filter_map(|&t| content[t].get(word)).sum();
            (with * idf, word)
        })
        .filter(|&(score, _)| score > 0.0)
        .collect();
    telling.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    telling
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_names(tools: usize) -> Vec<Vec<String>> {
        vec![Vec::new(); tools]
    }

    fn content(words: &[&str]) -> BTreeMap<String, f64> {
        words.iter().map(|w| (w.to_string(), 1.0)).collect()
    }

    #[test]
    fn names_say_little_when_most_subjects_are_their_own() {
        let some = |s: &[Option<&str>]| s.iter().map(|s| s.map(str::to_string)).collect::<Vec<_>>();
        assert!(names_say_little(&some(&[
            Some("stash"),
            Some("tag"),
            Some("log"),
            None
        ])));
        assert!(!names_say_little(&some(&[
            Some("stash"),
            Some("tag"),
            Some("log"),
            Some("log")
        ])));
        assert!(!names_say_little(&some(&[
            Some("issue"),
            Some("issue"),
            Some("pr"),
            Some("pr")
        ])));
        // A server past the limit keeps its names' groups, however little
        // they say: grouping its words would hold the listing.
        let padded: Vec<Option<String>> = (0..=MOST_TOOLS)
            .map(|i| Some(format!("padding{i}")))
            .collect();
        assert!(!names_say_little(&padded));
        assert!(names_say_little(&padded[..MOST_TOOLS]));
    }

    #[test]
    fn tools_that_speak_of_the_same_things_are_one_group_named_by_them() {
        let tools = [
            content(&["push", "remote", "url"]),
            content(&["pull", "remote", "url"]),
            content(&["fetch", "remote", "url"]),
            content(&["branch", "merge"]),
            content(&["rebase", "branch", "merge"]),
            content(&["cherry", "branch", "merge"]),
            content(&["log", "history"]),
            content(&["reflog", "log", "history"]),
        ];
        let placed = by_words(&tools, &no_names(tools.len()), 15).expect("groups");
        let groups = group_names(&placed);
        assert_eq!(
            groups,
            [
                "remote", "remote", "remote", "branch", "branch", "branch", "history", "history"
            ]
        );
        let first = placed[0].as_ref().unwrap();
        assert_eq!(first.shared, ["remote", "url"]);
        assert_eq!(first.alike, 2);
        assert!(!first.nearest);
    }

    #[test]
    fn a_group_whose_names_alone_share_a_word_is_named_by_it() {
        // Brave's searches: the texts' rarer words would name them
        // (`metadata`); their names say what they are.
        let tools = [
            content(&["web", "metadata", "results"]),
            content(&["news", "metadata", "results"]),
            content(&["image", "metadata", "results"]),
            content(&["summary", "ai", "answer"]),
            content(&["context", "ai", "answer"]),
            content(&["push", "remote", "url"]),
            content(&["pull", "remote", "url"]),
            content(&["fetch", "remote", "url"]),
        ];
        let names: Vec<Vec<String>> = [
            &["web", "search"][..],
            &["news", "search"],
            &["image", "search"],
            &["summarizer"],
            &["llm", "context"],
            &["push"],
            &["pull"],
            &["fetch"],
        ]
        .iter()
        .map(|name| name.iter().map(|w| w.to_string()).collect())
        .collect();
        let placed = by_words(&tools, &names, 15).expect("groups");
        assert_eq!(
            group_names(&placed),
            [
                "search", "search", "search", "ai", "ai", "remote", "remote", "remote"
            ]
        );
        assert!(placed[0].as_ref().unwrap().by_name);
        assert!(!placed[3].as_ref().unwrap().by_name);
        // A verb leading each name says what is done, not what the tools
        // are: the texts name the group as before.
        let led: Vec<Vec<String>> = names
            .iter()
            .map(|name| name.iter().rev().cloned().collect())
            .collect();
        let placed = by_words(&tools, &led, 15).expect("groups");
        assert_eq!(group_names(&placed)[0], "metadata");
    }

    /// The group each tool was placed in, in the tools' order.
    fn group_names(placed: &[Option<Placed>]) -> Vec<&str> {
        placed
            .iter()
            .map(|p| p.as_ref().expect("a group").group.as_str())
            .collect()
    }

    #[test]
    fn a_group_is_named_by_a_thing_not_by_a_verb_or_an_ability() {
        let tools = [
            content(&["navigate", "address"]),
            content(&["navigate", "link"]),
            content(&["go", "back", "page"]),
            content(&["go", "forward", "page"]),
            content(&["clickable", "element"]),
            content(&["clickable", "element"]),
            content(&["tab", "page"]),
            content(&["tab", "page"]),
            content(&["tab"]),
        ];
        let placed = by_words(&tools, &no_names(tools.len()), 15).expect("groups");
        let groups = group_names(&placed);
        // The noun English makes of the verb; else the page both name,
        // though most tools do; a thing before what can be done to it.
        assert_eq!(
            groups,
            [
                "navigation",
                "navigation",
                "page",
                "page",
                "element",
                "element",
                "tab",
                "tab",
                "tab"
            ]
        );
        assert!(is_ability("clickable") && is_ability("writable"));
        assert!(!is_ability("table") && !is_ability("variable"));
    }

    #[test]
    fn a_verb_s_ing_form_names_a_group_only_where_no_thing_is_left() {
        for gerund in ["returning", "computing", "running"] {
            assert!(is_gerund(gerund), "{gerund}");
        }
        for noun in ["string", "polygon", "ring"] {
            assert!(!is_gerund(noun), "{noun}");
        }
    }

    #[test]
    fn tools_that_share_no_words_make_no_groups() {
        let tools = [
            content(&["stash"]),
            content(&["tag"]),
            content(&["worktree"]),
            content(&["blame"]),
        ];
        assert_eq!(by_words(&tools, &no_names(tools.len()), 15), None);
    }
}
