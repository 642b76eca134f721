//! Filtering a 10,000-tool catalog built from the real catalogs in
//! `tests/fixtures/catalogs` (each file repeated under many server names),
//! with a realistic profile; the search index of search mode and the
//! quarantine's judgement over the same catalog. Run: `cargo bench -p
//! sieve-core --bench filter`.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use sieve_core::search::ToolIndex;
use sieve_core::{
    Approvals, Catalog, Kind, Narrowing, Overlay, Overlays, Profile, Rules, ServerListing,
    parse_tool_list,
};
use std::hint::black_box;

const FILES: [&str; 7] = [
    "github-mcp-server",
    "server-github-legacy",
    "mcp-server-kubernetes",
    "server-everything",
    "server-filesystem",
    "server-memory",
    "server-sequential-thinking",
];

fn listings(target: usize) -> Vec<ServerListing> {
    let dir = format!(
        "{}/../../tests/fixtures/catalogs",
        env!("CARGO_MANIFEST_DIR")
    );
    let catalogs: Vec<(&str, Vec<Value>)> = FILES
        .iter()
        .map(|name| {
            let path = format!("{dir}/{name}.json");
            let text = std::fs::read_to_string(&path).expect("fixture");
            (
                *name,
                parse_tool_list(&path, &text).expect("fixture parses"),
            )
        })
        .collect();
    let mut listings = Vec::new();
    let mut total = 0;
    'outer: for copy in 0.. {
        for (name, tools) in &catalogs {
            if total >= target {
                break 'outer;
            }
            let take = tools.len().min(target - total);
            listings.push(ServerListing::tools(
                format!("{name}-{copy}"),
                tools[..take].to_vec(),
            ));
            total += take;
        }
    }
    listings
}

const PROFILE: &str = r#"{
  "servers": null,
  "tools": { "allow": ["github-mcp-server-*", "server-everything-*", "server-filesystem-*", "mcp-server-kubernetes-*"],
             "deny": ["*delete*", "*_secret_*", "*force*"] },
  "groups": ["issues", "pull_requests", "server:server-everything-0", "files"],
  "tags": { "none": ["destructive", "experimental"] },
  "concerns": { "security": "high", "cost": "minimal" }
}"#;

fn overlays() -> Overlays {
    let overlay = |pattern: &str, groups: &[&str], concerns: &[(&str, &str)]| Overlay {
        pattern: pattern.into(),
        groups: groups.iter().map(|g| g.to_string()).collect(),
        tags: vec![],
        concerns: concerns
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Overlay::default()
    };
    Overlays::new(&[
        overlay("*issue*", &["issues"], &[]),
        overlay("*pull_request*", &["pull_requests"], &[]),
        overlay("*file*", &["files"], &[("cost", "minimal")]),
        overlay("*delete*", &[], &[("security", "low")]),
    ])
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let listings = listings(10_000);
    let catalog = Catalog::build("__", &overlays(), &listings);
    assert_eq!(catalog.len(), 10_000);
    let profile = PROFILE.replace("\"servers\": null,", "");
    let rules = Rules::new(&Profile::parse("bench", &profile).unwrap()).unwrap();
    let visible = rules
        .visible(catalog.primitives(), Kind::Tool, None)
        .count();
    println!("10,000 tools, {visible} visible under the bench profile");
    let narrowing = Narrowing::from_params(
        &serde_json::json!({"filter": {"groups": ["issues"], "tags": ["read-only"]}}),
    )
    .unwrap();

    c.bench_function("filter 10k tools (profile)", |b| {
        b.iter(|| {
            rules
                .visible(black_box(catalog.primitives()), Kind::Tool, None)
                .count()
        })
    });
    c.bench_function("filter 10k tools (profile + request filter)", |b| {
        b.iter(|| {
            rules
                .visible(
                    black_box(catalog.primitives()),
                    Kind::Tool,
                    Some(&narrowing),
                )
                .count()
        })
    });
    c.bench_function("explain 10k tools", |b| {
        b.iter(|| {
            catalog
                .primitives()
                .iter()
                .map(|p| rules.explain(p, None).len())
                .sum::<usize>()
        })
    });
    let mut group = c.benchmark_group("slow");
    group.sample_size(10);
    group.bench_function("build catalog of 10k tools", |b| {
        b.iter(|| Catalog::build("__", &overlays(), black_box(&listings)).len())
    });
    search(&mut group, "117 (GitHub)", &listings[..1]);
    search(&mut group, "10k", &listings);
    // Quarantine: every server approved once, then the whole catalog
    // judged again (what a rebuild after a listing costs on top).
    let mut approvals = Approvals::default();
    for listing in &listings {
        approvals.trust_first_use(&listing.server, &listing.tools, |_| Vec::new());
    }
    group.bench_function("judge 10k tools against approvals", |b| {
        b.iter_batched(
            || catalog.clone(),
            |mut catalog| {
                catalog.quarantine(black_box(&approvals));
                catalog.len()
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("clone catalog of 10k tools (the judge's baseline)", |b| {
        b.iter(|| catalog.clone().len())
    });
    group.finish();
}

/// Building the search index of `listings`' tools, and one query on it.
fn search(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    label: &str,
    listings: &[ServerListing],
) {
    let catalog = Catalog::build("__", &Overlays::default(), listings);
    let tools = || catalog.of_kind(Kind::Tool).enumerate();
    group.bench_function(format!("search index of {label} tools: build"), |b| {
        b.iter(|| ToolIndex::build(black_box(tools())))
    });
    let index = ToolIndex::build(tools());
    group.bench_function(format!("search index of {label} tools: one query"), |b| {
        b.iter(|| {
            index
                .search(black_box("comment on a pull request"), 5)
                .len()
        })
    });
}

/// What a `find_tools` query costs on a 500-tool profile of real,
/// different servers (every tool of the published catalogs the query sets
/// use, pooled under their own server names, cut at 500): each query of
/// the six sets timed alone, many rounds; p50, p95 and the slowest printed,
/// by words alone and blended with the sentence model (the query read by
/// the model each time, side by side). Also what unpacking the lexicon
/// and loading the model cost, in time and resident memory.
fn search_latency(_c: &mut Criterion) {
    // As `mcp-sieve` runs the model: one thread per text. SAFETY: this is
    // the first benchmark of the group, and nothing has started a thread.
    unsafe { sieve_sentence::run_on_one_thread() };
    let rss_kib = || {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
        let pages: u64 = statm
            .split_whitespace()
            .nth(1)
            .and_then(|pages| pages.parse().ok())
            .unwrap_or(0);
        pages * 4
    };
    let before = rss_kib();
    let started = std::time::Instant::now();
    let lexicon = sieve_core::lexicon::Lexicon::shared();
    let load = started.elapsed();
    let after = rss_kib();
    println!(
        "lexicon: unpacked in {:.1} ms, resident memory +{} KiB ({} KiB compiled in: WordNet {} KiB, software neighbours {} KiB)",
        load.as_secs_f64() * 1000.0,
        after.saturating_sub(before),
        (include_bytes!("../data/wordnet-related.txt.gz").len()
            + include_bytes!("../data/software-neighbours.txt.gz").len())
            / 1024,
        include_bytes!("../data/wordnet-related.txt.gz").len() / 1024,
        include_bytes!("../data/software-neighbours.txt.gz").len() / 1024
    );
    let dir = env!("CARGO_MANIFEST_DIR");
    let mut queries = Vec::new();
    let mut names = Vec::new();
    for set in [
        "held-out",
        "tuned",
        "held-out-2",
        "held-out-3",
        "held-out-4",
        "held-out-5",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/tests/fixtures/queries/{set}.tsv"))
            .expect("query set");
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let columns: Vec<&str> = line.split('\t').collect();
            queries.push(columns[1].to_string());
            if !names.contains(&columns[0].to_string()) {
                names.push(columns[0].to_string());
            }
        }
    }
    let mut listings = Vec::new();
    let mut total = 0;
    for name in &names {
        let path = format!("{dir}/tests/fixtures/published/{name}.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut tools = parse_tool_list(&path, &text).expect("fixture parses");
        tools.truncate(500 - total);
        total += tools.len();
        listings.push(ServerListing::tools(name.as_str(), tools));
        if total >= 500 {
            break;
        }
    }
    let catalog = Catalog::build("__", &Overlays::default(), &listings);
    let started = std::time::Instant::now();
    let index = ToolIndex::build(catalog.of_kind(Kind::Tool).enumerate());
    let build = started.elapsed();
    let mut times = Vec::new();
    for _ in 0..20 {
        for query in &queries {
            let started = std::time::Instant::now();
            black_box(index.search(black_box(query), 5));
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let by_words = percentiles(times);
    println!(
        "find_tools on {total} tools of {} servers: index built in {:.1} ms",
        listings.len(),
        build.as_secs_f64() * 1000.0,
    );

    // The same with the sentence model (issue 34): loading it, reading
    // the tools once (kept per machine after that), and each query read
    // and blended, as `sieve__find_tools` runs it.
    let before = rss_kib();
    let started = std::time::Instant::now();
    let model = sieve_sentence::Model::shared().unwrap_or_else(|e| panic!("{e}"));
    let load = started.elapsed();
    let started = std::time::Instant::now();
    let tools = model
        .encode(&index.sentences())
        .expect("the model reads the tools");
    let read = started.elapsed();
    let after = rss_kib();
    let mut times = Vec::new();
    for _ in 0..3 {
        for query in &queries {
            let started = std::time::Instant::now();
            let read = sieve_core::search::as_the_model_reads(query);
            let vector = model
                .encode(&[read.as_str()])
                .expect("the model reads the query");
            let alike: Vec<f32> = tools
                .iter()
                .map(|t| sieve_sentence::likeness(t, &vector[0]))
                .collect();
            black_box(index.blended(black_box(query), 5, &alike));
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let blended = percentiles(times);
    println!(
        "sentence model: loaded in {:.0} ms, {total} tools read in {:.1} s, resident memory +{} KiB after both",
        load.as_secs_f64() * 1000.0,
        read.as_secs_f64(),
        after.saturating_sub(before),
    );
    println!("| one query on {total} tools | p50 | p95 | slowest | queries |");
    println!("|---|---|---|---|---|");
    for (label, (p50, p95, slowest, n)) in [("by words", by_words), ("words and meaning", blended)]
    {
        println!("| {label} | {p50:.3} ms | {p95:.3} ms | {slowest:.3} ms | {n} |");
    }
    drop(lexicon);
}

/// The median, 95th percentile and slowest of `times` (ms), and how many.
fn percentiles(mut times: Vec<f64>) -> (f64, f64, f64, usize) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    (at(0.5), at(0.95), times[times.len() - 1], times.len())
}

criterion_group!(benches, search_latency, bench);
criterion_main!(benches);
