//! The globs a person writes on exposed names: an overlay's `match`, a
//! profile's `allow`, `deny` and `pinned`. Compiled here so that every
//! error names the pattern and says what is wrong with it.

use globset::Glob;

/// Compiles one user glob, with a message that names the pattern.
pub fn compile_glob(pattern: &str) -> Result<Glob, String> {
    Glob::new(pattern).map_err(|e| format!("invalid glob {pattern:?}: {}", glob_reason(&e)))
}

pub(crate) fn glob_reason(err: &globset::Error) -> String {
    // globset's Display repeats the pattern; its kind alone is the reason.
    err.kind().to_string()
}
