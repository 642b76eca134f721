//! Properties of naming and filtering over arbitrary inputs.

use proptest::prelude::*;
use serde_json::{Value, json};
use sieve_core::naming::{MAX_NAME_LEN, exposed_name, is_name_char};
use sieve_core::{Catalog, Kind, Narrowing, Overlays, Profile, Rules, ServerListing};
use std::collections::BTreeSet;

proptest! {
    #[test]
    fn exposed_names_are_valid_and_short(server in "\\PC{0,40}", name in "\\PC{0,120}") {
        let exposed = exposed_name(&server, &name, "__");
        prop_assert!(exposed.len() <= MAX_NAME_LEN, "{} is too long", exposed);
        prop_assert!(exposed.chars().all(is_name_char), "{} has a bad char", exposed);
        prop_assert_eq!(exposed.clone(), exposed_name(&server, &name, "__"), "stable");
    }

    #[test]
    fn exposed_names_are_unique(
        pairs in proptest::collection::btree_set(("[a-z_ ]{1,6}", "[a-zA-Z0-9_ .é-]{0,80}"), 1..60),
        separator in prop_oneof![Just("__"), Just("."), Just("-"), Just("_")],
    ) {
        let names: BTreeSet<String> = pairs.iter().map(|(s, n)| exposed_name(s, n, separator)).collect();
        prop_assert_eq!(names.len(), pairs.len());
    }
}

/// A small universe of labels and names so random profiles hit things.
const GROUPS: [&str; 3] = ["g1", "g2", "g3"];
const TAGS: [&str; 4] = ["t1", "t2", "read-only", "destructive"];
const PATTERNS: [&str; 6] = ["*", "s1__*", "*_a*", "s2__x?", "*b", "s*__[ab]*"];

fn tool() -> impl Strategy<Value = Value> {
    (
        "[abx]{1,4}",
        proptest::sample::subsequence(GROUPS.to_vec(), 0..=2),
        proptest::sample::subsequence(TAGS.to_vec(), 0..=2),
        proptest::option::of(prop_oneof![Just("high"), Just("low")]),
        any::<bool>(),
    )
        .prop_map(|(name, groups, tags, security, read_only)| {
            let mut tool = json!({"name": name, "groups": groups, "tags": tags,
                                  "annotations": {"readOnlyHint": read_only}});
            if let Some(level) = security {
                tool["_meta"] = json!({"concerns": {"security": level}});
            }
            tool
        })
}

fn catalog() -> impl Strategy<Value = Catalog> {
    (
        proptest::collection::vec(tool(), 0..12),
        proptest::collection::vec(tool(), 0..12),
    )
        .prop_map(|(a, b)| {
            Catalog::build(
                "__",
                &Overlays::default(),
                &[ServerListing::tools("s1", a), ServerListing::tools("s2", b)],
            )
        })
}

fn profile() -> impl Strategy<Value = Profile> {
    (
        proptest::option::of(proptest::sample::subsequence(vec!["s1", "s2"], 0..=2)),
        proptest::sample::subsequence(PATTERNS.to_vec(), 0..=2),
        proptest::sample::subsequence(PATTERNS.to_vec(), 0..=2),
        (
            proptest::sample::subsequence(GROUPS.to_vec(), 0..=2),
            proptest::sample::subsequence(GROUPS.to_vec(), 0..=1),
        ),
        proptest::sample::subsequence(TAGS.to_vec(), 0..=1),
        proptest::sample::subsequence(TAGS.to_vec(), 0..=1),
        proptest::option::of(prop_oneof![Just("high"), Just("low")]),
    )
        .prop_map(
            |(servers, allow, deny, (groups, groups_off), all, none, security)| {
                let strings = |v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>();
                let mut profile = Profile {
                    servers: servers.map(strings),
                    groups: sieve_core::GroupRule {
                        any: strings(groups),
                        none: strings(groups_off),
                    },
                    ..Profile::default()
                };
                profile.tools.allow = strings(allow);
                profile.tools.deny = strings(deny);
                profile.tags.all = strings(all);
                profile.tags.none = strings(none);
                if let Some(level) = security {
                    profile.concerns.insert("security".into(), level.into());
                }
                profile
            },
        )
}

fn visible(
    catalog: &Catalog,
    profile: &Profile,
    narrowing: Option<&Narrowing>,
) -> BTreeSet<String> {
    let rules = Rules::new(profile).unwrap();
    rules
        .visible(catalog.primitives(), Kind::Tool, narrowing)
        .map(|p| p.exposed_name.clone())
        .collect()
}

proptest! {
    #[test]
    fn adding_a_deny_never_shows_more(catalog in catalog(), profile in profile(),
                                      pattern in proptest::sample::select(PATTERNS.to_vec())) {
        let before = visible(&catalog, &profile, None);
        let mut stricter = profile.clone();
        stricter.tools.deny.push(pattern.to_string());
        let after = visible(&catalog, &stricter, None);
        prop_assert!(after.is_subset(&before), "{:?} not within {:?}", after, before);
    }

    #[test]
    fn switching_a_group_off_never_shows_more(catalog in catalog(), profile in profile(),
                                              group in proptest::sample::select(GROUPS.to_vec())) {
        let before = visible(&catalog, &profile, None);
        let mut stricter = profile.clone();
        stricter.groups.none.push(group.to_string());
        let after = visible(&catalog, &stricter, None);
        prop_assert!(after.is_subset(&before), "{:?} not within {:?}", after, before);
    }

    #[test]
    fn adding_a_forbidden_tag_or_concern_never_shows_more(catalog in catalog(), profile in profile(),
                                                          tag in proptest::sample::select(TAGS.to_vec())) {
        let before = visible(&catalog, &profile, None);
        let mut stricter = profile.clone();
        stricter.tags.none.push(tag.to_string());
        prop_assert!(visible(&catalog, &stricter, None).is_subset(&before));
        let mut stricter = profile.clone();
        stricter.concerns.entry("security".into()).or_insert_with(|| "high".into());
        prop_assert!(visible(&catalog, &stricter, None).is_subset(&before));
    }

    #[test]
    fn narrowing_never_widens(catalog in catalog(), profile in profile(),
                              groups in proptest::sample::subsequence(GROUPS.to_vec(), 0..=3),
                              tags in proptest::sample::subsequence(TAGS.to_vec(), 0..=2),
                              uri in proptest::option::of(prop_oneof![Just("mcp://tools/s1/"), Just("mcp://tools/")]),
                              security in proptest::option::of(prop_oneof![Just("high"), Just("low")])) {
        let mut params = json!({"filter": {"groups": groups, "tags": tags}});
        if let Some(uri) = uri {
            params["filters"] = json!({"uri_paths": [uri]});
        }
        if let Some(level) = security {
            params["_meta"] = json!({"dev.mcp-sieve/concerns": {"security": level}});
        }
        let narrowing = Narrowing::from_params(&params).unwrap();
        let before = visible(&catalog, &profile, None);
        let after = visible(&catalog, &profile, Some(&narrowing));
        prop_assert!(after.is_subset(&before), "{:?} not within {:?}", after, before);
    }

    #[test]
    fn explain_is_empty_exactly_when_visible(catalog in catalog(), profile in profile()) {
        let rules = Rules::new(&profile).unwrap();
        for p in catalog.primitives() {
            prop_assert_eq!(rules.explain(p, None).is_empty(), rules.is_visible(p, None));
        }
    }
}

/// Tool lists of real servers, from `tests/fixtures/catalogs`.
fn real_catalogs() -> Vec<(String, Vec<sieve_core::subjects::ToolText>)> {
    let dir = format!(
        "{}/../../tests/fixtures/catalogs",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut catalogs = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the fixture catalogs") {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == "manifest.json")
            || path.extension().is_none_or(|e| e != "json")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let tools = sieve_core::parse_tool_list(&path.display().to_string(), &text).unwrap();
        let texts = tools
            .iter()
            .map(sieve_core::subjects::ToolText::of)
            .collect();
        catalogs.push((path.display().to_string(), texts));
    }
    catalogs.sort_by(|a, b| a.0.cmp(&b.0));
    catalogs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Derived groups are a pure function of the set of tools: any order
    /// of the list gives each tool the same group, and no derived group
    /// has a single member.
    #[test]
    fn derived_groups_do_not_depend_on_the_order_and_have_two_members(seed in any::<u64>()) {
        for (file, texts) in real_catalogs() {
            let derived = sieve_core::subjects::derive(&texts);
            let mut sizes = std::collections::BTreeMap::new();
            for group in derived.iter().flatten() {
                *sizes.entry(group.clone()).or_insert(0) += 1;
            }
            prop_assert!(sizes.values().all(|&n| n >= 2), "{}: {:?}", file, sizes);
            prop_assert!(
                sizes.len() <= sieve_core::subjects::max_groups(texts.len()),
                "{}: {:?}",
                file,
                sizes
            );
            // A shuffle from the seed (a simple LCG: the test needs no rand).
            let mut order: Vec<usize> = (0..texts.len()).collect();
            let mut state = seed | 1;
            for i in (1..order.len()).rev() {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                order.swap(i, (state >> 33) as usize % (i + 1));
            }
            let shuffled: Vec<_> = order.iter().map(|&i| texts[i].clone()).collect();
            let again = sieve_core::subjects::derive(&shuffled);
            for (position, &i) in order.iter().enumerate() {
                prop_assert_eq!(&again[position], &derived[i], "{}: {}", file, texts[i].name);
            }
        }
    }
}
