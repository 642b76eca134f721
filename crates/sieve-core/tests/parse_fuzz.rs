//! Fuzzing of the two files a person edits by hand: `config.json`
//! ([`Config::parse`]) and `profiles/NAME.json` ([`Profile::parse`]).
//!
//! * Any text (random characters, lossy invalid UTF-8, JSON-shaped garbage,
//!   valid files with bytes inserted or cut, nesting thousands deep, huge
//!   numbers, every truncation of a valid file) gives a value or a
//!   [`ParseError`] that names the file and a line and column inside the
//!   text; never a panic, and a cut file never loads.
//! * Documents generated in each file's own shape load exactly when they
//!   are valid, keep every value they say, and read back equal after being
//!   written.
//! * Environment and header values (tokens, keys) never show in a config's
//!   `Debug` nor in the error of a broken config.
//!
//! The tests at the end are the minimal inputs of defects the properties
//! found, fixed since.

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;
use serde_json::{Map, Value, json};
use sieve_core::{
    ConcernDef, Config, GroupRule, Overlay, ParseError, Profile, Roots, ServerConfig, TagRule,
    Transport, Visibility,
};
use std::collections::BTreeMap;

const CONFIG_FILE: &str = "home/config.json";
const PROFILE_FILE: &str = "home/profiles/work.json";

/// What every error owes a person: the file, and a line and column that
/// exist in the text, printed first.
fn located(file: &str, text: &str, err: &ParseError) -> Result<(), String> {
    let shown = err.to_string();
    if err.file != file || !shown.starts_with(file) {
        return Err(format!("{shown:?} does not name {file:?}"));
    }
    // serde_json counts lines by '\n', so the last line is the one after
    // the last newline, even when it is empty.
    let lines: Vec<&str> = text.split('\n').collect();
    if err.line < 1 || err.line > lines.len() {
        return Err(format!(
            "line {} is not one of the {} lines of the text: {shown:?}",
            err.line,
            lines.len()
        ));
    }
    let width = lines[err.line - 1].chars().count();
    if err.column < 1 || err.column > width + 1 {
        return Err(format!(
            "column {} is not in line {} ({width} characters): {shown:?}",
            err.column, err.line
        ));
    }
    if !shown.starts_with(&format!("{file}:{}:{}: ", err.line, err.column)) {
        return Err(format!("{shown:?} does not start with file:line:column"));
    }
    Ok(())
}

fn fail(why: String) -> TestCaseError {
    TestCaseError::fail(why)
}

/// Parses `text` as a config: what loads is written and read back equal,
/// an error is located.
fn check_config(text: &str) -> Result<Result<Config, ParseError>, TestCaseError> {
    let parsed = Config::parse(CONFIG_FILE, text);
    match &parsed {
        Ok(config) => {
            let written = serde_json::to_string_pretty(config).map_err(|e| fail(e.to_string()))?;
            let again = Config::parse("written.json", &written)
                .map_err(|e| fail(format!("written config does not load: {e}\n{written}")))?;
            prop_assert_eq!(&again, config, "round trip of {}", written);
        }
        Err(err) => located(CONFIG_FILE, text, err).map_err(fail)?,
    }
    Ok(parsed)
}

/// [`check_config`] for profiles.
fn check_profile(text: &str) -> Result<Result<Profile, ParseError>, TestCaseError> {
    let parsed = Profile::parse(PROFILE_FILE, text);
    match &parsed {
        Ok(profile) => {
            let written = serde_json::to_string_pretty(profile).map_err(|e| fail(e.to_string()))?;
            let again = Profile::parse("written.json", &written)
                .map_err(|e| fail(format!("written profile does not load: {e}\n{written}")))?;
            prop_assert_eq!(&again, profile, "round trip of {}", written);
        }
        Err(err) => located(PROFILE_FILE, text, err).map_err(fail)?,
    }
    Ok(parsed)
}

/// Arbitrary text must go through both parsers; which one a file is meant
/// for does not matter to the property.
fn check_both(text: &str) -> Result<(), TestCaseError> {
    // Loaded or refused are both fine: the checks are in `check_*`.
    let _ = check_config(text)?;
    let _ = check_profile(text)?;
    Ok(())
}

/// Cheap cases get many runs; the whole file stays well under 20 s in a
/// debug build.
fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: n,
        ..ProptestConfig::default()
    }
}

/// The config example of the design, with non-ASCII text so positions in
/// characters and in bytes differ.
const FULL_CONFIG: &str = r#"{
  "mcpServers": {
    "github":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "secret-token"} },
    "everything": { "command": "node", "args": ["server-everything/dist/index.js", "stdio"], "cwd": "/opt/mcp" },
    "remote":     { "type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer secret-header"} },
    "notes":      { "command": "uvx", "args": ["notes-mcp"], "roots": ["/home/me/Notizen für später/", "file:///srv/data%20set"], "disabled": true },
    "open":       { "command": "x", "roots": "host", "autoApprove": ["read"] }
  },
  "concerns": [
    { "name": "security", "description": "Sicherheitsstufe", "values": ["high", "medium", "low"], "default": "medium" },
    { "name": "cost",     "description": "Cost of running the tool", "values": ["minimal", "moderate", "high"], "default": "moderate" }
  ],
  "overlays": [
    { "match": "github__*delete*", "tags": ["destructive"], "concerns": {"security": "low"} },
    { "match": "github__*issue*",  "groups": ["issues"] }
  ],
  "settings": { "separator": ".", "taskRetentionDays": 7, "callTimeoutSeconds": 120, "activeProfile": "work", "closeToTray": false }
}
"#;

/// A profile that sets every field.
const FULL_PROFILE: &str = r#"{
  "description": "Tägliche Arbeit, nichts Zerstörerisches",
  "servers": ["github", "everything"],
  "tools":     { "allow": ["github__*", "everything__echo"], "deny": ["*_delete_*"] },
  "resources": { "allow": ["github__{a,b}*"], "deny": [] },
  "prompts":   { "deny": ["*"] },
  "groups": { "any": ["issues", "pull_requests"], "none": ["admin"] },
  "tags": { "all": ["stable"], "none": ["destructive", "experimental"] },
  "concerns": { "security": "high", "cost": "minimal" },
  "uriPrefixes": ["mcp://tools/github/"],
  "enforce": false
}
"#;

// ---------------------------------------------------------------------
// 1, 2: arbitrary text never panics and every error is located.
// ---------------------------------------------------------------------

/// Words of both files, so random sequences reach past the first token.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\n",
    "\r\n",
    "\t",
    "\"",
    "\\",
    "\"mcpServers\"",
    "\"command\"",
    "\"args\"",
    "\"env\"",
    "\"cwd\"",
    "\"type\"",
    "\"stdio\"",
    "\"http\"",
    "\"sse\"",
    "\"url\"",
    "\"https://x.test/mcp\"",
    "\"ftp://x\"",
    "\"headers\"",
    "\"disabled\"",
    "\"roots\"",
    "\"host\"",
    "\"/srv/a\"",
    "\"file:///a%20b\"",
    "\"file://h/s\"",
    "\"file:///%FF\"",
    "\"concerns\"",
    "\"name\"",
    "\"values\"",
    "\"default\"",
    "\"overlays\"",
    "\"match\"",
    "\"groups\"",
    "\"tags\"",
    "\"settings\"",
    "\"separator\"",
    "\"__\"",
    "\"/\"",
    "\"taskRetentionDays\"",
    "\"callTimeoutSeconds\"",
    "\"activeProfile\"",
    "\"closeToTray\"",
    "\"description\"",
    "\"servers\"",
    "\"tools\"",
    "\"resources\"",
    "\"prompts\"",
    "\"allow\"",
    "\"deny\"",
    "\"any\"",
    "\"none\"",
    "\"all\"",
    "\"uriPrefixes\"",
    "\"enforce\"",
    "\"gh__*\"",
    "\"gh__[\"",
    "\"\\u005b\"",
    "\"\\ud800\"",
    "\"\\uDC00\\uD800\"",
    "\"é名🙂\"",
    "\"\"",
    "\"  \"",
    "true",
    "false",
    "null",
    "0",
    "-0",
    "-1",
    "1.5",
    "1e999",
    "-1e999",
    "18446744073709551616",
    "4294967296",
    "\u{feff}",
    "\u{0}",
];

fn token_soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(select(TOKENS), 0..120).prop_map(|tokens| tokens.concat())
}

/// A valid file with one edit: text inserted, a range cut, or both.
fn mutated(doc: &'static str) -> impl Strategy<Value = String> {
    (
        0..=doc.len(),
        0..=doc.len(),
        prop_oneof![
            Just(String::new()),
            token_soup(),
            "\\PC{0,8}",
            "[\\[\\]{}:,\"\\\\ 0-9a-z]{0,8}"
        ],
    )
        .prop_map(move |(a, b, insert)| {
            let floor = |mut i: usize| {
                while !doc.is_char_boundary(i) {
                    i -= 1;
                }
                i
            };
            let (start, end) = (floor(a.min(b)), floor(a.max(b)));
            // Cutting at most a few dozen bytes keeps the rest recognisable.
            let end = floor(end.min(start + 40));
            format!("{}{}{}", &doc[..start], insert, &doc[end..])
        })
}

proptest! {
    #![proptest_config(cases(2000))]

    #[test]
    fn any_text_is_loaded_or_located(text in any::<String>()) {
        check_both(&text)?;
    }

    #[test]
    fn lossy_invalid_utf8_is_loaded_or_located(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        check_both(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn json_shaped_garbage_is_loaded_or_located(
        text in prop_oneof![
            token_soup(),
            "[\\[\\]{}:,\" \n\t0-9eE.+\\-a-z\\\\/]{0,200}",
        ],
    ) {
        check_both(&text)?;
    }

    #[test]
    fn edited_valid_files_are_loaded_or_located(
        text in prop_oneof![mutated(FULL_CONFIG), mutated(FULL_PROFILE)],
    ) {
        check_both(&text)?;
    }
}

/// Places where a value of any depth can go; `@` is the value.
const NESTING_SITES: &[&str] = &[
    "@",
    r#"{"mcpServers": {"s": {"command": "x", "roots": @}}}"#,
    r#"{"mcpServers": {"s": {"command": "x", "autoApprove": @}}}"#,
    r#"{"mcpServers": {"s": {"command": "x", "args": @}}}"#,
    r#"{"mcpServers": {"s": {"url": "https://x.test", "headers": {"h": @}}}}"#,
    r#"{"overlays": [{"match": "*", "concerns": @}]}"#,
    r#"{"settings": {"separator": @}}"#,
    r#"{"groups": @}"#,
    r#"{"groups": {"any": @}}"#,
    r#"{"tags": {"all": @}}"#,
    r#"{"tools": {"deny": @}}"#,
    r#"{"concerns": {"security": @}}"#,
];

proptest! {
    #![proptest_config(cases(300))]

    #[test]
    fn deep_nesting_is_loaded_or_located(
        site in select(NESTING_SITES),
        depth in prop_oneof![1..200usize, 200..6000usize],
        open in select(&[("[", "]"), ("{\"a\":", "}"), ("[{\"a\":", "}]")][..]),
        closed in any::<bool>(),
    ) {
        let value = if closed {
            format!("{}0{}", open.0.repeat(depth), open.1.repeat(depth))
        } else {
            open.0.repeat(depth)
        };
        check_both(&site.replace('@', &value))?;
    }
}

/// JSON numbers of every size and shape, and a few that are not JSON.
fn number_literal() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,4})?([eE][+-]?[0-9]{1,5})?",
        "[0-9]{300,400}",
        select(
            &[
                "0",
                "1",
                "4294967295",
                "4294967296",
                "18446744073709551615",
                "18446744073709551616",
                "-0",
                "00",
                "1e",
                "+1",
                ".5",
                "NaN",
                "Infinity"
            ][..]
        )
        .prop_map(String::from),
    ]
}

proptest! {
    #![proptest_config(cases(2000))]

    #[test]
    fn numbers_are_taken_only_when_they_fit(
        literal in number_literal(),
        days in any::<bool>(),
    ) {
        let key = if days { "taskRetentionDays" } else { "callTimeoutSeconds" };
        let text = format!("{{\"settings\": {{\n  \"{key}\": {literal}\n}}}}");
        // What a person means by the literal, when it is a whole number.
        let plain = literal.bytes().all(|b| b.is_ascii_digit())
            && (literal == "0" || !literal.starts_with('0'));
        let wanted: Option<u64> = if plain { literal.parse().ok() } else { None };
        // A zero callTimeoutSeconds is refused, but without a position:
        // that is `finding_a_zero_call_timeout_has_no_position`.
        if !days && wanted == Some(0) {
            return Ok(());
        }
        let loaded = check_config(&text)?.ok().map(|c| {
            if days {
                u64::from(c.settings.task_retention_days)
            } else {
                c.settings.call_timeout_seconds
            }
        });
        let fits = if days { wanted.filter(|&n| u32::try_from(n).is_ok()) } else { wanted };
        prop_assert_eq!(loaded, fits, "{}", text);
    }
}

// ---------------------------------------------------------------------
// 4: a cut file never loads.
// ---------------------------------------------------------------------

/// Every cut of `doc` before its last `}` is an error, located; the whole
/// document loads. A JSON object is not complete before its closing brace,
/// so a prefix that loads would have lost what follows.
fn every_prefix_fails(
    doc: &str,
    file: &str,
    parse: impl Fn(&str) -> Result<(), ParseError>,
) -> usize {
    let complete = doc.trim_end().len();
    let mut checked = 0;
    for (cut, _) in doc.char_indices().chain([(doc.len(), ' ')]) {
        let prefix = &doc[..cut];
        match parse(prefix) {
            Ok(()) => assert!(cut >= complete, "a cut at byte {cut} loads: {prefix:?}"),
            Err(err) => {
                assert!(cut < complete, "the whole document fails: {err}");
                if let Err(why) = located(file, prefix, &err) {
                    panic!("cut at byte {cut}: {why}");
                }
            }
        }
        checked += 1;
    }
    checked
}

#[test]
fn every_cut_of_a_config_fails() {
    let config = Config::parse(CONFIG_FILE, FULL_CONFIG).expect("the example loads");
    let compact = serde_json::to_string(&config).unwrap();
    for doc in [FULL_CONFIG, compact.as_str()] {
        let n = every_prefix_fails(doc, CONFIG_FILE, |t| {
            Config::parse(CONFIG_FILE, t).map(|_| ())
        });
        assert_eq!(n, doc.chars().count() + 1);
    }
}

#[test]
fn every_cut_of_a_profile_fails() {
    let profile = Profile::parse(PROFILE_FILE, FULL_PROFILE).expect("the example loads");
    let compact = serde_json::to_string(&profile).unwrap();
    for doc in [FULL_PROFILE, compact.as_str()] {
        let n = every_prefix_fails(doc, PROFILE_FILE, |t| {
            Profile::parse(PROFILE_FILE, t).map(|_| ())
        });
        assert_eq!(n, doc.chars().count() + 1);
    }
}

// ---------------------------------------------------------------------
// 3: generated documents load exactly when valid, and keep their values.
// ---------------------------------------------------------------------

/// Globs, some of which do not compile.
const GLOBS: &[&str] = &[
    "*",
    "gh__*",
    "*_delete_*",
    "everything__echo",
    "s?__[ab]*",
    "{a,b}*",
    "**",
    "[!a]*",
    "a{b{c}}",
    "",
    "gh__[",
    "a[b",
    "{a,b",
    "[z-a]",
    "}",
    "x\\",
];
const BAD_GLOBS: &[&str] = &["gh__[", "a[b", "{a,b", "[z-a]", "}", "x\\"];

fn glob_is_valid(glob: &str) -> bool {
    !BAD_GLOBS.contains(&glob)
}

/// Secrets are drawn from an alphabet nothing else in a generated config
/// uses, so finding one in output can only mean it leaked.
const SECRET: &str = "[QXZ#~%]{8,16}";

fn strings(max: usize, pattern: &'static str) -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(pattern, 0..=max)
}

fn secrets(key: &'static str) -> impl Strategy<Value = BTreeMap<String, String>> {
    proptest::collection::btree_map(key, SECRET, 0..4)
}

/// A root entry and whether `config.json` accepts it.
fn root_entry() -> impl Strategy<Value = (&'static str, bool)> {
    select(
        &[
            ("/", true),
            ("/home/me/My Notes/", true),
            ("file:///srv/data%20set", true),
            ("file:///", true),
            ("/tmp/ü名", true),
            ("notes", false),
            ("file://server/share", false),
            ("file:///%FF", false),
            ("~/x", false),
            ("", false),
        ][..],
    )
}

/// `"roots"` as written (absent when `None`), what it loads as, and
/// whether it is valid.
fn roots() -> impl Strategy<Value = (Option<Value>, Roots, bool)> {
    prop_oneof![
        Just((None, Roots::default(), true)),
        Just((Some(json!("host")), Roots::Host, true)),
        Just((Some(json!("all")), Roots::default(), false)),
        Just((Some(json!([1])), Roots::default(), false)),
        proptest::collection::vec(root_entry(), 0..4).prop_map(|entries| {
            let valid = entries.iter().all(|(_, ok)| *ok);
            let listed: Vec<String> = entries.iter().map(|(e, _)| e.to_string()).collect();
            (Some(json!(listed)), Roots::Listed(listed), valid)
        }),
    ]
}

/// One `mcpServers` entry, what it loads as when valid, or `None`.
fn server() -> impl Strategy<Value = (Value, Option<ServerConfig>)> {
    let stdio = (
        select(&[None, Some("stdio")][..]),
        select(
            &[
                "npx",
                "node",
                "/usr/bin/python3",
                "C:\\Tools\\srv.exe",
                "",
                "   ",
            ][..],
        ),
        strings(3, "\\PC{0,12}"),
        secrets("[A-P_]{1,10}"),
        proptest::option::of("/[a-z]{1,8}"),
    )
        .prop_map(|(kind, command, args, env, cwd)| {
            let mut entry = Map::new();
            if let Some(kind) = kind {
                entry.insert("type".into(), json!(kind));
            }
            entry.insert("command".into(), json!(command));
            if !args.is_empty() {
                entry.insert("args".into(), json!(args));
            }
            if !env.is_empty() {
                entry.insert("env".into(), json!(env));
            }
            if let Some(cwd) = &cwd {
                entry.insert("cwd".into(), json!(cwd));
            }
            let transport = Transport::Stdio {
                command: command.to_string(),
                args,
                env,
                cwd,
            };
            (
                entry,
                Some(transport).filter(|_| !command.trim().is_empty()),
            )
        });
    let http = (
        select(
            &[
                None,
                Some("http"),
                Some("streamable-http"),
                Some("streamableHttp"),
                Some("sse"),
                Some("ws"),
            ][..],
        ),
        select(
            &[
                "https://example.test/mcp",
                "http://127.0.0.1:8080/mcp",
                "ftp://x",
                "example.test",
                "",
                "HTTPS://X",
            ][..],
        ),
        secrets("[A-P][a-p-]{0,12}"),
    )
        .prop_map(|(kind, url, headers)| {
            let mut entry = Map::new();
            if let Some(kind) = kind {
                entry.insert("type".into(), json!(kind));
            }
            entry.insert("url".into(), json!(url));
            if !headers.is_empty() {
                entry.insert("headers".into(), json!(headers));
            }
            let valid = !matches!(kind, Some("sse" | "ws"))
                && (url.starts_with("http://") || url.starts_with("https://"));
            let transport = Transport::Http {
                url: url.to_string(),
                headers,
                oauth: None,
            };
            (entry, Some(transport).filter(|_| valid))
        });
    (
        prop_oneof![stdio, http],
        proptest::option::of(any::<bool>()),
        roots(),
        // Keys of other hosts' files are tolerated; a "url" next to a
        // "command" is not.
        select(&[None, Some("autoApprove"), Some("url")][..]),
    )
        .prop_map(
            |((mut entry, transport), disabled, (roots_value, roots, roots_ok), extra)| {
                if let Some(disabled) = disabled {
                    entry.insert("disabled".into(), json!(disabled));
                }
                if let Some(value) = roots_value {
                    entry.insert("roots".into(), value);
                }
                let clash = extra == Some("url") && entry.contains_key("command");
                if extra == Some("autoApprove") {
                    entry.insert("autoApprove".into(), json!(["read"]));
                } else if clash {
                    entry.insert("url".into(), json!("https://x.test/mcp"));
                }
                let loaded =
                    transport
                        .filter(|_| roots_ok && !clash)
                        .map(|transport| ServerConfig {
                            transport,
                            disabled: disabled.unwrap_or(false),
                            roots,
                            origin: None,
                        });
                (Value::Object(entry), loaded)
            },
        )
}

/// Concern definitions and whether they are valid together.
fn concerns() -> impl Strategy<Value = (Vec<ConcernDef>, bool)> {
    let one = (
        select(&["security", "cost", "", " "][..]),
        proptest::sample::subsequence(vec!["high", "medium", "low", "high"], 0..=4),
        proptest::option::of(select(&["high", "low", "ultra"][..])),
        proptest::bool::ANY,
    )
        .prop_map(|(name, values, default, ordered)| ConcernDef {
            name: name.into(),
            description: String::new(),
            values: values.into_iter().map(String::from).collect(),
            default: default.map(String::from),
            ordered,
        });
    proptest::collection::vec(one, 0..3).prop_map(|defs| {
        let valid = defs.iter().enumerate().all(|(i, c)| {
            !c.name.trim().is_empty()
                && !defs[..i].iter().any(|d| d.name == c.name)
                && !c.values.is_empty()
                && c.values
                    .iter()
                    .enumerate()
                    .all(|(j, v)| !c.values[..j].contains(v))
                && c.default.as_ref().is_none_or(|d| c.values.contains(d))
        });
        (defs, valid)
    })
}

fn overlays() -> impl Strategy<Value = Vec<Overlay>> {
    let one = (
        select(GLOBS),
        strings(2, "[a-z]{1,6}"),
        strings(2, "[a-z-]{1,8}"),
        proptest::collection::btree_map(
            select(&["security", "mood"][..]).prop_map(String::from),
            select(&["high", "low", "ultra"][..]).prop_map(String::from),
            0..2,
        ),
    )
        .prop_map(|(pattern, groups, tags, concerns)| Overlay {
            pattern: pattern.into(),
            groups,
            tags,
            concerns,
            ..Overlay::default()
        });
    proptest::collection::vec(one, 0..3)
}

/// `settings` as written, and the expected settings when valid.
fn settings() -> impl Strategy<Value = (Value, Option<sieve_core::Settings>)> {
    (
        proptest::option::of(select(&["__", ".", "-", "_x_", "/", "", "abcde", "é"][..])),
        proptest::option::of(any::<u32>()),
        // 0 is left to `finding_a_zero_call_timeout_has_no_position`.
        proptest::option::of(select(&[1u64, 600, 86_400, u64::MAX][..])),
        proptest::option::of(select(
            &["default", "work", "read_only-2", "-x", "../work", "", "a b"][..],
        )),
        proptest::option::of(any::<bool>()),
    )
        .prop_map(|(separator, days, timeout, profile, tray)| {
            let mut written = Map::new();
            let mut settings = sieve_core::Settings::default();
            if let Some(separator) = separator {
                written.insert("separator".into(), json!(separator));
                settings.separator = separator.into();
            }
            if let Some(days) = days {
                written.insert("taskRetentionDays".into(), json!(days));
                settings.task_retention_days = days;
            }
            if let Some(timeout) = timeout {
                written.insert("callTimeoutSeconds".into(), json!(timeout));
                settings.call_timeout_seconds = timeout;
            }
            if let Some(profile) = profile {
                written.insert("activeProfile".into(), json!(profile));
                settings.active_profile = profile.into();
            }
            if let Some(tray) = tray {
                written.insert("closeToTray".into(), json!(tray));
                settings.close_to_tray = tray;
            }
            let separator_ok = (1..=4).contains(&settings.separator.len())
                && settings
                    .separator
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
            let profile_ok = sieve_core::profile::is_valid_profile_name(&settings.active_profile);
            (
                Value::Object(written),
                Some(settings).filter(|_| separator_ok && profile_ok),
            )
        })
}

/// A whole config: its text and, when it is valid, what it loads as.
fn config_document() -> impl Strategy<Value = (String, Option<Config>)> {
    (
        proptest::collection::vec(
            (
                prop_oneof![
                    4 => "[a-z][a-z0-9_-]{0,10}",
                    1 => select(&["  ", "é名", "a b", "github"][..]).prop_map(String::from),
                ],
                server(),
            ),
            0..5,
        ),
        concerns(),
        overlays(),
        settings(),
        any::<bool>(),
    )
        .prop_map(
            |(servers, (concerns, concerns_ok), overlays, (settings_value, settings), pretty)| {
                let mut doc = Map::new();
                let mut config = Config::default();
                let mut valid = concerns_ok;
                let mut written_servers = Map::new();
                for (name, (entry, loaded)) in servers {
                    // A name written twice loads as its last entry (JSON
                    // objects are maps); that is not modelled here.
                    if written_servers.contains_key(&name) {
                        continue;
                    }
                    valid &= !name.trim().is_empty();
                    written_servers.insert(name.clone(), entry);
                    match loaded {
                        Some(server) => {
                            config.mcp_servers.insert(name, server);
                        }
                        None => valid = false,
                    }
                }
                if !written_servers.is_empty() {
                    doc.insert("mcpServers".into(), Value::Object(written_servers));
                }
                if !concerns.is_empty() {
                    doc.insert("concerns".into(), serde_json::to_value(&concerns).unwrap());
                }
                // No concerns declared: the built-in security and cost
                // are in force, and overlays are checked against them.
                let in_force = if concerns.is_empty() {
                    sieve_core::config::builtin_concerns()
                } else {
                    &concerns[..]
                };
                for overlay in &overlays {
                    valid &= glob_is_valid(&overlay.pattern);
                    for (name, value) in &overlay.concerns {
                        if let Some(def) = in_force.iter().find(|c| &c.name == name) {
                            valid &= def.values.contains(value);
                        }
                    }
                }
                if !overlays.is_empty() {
                    doc.insert("overlays".into(), serde_json::to_value(&overlays).unwrap());
                }
                if settings_value.as_object().is_some_and(|m| !m.is_empty()) {
                    doc.insert("settings".into(), settings_value);
                }
                config.concerns = concerns;
                config.overlays = overlays;
                match settings {
                    Some(settings) => config.settings = settings,
                    None => valid = false,
                }
                let doc = Value::Object(doc);
                let text = if pretty {
                    serde_json::to_string_pretty(&doc).unwrap()
                } else {
                    serde_json::to_string(&doc).unwrap()
                };
                (text, Some(config).filter(|_| valid))
            },
        )
}

proptest! {
    // Each case is a whole config of up to five servers: fewer runs.
    #![proptest_config(cases(1000))]

    #[test]
    fn generated_configs_load_exactly_when_valid(
        (text, expected) in config_document(),
    ) {
        match (check_config(&text)?, &expected) {
            (Ok(loaded), Some(expected)) => prop_assert_eq!(&loaded, expected, "{}", text),
            (Err(_), None) => {}
            (loaded, _) => prop_assert!(
                false, "loaded: {:?}, valid: {}\n{}", loaded, expected.is_some(), text
            ),
        }
    }
}

/// One of the three glob sections, as written and as loaded.
fn visibility() -> impl Strategy<Value = Option<(Value, Visibility)>> {
    proptest::option::of(
        (
            proptest::option::of(proptest::collection::vec(select(GLOBS), 0..3)),
            proptest::option::of(proptest::collection::vec(select(GLOBS), 0..3)),
        )
            .prop_map(|(allow, deny)| {
                let mut written = Map::new();
                let mut loaded = Visibility::default();
                if let Some(allow) = allow {
                    written.insert("allow".into(), json!(allow));
                    loaded.allow = allow.into_iter().map(String::from).collect();
                }
                if let Some(deny) = deny {
                    written.insert("deny".into(), json!(deny));
                    loaded.deny = deny.into_iter().map(String::from).collect();
                }
                (Value::Object(written), loaded)
            }),
    )
}

fn names(pool: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(select(pool).prop_map(String::from), 0..3)
}

/// `groups` as a list or as `{any, none}`.
fn groups() -> impl Strategy<Value = Option<(Value, GroupRule)>> {
    const POOL: &[&str] = &["issues", "pull_requests", "admin", "gh__["];
    proptest::option::of(prop_oneof![
        names(POOL).prop_map(|any| (json!(any), GroupRule::any(any))),
        (
            proptest::option::of(names(POOL)),
            proptest::option::of(names(POOL))
        )
            .prop_map(|(any, none)| {
                let mut written = Map::new();
                if let Some(any) = &any {
                    written.insert("any".into(), json!(any));
                }
                if let Some(none) = &none {
                    written.insert("none".into(), json!(none));
                }
                let rule = GroupRule {
                    any: any.unwrap_or_default(),
                    none: none.unwrap_or_default(),
                };
                (Value::Object(written), rule)
            }),
    ])
}

/// `tags` as `{all, none}`, sometimes with an `expr`: a valid one, or one
/// that does not parse (and so must be refused at `tags.expr`).
fn tags() -> impl Strategy<Value = Option<(Value, TagRule, bool)>> {
    const POOL: &[&str] = &["stable", "destructive", "read-only", "gh__["];
    proptest::option::of(
        (
            proptest::option::of(names(POOL)),
            proptest::option::of(names(POOL)),
            proptest::option::weighted(
                0.2,
                select(
                    &[
                        "stable && !destructive",
                        "stable and not (destructive or read-only)",
                    ][..],
                ),
            ),
        )
            .prop_map(|(all, none, expr)| {
                let mut written = Map::new();
                if let Some(all) = &all {
                    written.insert("all".into(), json!(all));
                }
                if let Some(none) = &none {
                    written.insert("none".into(), json!(none));
                }
                if let Some(expr) = expr {
                    written.insert("expr".into(), json!(expr));
                }
                let valid = expr.is_none_or(|e| sieve_core::TagExpr::parse(e).is_ok());
                let rule = TagRule {
                    all: all.unwrap_or_default(),
                    none: none.unwrap_or_default(),
                    expr: expr.filter(|_| valid).map(String::from),
                };
                (Value::Object(written), rule, valid)
            }),
    )
}

/// Fields a profile does not have; each must be refused by name.
const UNKNOWN_PROFILE_KEYS: &[(&str, &str)] = &[
    ("disclosure", "summary"),
    ("tool", "gh__*"),
    ("Servers", "github"),
];

/// A whole profile: its text, the profile when valid, and the path the
/// error must name when not.
fn profile_document() -> impl Strategy<Value = (String, Result<Profile, Vec<String>>)> {
    (
        proptest::option::of(prop_oneof![
            "\\PC{0,20}",
            select(&["Everyday work", "Tägliche Arbeit 名 🙂", "*_delete_*"][..])
                .prop_map(String::from),
        ]),
        proptest::option::of(names(&["github", "everything", "", "*_delete_*"])),
        (visibility(), visibility(), visibility()),
        groups(),
        tags(),
        proptest::collection::btree_map(
            select(&["security", "cost"][..]).prop_map(String::from),
            select(&["high", "low", "ultra"][..]).prop_map(String::from),
            0..3,
        ),
        proptest::option::of(names(&["mcp://tools/github/", "file:///srv", ""])),
        proptest::option::of(any::<bool>()),
        proptest::option::weighted(0.05, select(UNKNOWN_PROFILE_KEYS)),
        any::<bool>(),
    )
        .prop_map(
            |(
                description,
                servers,
                (tools, resources, prompts),
                groups,
                tags,
                concerns,
                uri_prefixes,
                enforce,
                unknown,
                pretty,
            )| {
                let mut doc = Map::new();
                let mut profile = Profile::default();
                let mut refused = Vec::new();
                if let Some(description) = description {
                    doc.insert("description".into(), json!(description));
                    profile.description = description;
                }
                if let Some(servers) = servers {
                    doc.insert("servers".into(), json!(servers));
                    profile.servers = Some(servers);
                }
                for (name, section) in [
                    ("tools", tools),
                    ("resources", resources),
                    ("prompts", prompts),
                ] {
                    let Some((written, loaded)) = section else {
                        continue;
                    };
                    doc.insert(name.into(), written);
                    for (list, globs) in [("allow", &loaded.allow), ("deny", &loaded.deny)] {
                        if let Some(i) = globs.iter().position(|g| !glob_is_valid(g)) {
                            refused.push(format!("{name}.{list}[{i}]"));
                        }
                    }
                    match name {
                        "tools" => profile.tools = loaded,
                        "resources" => profile.resources = loaded,
                        _ => profile.prompts = loaded,
                    }
                }
                let mut unknown_paths = Vec::new();
                if let Some((written, rule)) = groups {
                    doc.insert("groups".into(), written);
                    profile.groups = rule;
                }
                if let Some((written, rule, known)) = tags {
                    doc.insert("tags".into(), written);
                    profile.tags = rule;
                    if !known {
                        unknown_paths.push("tags.expr".to_string());
                    }
                }
                if !concerns.is_empty() {
                    doc.insert("concerns".into(), json!(concerns));
                    profile.concerns = concerns;
                }
                if let Some(prefixes) = uri_prefixes {
                    doc.insert("uriPrefixes".into(), json!(prefixes));
                    profile.uri_prefixes = Some(prefixes);
                }
                if let Some(enforce) = enforce {
                    doc.insert("enforce".into(), json!(enforce));
                    profile.enforce = enforce;
                }
                if let Some((key, value)) = unknown {
                    doc.insert(key.into(), json!(value));
                    unknown_paths.push(key.to_string());
                }
                let doc = Value::Object(doc);
                let text = if pretty {
                    serde_json::to_string_pretty(&doc).unwrap()
                } else {
                    serde_json::to_string(&doc).unwrap()
                };
                // Unknown fields fail the decoding, before any glob is
                // compiled: only they can be named then; else the first
                // bad glob in file order.
                let outcome = if !unknown_paths.is_empty() {
                    Err(unknown_paths)
                } else if let Some(first) = refused.into_iter().next() {
                    Err(vec![first])
                } else {
                    Ok(profile)
                };
                (text, outcome)
            },
        )
}

proptest! {
    #![proptest_config(cases(2000))]

    #[test]
    fn generated_profiles_load_exactly_when_valid(
        (text, expected) in profile_document(),
    ) {
        match (check_profile(&text)?, expected) {
            (Ok(loaded), Ok(expected)) => prop_assert_eq!(loaded, expected, "{}", text),
            (Err(err), Err(paths)) => {
                prop_assert!(paths.contains(&err.path), "{} names none of {:?}", err, paths);
                let glob = BAD_GLOBS
                    .iter()
                    .find(|g| err.expected.starts_with(&format!("invalid glob {g:?}")));
                if let Some(glob) = glob {
                    // The position is at a string equal to the bad glob
                    // (not necessarily the one at the path, see
                    // `finding_an_invalid_glob_is_located_at_an_earlier_equal_string`).
                    let line = text.split('\n').nth(err.line - 1).unwrap_or_default();
                    let at: String = line.chars().skip(err.column - 1).collect();
                    prop_assert!(
                        at.starts_with(&serde_json::to_string(glob).unwrap()),
                        "{} points at {:?}", err, at
                    );
                }
            }
            (loaded, expected) => prop_assert!(
                false, "loaded: {:?}, expected: {:?}\n{}", loaded, expected, text
            ),
        }
    }
}

// ---------------------------------------------------------------------
// 5: secrets stay out of Debug and of errors.
// ---------------------------------------------------------------------

fn secrets_in(config: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for server in config["mcpServers"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
    {
        for key in ["env", "headers"] {
            for value in server[key].as_object().into_iter().flat_map(|m| m.values()) {
                found.extend(value.as_str().map(String::from));
            }
        }
    }
    found
}

/// Edits a person might make to a working config. None of them moves a
/// secret into a place that expects something other than a string: that
/// one leaks, see `finding_a_misplaced_secret_is_echoed`.
const EDITS: &[&str] = &[
    "rename mcpServers",
    "rename url",
    "rename command",
    "break url",
    "command and url",
    "type sse",
    "bad roots",
    "secret as number",
    "secret in a list",
    "env as list",
    "control character in secret",
    "bad escape in secret",
    "unknown top-level key",
    "unknown settings key",
];

fn edit(doc: &mut Value, which: &str, server: usize) -> Option<String> {
    let servers = doc["mcpServers"].as_object_mut()?;
    let name = servers.keys().nth(server % servers.len().max(1))?.clone();
    let entry = servers.get_mut(&name)?.as_object_mut()?;
    let map_key = if entry.contains_key("url") {
        "headers"
    } else {
        "env"
    };
    let first_secret = entry
        .get(map_key)
        .and_then(Value::as_object)
        .and_then(|m| m.iter().next())
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()));
    match which {
        "rename url" | "rename command" => {
            let key = which.trim_start_matches("rename ");
            let value = entry.remove(key)?;
            entry.insert(format!("{key}x"), value);
        }
        "break url" => {
            let url = entry.get("url")?.as_str()?.replacen("http", "htp", 1);
            entry.insert("url".into(), json!(url));
        }
        "command and url" => {
            entry.insert("command".into(), json!("npx"));
            entry.insert("url".into(), json!("https://x.test"));
        }
        "type sse" => {
            entry.insert("type".into(), json!("sse"));
        }
        "bad roots" => {
            entry.insert("roots".into(), json!(["relative/path"]));
        }
        "secret as number" | "secret in a list" => {
            let (key, secret) = first_secret?;
            let value = if which == "secret as number" {
                json!(42)
            } else {
                json!([secret])
            };
            entry.get_mut(map_key)?.as_object_mut()?.insert(key, value);
        }
        "env as list" => {
            let (key, secret) = first_secret?;
            entry.insert(map_key.into(), json!([format!("{key}={secret}")]));
        }
        "control character in secret" | "bad escape in secret" => {
            // Text edits: these make the JSON itself invalid.
            let (_, secret) = first_secret?;
            let text = serde_json::to_string_pretty(doc).unwrap();
            let mid = secret.len() / 2;
            let broken = if which == "control character in secret" {
                format!("{}\n{}", &secret[..mid], &secret[mid..])
            } else {
                format!("{}\\q{}", &secret[..mid], &secret[mid..])
            };
            return Some(text.replacen(&secret, &broken, 1));
        }
        "rename mcpServers" => {
            let servers = doc.as_object_mut()?.remove("mcpServers")?;
            doc.as_object_mut()?.insert("mcpServer".into(), servers);
        }
        "unknown top-level key" => {
            doc.as_object_mut()?
                .insert("secrets".into(), json!({"a": 1}));
        }
        "unknown settings key" => {
            doc.as_object_mut()?
                .insert("settings".into(), json!({"maxTokens": 1}));
        }
        _ => unreachable!("{which}"),
    }
    Some(serde_json::to_string_pretty(doc).unwrap())
}

/// A valid config whose every server has a secret.
fn config_with_secrets() -> impl Strategy<Value = Value> {
    let server = prop_oneof![
        (
            strings(2, "[a-z-]{1,8}"),
            proptest::collection::btree_map("[A-P_]{1,10}", SECRET, 1..4)
        )
            .prop_map(|(args, env)| json!({"command": "npx", "args": args, "env": env})),
        proptest::collection::btree_map("[A-P][a-p-]{0,12}", SECRET, 1..4).prop_map(
            |headers| json!({"type": "http", "url": "https://x.test/mcp", "headers": headers})
        ),
    ];
    proptest::collection::btree_map("[a-z]{1,8}", server, 1..4)
        .prop_map(|servers| json!({"mcpServers": servers}))
}

proptest! {
    #![proptest_config(cases(600))]

    #[test]
    fn secrets_never_show(
        doc in config_with_secrets(),
        which in select(EDITS),
        server in 0..4usize,
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let secrets = secrets_in(&doc);
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let config = Config::parse(CONFIG_FILE, &text)
            .map_err(|e| fail(format!("a generated valid config fails: {e}\n{text}")))?;
        let debug = format!("{config:?}");
        for secret in &secrets {
            prop_assert!(!debug.contains(secret.as_str()), "Debug shows {}: {}", secret, debug);
        }
        let mut edited_doc = doc.clone();
        let Some(mut edited) = edit(&mut edited_doc, which, server) else {
            return Ok(());
        };
        if let Some(cut) = cut {
            let mut at = cut.index(edited.len() + 1);
            while !edited.is_char_boundary(at) {
                at -= 1;
            }
            edited.truncate(at);
        }
        let shown = match Config::parse(CONFIG_FILE, &edited) {
            Ok(config) => format!("{config:?}"),
            Err(err) => {
                located(CONFIG_FILE, &edited, &err).map_err(fail)?;
                err.to_string()
            }
        };
        for secret in &secrets {
            prop_assert!(!shown.contains(secret.as_str()), "{} shows {}:\n{}", which, secret, edited);
        }
    }
}

// ---------------------------------------------------------------------
// Defects the properties above found, as minimal inputs, now fixed.
// ---------------------------------------------------------------------

// A string where a map (or a boolean) belongs: serde's "invalid type"
// message used to quote the string, here a token.
#[test]
fn a_misplaced_secret_is_not_echoed() {
    let text =
        r#"{"mcpServers": {"api": {"url": "https://x.test/mcp", "headers": "Bearer QXZ#~%QXZ"}}}"#;
    let err = Config::parse(CONFIG_FILE, text).unwrap_err().to_string();
    assert!(!err.contains("QXZ#~%QXZ"), "{err}");
    assert!(err.contains("mcpServers.api.headers"), "{err}");
}

#[test]
fn a_secret_env_string_is_not_echoed() {
    let text = r#"{"mcpServers": {"gh": {"command": "npx", "env": "GITHUB_TOKEN=QXZ#~%QXZ"}}}"#;
    let err = Config::parse(CONFIG_FILE, text).unwrap_err().to_string();
    assert!(!err.contains("QXZ#~%QXZ"), "{err}");
}

#[test]
fn a_setting_out_of_range_is_located_at_its_key() {
    for (key, value) in [
        ("callTimeoutSeconds", 0),
        ("maxMessageBytes", 0),
        ("startupWaitMs", 60_001),
    ] {
        let text = format!("{{\"settings\": {{\n  \"{key}\": {value}\n}}}}");
        let err = Config::parse(CONFIG_FILE, &text).unwrap_err();
        located(CONFIG_FILE, &text, &err).unwrap();
        assert_eq!((err.line, err.column), (2, 3), "{err}");
    }
}
