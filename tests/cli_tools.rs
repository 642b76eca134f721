//! `mcp-sieve tools` and `mcp-sieve tokens` on real catalogs, through the
//! real binary.

use serde_json::Value;
use sieve_tests::{Home, catalog};

fn home() -> Home {
    Home::new(env!("CARGO_BIN_EXE_mcp-sieve-under-test"))
}

fn github() -> String {
    catalog("github-mcp-server").display().to_string()
}

fn names(rows: &Value) -> Vec<&str> {
    rows.as_array()
        .expect("an array of tools")
        .iter()
        .map(|r| r["exposedName"].as_str().unwrap())
        .collect()
}

#[test]
fn default_profile_shows_all_tools_with_labels() {
    let home = home();
    let rows = home
        .run(&["tools", "--catalog", &github(), "--json"])
        .json();
    assert_eq!(names(&rows).len(), 117);
    let get_me = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "get_me")
        .unwrap();
    assert_eq!(get_me["exposedName"], "github-mcp-server__get_me");
    assert_eq!(get_me["server"], "github-mcp-server");
    assert_eq!(get_me["uri"], "mcp://tools/github-mcp-server/get_me");
    assert_eq!(
        get_me["tags"],
        serde_json::json!(["open-world", "read-only"]),
        "no openWorldHint means open-world"
    );
    // Its server group, and the group of its subject, derived from its
    // name and text (DESIGN §3): the server sends no categories.
    // The derived group is the server's own: `SERVER/GROUP`.
    assert_eq!(
        get_me["groups"],
        serde_json::json!(["github-mcp-server/users", "server:github-mcp-server"])
    );
    assert_eq!(
        get_me["derivedGroups"],
        serde_json::json!(["github-mcp-server/users"])
    );
    assert!(
        get_me["groupReasons"]["github-mcp-server/users"]
            .as_str()
            .is_some_and(|why| why.contains("user")),
        "the group says why: {get_me}"
    );
    assert_eq!(
        get_me["concerns"],
        serde_json::json!({"cost": "minimal", "security": "high"}),
        "read-only: the built-in security concern's strictest level; nothing in its definition costs"
    );
    let reasons = &get_me["concernReasons"];
    assert!(
        reasons["security"]
            .as_str()
            .is_some_and(|r| r.contains("read-only")),
        "{get_me}"
    );
    assert!(
        reasons["cost"]
            .as_str()
            .is_some_and(|r| r.starts_with("cost minimal")),
        "{get_me}"
    );
    assert_eq!(
        get_me["derivedConcerns"],
        serde_json::json!(["cost"]),
        "{get_me}"
    );
    assert_eq!(get_me["visible"], true);
    assert_eq!(get_me["hiddenBy"], serde_json::json!([]));
    assert!(
        home.path().join("profiles/default.json").exists(),
        "default created on first use"
    );
}

#[test]
fn profile_with_overlays_and_explanations() {
    let home = home();
    home.write(
        "config.json",
        r#"{"overlays": [{"match": "gh__*issue*", "groups": ["issues"]},
                         {"match": "gh__delete_*", "concerns": {"security": "low"}}],
            "concerns": [{"name": "security", "values": ["high", "medium", "low"]}]}"#,
    );
    home.write(
        "profiles/work.json",
        r#"{"tools": {"deny": ["*_delete_*"]}, "tags": {"none": ["destructive"]},
            "concerns": {"security": "high"}}"#,
    );
    let args = [
        "tools",
        "--catalog",
        &github(),
        "--server",
        "gh",
        "--profile",
        "work",
    ];
    let visible = home.run(&[&args[..], &["--json"]].concat()).json();
    assert_eq!(
        names(&visible).len(),
        82,
        "58 read-only + 24 non-destructive writes"
    );
    let all = home
        .run(&[&args[..], &["--json", "--hidden"]].concat())
        .json();
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 117);
    let delete_file = all.iter().find(|r| r["name"] == "delete_file").unwrap();
    assert_eq!(delete_file["visible"], false);
    assert_eq!(
        delete_file["hiddenBy"],
        serde_json::json!([
            "tools.deny \"*_delete_*\"",
            "tags.none destructive",
            "concern security=high vs low"
        ])
    );
    let text = home.run(&[&args[..], &["--explain"]].concat());
    assert!(text.ok, "{}", text.stderr);
    assert!(text.stdout.contains("- gh__delete_file"), "{}", text.stdout);
    assert!(text.stdout.contains("hidden by: tools.deny \"*_delete_*\"; tags.none destructive; concern security=high vs low"), "{}", text.stdout);
    assert!(
        text.stdout
            .ends_with("82 of 117 tools visible under profile \"work\"\n"),
        "{}",
        text.stdout
    );
}

#[test]
fn several_catalogs_are_several_servers() {
    let home = home();
    home.write("profiles/ev.json", r#"{"servers": ["server-everything"]}"#);
    let everything = catalog("server-everything").display().to_string();
    let rows = home
        .run(&[
            "tools",
            "--catalog",
            &github(),
            "--catalog",
            &everything,
            "--profile",
            "ev",
            "--json",
        ])
        .json();
    let names = names(&rows);
    assert_eq!(names.len(), 19);
    assert!(
        names.iter().all(|n| n.starts_with("server-everything__")),
        "{names:?}"
    );
}

/// Search mode on GitHub's 117 tools: the host gets the pinned ones and
/// the two search tools, a small fraction of the tokens.
#[test]
fn tokens_of_search_mode() {
    let home = home();
    home.write("profiles/search.json", r#"{"disclosure": "search"}"#);
    home.write(
        "profiles/issues.json",
        r#"{"disclosure": "search", "pinned": ["github__*issue*"]}"#,
    );
    let report = |profile: &str| {
        home.run(&[
            "tokens",
            "--catalog",
            &github(),
            "--server",
            "github",
            "--profile",
            profile,
            "--json",
        ])
        .json()
    };
    let search = report("search");
    assert_eq!(search["toolsBefore"], 117);
    assert_eq!(search["toolsAfter"], 2, "the two search tools: {search}");
    let (before, after) = (
        search["before"].as_u64().unwrap(),
        search["after"].as_u64().unwrap(),
    );
    assert_eq!(search["search"].as_u64().unwrap(), after);
    assert!(after * 100 < before, "{after} of {before} tokens");
    let issues = report("issues");
    let pinned = issues["toolsAfter"].as_u64().unwrap() - 2;
    assert!(pinned > 10, "the issue tools stay listed: {issues}");
    assert!(issues["after"].as_u64().unwrap() > after);
    // The table says what the two tools are and never rounds up to 100 %.
    let table = home.run(&[
        "tokens",
        "--catalog",
        &github(),
        "--server",
        "github",
        "--profile",
        "search",
    ]);
    assert!(table.ok, "{}", table.stderr);
    let total = table
        .stdout
        .lines()
        .find(|l| l.starts_with("total"))
        .unwrap();
    assert!(total.ends_with("99%"), "{total}");
    assert!(
        table.stdout.contains(&format!(
            "search mode: the host lists the proxy's 2 search tools ({after} tokens)"
        )),
        "{}",
        table.stdout
    );
}

#[test]
fn tokens_before_and_after_per_server() {
    let home = home();
    home.write("profiles/ro.json", r#"{"tags": {"all": ["read-only"]}}"#);
    let everything = catalog("server-everything").display().to_string();
    let report = home
        .run(&[
            "tokens",
            "--catalog",
            &github(),
            "--catalog",
            &everything,
            "--profile",
            "ro",
            "--json",
        ])
        .json();
    assert_eq!(report["profile"], "ro");
    assert_eq!(report["toolsBefore"], 136);
    assert_eq!(report["toolsAfter"], 58 + 10);
    let (before, after) = (
        report["before"].as_u64().unwrap(),
        report["after"].as_u64().unwrap(),
    );
    assert!(after < before && after > 0, "{report}");
    let gh = &report["servers"]["github-mcp-server"];
    let ev = &report["servers"]["server-everything"];
    assert_eq!(
        gh["before"].as_u64().unwrap() + ev["before"].as_u64().unwrap(),
        before
    );
    assert_eq!(gh["toolsAfter"], 58);
    // 117 GitHub tool definitions cost tens of thousands of tokens.
    assert!(gh["before"].as_u64().unwrap() > 20_000, "{gh}");
    let table = home.run(&["tokens", "--catalog", &github(), "--profile", "ro"]);
    assert!(table.ok, "{}", table.stderr);
    assert!(
        table.stdout.contains("github-mcp-server"),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("58 / 117"), "{}", table.stdout);
}

#[test]
fn errors_are_one_clear_line_and_fail() {
    let home = home();
    let missing = home.run(&["tools", "--catalog", "/nonexistent/tools.json"]);
    assert!(!missing.ok);
    assert!(
        missing
            .stderr
            .starts_with("error: cannot read catalog /nonexistent/tools.json:"),
        "{}",
        missing.stderr
    );
    assert_eq!(missing.stderr.lines().count(), 1, "{}", missing.stderr);

    home.write("bad.json", "[{\"name\": \"a\"},\n {\"name\": }]");
    let bad = home.run(&[
        "tools",
        "--catalog",
        &home.path().join("bad.json").display().to_string(),
    ]);
    assert!(!bad.ok);
    assert!(
        bad.stderr
            .contains("bad.json:2:11: [1].name: expected value"),
        "{}",
        bad.stderr
    );

    home.write(
        "profiles/broken.json",
        "{\n  \"tools\": {\"allow\": [\"gh__[\"]}\n}",
    );
    let broken = home.run(&["tools", "--catalog", &github(), "--profile", "broken"]);
    assert!(!broken.ok);
    assert!(
        broken
            .stderr
            .contains("broken.json:2:23: tools.allow[0]: invalid glob \"gh__[\""),
        "{}",
        broken.stderr
    );

    let nope = home.run(&["tools", "--catalog", &github(), "--profile", "nope"]);
    assert!(
        nope.stderr
            .contains("there is no profile \"nope\"; `mcp-sieve profiles list`"),
        "{}",
        nope.stderr
    );

    home.write("config.json", "{\"mcpServers\": {\"x\": {}}}");
    let config = home.run(&["tools", "--catalog", &github()]);
    assert!(
        config.stderr.contains("config.json:1:"),
        "{}",
        config.stderr
    );
    assert!(
        config.stderr.contains("mcpServers.x: needs \"command\""),
        "{}",
        config.stderr
    );
}

#[test]
fn home_comes_from_the_environment_too() {
    let home = home();
    let output = home
        .command()
        .args(["profiles", "new", "from-env"])
        .output()
        .unwrap();
    assert!(output.status.success());
    // Without --home, MCP_SIEVE_HOME picks the folder.
    let other = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-sieve-under-test"))
        .args(["profiles", "new", "via-env"])
        .env("MCP_SIEVE_HOME", other.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(other.path().join("profiles/via-env.json").exists());
}
