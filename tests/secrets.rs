//! Secrets out of config.json (DESIGN §10): `servers secret` moves an env
//! value into the store, config.json keeps `${secret:NAME}`, and the proxy
//! starts the server with the value; in a private file where there is no
//! keychain, and in the real system keychain (gnome-keyring's Secret
//! Service, in a D-Bus session of the test's own).

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::keychain::Keychain;
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

const SECRET: &str = "s3cr3t-7d1e-not-in-any-file";

/// A server that starts only when `DEMO_TOKEN` holds the secret (the
/// check names it in two parts, so the command line does not hold it).
fn config_with_plain_secret(home: &Home) {
    let check = format!(
        "test \"${{DEMO_TOKEN%-not-in-any-file}}\" = 's3cr3t-7d1e' && exec '{BIN}' demo-server"
    );
    let config = json!({"mcpServers": {"demo": {
        "command": "sh", "args": ["-c", check], "env": {"DEMO_TOKEN": SECRET}
    }}});
    home.write("config.json", &config.to_string());
}

fn state(list: &Value) -> &str {
    list[0]["state"].as_str().unwrap_or_default()
}

/// Every file under `dir` that holds `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in sieve_tests::files_under(dir) {
        if let Ok(bytes) = std::fs::read(&entry)
            && String::from_utf8_lossy(&bytes).contains(needle)
        {
            found.push(entry.display().to_string());
        }
    }
    found
}

#[test]
fn a_moved_secret_leaves_config_json_and_still_reaches_the_server() {
    let home = Home::new(BIN);
    config_with_plain_secret(&home);
    let run = |args: &[&str]| {
        let mut command = home.command();
        command.env("MCP_SIEVE_SECRETS", "file").args(args);
        command.output().expect("runs")
    };
    let moved = run(&["servers", "secret", "demo", "DEMO_TOKEN", "--json"]);
    assert!(
        moved.status.success(),
        "{}",
        String::from_utf8_lossy(&moved.stderr)
    );
    let kept: Value = serde_json::from_slice(&moved.stdout).unwrap();
    assert_eq!(kept["secret"], "demo/env/DEMO_TOKEN");
    assert_eq!(kept["moved"], true);
    let config: Value = serde_json::from_str(&home.read("config.json")).unwrap();
    assert_eq!(
        config["mcpServers"]["demo"]["env"]["DEMO_TOKEN"],
        "${secret:demo/env/DEMO_TOKEN}"
    );
    // The value is in the private file only, not in config.json or its backup.
    assert_eq!(
        files_holding(home.path(), SECRET),
        [home.path().join("secrets.json").display().to_string()]
    );
    let listed = run(&["servers", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(state(&listed), "up", "the server got its secret: {listed}");
    assert!(!listed.to_string().contains(SECRET));

    // Moving it again is refused; a wrong value replaces it and the server
    // says why it is down, naming no value.
    let again = run(&["servers", "secret", "demo", "DEMO_TOKEN"]);
    assert!(!again.status.success());
    let mut replace = home.command();
    replace
        .env("MCP_SIEVE_SECRETS", "file")
        .args(["servers", "secret", "demo", "DEMO_TOKEN", "--stdin"])
        .stdin(std::process::Stdio::piped());
    let mut child = replace.spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"wrong\n").unwrap();
    assert!(child.wait().unwrap().success());
    let listed: Value =
        serde_json::from_slice(&run(&["servers", "list", "--json"]).stdout).unwrap();
    assert_eq!(state(&listed), "down", "{listed}");

    // A reference to a secret that is not stored says what to do.
    let config = json!({"mcpServers": {"demo": {
        "command": BIN, "args": ["demo-server"], "env": {"OTHER": "${secret:nowhere}"}
    }}});
    home.write("config.json", &config.to_string());
    let listed: Value =
        serde_json::from_slice(&run(&["servers", "list", "--json"]).stdout).unwrap();
    let error = listed[0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("secret \"nowhere\" is not stored")
            && error.contains("mcp-sieve servers secret demo OTHER"),
        "{listed}"
    );
}

#[test]
fn in_the_system_keychain_the_secret_is_in_no_file() {
    let home = Home::new(BIN);
    config_with_plain_secret(&home);
    let keychain = Keychain::start();
    let run = |args: &[&str]| {
        let output = home
            .command()
            .envs(keychain.env())
            .args(args)
            .output()
            .expect("mcp-sieve runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let stored = run(&["servers", "secret", "demo", "DEMO_TOKEN"]);
    let list = run(&["servers", "list", "--json"]);
    assert!(stored.contains("kept in the system keychain"), "{stored}");
    let listed: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(
        state(&listed),
        "up",
        "the server got the secret from the keychain"
    );
    assert_eq!(files_holding(home.path(), SECRET), Vec::<String>::new());
    assert!(!home.path().join("secrets.json").exists());
}

#[test]
fn an_import_offers_to_keep_the_values_it_brings_and_keeps_them_when_asked() {
    let home = Home::new(BIN);
    let host_file = home.path().join("claude_desktop_config.json");
    let check = format!(
        "test \"${{DEMO_TOKEN%-not-in-any-file}}\" = 's3cr3t-7d1e' && exec '{BIN}' demo-server"
    );
    let host = json!({"mcpServers": {
        "demo": {"command": "sh", "args": ["-c", check], "env": {"DEMO_TOKEN": SECRET}},
        "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": format!("Bearer {SECRET}")}}
    }});
    std::fs::write(&host_file, host.to_string()).unwrap();
    let run = |args: &[&str]| {
        let mut command = home.command();
        command.env("MCP_SIEVE_SECRETS", "file").args(args);
        command.output().expect("runs")
    };
    let file = host_file.display().to_string();
    let preview = run(&[
        "servers",
        "import",
        "claude-desktop",
        &file,
        "--keep-secrets",
        "--json",
    ]);
    assert!(
        preview.status.success(),
        "{}",
        String::from_utf8_lossy(&preview.stderr)
    );
    let report: Value = serde_json::from_slice(&preview.stdout).unwrap();
    assert_eq!(
        report["secrets"],
        json!([
            {"server": "demo", "section": "env", "key": "DEMO_TOKEN"},
            {"server": "remote", "section": "headers", "key": "Authorization"}
        ])
    );
    assert_eq!(
        report["keptSecrets"],
        json!(["demo/env/DEMO_TOKEN", "remote/headers/Authorization"])
    );
    // Only the host's own file and the private store hold the value.
    let mut holding = files_holding(home.path(), SECRET);
    holding.sort();
    assert_eq!(
        holding,
        [
            file.clone(),
            home.path().join("secrets.json").display().to_string()
        ]
    );
    let listed: Value =
        serde_json::from_slice(&run(&["servers", "list", "--json"]).stdout).unwrap();
    let demo = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "demo")
        .unwrap();
    assert_eq!(demo["state"], "up", "{listed}");

    // Without the flag the values stay, and the import says how to move them.
    let other = Home::new(BIN);
    let mut command = other.command();
    let plain = command
        .env("MCP_SIEVE_SECRETS", "file")
        .args(["servers", "import", "claude-desktop", &file])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&plain.stdout);
    assert!(said.contains("--keep-secrets"), "{said}");
    assert!(other.read("config.json").contains(SECRET));
}
