//! The scanner measured (issue 35): recall on poisoned tools, overall and
//! per attack, on the part the rules were tuned on and on the held-out
//! part (written before any rule and never tuned on); false positives on
//! honest tools that look suspicious and on real servers' tool lists.
//! Figures are printed (`cargo test -p sieve-core --test scan_corpus --
//! --nocapture`) and copied into docs/reliability.md.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};
use sieve_core::scan::{Finding, Scanned, ServerTools, scan_servers};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read(path: PathBuf) -> Value {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The findings of one corpus case: its tool scanned as server `suspect`
/// beside its neighbours' tools.
fn scan_case(case: &Value) -> Vec<Finding> {
    let neighbours: Vec<(String, Vec<Value>)> = case
        .get("neighbours")
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(server, names)| {
                    let tools = names
                        .as_array()
                        .expect("neighbours are lists of names")
                        .iter()
                        .map(|n| json!({"name": n, "description": "A tool.", "inputSchema": {"type": "object"}}))
                        .collect();
                    (server.clone(), tools)
                })
                .collect()
        })
        .unwrap_or_default();
    let suspect = [case["tool"].clone()];
    let mut servers = vec![ServerTools::of("suspect", &suspect)];
    servers.extend(
        neighbours
            .iter()
            .map(|(server, tools)| ServerTools::of(server, tools)),
    );
    scan_servers(&servers)
        .into_iter()
        .find(|s| s.server == "suspect")
        .expect("the suspect tool was scanned")
        .findings
}

struct Recall {
    overall: (usize, usize),
    per_attack: BTreeMap<String, (usize, usize)>,
    missed: Vec<String>,
}

/// A case is caught when a finding of one of its kinds is found.
fn recall(file: &str) -> Recall {
    let corpus = read(dir().join("scan").join(file));
    let mut r = Recall {
        overall: (0, 0),
        per_attack: BTreeMap::new(),
        missed: Vec::new(),
    };
    for case in corpus["cases"].as_array().expect("cases") {
        let kinds: Vec<&str> = case["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let findings = scan_case(case);
        let caught = findings.iter().any(|f| kinds.contains(&f.kind.as_str()));
        let entry = r
            .per_attack
            .entry(case["attack"].as_str().unwrap().to_string())
            .or_default();
        entry.1 += 1;
        r.overall.1 += 1;
        if caught {
            entry.0 += 1;
            r.overall.0 += 1;
        } else {
            let got: Vec<&str> = findings.iter().map(|f| f.kind.as_str()).collect();
            r.missed
                .push(format!("{} (found {got:?})", case["id"].as_str().unwrap()));
        }
    }
    r
}

fn ratio((hit, all): (usize, usize)) -> f64 {
    hit as f64 / all.max(1) as f64
}

fn print_recall(name: &str, r: &Recall) {
    println!(
        "{name}: recall {}/{} = {:.3}",
        r.overall.0,
        r.overall.1,
        ratio(r.overall)
    );
    for (attack, counts) in &r.per_attack {
        println!(
            "  {attack:<26} {}/{} = {:.2}",
            counts.0,
            counts.1,
            ratio(*counts)
        );
    }
    for m in &r.missed {
        println!("  missed {m}");
    }
}

/// Real servers' tool lists: the shared catalogs and the published ones.
fn real_servers() -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    let catalogs = dir().join("../../../../tests/fixtures/catalogs");
    let published = dir().join("published");
    for folder in [catalogs, published] {
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.ends_with("manifest.json"))
            .collect();
        files.sort();
        for path in files {
            let value = read(path.clone());
            let tools = match value {
                Value::Array(tools) => tools,
                Value::Object(mut map) => match map.remove("tools") {
                    Some(Value::Array(tools)) => tools,
                    _ => continue,
                },
                _ => continue,
            };
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let folder = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((format!("{folder}/{name}"), tools));
        }
    }
    out
}

fn flagged(scanned: &[Scanned]) -> Vec<&Scanned> {
    scanned.iter().filter(|s| !s.findings.is_empty()).collect()
}

#[test]
fn the_scanner_meets_the_bars_on_the_corpus_and_real_servers() {
    let tuned = recall("tuned.json");
    let held_out = recall("held-out.json");
    print_recall("tuned", &tuned);
    print_recall("held-out", &held_out);

    let honest = read(dir().join("scan/honest-tricky.json"));
    let honest_cases = honest["cases"].as_array().unwrap();
    let mut honest_flagged = Vec::new();
    for case in honest_cases {
        let findings = scan_case(case);
        if !findings.is_empty() {
            honest_flagged.push(format!("{}: {findings:?}", case["id"].as_str().unwrap()));
        }
    }
    let honest_rate = honest_flagged.len() as f64 / honest_cases.len() as f64;
    println!(
        "honest-tricky: {}/{} flagged = {:.3}",
        honest_flagged.len(),
        honest_cases.len(),
        honest_rate
    );
    for f in &honest_flagged {
        println!("  flagged {f}");
    }

    let real = real_servers();
    let servers: Vec<ServerTools> = real
        .iter()
        .map(|(server, tools)| ServerTools::of(server, tools))
        .collect();
    let started = std::time::Instant::now();
    let scanned = scan_servers(&servers);
    // A figure, not a bar: debug builds are many times slower than release.
    println!(
        "scanned {} real tools in {:?} (this build's profile)",
        scanned.len(),
        started.elapsed()
    );
    let real_flagged = flagged(&scanned);
    let real_rate = real_flagged.len() as f64 / scanned.len() as f64;
    println!(
        "real servers: {} servers, {}/{} tools flagged = {:.4}",
        real.len(),
        real_flagged.len(),
        scanned.len(),
        real_rate
    );
    for s in &real_flagged {
        for f in &s.findings {
            println!(
                "  flagged {}/{}: {} {} ({}): {}",
                s.server,
                s.name,
                f.kind.as_str(),
                f.says,
                f.field,
                f.excerpt
            );
        }
    }
    for (server, tools) in &real {
        let n = scanned
            .iter()
            .filter(|s| &s.server == server && !s.findings.is_empty())
            .count();
        println!("  {server:<45} {n}/{}", tools.len());
    }

    assert!(
        ratio(held_out.overall) >= 0.9,
        "held-out recall {:.3} is under 0.9",
        ratio(held_out.overall)
    );
    for (attack, counts) in &held_out.per_attack {
        assert!(
            ratio(*counts) >= 0.7,
            "held-out recall for {attack} is {:.2}, under 0.7",
            ratio(*counts)
        );
    }
    assert!(
        honest_rate <= 0.10,
        "{:.3} of the honest tricky tools are flagged, over 0.10",
        honest_rate
    );
    assert!(
        real_rate <= 0.01,
        "{:.4} of real servers' tools are flagged, over 0.01",
        real_rate
    );
}
