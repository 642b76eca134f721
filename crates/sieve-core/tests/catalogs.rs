//! The filter on real tool lists (GitHub's MCP server and the reference
//! servers, copied into `tests/fixtures/catalogs`), with counts checked
//! against the annotations in the files.

mod common;

use common::fixture;
use serde_json::Value;
use sieve_core::{BuildOptions, Catalog, Kind, Overlay, Overlays, Profile, Rules, ServerListing};

fn github() -> Catalog {
    let overlays = Overlays::new(&[
        Overlay {
            pattern: "github__*issue*".into(),
            groups: vec!["issues".into()],
            tags: vec![],
            concerns: Default::default(),
            ..Overlay::default()
        },
        Overlay {
            pattern: "github__*pull_request*".into(),
            groups: vec!["pull_requests".into()],
            tags: vec![],
            concerns: Default::default(),
            ..Overlay::default()
        },
    ])
    .unwrap();
    // Groups from the overlays alone: derived ones have a test of their own.
    let options = BuildOptions {
        derive_groups: false,
        ..BuildOptions::new("__")
    };
    Catalog::build_with(
        &options,
        &overlays,
        &[ServerListing::tools("github", fixture("github-mcp-server"))],
    )
}

fn visible(catalog: &Catalog, profile: &str) -> Vec<String> {
    let rules = Rules::new(&Profile::parse("test", profile).unwrap()).unwrap();
    rules
        .visible(catalog.primitives(), Kind::Tool, None)
        .map(|p| p.name.clone())
        .collect()
}

/// Counts tools of the raw file by their annotations, independently of the
/// label code.
fn count_raw(tools: &[Value], keep: impl Fn(Option<bool>, Option<bool>) -> bool) -> usize {
    tools
        .iter()
        .filter(|t| {
            let hint = |k: &str| {
                t.get("annotations")
                    .and_then(|a| a.get(k))
                    .and_then(Value::as_bool)
            };
            keep(hint("readOnlyHint"), hint("destructiveHint"))
        })
        .count()
}

#[test]
fn github_read_only_profile() {
    let catalog = github();
    assert_eq!(catalog.len(), 117);
    let shown = visible(&catalog, r#"{"tags": {"all": ["read-only"]}}"#);
    let raw = count_raw(&fixture("github-mcp-server"), |ro, _| ro == Some(true));
    assert_eq!(shown.len(), raw, "one visible tool per readOnlyHint: true");
    assert_eq!(
        shown.len(),
        58,
        "the GitHub server marks 58 of 117 tools read-only"
    );
    assert!(shown.contains(&"get_me".to_string()));
    assert!(!shown.contains(&"delete_repository".to_string()));
}

#[test]
fn github_deny_destructive_profile() {
    let catalog = github();
    let shown = visible(&catalog, r#"{"tags": {"none": ["destructive"]}}"#);
    // Not destructive: read-only, or a write tool that says destructiveHint: false.
    let raw = count_raw(&fixture("github-mcp-server"), |ro, d| {
        ro == Some(true) || d == Some(false)
    });
    assert_eq!(shown.len(), raw);
    assert_eq!(shown.len(), 82, "58 read-only + 24 non-destructive writes");
    for name in ["delete_repository", "delete_file", "merge_pull_request"] {
        assert!(!shown.contains(&name.to_string()), "{name} is destructive");
    }
}

#[test]
fn github_group_profiles_from_overlays() {
    let catalog = github();
    let issues = visible(&catalog, r#"{"groups": ["issues"]}"#);
    assert_eq!(issues.len(), 26);
    assert!(issues.iter().all(|n| n.contains("issue")));
    let both = visible(&catalog, r#"{"groups": ["issues", "pull_requests"]}"#);
    let prs = visible(&catalog, r#"{"groups": ["pull_requests"]}"#);
    assert_eq!(
        both.len(),
        issues.len() + prs.len(),
        "no tool is in both groups"
    );
    let safe_issues = visible(
        &catalog,
        r#"{"groups": ["issues"], "tags": {"all": ["read-only"]}}"#,
    );
    assert!(!safe_issues.is_empty() && safe_issues.len() < issues.len());
    assert!(safe_issues.contains(&"issue_read".to_string()));
}

#[test]
fn legacy_server_without_annotations_is_tagged_by_what_its_tools_say() {
    let catalog = Catalog::build(
        "__",
        &Overlays::default(),
        &[ServerListing::tools("gh", fixture("server-github-legacy"))],
    );
    assert_eq!(catalog.len(), 26);
    // It deletes nothing, so the spec's default (`destructive` for a tool
    // that says nothing) no longer hides all of it.
    assert_eq!(
        visible(&catalog, r#"{"tags": {"none": ["destructive"]}}"#).len(),
        26
    );
    let reads = visible(&catalog, r#"{"tags": {"all": ["read-only"]}}"#);
    assert!(reads.iter().any(|n| n == "list_issues"), "{reads:?}");
    assert!(!reads.iter().any(|n| n == "create_issue"), "{reads:?}");
    assert_eq!(
        visible(&catalog, r#"{"tags": {"all": ["open-world"]}}"#).len(),
        26
    );
}

#[test]
fn every_fixture_builds_with_unique_valid_names() {
    let listings: Vec<ServerListing> = [
        "github-mcp-server",
        "server-github-legacy",
        "mcp-server-kubernetes",
        "server-everything",
        "server-filesystem",
        "server-memory",
        "server-sequential-thinking",
    ]
    .iter()
    .map(|name| ServerListing::tools(*name, fixture(name)))
    .collect();
    let catalog = Catalog::build("__", &Overlays::default(), &listings);
    assert_eq!(catalog.len(), 117 + 26 + 23 + 19 + 14 + 9 + 1);
    let mut names: Vec<&str> = catalog
        .primitives()
        .iter()
        .map(|p| p.exposed_name.as_str())
        .collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), catalog.len(), "exposed names are unique");
    for p in catalog.primitives() {
        assert!(p.exposed_name.len() <= 64, "{}", p.exposed_name);
        assert_eq!(catalog.find_tool(&p.uri).map(|t| &t.name), Some(&p.name));
    }
}

#[test]
fn github_tools_get_the_groups_of_their_subjects() {
    let catalog = Catalog::build(
        "__",
        &Overlays::default(),
        &[ServerListing::tools("github", fixture("github-mcp-server"))],
    );
    let group_of = |name: &str| {
        let p = catalog
            .find(Kind::Tool, &format!("github__{name}"))
            .expect("listed");
        assert_eq!(p.labels.derived.len(), 1, "{name} has one derived group");
        let group = p.labels.derived.iter().next().unwrap();
        // A derived group is the server's own: `github/issues`.
        group
            .strip_prefix("github/")
            .unwrap_or_else(|| panic!("{name}: {group} is not github's"))
            .to_string()
    };
    for name in [
        "list_issues",
        "issue_read",
        "add_issue_comment",
        "sub_issue_write",
    ] {
        assert_eq!(group_of(name), "issues", "{name}");
    }
    for name in [
        "create_pull_request",
        "merge_pull_request",
        "pull_request_review_write",
    ] {
        assert_eq!(group_of(name), "pull-requests", "{name}");
    }
    let groups: std::collections::BTreeSet<String> = catalog
        .primitives()
        .iter()
        .flat_map(|p| p.labels.derived.iter().cloned())
        .collect();
    let most = sieve_core::subjects::max_groups(117);
    assert!(
        (5..=most).contains(&groups.len()),
        "a handful to {most} switches: {groups:?}"
    );
    for group in &groups {
        let members = catalog
            .primitives()
            .iter()
            .filter(|p| p.labels.derived.contains(group))
            .count();
        assert!(members >= 2, "{group} has {members} member(s)");
    }
}
