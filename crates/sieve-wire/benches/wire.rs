//! A message passed on by the proxy, three ways: read once and its id
//! spliced (`sieve-wire`), parsed into a `serde_json::Value` and encoded
//! again, and decoded into rmcp's typed model and encoded again. Two
//! messages: a `tools/call` result (a text block and structured content,
//! about 3 KB) and a `tools/list` result of 10,000 tools built from the
//! real catalogs in `tests/fixtures/catalogs`. Run: `cargo bench -p
//! sieve-wire --bench wire`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use sieve_wire::{Id, Message};
use std::hint::black_box;

const CATALOGS: [&str; 7] = [
    "github-mcp-server",
    "server-github-legacy",
    "mcp-server-kubernetes",
    "server-everything",
    "server-filesystem",
    "server-memory",
    "server-sequential-thinking",
];

fn tools_list(count: usize) -> Vec<u8> {
    let dir = format!(
        "{}/../../tests/fixtures/catalogs",
        env!("CARGO_MANIFEST_DIR")
    );
    let tools: Vec<Value> = CATALOGS
        .iter()
        .flat_map(|name| {
            let text = std::fs::read_to_string(format!("{dir}/{name}.json")).expect("fixture");
            serde_json::from_str::<Vec<Value>>(&text).expect("a list of tools")
        })
        .collect();
    let listed: Vec<Value> = (0..count)
        .map(|i| {
            let mut tool = tools[i % tools.len()].clone();
            tool["name"] = json!(format!("{}_{i}", tool["name"].as_str().unwrap_or("t")));
            tool
        })
        .collect();
    let message = json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": listed}});
    serde_json::to_vec(&message).expect("encodes")
}

fn call_result() -> Vec<u8> {
    let text = "A line of what the tool found, as a server would write it. ".repeat(40);
    let message = json!({
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"rows": (0..20).map(|i| json!({"id": i, "name": format!("row {i}"), "ok": true})).collect::<Vec<_>>()},
            "isError": false,
        }
    });
    serde_json::to_vec(&message).expect("encodes")
}

fn wire(bytes: &[u8]) -> Vec<u8> {
    let message = Message::parse(bytes).expect("a message");
    message.with_id(&Id::from(12i64))
}

fn value(bytes: &[u8]) -> Vec<u8> {
    let mut message: Value = serde_json::from_slice(bytes).expect("JSON");
    message["id"] = json!(12);
    serde_json::to_vec(&message).expect("encodes")
}

fn rmcp_typed(bytes: &[u8]) -> Vec<u8> {
    use rmcp::model::{NumberOrString, ServerJsonRpcMessage};
    let mut message: ServerJsonRpcMessage = serde_json::from_slice(bytes).expect("rmcp reads it");
    if let ServerJsonRpcMessage::Response(response) = &mut message {
        response.id = NumberOrString::Number(12);
    }
    serde_json::to_vec(&message).expect("encodes")
}

/// One way to pass a message on: its bytes in, the bytes to send out.
type PassOn = fn(&[u8]) -> Vec<u8>;

fn pass_on(c: &mut Criterion) {
    let messages = [
        ("tools/call result", call_result()),
        ("tools/list of 10,000 tools", tools_list(10_000)),
    ];
    for (name, bytes) in &messages {
        eprintln!("{name}: {} bytes", bytes.len());
        let mut group = c.benchmark_group(*name);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        if bytes.len() > 1_000_000 {
            group.sample_size(20);
        }
        let ways: [(&str, PassOn); 3] = [
            ("sieve-wire read once + splice id", wire),
            ("serde_json Value parse + encode", value),
            ("rmcp typed decode + encode", rmcp_typed),
        ];
        for (way, run) in ways {
            group.bench_with_input(BenchmarkId::from_parameter(way), bytes, |b, bytes| {
                b.iter(|| black_box(run(black_box(bytes))))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, pass_on);
criterion_main!(benches);
