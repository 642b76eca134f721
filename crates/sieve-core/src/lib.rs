//! The pure core of MCP Sieve: what a primitive is, how it is named and
//! labelled, what a profile says, and which primitives a profile shows.
//!
//! No I/O, no clock, no async: every function takes text or values and
//! returns values, so the rules can be tested exhaustively and run in any
//! process (proxy, desktop app, command line) with the same results.
//!
//! * [`config`]: `config.json` (servers, concerns, overlays, settings).
//! * [`profile`]: the profile files, `profiles/NAME.json`.
//! * [`naming`]: exposed names `<server>__<name>`, `mcp://` URIs and
//!   profile names.
//! * [`glob`]: the globs of overlays and profiles, with errors that name
//!   them.
//! * [`labels`]: groups, tags and concern values from upstream fields,
//!   annotations, the server and overlays.
//! * [`subjects`]: derived groups, the subject each tool of a server that
//!   sends no categories acts on.
//! * [`catalog`]: [`Primitive`]s of all servers, indexed by exposed name and
//!   URI.
//! * [`rules`]: a [`Profile`] compiled into [`Rules`], per-request
//!   [`Narrowing`], and the [`Reason`] a primitive is hidden.
//! * [`approvals`]: `approvals.json`, trust on first use and the
//!   [`Quarantine`] of new and changed tools.
//! * [`tokenizer`]: what one definition costs the model, in tokens.
//! * [`tokens`]: token estimates before and after filtering.
//! * [`tasks`]: task ledger entries and `tasks/list` queries.
//! * [`parse`]: JSON decoding with file, line, column and field path.
//!
//! The flow: parse a [`Config`] and a [`Profile`], build a [`Catalog`] from
//! what the servers listed (overlays applied), compile [`Rules`], then ask
//! `rules.is_visible(primitive, narrowing)` or `rules.explain(..)`.
//!
//! The modules depend on each other one way, bottom up (a cycle fails
//! `scripts/check-layers.py`): `parse`, `naming`, `glob`, `tagexpr`,
//! `secret_ref`, `subjects` and `tokenizer` use no other module; `config`, `approvals`
//! and `tasks` build on those; `labels` and `profile` on `config`;
//! `catalog` on those; `rules` and `search` on the catalog; `tokens` on the
//! rules.

pub mod approvals;
pub mod catalog;
pub mod config;
pub mod glob;
pub mod labels;
pub mod naming;
pub mod parse;
pub mod profile;
pub mod rules;
pub mod search;
pub mod secret_ref;
pub mod subjects;
pub mod tagexpr;
pub mod tasks;
pub mod tokenizer;
pub mod tokens;

pub use approvals::{Approvals, Pending, Quarantine};
pub use catalog::{
    BuildOptions, Catalog, Kind, Overrides, Primitive, ServerListing, parse_tool_list,
};
pub use config::{
    ClientMetadataUrlError, ConcernDef, ConcernValueError, Config, GlobError, Grant, OAuthClient,
    OAuthClientError, Overlay, OverlayError, Overlays, Root, Roots, RootsError, SIGNING_ALGORITHMS,
    ServerConfig, ServerEntryError, Settings, Transport, check_client_metadata_url,
};
pub use labels::Labels;
pub use parse::ParseError;
pub use profile::{Disclosure, GroupRule, Profile, TagRule, Visibility};
pub use rules::{Narrowing, NarrowingError, Reason, Rule, Rules, RulesError};
pub use tagexpr::{TagExpr, TagExprError};
pub use tokens::{TokenCount, TokenReport};
