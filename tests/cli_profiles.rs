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
    assert_eq!(
        report["renamed"][0]["to"], "github-claude-desktop",
        "{report}"
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
        config["mcpServers"]["github-claude-desktop"]["command"],
        "other-github-mcp"
    );
    assert!(home.path().join("config.json.bak").exists());
    // Importing again adds nothing.
    let again = home
        .run(&["servers", "import", "claude-desktop", &file, "--json"])
        .json();
    assert_eq!(again["added"], serde_json::json!([]), "{again}");
    let missing = home.run(&["servers", "import", "cursor", "/nonexistent/mcp.json"]);
    assert!(!missing.ok);
    assert!(
        missing.stderr.contains("/nonexistent/mcp.json"),
        "{}",
        missing.stderr
    );
}
