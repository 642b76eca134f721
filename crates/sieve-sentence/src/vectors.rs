//! The vectors of texts already read, so each tool is read once per
//! machine rather than once per start: by a hash of the model's name and
//! the text, in memory and as bytes for a cache file.

use crate::{DIMENSIONS, MODEL_NAME, Model, ModelError};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A text's key: the SHA-256 of the model's name and the text.
pub type Key = [u8; 32];

/// A sentence's vector, shared.
pub type Vector = Arc<[f32]>;

/// What a cache file starts with; a file that does not is not read.
const MAGIC: &[u8; 16] = b"sieve-vectors-1\n";
const RECORD: usize = 32 + DIMENSIONS * 4;

/// Vectors by their text's key.
#[derive(Debug, Default)]
pub struct Vectors {
    known: Mutex<HashMap<Key, Vector>>,
}

impl Vectors {
    /// The key of `text`.
    pub fn key(text: &str) -> Key {
        let mut hash = Sha256::new();
        hash.update(MODEL_NAME.as_bytes());
        hash.update([0]);
        hash.update(text.as_bytes());
        hash.finalize().into()
    }

    /// How many vectors are known.
    pub fn len(&self) -> usize {
        self.known.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The vector of each text when every one is known.
    pub fn all_of(&self, texts: &[&str]) -> Option<Vec<Vector>> {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        texts
            .iter()
            .map(|text| known.get(&Vectors::key(text)).cloned())
            .collect()
    }

    /// The vector of each text, reading with `model` those not known yet
    /// (and keeping them); the second value counts the texts read.
    pub fn encode(
        &self,
        model: &Model,
        texts: &[&str],
    ) -> Result<(Vec<Vector>, usize), ModelError> {
        let keys: Vec<Key> = texts.iter().map(|t| Vectors::key(t)).collect();
        let missing: Vec<(Key, &str)> = {
            let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
            let mut seen = std::collections::HashSet::new();
            keys.iter()
                .zip(texts)
                .filter(|(key, _)| !known.contains_key(*key) && seen.insert(**key))
                .map(|(key, text)| (*key, *text))
                .collect()
        };
        if !missing.is_empty() {
            let read = model.encode(&missing.iter().map(|(_, t)| *t).collect::<Vec<_>>())?;
            let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
            for ((key, _), vector) in missing.iter().zip(read) {
                known.insert(*key, vector.into());
            }
        }
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        Ok((
            keys.iter().map(|k| known[k].clone()).collect(),
            missing.len(),
        ))
    }

    /// Every known vector as bytes: [`MAGIC`], then per vector its key
    /// and its numbers (little-endian `f32`), in key order.
    pub fn to_bytes(&self) -> Vec<u8> {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let mut keys: Vec<&Key> = known.keys().collect();
        keys.sort();
        let mut bytes = Vec::with_capacity(MAGIC.len() + keys.len() * RECORD);
        bytes.extend_from_slice(MAGIC);
        for key in keys {
            bytes.extend_from_slice(key);
            for x in known[key].iter() {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        bytes
    }

    /// Adds the vectors `bytes` holds (as [`Vectors::to_bytes`] writes
    /// them) to those known, and says how many it added. Bytes that are
    /// not such a file add none, and a record whose numbers are not a
    /// vector of length 1 is skipped: a damaged cache costs a new read,
    /// never a wrong likeness.
    pub fn add_bytes(&self, bytes: &[u8]) -> usize {
        let Some(records) = bytes.strip_prefix(MAGIC.as_slice()) else {
            return 0;
        };
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let mut added = 0;
        for record in records.chunks_exact(RECORD) {
            let (key, numbers) = record.split_at(32);
            let vector: Vec<f32> = numbers
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let length: f32 = vector.iter().map(|x| x * x).sum();
            let unit = (length - 1.0).abs() < 1e-3;
            if !unit {
                continue;
            }
            let key: Key = key.try_into().expect("32 bytes");
            if known.insert(key, vector.into()).is_none() {
                added += 1;
            }
        }
        added
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: f32) -> Arc<[f32]> {
        let raw: Vec<f32> = (0..DIMENSIONS).map(|i| (i as f32 + seed).sin()).collect();
        let length = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
        raw.iter().map(|x| x / length).collect()
    }

    #[test]
    fn vectors_come_back_from_their_bytes_and_damage_adds_none() {
        let vectors = Vectors::default();
        {
            let mut known = vectors.known.lock().unwrap();
            known.insert(Vectors::key("list issues"), unit(1.0));
            known.insert(Vectors::key("delete a repository"), unit(2.0));
        }
        let bytes = vectors.to_bytes();
        let again = Vectors::default();
        assert_eq!(again.add_bytes(&bytes), 2);
        assert_eq!(again.add_bytes(&bytes), 0, "nothing is added twice");
        let got = again
            .all_of(&["list issues", "delete a repository"])
            .unwrap();
        assert_eq!(&*got[0], &*unit(1.0));
        assert_eq!(&*got[1], &*unit(2.0));
        assert!(again.all_of(&["list issues", "unknown"]).is_none());

        // Not a cache file; a cut record; numbers that are not a unit vector.
        assert_eq!(Vectors::default().add_bytes(b"{\"tools\": []}"), 0);
        assert_eq!(Vectors::default().add_bytes(&bytes[..bytes.len() - 1]), 1);
        let mut damaged = bytes.clone();
        let last = damaged.len() - 8;
        damaged[last..].copy_from_slice(&[0x7f; 8]);
        assert_eq!(Vectors::default().add_bytes(&damaged), 1);
    }
}
