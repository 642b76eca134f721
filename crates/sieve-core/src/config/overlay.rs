//! Overlays: labels, a title and a description the user adds to every
//! primitive whose exposed name matches a glob.

use crate::glob::{GlobError, compile_glob, glob_reason};
use globset::{GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Labels added to every primitive whose exposed name matches `match`,
/// and the title and description the host sees instead of the upstream's
/// (DESIGN §9: shorter descriptions save tokens).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Overlay {
    #[serde(rename = "match")]
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub concerns: BTreeMap<String, String>,
    /// Groups taken away (the server's, derived ones, an earlier
    /// overlay's): how a person moves a tool out of a group.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_groups: Vec<String>,
    /// Tags taken away.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_tags: Vec<String>,
    /// Concerns whose value is cleared (the primitive then matches every
    /// value of them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_concerns: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Overlay {
    /// Whether it says nothing about what it matches: no label added or
    /// taken away, no text replaced.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
            && self.tags.is_empty()
            && self.concerns.is_empty()
            && self.remove_groups.is_empty()
            && self.remove_tags.is_empty()
            && self.remove_concerns.is_empty()
            && self.title.is_none()
            && self.description.is_none()
    }
}

/// An overlay whose pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OverlayError {
    /// The pattern does not parse.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// The pattern parses but is too large to compile (globset's size
    /// limits).
    #[error("overlay pattern {pattern:?} cannot be compiled: {reason}")]
    TooLarge { pattern: String, reason: String },
}

/// Overlays compiled for matching exposed names.
#[derive(Debug, Clone, Default)]
pub struct Overlays {
    compiled: Vec<(GlobSet, Overlay)>,
}

impl Overlays {
    /// Compiles the overlays of a validated config. A pattern that parses
    /// can still be too large to compile (globset's size limits); that is
    /// an error naming it, never a panic (`Glob::compile_matcher` panics).
    pub fn new(overlays: &[Overlay]) -> Result<Overlays, OverlayError> {
        let compiled = overlays
            .iter()
            .map(|o| {
                let set = GlobSetBuilder::new()
                    .add(compile_glob(&o.pattern)?)
                    .build()
                    .map_err(|e| OverlayError::TooLarge {
                        pattern: o.pattern.clone(),
                        reason: glob_reason(&e),
                    })?;
                Ok((set, o.clone()))
            })
            .collect::<Result<_, OverlayError>>()?;
        Ok(Overlays { compiled })
    }

    /// The overlays that apply to `exposed_name`, in file order.
    pub fn matching<'a>(&'a self, exposed_name: &'a str) -> impl Iterator<Item = &'a Overlay> {
        self.compiled
            .iter()
            .filter(move |(m, _)| m.is_match(exposed_name))
            .map(|(_, o)| o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overlay_too_large_to_compile_is_an_error_not_a_panic() {
        // Parses as a glob, but its automaton exceeds globset's size limit.
        let pattern = format!("*{}x*", "*?".repeat(60_000));
        let overlay = Overlay {
            pattern: pattern.clone(),
            groups: vec!["g".into()],
            tags: Vec::new(),
            concerns: BTreeMap::new(),
            ..Overlay::default()
        };
        assert!(compile_glob(&pattern).is_ok(), "the pattern itself parses");
        let error = Overlays::new(&[overlay]).expect_err("too large to compile");
        assert!(matches!(error, OverlayError::TooLarge { .. }), "{error}");
        assert!(error.to_string().contains("cannot be compiled"), "{error}");
    }
}
