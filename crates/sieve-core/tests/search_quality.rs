//! How well `sieve__find_tools` ranks: twenty plain-words queries a person
//! might type, on the 117 tools of GitHub's MCP server
//! (`tests/fixtures/catalogs/github-mcp-server.json`), each with the tool
//! it should find. At least 18 must have their tool in the top 3. The
//! table is printed (`cargo test -p sieve-core --test search_quality --
//! --nocapture`) and copied into docs/files.md.

use sieve_core::search::ToolIndex;
use sieve_core::{Catalog, Kind, Overlays, ServerListing, parse_tool_list};

const QUERIES: [(&str, &str); 20] = [
    ("open a pull request", "create_pull_request"),
    ("comment on an issue", "add_issue_comment"),
    ("merge a pull request", "merge_pull_request"),
    ("read a file from a repository", "get_file_contents"),
    ("create a new branch", "create_branch"),
    ("list the commits of a branch", "list_commits"),
    ("find code that calls a function", "search_code"),
    ("star a repository", "star_repository"),
    ("fork a repository", "fork_repository"),
    ("my own user profile", "get_me"),
    ("list open issues", "list_issues"),
    ("make a new repository", "create_repository"),
    ("delete a file", "delete_file"),
    ("logs of a failed workflow job", "get_job_logs"),
    ("newest release", "get_latest_release"),
    ("look for people on GitHub", "search_users"),
    (
        "ask copilot to review my pull request",
        "request_copilot_review",
    ),
    ("vulnerable dependencies alerts", "list_dependabot_alerts"),
    (
        "mark all notifications as read",
        "mark_all_notifications_read",
    ),
    ("change the title of an issue", "update_issue_title"),
];

#[test]
fn plain_words_find_the_tool_in_the_top_three() {
    let path = format!(
        "{}/../../tests/fixtures/catalogs/github-mcp-server.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the GitHub catalog is readable");
    let tools = parse_tool_list(&path, &text).expect("the catalog parses");
    let catalog = Catalog::build(
        "__",
        &Overlays::default(),
        &[ServerListing::tools("github", tools)],
    );
    let all: Vec<_> = catalog.of_kind(Kind::Tool).collect();
    let index = ToolIndex::build(all.iter().copied().enumerate());
    let mut hits = 0;
    println!("| query | expected | rank | top 3 |");
    println!("|---|---|---|---|");
    for (query, expected) in QUERIES {
        let found: Vec<&str> = index
            .search(query, 10)
            .into_iter()
            .map(|i| all[i].name.as_str())
            .collect();
        let rank = found.iter().position(|name| *name == expected);
        if rank.is_some_and(|r| r < 3) {
            hits += 1;
        }
        println!(
            "| {query} | `{expected}` | {} | {} |",
            rank.map_or("—".to_string(), |r| (r + 1).to_string()),
            found
                .iter()
                .take(3)
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    println!("{hits} of {} in the top 3", QUERIES.len());
    assert!(
        hits >= 18,
        "only {hits} of 20 queries found their tool in the top 3"
    );
}
