//! References to secrets in `config.json` (DESIGN §10): an `env` or
//! `headers` value may hold `${secret:NAME}`, alone or inside other text
//! (`"Bearer ${secret:github-token}"`); the proxy puts the secret in its
//! place when it starts or connects to the server, so the file never holds
//! the value. A `$` not followed by `{secret:` is text like any other.

/// What opens a reference.
const OPEN: &str = "${secret:";

/// The name a reference to `name` is written with.
pub fn reference(name: &str) -> String {
    format!("{OPEN}{name}}}")
}

/// Whether `name` can name a secret: 1-200 characters, letters, digits
/// and `-_./@`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@".contains(c))
}

/// A `${secret:...}` reference that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecretRefError {
    /// A `${secret:` with no `}` after it.
    #[error("a \"${{secret:\" is not closed with \"}}\"")]
    Unclosed,
    /// What the reference names cannot name a secret.
    #[error("{name:?} cannot name a secret; use letters, digits and -_./@")]
    BadName { name: String },
}

/// The secret names `value` refers to, in order; an error for a reference
/// that is not closed or names nothing valid.
pub fn references(value: &str) -> Result<Vec<&str>, SecretRefError> {
    let mut names = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let Some(end) = after.find('}') else {
            return Err(SecretRefError::Unclosed);
        };
        let name = &after[..end];
        if !is_valid_name(name) {
            return Err(SecretRefError::BadName {
                name: name.to_string(),
            });
        }
        names.push(name);
        rest = &after[end + 1..];
    }
    Ok(names)
}

/// `value` with every reference replaced by `lookup(name)`; the first
/// lookup error stops it.
pub fn substitute<E>(
    value: &str,
    mut lookup: impl FnMut(&str) -> Result<String, E>,
) -> Result<String, SubstituteError<E>> {
    let names = references(value).map_err(SubstituteError::Malformed)?;
    if names.is_empty() {
        return Ok(value.to_string());
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    for name in names {
        let start = rest.find(OPEN).expect("found above");
        out.push_str(&rest[..start]);
        out.push_str(&lookup(name).map_err(SubstituteError::Lookup)?);
        rest = &rest[start + OPEN.len() + name.len() + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Why a value could not be completed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SubstituteError<E> {
    /// A reference is not well formed.
    #[error(transparent)]
    Malformed(SecretRefError),
    /// The lookup failed.
    #[error("{0}")]
    Lookup(E),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Result<String, String> {
        match name {
            "gh" => Ok("tok".into()),
            other => Err(other.to_string()),
        }
    }

    #[test]
    fn references_are_replaced_wherever_they_are() {
        assert_eq!(
            substitute("plain $HOME {x}", lookup).unwrap(),
            "plain $HOME {x}"
        );
        assert_eq!(substitute("${secret:gh}", lookup).unwrap(), "tok");
        assert_eq!(
            substitute("Bearer ${secret:gh}; again ${secret:gh}.", lookup).unwrap(),
            "Bearer tok; again tok."
        );
        assert_eq!(reference("gh"), "${secret:gh}");
        assert_eq!(references("a ${secret:x/env/K} b").unwrap(), ["x/env/K"]);
    }

    #[test]
    fn a_bad_reference_or_a_missing_secret_is_an_error() {
        assert_eq!(
            substitute("${secret:nope}", lookup),
            Err(SubstituteError::Lookup("nope".to_string()))
        );
        assert_eq!(
            substitute("${secret:gh", lookup),
            Err(SubstituteError::Malformed(SecretRefError::Unclosed))
        );
        let Err(error) = substitute("${secret:a b}", lookup) else {
            panic!("a name with a space is refused");
        };
        assert!(matches!(
            error,
            SubstituteError::Malformed(SecretRefError::BadName { .. })
        ));
        assert_eq!(
            error.to_string(),
            "\"a b\" cannot name a secret; use letters, digits and -_./@"
        );
        assert_eq!(
            SecretRefError::Unclosed.to_string(),
            "a \"${secret:\" is not closed with \"}\""
        );
    }
}
