//! Progressive disclosure (DESIGN §9): the proxy's own search tools and the
//! index they search.
//!
//! A profile in search mode lists only its pinned tools plus
//! `sieve__find_tools` and `sieve__call_tool`. The search ranks the tools
//! the profile allows by BM25F over the stems of their name (a name says
//! most), title, description, parameter names and values, and labels,
//! each word weighted by the part it stands in. A query is first expanded
//! through the [`Lexicon`] (WordNet, software senses and the words used
//! alike in software requests: "folder" finds directories, "who am i"
//! finds `whoami`, "notification" alerts), one slot per word, so plain
//! words find tools named in other words. A slot weighs by how many
//! tools its whole sense matches, so a broad verb ("show": list, view,
//! get...) weighs little whatever synonym a name carries, and a tool
//! loses by the share of the query it does not match. The word as typed,
//! when few of its slot's tools have it, weighs by its own rarity in the
//! tools whose name, title or first sentence say it: one tool that says
//! "website" is not drowned by many named for its senses (page, link).
//! A word that no
//! tool has, nor any of its relatives, counts by its broader actions and
//! the words of its definition instead. No model to
//! download; at a few hundred or thousand tools the index is built in
//! milliseconds, so an index per profile view is cheap.

use crate::action::{self, Effect};
use crate::catalog::Primitive;
use crate::labels;
use crate::lexicon::{self, Lexicon};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

mod given;

use given::{Given, given_in, takes_of};

/// The server part of the search tools' exposed names.
pub const SEARCH_SERVER: &str = "sieve";
/// The search tool's own name (`sieve__find_tools` with the default
/// separator).
pub const FIND_TOOLS: &str = "find_tools";
/// The call-through tool's own name.
pub const CALL_TOOL: &str = "call_tool";
/// How many tools a search returns unless asked otherwise, and at most.
pub const DEFAULT_LIMIT: usize = 5;
pub const MAX_LIMIT: usize = 50;

/// The exposed name of the search tool `name` under `separator`.
pub fn search_tool_name(name: &str, separator: &str) -> String {
    format!("{SEARCH_SERVER}{separator}{name}")
}

/// The two search tools as a host receives them.
pub fn search_tools(separator: &str) -> Vec<Value> {
    let find = search_tool_name(FIND_TOOLS, separator);
    let call = search_tool_name(CALL_TOOL, separator);
    vec![
        json!({
            "name": find,
            "title": "Find tools",
            "description": format!(
                "Search, in plain words, the tools you may use that are not listed. \
                 Returns the best matches, each with its full definition; call one \
                 with {call}."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the tool should do, e.g. \"open a pull request\""},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": format!("How many tools at most (default {DEFAULT_LIMIT})")}
                },
                "required": ["query"]
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": call,
            "title": "Call a found tool",
            "description": format!(
                "Call a tool that {find} returned, by its name, with its arguments."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": format!("The tool's name as {find} gave it")},
                    "arguments": {"type": "object", "description": "The tool's arguments, as its inputSchema says"}
                },
                "required": ["name"]
            }
        }),
    ]
}

/// A found tool as the model reads it in `find_tools`' answer: its
/// definition as the host would list it, without MCP Sieve's own labels
/// (`_meta["dev.mcp-sieve/..."]`; a `_meta` left empty goes too).
pub fn found_definition(mut tool: Value) -> Value {
    if let Some(object) = tool.as_object_mut() {
        let emptied = object
            .get_mut("_meta")
            .and_then(Value::as_object_mut)
            .map(|meta| {
                meta.retain(|key, _| !key.starts_with(crate::labels::META_PREFIX));
                meta.is_empty()
            });
        if emptied == Some(true) {
            object.remove("_meta");
        }
    }
    tool
}

/// What `find_tools` says when `query` matches no tool the profile
/// allows: so, and the groups of the tools it does allow, whose words
/// find them.
pub fn nothing_found(query: &str, groups: &std::collections::BTreeSet<String>) -> String {
    nothing_close(query, groups, &[])
}

/// [`nothing_found`], then the names of the tools `nearest` (those
/// nearest in meaning, when none is close), which the answer still lists.
pub fn nothing_close(
    query: &str,
    groups: &std::collections::BTreeSet<String>,
    nearest: &[&str],
) -> String {
    let nearest = if nearest.is_empty() {
        String::new()
    } else {
        format!(
            " The nearest in meaning, though not close, are listed: {}.",
            nearest.join(", ")
        )
    };
    if groups.is_empty() {
        return format!(
            "No tool matches {query:?}; this profile allows no tools beyond those listed.{nearest}"
        );
    }
    let named: Vec<&str> = groups.iter().map(String::as_str).collect();
    format!(
        "No tool matches {query:?}; the tools this profile allows are in these groups: {}. Search again with the words of what you want to do in one of them.{nearest}",
        named.join(", ")
    )
}

/// The parts of a tool its words come from, each with how much a word
/// there counts (a name says most) and how much a long part is
/// discounted (BM25F's per-field `b`: a long description should not
/// drown the words of a short name).
#[derive(Clone, Copy)]
enum Part {
    Name,
    Title,
    Description,
    Parameters,
    Labels,
    /// The description past its first sentence: how to use the tool,
    /// caveats, examples, which name much the tool does not do.
    Details,
}

const PARTS: usize = 6;
const WEIGHT: [f32; PARTS] = [3.0, 2.0, 1.0, 0.7, 1.0, DETAILS];
const LENGTH_DISCOUNT: [f32; PARTS] = [0.3, 0.5, 0.75, 0.5, 0.3, 0.75];
const DETAILS: f32 = 0.5;
/// BM25's saturation.
const K1: f32 = 1.2;
/// How much a tool that matches only some of the query's words (weighed
/// by their rarity) loses: its score times the share it matches to this
/// power.
const COVERAGE: f32 = 1.0;
/// Below what share of a slot's matches the word as typed weighs by its
/// own rarity rather than its senses': when most tools that match the
/// slot have the word itself, its senses add little to drown it.
const LITERAL_SHARE: f32 = 0.5;

/// A text field of a tool's definition, empty when it has none.
fn field<'a>(definition: &'a Value, key: &str) -> &'a str {
    definition
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The words a tool is found by, each with the part it came from: name,
/// title, description, parameter names, labels.
fn words_of(p: &Primitive) -> Vec<(String, Part)> {
    let definition = p.host_definition();
    let text = |key: &str| field(&definition, key).to_string();
    let mut words = Vec::new();
    let mut add = |text: &str, part: Part| {
        for word in lexicon::words(text) {
            words.push((word, part));
        }
    };
    add(&p.name, Part::Name);
    add(&text("title"), Part::Title);
    let description = text("description");
    let (summary, details) = first_sentence(&description);
    add(summary, Part::Description);
    add(details, Part::Details);
    if let Some(properties) = definition
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    {
        for (name, property) in properties {
            add(name, Part::Parameters);
            // The values a parameter takes say what the tool tells apart
            // (`state`: open, closed, merged).
            let values = property.get("enum").and_then(Value::as_array);
            for value in values.into_iter().flatten().filter_map(Value::as_str) {
                add(value, Part::Parameters);
            }
        }
    }
    // The tags of MCP's behaviour hints say how a tool acts, not what it
    // is about: "open-world" would find every tool for "open a page".
    let hints = [
        labels::TAG_READ_ONLY,
        labels::TAG_DESTRUCTIVE,
        labels::TAG_IDEMPOTENT,
        labels::TAG_OPEN_WORLD,
    ];
    let tags = p
        .labels
        .tags
        .iter()
        .filter(|tag| !hints.contains(&tag.as_str()));
    for label in p.labels.groups.iter().chain(tags) {
        add(label, Part::Labels);
    }
    words
}

/// A stem in one tool: (the tool, its weighted count, its strength).
type Posting = (u32, f32, f32);

/// A description's first sentence (what the tool does) and the rest.
fn first_sentence(description: &str) -> (&str, &str) {
    let end = [". ", ".\n", "\n\n"]
        .iter()
        .filter_map(|mark| description.find(mark))
        .min()
        .map_or(description.len(), |end| end + 1);
    description.split_at(end)
}

/// How often each stem stands in each part of one tool. Ordered: a
/// stem's weighted count sums its parts in one order on every run, so
/// the same query ranks near-ties the same way each time (a hash map's
/// order differs from process to process, and with it the last bits of a
/// float sum).
type PartCounts = std::collections::BTreeMap<(String, usize), f32>;

/// An index over some tools, each known by a key of the caller's: BM25F
/// over the stems of their words, searched with a query expanded through
/// the [`Lexicon`].
pub struct ToolIndex {
    lexicon: Arc<Lexicon>,
    keys: Vec<usize>,
    /// Stem → (tool, its count there, weighted and length-normalised per
    /// part; how strongly the tool is about it, 1 when its name has it,
    /// less when only a part weighing less does) for each tool that has
    /// it.
    postings: HashMap<String, Vec<Posting>>,
    /// Each tool as a sentence model reads it ([`sentence_of`]).
    sentences: Vec<String>,
    /// Per tool, the kinds of values its parameters take ([`Given`]).
    takes: Vec<Vec<Given>>,
    /// Per tool: whether it only reads (its `read-only` tag, stated or
    /// derived), to meet what a request asks done ([`action::asked`]).
    reads: Vec<bool>,
}

/// A request as the sentence model reads it: without what it quotes or
/// reports ([`crate::wording::without_what_is_said`]).
pub fn as_the_model_reads(query: &str) -> String {
    crate::wording::without_what_is_said(query).into_owned()
}

/// The share of a tool's blended score that is the sentence model's
/// likeness ([`ToolIndex::blended`]); the rest is its score by words over
/// the query's best. Chosen on the seen query sets (round 8: 0.8 to 0.9
/// scored alike) and not on the held-out ones.
pub const MODEL_SHARE: f32 = 0.85;

/// A query that shares no word with any tool is said to match nothing
/// unless a tool is at least this alike ([`Blended::close`]): queries that
/// mean none of a catalog's tools ("bake a cake") reach 0.1 to 0.29 on
/// the 42 catalogs of the quality sets. The nearest tools are still
/// given, since a weak likeness is often right ("forget everything about
/// Bob": `delete_entities`, 0.27).
pub const MIN_LIKENESS: f32 = 0.3;

/// When the words single out one tool, scoring it this many times the
/// next, the blend keeps it in its top 3 ([`ToolIndex::blended`]): the
/// model can read a plain request past the one tool it names ("press the
/// sign in button": `browser_click` first by words, fourth blended,
/// behind `browser_press_key`). Chosen on the query sets scored before
/// round 11 (1.25 and 1.5 each found 3 more of 733, none fewer; 2 found 1
/// more); held-out-10, scored after, found 1 more with it.
pub const WORDS_CLEAR_LEAD: f32 = 1.5;

/// What a tool gains in the blend when it does what the request asks
/// done: reads for a question, changes for a request to change.
const INTENT: f32 = 0.08;
const WORDS_INTENT: f32 = 0.3;

/// What [`ToolIndex::blended`] finds.
#[derive(Debug, Clone, PartialEq)]
pub struct Blended {
    /// The keys of the best tools, best first.
    pub keys: Vec<usize>,
    /// Whether any tool matches a word of the query or is
    /// [`MIN_LIKENESS`] alike; when not, the keys are only the nearest.
    pub close: bool,
}

/// The tool the words single out, if any: first of `scored` (best first,
/// as [`ToolIndex::scored`] orders them), at least [`WORDS_CLEAR_LEAD`]
/// times the next.
fn clear_lead(scored: &[(usize, f32)]) -> Option<usize> {
    let &(lead, best) = scored.first()?;
    let next = scored.get(1).map_or(0.0, |&(_, score)| score);
    (best > 0.0 && best >= WORDS_CLEAR_LEAD * next).then_some(lead)
}

/// How a sentence model reads a tool: its name in words
/// (`get_pullRequest` → "get pull request"), its title and its
/// description, as the host sees them, joined as sentences.
pub fn sentence_of(p: &Primitive) -> String {
    let definition = p.host_definition();
    let text = |key: &str| field(&definition, key).trim().to_string();
    let name = lexicon::words(&p.name).join(" ");
    [name, text("title"), text("description")]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(". ")
}

impl ToolIndex {
    /// Indexes `tools`, each with its key.
    pub fn build<'a>(tools: impl IntoIterator<Item = (usize, &'a Primitive)>) -> ToolIndex {
        let lexicon = Lexicon::shared();
        let mut keys = Vec::new();
        let mut sentences = Vec::new();
        let mut stems: HashMap<String, String> = HashMap::new();
        // Per tool: (stem, part) counts and each part's length.
        let mut tools_words: Vec<(PartCounts, [f32; PARTS])> = Vec::new();
        let mut takes = Vec::new();
        let mut reads = Vec::new();
        for (key, tool) in tools {
            keys.push(key);
            sentences.push(sentence_of(tool));
            takes.push(takes_of(&tool.host_definition()));
            reads.push(tool.labels.tags.iter().any(|t| t == labels::TAG_READ_ONLY));
            let mut counts = PartCounts::new();
            let mut lengths = [0.0f32; PARTS];
            for (word, part) in words_of(tool) {
                let stem = stems
                    .entry(word)
                    .or_insert_with_key(|word| lexicon.stem(word));
                *counts.entry((stem.clone(), part as usize)).or_default() += 1.0;
                lengths[part as usize] += 1.0;
            }
            tools_words.push((counts, lengths));
        }
        let mut average = [0.0f32; PARTS];
        for (_, lengths) in &tools_words {
            for (sum, length) in average.iter_mut().zip(lengths) {
                *sum += length;
            }
        }
        for sum in &mut average {
            *sum = (*sum / tools_words.len().max(1) as f32).max(1.0);
        }
        let mut postings: HashMap<String, Vec<Posting>> = HashMap::new();
        for (doc, (counts, lengths)) in tools_words.into_iter().enumerate() {
            let mut weighted: HashMap<String, (f32, f32)> = HashMap::new();
            for ((stem, part), count) in counts {
                let norm = 1.0 - LENGTH_DISCOUNT[part]
                    + LENGTH_DISCOUNT[part] * lengths[part] / average[part];
                // A name says what the tool is about once, however often
                // it repeats a word (`request_pull_request_reviewers`).
                let count = if part == Part::Name as usize {
                    count.min(1.0)
                } else {
                    count
                };
                let (sum, strength) = weighted.entry(stem).or_default();
                *sum += WEIGHT[part] * count / norm;
                *strength = strength.max(WEIGHT[part] / WEIGHT[Part::Name as usize]);
            }
            for (stem, (count, strength)) in weighted {
                postings
                    .entry(stem)
                    .or_default()
                    .push((doc as u32, count, strength));
            }
        }
        ToolIndex {
            lexicon,
            keys,
            postings,
            sentences,
            takes,
            reads,
        }
    }

    /// Each indexed tool as a sentence model reads it, in the order the
    /// tools were given.
    pub fn sentences(&self) -> Vec<&str> {
        self.sentences.iter().map(String::as_str).collect()
    }

    /// The keys of the best `limit` tools for `query`, blending each
    /// tool's score by words (over the query's best) with `likeness`, the
    /// sentence model's likeness of the query and each tool in the order
    /// of [`ToolIndex::sentences`]: [`MODEL_SHARE`] of the score is the
    /// likeness; ties in key order. A tool the words single out
    /// ([`WORDS_CLEAR_LEAD`]) stays in the top 3.
    pub fn blended(&self, query: &str, limit: usize, likeness: &[f32]) -> Blended {
        assert_eq!(likeness.len(), self.keys.len(), "one likeness per tool");
        let scored = self.scored(query, usize::MAX);
        let best = scored.first().map_or(0.0, |&(_, score)| score);
        let lead = clear_lead(&scored);
        let by_words: HashMap<usize, f32> = scored.into_iter().collect();
        let most_alike = likeness.iter().copied().fold(f32::MIN, f32::max);
        let close = !by_words.is_empty() || most_alike >= MIN_LIKENESS;
        let asked = action::asked(query).map(|effect| effect == Effect::Reads);
        let mut found: Vec<(usize, f32)> = self
            .keys
            .iter()
            .zip(likeness)
            .zip(&self.reads)
            .map(|((&key, &alike), &reads)| {
                let words = by_words.get(&key).map_or(0.0, |score| score / best);
                let fits = if asked == Some(reads) { INTENT } else { 0.0 };
                (
                    key,
                    (1.0 - MODEL_SHARE) * words + MODEL_SHARE * alike + fits,
                )
            })
            .collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if let Some(lead) = lead {
            let third = found.len().min(3).saturating_sub(1);
            if let Some(at) = found.iter().position(|(key, _)| *key == lead)
                && at > third
            {
                let kept = found.remove(at);
                found.insert(third, kept);
            }
        }
        found.truncate(limit);
        Blended {
            keys: found.into_iter().map(|(key, _)| key).collect(),
            close,
        }
    }

    /// The keys of the best `limit` matches of `query`, best first; ties
    /// in key order, so the same query gives the same answer.
    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        self.by_words(query, limit, WORDS_INTENT)
            .into_iter()
            .map(|(key, _)| key)
            .collect()
    }

    /// The best `limit` matches of `query` with their scores by words
    /// alone, best first; a tool that matches no word of the query is left
    /// out. What the request asks done is left to the caller (the blend
    /// weighs it in its own way).
    pub fn scored(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        self.by_words(query, limit, 0.0)
    }

    /// [`ToolIndex::scored`], a tool that does what the request asks done
    /// ([`action::asked`]) scoring `1 + intent` times as much.
    fn by_words(&self, query: &str, limit: usize, intent: f32) -> Vec<(usize, f32)> {
        let asked = (intent > 0.0)
            .then(|| action::asked(query))
            .flatten()
            .map(|effect| effect == Effect::Reads);
        let tools = self.keys.len();
        let idf_of = |having: f32| {
            let all = tools as f32;
            (1.0 + (all - having + 0.5) / (having + 0.5)).ln()
        };
        let mut scores = vec![0.0f32; tools];
        // Per tool, the rarity of the query's slots it matches at all.
        let mut covered = vec![0.0f32; tools];
        let mut rarity_total = 0.0f32;
        // Per tool, for the slot at hand: how strongly it is about the
        // slot, and its best alternative's weighted BM25 term.
        let mut strength = vec![0.0f32; tools];
        let mut term = vec![0.0f32; tools];
        // The same for the word as typed (weight 1: the word, its stem,
        // words a name writes as one), without its expansions: how
        // strongly each tool has it anywhere, and its term where a part
        // that says what the tool does (name, title, first sentence,
        // labels) has it.
        let mut literal_strength = vec![0.0f32; tools];
        let mut literal_term = vec![0.0f32; tools];
        let said = WEIGHT[Part::Description as usize] / WEIGHT[Part::Name as usize];
        // What the person gives (a web address, coordinates) is
        // a slot of its own, matched by the tools whose parameters take
        // it, as a parameter word would be; its pieces are no words.
        let (given, query) = given_in(query);
        // What the request quotes or reports is what the person gives,
        // not what they ask for.
        let query = crate::wording::without_what_is_said(&query);
        for kind in given {
            let taking: Vec<usize> = (0..tools)
                .filter(|&doc| self.takes[doc].contains(&kind))
                .collect();
            if taking.is_empty() {
                continue;
            }
            let rarity = idf_of(taking.len() as f32);
            let count = WEIGHT[Part::Parameters as usize];
            let bm25 = count * (K1 + 1.0) / (count + K1);
            rarity_total += rarity;
            for doc in taking {
                scores[doc] += rarity * bm25;
                covered[doc] += rarity;
            }
        }
        for slot in self.lexicon.expand(&query) {
            for values in [
                &mut strength,
                &mut term,
                &mut literal_strength,
                &mut literal_term,
            ] {
                values.iter_mut().for_each(|v| *v = 0.0);
            }
            let known = |stems: &[(String, f32)]| {
                stems
                    .iter()
                    .any(|(stem, _)| self.postings.contains_key(stem))
            };
            // A word no tool has, nor any of its alternatives, falls back
            // on its broader words.
            let stems = if known(&slot.alternatives) {
                &slot.alternatives
            } else {
                &slot.broader
            };
            for (stem, weight) in stems {
                let typed = *weight >= 1.0;
                for (doc, count, about) in self.postings.get(stem).into_iter().flatten() {
                    let doc = *doc as usize;
                    let bm25 = weight * count * (K1 + 1.0) / (count + K1);
                    strength[doc] = strength[doc].max(weight * about);
                    term[doc] = term[doc].max(bm25);
                    if typed {
                        literal_strength[doc] = literal_strength[doc].max(*about);
                        if *about >= said {
                            literal_term[doc] = literal_term[doc].max(bm25);
                        }
                    }
                }
            }
            // How many tools the slot matches, each counted by the weight
            // of its best word there: a broad verb ("show": list, view,
            // get, read...) matches most tools and so says little,
            // whatever word stands in a name; a word no tool has but
            // whose sense many have ("folder": directory) says as little
            // as that sense. The rarity is one factor of the slot, so
            // each tool's best term is found before it is known.
            let matched: f32 = strength.iter().sum();
            if matched == 0.0 {
                continue;
            }
            let slot_rarity = idf_of(matched);
            // The word as typed, when few of the slot's tools have it
            // and many have only its senses, weighs by its own rarity in
            // the tools that say it: "website" in one tool's first
            // sentence is not drowned by the many tools whose names say
            // "page" or "link" (issue 34).
            let literal_matched: f32 = literal_strength.iter().sum();
            let literal_rarity =
                if literal_matched > 0.0 && literal_matched < LITERAL_SHARE * matched {
                    idf_of(literal_matched).max(slot_rarity)
                } else {
                    slot_rarity
                };
            rarity_total += slot_rarity;
            for doc in 0..tools {
                if term[doc] > 0.0 {
                    scores[doc] +=
                        (literal_rarity * literal_term[doc]).max(slot_rarity * term[doc]);
                    covered[doc] += slot_rarity;
                }
            }
        }
        let mut found: Vec<(usize, f32)> = scores
            .into_iter()
            .zip(covered)
            .enumerate()
            .filter(|(_, (score, _))| *score > 0.0)
            .map(|(doc, (score, covered))| {
                let coverage = covered / rarity_total.max(f32::EPSILON);
                let score = score * coverage.powf(COVERAGE);
                let fits = asked == Some(self.reads[doc]);
                (
                    self.keys[doc],
                    if fits { score * (1.0 + intent) } else { score },
                )
            })
            .collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        found.truncate(limit);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, Kind, ServerListing};
    use crate::config::Overlays;

    #[test]
    fn the_search_tools_say_each_other_s_names_in_full() {
        let tools = search_tools("__");
        let text = serde_json::to_string(&tools).unwrap();
        assert!(
            !text.contains("{find}") && !text.contains("{call}"),
            "{text}"
        );
        assert_eq!(
            tools[1]["inputSchema"]["properties"]["name"]["description"],
            "The tool's name as sieve__find_tools gave it"
        );
    }

    #[test]
    fn a_found_tool_keeps_its_definition_without_sieve_s_labels() {
        let tool = json!({
            "name": "gh__get_issue",
            "description": "Gets an issue",
            "inputSchema": {"type": "object"},
            "_meta": {"dev.mcp-sieve/groups": ["gh/issues"], "vendor/x": 1}
        });
        let found = found_definition(tool);
        assert_eq!(found["_meta"], json!({"vendor/x": 1}));
        assert_eq!(found["inputSchema"], json!({"type": "object"}));
        let only_ours = json!({"name": "a", "_meta": {"dev.mcp-sieve/server": "gh"}});
        assert_eq!(found_definition(only_ours), json!({"name": "a"}));
    }

    #[test]
    fn nothing_found_names_the_groups_there_are() {
        let groups = ["gh/issues".to_string(), "gh/pull-requests".to_string()].into();
        let said = nothing_found("bake a cake", &groups);
        assert!(
            said.starts_with("No tool matches \"bake a cake\""),
            "{said}"
        );
        assert!(said.contains("gh/issues, gh/pull-requests"), "{said}");
        assert!(!said.contains("nearest"), "{said}");
        let far = nothing_close(
            "forget Bob",
            &groups,
            &["delete_entities", "delete_relations"],
        );
        assert!(far.starts_with("No tool matches \"forget Bob\""), "{far}");
        assert!(
            far.ends_with("The nearest in meaning, though not close, are listed: delete_entities, delete_relations."),
            "{far}"
        );
    }

    #[test]
    fn a_question_prefers_the_tool_that_reads_and_a_change_the_one_that_changes() {
        // Both speak of the calendar's events in the same words; the
        // request says which it wants done.
        let tools = vec![
            json!({"name": "update-event", "description": "Update an event on the calendar.", "inputSchema": {"type": "object"}}),
            json!({"name": "list-events", "description": "List the events on the calendar.", "inputSchema": {"type": "object"}}),
        ];
        let catalog = Catalog::build(
            "__",
            &Overlays::default(),
            &[ServerListing::tools("cal", tools)],
        );
        let all: Vec<_> = catalog.of_kind(Kind::Tool).enumerate().collect();
        let index = ToolIndex::build(all.iter().map(|(i, p)| (*i, *p)));
        let first = |query: &str| all[index.search(query, 1)[0]].1.name.clone();
        assert_eq!(first("what is on the calendar on Tuesday"), "list-events");
        assert_eq!(
            first("update the calendar event on Tuesday"),
            "update-event"
        );
        // The same in the blend, where the model finds both equally alike.
        let blended = |query: &str| {
            all[index.blended(query, 1, &[0.5, 0.5]).keys[0]]
                .1
                .name
                .clone()
        };
        assert_eq!(blended("what is on the calendar on Tuesday"), "list-events");
        assert_eq!(
            blended("update the calendar event on Tuesday"),
            "update-event"
        );
    }

    #[test]
    fn finds_by_plain_words_and_ranks_the_name_first() {
        let tools = vec![
            json!({"name": "create_pull_request", "description": "Open a new pull request in a repository.", "inputSchema": {"type": "object"}}),
            json!({"name": "add_issue_comment", "description": "Add a comment to an issue.", "inputSchema": {"type": "object"}}),
            json!({"name": "list_commits", "description": "List commits of a branch; each has a comment count.", "inputSchema": {"type": "object"}}),
        ];
        let catalog = Catalog::build(
            "__",
            &Overlays::default(),
            &[ServerListing::tools("gh", tools)],
        );
        let all: Vec<_> = catalog.of_kind(Kind::Tool).enumerate().collect();
        let index = ToolIndex::build(all.iter().map(|(i, p)| (*i, *p)));
        let name = |query: &str| {
            index
                .search(query, 1)
                .first()
                .map(|i| all[*i].1.name.clone())
                .unwrap_or_default()
        };
        assert_eq!(name("open a pull request"), "create_pull_request");
        assert_eq!(name("comment on an issue"), "add_issue_comment");
        assert_eq!(name("commits"), "list_commits");
        assert!(index.search("kubernetes", 5).is_empty());
    }

    /// The names of the best `limit` tools for `query` among `tools`.
    fn ranked(tools: Vec<Value>, query: &str, limit: usize) -> Vec<String> {
        let catalog = Catalog::build(
            "__",
            &Overlays::default(),
            &[ServerListing::tools("k", tools)],
        );
        let all: Vec<_> = catalog.of_kind(Kind::Tool).enumerate().collect();
        let index = ToolIndex::build(all.iter().map(|(i, p)| (*i, *p)));
        index
            .search(query, limit)
            .into_iter()
            .map(|i| all[i].1.name.clone())
            .collect()
    }

    /// The index of one server's `tools`, keyed by their order.
    fn index_of(tools: Vec<Value>) -> ToolIndex {
        let catalog = Catalog::build(
            "__",
            &Overlays::default(),
            &[ServerListing::tools("k", tools)],
        );
        ToolIndex::build(catalog.of_kind(Kind::Tool).enumerate())
    }

    fn tool(name: &str, description: &str) -> Value {
        json!({"name": name, "description": description, "inputSchema": {"type": "object"}})
    }

    #[test]
    fn a_request_gives_web_addresses_and_coordinates_by_their_shape() {
        let given = given_in;
        assert_eq!(
            given("read https://www.theverge.com/2024/io-recap and sum it up"),
            (vec![Given::WebAddress], "read and sum it up".to_string())
        );
        assert_eq!(
            given("map every page under stripe.com/docs").0,
            [Given::WebAddress]
        );
        assert_eq!(
            given("what's on news.ycombinator.com?").0,
            [Given::WebAddress]
        );
        assert_eq!(
            given("what address is at 48.8584, 2.2945?"),
            (vec![Given::Coordinates], "what address is at".to_string())
        );
        assert_eq!(
            given("is 39.1178,-106.4454 high up").0,
            [Given::Coordinates]
        );
        // Files, versions, names with a dot and plain numbers give nothing.
        for plain in [
            "stage README.md and setup.py",
            "what changed in v1.2 of Next.js",
            "the docs of /vercel/next.js",
            "give 2.5 stars to it",
        ] {
            assert_eq!(given(plain), (vec![], plain.to_string()), "{plain}");
        }
    }

    #[test]
    fn a_request_gives_a_time_by_its_words_and_keeps_them() {
        for timed in [
            "what's on my calendar next Tuesday?",
            "errors in the last 24 hours",
            "book it on March 14 at 3pm",
            "logs since 2024-05-01",
            "what did people push this week",
            "move the 10:30 standup",
            "what came in yesterday",
        ] {
            let (given, words) = given_in(timed);
            assert_eq!(given, [Given::Time], "{timed}");
            assert_eq!(words, timed, "{timed}");
        }
        // A month's name that is another word, a number, a 1:1 meeting.
        for plain in [
            "may I see the march of commits",
            "the last release",
            "set up a 1:1 with Tom",
            "give 2 stars",
        ] {
            assert_eq!(given_in(plain).0, [], "{plain}");
        }
    }

    #[test]
    fn a_tool_that_takes_a_time_is_found_for_a_request_that_gives_one() {
        let tools = vec![
            json!({"name": "get-calendar", "description": "Show a calendar's settings.",
                   "inputSchema": {"type": "object", "properties": {"calendarId": {"type": "string"}}}}),
            json!({"name": "list-events", "description": "List events.",
                   "inputSchema": {"type": "object", "properties": {
                       "timeMin": {"type": "string"}, "timeMax": {"type": "string"}}}}),
            json!({"name": "query_range", "description": "Run a query over a range.",
                   "inputSchema": {"type": "object", "properties": {
                       "start": {"type": "string", "description": "Start time, RFC3339"}}}}),
        ];
        assert_eq!(
            ranked(tools.clone(), "what is on my calendar next Tuesday", 1),
            ["list-events"]
        );
        let takes: Vec<bool> = tools
            .iter()
            .map(|tool| takes_of(tool).contains(&Given::Time))
            .collect();
        assert_eq!(takes, [false, true, true]);
    }

    #[test]
    fn a_tool_that_takes_what_the_person_gives_is_found_whatever_the_words() {
        let tools = vec![
            json!({"name": "news_search", "description": "Search news articles about any topic.",
                   "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}}),
            json!({"name": "fetch", "description": "Fetches a page and returns its text.",
                   "inputSchema": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}}}),
            json!({"name": "reverse_geocode", "description": "Turn a place into an address.",
                   "inputSchema": {"type": "object", "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}}}}),
        ];
        // The address's pieces (maps, google, news) are no words of the
        // request: what it gives is a page to read.
        assert_eq!(
            ranked(
                tools.clone(),
                "what does https://maps.google.com/news say",
                1
            ),
            ["fetch"]
        );
        assert_eq!(
            ranked(tools.clone(), "tell me the news today", 1),
            ["news_search"]
        );
        assert_eq!(
            ranked(tools, "which address is 48.8584, 2.2945", 1),
            ["reverse_geocode"]
        );
    }

    #[test]
    fn an_email_address_is_given_to_the_tools_that_take_one() {
        assert_eq!(
            given_in("what did priya.shah@acme.co send me"),
            (vec![Given::EmailAddress], "what did send me".to_string())
        );
        // Where code lives is not whom to write to.
        assert!(
            !given_in("builds from git@example.org:acme/shop.git")
                .0
                .contains(&Given::EmailAddress)
        );
        let tools = vec![
            json!({"name": "open_page", "description": "Open a web page of the company site.",
                   "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}}),
            json!({"name": "send_email", "description": "Send an email via SMTP.",
                   "inputSchema": {"type": "object", "properties": {
                       "to": {"type": "string", "description": "Recipient email address"},
                       "subject": {"type": "string"}}}}),
            json!({"name": "notify", "description": "Send a notice to a team channel.",
                   "inputSchema": {"type": "object", "properties": {"channel": {"type": "string"}}}}),
        ];
        assert_eq!(
            ranked(
                tools.clone(),
                "write to tom@harbourlane.com that we are late",
                1
            ),
            ["send_email"]
        );
        let takes: Vec<bool> = tools
            .iter()
            .map(|tool| takes_of(tool).contains(&Given::EmailAddress))
            .collect();
        assert_eq!(takes, [false, true, false]);
    }

    #[test]
    fn several_things_at_once_are_given_to_the_tools_made_for_them() {
        for several in [
            "close out 201, 202, 203 and 207",
            "compare clips abc, def and ghi",
            "add practice on Apr 2, Apr 11, Apr 19 to my calendar",
            "move these 40 deals to closed won",
            "save, commit and upload everything in one go",
        ] {
            assert!(given_in(several).0.contains(&Given::Several), "{several}");
        }
        for one in [
            "what address is at 48.8584, 2.2945",
            "close task 201",
            "if you can, please do it and tell me",
            "show these deals",
        ] {
            assert!(!given_in(one).0.contains(&Given::Several), "{one}");
        }
        let takes = |tool: Value| takes_of(&tool).contains(&Given::Several);
        assert!(takes(
            json!({"name": "bulk_update_tasks", "inputSchema": {"type": "object"}})
        ));
        assert!(takes(
            json!({"name": "update_tasks", "inputSchema": {"type": "object",
            "properties": {"ids": {"type": "array"}}, "required": ["ids"]}})
        ));
        // A list to filter by is no list to work on.
        assert!(!takes(
            json!({"name": "list_tasks", "inputSchema": {"type": "object",
            "properties": {"labels": {"type": "array"}}}})
        ));
    }

    #[test]
    fn what_a_request_quotes_is_no_word_of_what_it_asks() {
        let tools = vec![
            tool("send_message", "Posts a message to a chat channel."),
            tool(
                "schedule_maintenance",
                "Schedule server maintenance and its downtime.",
            ),
        ];
        let asked = "post 'scheduled server maintenance tonight, expect downtime' to ops";
        assert_eq!(ranked(tools.clone(), asked, 1), ["send_message"]);
        // Unquoted, the same words are what the person asks for.
        assert_eq!(
            ranked(tools, "schedule server maintenance tonight", 1),
            ["schedule_maintenance"]
        );
        assert_eq!(
            as_the_model_reads("post 'back at 5' in #general"),
            "post  in #general"
        );
    }

    #[test]
    fn the_rarest_word_in_a_name_outweighs_a_broad_verb_s_synonym() {
        // "show" means list, view, get...: it matches every tool here, so
        // the tool named for pods comes first, not the one named "view".
        let tools = vec![
            tool("configuration_view", "Show the current configuration"),
            tool("pods_list", "List all pods in a namespace"),
            tool("nodes_list", "List the nodes"),
            tool("events_list", "List events"),
            tool("resources_get", "Get a resource"),
            tool("namespaces_list", "List namespaces"),
        ];
        assert_eq!(ranked(tools.clone(), "show the pods", 1), ["pods_list"]);
        // "which ... exist" asks for a list.
        assert_eq!(
            ranked(tools, "which namespaces exist", 1),
            ["namespaces_list"]
        );
    }

    #[test]
    fn a_word_one_tool_says_beats_the_many_tools_that_say_its_senses() {
        // "website" expands to page, link and site, which many names
        // here say; one tool says "website" itself, in its first
        // sentence, and comes first (issue 34).
        let tools = vec![
            tool(
                "create_remote_link",
                "Create a link from an issue to a remote page",
            ),
            tool("delete_page", "Delete a page"),
            tool("copy_page", "Copy a page to another space"),
            tool("get_page", "Get a page by its id"),
            tool("move_page", "Move a page under another parent"),
            tool("page_children", "List a page's child pages"),
            tool("list_links", "List the links of an issue"),
            tool("map", "Enumerate URLs indexed under one website"),
        ];
        assert_eq!(ranked(tools.clone(), "website", 1), ["map"]);
        // Another word of the tool's own keeps it first.
        assert_eq!(ranked(tools, "urls website", 1), ["map"]);
    }

    #[test]
    fn a_word_no_tool_has_falls_back_on_its_broader_action() {
        // No tool says "discard" or any synonym of it; to discard is to
        // remove.
        let tools = vec![
            tool("remove_branch", "Remove a branch"),
            tool("create_branch", "Create a branch"),
            tool("list_branches", "List the branches"),
            tool("rename_branch", "Rename a branch"),
        ];
        assert_eq!(
            ranked(tools.clone(), "discard the branch", 1),
            ["remove_branch"]
        );
        // A question for a cause finds the tool that explains one.
        let tools = vec![
            tool("list_runs", "List the test runs"),
            tool("get_run", "Get one test run"),
            tool("root_cause_analysis", "Explain why a test run failed"),
            tool("rerun", "Run a test run again"),
        ];
        assert_eq!(
            ranked(tools, "why did my run fail", 1),
            ["root_cause_analysis"]
        );
    }

    #[test]
    fn a_parameter_s_values_are_words_and_behaviour_hints_are_not() {
        let tools = vec![
            json!({"name": "list_issues", "description": "List issues of a repository",
                   "inputSchema": {"type": "object", "properties": {
                       "state": {"type": "string", "enum": ["open", "closed"]}}}}),
            tool("create_issue", "Open a new issue"),
            json!({"name": "navigate", "description": "Go to a URL",
                   "inputSchema": {"type": "object"},
                   "annotations": {"openWorldHint": true}}),
            json!({"name": "close_page", "description": "Close the page",
                   "inputSchema": {"type": "object"},
                   "annotations": {"openWorldHint": true}}),
        ];
        assert_eq!(
            ranked(tools.clone(), "list open issues", 1),
            ["list_issues"]
        );
        // The open-world hint does not make "open" a word of every tool.
        assert!(
            !ranked(tools, "open", 10).contains(&"close_page".to_string()),
            "close_page found for \"open\""
        );
    }

    #[test]
    fn a_model_reads_a_tool_s_name_in_words_then_its_title_and_description() {
        let index = index_of(vec![
            json!({"name": "get_pullRequest-files", "title": " PR files ",
                   "description": "Lists the files of a pull request.",
                   "inputSchema": {"type": "object"}}),
            json!({"name": "HTTPServer2", "inputSchema": {"type": "object"}}),
        ]);
        assert_eq!(
            index.sentences(),
            [
                "get pull request files. PR files. Lists the files of a pull request.",
                "httpserver2"
            ]
        );
    }

    #[test]
    fn a_blend_ranks_by_likeness_and_words_and_drops_the_unrelated() {
        let index = index_of(vec![
            tool(
                "set_sim_location",
                "Sets a custom GPS location for the simulator",
            ),
            tool("list_sims", "Lists the simulators"),
            tool("erase_sims", "Erases a simulator"),
        ]);
        // No word is shared: the likeness alone ranks.
        let tokyo = index.blended("Tokyo", 5, &[0.4, 0.3, 0.1]);
        assert_eq!(
            tokyo,
            Blended {
                keys: vec![0, 1, 2],
                close: true
            }
        );
        assert_eq!(
            index.blended("Tokyo", 2, &[0.3, 0.3, 0.1]).keys,
            [0, 1],
            "ties in key order"
        );
        // Words count too: "erase" is in one tool, which a likeness a
        // little higher elsewhere does not outrank.
        let erase = index.blended("erase the simulator", 5, &[0.34, 0.30, 0.32]);
        assert_eq!((erase.keys[0], erase.close), (2, true));
        // The words single out a tool the likeness puts last: it stays
        // in the top 3.
        let index4 = index_of(vec![
            tool("press_key", "Presses a key on the keyboard"),
            tool("navigate", "Opens a page"),
            tool("hover", "Moves the pointer over an element"),
            tool("frobnicate", "Frobnicates the widget"),
        ]);
        let likeness = [0.6, 0.5, 0.5, 0.3];
        let lead = index4.blended("frobnicate it", 5, &likeness);
        assert_eq!(lead.keys[..3], [0, 1, 3], "{lead:?}");
        assert_eq!(
            index4.blended("frobnicate it", 2, &likeness).keys,
            [0, 1],
            "a shorter list is cut after the third"
        );
        // Nothing close: the nearest still come, said to be far.
        let cake = index.blended("bake a cake", 5, &[0.1, 0.2, 0.29]);
        assert_eq!(
            cake,
            Blended {
                keys: vec![2, 1, 0],
                close: false
            }
        );
    }

    #[test]
    fn the_search_tools_are_valid_tools() {
        for tool in search_tools("__") {
            let name = tool["name"].as_str().unwrap();
            assert!(name.starts_with("sieve__"));
            assert!(crate::naming::MAX_NAME_LEN >= name.len());
            assert_eq!(tool["inputSchema"]["type"], "object");
        }
    }
}
