//! Derived groups against servers' own published areas: the adjusted
//! Rand index (ARI) of each fixture in `tests/fixtures/published`, and the
//! limits every derivation keeps (group count, coverage, names, reasons).
//! `scripts/derived-groups-ari.py` prints the same figures as a table.

use sieve_core::subjects::{Derived, ToolText, derive_for, max_groups};
use std::collections::{BTreeMap, BTreeSet};

/// The ARI every server is to reach.
const TARGET: f64 = 0.5;

/// Servers below the target today, each with the floor it must not fall
/// under and why it is below: known weaknesses, not the goal.
const BELOW_TARGET: &[(&str, f64, &str)] = &[
    (
        "git-mcp-server",
        0.26,
        "its names are `git_` and a word of their own (`git_stash`, `git_rebase`), so its tools are grouped by their texts; its README's workflow categories (advanced workflows: stash, tag, worktree, reset) share no words",
    ),
    (
        "github-mcp-server-npm",
        0.34,
        "held out (round 8): its names are `git-` and a verb (`git-add`, `git-stash-pop`); 0.123 until the ninth round read the thing each description acts on (file, branch), 0.350 since; its README's ten areas are finer than what its texts share",
    ),
    (
        "agent-infra-browser",
        0.25,
        "held out (round 9): its names are `browser_` and a verb, `browser` being its key; its source keeps eight tools of several kinds in one module (core); 0.215 in the ninth round, 0.261 since the tenth weighs a name's verb beside a thing less (`close_tab` joins the tab tools)",
    ),
    (
        "mcp-server-sqlite",
        0.11,
        "held out (round 9): six tools in three README sections; `query` is read as a verb, so read_query and write_query name no subject; one group (0.000) before the round, two (0.118) since loners beside one group are a group of their own",
    ),
    (
        "awslabs-eks",
        0.04,
        "held out (round 11), scored once: 16 tools in six README sections, most names a verb and a thing no other name has (`get_eks_vpc_config`, `apply_yaml`), so its tools are grouped by their texts, and `apply_yaml` and `generate_app_manifest`, sharing no word with any group, join the IAM tools' `policy` so that nine in ten have a group",
    ),
    (
        "atlassian",
        0.22,
        "held out (round 12), scored once: mcp-atlassian sends each tool's toolset as a FastMCP tag (`toolset:jira_issues`), which Sieve shows as the server's own groups, so a person never sees these derived ones; derived as if it sent none, its 98 tools part by subject (issues, pages, users) across its 24 toolsets",
    ),
    (
        "dbt",
        0.26,
        "held out (round 12), scored once: its areas are the backends its tools call (Discovery API, Admin API, the dbt CLI, Semantic Layer, codegen), while its names say the thing each acts on (models, runs, lineage), which parts them by subject across those backends",
    ),
    (
        "apify-mcp",
        0.44,
        "held out (round 14), scored once: its `actors` group holds the actors, their runs and their tasks (`get-actor-run`, `create-actor-task`), which Apify publishes as three categories; one family beside the head's own tools is left whole, as LaunchDarkly publishes its AI config variations with its AI configs",
    ),
    (
        "salesforce-dx-mcp",
        0.43,
        "held out (round 14), scored once: 36 of its 88 tools are the LWC experts' (`guide_lwc_development`, `orchestrate_lwc_component_creation`, `explore_slds_blueprints`), whose names lead with what they do to many things, so they part by their leading words (`guide`, `orchestrate`, `explore`), and the mobile LWC tools join the guides",
    ),
    (
        "asana-mcp",
        0.17,
        "held out (round 15), scored once: its source files put a tool by the thing it acts on (`add_tag_to_task` with the tags) where its names lead with it, but Linear publishes `addIssueToCycle` with the cycles, so taking the thing before `to` (tried: Asana 0.337) lost as much on Linear (0.690 to 0.599); 18 of its 41 tools name tasks, and are one group",
    ),
    (
        "firebase-mcp",
        0.40,
        "held out (round 15), scored once: the Firebase CLI stamps each tool's feature in its `_meta` (`\"feature\": \"crashlytics\"`), which Sieve shows as the server's own groups, so a person never sees these derived ones; derived as if it sent none, its core tools (projects, apps, environment, rules, login) part by subject",
    ),
    (
        "n8n-mcp",
        0.38,
        "held out (round 15), scored once: four of its tools are `n8n_manage_` and a thing no other name has (credentials, folders, data tables, agents), which join as the manage family with the tools near them, while its README puts each in an area of its own; with `manage` a verb any subject takes, they fell into a group of the `action` their descriptions list (0.315), so that was not kept",
    ),
    (
        "mapbox-mcp",
        0.11,
        "held out (round 15), scored once (0.074): its README parts its 29 tools by where they run, offline (Turf's geometry) or on Mapbox's APIs, while each name says one thing it computes (`distance_tool`, `isochrone_tool`), so its tools are grouped by what their texts speak of (geocoding, places, travel, lines) across that line; 0.112 since a mixed-case word of prose (`LineString`) is one name",
    ),
];

struct Fixture {
    name: String,
    server: String,
    tools: Vec<ToolText>,
    areas: Vec<String>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = format!("{}/tests/fixtures/published", env!("CARGO_MANIFEST_DIR"));
    let mut fixtures = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the published fixtures") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("the fixture reads");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let tools: Vec<ToolText> = value["tools"]
            .as_array()
            .expect("a tools array")
            .iter()
            .map(ToolText::of)
            .collect();
        let areas = tools
            .iter()
            .map(|t| {
                value["categories"][&t.name]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: no area for {}", path.display(), t.name))
                    .to_string()
            })
            .collect();
        fixtures.push(Fixture {
            name: path.file_stem().unwrap().to_string_lossy().into_owned(),
            server: value["server"].as_str().unwrap_or_default().to_string(),
            tools,
            areas,
        });
    }
    fixtures.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(fixtures.len() > 12, "more than a dozen servers");
    fixtures
}

fn pairs(n: usize) -> f64 {
    (n * n.saturating_sub(1) / 2) as f64
}

/// The adjusted Rand index of two labellings of the same items.
fn ari<A: Ord, B: Ord>(a: &[A], b: &[B]) -> f64 {
    let mut both: BTreeMap<(&A, &B), usize> = BTreeMap::new();
    let mut rows: BTreeMap<&A, usize> = BTreeMap::new();
    let mut cols: BTreeMap<&B, usize> = BTreeMap::new();
    for (x, y) in a.iter().zip(b) {
        *both.entry((x, y)).or_default() += 1;
        *rows.entry(x).or_default() += 1;
        *cols.entry(y).or_default() += 1;
    }
    let index: f64 = both.values().map(|&n| pairs(n)).sum();
    let row: f64 = rows.values().map(|&n| pairs(n)).sum();
    let col: f64 = cols.values().map(|&n| pairs(n)).sum();
    let expected = row * col / pairs(a.len());
    let maximum = (row + col) / 2.0;
    if maximum == expected {
        return 1.0;
    }
    (index - expected) / (maximum - expected)
}

/// Each tool's cluster: its group, or itself when it has none.
fn clusters(fixture: &Fixture, derived: &[Option<Derived>]) -> Vec<String> {
    fixture
        .tools
        .iter()
        .zip(derived)
        .map(|(tool, found)| match found {
            Some(found) => format!("group {}", found.group),
            None => format!("alone {}", tool.name),
        })
        .collect()
}

#[test]
fn derived_groups_find_each_server_s_published_areas() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for fixture in fixtures() {
        let derived = derive_for(&fixture.server, &fixture.tools);
        let score = ari(&clusters(&fixture, &derived), &fixture.areas);
        report.push(format!("{}: {score:.3}", fixture.name));
        let floor = BELOW_TARGET
            .iter()
            .find(|(name, _, _)| *name == fixture.name)
            .map_or(TARGET, |(_, floor, _)| *floor);
        if score < floor {
            failures.push(format!("{}: ARI {score:.3} < {floor}", fixture.name));
        }
        if floor < TARGET && score >= TARGET {
            failures.push(format!(
                "{} reaches the target now ({score:.3}): take it off BELOW_TARGET",
                fixture.name
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:?}\nall: {report:?}");
}

#[test]
fn derived_groups_keep_their_limits_on_every_server() {
    for fixture in fixtures() {
        keeps_limits(&fixture, &fixture.server);
        // A key that names nothing of the server (`git_` on every name is
        // then no namespace of a group of all the tools).
        keeps_limits(&fixture, "x");
    }
}

fn keeps_limits(fixture: &Fixture, key: &str) {
    {
        let derived = derive_for(key, &fixture.tools);
        let n = fixture.tools.len();
        let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
        for found in derived.iter().flatten() {
            *sizes.entry(&found.group).or_default() += 1;
            assert!(!found.why.is_empty(), "{}: a reason", fixture.name);
            assert!(
                found
                    .group
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}: {}",
                fixture.name,
                found.group
            );
        }
        assert!(
            (2..=max_groups(n)).contains(&sizes.len()),
            "{}: {} groups",
            fixture.name,
            sizes.len()
        );
        assert!(
            sizes.values().all(|&s| s >= 2),
            "{}: {sizes:?}",
            fixture.name
        );
        let grouped: usize = sizes.values().sum();
        assert!(
            grouped * 10 >= n * 9,
            "{}: {grouped} of {n} tools in a group",
            fixture.name
        );
        // Never a group named after the server. Its name is known from
        // the key it was derived under, and from its tools' texts where a
        // third of them say it: under a key that names nothing of it, a
        // brand that few tools say (alpaca's five documentation tools,
        // `search_alpaca_docs`) is a subject like any other.
        let said_often = |word: &str| {
            let saying = fixture
                .tools
                .iter()
                .filter(|t| {
                    t.description
                        .as_deref()
                        .is_some_and(|d| d.to_lowercase().contains(word))
                })
                .count();
            saying * 3 >= n
        };
        let server: BTreeSet<String> = fixture
            .server
            .split('-')
            .filter(|w| !["mcp", "server"].contains(w))
            .filter(|w| key == fixture.server || said_often(w))
            .map(str::to_string)
            .collect();
        for group in sizes.keys() {
            assert!(
                !server.contains(*group),
                "{}: a group named after the server ({group}, under the key {key})",
                fixture.name
            );
        }
    }
}

/// git-mcp-server's names are `git_` and a word no other name has
/// (`git_stash`, `git_rebase`): its tools are grouped by what their
/// texts speak of, and each says so.
#[test]
fn names_that_say_little_are_grouped_by_their_texts() {
    let git = fixtures()
        .into_iter()
        .find(|f| f.name == "git-mcp-server")
        .expect("the git-mcp-server fixture");
    let derived = derive_for(&git.server, &git.tools);
    let group = |name: &str| -> &Derived {
        let at = git.tools.iter().position(|t| t.name == name).expect(name);
        derived[at].as_ref().expect(name)
    };
    for name in ["git_fetch", "git_pull", "git_push", "git_remote"] {
        assert_eq!(group(name).group, "remote", "{name}");
    }
    for name in ["git_branch", "git_cherry_pick", "git_merge", "git_rebase"] {
        assert_eq!(group(name).group, "branch", "{name}");
    }
    assert_eq!(
        group("git_push").why,
        "most names here say a subject no other name shares, so tools are grouped by their texts: its texts speak of remote and repository, as do all 4 other remote tools"
    );
    assert_ne!(group("git_log").group, group("git_push").group);
}

/// Codacy's names say `repository` before several subjects that head
/// names of their own (`codacy_list_repository_pull_requests` beside
/// `codacy_get_pull_request_git_diff`, `codacy_list_repository_tools`
/// beside `codacy_list_tools`): the repository says where, and those
/// tools join the thing after it; a name that says a repository only
/// stays with the repositories. MongoDB's `atlas-list-clusters`, where
/// the word comes before the verb, is a namespace and stays `atlas`.
#[test]
fn a_word_names_say_before_several_subjects_says_where() {
    let all = fixtures();
    let find = |name: &str| all.iter().find(|f| f.name == name).expect(name);
    let codacy = find("codacy-mcp");
    let derived = derive_for(&codacy.server, &codacy.tools);
    let group = |name: &str| -> &Derived {
        let at = codacy
            .tools
            .iter()
            .position(|t| t.name == name)
            .expect(name);
        derived[at].as_ref().expect(name)
    };
    for (name, with) in [
        (
            "codacy_list_repository_pull_requests",
            "codacy_get_pull_request_git_diff",
        ),
        (
            "codacy_get_repository_pull_request",
            "codacy_list_pull_request_issues",
        ),
        ("codacy_list_repository_tools", "codacy_list_tools"),
    ] {
        assert_eq!(group(name).group, group(with).group, "{name} with {with}");
    }
    assert_eq!(group("codacy_setup_repository").group, "repositories");
    assert_eq!(
        group("codacy_list_repository_tools").why,
        "its name is about tool of a repository, as are 3 others: names say `repository` before several subjects of their own"
    );
    let mongodb = find("mongodb-mcp");
    let derived = derive_for(&mongodb.server, &mongodb.tools);
    let at = mongodb
        .tools
        .iter()
        .position(|t| t.name == "atlas-list-clusters")
        .expect("atlas-list-clusters");
    assert_eq!(derived[at].as_ref().expect("a group").group, "atlas");
}

/// Backlog writes `update` in the plural once (`get_user_recent_updates`),
/// which makes it a noun in that server's names; where it starts a name
/// with more after it (`update_issue`, `update_wiki`) it is still the
/// verb, and the tool is about what follows.
#[test]
fn a_name_s_first_verb_stays_a_verb_where_the_server_writes_it_as_a_noun() {
    let backlog = fixtures()
        .into_iter()
        .find(|f| f.name == "backlog-mcp")
        .expect("the backlog-mcp fixture");
    let derived = derive_for(&backlog.server, &backlog.tools);
    let group = |name: &str| -> &str {
        let at = backlog
            .tools
            .iter()
            .position(|t| t.name == name)
            .expect(name);
        &derived[at].as_ref().expect(name).group
    };
    for (name, with) in [
        ("update_issue", "get_issue"),
        ("update_wiki", "get_wiki"),
        ("update_pull_request", "get_pull_request"),
        ("update_project", "get_project"),
    ] {
        assert_eq!(group(name), group(with), "{name} with {with}");
    }
    assert_ne!(group("update_issue"), group("update_wiki"));
}

/// kubernetes-mcp-server's `resources_get`, `resources_list` and three
/// more, `namespaces_list`, `projects_list` and `events_list` all say they
/// work "in the current cluster", a thing no group is named after: they
/// are one area under it, the five resource tools too, though more than
/// a small group; the pods, most of whose texts say "in the current or
/// provided namespace", are a group apart.
#[test]
fn groups_that_say_they_work_in_one_thing_join_under_it_whatever_their_size() {
    let kubernetes = fixtures()
        .into_iter()
        .find(|f| f.name == "kubernetes-mcp-server")
        .expect("the kubernetes-mcp-server fixture");
    let derived = derive_for(&kubernetes.server, &kubernetes.tools);
    let group = |name: &str| -> &Derived {
        let at = kubernetes
            .tools
            .iter()
            .position(|t| t.name == name)
            .expect(name);
        derived[at].as_ref().expect(name)
    };
    for name in [
        "resources_get",
        "resources_list",
        "resources_delete",
        "namespaces_list",
        "events_list",
    ] {
        assert_eq!(group(name).group, "clusters", "{name}");
    }
    assert_eq!(
        group("resources_get").why,
        "its name is about resource, and the texts of such tools speak of cluster"
    );
    assert_ne!(group("pods_list").group, "clusters");
}

/// github-mcp-server-npm's names are `git-` and a verb (`git-add`,
/// `git-merge`): each takes the thing its description's first clause
/// acts on ("Adds a specific file to the staging area", "Merge a branch
/// into the current branch"), and only the tools whose things no two
/// others share stay the namespace's group. executeautomation-playwright's
/// names are its own word and a verb: its HTTP tools part by what they
/// act on, and no group is named after the server.
#[test]
fn a_name_of_a_verb_only_takes_what_its_description_acts_on() {
    let all = fixtures();
    let find = |name: &str| all.iter().find(|f| f.name == name).expect(name);
    let npm = find("github-mcp-server-npm");
    let derived = derive_for(&npm.server, &npm.tools);
    let group = |name: &str| -> &Derived {
        let at = npm.tools.iter().position(|t| t.name == name).expect(name);
        derived[at].as_ref().expect(name)
    };
    for name in ["git-add", "git-add-all", "git-remove", "git-remove-all"] {
        assert_eq!(group(name).group, "file", "{name}");
    }
    for name in ["git-branch", "git-checkout", "git-merge", "git-rebase"] {
        assert_eq!(group(name).group, "branch", "{name}");
    }
    assert_eq!(
        group("git-merge").why,
        "its name says `git` and a verb only, and its description acts on branch, as do 3 others"
    );
    let playwright = find("executeautomation-playwright");
    let derived = derive_for(&playwright.server, &playwright.tools);
    let group = |name: &str| -> &Derived {
        let at = playwright
            .tools
            .iter()
            .position(|t| t.name == name)
            .expect(name);
        derived[at].as_ref().expect(name)
    };
    for name in ["playwright_get", "playwright_post", "playwright_delete"] {
        assert_eq!(group(name).group, "http", "{name}");
    }
    assert_eq!(group("playwright_navigate").group, "browser");
    assert!(
        group("playwright_navigate")
            .why
            .contains("`playwright`, the server's own word"),
        "{}",
        group("playwright_navigate").why
    );
    assert!(derived.iter().flatten().all(|d| d.group != "playwright"));
}

/// Servers tried live as a new user would (`tests/fixtures/live-labels.json`,
/// no published areas): what their groups showed stays mended, and each
/// keeps the limits (2 to max(15, tools/4) groups, or none).
/// Mapbox's server (round 15): its groups are named by the things its
/// tools compute, not by a piece of `LineString`, a preposition or a
/// verb's `-ing` form, as three of them were.
#[test]
fn mapbox_s_groups_are_named_by_things() {
    let all = fixtures();
    let mapbox = all
        .iter()
        .find(|f| f.name == "mapbox-mcp")
        .expect("mapbox-mcp");
    let derived = derive_for(&mapbox.server, &mapbox.tools);
    let group = |tool: &str| -> Option<&str> {
        let at = mapbox
            .tools
            .iter()
            .position(|t| t.name == tool)
            .expect(tool);
        derived[at].as_ref().map(|d| d.group.as_str())
    };
    let names: BTreeSet<&str> = derived.iter().flatten().map(|d| d.group.as_str()).collect();
    for wrong in ["string", "between", "returning"] {
        assert!(!names.contains(wrong), "{wrong}: {names:?}");
    }
    assert_eq!(group("length_tool"), Some("line"));
    assert_eq!(group("convex_tool"), Some("polygon"));
}

#[test]
fn live_servers_groups_say_their_areas() {
    let path = format!(
        "{}/tests/fixtures/live-labels.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the live lists");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let servers = value["servers"].as_object().expect("servers");
    let mut derived: BTreeMap<&str, Vec<(String, Option<String>)>> = BTreeMap::new();
    for (key, tools) in servers {
        let tools: Vec<ToolText> = tools
            .as_array()
            .expect("a tools array")
            .iter()
            .map(ToolText::of)
            .collect();
        let groups = derive_for(key, &tools);
        let sizes: BTreeSet<&str> = groups.iter().flatten().map(|d| d.group.as_str()).collect();
        assert!(
            sizes.is_empty() || (2..=max_groups(tools.len())).contains(&sizes.len()),
            "{key}: {sizes:?}"
        );
        derived.insert(
            key,
            tools
                .iter()
                .zip(&groups)
                .map(|(t, d)| (t.name.clone(), d.as_ref().map(|d| d.group.clone())))
                .collect(),
        );
    }
    let group = |server: &str, tool: &str| -> Option<String> {
        derived[server]
            .iter()
            .find(|(name, _)| name == tool)
            .unwrap_or_else(|| panic!("{server}: no {tool}"))
            .1
            .clone()
    };
    // Chroma's collections were a group named `name`.
    assert_eq!(
        group("chroma", "chroma_list_collections").as_deref(),
        Some("collections")
    );
    assert_eq!(
        group("chroma", "chroma_fork_collection"),
        group("chroma", "chroma_delete_collection")
    );
    // Netlify's nine tools were one group, `services`.
    assert_ne!(
        group("netlify", "netlify-project-services-reader"),
        group("netlify", "netlify-extension-services-reader")
    );
    // The AWS documentation server's five tools were one group.
    assert!(derived["awsdocs"].iter().all(|(_, g)| g.is_none()));
    // A Google Workspace server's doc tools were a group named `google`.
    assert!(
        derived["gworkspace"]
            .iter()
            .all(|(_, g)| g.as_deref() != Some("google")),
        "{:?}",
        derived["gworkspace"]
    );
}
