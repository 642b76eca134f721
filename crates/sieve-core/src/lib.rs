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
//! * [`wording`]: how a tool's texts are read: the words of names,
//!   sentences, phrases on word boundaries, short quotes.
//! * [`action`]: what a tool says it does (reads, changes, destroys), from
//!   the verbs of its name, title and description.
//! * [`cost`]: the built-in concern `cost`, from a tool's definition and
//!   what its calls measured.
//! * [`labels`]: groups, tags and concern values (with the reason for
//!   each) from upstream fields, annotations, the server and overlays.
//! * [`subjects`]: derived groups, the subject each tool of a server that
//!   sends no categories acts on.
//! * [`catalog`]: [`Primitive`]s of all servers, indexed by exposed name and
//!   URI.
//! * [`rules`]: a [`Profile`] compiled into [`Rules`], per-request
//!   [`Narrowing`], and the [`Reason`] a primitive is hidden.
//! * [`approvals`]: `approvals.json`, trust on first use and the
//!   [`Quarantine`] of new and changed tools.
//! * [`scan`]: what servers say, searched for tool poisoning (hidden
//!   instructions, shadowing, hidden Unicode, encoded payloads).
//! * [`tokenizer`]: what one definition costs the model, in tokens, and
//!   what a result of a known length does.
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
//! `secret_ref`, `wording`, `tokenizer` and `lexicon` use no other module;
//! `scan` uses only `wording`;
//! `subjects` and `action` build on `wording` (and `subjects` on `lexicon`, for the
//! nouns English makes of verbs), and `cost` on those two; `config`, `approvals`
//! and `tasks` build on the first ones; `labels` and `profile` on `config`
//! (and `labels` on `action`); `catalog` on those and `cost`; `rules` and
//! `search` on the catalog (and `search` on `lexicon`); `tokens` on the rules.

pub mod action;
pub mod approvals;
pub mod catalog;
pub mod config;
pub mod cost;
pub mod glob;
pub mod labels;
pub mod lexicon;
pub mod naming;
pub mod parse;
pub mod profile;
pub mod registry;
pub mod rules;
pub mod scan;
pub mod search;
pub mod secret_ref;
pub mod subjects;
pub mod tagexpr;
pub mod tasks;
pub mod tokenizer;
pub mod tokens;
pub mod wording;

pub use approvals::{Approvals, Pending, Quarantine};
pub use catalog::{
    BuildOptions, Catalog, Kind, Overrides, Primitive, ServerListing, parse_tool_list,
};
pub use config::{
    ClientMetadataUrlError, ConcernDef, ConcernValueError, Config, GlobError, Grant, OAuthClient,
    OAuthClientError, Origin, Overlay, OverlayError, Overlays, Root, Roots, RootsError,
    SIGNING_ALGORITHMS, ServerConfig, ServerEntryError, Settings, Transport,
    check_client_metadata_url,
};
pub use cost::{Cost, Measured, Measurements};
pub use labels::Labels;
pub use parse::ParseError;
pub use profile::{Disclosure, GroupRule, Profile, TagRule, Visibility};
pub use rules::{Narrowing, NarrowingError, Reason, Rule, Rules, RulesError};
pub use tagexpr::{TagExpr, TagExprError};
pub use tokens::{TokenCount, TokenReport};
