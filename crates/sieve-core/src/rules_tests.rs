//! Every rule of DESIGN §4 and every row of the allow/deny proposal's
//! edge-case table, one behaviour per test.

use super::*;
use crate::catalog::{BuildOptions, Catalog, ServerListing};
use crate::config::Overlays;
use crate::profile::{GroupRule, Profile};
use serde_json::json;

/// Concerns declared as equals (not `ordered`): a value matches only
/// itself, and nothing is derived from annotations. The ordered built-in
/// concerns have tests of their own (`ordered_concerns_*`).
const UNORDERED: &str = r#"{"concerns": [
    {"name": "security", "values": ["high", "medium", "low"]},
    {"name": "cost", "values": ["minimal", "moderate", "high"]}
]}"#;

fn catalog() -> Catalog {
    catalog_with(&BuildOptions::of(
        &crate::Config::parse("config.json", UNORDERED).unwrap(),
    ))
}

fn catalog_with(options: &BuildOptions) -> Catalog {
    Catalog::build_with(
        options,
        &Overlays::default(),
        &[
            ServerListing {
                server: "github".into(),
                tools: vec![
                    json!({"name": "create_issue", "groups": ["issues"], "tags": ["stable"],
                           "annotations": {"readOnlyHint": false, "destructiveHint": false},
                           "_meta": {"concerns": {"security": "medium"}}}),
                    json!({"name": "get_issue", "groups": ["issues"], "tags": ["stable"],
                           "annotations": {"readOnlyHint": true},
                           "_meta": {"concerns": {"security": "high", "cost": "minimal"}}}),
                    json!({"name": "repo_delete_file", "groups": ["repos"],
                           "_meta": {"concerns": {"security": "low"}}}),
                    json!({"name": "merge_pull_request", "groups": ["pull_requests"], "tags": ["beta"]}),
                ],
                prompts: vec![json!({"name": "summarize_issue"})],
                resources: vec![json!({"name": "readme", "uri": "repo://readme"})],
                ..ServerListing::default()
            },
            ServerListing::tools(
                "everything",
                vec![
                    json!({"name": "echo", "annotations": {"readOnlyHint": true}}),
                    json!({"name": "trino_query", "annotations": {"readOnlyHint": true}}),
                ],
            ),
        ],
    )
}

fn profile(text: &str) -> Rules {
    Rules::new(&Profile::parse("test.json", text).expect("valid profile")).unwrap()
}

/// Exposed names of the visible tools.
fn tools(rules: &Rules, narrowing: Option<&Narrowing>) -> Vec<String> {
    let catalog = catalog();
    rules
        .visible(catalog.primitives(), Kind::Tool, narrowing)
        .map(|p| p.exposed_name.clone())
        .collect()
}

fn explain(rules: &Rules, tool: &str, narrowing: Option<&Narrowing>) -> Vec<String> {
    let catalog = catalog();
    let p = catalog.find(Kind::Tool, tool).expect("tool exists");
    rules
        .explain(p, narrowing)
        .iter()
        .map(|r| r.to_string())
        .collect()
}

const ALL: [&str; 6] = [
    "everything__echo",
    "everything__trino_query",
    "github__create_issue",
    "github__get_issue",
    "github__repo_delete_file",
    "github__merge_pull_request",
];

// --- allow / deny: the proposal's semantics and edge cases ---

#[test]
fn no_rules_show_everything() {
    assert_eq!(tools(&profile("{}"), None), ALL);
}

#[test]
fn empty_sections_show_everything() {
    let rules = profile(r#"{"tools": {"allow": [], "deny": []}}"#);
    assert_eq!(tools(&rules, None), ALL);
}

#[test]
fn allow_only_shows_matches() {
    let rules = profile(r#"{"tools": {"allow": ["everything__trino_*", "github__get_issue"]}}"#);
    assert_eq!(
        tools(&rules, None),
        ["everything__trino_query", "github__get_issue"]
    );
    assert_eq!(
        explain(&rules, "everything__echo", None),
        [r#"tools.allow: matches none of "everything__trino_*", "github__get_issue""#]
    );
}

#[test]
fn deny_only_removes_matches() {
    let rules = profile(r#"{"tools": {"deny": ["*_delete_*"]}}"#);
    let visible = tools(&rules, None);
    assert_eq!(visible.len(), ALL.len() - 1);
    assert!(!visible.contains(&"github__repo_delete_file".to_string()));
    assert_eq!(
        explain(&rules, "github__repo_delete_file", None),
        [r#"tools.deny "*_delete_*""#]
    );
}

#[test]
fn allow_then_deny() {
    let rules =
        profile(r#"{"tools": {"allow": ["github__*"], "deny": ["*_delete_*", "*merge*"]}}"#);
    assert_eq!(
        tools(&rules, None),
        ["github__create_issue", "github__get_issue"]
    );
    assert_eq!(
        explain(&rules, "github__merge_pull_request", None),
        [r#"tools.deny "*merge*""#]
    );
}

#[test]
fn empty_allow_with_deny_is_all_minus_deny() {
    let rules = profile(r#"{"tools": {"allow": [], "deny": ["everything__*"]}}"#);
    assert_eq!(
        tools(&rules, None),
        [
            "github__create_issue",
            "github__get_issue",
            "github__repo_delete_file",
            "github__merge_pull_request"
        ]
    );
}

#[test]
fn star_allows_all_then_deny_applies() {
    let rules = profile(r#"{"tools": {"allow": ["*"], "deny": ["github__*"]}}"#);
    assert_eq!(
        tools(&rules, None),
        ["everything__echo", "everything__trino_query"]
    );
    assert_eq!(tools(&profile(r#"{"tools": {"allow": ["*"]}}"#), None), ALL);
}

#[test]
fn exact_names_and_several_patterns() {
    let rules =
        profile(r#"{"tools": {"allow": ["everything__echo", "github__get_issue", "nothing__*"]}}"#);
    assert_eq!(
        tools(&rules, None),
        ["everything__echo", "github__get_issue"]
    );
}

#[test]
fn invalid_pattern_fails_the_load_instead_of_matching_nothing() {
    let err = Profile::parse("p.json", r#"{"tools": {"allow": ["a[b"]}}"#).unwrap_err();
    assert_eq!(err.path, "tools.allow[0]");
    assert!(err.expected.contains("a[b"), "{err}");
}

#[test]
fn every_matching_deny_is_reported() {
    let rules = profile(r#"{"tools": {"deny": ["github__*", "*delete*"]}}"#);
    assert_eq!(
        explain(&rules, "github__repo_delete_file", None),
        [r#"tools.deny "github__*""#, r#"tools.deny "*delete*""#]
    );
}

#[test]
fn sections_apply_to_their_kind_only() {
    let rules =
        profile(r#"{"tools": {"deny": ["*"]}, "prompts": {"allow": ["github__summarize_*"]}}"#);
    let catalog = catalog();
    assert_eq!(
        rules
            .visible(catalog.primitives(), Kind::Tool, None)
            .count(),
        0
    );
    assert_eq!(
        rules
            .visible(catalog.primitives(), Kind::Prompt, None)
            .count(),
        1
    );
    assert_eq!(
        rules
            .visible(catalog.primitives(), Kind::Resource, None)
            .count(),
        1
    );
    let rules = profile(r#"{"resources": {"deny": ["github__readme"]}}"#);
    assert_eq!(
        rules
            .visible(catalog.primitives(), Kind::Resource, None)
            .count(),
        0
    );
}

// --- servers ---

#[test]
fn servers_limit_and_explain() {
    let rules = profile(r#"{"servers": ["everything"]}"#);
    assert_eq!(
        tools(&rules, None),
        ["everything__echo", "everything__trino_query"]
    );
    assert_eq!(
        explain(&rules, "github__get_issue", None),
        [r#"servers: "github" is not listed"#]
    );
    assert!(
        tools(&profile(r#"{"servers": []}"#), None).is_empty(),
        "[] lists no server"
    );
}

// --- groups: ANY ---

#[test]
fn groups_any() {
    let rules = profile(r#"{"groups": ["issues", "pull_requests"]}"#);
    assert_eq!(
        tools(&rules, None),
        [
            "github__create_issue",
            "github__get_issue",
            "github__merge_pull_request"
        ]
    );
    assert_eq!(
        explain(&rules, "everything__echo", None),
        ["groups: in none of issues, pull_requests"]
    );
    let rules = profile(r#"{"groups": ["server:everything"]}"#);
    assert_eq!(
        tools(&rules, None),
        ["everything__echo", "everything__trino_query"],
        "implicit group"
    );
    assert_eq!(
        tools(&profile(r#"{"groups": []}"#), None),
        ALL,
        "empty: no constraint"
    );
}

#[test]
fn groups_none_hides_members_and_says_which_group() {
    let rules = profile(r#"{"groups": {"none": ["issues"]}}"#);
    assert_eq!(
        tools(&rules, None),
        [
            "everything__echo",
            "everything__trino_query",
            "github__repo_delete_file",
            "github__merge_pull_request"
        ]
    );
    assert_eq!(
        explain(&rules, "github__get_issue", None),
        ["groups.none issues"]
    );
    let both =
        profile(r#"{"groups": {"any": ["issues", "pull_requests"], "none": ["pull_requests"]}}"#);
    assert_eq!(
        tools(&both, None),
        ["github__create_issue", "github__get_issue"],
        "any first, then none removes"
    );
}

#[test]
fn groups_are_a_list_or_an_object_and_keep_their_shape() {
    let list: Profile = Profile::parse("p.json", r#"{"groups": ["a"]}"#).unwrap();
    assert_eq!(list.groups, GroupRule::any(vec!["a".into()]));
    assert_eq!(
        serde_json::to_value(&list).unwrap(),
        json!({"groups": ["a"]})
    );
    let object: Profile =
        Profile::parse("p.json", r#"{"groups": {"any": ["a"], "none": ["b"]}}"#).unwrap();
    assert_eq!(
        serde_json::to_value(&object).unwrap(),
        json!({"groups": {"any": ["a"], "none": ["b"]}})
    );
    let error = Profile::parse("p.json", r#"{"groups": {"nope": ["b"]}}"#).unwrap_err();
    assert!(error.to_string().contains("nope"), "{error}");
    let error = Profile::parse("p.json", r#"{"groups": 3}"#).unwrap_err();
    assert!(
        error.to_string().contains("a list of group names"),
        "{error}"
    );
}

// --- tags: ALL and NONE ---

#[test]
fn tags_all_requires_every_tag() {
    let rules = profile(r#"{"tags": {"all": ["stable", "read-only"]}}"#);
    assert_eq!(tools(&rules, None), ["github__get_issue"]);
    assert_eq!(
        explain(&rules, "everything__echo", None),
        ["tags.all stable (missing)"]
    );
}

#[test]
fn tags_none_excludes_any_listed_tag() {
    let rules = profile(r#"{"tags": {"none": ["destructive", "beta"]}}"#);
    assert_eq!(
        tools(&rules, None),
        [
            "everything__echo",
            "everything__trino_query",
            "github__create_issue",
            "github__get_issue"
        ]
    );
    assert_eq!(
        explain(&rules, "github__merge_pull_request", None),
        ["tags.none destructive", "tags.none beta"]
    );
}

#[test]
fn tags_all_and_none_together() {
    let rules = profile(r#"{"tags": {"all": ["stable"], "none": ["read-only"]}}"#);
    assert_eq!(tools(&rules, None), ["github__create_issue"]);
}

// --- concerns ---

#[test]
fn concern_mapped_must_equal_unmapped_matches_all() {
    let rules = profile(r#"{"concerns": {"security": "high"}}"#);
    // create_issue (medium) and repo_delete_file (low) are hidden; tools
    // without a security value are concern-agnostic.
    assert_eq!(
        tools(&rules, None),
        [
            "everything__echo",
            "everything__trino_query",
            "github__get_issue",
            "github__merge_pull_request"
        ]
    );
    assert_eq!(
        explain(&rules, "github__repo_delete_file", None),
        ["concern security=high vs low"]
    );
}

#[test]
fn several_concerns_must_all_match() {
    let rules = profile(r#"{"concerns": {"security": "high", "cost": "moderate"}}"#);
    assert_eq!(
        explain(&rules, "github__get_issue", None),
        ["concern cost=moderate vs minimal"]
    );
}

#[test]
fn unknown_concern_and_unknown_value() {
    // A concern no primitive carries constrains nothing.
    assert_eq!(
        tools(&profile(r#"{"concerns": {"latency": "low"}}"#), None),
        ALL
    );
    // A value no primitive has hides exactly the primitives that carry the
    // concern.
    let rules = profile(r#"{"concerns": {"security": "ultra"}}"#);
    assert_eq!(
        tools(&rules, None),
        [
            "everything__echo",
            "everything__trino_query",
            "github__merge_pull_request"
        ]
    );
}

// --- URI prefixes ---

#[test]
fn uri_prefixes_any() {
    let rules =
        profile(r#"{"uriPrefixes": ["mcp://tools/everything/", "mcp://tools/github/get_"]}"#);
    assert_eq!(
        tools(&rules, None),
        [
            "everything__echo",
            "everything__trino_query",
            "github__get_issue"
        ]
    );
    assert_eq!(
        explain(&rules, "github__create_issue", None),
        ["uriPrefixes: starts with none of mcp://tools/everything/, mcp://tools/github/get_"]
    );
    let catalog = catalog();
    assert_eq!(
        rules
            .visible(catalog.primitives(), Kind::Resource, None)
            .count(),
        0
    );
    let rules = profile(r#"{"uriPrefixes": ["repo://"]}"#);
    assert_eq!(
        rules
            .visible(catalog.primitives(), Kind::Resource, None)
            .count(),
        1
    );
    assert!(tools(&profile(r#"{"uriPrefixes": []}"#), None).is_empty());
}

// --- everything together, and explanations ---

#[test]
fn explain_lists_every_failing_rule_and_is_empty_when_visible() {
    let rules = profile(
        r#"{"servers": ["github"], "tools": {"deny": ["*delete*"]}, "groups": ["issues"],
            "tags": {"none": ["destructive"]}, "concerns": {"security": "high"}}"#,
    );
    assert_eq!(
        explain(&rules, "github__repo_delete_file", None),
        [
            r#"tools.deny "*delete*""#,
            "groups: in none of issues",
            "tags.none destructive",
            "concern security=high vs low",
        ]
    );
    assert!(explain(&rules, "github__get_issue", None).is_empty());
    assert_eq!(tools(&rules, None), ["github__get_issue"]);
}

#[test]
fn tasks_follow_the_tool_rules() {
    let catalog = catalog();
    let rules = profile(r#"{"tools": {"deny": ["*delete*"]}}"#);
    let hidden = catalog
        .find(Kind::Tool, "github__repo_delete_file")
        .unwrap();
    let shown = catalog.find(Kind::Tool, "github__get_issue").unwrap();
    assert!(!rules.is_visible(&Primitive::task(hidden, "u1", "s1"), None));
    assert!(rules.is_visible(&Primitive::task(shown, "u2", "s2"), None));
}

// --- per-request narrowing ---

#[test]
fn narrowing_by_groups_tags_and_uri_paths() {
    let rules = profile("{}");
    let n = Narrowing::from_params(
        &json!({"filter": {"groups": ["issues", "repos"], "tags": ["stable"]}}),
    )
    .unwrap();
    assert_eq!(
        tools(&rules, Some(&n)),
        ["github__create_issue", "github__get_issue"]
    );
    assert_eq!(
        explain(&rules, "github__repo_delete_file", Some(&n)),
        ["request filter: tags.all stable (missing)"]
    );
    let n = Narrowing::from_params(&json!({"filters": {"uri_paths": ["mcp://tools/everything/"]}}))
        .unwrap();
    assert_eq!(
        tools(&rules, Some(&n)),
        ["everything__echo", "everything__trino_query"]
    );
}

#[test]
fn narrowing_through_meta_and_concerns() {
    let rules = profile("{}");
    let n = Narrowing::from_params(&json!({"_meta": {
        "dev.mcp-sieve/filter": {"groups": ["issues"], "uri_paths": ["mcp://tools/github/get"]},
        "dev.mcp-sieve/concerns": {"security": "high"}
    }}))
    .unwrap();
    assert_eq!(tools(&rules, Some(&n)), ["github__get_issue"]);
    let n = Narrowing::default().concerns(&[("security".to_string(), "low".to_string())].into());
    assert_eq!(
        explain(&rules, "github__get_issue", Some(&n)),
        ["request filter: concern security=low vs high"]
    );
}

#[test]
fn narrowing_never_widens_the_profile() {
    let rules = profile(r#"{"groups": ["issues"]}"#);
    // Asking for another group adds a constraint; it cannot re-admit it.
    let n = Narrowing::from_params(&json!({"filter": {"groups": ["pull_requests"]}})).unwrap();
    assert!(tools(&rules, Some(&n)).is_empty());
    // A concern the profile pins cannot be switched by the host.
    let rules = profile(r#"{"concerns": {"security": "high"}}"#);
    let n = Narrowing::default().concerns(&[("security".to_string(), "low".to_string())].into());
    assert_eq!(
        tools(&rules, Some(&n)),
        [
            "everything__echo",
            "everything__trino_query",
            "github__merge_pull_request"
        ],
        "only concern-agnostic tools pass both"
    );
}

#[test]
fn empty_narrowing_changes_nothing() {
    let rules = profile(r#"{"tools": {"deny": ["github__*"]}}"#);
    for params in [
        json!({}),
        json!({"filter": {}}),
        json!({"filter": {"groups": [], "tags": []}}),
        json!({"filters": {"uri_paths": []}}),
        json!({"filter": null}),
    ] {
        let n = Narrowing::from_params(&params).unwrap();
        assert!(n.is_empty(), "{params}");
        assert_eq!(tools(&rules, Some(&n)), tools(&rules, None));
    }
}

#[test]
fn bad_narrowing_params_name_the_field() {
    for (params, field) in [
        (json!({"filter": "issues"}), "filter must be an object"),
        (
            json!({"filter": {"groups": "issues"}}),
            "filter.groups must be a list of strings",
        ),
        (
            json!({"filter": {"tags": [1]}}),
            "filter.tags must be a list of strings",
        ),
        (
            json!({"filters": {"uri_paths": [true]}}),
            "filters.uri_paths must be a list of strings",
        ),
        (
            json!({"_meta": {"dev.mcp-sieve/concerns": {"security": 1}}}),
            "_meta[\"dev.mcp-sieve/concerns\"].security must be a string",
        ),
    ] {
        assert_eq!(
            Narrowing::from_params(&params).unwrap_err().to_string(),
            field
        );
    }
}

#[test]
fn enforce_defaults_on() {
    assert!(profile("{}").enforce());
    assert!(!profile(r#"{"enforce": false}"#).enforce());
}

#[test]
fn a_quarantined_tool_is_hidden_in_every_profile_and_refused_even_without_enforce() {
    let mut approvals = crate::Approvals::default();
    approvals.trust_first_use(
        "everything",
        &[json!({"name": "echo", "description": "Echoes its input."})],
        |tool| crate::scan::scan_tool(tool, &[]),
    );
    let mut catalog = catalog();
    catalog.quarantine(&approvals);
    let echo = catalog.find(Kind::Tool, "everything__echo").unwrap();
    let trino = catalog.find(Kind::Tool, "everything__trino_query").unwrap();
    // Servers the approvals do not know are not judged.
    let issue = catalog.find(Kind::Tool, "github__get_issue").unwrap();
    assert!(issue.quarantine.is_none());
    for text in [
        r#"{}"#,
        r#"{"enforce": false}"#,
        r#"{"tools": {"deny": ["*echo*"]}}"#,
    ] {
        let rules = profile(text);
        let reasons: Vec<String> = rules
            .explain(echo, None)
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(
            reasons[0], "quarantined: description and annotations changed",
            "{text}"
        );
        assert_eq!(
            rules.explain(trino, None)[0].to_string(),
            "quarantined: new tool"
        );
        assert!(!rules.refusal(echo, None).is_empty(), "{text}");
        assert!(rules.refusal(issue, None).is_empty());
    }
    // Without enforce, a tool hidden by the profile alone may be called.
    let lax = profile(r#"{"enforce": false, "tools": {"deny": ["github__*"]}}"#);
    assert!(!lax.explain(issue, None).is_empty());
    assert!(lax.refusal(issue, None).is_empty());
}

// --- ordered concerns (DESIGN §4 rule 5) ---

/// Visible tools under the built-in concerns: ordered, `security` from
/// annotations where the upstream sets none.
fn builtin_tools(profile_text: &str) -> Vec<String> {
    let catalog = catalog_with(&BuildOptions::new("__"));
    profile(profile_text)
        .visible(catalog.primitives(), Kind::Tool, None)
        .map(|p| p.exposed_name.clone())
        .collect()
}

#[test]
fn ordered_concerns_keep_the_chosen_level_and_stricter_ones() {
    // security: get_issue high, create_issue medium, repo_delete_file low
    // (all sent); echo and trino_query high (read-only annotations);
    // merge_pull_request low (no annotations: may destroy).
    assert_eq!(
        builtin_tools(r#"{"concerns": {"security": "medium"}}"#),
        [
            "everything__echo",
            "everything__trino_query",
            "github__create_issue",
            "github__get_issue",
        ],
        "medium keeps high and medium, hides low"
    );
    assert_eq!(
        builtin_tools(r#"{"concerns": {"security": "low"}}"#),
        ALL,
        "the loosest level keeps everything"
    );
    assert_eq!(
        builtin_tools(r#"{"concerns": {"security": "high"}}"#),
        [
            "everything__echo",
            "everything__trino_query",
            "github__get_issue"
        ]
    );
}

#[test]
fn ordered_concerns_say_why_in_words() {
    let catalog = catalog_with(&BuildOptions::new("__"));
    let rules = profile(r#"{"concerns": {"security": "medium"}}"#);
    let p = catalog
        .find(Kind::Tool, "github__repo_delete_file")
        .expect("listed");
    let reasons: Vec<String> = rules
        .explain(p, None)
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(reasons, ["security low is below the chosen medium"]);
}
