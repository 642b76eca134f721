//! Tools in groups by subject, and the steps that merge them: a group of
//! a compound's kind, small groups into the container their texts name,
//! lone tools into the nearest group, and a cap on how many there are.

use std::collections::{BTreeMap, BTreeSet};

/// Tools (by position in name order) in groups, each group keyed by its
/// subject.
pub(super) struct Groups {
    /// Each tool's subject; `None` while it has none.
    of: Vec<Option<String>>,
}

impl Groups {
    /// Each tool in the group of the subject among its own that heads most
    /// names of the server (ties: the earlier in its name).
    pub(super) fn first(units: &[Vec<String>]) -> Groups {
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
        let of = units
            .iter()
            .map(|tool| {
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
        Groups { of }
    }

    pub(super) fn of(&self, tool: usize) -> Option<&str> {
        self.of[tool].as_deref()
    }

    /// The members of each group, by subject.
    fn members(&self) -> BTreeMap<String, Vec<usize>> {
        let mut members: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (tool, subject) in self.of.iter().enumerate() {
            if let Some(subject) = subject {
                members.entry(subject.clone()).or_default().push(tool);
            }
        }
        members
    }

    fn rename(&mut self, from: &str, to: &str) {
        for subject in self.of.iter_mut().flatten() {
            if subject == from {
                *subject = to.to_string();
            }
        }
    }

    /// A group of a compound subject joins the group of its last word,
    /// when there is one: a sub-issue is an issue (English compounds name
    /// a kind of their last word).
    pub(super) fn join_kinds(&mut self) {
        let members = self.members();
        for subject in members.keys() {
            if let Some((_, head)) = subject.rsplit_once('-')
                && members.contains_key(head)
            {
                self.rename(subject, head);
            }
        }
    }

    /// Small groups whose tools' texts mostly name another, larger
    /// group's subject join it: branches, commits and releases are "in a
    /// repository". Smallest first, each judged against the groups as
    /// they stand.
    pub(super) fn join_containers(&mut self, texts: &[BTreeSet<String>], scope: &BTreeSet<String>) {
        loop {
            let members = self.members();
            let mut small: Vec<(&String, &Vec<usize>)> = members
                .iter()
                .filter(|(_, tools)| tools.len() <= small_size(texts.len()))
                .collect();
            small.sort_by_key(|(subject, tools)| (tools.len(), (*subject).clone()));
            let joined = small.into_iter().find_map(|(subject, tools)| {
                let target = members
                    .iter()
                    .filter(|(other, others)| {
                        *other != subject
                            && !scope.contains(*other)
                            && others.len() >= 3 * tools.len()
                    })
                    .map(|(other, _)| {
                        let naming = tools.iter().filter(|&&t| texts[t].contains(other)).count();
                        (naming, other)
                    })
                    .filter(|(naming, _)| naming * 3 > tools.len() * 2)
                    .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(a.1)))?;
                Some((subject.clone(), target.1.clone()))
            });
            match joined {
                Some((from, to)) => self.rename(&from, &to),
                None => return,
            }
        }
    }

    /// A tool alone in its group, or with no subject, joins the group
    /// whose words its texts share most (ties: the larger group, then
    /// the name).
    pub(super) fn join_loners(&mut self, texts: &[BTreeSet<String>], weights: &Weights) {
        let members = self.members();
        let groups: Vec<(&String, &Vec<usize>)> = members
            .iter()
            .filter(|(_, tools)| tools.len() >= 2)
            .collect();
        if groups.is_empty() {
            // Nothing to join: the loners form one group of their own.
            self.of = vec![Some("tools".to_string()); self.of.len()];
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
                    let named = texts[tool].contains(*subject);
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
            // A tool near no group stays out of them all rather than
            // joining one by an incidental word.
            let joins = named || closeness >= LONER_CLOSENESS;
            moves.push((tool, joins.then_some(subject.0)));
        }
        for (tool, subject) in moves {
            self.of[tool] = subject;
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
            self.rename(&from, &to);
        }
    }
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

/// How close (cosine of weighted words) a lone tool must be to a group to
/// join it.
const LONER_CLOSENESS: f64 = 0.2;

/// Groups of at most this many tools may join a container (one at least
/// three times their size).
fn small_size(tools: usize) -> usize {
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
