//! The search of each profile in search mode (DESIGN §9): ranked by
//! words at once, and blended with the sentence model's likeness once
//! the model has read every tool the profile lets be called (issue 34).
//!
//! The model is loaded when a search is first built and dropped with the
//! last search that holds it: a proxy that serves no search profile never
//! reads it. Reading a tool takes about 30 ms of CPU, so the tools are
//! read on a thread of their own, each once per machine: their vectors
//! are kept in `sentence-vectors.bin` in the data folder and shared by
//! every proxy. A query is read on tokio's blocking threads (about 15 ms).
//! Without the model (not fetched, unreadable) the search ranks by words
//! alone and the proxy says why once.

use super::ActiveProfile;
use sieve_core::Catalog;
use sieve_core::search::{Blended, ToolIndex};
use sieve_sentence::{Model, Vector, Vectors, likeness};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A profile's search, with the catalog and profile it was built from.
type Built = (Arc<Catalog>, Arc<ActiveProfile>, Arc<Search>);

/// The searches of the profiles in use, and what they share.
pub(crate) struct Searches {
    /// Per profile, by name.
    built: Mutex<HashMap<String, Built>>,
    shared: Arc<Shared>,
}

/// What every search of a proxy shares: the vectors read so far and the
/// file that keeps them.
struct Shared {
    vectors: Vectors,
    file: PathBuf,
    /// Set once the cache file was read into `vectors` (a second reader
    /// waits for the first).
    cache_read: OnceLock<()>,
    /// Whether the proxy said the model cannot be used.
    said_missing: AtomicBool,
}

/// How a search ranked, as its answer's `_meta` says
/// (`dev.mcp-sieve/ranking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ranking {
    /// By words alone: the model is not there, or has not read the tools
    /// yet.
    Words,
    /// By words and the sentence model's likeness.
    WordsAndMeaning,
}

impl Ranking {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Ranking::Words => "words",
            Ranking::WordsAndMeaning => "words and meaning",
        }
    }
}

/// One profile's search over the tools it lets be called.
pub(crate) struct Search {
    index: ToolIndex,
    /// The model and each tool's vector, in index order, once read.
    meaning: OnceLock<(Arc<Model>, Vec<Vector>)>,
}

impl Searches {
    /// Searches whose tools' vectors are kept in `file`.
    pub(crate) fn new(file: PathBuf) -> Searches {
        Searches {
            built: Mutex::new(HashMap::new()),
            shared: Arc::new(Shared {
                vectors: Vectors::default(),
                file,
                cache_read: OnceLock::new(),
                said_missing: AtomicBool::new(false),
            }),
        }
    }

    /// The search of `profile` over `catalog`, built by `build` the first
    /// time and again only when either is replaced; a new one starts
    /// the model reading its tools.
    pub(crate) fn of(
        &self,
        catalog: &Arc<Catalog>,
        profile: &Arc<ActiveProfile>,
        build: impl FnOnce() -> ToolIndex,
    ) -> Arc<Search> {
        if let Some((on, profile_of, search)) = self
            .built
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&profile.name)
            && Arc::ptr_eq(on, catalog)
            && Arc::ptr_eq(profile_of, profile)
        {
            return search.clone();
        }
        // Built without the lock: other profiles' searches do not wait.
        let search = Arc::new(Search {
            index: build(),
            meaning: OnceLock::new(),
        });
        self.built.lock().unwrap_or_else(|e| e.into_inner()).insert(
            profile.name.clone(),
            (catalog.clone(), profile.clone(), search.clone()),
        );
        self.read_tools(&search);
        search
    }

    /// A search of `index` for one connection alone (its concerns narrow
    /// what it may call), read as [`Searches::of`]'s are.
    pub(crate) fn own(&self, index: ToolIndex) -> Arc<Search> {
        let search = Arc::new(Search {
            index,
            meaning: OnceLock::new(),
        });
        self.read_tools(&search);
        search
    }

    /// Forgets the search of profile `name` (it changed, or left search
    /// mode): the model goes with the last search that holds it.
    pub(crate) fn forget(&self, name: &str) {
        self.built
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name);
    }

    /// Gives `search` its tools' vectors: at once when the model is in
    /// memory and has read each before (a connection's own search is
    /// built for each query), else after the model reads the rest on a
    /// thread of its own.
    fn read_tools(&self, search: &Arc<Search>) {
        if Model::is_loaded()
            && let Some(vectors) = self.shared.vectors.all_of(&search.index.sentences())
            && let Ok(model) = Model::shared()
        {
            let _ = search.meaning.set((model, vectors));
            return;
        }
        let shared = self.shared.clone();
        let weak = Arc::downgrade(search);
        let spawned = std::thread::Builder::new()
            .name("sieve-sentences".into())
            .spawn(move || {
                let Some(search) = weak.upgrade() else { return };
                if let Err(error) = shared.read(&search)
                    && !shared.said_missing.swap(true, Ordering::Relaxed)
                {
                    tracing::warn!("{error}");
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(
                "the tool search ranks by words alone: no thread could read the tools ({error})"
            );
        }
    }
}

impl Shared {
    fn read(&self, search: &Search) -> Result<(), sieve_sentence::ModelError> {
        self.cache_read.get_or_init(|| {
            // A cache that cannot be read is read again by the model.
            if let Ok(bytes) = std::fs::read(&self.file) {
                self.vectors.add_bytes(&bytes);
            }
        });
        let model = Model::shared()?;
        let sentences = search.index.sentences();
        let (vectors, read) = self.vectors.encode(&model, &sentences)?;
        let _ = search.meaning.set((model, vectors));
        if read > 0 {
            tracing::info!(tools = read, "the sentence model read the tools new to it");
            if let Err(error) = keep(&self.file, &self.vectors) {
                tracing::warn!(
                    "{error}; the tools' sentence vectors are read again on the next start"
                );
            }
        }
        Ok(())
    }
}

/// Writes every vector known, with those another proxy kept since, to
/// `file` (under its lock, atomically).
fn keep(file: &Path, vectors: &Vectors) -> Result<(), sieve_store::store::StoreError> {
    use sieve_store::store::{atomic_write, backup_path, lock_file, lock_path};
    let _lock = lock_file(&lock_path(file))?;
    if let Ok(bytes) = std::fs::read(file) {
        vectors.add_bytes(&bytes);
    }
    atomic_write(file, &vectors.to_bytes())?;
    // A cache needs no backup.
    let _ = std::fs::remove_file(backup_path(file));
    Ok(())
}

impl Search {
    /// The best `limit` tools for `query` (keys of the index), blended
    /// with the model's likeness once it read the tools, by words until
    /// then; and the ranking used ([`Ranking`]).
    pub(crate) async fn find(self: &Arc<Self>, query: &str, limit: usize) -> (Blended, Ranking) {
        let by_words = || {
            let keys = self.index.search(query, limit);
            let close = !keys.is_empty();
            Blended { keys, close }
        };
        if self.meaning.get().is_none() {
            return (by_words(), Ranking::Words);
        }
        let search = self.clone();
        let text = query.to_string();
        let blended = tokio::task::spawn_blocking(move || {
            let (model, tools) = search.meaning.get()?;
            let read = sieve_core::search::as_the_model_reads(&text);
            let query = model.encode(&[&read]).ok()?.pop()?;
            let alike: Vec<f32> = tools.iter().map(|t| likeness(t, &query)).collect();
            Some(search.index.blended(&text, limit, &alike))
        })
        .await;
        match blended.ok().flatten() {
            Some(blended) => (blended, Ranking::WordsAndMeaning),
            None => (by_words(), Ranking::Words),
        }
    }
}
