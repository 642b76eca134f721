//! How well `sieve__find_tools` ranks plain words (issue 34): sets of
//! queries a person might type, each on one real server's catalog, each
//! with the tool it means (`tests/fixtures/queries/*.tsv`).
//!
//! * `held-out.tsv`: written before the first ranking and not tuned on
//!   then; its misses were published, and the second round tuned on it,
//!   so it now counts as seen.
//! * `tuned.tsv`: the set the ranking was developed against.
//! * `held-out-2.tsv`: written at the start of the second round, on
//!   eleven catalogs no other set used, scored once before and once after
//!   that round's changes; the third round tuned on it, so it is seen.
//! * `held-out-3.tsv`: written at the start of the third round, on eight
//!   catalogs (four no other set uses), scored once before and once
//!   after that round's changes; its figure is the one to believe. Its
//!   table is left unprinted while a method is tuned
//!   (`SIEVE_QUIET_SETS=held-out-3`).
//! * `held-out-4.tsv`: written at the start of the fifth round, on
//!   eight catalogs (three no other set uses: grafana-mcp, linear-mcp,
//!   plane-mcp), scored once before that round's changes (45 of 66) and
//!   once after; its table is left unprinted while a method is tuned
//!   (`SIEVE_QUIET_SETS=held-out-4`). It is seen now.
//! * `held-out-5.tsv`: written at the start of the sixth round, on
//!   eight catalogs (four no other set uses: redis-mcp,
//!   github-mcp-server-npm, slack-mcp, circleci-mcp), scored once before
//!   that round's changes and once after; its table is left unprinted
//!   while a method is tuned (`SIEVE_QUIET_SETS=held-out-5`).
//! * `held-out-6.tsv`: written at the start of the seventh round, on
//!   eleven catalogs (three no other set uses: agent-infra-browser,
//!   executeautomation-database, mcp-server-sqlite), without the queries
//!   an earlier set already held; scored once, with that round's final
//!   method (and once with the method before it, for the comparison).
//! * `held-out-7.tsv`: written in the eighth round, after that round's
//!   sentence-model blend had been chosen and held-out-6 scored with it,
//!   on seven catalogs (two no other set uses: sanity-mcp,
//!   xcodebuildmcp); scored once, at the end of that round, with the
//!   lexical ranking, the sentence model and the blend.
//! * `held-out-8.tsv`: written in the ninth round, before the sentence
//!   model was built into the program, by a writer who ran no search and
//!   read no ranking, on nine catalogs (two no other set uses:
//!   azure-devops-tiberriver, awslabs-eks); scored once, when the blend
//!   was built in, by words (50 of 76) and blended (57 of 76).
//! * `held-out-9.tsv`: written in the tenth round by a writer who ran no
//!   search and read no ranking, on eleven catalogs earlier sets use
//!   least; scored once, by words (52 of 83) and blended (69 of 83),
//!   after a variant of the tool's text had been chosen on the seen sets
//!   (and not built: it gained 1 here, where 2 were asked); 70 blended
//!   since the words' clear lead is kept (below).
//! * `held-out-10.tsv`: written in the eleventh round like held-out-9, on
//!   ten other catalogs; scored once, by words (43 of 80) and blended
//!   without and with the words' clear lead kept in the top 3 (48 and 49
//!   of 80), after that rule had been chosen on every other set.
//! * `held-out-13.tsv`: written on 2026-11-29 by a writer who ran no
//!   search and read no code, on nine servers installed from npm and
//!   PyPI that day and searched as one catalog
//!   (`tests/fixtures/live-13.json`, 48 tools: Brave Search, Tavily, Exa,
//!   GitLab, Google Maps, Context7, git, time, fetch); scored once, by
//!   words (42 of 50) and blended (41 of 50). The round then read the
//!   web addresses and coordinates a request gives (43 and 43), so it is
//!   seen now.
//! * `held-out-14.tsv`: written on 2026-11-29 like held-out-13, on ten
//!   other servers installed that day and searched as one catalog
//!   (`tests/fixtures/live-14.json`, 78 tools: Obsidian, Google Drive,
//!   Chroma, a task manager, LINE, E2B, Google Calendar, Kagi, an Excel
//!   server and DeepL); scored once, by words (27 of 50) and blended (34
//!   of 50). The round then read what a request asks done (a question
//!   reads; a verb says what it does: `action::asked`), chosen on the
//!   other sets, and scored it again (27 and 35), so it is seen now; a
//!   day or time a request gives became a slot of its own (29 and 36; no
//!   other set moved).
//! * `held-out-15.tsv`: written on 2026-11-29 like held-out-14, on ten
//!   servers no earlier set used (`tests/fixtures/live-15.json`, 97 tools:
//!   an IMAP/SMTP mail server, Discord, Jenkins, Home Assistant, YouTube,
//!   Reddit, stock quotes, Flightradar, Airbnb and US weather); scored
//!   once, by words (25 of 50) and blended (32 of 50). Round 15 then
//!   left what a request quotes out of its words, read an email address
//!   as a slot of its own and added a tracker's and mail's words to the
//!   software senses, chosen on every set, this one included, so it is
//!   seen now.
//! * `held-out-16.tsv`: written on 2026-11-29 like held-out-15, on eight
//!   more servers (`tests/fixtures/live-16.json`, 115 tools: a Vikunja
//!   task board, Hevy workouts, Anki, a CalDAV calendar, Render, hotel
//!   search, Open Library and a Beancount ledger), recorded while round
//!   15 changed the method and scored once after it: by words 28 of 50,
//!   blended 41 of 50.
//! * `live-qa.tsv`: a tester's queries on four live servers searched as
//!   one catalog (`tests/fixtures/live-qa.json`, 202 tools); the fourth
//!   round fixed a defect they showed, so they are seen and track it.
//!
//! A query counts when a tool it means is in the top 3. Each set is
//! asserted at its real floor, by words alone (as `sieve__find_tools`
//! ranks without the sentence model, or before it has read the tools)
//! and blended with the model (`BLENDED_FLOORS`; the model comes from
//! scripts/model-deps.sh, which ./test.sh runs). The tables and figures are printed
//! (`cargo test -p sieve-core --test search_quality -- --nocapture
//! --test-threads=1`) and copied into docs/benchmarks.md.

mod search_sets;

use search_sets::{SCORED_SETS, catalog, queries};
use sieve_core::search::ToolIndex;
use sieve_core::{Catalog, Kind};
use sieve_sentence::{Model, Vectors, likeness};
use std::collections::BTreeMap;

const HELD_OUT_FLOOR: f64 = 0.93;
const TUNED_FLOOR: f64 = 0.94;
const SECOND_HELD_OUT_FLOOR: f64 = 0.82;
const THIRD_HELD_OUT_FLOOR: f64 = 0.72;
const LIVE_QA_FLOOR: f64 = 0.5;
const FOURTH_HELD_OUT_FLOOR: f64 = 0.8;
const FIFTH_HELD_OUT_FLOOR: f64 = 0.7;
const SIXTH_HELD_OUT_FLOOR: f64 = 0.71;
const SEVENTH_HELD_OUT_FLOOR: f64 = 0.62;
const EIGHTH_HELD_OUT_FLOOR: f64 = 0.67;
const NINTH_HELD_OUT_FLOOR: f64 = 0.65;
const TENTH_HELD_OUT_FLOOR: f64 = 0.56;
const ELEVENTH_HELD_OUT_FLOOR: f64 = 0.6;
const TWELFTH_HELD_OUT_FLOOR: f64 = 0.6;
const THIRTEENTH_HELD_OUT_FLOOR: f64 = 0.88;
const FOURTEENTH_HELD_OUT_FLOOR: f64 = 0.6;
const FIFTEENTH_HELD_OUT_FLOOR: f64 = 0.55;
const SIXTEENTH_HELD_OUT_FLOOR: f64 = 0.55;

/// Ranks every query of `set` on its catalog; prints a table and returns
/// (queries with a meant tool in the top 3, queries).
fn score(set: &str) -> (usize, usize) {
    let queries = queries(set);
    // One lexicon for the whole set: each query's index would otherwise
    // unpack it again when the last one dropped it.
    let _lexicon = sieve_core::lexicon::Lexicon::shared();
    let mut catalogs: BTreeMap<String, Catalog> = BTreeMap::new();
    let mut hits = 0;
    let quiet = std::env::var_os("SIEVE_QUIET_SETS")
        .is_some_and(|sets| sets.to_string_lossy().split(',').any(|s| s == set));
    if !quiet {
        println!("\n{set}\n\n| catalog | query | meant | rank | top 3 |");
        println!("|---|---|---|---|---|");
    }
    for (name, query, meant) in &queries {
        let catalog = catalogs
            .entry(name.clone())
            .or_insert_with(|| catalog(name));
        let all: Vec<_> = catalog.of_kind(Kind::Tool).collect();
        let index = ToolIndex::build(all.iter().copied().enumerate());
        let found: Vec<&str> = index
            .search(query, 10)
            .into_iter()
            .map(|i| all[i].name.as_str())
            .collect();
        let rank = found
            .iter()
            .position(|name| meant.iter().any(|m| m == name));
        if rank.is_some_and(|r| r < 3) {
            hits += 1;
        }
        if quiet {
            continue;
        }
        println!(
            "| {name} | {query} | `{}` | {} | {} |",
            meant.join("` or `"),
            rank.map_or("—".to_string(), |r| (r + 1).to_string()),
            found
                .iter()
                .take(3)
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let catalogs_used = catalogs.len();
    println!(
        "\n{set}: {hits} of {} in the top 3 ({:.0} %), on {catalogs_used} catalogs",
        queries.len(),
        100.0 * hits as f64 / queries.len() as f64
    );
    (hits, queries.len())
}

/// Set `set` scores at least `floor` of its queries in the top 3, and
/// holds at least `at_least` queries (a held-out set is not shrunk to pass).
fn holds_its_floor(set: &str, at_least: usize, floor: f64) {
    let (hits, total) = score(set);
    assert!(total >= at_least, "set {set} has only {total} queries");
    assert!(
        hits as f64 >= floor * total as f64,
        "only {hits} of {total} {set} queries found their tool in the top 3"
    );
}

#[test]
fn live_qa_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("live-qa", 0, LIVE_QA_FLOOR);
}

#[test]
fn held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out", 60, HELD_OUT_FLOOR);
}

#[test]
fn tuned_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("tuned", 0, TUNED_FLOOR);
}

#[test]
fn second_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-2", 60, SECOND_HELD_OUT_FLOOR);
}

#[test]
fn third_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-3", 60, THIRD_HELD_OUT_FLOOR);
}

#[test]
fn fourth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-4", 60, FOURTH_HELD_OUT_FLOOR);
}

#[test]
fn fifth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-5", 60, FIFTH_HELD_OUT_FLOOR);
}

#[test]
fn sixth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-6", 60, SIXTH_HELD_OUT_FLOOR);
}

#[test]
fn seventh_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-7", 60, SEVENTH_HELD_OUT_FLOOR);
}

/// Each set's floor with the sentence model blended in, as
/// `sieve__find_tools` ranks when the model is there (the floors above
/// are the ranking by words alone, as it ranks without it).
const BLENDED_FLOORS: [(&str, f64); 18] = [
    ("tuned", 0.96),
    ("held-out", 0.95),
    ("held-out-2", 0.94),
    ("held-out-3", 0.91),
    ("held-out-4", 0.83),
    ("held-out-5", 0.82),
    ("held-out-6", 0.78),
    ("held-out-7", 0.75),
    ("held-out-8", 0.76),
    ("held-out-9", 0.86),
    ("held-out-10", 0.67),
    ("held-out-11", 0.81),
    ("held-out-12", 0.81),
    ("held-out-13", 0.88),
    ("held-out-14", 0.74),
    ("held-out-15", 0.72),
    ("held-out-16", 0.84),
    ("live-qa", 0.87),
];

/// Ranks every query of `set` with the blend and by words alone; prints
/// a table of both and returns (found in the top 3 by the blend, by
/// words, queries).
fn score_blended(
    set: &str,
    model: &Model,
    vectors: &Vectors,
    catalogs: &mut BTreeMap<String, Catalog>,
) -> (usize, usize, usize) {
    let queries = queries(set);
    let read: Vec<String> = queries
        .iter()
        .map(|(_, q, _)| sieve_core::search::as_the_model_reads(q))
        .collect();
    let texts: Vec<&str> = read.iter().map(String::as_str).collect();
    let (query_vectors, _) = vectors
        .encode(model, &texts)
        .expect("the model reads the queries");
    println!(
        "\n{set}, blended\n\n| catalog | query | meant | rank by words | rank blended | top 3 blended |"
    );
    println!("|---|---|---|---|---|---|");
    let (mut blended_hits, mut word_hits) = (0, 0);
    for ((name, query, meant), query_vector) in queries.iter().zip(query_vectors) {
        let catalog = catalogs
            .entry(name.clone())
            .or_insert_with(|| catalog(name));
        let all: Vec<_> = catalog.of_kind(Kind::Tool).collect();
        let index = ToolIndex::build(all.iter().copied().enumerate());
        let (tool_vectors, _) = vectors
            .encode(model, &index.sentences())
            .expect("the model reads the tools");
        let alike: Vec<f32> = tool_vectors
            .iter()
            .map(|v| likeness(v, &query_vector))
            .collect();
        let rank_of = |found: Vec<usize>| {
            found
                .iter()
                .position(|&i| meant.iter().any(|m| *m == all[i].name))
        };
        let blended = index.blended(query, 10, &alike).keys;
        let top: Vec<String> = blended
            .iter()
            .take(3)
            .map(|&i| format!("`{}`", all[i].name))
            .collect();
        let (by_blend, by_words) = (rank_of(blended), rank_of(index.search(query, 10)));
        blended_hits += usize::from(by_blend.is_some_and(|r| r < 3));
        word_hits += usize::from(by_words.is_some_and(|r| r < 3));
        let shown = |rank: Option<usize>| rank.map_or("—".to_string(), |r| (r + 1).to_string());
        println!(
            "| {name} | {query} | `{}` | {} | {} | {} |",
            meant.join("` or `"),
            shown(by_words),
            shown(by_blend),
            top.join(", ")
        );
    }
    println!(
        "\n{set}: {blended_hits} of {} in the top 3 blended ({:.0} %), {word_hits} by words",
        queries.len(),
        100.0 * blended_hits as f64 / queries.len() as f64
    );
    (blended_hits, word_hits, queries.len())
}

#[test]
fn blended_with_the_sentence_model_every_set_holds_its_floor() {
    let model = Model::shared().unwrap_or_else(|e| panic!("{e}"));
    let _lexicon = sieve_core::lexicon::Lexicon::shared();
    // The tools' vectors, kept between runs of the tests (a few minutes
    // to read every catalog's tools the first time).
    let cache =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("search-quality-vectors.bin");
    let vectors = Vectors::default();
    if let Ok(bytes) = std::fs::read(&cache) {
        vectors.add_bytes(&bytes);
    }
    let mut catalogs = BTreeMap::new();
    let mut failed = Vec::new();
    let (mut all_blended, mut all_words, mut all) = (0, 0, 0);
    for (set, floor) in BLENDED_FLOORS {
        let (blended, words, total) = score_blended(set, &model, &vectors, &mut catalogs);
        (all_blended, all_words, all) = (all_blended + blended, all_words + words, all + total);
        if (blended as f64) < floor * total as f64 {
            failed.push(format!("{set}: {blended} of {total} blended"));
        }
    }
    std::fs::write(&cache, vectors.to_bytes()).expect("the vectors are kept");
    println!("\nevery set: {all_blended} of {all} blended, {all_words} by words");
    assert!(failed.is_empty(), "under their floors: {failed:?}");
}

#[test]
fn eighth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-8", 60, EIGHTH_HELD_OUT_FLOOR);
}

#[test]
fn ninth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-9", 75, NINTH_HELD_OUT_FLOOR);
}

#[test]
fn tenth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-10", 75, TENTH_HELD_OUT_FLOOR);
}

#[test]
fn eleventh_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-11", 45, ELEVENTH_HELD_OUT_FLOOR);
}

#[test]
fn twelfth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-12", 45, TWELFTH_HELD_OUT_FLOOR);
}

#[test]
fn thirteenth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-13", 50, THIRTEENTH_HELD_OUT_FLOOR);
}

#[test]
fn fourteenth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-14", 50, FOURTEENTH_HELD_OUT_FLOOR);
}

#[test]
fn fifteenth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-15", 50, FIFTEENTH_HELD_OUT_FLOOR);
}

#[test]
fn sixteenth_held_out_plain_words_find_the_tool_in_the_top_three() {
    holds_its_floor("held-out-16", 50, SIXTEENTH_HELD_OUT_FLOOR);
}

/// The ranking is deterministic: every query of every set, asked of two
/// indexes built one after the other from the same catalog, finds the same
/// tools in the same order (ties included).

#[test]
fn the_same_query_ranks_the_same_way_on_every_build() {
    let _lexicon = sieve_core::lexicon::Lexicon::shared();
    let mut catalogs: BTreeMap<String, Catalog> = BTreeMap::new();
    let mut asked = 0;
    for set in SCORED_SETS {
        for (name, query, _) in queries(set) {
            let catalog = catalogs
                .entry(name.clone())
                .or_insert_with(|| catalog(&name));
            let all: Vec<_> = catalog.of_kind(Kind::Tool).collect();
            let first = ToolIndex::build(all.iter().copied().enumerate()).search(&query, 10);
            let second = ToolIndex::build(all.iter().copied().enumerate()).search(&query, 10);
            assert_eq!(first, second, "{name}: {query:?} ranked two ways");
            asked += 1;
        }
    }
    assert!(asked > 300, "{asked} queries");
}
