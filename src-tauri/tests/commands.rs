//! The shell's commands through Tauri's IPC with a mock runtime: the real
//! state (an engine with the built-in demo server on a temp home, the
//! embedded HTTP proxy), the real capabilities of tauri.conf.json, each
//! command called as the page calls it, and errors as `{code, message}`.

use serde_json::{Value, json};
use sieve_api::Home;
use sieve_app::{AppState, build, start};
use std::time::Duration;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

struct Shell {
    home: tempfile::TempDir,
    app: App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
}

impl Shell {
    fn new() -> Shell {
        let home = tempfile::tempdir().expect("temp home");
        std::fs::write(
            home.path().join("config.json"),
            r#"{"concerns": [{"name": "security", "values": ["high", "medium", "low"]}]}"#,
        )
        .unwrap();
        let state: AppState = tauri::async_runtime::block_on(async {
            let state = start(Home::at(home.path()), 0)
                .await
                .expect("the app starts");
            // The AI hosts' files are looked for here, as `--host-home`.
            let state = AppState {
                host_home: Some(home.path().join("hosts")),
                ..state
            };
            tokio::time::timeout(
                Duration::from_secs(30),
                state.engine.settled(Duration::from_secs(20)),
            )
            .await
            .expect("the demo server answers");
            state
        });
        let app = build(mock_builder(), state, |_| {})
            .build(tauri::generate_context!())
            .expect("the app builds");
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("the main window");
        Shell { home, app, window }
    }

    /// Calls `cmd` with `args` as the page does; the answer or the error.
    fn call(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.window, request)
            .map(|body| body.deserialize::<Value>().expect("JSON answer"))
    }

    fn ok(&self, cmd: &str, args: Value) -> Value {
        self.call(cmd, args)
            .unwrap_or_else(|error| panic!("{cmd} failed: {error}"))
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        let state = tauri::Manager::state::<AppState>(&self.app);
        state.stop.cancel();
        tauri::async_runtime::block_on(state.engine.shutdown());
    }
}

#[test]
fn every_screen_reads_through_the_library() {
    let shell = Shell::new();
    let info = shell.ok("app_info", json!({}));
    assert!(
        info["httpUrl"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:"),
        "{info}"
    );
    assert_eq!(info["token"].as_str().unwrap().len(), 64);

    let servers = shell.ok("servers_list", json!({}));
    assert_eq!(servers[0]["name"], "demo");
    assert_eq!(servers[0]["transport"], "builtin");
    assert_eq!(servers[0]["state"], "up");

    let rows = shell.ok("catalog_rows", json!({"profile": "default"}));
    let tools = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "tool")
        .count();
    assert_eq!(tools, 40);
    let meter = shell.ok("token_report", json!({"profile": "default"}));
    assert_eq!(meter["toolsAfter"], 40);
    let concerns = shell.ok("concern_definitions", json!({}));
    assert_eq!(concerns[0]["values"], json!(["high", "medium", "low"]));
    assert_eq!(shell.ok("profiles_list", json!({}))[0]["name"], "default");
    assert_eq!(
        shell.ok("tasks_list", json!({"filter": {"status": ["failed"]}})),
        json!({"tasks": [], "nextCursor": null})
    );
}

#[test]
fn a_switch_writes_the_profile_and_the_meter_drops() {
    let shell = Shell::new();
    let created = shell.ok("profile_create", json!({"name": "work"}));
    assert_eq!(created.as_array().unwrap().len(), 2);
    let profile = shell.ok(
        "profile_edit",
        json!({"name": "work", "edit": {"op": "setGroup", "group": "billing", "on": false}}),
    );
    assert_eq!(profile["document"]["groups"], json!({"none": ["billing"]}));
    assert_eq!(
        profile["groupsOff"],
        json!(["billing"]),
        "the switch reads off"
    );
    let shown = shell.ok("profile_show", json!({"name": "work"}));
    assert_eq!(shown, profile, "what was written is what is read");
    let meter = shell.ok("token_report", json!({"profile": "work"}));
    assert_eq!(meter["toolsAfter"], 32);
    let rows = shell.ok("catalog_rows", json!({"profile": "work"}));
    let invoice = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["exposedName"] == "demo__list_invoices")
        .expect("a billing tool");
    assert_eq!(invoice["visible"], false);
    assert_eq!(invoice["hiddenBy"], json!(["groups.none billing"]));
}

#[test]
fn errors_reach_the_page_as_code_and_message() {
    let shell = Shell::new();
    let bad = shell
        .call("pattern_check", json!({"pattern": "demo__["}))
        .unwrap_err();
    assert_eq!(bad["code"], "invalid");
    assert!(
        bad["message"].as_str().unwrap().contains("demo__["),
        "{bad}"
    );
    assert_eq!(
        shell.call("pattern_check", json!({"pattern": "demo__*"})),
        Ok(Value::Null)
    );
    let missing = shell
        .call(
            "profile_edit",
            json!({"name": "nope", "edit": {"op": "setEnforce", "enforce": true}}),
        )
        .unwrap_err();
    assert_eq!(missing["code"], "not_found");
    let http = shell
        .call(
            "host_snippet",
            json!({"host": "claude-desktop", "transport": "http", "profile": "default"}),
        )
        .unwrap_err();
    assert_eq!(http["code"], "invalid");
    let task = shell.call("task_show", json!({"id": "nope"})).unwrap_err();
    assert_eq!(task["code"], "not_found");
}

#[test]
fn a_host_gets_the_app_endpoint_or_the_command() {
    let shell = Shell::new();
    let info = shell.ok("app_info", json!({}));
    let cursor = shell.ok(
        "host_snippet",
        json!({"host": "cursor", "transport": "http", "profile": "work"}),
    );
    let cursor: Value = serde_json::from_str(cursor.as_str().expect("the snippet is text"))
        .expect("Cursor's snippet is JSON");
    let entry = &cursor["mcpServers"]["sieve"];
    assert_eq!(
        entry["url"],
        format!("{}/p/work", info["httpUrl"].as_str().unwrap())
    );
    assert_eq!(
        entry["headers"]["Authorization"],
        format!("Bearer {}", info["token"].as_str().unwrap())
    );
    let claude = shell.ok(
        "host_snippet",
        json!({"host": "claude-desktop", "transport": "stdio", "profile": "work"}),
    );
    let claude: Value = serde_json::from_str(claude.as_str().unwrap()).unwrap();
    let args = &claude["mcpServers"]["sieve"]["args"];
    assert_eq!(args[0], "--home", "the app's home is passed on: {args}");
    assert_eq!(args[3], "--profile");
    let codex = shell.ok(
        "host_snippet",
        json!({"host": "codex", "transport": "http", "profile": "work"}),
    );
    let codex = codex.as_str().unwrap();
    assert!(
        codex.starts_with("[mcp_servers.sieve]\n") && codex.contains("http_headers"),
        "Codex's snippet is its TOML: {codex}"
    );
}

#[test]
fn hosts_are_listed_routed_and_given_back_through_the_commands() {
    let shell = Shell::new();
    let hosts = shell.home.path().join("hosts");
    let cursor_file = hosts.join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor_file.parent().unwrap()).unwrap();
    let original = r#"{"mcpServers": {"echo": {"command": "npx", "args": ["-y", "echo-mcp"]}}}"#;
    std::fs::write(&cursor_file, original).unwrap();
    let state_of = |host: &str| {
        let listed = shell.ok("hosts_list", json!({}));
        let row = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["host"] == host)
            .cloned()
            .unwrap_or_else(|| panic!("{host} is listed: {listed}"));
        assert_eq!(listed.as_array().unwrap().len(), 15, "every host is listed");
        row
    };
    assert_eq!(state_of("cursor")["state"], "installed");
    assert_eq!(state_of("codex")["state"], "absent");

    let report = shell.ok(
        "host_route",
        json!({"host": "cursor", "transport": "http", "profile": null, "keepSecrets": false}),
    );
    assert_eq!(report["profile"], "cursor");
    assert_eq!(report["moved"], json!(["echo"]));
    let row = state_of("cursor");
    assert_eq!(
        (row["state"].clone(), row["profile"].clone()),
        (json!("routed"), json!("cursor"))
    );
    assert_eq!(row["transport"], "http");
    let written = std::fs::read_to_string(&cursor_file).unwrap();
    assert!(
        written.contains("/mcp/p/cursor") && !written.contains("echo-mcp"),
        "{written}"
    );

    let profiles = shell.ok("profiles_list", json!({}));
    let cursor_profile = profiles
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "cursor")
        .unwrap_or_else(|| panic!("the host's profile is listed: {profiles}"));
    assert_eq!(cursor_profile["usedBy"], json!(["cursor"]));

    let all = shell.ok(
        "hosts_route_all",
        json!({"transport": "stdio", "keepSecrets": false}),
    );
    assert_eq!(
        all.as_array().unwrap().len(),
        1,
        "only the host that is here: {all}"
    );
    assert_eq!(state_of("cursor")["transport"], "stdio");

    let back = shell.ok("host_unroute", json!({"host": "cursor"}));
    assert_eq!(back["restored"], json!(["echo"]));
    let restored: Value =
        serde_json::from_str(&std::fs::read_to_string(&cursor_file).unwrap()).unwrap();
    assert_eq!(restored, serde_json::from_str::<Value>(original).unwrap());
    assert_eq!(state_of("cursor")["state"], "installed");
}

#[test]
fn the_active_profile_and_the_tray_setting_are_written_to_config_json() {
    let shell = Shell::new();
    let config = || std::fs::read_to_string(shell.home.path().join("config.json")).unwrap();
    shell.ok("profile_create", json!({"name": "work"}));
    let listed = shell.ok("profile_make_active", json!({"name": "work"}));
    let active: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["active"] == true)
        .map(|s| &s["name"])
        .collect();
    assert_eq!(active, [&json!("work")]);
    assert!(
        config().contains(r#""activeProfile": "work""#),
        "{}",
        config()
    );
    let refused = shell
        .call("profile_delete", json!({"name": "work"}))
        .unwrap_err();
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("make another profile active first"),
        "{refused}"
    );
    let missing = shell
        .call("profile_make_active", json!({"name": "nope"}))
        .unwrap_err();
    assert_eq!(missing["code"], "not_found");

    assert_eq!(shell.ok("settings_show", json!({}))["closeToTray"], true);
    let settings = shell.ok("settings_set_close_to_tray", json!({"on": false}));
    assert_eq!(settings["closeToTray"], false);
    assert_eq!(settings["activeProfile"], "work");
    assert!(config().contains(r#""closeToTray": false"#), "{}", config());
    assert!(
        config().contains(r#""concerns""#),
        "the rest of config.json stays: {}",
        config()
    );
}

/// The page can call MCP Sieve's commands and listen to its events, and
/// nothing else: no core or plugin command that would reach windows, the
/// file system, a shell or the network; and its CSP lets it load and
/// connect to nothing but the app itself and the IPC.
#[test]
fn the_page_reaches_nothing_but_our_commands() {
    let shell = Shell::new();
    for cmd in [
        "plugin:event|emit",
        "plugin:window|close",
        "plugin:webview|create_webview_window",
        "plugin:app|version",
        "plugin:path|resolve_directory",
        "plugin:fs|read_text_file",
        "plugin:shell|execute",
        "plugin:http|fetch",
        "plugin:opener|open_url",
    ] {
        let refused = shell.call(cmd, json!({}));
        assert!(refused.is_err(), "{cmd} was allowed: {refused:?}");
    }
    // What the page may do still works.
    shell.ok("servers_list", json!({}));

    let context: tauri::Context<MockRuntime> = tauri::generate_context!();
    let csp = context
        .config()
        .app
        .security
        .csp
        .as_ref()
        .expect("a CSP")
        .to_string();
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "connect-src ipc: http://ipc.localhost",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} missing from {csp}");
    }
    assert!(!csp.contains("https:") && !csp.contains('*'), "{csp}");
}

/// A tool's text edited on its row: written as an overlay of config.json,
/// shown in the rows with the upstream's beside it, and given back by a
/// blank.
#[test]
fn a_tool_s_text_is_overridden_and_given_back() {
    let shell = Shell::new();
    shell.ok(
        "tool_set_override",
        json!({"exposedName": "demo__echo", "title": "Echo", "description": " Says it back. "}),
    );
    let config = std::fs::read_to_string(shell.home.path().join("config.json")).unwrap();
    let config: Value = serde_json::from_str(&config).unwrap();
    assert_eq!(
        config["overlays"],
        json!([{"match": "demo__echo", "title": "Echo", "description": "Says it back."}])
    );
    let row_of = || {
        shell
            .ok("catalog_rows", json!({"profile": "default"}))
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["exposedName"] == "demo__echo")
            .cloned()
            .unwrap()
    };
    let row = tauri::async_runtime::block_on(async {
        // The engine reloads config.json on its own; wait for it.
        for _ in 0..100 {
            let row = row_of();
            if row["description"] == "Says it back." {
                return row;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        row_of()
    });
    assert_eq!(row["description"], "Says it back.", "{row}");
    assert_eq!(
        row["upstream"]["description"],
        "Return the text it is given."
    );

    shell.ok(
        "tool_set_override",
        json!({"exposedName": "demo__echo", "title": null, "description": ""}),
    );
    let config = std::fs::read_to_string(shell.home.path().join("config.json")).unwrap();
    assert!(!config.contains("overlays"), "{config}");
    let refused = shell
        .call(
            "tool_set_override",
            json!({"exposedName": "no such name!", "title": "x"}),
        )
        .unwrap_err();
    assert_eq!(refused["field"], "exposedName", "{refused}");
}

/// "Try" on a tool's row: the call under the profile, its answer, and an
/// entry in the ledger; a tool the profile hides is refused with why.
#[test]
fn a_tool_is_tried_under_the_profile_and_recorded() {
    let shell = Shell::new();
    let tried = shell.ok(
        "tool_try",
        json!({"profile": "default", "name": "demo__echo", "arguments": {"text": "hello"}}),
    );
    assert!(tried["answer"].to_string().contains("hello"), "{tried}");
    assert_eq!(tried["record"]["status"], "completed", "{tried}");
    let listed = shell.ok("tasks_list", json!({"filter": {}}));
    assert!(
        listed.to_string().contains("demo__echo"),
        "the try is in the ledger: {listed}"
    );

    std::fs::write(
        shell.home.path().join("profiles/strict.json"),
        r#"{"tools": {"deny": ["demo__echo"]}}"#,
    )
    .unwrap();
    let refused = shell
        .call(
            "tool_try",
            json!({"profile": "strict", "name": "demo__echo", "arguments": {"text": "x"}}),
        )
        .unwrap_err();
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("hidden by profile \"strict\" (tools.deny \"demo__echo\")"),
        "{refused}"
    );
}

/// `mcp-sieve`, built beside these tests (`cargo test` builds the
/// workspace's binaries; test.sh builds it first as well).
fn command_line() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test knows where it runs");
    // target/debug/deps/commands-<hash> → target/debug/mcp-sieve
    let binary = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|dir| dir.join("mcp-sieve"))
        .expect("the test runs inside the target folder");
    assert!(
        binary.is_file(),
        "{} is not built; run `cargo build -p sieve-cli --bin mcp-sieve` first",
        binary.display()
    );
    binary
}

#[test]
fn the_app_and_a_command_line_changing_one_home_lose_nothing() {
    const CHANGES: usize = 50;
    let shell = Shell::new();
    let home = shell.home.path().to_path_buf();
    shell.ok("profile_create", json!({"name": "work"}));
    // The command line imports 50 servers, one `mcp-sieve servers import`
    // each, while the app adds 50 of its own and edits a profile 50 times.
    let hosts = tempfile::tempdir().unwrap();
    let files: Vec<_> = (0..CHANGES)
        .map(|i| {
            let path = hosts.path().join(format!("cli-{i}.json"));
            let text = json!({"mcpServers": {format!("cli-{i}"): {"url": format!("http://127.0.0.1:9/cli-{i}")}}});
            std::fs::write(&path, text.to_string()).unwrap();
            path
        })
        .collect();
    let binary = command_line();
    let cli = std::thread::spawn(move || {
        for file in files {
            let out = std::process::Command::new(&binary)
                .arg("--home")
                .arg(&home)
                .args(["servers", "import", "cursor"])
                .arg(&file)
                .env_remove("MCP_SIEVE_HOME")
                .output()
                .expect("mcp-sieve runs");
            assert!(
                out.status.success(),
                "importing {} failed: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    });
    for i in 0..CHANGES {
        shell.ok(
            "server_add",
            json!({"server": {"transport": "http", "name": format!("app-{i}"), "url": format!("http://127.0.0.1:9/app-{i}")}, "keepSecrets": false}),
        );
        shell.ok(
            "profile_edit",
            json!({"name": "work", "edit": {"op": "addPattern", "section": "tools", "list": "deny", "pattern": format!("deny-{i}")}}),
        );
    }
    cli.join().expect("the command line's imports all succeed");

    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(shell.home.path().join("config.json")).unwrap(),
    )
    .unwrap();
    let servers = config["mcpServers"].as_object().expect("servers");
    let lost: Vec<String> = (0..CHANGES)
        .flat_map(|i| [format!("cli-{i}"), format!("app-{i}")])
        .filter(|name| !servers.contains_key(name))
        .collect();
    assert!(lost.is_empty(), "servers lost from config.json: {lost:?}");
    let work = shell.ok("profile_show", json!({"name": "work"}));
    let denied = work["document"]["tools"]["deny"]
        .as_array()
        .expect("deny list");
    assert_eq!(
        denied.len(),
        CHANGES,
        "every deny pattern is there: {denied:?}"
    );
}

/// Labels made on the Tools screen: a concern's value set on two selected
/// tools is written to config.json as one overlay per tool, the answer
/// lists them as rules, and once the engine has reloaded the file the
/// rows carry the value.
#[test]
fn a_concern_set_on_two_tools_is_written_and_their_rows_show_it() {
    let shell = Shell::new();
    let state = tauri::Manager::state::<AppState>(&shell.app);
    let mut changes = state.engine.subscribe();
    let selected = ["demo__list_files", "demo__read_file"];

    let view = shell.ok(
        "label_edit",
        json!({"edit": {"op": "setConcern", "concern": "security", "value": "low", "tools": selected}}),
    );

    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(shell.home.path().join("config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        config["overlays"],
        json!([
            {"match": "demo__list_files", "concerns": {"security": "low"}},
            {"match": "demo__read_file", "concerns": {"security": "low"}},
        ]),
        "one exact-name overlay per tool: {config}"
    );
    let rules: Vec<(&Value, &Value)> = view["overlays"]
        .as_array()
        .expect("the answer lists the overlays")
        .iter()
        .map(|rule| (&rule["overlay"]["match"], &rule["matches"]))
        .collect();
    assert_eq!(
        rules,
        [
            (&json!("demo__list_files"), &json!(1)),
            (&json!("demo__read_file"), &json!(1))
        ],
        "{view}"
    );

    let security_of = |rows: &Value, name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["exposedName"] == name)
            .map(|r| r["concerns"]["security"].clone())
            .unwrap_or_else(|| panic!("no row {name}"))
    };
    let reloaded = async {
        loop {
            let rows = shell.ok("catalog_rows", json!({"profile": "default"}));
            if selected
                .iter()
                .all(|name| security_of(&rows, name) == "low")
            {
                return rows;
            }
            // The engine reloads config.json on its own and says so.
            match changes.recv().await {
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(closed) => panic!("the engine stopped: {closed}"),
            }
        }
    };
    let rows = tauri::async_runtime::block_on(async {
        tokio::time::timeout(Duration::from_secs(30), reloaded).await
    })
    .expect("the engine reloads config.json and the rows carry security=low");
    assert_eq!(
        security_of(&rows, "demo__grep_files"),
        "high",
        "a tool not selected keeps its value"
    );

    let refused = shell
        .call(
            "label_edit",
            json!({"edit": {"op": "setConcern", "concern": "speed", "value": "fast", "tools": selected}}),
        )
        .unwrap_err();
    assert_eq!(refused["code"], "invalid", "{refused}");
    assert_eq!(refused["field"], "concern", "{refused}");
    let listed = shell.ok("labels_view", json!({}));
    assert_eq!(
        listed["overlays"].as_array().map(Vec::len),
        Some(2),
        "nothing more written: {listed}"
    );
}

/// The Audit screen's list: empty until `settings.audit` records a call,
/// and a filter the audit cannot take names its field.
#[test]
fn the_audit_is_listed_and_a_bad_filter_names_its_field() {
    let shell = Shell::new();
    assert_eq!(
        shell.ok(
            "audit_list",
            json!({"filter": {"status": ["error"], "since": "1h"}})
        ),
        json!({"calls": [], "nextCursor": null})
    );
    let refused = shell
        .call("audit_list", json!({"filter": {"status": ["failed"]}}))
        .unwrap_err();
    assert_eq!(refused["field"], "status", "{refused}");
}
