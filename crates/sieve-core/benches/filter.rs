//! Filtering a 10,000-tool catalog built from the real catalogs in
//! `tests/fixtures/catalogs` (each file repeated under many server names),
//! with a realistic profile. Run: `cargo bench -p sieve-core --bench filter`.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use sieve_core::{
    Catalog, Kind, Narrowing, Overlay, Overlays, Profile, Rules, ServerListing, parse_tool_list,
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
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
