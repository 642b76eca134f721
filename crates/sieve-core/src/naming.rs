//! Exposed names and URIs: how an upstream primitive is addressed by the
//! host; and profile names, which address a profile (its file and its HTTP
//! endpoint).
//!
//! The exposed name is `<server><separator><name>`, restricted to
//! `[A-Za-z0-9_.-]` and at most [`MAX_NAME_LEN`] characters, because Claude
//! and Bedrock refuse anything else. The mapping is a pure function of
//! `(server, name, separator)`, so a tool keeps its name across restarts and
//! across the proxy processes of one user.
//!
//! A name is used as is only when doing so is unambiguous: every character is
//! allowed, it fits, and the first separator in it is the one we inserted
//! (so `server` and `name` can be split back apart). Any other name is cut
//! and gets `-` plus a short hash of the original pair, which keeps distinct
//! pairs distinct.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use sha2::{Digest, Sha256};

/// The longest exposed name we hand to a host.
pub const MAX_NAME_LEN: usize = 64;

/// The separator between server and upstream name when the config sets none.
pub const DEFAULT_SEPARATOR: &str = "__";

/// Hex digits of the hash suffix on a rewritten name.
pub const HASH_LEN: usize = 8;

/// Whether `c` may appear in an exposed name.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Whether `separator` can join server and name: non-empty, short, and made
/// only of characters an exposed name may hold.
pub fn is_valid_separator(separator: &str) -> bool {
    !separator.is_empty() && separator.len() <= 4 && separator.chars().all(is_name_char)
}

/// The exposed name of upstream primitive `name` of `server`.
pub fn exposed_name(server: &str, name: &str, separator: &str) -> String {
    exposed_name_with_hash(server, name, separator, HASH_LEN)
}

/// [`exposed_name`] with a chosen hash length; the catalog uses a longer
/// hash in the (astronomically rare) case two rewritten names still collide.
pub fn exposed_name_with_hash(
    server: &str,
    name: &str,
    separator: &str,
    hash_len: usize,
) -> String {
    let joined = format!("{server}{separator}{name}");
    let clean = joined.chars().all(is_name_char);
    let splits_back = joined.find(separator) == Some(server.len());
    if clean && splits_back && joined.len() <= MAX_NAME_LEN {
        return joined;
    }
    let sanitized: String = joined
        .chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .collect();
    let keep = MAX_NAME_LEN - 1 - hash_len;
    // `sanitized` is ASCII, so byte slicing is char slicing.
    let prefix = &sanitized[..sanitized.len().min(keep)];
    format!("{prefix}-{}", short_hash(server, name, hash_len))
}

/// `hash_len` hex digits of SHA-256 over the unambiguous pair encoding.
fn short_hash(server: &str, name: &str, hash_len: usize) -> String {
    let mut hasher = Sha256::new();
    hasher.update((server.len() as u64).to_le_bytes());
    hasher.update(server.as_bytes());
    hasher.update(name.as_bytes());
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex.truncate(hash_len.min(64));
    hex
}

/// The profile every user has; it cannot be deleted.
pub const DEFAULT_PROFILE: &str = "default";

/// Whether `name` can name a profile file and an HTTP endpoint.
pub fn is_valid_profile_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.starts_with('-')
}

/// Whether the host of a URL, given what follows its `scheme://`, is this
/// machine: `localhost`, `127.0.0.1` or `[::1]`, with any port or path.
pub fn is_loopback_authority(after_scheme: &str) -> bool {
    let host = match after_scheme.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => after_scheme.split([':', '/']).next().unwrap_or(""),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

/// Characters kept verbatim in a URI path segment (RFC 3986 unreserved).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `mcp://tools/<server>/<name>`, segments percent-encoded.
pub fn tool_uri(server: &str, name: &str) -> String {
    primitive_uri("tools", server, name)
}

/// `mcp://prompts/<server>/<name>`, segments percent-encoded.
pub fn prompt_uri(server: &str, name: &str) -> String {
    primitive_uri("prompts", server, name)
}

fn primitive_uri(kind: &str, server: &str, name: &str) -> String {
    format!(
        "mcp://{kind}/{}/{}",
        utf8_percent_encode(server, SEGMENT),
        utf8_percent_encode(name, SEGMENT)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_names() {
        assert!(is_valid_profile_name("work"));
        for local in [
            "localhost",
            "localhost:8080/mcp",
            "127.0.0.1:1",
            "[::1]:3000",
            "[::1]",
        ] {
            assert!(is_loopback_authority(local), "{local}");
        }
        for remote in [
            "localhost.evil.test",
            "127.0.0.1.nip.io",
            "10.0.0.1",
            "",
            "[::2]",
        ] {
            assert!(!is_loopback_authority(remote), "{remote}");
        }
        assert!(is_valid_profile_name("read_only-2"));
        assert!(!is_valid_profile_name(""));
        assert!(!is_valid_profile_name("../x"));
        assert!(!is_valid_profile_name("a b"));
        assert!(!is_valid_profile_name("-x"));
    }

    #[test]
    fn plain_names_are_joined_unchanged() {
        assert_eq!(
            exposed_name("github", "create_issue", "__"),
            "github__create_issue"
        );
        assert_eq!(exposed_name("fs", "read-file.v2", "__"), "fs__read-file.v2");
        assert_eq!(exposed_name("a", "b", "."), "a.b");
    }

    #[test]
    fn invalid_characters_are_replaced_and_hashed() {
        let name = exposed_name("my server", "do thing", "__");
        assert!(name.starts_with("my_server__do_thing-"), "{name}");
        assert_eq!(name.len(), "my_server__do_thing-".len() + HASH_LEN);
        // Same sanitized text from different originals stays distinct.
        assert_ne!(name, exposed_name("my_server", "do thing", "__"));
        assert_ne!(name, exposed_name("my server", "do_thing", "__"));
    }

    #[test]
    fn ambiguous_splits_are_hashed() {
        // Both pairs would join to "a___b"; at most one may keep it.
        let left = exposed_name("a_", "b", "__");
        let right = exposed_name("a", "_b", "__");
        assert_ne!(left, right);
        assert_eq!(right, "a___b", "first separator is ours, so it stays");
        // A server containing the separator cannot be split back.
        let joined = exposed_name("a__b", "c", "__");
        assert_ne!(joined, exposed_name("a", "b__c", "__"));
        assert_eq!(exposed_name("a", "b__c", "__"), "a__b__c");
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let long = "x".repeat(100);
        let name = exposed_name("server", &long, "__");
        assert_eq!(name.len(), MAX_NAME_LEN);
        assert_eq!(name, exposed_name("server", &long, "__"), "stable");
        assert_ne!(name, exposed_name("server", &"x".repeat(101), "__"));
        let exact = "y".repeat(MAX_NAME_LEN - "s__".len());
        assert_eq!(exposed_name("s", &exact, "__"), format!("s__{exact}"));
    }

    #[test]
    fn non_ascii_names_are_mapped() {
        let name = exposed_name("srv", "résumé", "__");
        assert!(name.chars().all(is_name_char), "{name}");
        assert!(name.starts_with("srv__r_sum_-"), "{name}");
    }

    #[test]
    fn separators_are_validated() {
        assert!(is_valid_separator("__"));
        assert!(is_valid_separator("."));
        assert!(!is_valid_separator(""));
        assert!(!is_valid_separator("/"));
        assert!(!is_valid_separator("_____"));
    }

    #[test]
    fn uris_encode_segments() {
        assert_eq!(
            tool_uri("github", "create_issue"),
            "mcp://tools/github/create_issue"
        );
        assert_eq!(
            prompt_uri("ev", "simple-prompt"),
            "mcp://prompts/ev/simple-prompt"
        );
        assert_eq!(tool_uri("a b", "x/y"), "mcp://tools/a%20b/x%2Fy");
    }
}
