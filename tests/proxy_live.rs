//! Profiles and config.json edited while a proxy runs: valid edits apply
//! at once with `list_changed` for exactly the kinds that changed; a bad
//! edit keeps the last good version; a new server connects without a
//! restart.

use serde_json::json;
use sieve_tests::Home;
use sieve_tests::wire::{Wire, tool_names};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

#[tokio::test]
async fn profile_edits_apply_live() {
    let home = Home::new(BIN);
    home.write("profiles/work.json", "{}");
    let mut host = Wire::start(BIN, home.path(), &["--profile", "work"], json!({})).await;
    assert_eq!(
        tool_names(&host.request("tools/list", json!({})).await).len(),
        40
    );
    let prompts_before = host.request("prompts/list", json!({})).await;
    // A plain call's way is judged once per tool (front/express.rs): an
    // edit must be judged again.
    let delete = json!({"name": "demo__delete_file", "arguments": {"path": "no-such-file"}});
    let reached = host.request("tools/call", delete.clone()).await;
    assert!(reached.get("result").is_some(), "{reached}");

    home.replace("profiles/work.json", r#"{"tools": {"deny": ["*delete*"]}}"#);
    // A hang guard, not a speed claim: benches/list_changed.rs measures how
    // soon the notification comes.
    tokio::time::timeout(
        Duration::from_secs(30),
        host.notification("notifications/tools/list_changed"),
    )
    .await
    .expect("the profile edit is announced with tools/list_changed");
    let names = tool_names(&host.request("tools/list", json!({})).await);
    assert!(!names.iter().any(|n| n.contains("delete")), "{names:?}");
    assert_eq!(names.len(), 37, "three delete tools");
    let refused = host.request("tools/call", delete).await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("hidden by profile \"work\"")),
        "{refused}"
    );
    // Only the tools changed.
    host.settle(Duration::from_millis(300)).await;
    assert_eq!(host.drain("notifications/prompts/list_changed"), 0);
    assert_eq!(host.drain("notifications/resources/list_changed"), 0);
    assert_eq!(
        host.request("prompts/list", json!({})).await["result"],
        prompts_before["result"]
    );

    // A broken edit: the last good profile stays in force, nothing is sent.
    home.replace(
        "profiles/work.json",
        r#"{"tools": {"deny": ["*delete*"]},}"#,
    );
    host.settle(Duration::from_millis(800)).await;
    assert_eq!(host.drain("notifications/tools/list_changed"), 0);
    assert_eq!(
        tool_names(&host.request("tools/list", json!({})).await).len(),
        37
    );
    assert_eq!(
        home.read("profiles/work.json"),
        r#"{"tools": {"deny": ["*delete*"]},}"#,
        "left as it is"
    );

    // Fixed again, with a prompt rule too: both kinds change.
    home.replace(
        "profiles/work.json",
        r#"{"tools": {"deny": ["*delete*", "*invoice*"]}, "prompts": {"deny": ["*"]}}"#,
    );
    host.notification("notifications/tools/list_changed").await;
    host.notification("notifications/prompts/list_changed")
        .await;
    assert_eq!(
        tool_names(&host.request("tools/list", json!({})).await).len(),
        30
    );
    assert!(
        host.request("prompts/list", json!({})).await["result"]["prompts"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    host.close().await;
}

#[tokio::test]
async fn config_edits_connect_servers_and_relabel() {
    let home = Home::new(BIN);
    home.write(
        "config.json",
        &json!({"mcpServers": {"one": {"command": BIN, "args": ["demo-server"]}}}).to_string(),
    );
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    assert_eq!(tool_names(&host.listing(&["one"]).await).len(), 40);

    let two = json!({"mcpServers": {
        "one": {"command": BIN, "args": ["demo-server"]},
        "two": {"command": BIN, "args": ["demo-server"]}
    }, "overlays": [{"match": "one__echo", "tags": ["experimental"]}]});
    home.replace("config.json", &two.to_string());
    // The new config and the new server's tools may be announced apart;
    // after the last list_changed all 80 tools are listed.
    let names = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            host.notification("notifications/tools/list_changed").await;
            let names = tool_names(&host.request("tools/list", json!({})).await);
            if names.len() == 80 {
                break names;
            }
        }
    })
    .await
    .expect("list_changed announces the second server's tools");
    assert!(
        names.contains(&"two__echo".to_string()),
        "the new server connected"
    );
    let list = host
        .request("tools/list", json!({"filter": {"tags": ["experimental"]}}))
        .await;
    assert_eq!(tool_names(&list), ["one__echo"], "overlays apply live");

    // A broken config keeps the servers running.
    home.replace("config.json", "{\"mcpServers\": ");
    host.settle(Duration::from_millis(800)).await;
    assert_eq!(
        tool_names(&host.request("tools/list", json!({})).await).len(),
        80
    );
    host.close().await;
}

/// `serve` without `--profile` serves the active profile and follows a
/// switch made by another process, with `tools/list_changed`.
#[tokio::test]
async fn serve_without_a_profile_follows_the_active_one() {
    let home = Home::new(BIN);
    home.write("profiles/safe.json", r#"{"tools": {"deny": ["*delete*"]}}"#);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    assert_eq!(
        tool_names(&host.request("tools/list", json!({})).await).len(),
        40
    );
    let switched = home.run(&["profiles", "use", "safe"]);
    assert!(switched.ok, "{}", switched.stderr);
    tokio::time::timeout(
        Duration::from_secs(30),
        host.notification("notifications/tools/list_changed"),
    )
    .await
    .expect("the switch is announced with tools/list_changed");
    let names = tool_names(&host.request("tools/list", json!({})).await);
    assert_eq!(names.len(), 37, "profile safe hides the three delete tools");

    let bad = home.run(&["profiles", "use", "nope"]);
    assert!(!bad.ok);
    assert!(bad.stderr.contains("no profile \"nope\""), "{}", bad.stderr);
    assert!(
        home.read("config.json")
            .contains(r#""activeProfile": "safe""#)
    );
    host.close().await;
}
