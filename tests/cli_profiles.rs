//! `mcp-sieve profiles list|show|new|delete` through the real binary.

use sieve_tests::Home;

fn home() -> Home {
    Home::new(env!("CARGO_BIN_EXE_mcp-sieve-under-test"))
}

#[test]
fn new_from_show_list_delete() {
    let home = home();
    home.write(
        "profiles/base.json",
        r#"{"description": "Base", "groups": ["issues"]}"#,
    );
    let created = home.run(&["profiles", "new", "copy", "--from", "base"]);
    assert!(created.ok, "{}", created.stderr);
    let shown = home.run(&["profiles", "show", "copy", "--json"]).json();
    assert_eq!(
        shown,
        serde_json::json!({"description": "Base", "groups": ["issues"]})
    );

    let list = home.run(&["profiles", "list", "--json"]).json();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["base", "copy", "default"]);

    let deleted = home.run(&["profiles", "delete", "copy"]);
    assert!(deleted.ok, "{}", deleted.stderr);
    assert!(home.path().join("profiles/copy.json.bak").exists());
    let again = home.run(&["profiles", "delete", "copy"]);
    assert!(!again.ok);
    assert!(
        again.stderr.contains("there is no profile \"copy\""),
        "{}",
        again.stderr
    );
}

#[test]
fn refusals_say_what_to_do() {
    let home = home();
    let default = home.run(&["profiles", "delete", "default"]);
    assert!(!default.ok);
    assert_eq!(
        default.stderr,
        "error: the default profile cannot be deleted; edit it instead\n"
    );
    home.run(&["profiles", "new", "a"]);
    let twice = home.run(&["profiles", "new", "a"]);
    assert!(twice.stderr.contains("exists already"), "{}", twice.stderr);
    let bad = home.run(&["profiles", "new", "../evil"]);
    assert!(
        bad.stderr.contains("cannot name a profile"),
        "{}",
        bad.stderr
    );
    assert!(!home.path().join("evil.json").exists());
}

#[test]
fn broken_profiles_are_listed_and_left_alone() {
    let home = home();
    home.write("profiles/typo.json", "{\"tool\": {}}");
    let list = home.run(&["profiles", "list"]);
    assert!(list.ok, "{}", list.stderr);
    assert!(list.stdout.contains("typo     (broken)"), "{}", list.stdout);
    assert!(
        list.stdout.contains("unknown field `tool`"),
        "{}",
        list.stdout
    );
    let show = home.run(&["profiles", "show", "typo"]);
    assert!(!show.ok);
    // Cloning a broken profile is refused; the file is untouched.
    assert!(!home.run(&["profiles", "new", "x", "--from", "typo"]).ok);
    assert_eq!(home.read("profiles/typo.json"), "{\"tool\": {}}");
}

#[test]
fn show_warns_about_unknown_servers_and_concerns() {
    let home = home();
    home.write(
        "config.json",
        r#"{"mcpServers": {"gh": {"command": "gh-mcp"}}}"#,
    );
    home.write(
        "profiles/p.json",
        r#"{"servers": ["gh", "gitlab"], "concerns": {"mood": "calm"}}"#,
    );
    let show = home.run(&["profiles", "show", "p"]);
    assert!(show.ok, "{}", show.stderr);
    assert!(
        show.stdout
            .contains("warning: servers: \"gitlab\" is not a server in config.json"),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout
            .contains("warning: concerns: \"mood\" is not declared"),
        "{}",
        show.stdout
    );
}

#[test]
fn servers_import_merges_without_losing_anything() {
    let home = home();
    home.write(
        "config.json",
        r#"{"mcpServers": {"github": {"command": "gh-mcp"}}}"#,
    );
    home.write(
        "claude.json",
        r#"{"mcpServers": {
            "github": {"command": "other-github-mcp"},
            "Azure MCP Server": {"command": "npx", "args": ["-y", "@azure/mcp@latest", "server", "start"]},
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
            "sieve": {"command": "/usr/local/bin/mcp-sieve", "args": ["serve"]},
            "old": {"type": "sse", "url": "http://localhost:9/sse"}
        }}"#,
    );
    let file = home.path().join("claude.json").display().to_string();
    let report = home
        .run(&["servers", "import", "claude-desktop", &file, "--json"])
        .json();
    assert_eq!(report["added"], serde_json::json!(["files"]), "{report}");
    let renamed = |from: &str| {
        report["renamed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["from"] == from)
            .unwrap_or_else(|| panic!("{from} not renamed: {report}"))
            .clone()
    };
    assert_eq!(
        renamed("github"),
        serde_json::json!({"from": "github", "to": "github-2", "taken": "github",
            "message": "imported \"github\" as github-2: config.json has a different \"github\""}),
        "a different server under a key config.json has gets -2"
    );
    assert_eq!(
        renamed("Azure MCP Server"),
        serde_json::json!({"from": "Azure MCP Server", "to": "azure",
            "message": "imported \"Azure MCP Server\" as azure"}),
        "a spaced name gets a short key, and the report says so"
    );
    let skipped: Vec<&str> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        skipped.contains(&"sieve") && skipped.contains(&"old"),
        "{report}"
    );
    let config: serde_json::Value = serde_json::from_str(&home.read("config.json")).unwrap();
    assert_eq!(
        config["mcpServers"]["github"]["command"], "gh-mcp",
        "the existing entry is untouched"
    );
    assert_eq!(
        config["mcpServers"]["github-2"]["command"],
        "other-github-mcp"
    );
    assert_eq!(config["mcpServers"]["azure"]["command"], "npx");
    assert!(
        config["mcpServers"].get("Azure MCP Server").is_none(),
        "{config}"
    );
    assert!(home.path().join("config.json.bak").exists());
    // Importing again adds nothing.
    let again = home
        .run(&["servers", "import", "claude-desktop", &file, "--json"])
        .json();
    assert_eq!(again["added"], serde_json::json!([]), "{again}");
    assert_eq!(again["renamed"], serde_json::json!([]), "{again}");
    // For people: one line per server, the new key named.
    let fresh = self::home();
    fresh.write(
        "config.json",
        r#"{"mcpServers": {"azure": {"command": "my-azure"}}}"#,
    );
    let said = fresh.run(&["servers", "import", "claude-desktop", &file]);
    assert!(said.ok, "{}", said.stderr);
    for line in [
        "imported \"Azure MCP Server\" as azure-2: config.json has a different \"azure\"\n",
        "added \"github\"\n",
        "added \"files\"\n",
    ] {
        assert!(said.stdout.contains(line), "{line:?} in {}", said.stdout);
    }
    let missing = home.run(&["servers", "import", "cursor", "/nonexistent/mcp.json"]);
    assert!(!missing.ok);
    assert!(
        missing.stderr.contains("/nonexistent/mcp.json"),
        "{}",
        missing.stderr
    );
}

/// `profiles set` makes the edits the Profiles screen makes: groups,
/// tags, concerns, allow and deny globs, disclosure; several names in one
/// change; a value that is not valid is refused, naming it, and nothing is
/// written.
#[test]
fn set_changes_a_profile_as_the_app_does() {
    let home = home();
    home.write(
        "config.json",
        r#"{"concerns": [{"name": "security", "values": ["high", "medium", "low"], "ordered": true}]}"#,
    );
    home.run(&["profiles", "new", "work"]);
    for args in [
        &["group", "off", "billing", "files"][..],
        &["tag", "exclude", "destructive"],
        &["tag", "require", "stable"],
        &["concern", "security", "medium"],
        &["deny", "*_delete_*"],
        &["allow", "demo__*", "everything__echo"],
        &["unallow", "everything__echo"],
        &["disclosure", "search"],
    ] {
        let mut all = vec!["profiles", "set", "work"];
        all.extend_from_slice(args);
        let set = home.run(&all);
        assert!(set.ok, "{args:?}: {}", set.stderr);
        assert!(set.stdout.contains("written"), "{}", set.stdout);
    }
    let shown = home.run(&["profiles", "show", "work", "--json"]).json();
    assert_eq!(
        shown["groups"]["none"],
        serde_json::json!(["billing", "files"]),
        "{shown}"
    );
    assert_eq!(
        shown["tags"]["none"],
        serde_json::json!(["destructive"]),
        "{shown}"
    );
    assert_eq!(
        shown["tags"]["all"],
        serde_json::json!(["stable"]),
        "{shown}"
    );
    assert_eq!(shown["concerns"]["security"], "medium", "{shown}");
    assert_eq!(
        shown["tools"]["deny"],
        serde_json::json!(["*_delete_*"]),
        "{shown}"
    );
    assert_eq!(
        shown["tools"]["allow"],
        serde_json::json!(["demo__*"]),
        "{shown}"
    );
    assert_eq!(shown["disclosure"], "search", "{shown}");

    // Undone as it was done.
    for args in [
        &["group", "on", "billing"][..],
        &["tag", "neither", "stable"],
        &["concern", "security", "any"],
        &["undeny", "*_delete_*"],
        &["disclosure", "list"],
    ] {
        let mut all = vec!["profiles", "set", "work"];
        all.extend_from_slice(args);
        assert!(home.run(&all).ok, "{args:?}");
    }
    let shown = home.run(&["profiles", "show", "work", "--json"]).json();
    assert_eq!(
        shown["groups"]["none"],
        serde_json::json!(["files"]),
        "{shown}"
    );
    assert!(shown["concerns"].get("security").is_none(), "{shown}");
    assert!(
        shown
            .pointer("/tags/all")
            .is_none_or(|all| all == &serde_json::json!([])),
        "{shown}"
    );

    // Refused, named, and nothing written.
    let before = home.read("profiles/work.json");
    let bad = home.run(&["profiles", "set", "work", "concern", "security", "extreme"]);
    assert!(!bad.ok);
    assert!(bad.stderr.contains("extreme"), "{}", bad.stderr);
    let glob = home.run(&["profiles", "set", "work", "deny", "ok_*", "[unclosed"]);
    assert!(!glob.ok);
    assert!(glob.stderr.contains("[unclosed"), "{}", glob.stderr);
    assert_eq!(home.read("profiles/work.json"), before, "nothing written");
    let missing = home.run(&["profiles", "set", "nope", "group", "off", "x"]);
    assert!(
        missing.stderr.contains("there is no profile \"nope\""),
        "{}",
        missing.stderr
    );

    // What nothing has is written as asked, and said at once.
    let concern = home.run(&["profiles", "set", "work", "concern", "nosuch", "high"]);
    assert!(concern.ok, "{}", concern.stderr);
    assert!(
        concern
            .stdout
            .contains("warning: concerns: \"nosuch\" is not declared in config.json"),
        "{}",
        concern.stdout
    );
    let group = home.run(&["profiles", "set", "work", "group", "off", "demo/nothing"]);
    assert!(group.ok, "{}", group.stderr);
    assert!(
        group
            .stdout
            .contains("warning: groups: no server has a group \"demo/nothing\" now"),
        "{}",
        group.stdout
    );
}

/// A profile written before groups belonged to servers switches a name
/// off bare, in every server; `profiles set ... group on SERVER/GROUP`
/// switches that server's group on and keeps the others' off, named.
#[test]
fn set_on_one_servers_group_keeps_an_older_bare_name_off_elsewhere() {
    let home = home();
    let bin = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
    home.write(
        "config.json",
        &serde_json::json!({"mcpServers": {
            "demo": {"command": bin, "args": ["demo-server"]},
            "spare": {"command": bin, "args": ["demo-server"]},
        }})
        .to_string(),
    );
    home.write("profiles/work.json", r#"{"groups": {"none": ["billing"]}}"#);
    let set = home.run(&["profiles", "set", "work", "group", "on", "demo/billing"]);
    assert!(set.ok, "{}", set.stderr);
    let shown = home.run(&["profiles", "show", "work", "--json"]).json();
    assert_eq!(
        shown["groups"]["none"],
        serde_json::json!(["spare/billing"]),
        "{shown}"
    );
}

/// `profiles show` of a search profile says how its search ranks on this
/// machine: by meaning where the sentence model is found, else by words,
/// with what to do; a list profile says nothing of it.
#[test]
fn show_says_how_a_search_profile_ranks() {
    let home = home();
    home.write("profiles/search.json", r#"{"disclosure": "search"}"#);
    home.write("profiles/listed.json", r#"{}"#);
    let model = tempfile::tempdir().unwrap();
    let show = |profile: &str| {
        sieve_tests::Run::from(
            home.command()
                .args(["profiles", "show", profile])
                .env("MCP_SIEVE_MODEL", model.path())
                .output()
                .expect("binary runs"),
        )
    };
    let missing = show("search");
    assert!(missing.ok, "{}", missing.stderr);
    let line = missing
        .stdout
        .lines()
        .find(|l| l.starts_with("search: "))
        .unwrap_or_else(|| panic!("no search line:\n{}", missing.stdout));
    assert!(
        line.starts_with("search: The sentence model was not found (MCP_SIEVE_MODEL names ")
            && line.contains("ranks by words alone")
            && line.contains("scripts/model-deps.sh"),
        "{line}"
    );

    for file in ["model.safetensors", "config.json", "tokenizer.json"] {
        std::fs::write(model.path().join(file), "").unwrap();
    }
    let found = show("search");
    assert!(
        found.stdout.contains(&format!(
            "search: sieve__find_tools ranks tools by their words and by what they mean, with the sentence model all-MiniLM-L6-v2 in {}.",
            model.path().display()
        )),
        "{}",
        found.stdout
    );
    let listed = show("listed");
    assert!(listed.ok, "{}", listed.stderr);
    assert!(!listed.stdout.contains("search:"), "{}", listed.stdout);
}
