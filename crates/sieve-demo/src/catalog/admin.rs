//! The administration tools: user accounts, API keys, the audit log and
//! the switch that adds the experimental tools.

use super::{DESTROY, Kind, READ, SET, Spec, WRITE, opt, req};

const ROLES: Kind = Kind::OneOf(&["viewer", "member", "admin"]);

/// The administration tools, in the order they are listed.
pub(super) const TOOLS: &[Spec] = &[
    Spec {
        name: "list_users",
        title: "List users",
        description: "List user accounts with their role and whether they are active.",
        groups: &["admin"],
        tags: &["stable"],
        security: Some("medium"),
        cost: Some("minimal"),
        hints: Some(READ),
        params: &[opt("role", ROLES, "Only users with this role")],
    },
    Spec {
        name: "create_user",
        title: "Create a user",
        description: "Create an active user account.",
        groups: &["admin"],
        tags: &["stable"],
        security: Some("low"),
        cost: Some("minimal"),
        hints: Some(WRITE),
        params: &[
            req("name", Kind::Str, "Login name, lower case"),
            req("email", Kind::Str, "E-mail address"),
            opt("role", ROLES, "Role (default member)"),
        ],
    },
    Spec {
        name: "set_user_role",
        title: "Set a user's role",
        description: "Change the role of a user.",
        groups: &["admin"],
        tags: &["stable"],
        security: Some("low"),
        cost: Some("minimal"),
        hints: Some(SET),
        params: &[
            req("name", Kind::Str, "Login name"),
            req("role", ROLES, "New role"),
        ],
    },
    Spec {
        name: "disable_user",
        title: "Disable a user",
        description: "Stop a user from signing in, keeping their data.",
        groups: &["admin"],
        tags: &["stable"],
        security: Some("low"),
        cost: Some("minimal"),
        hints: Some(SET),
        params: &[req("name", Kind::Str, "Login name")],
    },
    Spec {
        name: "delete_user",
        title: "Delete a user",
        description: "Delete a user account for good.",
        groups: &["admin"],
        tags: &["dangerous"],
        security: Some("low"),
        cost: Some("minimal"),
        hints: Some(DESTROY),
        params: &[req("name", Kind::Str, "Login name")],
    },
    Spec {
        name: "rotate_api_key",
        title: "Rotate an API key",
        description: "Replace a user's API key with a new one; the old key stops working.",
        groups: &["admin", "security"],
        tags: &[],
        security: Some("low"),
        cost: None,
        hints: Some(DESTROY),
        params: &[req("name", Kind::Str, "Login name")],
    },
    Spec {
        name: "audit_log",
        title: "Audit log",
        description: "The most recent changes made through this server, newest first.",
        groups: &["admin", "security", "reports"],
        tags: &["stable"],
        security: Some("medium"),
        cost: Some("minimal"),
        hints: Some(READ),
        params: &[opt(
            "limit",
            Kind::Int,
            "Most entries to return (default 20)",
        )],
    },
    Spec {
        name: "admin_enable_experimental",
        title: "Enable experimental tools",
        description: "Turn the experimental tools on or off; the tool list changes at once.",
        groups: &["admin"],
        tags: &[],
        security: Some("low"),
        cost: Some("minimal"),
        hints: Some(SET),
        params: &[opt(
            "enabled",
            Kind::Bool,
            "true to add the tools (default), false to remove them",
        )],
    },
];
