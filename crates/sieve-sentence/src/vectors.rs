//! The vectors of texts already read, so each tool is read once per
//! machine rather than once per start: by a hash of the model's name and
//! the text, in memory and as bytes for a cache file. Each vector keeps
//! the day it was last used; the bytes leave out those unused for
//! [`KEEP_DAYS`], and hold at most [`MOST_KEPT`] (the most recently
//! used), so a cache shared by every proxy of a machine stays the size of
//! the tools in use rather than of every text ever read.

use crate::{DIMENSIONS, MODEL_NAME, Model, ModelError};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A text's key: the SHA-256 of the model's name and the text.
pub type Key = [u8; 32];

/// A sentence's vector, shared.
pub type Vector = Arc<[f32]>;

/// What a cache file starts with; a file that does not is not read.
/// The first form had no day of use; its vectors count as used the day
/// they are read.
const MAGIC: &[u8; 16] = b"sieve-vectors-2\n";
const MAGIC_1: &[u8; 16] = b"sieve-vectors-1\n";
const NUMBERS: usize = DIMENSIONS * 4;
const RECORD: usize = 32 + 4 + NUMBERS;
const RECORD_1: usize = 32 + NUMBERS;

/// Vectors unused for this many days are not written again.
pub const KEEP_DAYS: u32 = 60;

/// The most vectors written (about 31 MB; a tool is about 1.5 KB).
pub const MOST_KEPT: usize = 20_000;

/// Vectors by their text's key.
#[derive(Debug, Default)]
pub struct Vectors {
    known: Mutex<HashMap<Key, Known>>,
}

/// A vector and the day it was last used (days since 1970).
#[derive(Debug, Clone)]
struct Known {
    vector: Vector,
    used: u32,
}

/// Today, in days since 1970.
fn today() -> u32 {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    u32::try_from(seconds / 86_400).unwrap_or(u32::MAX)
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

    /// The vector of each text when every one is known (each then used
    /// today).
    pub fn all_of(&self, texts: &[&str]) -> Option<Vec<Vector>> {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let keys: Vec<Key> = texts.iter().map(|text| Vectors::key(text)).collect();
        if !keys.iter().all(|key| known.contains_key(key)) {
            return None;
        }
        Some(used(&mut known, &keys, today()))
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
        let today = today();
        if !missing.is_empty() {
            let read = model.encode(&missing.iter().map(|(_, t)| *t).collect::<Vec<_>>())?;
            let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
            for ((key, _), vector) in missing.iter().zip(read) {
                let vector = vector.into();
                known.insert(
                    *key,
                    Known {
                        vector,
                        used: today,
                    },
                );
            }
        }
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        Ok((used(&mut known, &keys, today), missing.len()))
    }

    /// The vectors worth keeping as bytes: [`MAGIC`], then per vector its
    /// key, its day of use (little-endian `u32`) and its numbers
    /// (little-endian `f32`), in key order. Those unused for
    /// [`KEEP_DAYS`] are left out, and past [`MOST_KEPT`] the least
    /// recently used.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_on(today(), MOST_KEPT)
    }

    fn to_bytes_on(&self, today: u32, most: usize) -> Vec<u8> {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let since = today.saturating_sub(KEEP_DAYS);
        let mut kept: Vec<(&Key, &Known)> = known.iter().filter(|(_, k)| k.used >= since).collect();
        if kept.len() > most {
            kept.sort_by(|a, b| b.1.used.cmp(&a.1.used).then(a.0.cmp(b.0)));
            kept.truncate(most);
        }
        kept.sort_by_key(|(key, _)| *key);
        let mut bytes = Vec::with_capacity(MAGIC.len() + kept.len() * RECORD);
        bytes.extend_from_slice(MAGIC);
        for (key, known) in kept {
            bytes.extend_from_slice(key);
            bytes.extend_from_slice(&known.used.to_le_bytes());
            for x in known.vector.iter() {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        bytes
    }

    /// Adds the vectors `bytes` holds (as [`Vectors::to_bytes`] writes
    /// them, or the first form) to those known, each with the later of
    /// its two days of use, and says how many it added. Bytes that are
    /// not such a file add none, and a record whose numbers are not a
    /// vector of length 1 is skipped: a damaged cache costs a new read,
    /// never a wrong likeness.
    pub fn add_bytes(&self, bytes: &[u8]) -> usize {
        let (records, size) = if let Some(records) = bytes.strip_prefix(MAGIC.as_slice()) {
            (records, RECORD)
        } else if let Some(records) = bytes.strip_prefix(MAGIC_1.as_slice()) {
            (records, RECORD_1)
        } else {
            return 0;
        };
        let today = today();
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let mut added = 0;
        for record in records.chunks_exact(size) {
            let (key, rest) = record.split_at(32);
            let (used, numbers) = if size == RECORD {
                let (day, numbers) = rest.split_at(4);
                let day = u32::from_le_bytes(day.try_into().expect("4 bytes"));
                (day.min(today), numbers)
            } else {
                (today, rest)
            };
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
            match known.get_mut(&key) {
                Some(k) => k.used = k.used.max(used),
                None => {
                    let vector = vector.into();
                    known.insert(key, Known { vector, used });
                    added += 1;
                }
            }
        }
        added
    }
}

/// The vectors of `keys` (all known), each marked used on `today`.
fn used(known: &mut HashMap<Key, Known>, keys: &[Key], today: u32) -> Vec<Vector> {
    keys.iter()
        .map(|key| {
            let k = known.get_mut(key).expect("known");
            k.used = today;
            k.vector.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: f32) -> Arc<[f32]> {
        let raw: Vec<f32> = (0..DIMENSIONS).map(|i| (i as f32 + seed).sin()).collect();
        let length = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
        raw.iter().map(|x| x / length).collect()
    }

    /// `vectors` with each `(text, seed, day of use)`.
    fn with(vectors: &Vectors, entries: &[(&str, f32, u32)]) {
        let mut known = vectors.known.lock().unwrap();
        for &(text, seed, used) in entries {
            let vector = unit(seed);
            known.insert(Vectors::key(text), Known { vector, used });
        }
    }

    fn used_on(vectors: &Vectors, text: &str) -> u32 {
        vectors.known.lock().unwrap()[&Vectors::key(text)].used
    }

    #[test]
    fn vectors_come_back_from_their_bytes_and_damage_adds_none() {
        let vectors = Vectors::default();
        let day = today();
        with(
            &vectors,
            &[("list issues", 1.0, day), ("delete a repository", 2.0, day)],
        );
        let bytes = vectors.to_bytes();
        assert_eq!(bytes.len(), MAGIC.len() + 2 * RECORD);
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

    #[test]
    fn the_bytes_keep_what_was_used_lately_and_no_more_than_the_most() {
        let vectors = Vectors::default();
        let day = 20_000;
        with(
            &vectors,
            &[
                ("today", 1.0, day),
                ("last month", 2.0, day - 30),
                ("at the edge", 3.0, day - KEEP_DAYS),
                ("long ago", 4.0, day - KEEP_DAYS - 1),
            ],
        );
        let kept = Vectors::default();
        assert_eq!(kept.add_bytes(&vectors.to_bytes_on(day, MOST_KEPT)), 3);
        assert!(kept.all_of(&["long ago"]).is_none(), "unused too long");
        assert!(
            kept.all_of(&["today", "last month", "at the edge"])
                .is_some()
        );

        // Past the most, the least recently used go first.
        let two = Vectors::default();
        assert_eq!(two.add_bytes(&vectors.to_bytes_on(day, 2)), 2);
        assert!(two.all_of(&["today", "last month"]).is_some());
        assert!(two.all_of(&["at the edge"]).is_none());
    }

    #[test]
    fn a_vector_used_is_kept_from_that_day_and_a_merge_keeps_the_later_day() {
        let vectors = Vectors::default();
        let day = today();
        with(&vectors, &[("old", 1.0, day - KEEP_DAYS - 5)]);
        assert!(vectors.all_of(&["old"]).is_some());
        assert_eq!(used_on(&vectors, "old"), day, "used today");

        // Another proxy's file says it was used long ago: today stays.
        let elsewhere = Vectors::default();
        with(
            &elsewhere,
            &[("old", 1.0, day - 10), ("other", 2.0, day - 3)],
        );
        let bytes = elsewhere.to_bytes();
        assert_eq!(vectors.add_bytes(&bytes), 1);
        assert_eq!(used_on(&vectors, "old"), day);
        assert_eq!(used_on(&vectors, "other"), day - 3);
    }

    #[test]
    fn a_cache_of_the_first_form_is_read_as_used_today() {
        let mut bytes = MAGIC_1.to_vec();
        bytes.extend_from_slice(&Vectors::key("list issues"));
        for x in unit(1.0).iter() {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        let vectors = Vectors::default();
        assert_eq!(vectors.add_bytes(&bytes), 1);
        assert_eq!(used_on(&vectors, "list issues"), today());
        assert!(
            vectors.to_bytes().starts_with(MAGIC),
            "written in the new form"
        );
    }
}
