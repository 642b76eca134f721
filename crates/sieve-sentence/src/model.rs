//! all-MiniLM-L6-v2 on the CPU: found, loaded while held, and run over
//! texts in batches.

use crate::DIMENSIONS;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use tokenizers::{Tokenizer, TruncationParams};

/// The model's name, as the folders it is looked for in end.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// The files a model folder holds.
const FILES: [&str; 3] = ["model.safetensors", "config.json", "tokenizer.json"];

/// A text is read up to this many word pieces (the length the model was
/// trained on); a tool's name, title and first sentences come first.
const MAX_PIECES: usize = 128;

/// Texts run through the model together, of similar length so little of
/// a batch is padding.
const BATCH: usize = 16;

/// Why the model cannot be used; the search then ranks by words alone.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(
        "the sentence model was not found ({looked}); the tool search ranks by words alone until it is there: install MCP Sieve's package, which carries it, run scripts/model-deps.sh in a clone of MCP Sieve, or set MCP_SIEVE_MODEL to the folder that holds {MODEL_NAME}'s model.safetensors, config.json and tokenizer.json"
    )]
    Missing { looked: String },
    #[error(
        "{path} could not be read as the sentence model ({reason}); fetch it again with scripts/model-deps.sh"
    )]
    Unreadable { path: PathBuf, reason: String },
    #[error("the sentence model could not read a text ({0})")]
    Encode(String),
}

/// The folder the model is read from: `MCP_SIEVE_MODEL` when it is set
/// (and then nowhere else), else `share/mcp-sieve/models/all-MiniLM-L6-v2`
/// beside the program's folder (where the `.deb` puts it: /usr/bin and
/// /usr/share), else the user's cache (`~/.cache/mcp-sieve/models/...`,
/// where `scripts/model-deps.sh` puts it).
pub fn locate() -> Result<PathBuf, ModelError> {
    let complete = |folder: &Path| FILES.iter().all(|file| folder.join(file).is_file());
    if let Some(folder) = std::env::var_os("MCP_SIEVE_MODEL") {
        let folder = PathBuf::from(folder);
        return if complete(&folder) {
            Ok(folder)
        } else {
            Err(ModelError::Missing {
                looked: format!("MCP_SIEVE_MODEL names {}", folder.display()),
            })
        };
    }
    let beside_program = std::env::current_exe().ok().and_then(|exe| {
        Some(
            exe.parent()?
                .parent()?
                .join("share/mcp-sieve/models")
                .join(MODEL_NAME),
        )
    });
    let cache = directories::BaseDirs::new()
        .map(|dirs| dirs.cache_dir().join("mcp-sieve/models").join(MODEL_NAME));
    let places: Vec<PathBuf> = beside_program.into_iter().chain(cache).collect();
    places
        .iter()
        .find(|folder| complete(folder))
        .cloned()
        .ok_or_else(|| ModelError::Missing {
            looked: format!(
                "looked in {}",
                places
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        })
}

/// The model, ready to read texts.
pub struct Model {
    tokenizer: Tokenizer,
    bert: BertModel,
    folder: PathBuf,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("folder", &self.folder)
            .finish()
    }
}

/// The one model in memory while anyone holds it.
static SHARED: Mutex<Weak<Model>> = Mutex::new(Weak::new());

impl Model {
    /// The model in memory, loaded from [`locate`]'s folder now if no one
    /// holds it.
    pub fn shared() -> Result<Arc<Model>, ModelError> {
        let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(model) = shared.upgrade() {
            return Ok(model);
        }
        let model = Arc::new(Model::load(&locate()?)?);
        *shared = Arc::downgrade(&model);
        Ok(model)
    }

    /// Whether the model is in memory now (for tests of its lifetime).
    pub fn is_loaded() -> bool {
        SHARED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .strong_count()
            > 0
    }

    /// Reads the model in `folder`; its weights are mapped, not copied.
    pub fn load(folder: &Path) -> Result<Model, ModelError> {
        let unreadable = |file: &str, reason: String| ModelError::Unreadable {
            path: folder.join(file),
            reason,
        };
        let mut tokenizer = Tokenizer::from_file(folder.join("tokenizer.json"))
            .map_err(|e| unreadable("tokenizer.json", e.to_string()))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_PIECES,
                ..TruncationParams::default()
            }))
            .map_err(|e| unreadable("tokenizer.json", e.to_string()))?;
        let config = std::fs::read_to_string(folder.join("config.json"))
            .map_err(|e| unreadable("config.json", e.to_string()))?;
        let config: Config =
            serde_json::from_str(&config).map_err(|e| unreadable("config.json", e.to_string()))?;
        if config.hidden_size != DIMENSIONS {
            return Err(unreadable(
                "config.json",
                format!(
                    "its vectors have {} numbers, not {DIMENSIONS}",
                    config.hidden_size
                ),
            ));
        }
        let weights = folder.join("model.safetensors");
        // SAFETY: the file is mapped read-only; it is the model's own
        // file, which nothing of ours writes while it is mapped.
        let bert =
            unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DType::F32, &Device::Cpu) }
                .and_then(|vb| BertModel::load(vb, &config))
                .map_err(|e| unreadable("model.safetensors", e.to_string()))?;
        Ok(Model {
            tokenizer,
            bert,
            folder: folder.to_path_buf(),
        })
    }

    /// The folder the model was read from.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Each text's vector, in order: the mean of the last layer over its
    /// word pieces, of length 1. Texts are run in batches of similar
    /// length.
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| ModelError::Encode(e.to_string()))?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut vectors = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let pieces: Vec<&[u32]> = batch.iter().map(|&i| encodings[i].get_ids()).collect();
            let out = self
                .run(&pieces)
                .map_err(|e| ModelError::Encode(e.to_string()))?;
            for (&i, vector) in batch.iter().zip(out) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }

    /// One batch through the model, padded to its longest.
    fn run(&self, pieces: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let length = pieces.iter().map(|p| p.len()).max().unwrap_or(0);
        let (mut ids, mut mask) = (
            Vec::with_capacity(pieces.len() * length),
            Vec::with_capacity(pieces.len() * length),
        );
        for p in pieces {
            let padding = length - p.len();
            ids.extend(p.iter().copied().chain(std::iter::repeat_n(0, padding)));
            mask.extend(std::iter::repeat_n(1u32, p.len()).chain(std::iter::repeat_n(0, padding)));
        }
        let shape = (pieces.len(), length);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu)?;
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu)?;
        let last = self.bert.forward(&ids, &ids.zeros_like()?, Some(&mask))?;
        let weights = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let pooled = last
            .broadcast_mul(&weights)?
            .sum(1)?
            .broadcast_div(&weights.sum(1)?)?;
        let norm = pooled.sqr()?.sum_keepdim(1)?.sqrt()?;
        pooled.broadcast_div(&norm)?.to_vec2()
    }
}
