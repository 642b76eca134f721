//! Labelling through the library (DESIGN §3, §8), on the real catalogs of
//! GitHub's server (117 tools, no categories of its own) and
//! server-everything: derived groups as switches, concerns set on a
//! selection as the fewest overlays, ordered concerns, renames.

use serde_json::Value;
use sieve_api::labels::{self, LabelEdit};
use sieve_api::profiles::{self, ProfileEdit};
use sieve_api::{Home, Kind, Listed, Store};
use sieve_core::ServerListing;

fn fixture(stem: &str) -> Vec<Value> {
    let path = format!(
        "{}/../../tests/fixtures/catalogs/{stem}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture catalog");
    sieve_core::parse_tool_list(&path, &text).expect("parses")
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    listings: Vec<ServerListing>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(Home::at(dir.path()));
        profiles::create(&store, "work", None).unwrap();
        Fixture {
            _dir: dir,
            store,
            listings: vec![
                ServerListing::tools("github", fixture("github-mcp-server")),
                ServerListing::tools("everything", fixture("server-everything")),
            ],
        }
    }

    /// GitHub's tools as two servers, `github` and `work`, with the same
    /// groups, and profile `work` switching `group` off bare (in both).
    fn two_servers_off_bare(group: &str) -> Fixture {
        let mut fx = Fixture::new();
        fx.listings = vec![
            ServerListing::tools("github", fixture("github-mcp-server")),
            ServerListing::tools("work", fixture("github-mcp-server")),
        ];
        fx.profile(ProfileEdit::SetGroup {
            group: group.into(),
            on: false,
        });
        fx
    }

    fn listed(&self) -> Listed {
        Listed::build(self.store.load_config().unwrap(), &self.listings).expect("builds")
    }

    /// Visible tools of profile `work`, by exposed name.
    fn visible(&self) -> Vec<String> {
        let listed = self.listed();
        let work = profiles::compile(&self.store, "work", &listed.config).unwrap();
        listed
            .rows(&work, &[Kind::Tool])
            .into_iter()
            .filter(|r| r.visible)
            .map(|r| r.exposed_name)
            .collect()
    }

    fn label(&self, edit: LabelEdit) {
        labels::edit(&self.store, &self.listed().catalog, &edit).expect("the edit applies");
    }

    fn profile(&self, edit: ProfileEdit) {
        profiles::edit(&self.store, "work", &edit).expect("the profile edit applies");
    }

    fn config(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.store.home().config_file()).unwrap())
            .unwrap()
    }
}

#[test]
fn a_derived_group_switched_off_hides_its_tools() {
    let fx = Fixture::new();
    let view = labels::view(&fx.listed().config, &fx.listed().catalog).unwrap();
    let issues = view
        .derived
        .iter()
        .find(|g| g.group == "github/issues")
        .expect("github/issues is a derived group");
    assert!(issues.tools >= 20, "{} issue tools", issues.tools);
    let before = fx.visible().len();
    fx.profile(ProfileEdit::SetGroup {
        group: "github/issues".into(),
        on: false,
    });
    let after = fx.visible();
    assert_eq!(after.len(), before - issues.tools);
    assert!(!after.contains(&"github__list_issues".to_string()));
    assert!(after.contains(&"github__list_pull_requests".to_string()));
}

#[test]
fn a_concern_set_on_three_tools_is_three_overlays_and_an_ordered_choice_hides_them() {
    let fx = Fixture::new();
    // In catalog order (servers by name): what the listing shows.
    let chosen = [
        "everything__get-sum",
        "github__search_code",
        "github__search_issues",
    ];
    fx.label(LabelEdit::SetConcern {
        concern: "cost".into(),
        value: Some("high".into()),
        tools: chosen.iter().map(|t| t.to_string()).collect(),
    });
    let overlays = fx.config()["overlays"].clone();
    assert_eq!(
        overlays.as_array().unwrap().len(),
        3,
        "one overlay per tool: {overlays}"
    );
    for overlay in overlays.as_array().unwrap() {
        assert_eq!(overlay["concerns"]["cost"], "high", "{overlay}");
    }
    let before = fx.visible();
    fx.profile(ProfileEdit::SetConcern {
        concern: "cost".into(),
        value: Some("moderate".into()),
    });
    let after = fx.visible();
    let hidden: Vec<&String> = before.iter().filter(|t| !after.contains(t)).collect();
    assert_eq!(
        hidden,
        chosen.iter().collect::<Vec<_>>(),
        "exactly those three"
    );
}

#[test]
fn security_medium_keeps_read_only_and_non_destructive_tools() {
    let fx = Fixture::new();
    fx.profile(ProfileEdit::SetConcern {
        concern: "security".into(),
        value: Some("medium".into()),
    });
    let shown = fx.visible();
    for kept in ["github__get_me", "github__create_issue"] {
        assert!(shown.contains(&kept.to_string()), "{kept} is kept");
    }
    for hidden in ["github__delete_file", "github__merge_pull_request"] {
        assert!(
            !shown.contains(&hidden.to_string()),
            "{hidden} is destructive"
        );
    }
    let listed = fx.listed();
    let work = profiles::compile(&fx.store, "work", &listed.config).unwrap();
    let row = listed
        .rows(&work, &[Kind::Tool])
        .into_iter()
        .find(|r| r.exposed_name == "github__delete_file")
        .unwrap();
    assert_eq!(row.hidden_by, ["security low is below the chosen medium"]);
}

#[test]
fn a_whole_server_is_one_glob_and_a_rename_renames_the_switch() {
    let fx = Fixture::new();
    let everything: Vec<String> = fx
        .listed()
        .catalog
        .of_kind(Kind::Tool)
        .filter(|p| p.server == "everything")
        .map(|p| p.exposed_name.clone())
        .collect();
    fx.label(LabelEdit::AddTag {
        tag: "demo".into(),
        tools: everything,
    });
    assert_eq!(fx.config()["overlays"][0]["match"], "everything__*");
    assert_eq!(fx.config()["overlays"].as_array().unwrap().len(), 1);

    // A bare name one server has is that server's group, and a bare new
    // name stays in that server.
    fx.label(LabelEdit::RenameGroup {
        from: "issues".into(),
        to: "tickets".into(),
    });
    assert_eq!(
        fx.config()["groupRenames"]["github/issues"],
        "github/tickets"
    );
    let listed = fx.listed();
    let issue = listed
        .catalog
        .find(Kind::Tool, "github__list_issues")
        .unwrap();
    assert!(issue.labels.groups.contains("github/tickets"));
    assert!(!issue.labels.groups.contains("github/issues"));
    assert!(
        issue.labels.derived.contains("github/tickets"),
        "still derived"
    );
}

#[test]
fn a_tool_moved_between_groups_leaves_the_old_one() {
    let fx = Fixture::new();
    fx.label(LabelEdit::MoveToGroup {
        from: "issues".into(),
        to: "triage".into(),
        tools: vec!["github__list_issues".into()],
    });
    let listed = fx.listed();
    let moved = listed
        .catalog
        .find(Kind::Tool, "github__list_issues")
        .unwrap();
    assert!(moved.labels.groups.contains("triage"));
    assert!(!moved.labels.in_group("issues"), "out of github/issues");
    assert!(
        !moved.labels.derived.contains("triage"),
        "the user's, not derived"
    );
    let err = labels::edit(
        &fx.store,
        &listed.catalog,
        &LabelEdit::AddToGroup {
            group: "x".into(),
            tools: vec!["github__no_such_tool".into()],
        },
    )
    .unwrap_err();
    assert!(
        err.message.contains("github__no_such_tool"),
        "{}",
        err.message
    );
}

#[test]
fn a_server_group_switched_on_under_an_older_bare_name_stays_off_elsewhere() {
    let fx = Fixture::two_servers_off_bare("issues");
    let visible = fx.visible();
    assert!(!visible.contains(&"github__list_issues".to_string()));
    assert!(!visible.contains(&"work__list_issues".to_string()));

    let on = ProfileEdit::SetGroup {
        group: "github/issues".into(),
        on: true,
    };
    let written = profiles::show(&fx.store, "work").unwrap();
    assert!(profiles::edits_need_groups(
        &written,
        std::slice::from_ref(&on)
    ));
    // Without the servers' groups the bare name stays, and so does the
    // group's switch.
    profiles::edit(&fx.store, "work", &on).unwrap();
    assert!(!fx.visible().contains(&"github__list_issues".to_string()));

    let listed = fx.listed();
    let profile = profiles::edit_all_in(&fx.store, "work", &[on], Some(&listed.catalog)).unwrap();
    assert_eq!(profile.groups.none, vec!["work/issues".to_string()]);
    let visible = fx.visible();
    assert!(visible.contains(&"github__list_issues".to_string()));
    assert!(!visible.contains(&"work__list_issues".to_string()));
    assert!(visible.contains(&"work__list_pull_requests".to_string()));
}

/// The first start after groups came to belong to their servers says what
/// a bare name now means, once per kind of start; a later start says which
/// group a profile names is gone, and what its server has instead.
#[test]
fn a_start_says_what_changed_in_the_groups_a_profile_names() {
    use sieve_api::notices::group_notices;
    let mut fx = Fixture::two_servers_off_bare("issues");
    fx.profile(ProfileEdit::SetGroup {
        group: "github/gists".into(),
        on: false,
    });
    let catalog = fx.listed().catalog;
    let first = group_notices(&fx.store, &catalog, "proxy").unwrap();
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(
        first[0].contains(r#"groups.none names "issues" without a server"#)
            && first[0].contains("github/issues and work/issues"),
        "{}",
        first[0]
    );
    assert_eq!(
        group_notices(&fx.store, &catalog, "proxy").unwrap(),
        Vec::<String>::new()
    );
    // The app has its own first start.
    assert_eq!(group_notices(&fx.store, &catalog, "app").unwrap(), first);

    // github now lists another server's tools: its gists are gone.
    fx.listings[0] = ServerListing::tools("github", fixture("server-github-legacy"));
    let later = group_notices(&fx.store, &fx.listed().catalog, "proxy").unwrap();
    assert_eq!(later.len(), 1, "{later:?}");
    assert!(
        later[0].contains(r#""github/gists", which is gone since the last start"#)
            && later[0].contains("github has github/files"),
        "{}",
        later[0]
    );
}
