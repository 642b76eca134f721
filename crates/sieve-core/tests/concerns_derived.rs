//! The built-in concerns derived on the real tool lists in
//! `tests/fixtures/catalogs` (copies of `shared/catalogs`): `cost:
//! minimal` splits every server of ten tools or more, and `security` of a
//! server that sends no annotations follows what each tool says it does.

mod common;

use common::fixture;
use sieve_core::{BuildOptions, Catalog, Kind, Overlays, Profile, Rules, ServerListing};
use std::collections::BTreeMap;

const CATALOGS: [&str; 7] = [
    "github-mcp-server",
    "server-github-legacy",
    "mcp-server-kubernetes",
    "server-everything",
    "server-filesystem",
    "server-memory",
    "server-sequential-thinking",
];

/// One server's catalog with the built-in concerns and no overlays.
fn catalog(name: &str) -> Catalog {
    let options = BuildOptions {
        derive_groups: false,
        ..BuildOptions::new("__")
    };
    Catalog::build_with(
        &options,
        &Overlays::default(),
        &[ServerListing::tools(name, fixture(name))],
    )
}

fn visible(catalog: &Catalog, profile: &str) -> Vec<String> {
    let rules = Rules::new(&Profile::parse("test", profile).unwrap()).unwrap();
    rules
        .visible(catalog.primitives(), Kind::Tool, None)
        .map(|p| p.name.clone())
        .collect()
}

/// How many tools have each value of `concern`.
fn split(catalog: &Catalog, concern: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for p in catalog.of_kind(Kind::Tool) {
        let value = p.labels.concerns.get(concern).expect("every tool has one");
        *counts.entry(value.clone()).or_default() += 1;
    }
    counts
}

#[test]
fn cost_minimal_splits_every_server_of_ten_tools_or_more() {
    for name in CATALOGS {
        let catalog = catalog(name);
        let total = catalog.len();
        let kept = visible(&catalog, r#"{"concerns": {"cost": "minimal"}}"#);
        println!(
            "{name}: {total} tools, cost {:?}, security {:?}",
            split(&catalog, "cost"),
            split(&catalog, "security")
        );
        if total >= 10 {
            assert!(
                !kept.is_empty() && kept.len() < total,
                "{name}: cost: minimal keeps {} of {total}",
                kept.len()
            );
        }
    }
}

#[test]
fn every_cost_says_which_part_decided_it() {
    for name in CATALOGS {
        for p in catalog(name).of_kind(Kind::Tool) {
            let value = &p.labels.concerns["cost"];
            let why = p.labels.reason("cost").expect("a cost has a reason");
            assert!(
                why.starts_with(&format!("cost {value}: ")),
                "{}: {why}",
                p.name
            );
            assert!(p.labels.derived_concerns.contains("cost"), "{}", p.name);
        }
    }
}

#[test]
fn security_of_a_server_without_annotations_follows_its_verbs() {
    let catalog = catalog("server-github-legacy");
    let medium = visible(&catalog, r#"{"concerns": {"security": "medium"}}"#);
    let high = visible(&catalog, r#"{"concerns": {"security": "high"}}"#);
    for read in [
        "list_issues",
        "get_file_contents",
        "search_repositories",
        "list_commits",
        "get_pull_request_files",
    ] {
        assert!(high.iter().any(|n| n == read), "{read} is high");
        let p = catalog.find_tool(&format!("server-github-legacy__{read}"));
        let labels = &p.expect("listed").labels;
        assert!(labels.derived_concerns.contains("security"), "{read}");
        assert!(labels.derived_tags.contains("read-only"), "{read}");
    }
    for write in [
        "create_issue",
        "create_or_update_file",
        "push_files",
        "merge_pull_request",
    ] {
        assert!(
            medium.iter().any(|n| n == write) && !high.iter().any(|n| n == write),
            "{write} is medium"
        );
    }
    // The server deletes nothing: every tool reads or changes.
    assert_eq!(medium.len(), catalog.len());
    assert_eq!(high.len(), 14, "{high:?}");
    let list = catalog
        .find_tool("server-github-legacy__list_issues")
        .unwrap();
    assert_eq!(
        list.labels.reason("security"),
        Some("security high: derived from `list` in its name (the server sends no annotations)")
    );
    assert!(
        visible(&catalog, r#"{"tags": {"none": ["destructive"]}}"#).len() == catalog.len(),
        "no tool is tagged destructive for want of annotations"
    );
}

#[test]
fn servers_that_send_annotations_keep_their_levels() {
    for name in CATALOGS.iter().filter(|n| **n != "server-github-legacy") {
        let catalog = catalog(name);
        let marks_destroying = catalog
            .of_kind(Kind::Tool)
            .any(|p| p.definition["annotations"]["destructiveHint"] == true);
        for p in catalog.of_kind(Kind::Tool) {
            let hint = |key: &str| p.definition["annotations"][key].as_bool();
            if marks_destroying
                && hint("readOnlyHint").is_none()
                && hint("destructiveHint").is_none()
            {
                // Left unmarked by a server that marks its destroyers:
                // read from what the tool says it does.
                assert!(
                    p.labels.derived_concerns.contains("security"),
                    "{name} {}",
                    p.name
                );
                assert!(
                    p.labels
                        .reason("security")
                        .is_some_and(|why| why.contains("does not mark this one")),
                    "{name} {}",
                    p.name
                );
                continue;
            }
            let want = match (hint("readOnlyHint"), hint("destructiveHint")) {
                (Some(true), _) => "high",
                (_, Some(false)) => "medium",
                _ => "low",
            };
            assert_eq!(p.labels.concerns["security"], want, "{name} {}", p.name);
            assert!(p.labels.derived_tags.is_empty(), "{}", p.name);
            assert!(
                !p.labels.derived_concerns.contains("security"),
                "{}",
                p.name
            );
        }
    }
}

/// A server that marks the tools that destroy (Lunch Money's
/// `destructiveHint: true` on its deletes) and leaves its creates with
/// other hints only: those are read from what they say they do, where the
/// spec's default would count them as destroying too. A server that marks
/// none keeps the spec's default.
#[test]
fn a_tool_left_unmarked_beside_marked_destroyers_is_read_for_what_it_does() {
    let security = |tools: serde_json::Value| -> Vec<String> {
        let tools: Vec<serde_json::Value> = serde_json::from_value(tools).unwrap();
        let catalog = Catalog::build_with(
            &BuildOptions {
                derive_groups: false,
                ..BuildOptions::new("__")
            },
            &Overlays::default(),
            &[ServerListing::tools("money", tools)],
        );
        catalog
            .of_kind(Kind::Tool)
            .map(|p| p.labels.concerns["security"].clone())
            .collect()
    };
    let marked = serde_json::json!([
        {"name": "get_tags", "annotations": {"readOnlyHint": true}},
        {"name": "create_tag", "annotations": {"idempotentHint": false}},
        {"name": "delete_tag", "annotations": {"destructiveHint": true}},
    ]);
    assert_eq!(security(marked), ["high", "medium", "low"]);
    let unmarked = serde_json::json!([
        {"name": "get_tags", "annotations": {"readOnlyHint": true}},
        {"name": "create_tag", "annotations": {"idempotentHint": false}},
        {"name": "delete_tag"},
    ]);
    assert_eq!(security(unmarked), ["high", "low", "low"]);
}
