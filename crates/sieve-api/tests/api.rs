//! The library API in process, as the app uses it: an engine on a temp
//! home with the built-in demo server; views read from it; every profile
//! edit written and read back; a host's config written with a backup; and
//! for each operation the error a caller branches on.

use serde_json::{Value, json};
use sieve_api::hosts::{self, Connection, HostKind};
use sieve_api::profiles::{self, PatternList, ProfileEdit, TagState};
use sieve_api::tasks::{self, TaskFilter};
use sieve_api::{ErrorCode, Listed, servers};
use sieve_core::Kind;
use sieve_gateway::engine::Engine;
use sieve_store::home::Home;
use sieve_store::store::Store;
use std::time::Duration;

const CONFIG: &str = r#"{"concerns": [
  {"name": "security", "values": ["high", "medium", "low"], "default": "medium"}
]}"#;

fn home() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("config.json"), CONFIG).expect("config written");
    let store = Store::new(Home::at(dir.path()));
    (dir, store)
}

fn profile_file(store: &Store, name: &str) -> Value {
    let text = std::fs::read_to_string(store.home().profile_file(name)).expect("profile exists");
    serde_json::from_str(&text).expect("profile is JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_of_a_running_engine() {
    let (_dir, store) = home();
    let engine = Engine::start(store.clone()).expect("engine starts");
    tokio::time::timeout(
        Duration::from_secs(30),
        engine.settled(Duration::from_secs(20)),
    )
    .await
    .expect("the demo server answers");

    let listed = Listed::of_engine(&engine);
    let config = store.load_config().expect("config");
    let default = profiles::compile(&store, "default", &config).expect("default profile");
    let rows = listed.rows(&default, &[]);
    let count = |kind| rows.iter().filter(|r| r.kind == kind).count();
    assert_eq!(count(Kind::Tool), 40, "the demo's tools");
    assert!(count(Kind::Prompt) > 0, "prompts are rows too");
    assert!(count(Kind::Resource) > 0, "resources are rows too");
    assert!(
        rows.iter().all(|r| r.visible),
        "the default profile hides nothing"
    );
    let echo = rows
        .iter()
        .find(|r| r.exposed_name == "demo__echo")
        .expect("echo is listed");
    assert!(echo.tokens > 0 && echo.description.is_some(), "{echo:?}");

    let tokens = listed.tokens(&default);
    assert_eq!(tokens.tools_before, 40);
    assert_eq!(tokens.before, tokens.after, "nothing hidden, nothing saved");
    assert_eq!(
        tokens.groups["demo/files"].tools_before, 8,
        "{:?}",
        tokens.groups
    );

    let rows = servers::of_engine(&engine);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        (
            rows[0].name.as_str(),
            rows[0].transport,
            rows[0].status.state.as_str()
        ),
        ("demo", "builtin", "up")
    );
    assert_eq!(rows[0].status.tools, 40);

    // A group switched off: its tools are hidden, with the reason, and
    // the meter drops.
    profiles::create(&store, "work", None).expect("work created");
    profiles::edit(
        &store,
        "work",
        &ProfileEdit::SetGroup {
            group: "files".into(),
            on: false,
        },
    )
    .expect("group switched off");
    let work = profiles::compile(&store, "work", &config).expect("work compiles");
    let rows = listed.rows(&work, &[Kind::Tool]);
    let hidden: Vec<_> = rows.iter().filter(|r| !r.visible).collect();
    assert_eq!(hidden.len(), 8, "the files group");
    assert!(
        hidden.iter().all(|r| r.hidden_by == ["groups.none files"]),
        "{hidden:?}"
    );
    let after = listed.tokens(&work);
    assert_eq!(after.tools_after, 32);
    assert!(after.after < after.before);
    engine.shutdown().await;
}

#[test]
fn every_profile_edit_is_written_and_read_back() {
    let (_dir, store) = home();
    profiles::create(&store, "work", None).expect("created");
    let edits = [
        (
            ProfileEdit::SetConcern {
                concern: "security".into(),
                value: Some("high".into()),
            },
            json!({"concerns": {"security": "high"}}),
        ),
        (
            ProfileEdit::SetGroup {
                group: "billing".into(),
                on: false,
            },
            json!({"concerns": {"security": "high"}, "groups": {"none": ["billing"]}}),
        ),
        (
            ProfileEdit::SetTool {
                exposed_name: "demo__echo".into(),
                on: false,
            },
            json!({"concerns": {"security": "high"}, "groups": {"none": ["billing"]},
                   "tools": {"deny": ["demo__echo"]}}),
        ),
        (
            ProfileEdit::AddPattern {
                section: "tools".into(),
                list: PatternList::Deny,
                pattern: "*delete*".into(),
            },
            json!({"concerns": {"security": "high"}, "groups": {"none": ["billing"]},
                   "tools": {"deny": ["demo__echo", "*delete*"]}}),
        ),
        (
            ProfileEdit::SetTag {
                tag: "destructive".into(),
                state: TagState::Exclude,
            },
            json!({"concerns": {"security": "high"}, "groups": {"none": ["billing"]},
                   "tools": {"deny": ["demo__echo", "*delete*"]},
                   "tags": {"none": ["destructive"]}}),
        ),
        (
            ProfileEdit::SetTag {
                tag: "destructive".into(),
                state: TagState::Require,
            },
            json!({"concerns": {"security": "high"}, "groups": {"none": ["billing"]},
                   "tools": {"deny": ["demo__echo", "*delete*"]},
                   "tags": {"all": ["destructive"]}}),
        ),
        (
            ProfileEdit::SetDescription {
                description: " Day to day ".into(),
            },
            json!({"description": "Day to day", "concerns": {"security": "high"},
                   "groups": {"none": ["billing"]},
                   "tools": {"deny": ["demo__echo", "*delete*"]},
                   "tags": {"all": ["destructive"]}}),
        ),
        (
            ProfileEdit::SetEnforce { enforce: false },
            json!({"description": "Day to day", "concerns": {"security": "high"},
                   "groups": {"none": ["billing"]},
                   "tools": {"deny": ["demo__echo", "*delete*"]},
                   "tags": {"all": ["destructive"]}, "enforce": false}),
        ),
        // And back again.
        (
            ProfileEdit::SetGroup {
                group: "billing".into(),
                on: true,
            },
            json!({"description": "Day to day", "concerns": {"security": "high"},
                   "tools": {"deny": ["demo__echo", "*delete*"]},
                   "tags": {"all": ["destructive"]}, "enforce": false}),
        ),
        (
            ProfileEdit::SetTool {
                exposed_name: "demo__echo".into(),
                on: true,
            },
            json!({"description": "Day to day", "concerns": {"security": "high"},
                   "tools": {"deny": ["*delete*"]},
                   "tags": {"all": ["destructive"]}, "enforce": false}),
        ),
        (
            ProfileEdit::RemovePattern {
                section: "tools".into(),
                list: PatternList::Deny,
                pattern: "*delete*".into(),
            },
            json!({"description": "Day to day", "concerns": {"security": "high"},
                   "tags": {"all": ["destructive"]}, "enforce": false}),
        ),
        (
            ProfileEdit::SetConcern {
                concern: "security".into(),
                value: None,
            },
            json!({"description": "Day to day", "tags": {"all": ["destructive"]},
                   "enforce": false}),
        ),
    ];
    for (edit, expected) in edits {
        let written = profiles::edit(&store, "work", &edit).expect("edit applies");
        let on_disk = profile_file(&store, "work");
        assert_eq!(on_disk, expected, "after {edit:?}");
        assert_eq!(serde_json::to_value(&written).unwrap(), on_disk);
    }
    // The edits' JSON form, as the app sends it.
    let edit: ProfileEdit =
        serde_json::from_value(json!({"op": "setGroup", "group": "admin", "on": false}))
            .expect("edits deserialise");
    profiles::edit(&store, "work", &edit).expect("applies");
    assert_eq!(
        profile_file(&store, "work")["groups"],
        json!({"none": ["admin"]})
    );

    // A tag expression: set as written (trimmed), refused with its column
    // when it does not read, cleared by a blank.
    let edit: ProfileEdit = serde_json::from_value(
        json!({"op": "setTagExpr", "expr": " read-only and not experimental "}),
    )
    .expect("edits deserialise");
    profiles::edit(&store, "work", &edit).expect("applies");
    assert_eq!(
        profile_file(&store, "work")["tags"],
        json!({"all": ["destructive"], "expr": "read-only and not experimental"})
    );
    let error = profiles::edit(
        &store,
        "work",
        &ProfileEdit::SetTagExpr {
            expr: Some("read-only and".into()),
        },
    )
    .expect_err("does not read");
    assert_eq!(error.field.as_deref(), Some("tags.expr"));
    assert!(error.message.contains("column 14"), "{}", error.message);
    assert_eq!(
        profile_file(&store, "work")["tags"]["expr"],
        "read-only and not experimental",
        "a refused edit changes nothing"
    );
    profiles::edit(
        &store,
        "work",
        &ProfileEdit::SetTagExpr {
            expr: Some("  ".into()),
        },
    )
    .expect("clears");
    assert_eq!(
        profile_file(&store, "work")["tags"],
        json!({"all": ["destructive"]})
    );

    // Search mode and its pinned globs.
    for edit in [
        json!({"op": "setDisclosure", "disclosure": "search"}),
        json!({"op": "setPinned", "patterns": [" demo__echo ", "demo__list_*", "demo__echo", ""]}),
    ] {
        let edit: ProfileEdit = serde_json::from_value(edit).expect("edits deserialise");
        profiles::edit(&store, "work", &edit).expect("applies");
    }
    let on_disk = profile_file(&store, "work");
    assert_eq!(on_disk["disclosure"], "search");
    assert_eq!(on_disk["pinned"], json!(["demo__echo", "demo__list_*"]));
    let error = profiles::edit(
        &store,
        "work",
        &ProfileEdit::SetPinned {
            patterns: vec!["gh__[".into()],
        },
    )
    .expect_err("a glob that does not compile");
    assert_eq!(error.field.as_deref(), Some("pinned"));
    profiles::edit(
        &store,
        "work",
        &ProfileEdit::SetDisclosure {
            disclosure: sieve_core::Disclosure::List,
        },
    )
    .expect("back to list");
    assert!(profile_file(&store, "work").get("disclosure").is_none());

    profiles::create(&store, "copy", Some("work")).expect("cloned");
    assert_eq!(profile_file(&store, "copy"), profile_file(&store, "work"));
    profiles::rename(&store, "copy", "renamed").expect("renamed");
    assert!(!store.home().profile_file("copy").exists());
    profiles::delete(&store, "renamed").expect("deleted");
    let names: Vec<String> = profiles::summaries(&store)
        .expect("summaries")
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, ["default", "work"]);
}

#[test]
fn profile_errors_carry_the_code_a_caller_branches_on() {
    let (_dir, store) = home();
    profiles::create(&store, "work", None).expect("created");
    let before = std::fs::read(store.home().profile_file("work")).unwrap();

    let bad_glob = profiles::edit(
        &store,
        "work",
        &ProfileEdit::AddPattern {
            section: "tools".into(),
            list: PatternList::Deny,
            pattern: "demo__[".into(),
        },
    )
    .unwrap_err();
    assert_eq!(bad_glob.code, ErrorCode::Invalid);
    assert_eq!(bad_glob.field.as_deref(), Some("tools.deny"));
    assert!(bad_glob.message.contains("demo__["), "{bad_glob}");
    assert_eq!(
        profiles::check_pattern("demo__[").unwrap_err().code,
        ErrorCode::Invalid
    );

    let bad_value = profiles::edit(
        &store,
        "work",
        &ProfileEdit::SetConcern {
            concern: "security".into(),
            value: Some("extreme".into()),
        },
    )
    .unwrap_err();
    assert_eq!(bad_value.code, ErrorCode::Invalid);
    assert_eq!(bad_value.field.as_deref(), Some("concerns.security"));
    assert!(
        bad_value.message.contains("high"),
        "names the values: {bad_value}"
    );

    let missing = profiles::edit(
        &store,
        "work",
        &ProfileEdit::RemovePattern {
            section: "tools".into(),
            list: PatternList::Allow,
            pattern: "x".into(),
        },
    )
    .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    let section = profiles::edit(
        &store,
        "work",
        &ProfileEdit::AddPattern {
            section: "tool".into(),
            list: PatternList::Allow,
            pattern: "x".into(),
        },
    )
    .unwrap_err();
    assert_eq!(section.code, ErrorCode::Invalid);
    assert_eq!(
        std::fs::read(store.home().profile_file("work")).unwrap(),
        before,
        "nothing was written by a refused edit"
    );

    let unknown =
        profiles::edit(&store, "nope", &ProfileEdit::SetEnforce { enforce: true }).unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    assert_eq!(
        profiles::create(&store, "work", None).unwrap_err().code,
        ErrorCode::Exists
    );
    assert_eq!(
        profiles::rename(&store, "work", "default")
            .unwrap_err()
            .code,
        ErrorCode::Exists,
        "a taken name is never replaced"
    );
    assert_eq!(
        profiles::rename(&store, "default", "other")
            .unwrap_err()
            .code,
        ErrorCode::Invalid
    );

    std::fs::write(store.home().profile_file("work"), "{\"tools\": ").unwrap();
    let broken =
        profiles::edit(&store, "work", &ProfileEdit::SetEnforce { enforce: true }).unwrap_err();
    assert_eq!(broken.code, ErrorCode::BrokenFile);
    assert_eq!(
        std::fs::read_to_string(store.home().profile_file("work")).unwrap(),
        "{\"tools\": ",
        "a file that does not parse is left alone"
    );
    let summary = profiles::summaries(&store).expect("summaries");
    assert!(
        !summary[1].valid && summary[1].error.is_some(),
        "{summary:?}"
    );
    // The error is `{code, message}` (and the field, where there is one).
    let wire = serde_json::to_value(&bad_glob).unwrap();
    assert_eq!(wire["code"], "invalid");
    assert_eq!(wire["field"], "tools.deny");
    assert!(wire["message"].is_string());
}

#[test]
fn a_host_config_gets_the_entry_with_a_backup_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("claude_desktop_config.json");
    let original = "{\n  // mine\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  },\n  \"theme\": \"dark\"\n}\n";
    std::fs::write(&path, original).unwrap();
    let connection = Connection::Stdio {
        command: "/opt/mcp-sieve".into(),
        profile: "work".into(),
        home: Some(dir.path().to_path_buf()),
    };
    let written = hosts::write(HostKind::ClaudeDesktop, &path, &connection).expect("written");
    assert!(written.changed);
    let backup = written.backup.expect("a backup of the old file");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("// mine"), "comments stay: {text}");
    let value: Value = jsonc_parser::parse_to_serde_value(&text, &Default::default()).unwrap();
    assert_eq!(value["mcpServers"]["other"], json!({"command": "x"}));
    assert_eq!(value["theme"], "dark");
    assert_eq!(
        value["mcpServers"]["sieve"],
        json!({"command": "/opt/mcp-sieve",
               "args": ["--home", dir.path(), "serve", "--profile", "work"]})
    );
    let again = hosts::write(HostKind::ClaudeDesktop, &path, &connection).expect("written");
    assert!(
        !again.changed,
        "never a second entry, never a needless write"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);

    // A new file is made; VS Code's entries carry their type.
    let vscode = dir.path().join("Code/User/mcp.json");
    let http = Connection::Http {
        url: "http://127.0.0.1:8765/mcp/p/work".into(),
        token: "t0k".into(),
    };
    let made = hosts::write(HostKind::VsCode, &vscode, &http).expect("made");
    assert!(made.changed && made.backup.is_none());
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(&vscode).unwrap()).expect("valid JSON");
    assert_eq!(
        value,
        json!({"servers": {"sieve": {"type": "http", "url": "http://127.0.0.1:8765/mcp/p/work",
                                     "headers": {"Authorization": "Bearer t0k"}}}})
    );

    let refused = hosts::snippet(HostKind::ClaudeDesktop, &http).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Invalid);
    let relative = Connection::Stdio {
        command: "mcp-sieve".into(),
        profile: "work".into(),
        home: None,
    };
    assert_eq!(
        hosts::snippet(HostKind::Cursor, &relative)
            .unwrap_err()
            .code,
        ErrorCode::Invalid
    );
    std::fs::write(&path, "{ not json").unwrap();
    let broken = hosts::write(HostKind::ClaudeDesktop, &path, &connection).unwrap_err();
    assert_eq!(broken.code, ErrorCode::BrokenFile);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
}

#[test]
fn task_filters_name_the_field_that_is_wrong() {
    let (_dir, store) = home();
    let now = 1_800_000_000_000;
    let empty = tasks::list(&store, &TaskFilter::default(), now).expect("an empty ledger lists");
    assert!(empty.tasks.is_empty() && empty.next_cursor.is_none());
    for (filter, field) in [
        (
            TaskFilter {
                status: vec!["bogus".into()],
                ..TaskFilter::default()
            },
            "status",
        ),
        (
            TaskFilter {
                since: Some("a while".into()),
                ..TaskFilter::default()
            },
            "since",
        ),
        (
            TaskFilter {
                order_by: Some("name".into()),
                ..TaskFilter::default()
            },
            "orderBy",
        ),
    ] {
        let error = tasks::list(&store, &filter, now).unwrap_err();
        assert_eq!(error.code, ErrorCode::Invalid);
        assert_eq!(error.field.as_deref(), Some(field), "{error}");
    }
    let query = TaskFilter {
        since: Some("3h".into()),
        ..TaskFilter::default()
    }
    .query(now)
    .expect("valid");
    assert_eq!(query.last_updated_after, Some(now - 3 * 3_600_000 - 1));
    assert_eq!(
        tasks::show(&store, "nope").unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[test]
fn servers_are_added_switched_and_removed_in_config_json() {
    let (dir, store) = home();
    let add = |value: Value| {
        let server: servers::NewServer = serde_json::from_value(value).expect("a new server");
        servers::add(&store, server)
    };
    add(
        json!({"transport": "stdio", "name": "files", "command": "npx",
               "args": ["-y", "server-filesystem", "/tmp"], "env": {"TOKEN": "s3cret"}}),
    )
    .expect("a stdio server is added");
    add(
        json!({"transport": "http", "name": "remote", "url": "http://127.0.0.1:9/mcp",
               "headers": {"Authorization": "Bearer s3cret"}}),
    )
    .expect("an HTTP server is added");
    let taken = add(json!({"transport": "stdio", "name": "files", "command": "x"})).unwrap_err();
    assert_eq!(taken.code, ErrorCode::Exists);
    // A name that is no key gets a short one, never an entry's that exists.
    for (name, key) in [("Azure MCP Server", "azure"), ("Azure MCP", "azure-2")] {
        let added = add(json!({"transport": "stdio", "name": name, "command": "azmcp"}));
        assert_eq!(added.expect("added under a short key"), key, "{name}");
    }
    for key in ["azure", "azure-2"] {
        servers::remove(&store, key).expect("removed");
    }
    let bad_url = add(json!({"transport": "http", "name": "x", "url": "ftp://h"})).unwrap_err();
    assert_eq!(
        (bad_url.code, bad_url.field.as_deref()),
        (ErrorCode::Invalid, Some("url"))
    );

    servers::set_enabled(&store, "remote", false).expect("disabled");
    let config = store.load_config().expect("config.json parses");
    assert!(config.mcp_servers["remote"].disabled);
    let rows = servers::rows(&config, &Default::default());
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[1].name.as_str(), rows[1].status.state.as_str()),
        ("remote", "disabled")
    );
    assert_eq!(rows[0].env, ["TOKEN"], "names only");
    let shown = serde_json::to_string(&rows).unwrap();
    assert!(!shown.contains("s3cret"), "no secret in a row: {shown}");

    assert_eq!(
        servers::remove(&store, "nope").unwrap_err().code,
        ErrorCode::NotFound
    );
    servers::remove(&store, "remote").expect("removed");
    assert_eq!(
        store
            .load_config()
            .unwrap()
            .mcp_servers
            .keys()
            .collect::<Vec<_>>(),
        ["files"]
    );

    // An import is previewed without writing, then done.
    let claude = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &claude,
        r#"{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "server-memory"]}}}"#,
    )
    .unwrap();
    let before = std::fs::read(dir.path().join("config.json")).unwrap();
    let preview =
        servers::import_preview(&store, HostKind::ClaudeDesktop, Some(&claude)).expect("previewed");
    assert_eq!(preview.added, ["memory"]);
    assert_eq!(
        std::fs::read(dir.path().join("config.json")).unwrap(),
        before
    );
    servers::import(&store, HostKind::ClaudeDesktop, Some(&claude)).expect("imported");
    assert!(
        store
            .load_config()
            .unwrap()
            .mcp_servers
            .contains_key("memory")
    );
    let missing = servers::import_preview(
        &store,
        HostKind::Cursor,
        Some(&dir.path().join("nowhere.json")),
    )
    .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ledger_write_by_another_process_is_a_change() {
    use sieve_core::tasks::{EntryKind, TaskRecord, TaskStatus};
    use sieve_gateway::engine::Change;
    use sieve_ledger::Ledger;
    let (_dir, store) = home();
    let engine = Engine::start(store.clone()).expect("engine starts");
    engine.watch_files().expect("watching");
    let mut changes = engine.subscribe();
    // Another proxy process: its own connection to the same file.
    let other = Ledger::open(&store.home().tasks_db()).expect("ledger opens");
    let record = TaskRecord {
        id: Ledger::new_id(),
        kind: EntryKind::Call,
        server: "demo".into(),
        upstream_id: None,
        method: "tools/call".into(),
        tool: Some("demo__echo".into()),
        params: json!({"name": "echo"}),
        status: TaskStatus::Failed,
        status_message: Some("failed".into()),
        created_at: 1,
        last_updated_at: 1,
        ttl_ms: None,
        poll_interval_ms: None,
        profile: Some("default".into()),
        retry_of: None,
        owner: None,
        result: None,
    };
    other.insert(&record).expect("recorded");
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match changes.recv().await {
                Ok(Change::Tasks) => return,
                Ok(_) => continue,
                Err(error) => panic!("the change stream ended: {error}"),
            }
        }
    })
    .await
    .expect("the write is announced as a task change");
    engine.shutdown().await;
}

#[test]
fn a_hidden_row_carries_the_edit_that_would_show_it() {
    let (_dir, store) = home();
    profiles::create(&store, "work", None).expect("created");
    for edit in [
        ProfileEdit::SetTool {
            exposed_name: "demo__delete_file".into(),
            on: false,
        },
        ProfileEdit::AddPattern {
            section: "tools".into(),
            list: PatternList::Deny,
            pattern: "*delete*".into(),
        },
        ProfileEdit::SetTag {
            tag: "destructive".into(),
            state: TagState::Exclude,
        },
        ProfileEdit::SetConcern {
            concern: "security".into(),
            value: Some("high".into()),
        },
    ] {
        profiles::edit(&store, "work", &edit).expect("applies");
    }
    let config = store.load_config().unwrap();
    let listed = Listed::build(config.clone(), &[sieve_api::catalog::builtin_listing()])
        .expect("the demo's catalog");
    let work = profiles::compile(&store, "work", &config).expect("compiles");
    let rows = listed.rows(&work, &[Kind::Tool]);
    let row = rows
        .iter()
        .find(|r| r.exposed_name == "demo__delete_file")
        .expect("listed");
    let fixes: Vec<Value> = row
        .reasons
        .iter()
        .map(|r| serde_json::to_value(&r.fix).unwrap())
        .collect();
    assert_eq!(
        fixes,
        [
            json!({"op": "setTool", "exposedName": "demo__delete_file", "on": true}),
            json!({"op": "removePattern", "section": "tools", "list": "deny", "pattern": "*delete*"}),
            json!({"op": "setTag", "tag": "destructive", "state": "ignore"}),
            json!({"op": "setConcern", "concern": "security", "value": null}),
        ]
    );
    let texts: Vec<&str> = row.reasons.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(texts, row.hidden_by, "the same rules, in the same order");
    // What the app's buttons say, and which rule the switch itself lifts:
    // the library decides, so the app and the command line cannot differ.
    let labels: Vec<(Option<&str>, bool)> = row
        .reasons
        .iter()
        .map(|r| (r.label.as_deref(), r.own))
        .collect();
    assert_eq!(
        labels,
        [
            (Some("Switch it on"), true),
            (Some("Take \"*delete*\" out of tools.deny"), false),
            (Some("Neither require nor exclude tag destructive"), false),
            (Some("Set security to any"), false),
        ]
    );
    assert!(row.reasons.iter().all(|r| !r.quarantine));
    assert_eq!(
        serde_json::to_value(&row.switch).unwrap(),
        json!({
            "on": {"op": "setTool", "exposedName": "demo__delete_file", "on": true},
            "off": {"op": "setTool", "exposedName": "demo__delete_file", "on": false},
        })
    );
    let mut with_prompt = sieve_api::catalog::builtin_listing();
    with_prompt.prompts = vec![json!({"name": "summarise"})];
    let prompts = Listed::build(config.clone(), &[with_prompt])
        .expect("a catalog with a prompt")
        .rows(&work, &[Kind::Prompt]);
    let prompt = prompts.first().expect("the prompt is listed");
    assert_eq!(
        serde_json::to_value(&prompt.switch.off).unwrap(),
        json!({"op": "addPattern", "section": "prompts", "list": "deny", "pattern": prompt.exposed_name}),
        "a prompt's switch writes its own section's deny list"
    );
    // Applying every fix shows the row again.
    for reason in &row.reasons {
        profiles::edit(&store, "work", reason.fix.as_ref().unwrap()).expect("fix applies");
    }
    let work = profiles::compile(&store, "work", &config).expect("compiles");
    let rows = listed.rows(&work, &[Kind::Tool]);
    assert!(
        rows.iter()
            .any(|r| r.exposed_name == "demo__delete_file" && r.visible)
    );
}

#[test]
fn a_server_added_with_its_values_kept_out_of_config_json() {
    use sieve_api::secrets::add_server;
    use sieve_store::secrets::Secrets;
    let (dir, store) = home();
    let secrets = Secrets::file(store.home());
    let server: servers::NewServer = serde_json::from_value(json!({
        "transport": "http", "name": "remote", "url": "https://example.test/mcp",
        "headers": {"Authorization": "Bearer t0ken-9b2c", "X-Plain": ""}
    }))
    .unwrap();
    let added = add_server(&store, Some(&secrets), server).unwrap();
    assert_eq!(added.server, "remote");
    let kept = added.kept;
    assert_eq!(
        kept.len(),
        1,
        "the empty value is nothing to keep: {kept:?}"
    );
    let config = std::fs::read_to_string(dir.path().join("config.json")).unwrap();
    assert!(!config.contains("t0ken-9b2c"), "{config}");
    assert!(
        config.contains("${secret:remote/headers/Authorization}"),
        "{config}"
    );
    assert_eq!(
        secrets
            .get("remote/headers/Authorization")
            .unwrap()
            .as_deref(),
        Some("Bearer t0ken-9b2c")
    );
    // A taken name is refused before any secret is written over.
    let again: servers::NewServer = serde_json::from_value(json!({
        "transport": "http", "name": "remote", "url": "https://other.test/mcp",
        "headers": {"Authorization": "Bearer other"}
    }))
    .unwrap();
    let error = add_server(&store, Some(&secrets), again).unwrap_err();
    assert_eq!(error.code, ErrorCode::Exists);
    assert_eq!(
        secrets
            .get("remote/headers/Authorization")
            .unwrap()
            .as_deref(),
        Some("Bearer t0ken-9b2c")
    );
}
