//! `mcp-sieve serve` over stdio in front of the built-in demo server (the
//! embedded default when config.json lists no server), driven by a host
//! that writes raw JSON-RPC: namespaced lists, every filter kind, request
//! narrowing, enforcement, calls by URI, and the added methods.

use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::wire::{Wire, tool_names};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");

async fn start(home: &Home, profile: &str) -> Wire {
    Wire::start(BIN, home.path(), &["--profile", profile], json!({})).await
}

fn tools(response: &Value) -> Vec<Value> {
    response["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn meta<'a>(tool: &'a Value, key: &str) -> &'a Value {
    &tool["_meta"][format!("dev.mcp-sieve/{key}")]
}

fn has_tag(tool: &Value, tag: &str) -> bool {
    meta(tool, "tags")
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t == tag)
}

#[tokio::test]
async fn lists_are_namespaced_and_labelled() {
    let home = Home::new(BIN);
    let mut host = start(&home, "default").await;
    let list = host.request("tools/list", json!({})).await;
    let all = tools(&list);
    assert_eq!(all.len(), 40, "the demo server's 40 tools: {list}");
    for tool in &all {
        let name = tool["name"].as_str().unwrap();
        assert!(name.starts_with("demo__"), "{name}");
        let upstream = &name["demo__".len()..];
        assert_eq!(
            meta(tool, "uri"),
            &json!(format!("mcp://tools/demo/{upstream}"))
        );
        assert_eq!(meta(tool, "server"), "demo");
        assert!(
            meta(tool, "groups")
                .as_array()
                .unwrap()
                .contains(&json!("server:demo"))
        );
    }
    let delete = all
        .iter()
        .find(|t| t["name"] == "demo__delete_file")
        .unwrap();
    assert!(has_tag(delete, "destructive"));
    assert_eq!(
        meta(delete, "concerns"),
        &json!({"security": "low", "cost": "minimal"})
    );
    assert_eq!(
        list["result"]["cacheScope"], "private",
        "a filtered list is private to its caller"
    );

    let prompts = host.request("prompts/list", json!({})).await;
    let names: Vec<&str> = prompts["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"demo__triage_issue"), "{names:?}");
    let resources = host.request("resources/list", json!({})).await;
    assert!(
        resources["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == "demo://readme")
    );
    let templates = host.request("resources/templates/list", json!({})).await;
    assert!(
        !templates["result"]["resourceTemplates"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{templates}"
    );
    assert!(host.close().await.success());
}

/// Counts what the unfiltered list holds, independently of the proxy's rules.
async fn unfiltered(home: &Home) -> Vec<Value> {
    let mut host = start(home, "default").await;
    let all = tools(&host.request("tools/list", json!({})).await);
    host.close().await;
    all
}

/// Which tools of the unfiltered list a profile should keep.
type Keep = Box<dyn Fn(&Value) -> bool>;

#[tokio::test]
async fn every_filter_kind_of_the_profile() {
    let home = Home::new(BIN);
    let all = unfiltered(&home).await;
    let cases: Vec<(&str, Keep)> = vec![
        (
            r#"{"tools": {"deny": ["*delete*"]}}"#,
            Box::new(|t| !t["name"].as_str().unwrap().contains("delete")),
        ),
        (
            r#"{"tools": {"allow": ["demo__list_*", "demo__get_*"]}}"#,
            Box::new(|t| {
                let n = t["name"].as_str().unwrap();
                n.starts_with("demo__list_") || n.starts_with("demo__get_")
            }),
        ),
        // A bare name (as profiles were written before groups belonged to
        // their server) is that group in any server: `demo/billing`.
        (
            r#"{"groups": ["billing"]}"#,
            Box::new(|t| {
                meta(t, "groups")
                    .as_array()
                    .unwrap()
                    .contains(&json!("demo/billing"))
            }),
        ),
        (
            r#"{"groups": {"none": ["demo/billing"]}}"#,
            Box::new(|t| {
                !meta(t, "groups")
                    .as_array()
                    .unwrap()
                    .contains(&json!("demo/billing"))
            }),
        ),
        (
            r#"{"tags": {"none": ["destructive"]}}"#,
            Box::new(|t| !has_tag(t, "destructive")),
        ),
        (
            r#"{"tags": {"all": ["read-only", "stable"]}}"#,
            Box::new(|t| has_tag(t, "read-only") && has_tag(t, "stable")),
        ),
        (
            r#"{"tags": {"expr": "read-only and not (experimental or deprecated) or idempotent"}}"#,
            Box::new(|t| {
                (has_tag(t, "read-only")
                    && !(has_tag(t, "experimental") || has_tag(t, "deprecated")))
                    || has_tag(t, "idempotent")
            }),
        ),
        (
            r#"{"concerns": {"security": "high"}}"#,
            Box::new(|t| {
                let security = &meta(t, "concerns")["security"];
                security.is_null() || security == "high"
            }),
        ),
        (
            r#"{"uriPrefixes": ["mcp://tools/demo/list_"]}"#,
            Box::new(|t| t["name"].as_str().unwrap().starts_with("demo__list_")),
        ),
        (r#"{"servers": ["elsewhere"]}"#, Box::new(|_| false)),
    ];
    for (i, (profile, keep)) in cases.iter().enumerate() {
        home.write(&format!("profiles/case{i}.json"), profile);
        let mut host = start(&home, &format!("case{i}")).await;
        let shown = tool_names(&host.request("tools/list", json!({})).await);
        let expected: Vec<String> = all
            .iter()
            .filter(|t| keep(t))
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(shown, expected, "profile {profile}");
        assert!(shown.len() < all.len(), "profile {profile} hides something");
        host.close().await;
    }
}

/// `filter.tagExpr` narrows one list; a tool the profile's `tags.expr`
/// hides is refused with the expression named; an expression that does
/// not read is refused with its column.
#[tokio::test]
async fn tag_expressions_in_profile_and_request() {
    let home = Home::new(BIN);
    home.write(
        "profiles/safe.json",
        r#"{"tags": {"expr": "not destructive"}}"#,
    );
    let mut host = start(&home, "safe").await;
    let listed = tools(&host.request("tools/list", json!({})).await);
    assert!(!listed.is_empty() && listed.iter().all(|t| !has_tag(t, "destructive")));
    let narrowed = tools(
        &host
            .request(
                "tools/list",
                json!({"filter": {"tagExpr": "read-only and stable"}}),
            )
            .await,
    );
    assert!(!narrowed.is_empty() && narrowed.len() < listed.len());
    assert!(
        narrowed
            .iter()
            .all(|t| has_tag(t, "read-only") && has_tag(t, "stable"))
    );
    // A request cannot widen: an expression that would show destructive
    // tools still shows none.
    let wider = tools(
        &host
            .request(
                "tools/list",
                json!({"filter": {"tagExpr": "destructive or read-only"}}),
            )
            .await,
    );
    assert!(wider.iter().all(|t| !has_tag(t, "destructive")));

    let refused = host
        .request(
            "tools/call",
            json!({"name": "demo__purge_closed_issues", "arguments": {}}),
        )
        .await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(r#"tags.expr "not destructive" does not hold"#),
        "{refused}"
    );

    let bad = host
        .request(
            "tools/list",
            json!({"filter": {"tagExpr": "read-only and (stable"}}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let message = bad["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("filter.tagExpr: column 22: expected \")\""),
        "{message}"
    );
    host.close().await;

    // The command line explains it the same way.
    let explained = home.run(&["tools", "--profile", "safe", "--hidden", "--explain"]);
    assert!(explained.ok, "{}", explained.stderr);
    assert!(
        explained
            .stdout
            .contains(r#"tags.expr "not destructive" does not hold"#),
        "{}",
        explained.stdout
    );
}

/// An overlay's title and description replace the upstream's for the
/// host and in the token count; `tools --json` shows both.
#[tokio::test]
async fn an_overlay_s_text_replaces_the_upstream_s() {
    let plain = Home::new(BIN);
    let home = Home::new(BIN);
    home.write(
        "config.json",
        r#"{"overlays": [{"match": "demo__*", "description": "Short."},
                         {"match": "demo__echo", "title": "Echo", "description": "Says it back."}]}"#,
    );
    let mut host = start(&home, "default").await;
    let listed = tools(&host.request("tools/list", json!({})).await);
    let echo = listed.iter().find(|t| t["name"] == "demo__echo").unwrap();
    assert_eq!(echo["title"], "Echo", "{echo}");
    assert_eq!(
        echo["description"], "Says it back.",
        "the later overlay wins"
    );
    let other = listed
        .iter()
        .find(|t| t["name"] == "demo__get_issue")
        .unwrap();
    assert_eq!(other["description"], "Short.");
    host.close().await;

    let rows = home.run(&["tools", "--json"]).json();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["exposedName"] == "demo__echo")
        .unwrap();
    assert_eq!(row["description"], "Says it back.", "{row}");
    assert_eq!(
        row["upstream"]["description"], "Return the text it is given.",
        "{row}"
    );

    let tokens = |home: &Home| {
        home.run(&["tokens", "--json"]).json()["before"]
            .as_u64()
            .unwrap()
    };
    let (shortened, full) = (tokens(&home), tokens(&plain));
    assert!(
        shortened < full,
        "the count is of what the host sees: {shortened} vs {full}"
    );
}

/// The names of the tools a `sieve__find_tools` answer holds.
fn found_names(found: &Value) -> Vec<&str> {
    found["result"]["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{found}"))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect()
}

/// Asks `find` until the search ranks by words and meaning (the sentence
/// model has read the tools; a second or two for the demo's), and gives
/// that answer.
async fn wait_for_meaning(host: &mut Wire, find: Value) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let found = host.request("tools/call", find.clone()).await;
        match found["result"]["_meta"]["dev.mcp-sieve/ranking"].as_str() {
            Some("words and meaning") => return found,
            Some("words") if std::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            _ => panic!("the search never ranked by meaning: {found}"),
        }
    }
}

/// Without the sentence model the search ranks by words alone and says
/// so; plain words a tool does not use then miss it (the model finds
/// them: `search_mode_lists_the_pinned_and_finds_the_rest`). A proxy
/// that serves no search profile never reads the model; one that does
/// keeps the tools' vectors for the next start.
#[tokio::test]
async fn the_search_ranks_by_words_without_the_model_and_reads_it_only_for_search() {
    let home = Home::new(BIN);
    home.write("profiles/search.json", r#"{"disclosure": "search"}"#);
    let vectors = home.path().join("sentence-vectors.bin");

    let mut plain = start(&home, "default").await;
    plain.request("tools/list", json!({})).await;
    let called = plain
        .request(
            "tools/call",
            json!({"name": "demo__list_issues", "arguments": {}}),
        )
        .await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    drop(plain);
    assert!(
        !vectors.exists(),
        "a proxy without a search profile read the model"
    );

    let mut host = Wire::start_with_env(
        BIN,
        home.path(),
        &["--profile", "search"],
        &[("MCP_SIEVE_MODEL", "/nonexistent/model")],
        json!({}),
    )
    .await;
    host.request("tools/list", json!({})).await;
    let find = |query: &str| json!({"name": "sieve__find_tools", "arguments": {"query": query, "limit": 3}});
    let found = host
        .request("tools/call", find("take back the money we charged"))
        .await;
    assert_eq!(
        found["result"]["_meta"]["dev.mcp-sieve/ranking"], "words",
        "{found}"
    );
    assert!(
        !found.to_string().contains("demo__refund_invoice"),
        "{found}"
    );
    let found = host.request("tools/call", find("refund an invoice")).await;
    assert_eq!(
        found["result"]["structuredContent"]["tools"][0]["name"], "demo__refund_invoice",
        "{found}"
    );
    drop(host);
    assert!(!vectors.exists(), "nothing was read without the model");

    let mut host = start(&home, "search").await;
    host.request("tools/list", json!({})).await;
    wait_for_meaning(&mut host, find("refund an invoice")).await;
    // The reading thread writes the file just after the search has the
    // vectors.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let kept = loop {
        match std::fs::read(&vectors) {
            Ok(bytes) => break bytes,
            Err(_) if std::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            Err(error) => panic!("the tools' vectors are not kept: {error}"),
        }
    };
    // Its form: a header, then per tool a hash, the day of use and 384
    // numbers.
    let records = kept
        .strip_prefix(b"sieve-vectors-2\n".as_slice())
        .expect("a vectors file");
    assert!(
        !records.is_empty() && records.len() % (32 + 4 + 384 * 4) == 0,
        "{} bytes of records",
        records.len()
    );
}

/// A host whose every request narrows what it may call (concerns in
/// `_meta`) still gets the ranking by meaning: the profile's search is
/// built and read when it lists, and the connection's own searches use
/// the vectors it read.
#[tokio::test]
async fn a_host_that_always_narrows_is_ranked_by_meaning_too() {
    let home = Home::new(BIN);
    home.write("profiles/search.json", r#"{"disclosure": "search"}"#);
    let mut host = start(&home, "search").await;
    let concerns = json!({"dev.mcp-sieve/concerns": {"security": "low"}});
    host.request("tools/list", json!({"_meta": concerns})).await;
    let found = wait_for_meaning(
        &mut host,
        json!({"name": "sieve__find_tools",
               "arguments": {"query": "take back the money we charged", "limit": 3},
               "_meta": concerns}),
    )
    .await;
    let names = found_names(&found);
    assert!(names.contains(&"demo__refund_invoice"), "{names:?}");
}

/// A profile in search mode lists its pinned tools and the proxy's two
/// search tools; the rest is found by plain words and called through
/// `sieve__call_tool`, enforced like any call.
#[tokio::test]
async fn search_mode_lists_the_pinned_and_finds_the_rest() {
    let home = Home::new(BIN);
    home.write(
        "profiles/search.json",
        r#"{"disclosure": "search", "pinned": ["demo__echo"],
            "tools": {"deny": ["demo__purge_closed_issues"]}}"#,
    );
    let mut host = start(&home, "search").await;
    let names = tool_names(&host.request("tools/list", json!({})).await);
    assert_eq!(
        names,
        ["demo__echo", "sieve__find_tools", "sieve__call_tool"]
    );

    let find = |query: &str| json!({"name": "sieve__find_tools", "arguments": {"query": query, "limit": 3}});
    // The list started the sentence model reading the tools; until it
    // has, the search ranks by words alone and says so.
    let found = wait_for_meaning(&mut host, find("get an issue")).await;
    let tools = found["result"]["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{found}"))
        .clone();
    assert!(tools.len() <= 3, "{found}");
    assert_eq!(tools[0]["name"], "demo__get_issue", "{found}");
    assert!(
        tools[0]["inputSchema"].is_object(),
        "the full definition comes back"
    );
    // What the model reads holds none of MCP Sieve's own labels.
    let text = found["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("dev.mcp-sieve/"), "{text}");
    assert!(tools.iter().all(|t| t.get("_meta").is_none_or(|m| {
        m.as_object()
            .unwrap()
            .keys()
            .all(|k| !k.starts_with("dev.mcp-sieve/"))
    })));
    // The call tool's schema names the search tool.
    let listed = host.request("tools/list", json!({})).await;
    let call_tool = &listed["result"]["tools"][2];
    assert_eq!(
        call_tool["inputSchema"]["properties"]["name"]["description"],
        "The tool's name as sieve__find_tools gave it",
        "{call_tool}"
    );
    // A query that matches nothing says so and names the groups there
    // are; the nearest in meaning still come, named as not close.
    let nothing = host.request("tools/call", find("xylophone zebra")).await;
    let nearest = nothing["result"]["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{nothing}"));
    assert_eq!(nearest.len(), 3, "{nothing}");
    let said = nothing["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        said.starts_with("No tool matches \"xylophone zebra\"")
            && said.contains("demo/issues")
            && said.contains(&format!(
                "The nearest in meaning, though not close, are listed: {}",
                nearest[0]["name"].as_str().unwrap()
            )),
        "{said}"
    );
    // Words a tool does not use find it by meaning.
    for (query, meant) in [
        ("take back the money we charged", "demo__refund_invoice"),
        (
            "kick bob out so he can no longer get in",
            "demo__disable_user",
        ),
    ] {
        let found = host.request("tools/call", find(query)).await;
        let names = found_names(&found);
        assert!(names.contains(&meant), "{query:?} found {names:?}");
    }
    // A call whose concerns narrow what it may call has a search of its
    // own, ranked by meaning too once the model has read the tools.
    let narrowed = host
        .request(
            "tools/call",
            json!({"name": "sieve__find_tools",
                   "arguments": {"query": "take back the money we charged", "limit": 3},
                   "_meta": {"dev.mcp-sieve/concerns": {"security": "low"}}}),
        )
        .await;
    assert_eq!(
        narrowed["result"]["_meta"]["dev.mcp-sieve/ranking"], "words and meaning",
        "{narrowed}"
    );

    let called = host
        .request(
            "tools/call",
            json!({"name": "sieve__call_tool", "arguments": {"name": "demo__get_issue", "arguments": {"id": 1}}}),
        )
        .await;
    assert_eq!(called["result"]["isError"], false, "{called}");

    // What the profile denies is never found, and refused when called.
    let purge = host
        .request("tools/call", find("purge closed issues"))
        .await;
    assert!(
        !purge.to_string().contains("demo__purge_closed_issues"),
        "{purge}"
    );
    let refused = host
        .request(
            "tools/call",
            json!({"name": "sieve__call_tool", "arguments": {"name": "demo__purge_closed_issues"}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("hidden by profile"),
        "{refused}"
    );
    let empty = host.request("tools/call", find("  ")).await;
    assert_eq!(empty["error"]["code"], -32602, "{empty}");
    // A name no server has points to the search, not to the list (which
    // holds the search tools only).
    let unknown = host
        .request(
            "tools/call",
            json!({"name": "sieve__call_tool", "arguments": {"name": "nope__nothing"}}),
        )
        .await;
    assert_eq!(
        unknown["error"]["message"],
        "unknown tool \"nope__nothing\"; sieve__find_tools finds the tools of profile \"search\"",
        "{unknown}"
    );

    // An edit of the profile reaches the search (its index is rebuilt).
    home.replace(
        "profiles/search.json",
        r#"{"disclosure": "search", "pinned": ["demo__echo"],
            "tools": {"deny": ["demo__purge_closed_issues", "demo__get_issue"]}}"#,
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let found = host.request("tools/call", find("get an issue")).await;
        if !found.to_string().contains("demo__get_issue") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still found: {found}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    host.close().await;

    // In list mode the search tools are not there.
    let mut plain = start(&home, "default").await;
    let answer = plain.request("tools/call", find("issues")).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    plain.close().await;
}

#[tokio::test]
async fn requests_narrow_but_never_widen() {
    let home = Home::new(BIN);
    let mut host = start(&home, "default").await;
    let issues = host
        .request(
            "tools/list",
            json!({"filter": {"groups": ["issues"], "tags": ["read-only"]}}),
        )
        .await;
    assert_eq!(
        tool_names(&issues),
        [
            "demo__list_issues",
            "demo__get_issue",
            "demo__summarize_issue"
        ]
    );
    let by_uri = host
        .request(
            "tools/list",
            json!({"filters": {"uri_paths": ["mcp://tools/demo/list_", "mcp://tools/demo/get_"]}}),
        )
        .await;
    assert!(
        tool_names(&by_uri)
            .iter()
            .all(|n| n.starts_with("demo__list_") || n.starts_with("demo__get_"))
    );
    assert_eq!(tool_names(&by_uri).len(), 6, "{by_uri}");
    // `cost` is one of the built-in concerns, ordered from the cheapest:
    // a chosen cost keeps the tools at that cost or a cheaper one, and
    // those with no cost at all (void_invoice).
    let in_meta = host
        .request("tools/list", json!({"_meta": {"dev.mcp-sieve/filter": {"groups": ["billing"]}, "dev.mcp-sieve/concerns": {"cost": "minimal"}}}))
        .await;
    assert_eq!(
        tool_names(&in_meta),
        [
            "demo__list_invoices",
            "demo__get_invoice",
            "demo__void_invoice",
            "demo__billing_summary"
        ]
    );
    let moderate = host
        .request("tools/list", json!({"_meta": {"dev.mcp-sieve/filter": {"groups": ["billing"]}, "dev.mcp-sieve/concerns": {"cost": "moderate"}}}))
        .await;
    assert_eq!(
        tool_names(&moderate),
        [
            "demo__list_invoices",
            "demo__get_invoice",
            "demo__create_invoice",
            "demo__send_invoice",
            "demo__void_invoice",
            "demo__billing_summary"
        ]
    );
    let bad = host
        .request("tools/list", json!({"filter": {"groups": "issues"}}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    assert_eq!(
        bad["error"]["message"],
        "filter.groups must be a list of strings"
    );
    host.close().await;

    home.write("profiles/billing.json", r#"{"groups": ["billing"]}"#);
    let mut host = start(&home, "billing").await;
    let other = host
        .request("tools/list", json!({"filter": {"groups": ["issues"]}}))
        .await;
    assert!(
        tool_names(&other).is_empty(),
        "asking for another group cannot widen the profile: {other}"
    );
    host.close().await;
}

#[tokio::test]
async fn hidden_tools_are_refused_and_never_reach_the_server() {
    let home = Home::new(BIN);
    home.write("profiles/safe.json", r#"{"tools": {"deny": ["*delete*"]}}"#);
    let mut host = start(&home, "safe").await;
    let refused = host
        .request(
            "tools/call",
            json!({"name": "demo__delete_file", "arguments": {"path": "README.md"}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("hidden by profile \"safe\""), "{message}");
    assert!(message.contains(r#"tools.deny "*delete*""#), "{message}");
    let by_uri = host
        .request(
            "tools/call",
            json!({"name": "mcp://tools/demo/delete_file", "arguments": {"path": "README.md"}}),
        )
        .await;
    assert_eq!(
        by_uri["error"]["code"], -32602,
        "a URI does not get around the profile: {by_uri}"
    );
    // The file is still there: the refused calls were never forwarded.
    let read = host
        .request(
            "tools/call",
            json!({"name": "mcp://tools/demo/read_file", "arguments": {"path": "README.md"}}),
        )
        .await;
    assert_eq!(read["result"]["isError"], false, "{read}");
    let unknown = host
        .request("tools/call", json!({"name": "demo__nope", "arguments": {}}))
        .await;
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown tool \"demo__nope\""),
        "{unknown}"
    );
    host.close().await;

    home.write(
        "profiles/open.json",
        r#"{"tools": {"deny": ["*delete*"]}, "enforce": false}"#,
    );
    let mut host = start(&home, "open").await;
    let list = host.request("tools/list", json!({})).await;
    assert!(!tool_names(&list).contains(&"demo__delete_file".to_string()));
    let done = host
        .request(
            "tools/call",
            json!({"name": "demo__delete_file", "arguments": {"path": "README.md"}}),
        )
        .await;
    assert_eq!(
        done["result"]["isError"], false,
        "enforce: false only hides: {done}"
    );
    host.close().await;
}

#[tokio::test]
async fn groups_tags_and_concerns_methods() {
    let home = Home::new(BIN);
    home.write(
        "config.json",
        r#"{"concerns": [{"name": "security", "description": "Security level required", "values": ["high", "medium", "low"], "default": "medium"},
                         {"name": "cost", "values": ["minimal", "moderate", "high"]}]}"#,
    );
    // With concerns declared the demo is still the embedded default.
    let mut host = start(&home, "default").await;
    let groups = host.request("groups/list", json!({})).await;
    let billing = groups["result"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "demo/billing")
        .cloned();
    assert_eq!(
        billing,
        Some(json!({"name": "demo/billing", "count": 8, "server": "demo"})),
        "a server's group says whose it is: {groups}"
    );
    let tags = host.request("tags/list", json!({})).await;
    let destructive = tags["result"]["tags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "destructive")
        .unwrap();
    // The demo marks the tools that destroy; `echo` and `log_message`,
    // which it leaves unmarked, are read for what they do (neither
    // destroys).
    assert_eq!(destructive["count"], 9);
    assert!(
        destructive["description"]
            .as_str()
            .unwrap()
            .contains("destroy")
    );
    let concerns = host.request("concerns/list", json!({})).await;
    assert_eq!(concerns["result"]["concerns"][0]["name"], "security");
    assert_eq!(concerns["result"]["concerns"][0]["default"], "medium");

    let before = tool_names(&host.request("tools/list", json!({})).await).len();
    let updated = host
        .request("concerns/update", json!({"concerns": {"security": "high"}}))
        .await;
    assert_eq!(updated["result"], json!({}), "{updated}");
    host.notification("notifications/tools/list_changed").await;
    let after = host.request("tools/list", json!({})).await;
    assert!(tool_names(&after).len() < before);
    assert!(tools(&after).iter().all(|t| {
        let s = &meta(t, "concerns")["security"];
        s.is_null() || s == "high"
    }));
    let counted = host.request("groups/list", json!({})).await;
    assert_ne!(counted, groups, "counts follow the connection's concerns");
    let bad = host
        .request(
            "concerns/update",
            json!({"concerns": {"security": "ultra"}}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("params.concerns.security"),
        "{bad}"
    );
    // A concern that filters nothing new sends no list_changed.
    host.request("concerns/update", json!({"concerns": {"security": "high"}}))
        .await;
    host.settle(Duration::from_millis(300)).await;
    assert_eq!(host.drain("notifications/tools/list_changed"), 0);
    host.close().await;

    let mut host = Wire::start(BIN, home.path(), &[], json!({"concerns": {"cost": "high"}})).await;
    let costly = host.request("tools/list", json!({})).await;
    assert!(
        tools(&costly).iter().all(|t| {
            let c = &meta(t, "concerns")["cost"];
            c.is_null() || c == "high"
        }),
        "concerns in initialize narrow from the start"
    );
    host.close().await;
}

/// A line that is no JSON-RPC message gets the JSON-RPC error with
/// `id: null` (`-32700` for what is not JSON, `-32600` for JSON that is no
/// object), and the connection goes on serving.
#[tokio::test]
async fn a_line_that_is_no_message_gets_a_json_rpc_error() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    host.send_line("this is not json").await;
    let parse = host.next_message().await;
    assert_eq!(parse["id"], Value::Null, "{parse}");
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert!(
        parse["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON"),
        "{parse}"
    );
    host.send_line("42").await;
    let invalid = host.next_message().await;
    assert_eq!(invalid["id"], Value::Null, "{invalid}");
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    let listed = host.request("tools/list", json!({})).await;
    assert_eq!(tool_names(&listed).len(), 40, "{listed}");
    host.close().await;
}
