//! The AI hosts' own config files (DESIGN §11): for each of fifteen hosts,
//! where its file is, how it writes its servers, and the four things MCP
//! Sieve does with it: **detect** it, **import** its servers, **write**
//! MCP Sieve's entry into it, and **route** it through MCP Sieve (and
//! **unroute** it, giving its servers back).
//!
//! * [`kind`]: the hosts, their ids, paths per platform, formats.
//! * [`document`]: a host file as a document whose server list changes
//!   in place, comments and formatting kept; [`jsonc`], [`toml`] and
//!   [`yaml`] are its three formats.
//! * [`shape`]: each host's way of writing a server, to and from
//!   `config.json`'s.
//! * [`file`]: a host's file on disk, read and written back atomically.
//! * [`import`]: a host's servers into `config.json`.
//! * [`entry`]: MCP Sieve's own entry and the snippet a person pastes.
//! * [`detect`]: whether a host is absent, installed or routed.
//! * [`route`]: everything a host had, moved behind MCP Sieve and back,
//!   recorded in `hosts.json`.
//!
//! Which module uses which (no circles):
//!
//! ```text
//! route    -> entry, error, file, import, kind
//! detect   -> entry, file, kind, shape
//! entry    -> error, file, kind, shape
//! import   -> document, entry, file, kind, shape
//! file     -> document, error, jsonc, toml, yaml, kind
//! jsonc, toml, yaml -> document
//! shape    -> kind
//! kind     -> document (formats and lists)
//! error, document: none of these
//! ```

pub mod detect;
pub mod document;
pub mod entry;
pub mod error;
pub mod file;
pub mod import;
mod jsonc;
pub mod kind;
pub mod route;
pub mod shape;
mod toml;
mod yaml;

pub use detect::{HostState, HostStatus, detect, detect_all};
pub use entry::{
    Connection, ENTRY, default_path, entry, profile_in_url, profile_url, serves_sieve,
    sieve_profile, snippet, write,
};
pub use error::HostFileError;
pub use file::{HostFile, HostWrite};
pub use kind::{HostDirs, HostKind, Platform, UnknownHost};
pub use route::{RouteReport, Routes, UnrouteReport, Via, route, unroute};
