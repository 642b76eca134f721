//! The lexicon of `sieve__find_tools` is in memory only while a search
//! index holds it (issue 34): a proxy with no search profile never
//! unpacks it, and the last index dropped frees it. Alone in its test
//! binary, so no other test holds an index meanwhile.

use sieve_core::lexicon::Lexicon;
use sieve_core::search::ToolIndex;
use sieve_core::{Catalog, Kind, Overlays, ServerListing};

#[test]
fn the_lexicon_lives_as_long_as_an_index() {
    assert!(!Lexicon::is_loaded(), "nothing searched yet");
    let tools = vec![serde_json::json!({
        "name": "list_directory",
        "description": "List the entries of a directory.",
        "inputSchema": {"type": "object"}
    })];
    let catalog = Catalog::build(
        "__",
        &Overlays::default(),
        &[ServerListing::tools("fs", tools)],
    );
    let index = ToolIndex::build(catalog.of_kind(Kind::Tool).enumerate());
    assert!(Lexicon::is_loaded());
    let second = ToolIndex::build(catalog.of_kind(Kind::Tool).enumerate());
    assert_eq!(index.search("what is in this folder", 1), [0]);
    drop(index);
    assert!(Lexicon::is_loaded(), "the second index still holds it");
    assert_eq!(second.search("show the folder", 1), [0]);
    drop(second);
    assert!(!Lexicon::is_loaded(), "the last index dropped frees it");
}
