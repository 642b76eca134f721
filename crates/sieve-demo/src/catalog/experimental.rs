//! The tools that `admin_enable_experimental` adds to the list at runtime,
//! so that the tool list changes while a client is connected.

use super::{Kind, READ, Spec, WRITE, req};

/// The tools that `admin_enable_experimental` adds.
pub(crate) const TOOLS: &[Spec] = &[
    Spec {
        name: "experimental_word_count",
        title: "Word count (experimental)",
        description: "Count the words of every file.",
        groups: &["files", "experimental"],
        tags: &["experimental"],
        security: Some("high"),
        cost: Some("minimal"),
        hints: Some(READ),
        params: &[],
    },
    Spec {
        name: "experimental_bulk_label",
        title: "Bulk label issues (experimental)",
        description: "Add a label to every open issue.",
        groups: &["issues", "experimental"],
        tags: &["experimental"],
        security: Some("medium"),
        cost: Some("moderate"),
        hints: Some(WRITE),
        params: &[req("label", Kind::Str, "Label to add")],
    },
];
