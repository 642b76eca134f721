//! Tools in groups by subject, and the steps that merge them: a group of
//! a compound's kind, small groups into the container their texts name,
//! lone tools into the nearest group, and a cap on how many there are.

use super::english::is_general_verb;
use super::words::Source;
use std::collections::{BTreeMap, BTreeSet};

/// How many names a tool's first subject must head to be its group
/// before a later subject that heads more.
const FIRST_HEADS: usize = 4;

/// How many names must go on past a first subject to another that heads
/// names, for the first to say where things are (see [`qualifiers`]).
const QUALIFIED: usize = 3;

/// Why a tool is in its group: the step that put it there last.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Reason {
    /// Its own subject, read from its name, title or description.
    Subject(Source),
    /// Its name's subject follows this word, which names a place that
    /// holds the things several names are about (`list_repository_tools`:
    /// tools, of a repository).
    Qualified(String),
    /// Its subject is a kind of the group's (`sub-issue`, an issue).
    Kind(String),
    /// A tool of the group lists its subject as a part of the group's.
    Part(String),
    /// Its subject's texts keep naming the group's subject.
    Container(String),
    /// Its name starts with the group's verb, and its subject (if any)
    /// is no other verb's.
    Activity(String),
    /// It was alone, and its words are nearest the group's.
    Near,
    /// It was alone (about this subject, if any), and near no group, as
    /// others were.
    Apart(String),
    /// It was alone (about this subject, if any) beside one group only,
    /// as others were: joining it would leave one group.
    Rest(String),
    /// Its name says no more than the server's own word (this one) and a
    /// verb, and its description acts on nothing of its own: it works on
    /// the thing most such tools' texts name, the group's subject.
    Driven(String),
    /// Its group was among the smallest past the limit, nearest this one.
    Capped(String),
    /// It was alone, and its description names this tool of the group.
    Pointed(String),
    /// Its name says no more than the namespace every name starts with
    /// and a verb, or a subject of its own (this one, if any).
    Namespace(String),
    /// Its name says no more than this namespace and a verb, and its
    /// description's first clause acts on the group's subject, as other
    /// such tools' do or a group is named.
    Acts(String),
    /// It left a group too large to be one area by the thing its name
    /// says of a source.
    Crossed(Crossing),
    /// Its name says a thing of the head's (`actor run`), as a family of
    /// the head's other tools' do, which is an area of its own: the head
    /// (here) alone named several.
    Family(String),
}

/// What a tool's name says after the head of a group too large to be
/// one area (`web_data_amazon_product`: data, amazon, product), and how
/// that put it in its group.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Crossing {
    pub(super) head: String,
    /// Empty when the name says a thing only.
    pub(super) source: String,
    pub(super) thing: String,
    pub(super) how: How,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum How {
    /// Its thing is the group's: so many tools name it, from so many
    /// sources.
    Thing { tools: usize, sources: usize },
    /// Its thing and this one come from these sources both.
    Shared(String, Vec<String>),
    /// Its thing is its own; its source's other tools are in the group.
    Source,
}

/// Tools (by position in name order) in groups, each group keyed by its
/// subject.
pub(super) struct Groups {
    /// Each tool's subject; `None` while it has none.
    of: Vec<Option<String>>,
    why: Vec<Reason>,
}

impl Groups {
    /// Each tool in the group of its first subject when that heads
    /// [`FIRST_HEADS`] names or more, else of the subject among its own
    /// that heads most names of the server (ties: the earlier in its
    /// name). A first subject that only says where the thing a name is
    /// about lives ([`qualifiers`]) yields to the next.
    /// `verb_led`: whether each tool's name starts with a verb.
    pub(super) fn first(units: &[Vec<String>], sources: &[Source], verb_led: &[bool]) -> Groups {
        let mut heads: BTreeMap<&str, usize> = BTreeMap::new();
        for tool in units {
            if let Some(head) = tool.first() {
                *heads.entry(head).or_default() += 1;
            }
        }
        let mut any: BTreeMap<&str, usize> = BTreeMap::new();
        for tool in units {
            for unit in tool.iter().collect::<BTreeSet<_>>() {
                *any.entry(unit).or_default() += 1;
            }
        }
        let qualifiers = qualifiers(units, sources, verb_led, &heads);
        let mut why: Vec<Reason> = sources.iter().map(|&s| Reason::Subject(s)).collect();
        let of = units
            .iter()
            .enumerate()
            .map(|(t, tool)| {
                // Once a word says where things are, each name it leads is
                // about the thing after it (`create_google_doc`: a doc, as
                // `create_google_sheet` is about a sheet), whether or not
                // that thing heads a name of its own.
                let says_where = tool.first().is_some_and(|w| qualifiers.contains(&**w));
                let says_where = says_where && verb_led[t] && sources[t] == Source::Name;
                if let Some(next) = tool.get(1).filter(|_| says_where) {
                    why[t] = Reason::Qualified(tool[0].clone());
                    return Some(next.clone());
                }
                // The thing a name first names, when it is an area of its
                // own (it heads four names or more), is what the tool acts
                // on: `percyVisualTestIntegrationAgent` is about Percy,
                // not tests.
                if let Some(first) = tool.first()
                    && heads.get(first.as_str()).copied().unwrap_or(0) >= FIRST_HEADS
                {
                    return Some(first.clone());
                }
                tool.iter()
                    .enumerate()
                    .max_by_key(|(i, unit)| {
                        let unit = unit.as_str();
                        (
                            heads.get(unit).copied().unwrap_or(0),
                            any.get(unit).copied().unwrap_or(0),
                            std::cmp::Reverse(*i),
                        )
                    })
                    .map(|(_, unit)| unit.clone())
            })
            .collect();
        Groups { of, why }
    }

    pub(super) fn of(&self, tool: usize) -> Option<(&str, &Reason)> {
        self.of[tool]
            .as_deref()
            .map(|group| (group, &self.why[tool]))
    }

    /// How many tools each group has, by subject.
    pub(super) fn sizes(&self) -> BTreeMap<String, usize> {
        self.members()
            .into_iter()
            .map(|(subject, tools)| (subject, tools.len()))
            .collect()
    }

    /// Puts `tool` in the group of `subject`, for `why`.
    pub(super) fn set(&mut self, tool: usize, subject: String, why: Reason) {
        self.of[tool] = Some(subject);
        self.why[tool] = why;
    }

    /// The members of each group, by subject.
    pub(super) fn members(&self) -> BTreeMap<String, Vec<usize>> {
        let mut members: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (tool, subject) in self.of.iter().enumerate() {
            if let Some(subject) = subject {
                members.entry(subject.clone()).or_default().push(tool);
            }
        }
        members
    }

    fn rename(&mut self, from: &str, to: &str, why: impl Fn(&Reason) -> Reason) {
        for (subject, reason) in self.of.iter_mut().zip(&mut self.why) {
            if subject.as_deref() == Some(from) {
                *subject = Some(to.to_string());
                *reason = why(reason);
            }
        }
    }

    /// Tools whose name starts with one specific verb (`verify_`), three
    /// at least, whose subjects no other verb's names share, are an area
    /// of that activity: `verify_value`, `verify_list_visible`. Verbs any
    /// subject takes (`get`, `list`) never are.
    pub(super) fn join_activities(&mut self, leads: &[Option<String>]) {
        // The verbs each subject takes in names (a subject a tool
        // borrowed from its description is not its name's).
        let mut verbs_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for ((subject, lead), why) in self.of.iter().zip(leads).zip(&self.why) {
            if let Some(subject) = subject
                .as_deref()
                .filter(|_| matches!(why, Reason::Subject(Source::Name) | Reason::Qualified(_)))
            {
                verbs_of
                    .entry(subject)
                    .or_default()
                    .insert(lead.as_deref().unwrap_or_default());
            }
        }
        let mut by_verb: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (tool, lead) in leads.iter().enumerate() {
            if let Some(verb) = lead.as_deref().filter(|v| !is_general_verb(v)) {
                by_verb.entry(verb).or_default().push(tool);
            }
        }
        let mut moves = Vec::new();
        for (verb, tools) in by_verb {
            let own: Vec<usize> = tools
                .iter()
                .copied()
                .filter(|&t| {
                    self.of[t]
                        .as_deref()
                        .is_none_or(|subject| verbs_of.get(subject).is_none_or(|v| v.len() == 1))
                })
                .collect();
            if own.len() >= 3 && own.len() * 3 >= tools.len() * 2 {
                moves.extend(own.into_iter().map(|t| (t, verb.to_string())));
            }
        }
        for (tool, verb) in moves {
            self.why[tool] = Reason::Activity(self.of[tool].clone().unwrap_or_default());
            self.of[tool] = Some(verb);
        }
    }

    /// In a server whose names start with one word that is a thing, not
    /// the server's own name (`browser_`), the tools whose names (`in`
    /// that namespace) say no more than that and a verb (`browser_click`),
    /// or a subject no other name shares (`browser_press_key`), act on
    /// that thing itself: when they are a quarter of the tools or more,
    /// they are its group. Those whose descriptions act on one thing
    /// (`objects`), three or more, or on a thing a group is named after,
    /// are that thing's group first. With `own`, or when such tools are
    /// over three quarters of all, the word is the server's own name: the
    /// tools part so, and the rest, a quarter to three quarters of the
    /// tools, take the word most of their `texts` name.
    pub(super) fn join_namespace(
        &mut self,
        namespace: &str,
        within: &[bool],
        objects: &[Option<String>],
        texts: &[BTreeSet<String>],
        own: bool,
    ) {
        let by_name = |reason: &Reason| {
            matches!(
                reason,
                Reason::Subject(Source::Name)
                    | Reason::Qualified(_)
                    | Reason::Kind(_)
                    | Reason::Activity(_)
                    | Reason::Crossed(_)
            )
        };
        let mut named: BTreeMap<&str, usize> = BTreeMap::new();
        for (subject, reason) in self.of.iter().zip(&self.why) {
            if let Some(subject) = subject.as_deref().filter(|_| by_name(reason)) {
                *named.entry(subject).or_default() += 1;
            }
        }
        let bare: Vec<usize> = (0..self.of.len())
            .filter(|&t| within[t])
            .filter(|&t| match &self.of[t] {
                None => true,
                Some(subject) => !by_name(&self.why[t]) || named[subject.as_str()] == 1,
            })
            .collect();
        // Under a quarter of the tools is no area; over three quarters,
        // the namespace is the server's own name, whatever its key.
        let n = self.of.len();
        if bare.len() < 4 || bare.len() * 4 < n {
            return;
        }
        let own = own || bare.len() * 4 > n * 3;
        // The name says the verb only; what it acts on is the thing the
        // description's first clause names. Tools that act on one thing,
        // or on a thing other names are about, are that thing's area.
        let members = self.members();
        let mut acting: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for &t in &bare {
            if let Some(object) = objects[t].as_deref() {
                acting.entry(object).or_default().push(t);
            }
        }
        let mut placed: Vec<(usize, String)> = Vec::new();
        for (object, tools) in acting {
            // A thing most of the namespace's tools speak of is where they
            // all work (`Kubernetes resources`), not an area of some.
            let speak = (0..n)
                .filter(|&t| within[t] && texts[t].contains(object))
                .count();
            if speak * 2 >= within.iter().filter(|&&w| w).count() {
                continue;
            }
            let named = members
                .get(object)
                .is_some_and(|m| m.iter().any(|t| !bare.contains(t)));
            if tools.len() < 3 && !named {
                continue;
            }
            placed.extend(tools.into_iter().map(|t| (t, object.to_string())));
        }
        let rest: Vec<usize> = bare
            .into_iter()
            .filter(|t| !placed.iter().any(|(p, _)| p == t))
            .collect();
        // The server's own word names no group: the rest, when still an
        // area and not the whole server, take the thing most of their
        // texts name (the page a browser's tools work on).
        let group = if own {
            let mut count: BTreeMap<&String, usize> = BTreeMap::new();
            for &t in &rest {
                for word in texts[t].iter().filter(|w| *w != namespace) {
                    *count.entry(word).or_default() += 1;
                }
            }
            let best = count
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
                .map(|(word, _)| word.clone());
            match best {
                Some(word) if rest.len() >= 4 && rest.len() * 4 >= n && rest.len() * 4 <= n * 3 => {
                    word
                }
                _ => return,
            }
        } else {
            namespace.to_string()
        };
        for (t, object) in placed {
            self.of[t] = Some(object);
            self.why[t] = Reason::Acts(namespace.to_string());
        }
        for t in rest {
            let subject = match (&self.of[t], &self.why[t]) {
                (Some(subject), reason) if by_name(reason) => subject.clone(),
                _ => String::new(),
            };
            self.of[t] = Some(group.clone());
            self.why[t] = if own {
                Reason::Driven(namespace.to_string())
            } else {
                Reason::Namespace(subject)
            };
        }
    }

    /// A group of a compound subject joins the group of its last word,
    /// when there is one: a sub-issue is an issue (English compounds name
    /// a kind of their last word).
    pub(super) fn join_kinds(&mut self) {
        self.join_closed_compounds();
        let members = self.members();
        for subject in members.keys() {
            if let Some((_, head)) = subject.rsplit_once('-')
                && members.contains_key(head)
            {
                self.rename(subject, head, |_| Reason::Kind(subject.clone()));
            }
        }
    }

    /// A subject written as one word that ends in a word another subject
    /// has (`localstorage`, `sessionstorage` and `storage-state`) is a
    /// kind of it too: they join under that word.
    fn join_closed_compounds(&mut self) {
        let members = self.members();
        let parts: BTreeSet<&str> = members.keys().flat_map(|s| s.split('-')).collect();
        let mut kinds: BTreeMap<&str, Vec<&String>> = BTreeMap::new();
        for subject in members.keys().filter(|s| !s.contains('-')) {
            let tail = (3..subject.len().saturating_sub(3))
                .filter(|&i| subject.is_char_boundary(i))
                .map(|i| &subject[i..])
                .find(|tail| parts.contains(tail));
            if let Some(tail) = tail {
                kinds.entry(tail).or_default().push(subject);
            }
        }
        // Two such kinds at least: one alone may be a word that merely
        // ends like another (`servicebus`, `bus`).
        let mut renames = Vec::new();
        for (tail, subjects) in kinds.into_iter().filter(|(_, s)| s.len() >= 2) {
            for subject in subjects {
                renames.push((subject.clone(), tail.to_string()));
            }
            for other in members.keys() {
                if other
                    .split_once('-')
                    .is_some_and(|(first, _)| first == tail)
                {
                    renames.push((other.clone(), tail.to_string()));
                }
            }
        }
        for (from, to) in renames {
            self.rename(&from, &to, |_| Reason::Kind(from.clone()));
        }
    }

    /// A group whose subject a larger group's tool lists in parentheses
    /// as part of its own ("storage state (cookies, local storage)")
    /// joins that group: cookies are storage.
    pub(super) fn join_listed(&mut self, listed: &[BTreeSet<String>]) {
        loop {
            let members = self.members();
            let joined = listed.iter().enumerate().find_map(|(tool, items)| {
                let group = self.of[tool].as_ref()?;
                items
                    .iter()
                    .find(|item| {
                        *item != group
                            && members
                                .get(*item)
                                .is_some_and(|part| part.len() < members[group].len())
                    })
                    .map(|item| (item.clone(), group.clone()))
            });
            match joined {
                Some((from, to)) => self.rename(&from, &to, |_| Reason::Part(from.clone())),
                None => return,
            }
        }
    }

    /// A small group whose subject two tools' descriptions or more join
    /// with a larger group's by `and` or `or` ("files and directories")
    /// joins it: the two are things of one kind.
    pub(super) fn join_coordinated(&mut self, pairs: &[BTreeSet<(String, String)>], small: usize) {
        let mut count: BTreeMap<&(String, String), usize> = BTreeMap::new();
        for tool in pairs {
            for pair in tool {
                *count.entry(pair).or_default() += 1;
            }
        }
        loop {
            let members = self.members();
            let joined = count
                .iter()
                .filter(|(_, n)| **n >= 2)
                .map(|(pair, _)| pair)
                .find(|(part, whole)| {
                    let (Some(part), Some(whole)) = (members.get(part), members.get(whole)) else {
                        return false;
                    };
                    part.len() <= small && part.len() < whole.len()
                });
            match joined {
                Some((from, to)) => self.rename(from, to, |_| Reason::Part(from.clone())),
                None => return,
            }
        }
    }

    /// Small groups whose tools' texts mostly name another, larger
    /// group's subject join it: branches, commits and releases are "in a
    /// repository". Smallest first, each judged against the groups as
    /// they stand; then small groups whose descriptions place them in one
    /// container no group has (migrations and SQL "in the database") join
    /// under it.
    pub(super) fn join_containers(
        &mut self,
        texts: &[BTreeSet<String>],
        places: &[BTreeSet<String>],
        scope: &BTreeSet<String>,
    ) {
        while let Some((from, to)) = self.container(texts, scope) {
            self.rename(&from, &to, |_| Reason::Container(from.clone()));
        }
        while let Some((from, to)) = self.shared_container(places, scope) {
            for subject in &from {
                self.rename(subject, &to, |_| Reason::Container(subject.clone()));
            }
        }
    }

    /// The next group to join its container, and the container.
    fn container(
        &self,
        texts: &[BTreeSet<String>],
        scope: &BTreeSet<String>,
    ) -> Option<(String, String)> {
        let members = self.members();
        let mut order: Vec<(&String, &Vec<usize>)> = members.iter().collect();
        order.sort_by_key(|(subject, tools)| (tools.len(), (*subject).clone()));
        let small = small_size(texts.len());
        order.into_iter().find_map(|(subject, tools)| {
            let target = members
                .iter()
                .filter(|(other, others)| {
                    *other != subject && !scope.contains(*other) && others.len() >= 3 * tools.len()
                })
                .filter_map(|(other, _)| {
                    let naming = tools.iter().filter(|&&t| texts[t].contains(other)).count();
                    // A small group joins when most of its tools name the
                    // container, a larger one only when all of them do.
                    let named = if tools.len() <= small {
                        naming * 3 > tools.len() * 2
                    } else {
                        naming == tools.len()
                    };
                    named.then_some((naming, other))
                })
                .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(a.1)))?;
            // Texts that name the scope's group, as large, as often ("a
            // new project or branch") do not say which of the two holds
            // them.
            let size = members[target.1].len();
            let rival = members.iter().any(|(other, others)| {
                other != subject
                    && scope.contains(other)
                    && others.len() >= size
                    && tools.iter().filter(|&&t| texts[t].contains(other)).count() >= target.0
            });
            if rival {
                return None;
            }
            Some((subject.clone(), target.1.clone()))
        })
    }

    /// Groups (two at least, three tools at least), of any size, whose
    /// tools mostly say they work in one place (`places`) that is no
    /// group's subject nor the scope: that place is the area they are in
    /// (kubernetes-mcp-server's resources, namespaces and events are all
    /// `in the current cluster`).
    fn shared_container(
        &self,
        texts: &[BTreeSet<String>],
        scope: &BTreeSet<String>,
    ) -> Option<(Vec<String>, String)> {
        let members = self.members();
        let mut naming: BTreeMap<&String, Vec<(&String, usize)>> = BTreeMap::new();
        for (subject, tools) in &members {
            let words: BTreeSet<&String> = tools.iter().flat_map(|&t| &texts[t]).collect();
            for word in words {
                let count = tools.iter().filter(|&&t| texts[t].contains(word)).count();
                if count * 3 > tools.len() * 2
                    && !scope.contains(word)
                    && !members.contains_key(word)
                    && !subject.split('-').any(|part| part == word)
                {
                    naming.entry(word).or_default().push((subject, tools.len()));
                }
            }
        }
        naming
            .into_iter()
            .map(|(word, groups)| {
                let tools: usize = groups.iter().map(|(_, n)| n).sum();
                (tools, groups.len(), word, groups)
            })
            .filter(|(tools, groups, _, _)| *tools >= 3 && *groups >= 2)
            .max_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(b.2.cmp(a.2)))
            .map(|(_, _, word, groups)| {
                let from = groups.into_iter().map(|(s, _)| s.clone()).collect();
                (from, word.clone())
            })
    }

    /// A tool alone in its group, or with no subject, joins the group
    /// whose words its texts share most (ties: the larger group, then
    /// the name).
    /// A tool alone whose description names a tool of a group (`Use
    /// firecrawl_scrape instead`) works with that tool: it joins its
    /// group, that of the first tool it names that has one, or that the
    /// tool it names, alone too, joins so.
    pub(super) fn join_pointed(&mut self, pointed: &[Vec<(usize, String)>]) {
        let members = self.members();
        let alone = |tool: usize| {
            self.of[tool]
                .as_ref()
                .is_none_or(|subject| members[subject].len() < 2)
        };
        // The group `tool` comes to by the tools it names, first named
        // first, through tools alone as well (each looked at once).
        fn reach(
            tool: usize,
            pointed: &[Vec<(usize, String)>],
            alone: &dyn Fn(usize) -> bool,
            of: &[Option<String>],
            seen: &mut BTreeSet<usize>,
        ) -> Option<String> {
            seen.insert(tool);
            pointed[tool].iter().find_map(|(other, _)| {
                if !alone(*other) {
                    return of[*other].clone();
                }
                if seen.contains(other) {
                    return None;
                }
                reach(*other, pointed, alone, of, seen)
            })
        }
        let moves: Vec<(usize, String, String)> = (0..self.of.len())
            .filter(|&tool| alone(tool))
            .filter_map(|tool| {
                let mut seen = BTreeSet::new();
                let subject = reach(tool, pointed, &alone, &self.of, &mut seen)?;
                // The tool it names that led there, for its reason.
                let name = pointed[tool].iter().find_map(|(other, name)| {
                    let mut seen = BTreeSet::from([tool]);
                    let via = if alone(*other) {
                        reach(*other, pointed, &alone, &self.of, &mut seen)
                    } else {
                        self.of[*other].clone()
                    };
                    (via.as_ref() == Some(&subject)).then(|| name.clone())
                })?;
                Some((tool, subject, name))
            })
            .collect();
        for (tool, subject, name) in moves {
            self.of[tool] = Some(subject);
            self.why[tool] = Reason::Pointed(name);
        }
    }

    pub(super) fn join_loners(
        &mut self,
        texts: &[BTreeSet<String>],
        weights: &Weights,
        scope: &BTreeSet<String>,
    ) {
        let members = self.members();
        let groups: Vec<(&String, &Vec<usize>)> = members
            .iter()
            .filter(|(_, tools)| tools.len() >= 2)
            .collect();
        if groups.is_empty() {
            // No two tools share an area: the server lists one tool per
            // area, and a group of them all would be the server itself
            // (`server:NAME` switches that), under a name that says
            // nothing ("tools").
            self.of = vec![None; self.of.len()];
            return;
        }
        let loners: Vec<usize> = (0..self.of.len())
            .filter(|&t| match &self.of[t] {
                None => true,
                Some(subject) => members[subject].len() < 2,
            })
            .collect();
        let mut moves = Vec::new();
        for tool in loners {
            let (named, closeness, _, subject) = groups
                .iter()
                .map(|(subject, tools)| {
                    let score = weights.closeness(&texts[tool], tools.iter().map(|&t| &texts[t]));
                    // Naming the scope every tool works in (a project)
                    // says nothing of the area.
                    let named = !scope.contains(*subject) && texts[tool].contains(*subject);
                    (
                        named,
                        score,
                        tools.len(),
                        std::cmp::Reverse((*subject).clone()),
                    )
                })
                .max_by(|a, b| {
                    a.0.cmp(&b.0)
                        .then(a.1.total_cmp(&b.1))
                        .then(a.2.cmp(&b.2))
                        .then(a.3.cmp(&b.3))
                })
                .expect("there is a group");
            moves.push((tool, named, closeness, subject.0));
        }
        // Two or more loners beside one group: joined to it, they would
        // leave the server one group, which says nothing. They are its
        // other tools.
        if groups.len() == 1 && moves.len() >= 2 {
            for (tool, ..) in moves {
                let own = self.of[tool].replace(OTHER.to_string());
                self.why[tool] = Reason::Rest(own.unwrap_or_default());
            }
            return;
        }
        // Tools near no group that do not even name the scope the
        // server's tools work in are about something else: two or more
        // are a group of their own, the server's other tools.
        let apart: Vec<usize> = moves
            .iter()
            .filter(|(tool, named, closeness, _)| {
                !named && *closeness < LONER_CLOSENESS && texts[*tool].is_disjoint(scope)
            })
            .map(|(tool, ..)| *tool)
            .collect();
        if apart.len() >= 2 {
            for (tool, _, _, subject) in moves {
                if apart.contains(&tool) {
                    let own = self.of[tool].replace(OTHER.to_string());
                    self.why[tool] = Reason::Apart(own.unwrap_or_default());
                } else {
                    self.of[tool] = Some(subject);
                    self.why[tool] = Reason::Near;
                }
            }
            return;
        }
        // One such tool stays out of them all, as long as nine in ten
        // tools are in a group; past that it joins the nearest.
        let grouped = self.of.len() - moves.len();
        let wanted = (self.of.len() * 9).div_ceil(10).saturating_sub(grouped);
        let mut refused: Vec<(f64, usize)> = moves
            .iter()
            .enumerate()
            .filter(|(_, (_, named, closeness, _))| !named && *closeness < LONER_CLOSENESS)
            .map(|(i, (_, _, closeness, _))| (*closeness, i))
            .collect();
        let accepted = moves.len() - refused.len();
        refused.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let stay_out: BTreeSet<usize> = refused
            .iter()
            .skip(wanted.saturating_sub(accepted))
            .map(|(_, i)| *i)
            .collect();
        let moves: Vec<(usize, Option<String>)> = moves
            .into_iter()
            .enumerate()
            .map(|(i, (tool, _, _, subject))| (tool, (!stay_out.contains(&i)).then_some(subject)))
            .collect();
        for (tool, subject) in moves {
            self.of[tool] = subject;
            self.why[tool] = Reason::Near;
        }
    }

    /// Past `most` groups, the smallest joins the group nearest it, until
    /// `most` are left.
    pub(super) fn cap(&mut self, texts: &[BTreeSet<String>], weights: &Weights, most: usize) {
        loop {
            let members = self.members();
            if members.len() <= most {
                return;
            }
            let (smallest, tools) = members
                .iter()
                .min_by_key(|(subject, tools)| (tools.len(), (*subject).clone()))
                .expect("more than `most` groups");
            let words: BTreeSet<String> = tools.iter().flat_map(|&t| texts[t].clone()).collect();
            let nearest = members
                .iter()
                .filter(|(subject, _)| *subject != smallest)
                .map(|(subject, others)| {
                    let score = weights.closeness(&words, others.iter().map(|&t| &texts[t]));
                    (score, others.len(), std::cmp::Reverse(subject.clone()))
                })
                .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)))
                .expect("another group");
            let (from, to) = (smallest.clone(), nearest.2.0);
            self.rename(&from, &to, |reason| match reason {
                Reason::Capped(first) => Reason::Capped(first.clone()),
                _ => Reason::Capped(from.clone()),
            });
        }
    }
}

/// The subject after a name's first, when the name starts with a verb
/// and says its first subject, then another that heads a name of its
/// own (`list_repository_pull_requests`: pull requests, as
/// `get_pull_request_git_diff` is about).
fn qualified<'a>(
    tool: &'a [String],
    source: Source,
    verb_led: bool,
    heads: &BTreeMap<&str, usize>,
) -> Option<&'a str> {
    let next = tool.get(1).filter(|_| source == Source::Name && verb_led)?;
    (heads.get(next.as_str()).copied().unwrap_or(0) > 0).then_some(next.as_str())
}

/// First subjects that say where things are rather than what a tool
/// acts on: after a verb, at least three of the names they head and at
/// least half go on to a subject that heads names of its own, as
/// Codacy's `list_repository_pull_requests`, `list_repository_tools` and
/// `list_repository_issues` do (pull requests, tools and issues each
/// head other names). A word that starts names before any verb
/// (`atlas-list-clusters`) is a namespace, not this.
fn qualifiers<'a>(
    units: &'a [Vec<String>],
    sources: &[Source],
    verb_led: &[bool],
    heads: &BTreeMap<&str, usize>,
) -> BTreeSet<&'a str> {
    let mut led: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (t, tool) in units.iter().enumerate() {
        let Some(first) = tool
            .first()
            .filter(|_| verb_led[t] && sources[t] == Source::Name)
        else {
            continue;
        };
        let counts = led.entry(first.as_str()).or_default();
        counts.0 += 1;
        if qualified(tool, sources[t], verb_led[t], heads).is_some() {
            counts.1 += 1;
        }
    }
    led.into_iter()
        .filter(|&(_, (all, on))| on >= QUALIFIED && on * 2 >= all)
        .map(|(word, _)| word)
        .collect()
}

/// Subjects most of the server's tools name somewhere in their texts or
/// parameters (GitHub's repository, Supabase's project): the scope every
/// tool works in, so naming it says nothing about which group a tool is
/// near.
pub(super) fn scope_words(texts: &[BTreeSet<String>]) -> BTreeSet<String> {
    let mut count: BTreeMap<&String, usize> = BTreeMap::new();
    for text in texts {
        for word in text {
            *count.entry(word).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(_, n)| *n * 5 > texts.len() * 2)
        .map(|(word, _)| word.clone())
        .collect()
}

/// The group of tools near no other group.
pub(super) const OTHER: &str = "other";

/// How close (cosine of weighted words) a lone tool must be to a group to
/// join it.
const LONER_CLOSENESS: f64 = 0.2;

/// Groups of at most this many tools may join a container (one at least
/// three times their size).
pub(super) fn small_size(tools: usize) -> usize {
    if tools >= 20 { 3 } else { 2 }
}

/// How much a shared word says: words few tools use say more (inverse
/// document frequency).
pub(super) struct Weights {
    idf: BTreeMap<String, f64>,
}

impl Weights {
    pub(super) fn of(texts: &[BTreeSet<String>]) -> Weights {
        let mut df: BTreeMap<&String, usize> = BTreeMap::new();
        for text in texts {
            for word in text {
                *df.entry(word).or_default() += 1;
            }
        }
        let n = texts.len() as f64;
        Weights {
            idf: df
                .into_iter()
                .map(|(word, df)| (word.clone(), (n / df as f64).ln()))
                .collect(),
        }
    }

    /// The weighted words of some tools' texts, summed.
    fn vector<'a>(&self, texts: impl Iterator<Item = &'a BTreeSet<String>>) -> BTreeMap<&str, f64> {
        let mut vector: BTreeMap<&str, f64> = BTreeMap::new();
        for text in texts {
            for word in text {
                if let Some((word, idf)) = self.idf.get_key_value(word) {
                    *vector.entry(word.as_str()).or_default() += idf;
                }
            }
        }
        vector
    }

    /// How close `words` are to a group whose members' words are
    /// `group`: the cosine of their weighted words.
    fn closeness<'a>(
        &self,
        words: &BTreeSet<String>,
        group: impl Iterator<Item = &'a BTreeSet<String>>,
    ) -> f64 {
        let one = self.vector(std::iter::once(words));
        let many = self.vector(group);
        let dot: f64 = one
            .iter()
            .map(|(word, weight)| weight * many.get(word).copied().unwrap_or(0.0))
            .sum();
        let norm = |v: &BTreeMap<&str, f64>| v.values().map(|w| w * w).sum::<f64>().sqrt();
        let norms = norm(&one) * norm(&many);
        if norms == 0.0 { 0.0 } else { dot / norms }
    }
}
