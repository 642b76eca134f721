//! A group that swallows most of a server's tools, whose names cross two
//! kinds of words: after the word they share (`web_data_`), a source
//! (`amazon`, `linkedin`) and a thing (`product`, `posts`). The same
//! thing from several sources is a subject of its own; things that the
//! same sources offer are one area (posts, comments and profiles all come
//! from instagram and tiktok); a tool whose thing no other tool has goes
//! where its source's other tools went.

use super::english::is_verb;
use super::groups::{Crossing, Groups, How, Reason};
use std::collections::{BTreeMap, BTreeSet};

/// A group of more than this many tools, and more than a third of the
/// server's, may be too large to be one area.
const LARGE: usize = 15;

/// Splits each group too large to be one area whose names cross sources
/// with things. `nouns` are verbs the server writes in the plural, nouns
/// in its names (`posts`).
pub(super) fn split_crossed(groups: &mut Groups, units: &[Vec<String>], nouns: &BTreeSet<String>) {
    for (head, tools) in groups.members() {
        if tools.len() > LARGE && tools.len() * 3 > units.len() {
            for (tool, subject, crossing) in crossed(&head, &tools, units, nouns) {
                groups.set(tool, subject, Reason::Crossed(crossing));
            }
        }
    }
}

/// The fewest tools a family of a group's names holds to be an area of
/// its own.
const FAMILY: usize = 3;

/// Splits a group of more than a third of the server's tools whose names,
/// each its own subject's and led by a verb, say after the head a second
/// thing in two families or more of [`FAMILY`] tools each (Airflow's
/// `get_dag_run`, `post_dag_run`, `delete_dag_run`; `get_dag_source`,
/// ...): each family is a group of its own, named by the two words; the
/// head's other tools stay. One family beside the head's own tools is
/// left as it is: a server may publish it apart (Apify's actor runs) or
/// within (LaunchDarkly's AI config variations), and the names cannot
/// tell which.
pub(super) fn split_families(groups: &mut Groups, units: &[Vec<String>], verb_led: &[bool]) {
    for (head, tools) in groups.members() {
        if tools.len() * 3 <= units.len() {
            continue;
        }
        let mut families: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for &tool in &tools {
            // Past a name's leading verb its words are things (`actor
            // run`); where the name leads with its subject, the next word
            // may be the verb (`stories-get-history`). A namespace's
            // group is its area, however its names go on.
            let own = matches!(groups.of(tool), Some((_, Reason::Subject(_))));
            if let [first, second, ..] = units[tool].as_slice()
                && *first == head
                && verb_led[tool]
                && own
            {
                families.entry(second).or_default().push(tool);
            }
        }
        families.retain(|_, members| members.len() >= FAMILY);
        if families.len() >= 2 {
            for (second, members) in families {
                let subject = format!("{head}-{second}");
                for tool in members {
                    groups.set(tool, subject.clone(), Reason::Family(head.clone()));
                }
            }
        }
    }
}

/// One tool's words after the group's head: the source it names first,
/// if it names two things, and the thing it names last.
struct Named {
    tool: usize,
    source: Option<String>,
    thing: String,
}

/// The moves that split the group of `head`: each tool, its new subject
/// and why. None when its names do not cross two things at least with
/// two sources each.
fn crossed(
    head: &str,
    tools: &[usize],
    units: &[Vec<String>],
    nouns: &BTreeSet<String>,
) -> Vec<(usize, String, Crossing)> {
    let named: Vec<Named> = tools
        .iter()
        .filter(|&&t| units[t].first().is_some_and(|first| first == head))
        .filter_map(|&t| {
            // A verb in the middle of a name (`atlas-list-clusters`) is
            // no source.
            let rest: Vec<&String> = units[t][1..]
                .iter()
                .filter(|w| !is_verb(w) || nouns.contains(*w))
                .collect();
            match rest.as_slice() {
                [] => None,
                // Two words that always stand together (`amazon
                // product`) still say a source and a thing.
                [both] if both.contains('-') => {
                    let (source, thing) = both.rsplit_once('-').expect("a compound");
                    Some(Named {
                        tool: t,
                        source: Some(source.to_string()),
                        thing: thing.to_string(),
                    })
                }
                [thing] => Some(Named {
                    tool: t,
                    source: None,
                    thing: thing.to_string(),
                }),
                [source, .., thing] => Some(Named {
                    tool: t,
                    source: Some(source.to_string()),
                    thing: thing.to_string(),
                }),
            }
        })
        .collect();
    let mut sources: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for one in &named {
        *count.entry(&one.thing).or_default() += 1;
        if let Some(source) = &one.source {
            sources.entry(&one.thing).or_default().insert(source);
        }
    }
    // Things from two sources or more, the larger first.
    let mut things: Vec<&str> = sources
        .iter()
        .filter(|(_, from)| from.len() >= 2)
        .map(|(thing, _)| *thing)
        .collect();
    if things.len() < 2 {
        return Vec::new();
    }
    things.sort_by_key(|thing| (std::cmp::Reverse(count[thing]), *thing));
    let area = areas(&things, &sources);
    let mut moves: Vec<(usize, String, Crossing)> = Vec::new();
    for one in named
        .iter()
        .filter(|one| area.contains_key(one.thing.as_str()))
    {
        let root = area[one.thing.as_str()];
        let how = if root == one.thing {
            How::Thing {
                tools: count[root],
                sources: sources[root].len(),
            }
        } else {
            let (with, shared) = partner(&one.thing, root, &area, &things, &sources);
            How::Shared(with, shared)
        };
        moves.push((one.tool, root.to_string(), crossing(head, one, how)));
    }
    // A tool whose thing is its own goes where its source's other tools
    // went, when they all went one way.
    let mut went: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for one in named
        .iter()
        .filter(|one| area.contains_key(one.thing.as_str()))
    {
        if let Some(source) = &one.source {
            went.entry(source)
                .or_default()
                .insert(area[one.thing.as_str()]);
        }
    }
    for one in named
        .iter()
        .filter(|one| !area.contains_key(one.thing.as_str()))
    {
        let Some(subjects) = one.source.as_deref().and_then(|s| went.get(s)) else {
            continue;
        };
        if let [subject] = subjects.iter().collect::<Vec<_>>().as_slice() {
            let how = How::Source;
            moves.push((one.tool, subject.to_string(), crossing(head, one, how)));
        }
    }
    moves
}

fn crossing(head: &str, one: &Named, how: How) -> Crossing {
    Crossing {
        head: head.to_string(),
        source: one.source.clone().unwrap_or_default(),
        thing: one.thing.clone(),
        how,
    }
}

/// Each thing's area, named by its largest thing: two things that two
/// sources or more both offer are one area.
fn areas<'a>(
    things: &[&'a str],
    sources: &BTreeMap<&str, BTreeSet<&str>>,
) -> BTreeMap<&'a str, &'a str> {
    let mut area: BTreeMap<&str, &str> = things.iter().map(|&t| (t, t)).collect();
    let root = |area: &BTreeMap<&str, &'a str>, mut thing: &'a str| {
        while area[thing] != thing {
            thing = area[thing];
        }
        thing
    };
    for (i, &a) in things.iter().enumerate() {
        for &b in &things[i + 1..] {
            let (ra, rb) = (root(&area, a), root(&area, b));
            if ra != rb && sources[a].intersection(&sources[b]).count() >= 2 {
                // `things` is larger first: the earlier root names both.
                let (keep, join) = if position(things, ra) < position(things, rb) {
                    (ra, rb)
                } else {
                    (rb, ra)
                };
                area.insert(join, keep);
            }
        }
    }
    things.iter().map(|&t| (t, root(&area, t))).collect()
}

fn position(things: &[&str], thing: &str) -> usize {
    things
        .iter()
        .position(|&t| t == thing)
        .unwrap_or(usize::MAX)
}

/// The thing of `root`'s area that shares most sources with `thing`
/// (ties: the larger), and those sources.
fn partner(
    thing: &str,
    root: &str,
    area: &BTreeMap<&str, &str>,
    things: &[&str],
    sources: &BTreeMap<&str, BTreeSet<&str>>,
) -> (String, Vec<String>) {
    things
        .iter()
        .filter(|&&other| other != thing && area[other] == root)
        .map(|&other| {
            let shared: Vec<String> = sources[thing]
                .intersection(&sources[other])
                .map(|s| s.to_string())
                .collect();
            (other, shared)
        })
        .max_by_key(|(other, shared)| (shared.len(), std::cmp::Reverse(position(things, other))))
        .map(|(other, shared)| (other.to_string(), shared))
        .unwrap_or_default()
}
