//! The static description of every demo tool: name, schema, annotations and
//! the labels (`groups`, `tags`, `concerns`) that MCP Sieve filters on.
//!
//! The table is data, not code, so that the offline catalog and the live
//! server can never disagree about what a tool looks like.
//!
//! This module holds the shape of a tool ([`Spec`], its [`Param`]s and
//! [`Hints`]) and how it becomes the wire form. The tools themselves are
//! listed one area per child: `files`, `issues`, `billing`, `admin` and
//! `operations` (search and operations) make up [`tools`], in that order;
//! `experimental` holds the tools that `admin_enable_experimental` adds.

use std::sync::Arc;

use rmcp::model::{JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

/// The JSON type of one tool argument.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Str,
    Int,
    Bool,
    StrList,
    OneOf(&'static [&'static str]),
}

/// One argument of a tool's input schema.
pub(super) struct Param {
    name: &'static str,
    kind: Kind,
    doc: &'static str,
    required: bool,
}

const fn req(name: &'static str, kind: Kind, doc: &'static str) -> Param {
    Param {
        name,
        kind,
        doc,
        required: true,
    }
}

const fn opt(name: &'static str, kind: Kind, doc: &'static str) -> Param {
    Param {
        name,
        kind,
        doc,
        required: false,
    }
}

/// Behaviour hints. `None` in [`Spec::hints`] means the tool sends no
/// annotations at all, which exercises the spec's defaults in the proxy.
#[derive(Clone, Copy)]
pub(super) struct Hints {
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

/// Reads local state only.
const READ: Hints = Hints {
    read_only: Some(true),
    destructive: Some(false),
    idempotent: Some(true),
    open_world: Some(false),
};
/// Adds or changes state without losing any.
const WRITE: Hints = Hints {
    read_only: Some(false),
    destructive: Some(false),
    idempotent: Some(false),
    open_world: Some(false),
};
/// Sets state to a given value: calling twice is the same as once.
const SET: Hints = Hints {
    read_only: Some(false),
    destructive: Some(false),
    idempotent: Some(true),
    open_world: Some(false),
};
/// Removes or overwrites something that cannot be got back.
const DESTROY: Hints = Hints {
    read_only: Some(false),
    destructive: Some(true),
    idempotent: Some(true),
    open_world: Some(false),
};
/// Only the read-only hint, to leave the other hints at their defaults.
const READ_ONLY_HINT: Hints = Hints {
    read_only: Some(true),
    destructive: None,
    idempotent: None,
    open_world: None,
};
/// Talks to something outside the server (the client's model or user).
const OUTSIDE: Hints = Hints {
    read_only: Some(true),
    destructive: Some(false),
    idempotent: Some(false),
    open_world: Some(true),
};

/// Everything needed to build one [`Tool`].
pub(super) struct Spec {
    pub(super) name: &'static str,
    title: &'static str,
    description: &'static str,
    groups: &'static [&'static str],
    tags: &'static [&'static str],
    /// The security level a tool is fit for, as in DESIGN's example: a
    /// read-only tool suits `high`, a destructive one only `low`.
    security: Option<&'static str>,
    cost: Option<&'static str>,
    hints: Option<Hints>,
    params: &'static [Param],
}

mod admin;
mod billing;
mod experimental;
mod files;
mod issues;
mod operations;

pub(super) use self::{experimental::TOOLS as EXPERIMENTAL_TOOLS, operations::SEARCH_RELEASE_2};

/// The areas of the tools every connection sees, in the order they are listed.
const AREAS: &[&[Spec]] = &[
    files::TOOLS,
    issues::TOOLS,
    billing::TOOLS,
    admin::TOOLS,
    operations::TOOLS,
];

/// The tools every connection sees.
pub(super) fn tools() -> impl Iterator<Item = &'static Spec> {
    AREAS.iter().flat_map(|area| area.iter())
}

impl Spec {
    /// Build the wire form of this tool.
    pub(super) fn to_tool(&self) -> Tool {
        let mut tool = Tool::new(self.name, self.description, Arc::new(self.input_schema()))
            .with_title(self.title)
            .with_meta(self.labels());
        if let Some(hints) = self.hints {
            tool = tool.with_annotations(hints.to_annotations(self.title));
        }
        tool
    }

    fn input_schema(&self) -> JsonObject {
        let properties: JsonObject = self
            .params
            .iter()
            .map(|p| (p.name.to_owned(), p.schema()))
            .collect();
        let required: Vec<&str> = self
            .params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect();
        let mut schema = JsonObject::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        schema.insert("additionalProperties".into(), json!(false));
        schema
    }

    fn labels(&self) -> MetaObject {
        let mut meta = MetaObject::new();
        meta.insert("groups".into(), json!(self.groups));
        meta.insert("tags".into(), json!(self.tags));
        let mut concerns = JsonObject::new();
        if let Some(security) = self.security {
            concerns.insert("security".into(), json!(security));
        }
        if let Some(cost) = self.cost {
            concerns.insert("cost".into(), json!(cost));
        }
        // A tool with no concern values sends no `concerns` key at all, so the
        // proxy sees both shapes: absent and partially filled.
        if !concerns.is_empty() {
            meta.insert("concerns".into(), Value::Object(concerns));
        }
        meta
    }
}

impl Param {
    fn schema(&self) -> Value {
        let mut schema = match self.kind {
            Kind::Str => json!({"type": "string"}),
            Kind::Int => json!({"type": "integer"}),
            Kind::Bool => json!({"type": "boolean"}),
            Kind::StrList => json!({"type": "array", "items": {"type": "string"}}),
            Kind::OneOf(values) => json!({"type": "string", "enum": values}),
        };
        schema["description"] = json!(self.doc);
        schema
    }
}

impl Hints {
    fn to_annotations(self, title: &str) -> ToolAnnotations {
        ToolAnnotations::from_raw(
            Some(title.to_owned()),
            self.read_only,
            self.destructive,
            self.idempotent,
            self.open_world,
        )
    }
}
