//! The model as the search runs it, against the numpy pass of
//! `scripts/minilm.py` (written apart from candle: its own tokenizer and
//! layers), and its lifetime. The model comes from scripts/model-deps.sh,
//! which ./test.sh runs; without it these fail, saying so.

use sieve_sentence::{DIMENSIONS, Model, likeness};

const TOKYO: &str = "pretend I'm in Tokyo";
const LOCATION: &str = "set sim location. Sets a custom GPS location for the simulator";
const DELETE: &str = "delete a repository";

#[test]
fn vectors_match_an_independent_pass_and_the_model_lives_while_held() {
    assert!(!Model::is_loaded(), "nothing holds the model yet");
    let model = Model::shared().unwrap_or_else(|e| panic!("{e}"));
    assert!(Model::is_loaded());
    let vectors = model.encode(&[TOKYO, LOCATION, DELETE]).unwrap();
    for v in &vectors {
        assert_eq!(v.len(), DIMENSIONS);
        let length: f32 = v.iter().map(|x| x * x).sum();
        assert!((length - 1.0).abs() < 1e-4, "length {length}");
    }
    // scripts/minilm.py's first six numbers of each (GELU in its tanh
    // form there, exact here: within 1e-3 of each other).
    let numpy = [
        [0.04638, -0.03749, 0.06545, 0.00622, 0.02325, -0.04938],
        [0.01646, -0.01068, -0.04649, -0.07312, -0.07399, 0.00303],
        [-0.06856, -0.01064, -0.04594, -0.0408, -0.02361, -0.04915],
    ];
    for (v, expected) in vectors.iter().zip(numpy) {
        for (x, y) in v.iter().zip(expected) {
            assert!((x - y).abs() < 2e-3, "{:?} against {expected:?}", &v[..6]);
        }
    }
    // numpy: 0.203 and 0.037.
    assert!((likeness(&vectors[0], &vectors[1]) - 0.203).abs() < 5e-3);
    assert!((likeness(&vectors[0], &vectors[2]) - 0.037).abs() < 5e-3);
    // The same text alone or in a batch of others reads the same.
    let alone = model.encode(&[DELETE]).unwrap();
    assert!(likeness(&alone[0], &vectors[2]) > 0.9999);

    let again = Model::shared().unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&model, &again),
        "one model while held"
    );
    drop((model, again));
    assert!(!Model::is_loaded(), "dropped with its last holder");
}
