//! What a host may send that is wrong, generated in bulk (proptest's
//! strategies, a fixed seed so a failure repeats), through `mcp-sieve
//! serve` on stdio: every malformed line, wrong shape, unknown method,
//! wrong type, huge id or oversized message gets its JSON-RPC error (or,
//! for a notification, nothing), and the proxy goes on answering.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRng, TestRunner};
use serde_json::{Value, json};
use sieve_tests::Home;
use sieve_tests::wire::Wire;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-sieve-under-test");
/// Generated messages per run.
const CASES: usize = 600;

/// One bad message and what the proxy must answer.
#[derive(Debug, Clone)]
struct Case {
    line: String,
    expect: Expect,
}

#[derive(Debug, Clone)]
enum Expect {
    /// One error with one of these codes and one of these ids (the
    /// request's when it had a usable one, else null).
    Error {
        codes: &'static [i64],
        ids: Vec<Value>,
    },
    /// A result for this id (a valid request with an odd but legal id).
    Result { id: Value },
    /// Nothing (a notification).
    Nothing,
}

fn not_json() -> impl Strategy<Value = Case> {
    prop_oneof![
        "[^\n]{1,200}",
        r#"\{"jsonrpc":"2\.0","id":[0-9]{1,3},"method":"ping"[^\n}]{0,20}"#,
        "[\\{\\[\"a-z0-9:,]{1,60}",
    ]
    .prop_filter("not JSON", |text| {
        !text.trim().is_empty() && serde_json::from_str::<Value>(text).is_err()
    })
    .prop_map(|line| Case {
        line,
        expect: Expect::Error {
            codes: &[-32700],
            ids: vec![Value::Null],
        },
    })
}

fn not_an_object() -> impl Strategy<Value = Case> {
    prop_oneof![
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z ]{0,30}".prop_map(|s| json!(s)),
        Just(json!(true)),
        Just(json!(null)),
    ]
    .prop_map(|value| Case {
        line: value.to_string(),
        expect: Expect::Error {
            codes: &[-32600],
            ids: vec![Value::Null],
        },
    })
}

/// Objects that are JSON but no JSON-RPC message. Over stdio the error
/// names the id when it could be read; over HTTP it is `null`.
fn wrong_shape() -> impl Strategy<Value = Case> {
    prop_oneof![
        "[a-z]{1,10}".prop_map(|k| json!({ k: 1 })),
        Just(json!({"jsonrpc": "2.0", "id": [1], "method": "ping"})),
        Just(json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})),
        Just(json!({"jsonrpc": "2.0", "id": 1, "method": 7})),
        Just(json!({"jsonrpc": "2.0", "id": 1})),
    ]
    .prop_map(|value| {
        let id = match &value["id"] {
            Value::Number(n) => Value::Number(n.clone()),
            _ => Value::Null,
        };
        Case {
            line: value.to_string(),
            expect: Expect::Error {
                codes: &[-32600],
                ids: vec![id],
            },
        }
    })
}

fn unknown_method() -> impl Strategy<Value = Case> {
    ("[a-z]{1,12}/[a-zA-Z_]{1,12}", 1000u64..1_000_000)
        .prop_filter("not a method the proxy has", |(method, _)| {
            !KNOWN.contains(&method.as_str())
        })
        .prop_map(|(method, id)| Case {
            line: json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}}).to_string(),
            expect: Expect::Error {
                codes: &[-32601],
                ids: vec![json!(id)],
            },
        })
}

/// Methods a random `[a-z]+/[a-zA-Z_]+` could hit.
const KNOWN: &[&str] = &[
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "logging/setLevel",
    "completion/complete",
    "tasks/list",
    "tasks/get",
    "tasks/cancel",
    "tasks/result",
    "groups/list",
    "tags/list",
    "concerns/list",
    "concerns/update",
    "server/discover",
    "subscriptions/listen",
];

/// `tools/call` with params of the wrong type, or a tool that is not there.
fn wrong_params() -> impl Strategy<Value = Case> {
    let wrong_type = prop_oneof![
        any::<i64>().prop_map(|n| json!({"name": n})),
        Just(json!({"name": ["demo__echo"]})),
        Just(json!({"name": "demo__echo", "arguments": "text"})),
        Just(json!({"name": "demo__echo", "arguments": [1, 2]})),
        Just(json!({})),
        Just(json!("params")),
    ]
    .prop_map(|params| (params, &[-32602, -32600][..]));
    let unknown_tool = "[a-zA-Z0-9_ -]{1,40}"
        .prop_map(|name| (json!({"name": format!("nope__{name}")}), &[-32602][..]));
    (
        prop_oneof![wrong_type, unknown_tool],
        1_000_000u64..2_000_000,
    )
        .prop_map(|((params, codes), id)| Case {
            line: json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string(),
            // rmcp answers a message it cannot read at all with no id.
            expect: Expect::Error {
                codes,
                ids: vec![json!(id), Value::Null],
            },
        })
}

/// Valid pings with ids at the edges: answered with the same id.
fn odd_ids() -> impl Strategy<Value = Case> {
    prop_oneof![
        Just(json!(i64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(0)),
        "[a-zA-Z0-9 ]{0,50}".prop_map(|s| json!(s)),
        (1_000usize..20_000).prop_map(|n| json!("x".repeat(n))),
    ]
    .prop_map(|id| Case {
        line: json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string(),
        expect: Expect::Result { id },
    })
}

/// Notifications nobody answers, known or not.
fn notifications() -> impl Strategy<Value = Case> {
    prop_oneof![
        "notifications/[a-z_]{1,12}".prop_map(|m| json!({"jsonrpc": "2.0", "method": m})),
        Just(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 424242}})),
        Just(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": []}})),
    ]
    .prop_map(|value| Case {
        line: value.to_string(),
        expect: Expect::Nothing,
    })
}

fn any_case() -> impl Strategy<Value = Case> {
    prop_oneof![
        3 => not_json(),
        1 => not_an_object(),
        1 => wrong_shape(),
        2 => unknown_method(),
        2 => wrong_params(),
        1 => odd_ids(),
        1 => notifications(),
    ]
}

/// `count` cases from a fixed seed.
fn cases(count: usize) -> Vec<Case> {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = any_case();
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).expect("a case").current())
        .collect()
}

/// Sends `line`, then a ping; returns the answers other than the ping's
/// that came until the ping was answered and at least `expected` of them
/// arrived (requests are handled concurrently, so the ping's answer may
/// come first). An answer beyond those shows up with the next line.
async fn answers_to(host: &mut Wire, line: &str, n: u64, expected: usize) -> Vec<Value> {
    host.send_line(line).await;
    let marker = json!(format!("marker-{n}"));
    host.send_line(&json!({"jsonrpc": "2.0", "id": marker, "method": "ping"}).to_string())
        .await;
    let mut answers = Vec::new();
    let mut pinged = false;
    while !pinged || answers.len() < expected {
        let message = host.next_message().await;
        if message["id"] == marker {
            assert!(
                message.get("result").is_some(),
                "the ping answers: {message}"
            );
            pinged = true;
        } else if message.get("id").is_some() {
            // Notifications (list changes, logs) are no answers.
            answers.push(message);
        }
    }
    answers
}

#[tokio::test(flavor = "multi_thread")]
async fn every_bad_message_gets_its_error_and_the_proxy_goes_on() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let mut tally = std::collections::BTreeMap::<String, usize>::new();
    for (n, case) in cases(CASES).into_iter().enumerate() {
        let expected = usize::from(!matches!(case.expect, Expect::Nothing));
        let answers = answers_to(&mut host, &case.line, n as u64, expected).await;
        let shown: String = case.line.chars().take(200).collect();
        match &case.expect {
            Expect::Nothing => {
                assert!(
                    answers.is_empty(),
                    "{shown}: a notification got {answers:?}"
                );
                *tally.entry("nothing".into()).or_default() += 1;
            }
            Expect::Result { id } => {
                assert_eq!(answers.len(), 1, "{shown}: {answers:?}");
                assert_eq!(&answers[0]["id"], id, "{shown}: the same id comes back");
                assert!(
                    answers[0].get("result").is_some(),
                    "{shown}: {}",
                    answers[0]
                );
                *tally.entry("result".into()).or_default() += 1;
            }
            Expect::Error { codes, ids } => {
                assert_eq!(answers.len(), 1, "{shown}: one answer, got {answers:?}");
                let error = &answers[0];
                let code = error["error"]["code"].as_i64().unwrap_or_default();
                assert!(
                    codes.contains(&code),
                    "{shown}: expected {codes:?}, got {error}"
                );
                assert!(ids.contains(&error["id"]), "{shown}: id {ids:?}: {error}");
                let message = error["error"]["message"].as_str().unwrap_or_default();
                assert!(!message.is_empty(), "{shown}: an error says what is wrong");
                *tally.entry(code.to_string()).or_default() += 1;
            }
        }
    }
    eprintln!("{CASES} bad messages answered: {tally:?}");
    // Every category came up.
    for code in ["-32700", "-32600", "-32601", "-32602", "result", "nothing"] {
        assert!(
            tally.get(code).is_some_and(|n| *n > 0),
            "no {code} case in {tally:?}"
        );
    }
    assert!(host.close().await.success(), "the proxy exits cleanly");
}

/// Nesting deeper than any parser should follow: a clear error, no crash.
#[tokio::test(flavor = "multi_thread")]
async fn deep_nesting_is_refused_without_a_crash() {
    let home = Home::new(BIN);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"a":{}{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let answers = answers_to(&mut host, &deep, 0, 1).await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    let code = answers[0]["error"]["code"].as_i64().unwrap();
    assert!([-32700, -32600].contains(&code), "{}", answers[0]);
    assert!(host.close().await.success());
}

/// A message over `settings.maxMessageBytes` is refused with that name,
/// whether or not its line ever ends, and the proxy goes on.
#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_message_is_refused_by_the_setting_s_name() {
    let home = Home::new(BIN);
    home.write("config.json", r#"{"settings": {"maxMessageBytes": 65536}}"#);
    let mut host = Wire::start(BIN, home.path(), &[], json!({})).await;
    let big = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                     "params": {"name": "demo__echo", "arguments": {"text": "x".repeat(100_000)}}});
    let answers = answers_to(&mut host, &big.to_string(), 0, 1).await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    let message = answers[0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("over 65536 bytes (settings.maxMessageBytes"),
        "{message}"
    );
    // Just under the limit is fine.
    let fits = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
                      "params": {"name": "demo__echo", "arguments": {"text": "x".repeat(60_000)}}});
    let answers = answers_to(&mut host, &fits.to_string(), 1, 1).await;
    assert_eq!(answers[0]["id"], 10);
    assert_eq!(answers[0]["result"]["isError"], false, "{}", answers[0]);
    assert!(host.close().await.success());
}

/// The same kinds of bad bodies over HTTP: each is a 400 with a JSON-RPC
/// error (`"id": null`), an oversized body a 413 naming the setting, and a
/// good request afterwards is served.
#[tokio::test(flavor = "multi_thread")]
async fn bad_bodies_over_http_get_json_rpc_errors() {
    let home = Home::new(BIN);
    home.write("config.json", r#"{"settings": {"maxMessageBytes": 65536}}"#);
    let proxy = sieve_tests::http::HttpProxy::start(BIN, home.path());
    let client = reqwest::Client::new();
    let post = |body: String| {
        client
            .post(format!("{}/mcp", proxy.base))
            .header("Authorization", format!("Bearer {}", proxy.token))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(body)
            .send()
    };
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[9; 32]),
    );
    let strategy = prop_oneof![not_json(), not_an_object(), wrong_shape()];
    for _ in 0..200 {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let Expect::Error { codes, ids } = case.expect else {
            unreachable!("these cases are errors")
        };
        let response = post(case.line.clone()).await.expect("the proxy answers");
        assert_eq!(response.status(), 400, "{}", case.line);
        let answer: Value = response.json().await.expect("a JSON-RPC error body");
        // The request's id when it had a usable one, as over stdio.
        assert!(ids.contains(&answer["id"]), "{}: {answer}", case.line);
        let code = answer["error"]["code"].as_i64().unwrap_or_default();
        assert!(codes.contains(&code), "{}: {answer}", case.line);
    }

    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(100_000)}});
    let response = post(big.to_string()).await.unwrap();
    assert_eq!(response.status(), 413);
    let said = response.text().await.unwrap();
    assert!(
        said.contains("over 65536 bytes (settings.maxMessageBytes"),
        "{said}"
    );

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let response = post(init.to_string()).await.unwrap();
    assert_eq!(response.status(), 200, "still serving");
}
