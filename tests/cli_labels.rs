//! `mcp-sieve labels` through the real binary, on GitHub's catalog (117
//! tools, no categories of its own): derived groups listed, a concern set
//! on a selection written as one overlay per tool and then filtered on,
//! a rename, an overlay edited in place, and refusals that name what is
//! wrong.

use serde_json::Value;
use sieve_tests::{Home, catalog};

fn home() -> Home {
    Home::new(env!("CARGO_BIN_EXE_mcp-sieve-under-test"))
}

fn github() -> String {
    catalog("github-mcp-server").display().to_string()
}

fn visible(home: &Home, profile: &str) -> Vec<String> {
    let rows = home
        .run(&[
            "tools",
            "--catalog",
            &github(),
            "--profile",
            profile,
            "--json",
        ])
        .json();
    rows.as_array()
        .unwrap()
        .iter()
        .filter(|r| r["visible"] == true)
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn labels_are_listed_set_on_tools_and_filtered_on() {
    let home = home();
    let list = home
        .run(&["labels", "--catalog", &github(), "list", "--json"])
        .json();
    let derived: Vec<&str> = list["derived"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    for group in ["issues", "pull-requests", "repositories"] {
        let group = format!("github-mcp-server/{group}");
        assert!(derived.contains(&group.as_str()), "{group} in {derived:?}");
    }
    assert_eq!(list["builtinConcerns"], true);

    let chosen = [
        "github-mcp-server__search_code",
        "github-mcp-server__search_issues",
        "github-mcp-server__search_users",
    ];
    let file = github();
    let mut args = vec![
        "labels",
        "--catalog",
        &file,
        "concern",
        "set",
        "cost",
        "high",
    ];
    args.extend(chosen);
    let set = home.run(&args);
    assert!(set.ok, "{}", set.stderr);
    let config: Value = serde_json::from_str(&home.read("config.json")).unwrap();
    assert_eq!(config["overlays"].as_array().unwrap().len(), 3, "{config}");

    home.run(&["profiles", "new", "cheap"]);
    home.write(
        "profiles/cheap.json",
        r#"{"concerns": {"cost": "moderate"}}"#,
    );
    let cheap = visible(&home, "cheap");
    assert_eq!(cheap.len(), 117 - 3);
    for tool in ["search_code", "search_issues", "search_users"] {
        assert!(!cheap.contains(&tool.to_string()), "{tool} costs too much");
    }

    let renamed = home.run(&[
        "labels",
        "--catalog",
        &github(),
        "group",
        "rename",
        "issues",
        "tickets",
    ]);
    assert!(renamed.ok, "{}", renamed.stderr);
    let text = home.run(&["labels", "--catalog", &github(), "list"]).stdout;
    // The bare name one server has is that server's group, and the new
    // name stays in that server.
    assert!(
        text.contains("renamed: github-mcp-server/issues -> github-mcp-server/tickets"),
        "{text}"
    );
    assert!(text.contains("github-mcp-server/tickets ("), "{text}");
    // A group no server lists is refused, and nothing is written.
    let before = home.read("config.json");
    let absent = home.run(&[
        "labels",
        "--catalog",
        &github(),
        "group",
        "rename",
        "github-mcp-server/nothing",
        "whatever",
    ]);
    assert!(!absent.ok);
    assert_eq!(
        absent.stderr.trim(),
        "error: no server lists a group \"github-mcp-server/nothing\" now; \
         `mcp-sieve labels list` shows the groups (a server that is down lists none)"
    );
    assert_eq!(home.read("config.json"), before);

    let refused = home.run(&[
        "labels",
        "--catalog",
        &github(),
        "tag",
        "add",
        "x",
        "github-mcp-server__nope",
    ]);
    assert!(!refused.ok);
    assert!(
        refused.stderr.contains("github-mcp-server__nope"),
        "{}",
        refused.stderr
    );
    let bad_value = home.run(&[
        "labels",
        "--catalog",
        &github(),
        "concern",
        "set",
        "cost",
        "free",
        chosen[0],
    ]);
    assert!(!bad_value.ok);
    assert!(
        bad_value.stderr.contains("minimal, moderate, high"),
        "{}",
        bad_value.stderr
    );
}

/// `labels edit-overlay N` changes a rule in place: a wider match takes
/// the rule's concern value to every tool it now matches, and a glob that
/// does not parse, a value the concern does not take or a number with no
/// rule is refused with a sentence, config.json left byte for byte.
#[test]
fn an_overlay_edited_in_place_applies_to_what_it_now_matches() {
    let home = home();
    let file = github();
    let labels = |args: &[&str]| {
        let mut all = vec!["labels", "--catalog", file.as_str()];
        all.extend(args);
        home.run(&all)
    };
    let set = labels(&[
        "concern",
        "set",
        "cost",
        "high",
        "github-mcp-server__search_code",
    ]);
    assert!(set.ok, "{}", set.stderr);
    let rule = || {
        let list = labels(&["list", "--json"]).json();
        assert_eq!(list["overlays"].as_array().unwrap().len(), 1, "{list}");
        list["overlays"][0].clone()
    };
    assert_eq!(rule()["matches"], 1);

    let edited = labels(&[
        "edit-overlay",
        "1",
        "--match",
        "github-mcp-server__search_*",
        "--groups",
        "search, finding",
    ]);
    assert!(edited.ok, "{}", edited.stderr);
    let config: Value = serde_json::from_str(&home.read("config.json")).unwrap();
    assert_eq!(
        config["overlays"],
        serde_json::json!([{
            "match": "github-mcp-server__search_*",
            "groups": ["search", "finding"],
            "concerns": {"cost": "high"}
        }]),
        "the match and groups replaced, the concern kept"
    );
    home.run(&["profiles", "new", "cheap"]);
    let all = visible(&home, "cheap");
    let searches: Vec<&String> = all.iter().filter(|t| t.starts_with("search_")).collect();
    assert!(
        searches.len() > 3,
        "GitHub has several search tools: {searches:?}"
    );
    let now = rule();
    assert_eq!(now["matches"], searches.len(), "{now}");
    assert_eq!(
        now["adds"],
        serde_json::json!(["group search", "group finding", "cost=high"])
    );

    home.write(
        "profiles/cheap.json",
        r#"{"concerns": {"cost": "moderate"}}"#,
    );
    let cheap = visible(&home, "cheap");
    assert_eq!(
        cheap.len(),
        all.len() - searches.len(),
        "every search tool costs too much"
    );
    assert!(!cheap.iter().any(|t| t.starts_with("search_")), "{cheap:?}");

    let before = home.read("config.json");
    for (args, says) in [
        (
            vec!["--match", "github-mcp-server__search_["],
            "the match pattern cannot be used",
        ),
        (vec!["--concerns", "cost=free"], "minimal, moderate, high"),
        (vec!["--concerns", "cost"], "NAME=VALUE"),
        (
            vec!["--groups", "search", "--remove-groups", "search"],
            "both added and taken away",
        ),
    ] {
        let mut all = vec!["edit-overlay", "1"];
        all.extend(args.iter().copied());
        let refused = labels(&all);
        assert!(!refused.ok, "{args:?} is refused");
        assert!(
            refused.stderr.contains(says),
            "{args:?}: {}",
            refused.stderr
        );
        assert_eq!(home.read("config.json"), before, "{args:?} wrote nothing");
    }
    let missing = labels(&["edit-overlay", "2", "--tags", "x"]);
    assert!(!missing.ok);
    assert!(
        missing.stderr.contains("there is no overlay number 2"),
        "{}",
        missing.stderr
    );
}

/// A host connected to `mcp-sieve serve` hears of each labelling edit:
/// the overlay is written, the proxy reloads config.json, and the host
/// gets tools/list_changed and sees the new label.
#[tokio::test]
async fn a_running_proxy_announces_each_label_edit() {
    use sieve_tests::wire::Wire;
    use std::time::Duration;
    const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
    let home = Home::new(BIN);
    home.write("profiles/work.json", "{}");
    let mut host = Wire::start(
        BIN,
        home.path(),
        &["--profile", "work"],
        serde_json::json!({}),
    )
    .await;
    host.request("tools/list", serde_json::json!({})).await;
    for (edit, label) in [
        (
            vec!["tag", "add", "reviewed", "demo__read_file"],
            "reviewed",
        ),
        (
            vec!["group", "add", "everyday", "demo__read_file"],
            "everyday",
        ),
    ] {
        let mut args = vec!["labels"];
        args.extend(edit);
        let run = home.run(&args);
        assert!(run.ok, "{}", run.stderr);
        tokio::time::timeout(
            Duration::from_secs(30),
            host.notification("notifications/tools/list_changed"),
        )
        .await
        .expect("the edit is announced with tools/list_changed");
        let list = host.request("tools/list", serde_json::json!({})).await;
        let tool = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "demo__read_file")
            .expect("listed")
            .clone();
        assert!(
            tool["_meta"].to_string().contains(label),
            "the host sees {label} on the tool: {}",
            tool["_meta"]
        );
    }
}
