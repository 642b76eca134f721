//! The globs a person writes on exposed names: an overlay's `match`, a
//! profile's `allow`, `deny` and `pinned`. Compiled here so that every
//! error names the pattern and says what is wrong with it.

use globset::Glob;

/// A glob, or a set of them, that cannot be used; globset's reason in its
/// own words (without the type names).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GlobError {
    /// The pattern does not parse.
    #[error("invalid glob {pattern:?}: {reason}")]
    Invalid { pattern: String, reason: String },
    /// Patterns that parse but are too large to compile together
    /// (globset's size limits).
    #[error("{reason}")]
    TooLarge { reason: String },
}

/// Compiles one user glob, with a message that names the pattern.
pub fn compile_glob(pattern: &str) -> Result<Glob, GlobError> {
    Glob::new(pattern).map_err(|e| GlobError::Invalid {
        pattern: pattern.to_string(),
        reason: glob_reason(&e),
    })
}

/// The error of a set of globs that does not compile (each parsed).
pub(crate) fn too_large(err: &globset::Error) -> GlobError {
    GlobError::TooLarge {
        reason: glob_reason(err),
    }
}

pub(crate) fn glob_reason(err: &globset::Error) -> String {
    // globset's Display repeats the pattern; its kind alone is the reason.
    err.kind().to_string()
}
