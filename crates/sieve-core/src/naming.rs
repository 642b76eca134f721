//! Exposed names and URIs: how an upstream primitive is addressed by the
//! host; profile names, which address a profile (its file and its HTTP
//! endpoint); and the short keys servers are given when imported.
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

/// Which of `servers` a name a host used (an exposed name, or an
/// `mcp://tools/..` or `mcp://prompts/..` URI) belongs to, read from its
/// form alone: for a primitive no catalog holds, such as one of a server
/// that has not answered yet. The longest server name that fits wins
/// (`a__b__x` is server `a__b`'s if there is one).
pub fn server_of<'s>(
    name: &str,
    separator: &str,
    servers: impl IntoIterator<Item = &'s str>,
) -> Option<&'s str> {
    let from_uri = ["mcp://tools/", "mcp://prompts/"]
        .iter()
        .find_map(|prefix| name.strip_prefix(prefix))
        .and_then(|rest| rest.split_once('/'))
        .map(|(server, _)| percent_encoding::percent_decode_str(server).decode_utf8_lossy());
    servers
        .into_iter()
        .filter(|server| match &from_uri {
            Some(uri_server) => uri_server == server,
            // A server whose name holds other characters is written with
            // `_` in their place (see `exposed_name`).
            None => {
                let written: String = server
                    .chars()
                    .map(|c| if is_name_char(c) { c } else { '_' })
                    .collect();
                name.strip_prefix(written.as_str())
                    .is_some_and(|rest| rest.starts_with(separator))
            }
        })
        .max_by_key(|server| server.len())
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

/// Words that say a thing is an MCP server rather than which one.
const SERVER_WORDS: &[&str] = &["mcp", "server", "servers", "modelcontextprotocol"];

/// Extensions of scripts a server is run from, which name no server.
const SCRIPT_EXTENSIONS: &[&str] = &[".py", ".js", ".mjs", ".cjs", ".ts", ".exe", ".jar"];

/// The longest key [`short_server_key`] makes; longer ones are cut at a
/// word.
pub const MAX_SERVER_KEY_LEN: usize = 32;

/// A short key a person reads for what people or registries call a server
/// (DESIGN §3, "Server names"): "Azure MCP Server" → `azure`,
/// "io.github.upstash/context7" → `context7`,
/// "@modelcontextprotocol/server-github" → `github`, "mcp-server-kubernetes"
/// → `kubernetes`, "my_tool-mcp" → `my-tool`.
///
/// The last segment of a path-like name (npm scope, registry namespace)
/// is the server's own name, or when it says only "mcp", the last part of
/// its namespace is; a version after `@` and a script's extension
/// (`.py`, `.js`) are dropped; words are cut
/// at anything but ASCII letters and digits, lowercased, the words that
/// only say "MCP server" dropped, and the rest joined by `-`. The key
/// holds only `[a-z0-9-]`, so it never contains an exposed-name separator
/// made of `_` or `.`; it is never empty (`server` when nothing is left).
pub fn short_server_key(name: &str) -> String {
    let segments: Vec<&str> = name
        .split('/')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let Some((last, namespaces)) = segments.split_last() else {
        return "server".to_string();
    };
    // `pkg@1.2.3`, but not the `@` of a scope.
    let last = match last.find('@') {
        Some(0) | None => last,
        Some(at) => &last[..at],
    };
    // A script run as the server: `weather.py`.
    let last = SCRIPT_EXTENSIONS
        .iter()
        .find_map(|ext| last.strip_suffix(ext))
        .unwrap_or(last);
    // When the name says only "mcp" (`@playwright/mcp`), its namespace
    // names the server: the last part of `io.github.owner` or `@scope`.
    std::iter::once(last)
        .chain(
            namespaces
                .iter()
                .rev()
                .map(|ns| ns.rsplit('.').next().unwrap_or(ns)),
        )
        .map(key_of_words)
        .find(|key| !key.is_empty())
        .unwrap_or_else(|| "server".to_string())
}

/// The words of `text` that name a server, lowercase, joined by `-`, cut
/// at a word to [`MAX_SERVER_KEY_LEN`].
fn key_of_words(text: &str) -> String {
    let words = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .filter(|w| !SERVER_WORDS.contains(&w.as_str()));
    let mut key = String::new();
    for word in words {
        let extra = usize::from(!key.is_empty());
        if key.len() + extra + word.len() > MAX_SERVER_KEY_LEN {
            if key.is_empty() {
                key = word[..MAX_SERVER_KEY_LEN].to_string();
            }
            break;
        }
        if !key.is_empty() {
            key.push('-');
        }
        key.push_str(&word);
    }
    key
}

/// `wanted`, or when `taken` says it is, the first of `wanted-2`,
/// `wanted-3`, ... that is free.
pub fn unique_key(wanted: &str, taken: &dyn Fn(&str) -> bool) -> String {
    if !taken(wanted) {
        return wanted.to_string();
    }
    (2u64..)
        .map(|n| format!("{wanted}-{n}"))
        .find(|key| !taken(key))
        .expect("some number is free")
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
    fn a_name_tells_its_server() {
        let servers = ["a", "a__b", "my server", "slow"];
        let of = |name: &str| server_of(name, "__", servers);
        assert_eq!(of("slow__echo"), Some("slow"));
        assert_eq!(of("a__b__x"), Some("a__b"), "the longest fits");
        assert_eq!(of("a__x"), Some("a"));
        assert_eq!(of(&exposed_name("my server", "t", "__")), Some("my server"));
        assert_eq!(of(&tool_uri("my server", "t")), Some("my server"));
        assert_eq!(of(&prompt_uri("slow", "p")), Some("slow"));
        assert_eq!(of("slowly__echo"), None);
        assert_eq!(of("echo"), None);
        assert_eq!(server_of("slow.echo", ".", servers), Some("slow"));
    }

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
    fn server_keys_are_short_and_readable() {
        for (name, key) in [
            ("Azure MCP Server", "azure"),
            ("io.github.upstash/context7", "context7"),
            ("@modelcontextprotocol/server-github", "github"),
            ("@playwright/mcp@latest", "playwright"),
            ("io.github.someone/mcp-server", "someone"),
            ("mcp-server-kubernetes", "kubernetes"),
            ("GitHub", "github"),
            ("my_tool-mcp", "my-tool"),
            ("Chrome DevTools MCP", "chrome-devtools"),
            ("server.py", "server"),
            ("weather.py", "weather"),
            ("  MCP Server ", "server"),
            ("", "server"),
            ("/", "server"),
            ("日本語", "server"),
            ("café-mcp", "caf"),
        ] {
            assert_eq!(short_server_key(name), key, "{name:?}");
        }
        let long = short_server_key("alpha beta gamma delta epsilon zeta eta theta");
        assert_eq!(long, "alpha-beta-gamma-delta-epsilon");
        assert!(long.len() <= MAX_SERVER_KEY_LEN);
        assert_eq!(short_server_key(&"x".repeat(40)).len(), MAX_SERVER_KEY_LEN);
        for name in ["A b", "x__y", "Some.Server/Name@2"] {
            let key = short_server_key(name);
            assert!(key.chars().all(is_name_char) && !key.contains('_'), "{key}");
        }
    }

    #[test]
    fn unique_keys_count_up_from_two() {
        let taken = ["github", "github-2"];
        let is_taken = |key: &str| taken.contains(&key);
        assert_eq!(unique_key("azure", &is_taken), "azure");
        assert_eq!(unique_key("github", &is_taken), "github-3");
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
