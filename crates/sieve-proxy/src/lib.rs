//! The MCP Sieve engine: the user's files, the upstream pool, the filtering
//! MCP server hosts connect to, the task ledger, and [`api`], the library
//! the `mcp-sieve` command line (crate `sieve-cli`) and the desktop app
//! share.
//!
//! * [`api`]: every view and edit a person makes (rows, tokens, servers,
//!   profile edits, tasks, host snippets), with one error type,
//!   `{code, message}`.
//! * [`home`]: where a user's files are (`--home`, `MCP_SIEVE_HOME`, or the
//!   platform's folders).
//! * [`store`]: `config.json` and `profiles/*.json`, atomic writes with one
//!   `.bak`, never overwriting a file that does not parse.
//! * [`engine`]: one proxy process: config, profiles, upstream pool,
//!   catalog, tasks, and the changes hosts are told about.
//! * `upstream` (internal): one rmcp client per server (stdio, HTTP,
//!   built-in), reconnecting with backoff; `hosts` (internal): where
//!   upstream traffic goes (progress, logs, server-to-client requests).
//! * `tasks` (internal): everything about tasks and failed calls, the only
//!   writer of task state to the ledger: recording, following upstream
//!   tasks, relaying them to hosts of both generations, retry, cancel.
//! * `server` (internal): the filtered MCP server a host talks to;
//!   [`serve`]: stdio and streamable HTTP (token, Origin, one endpoint per
//!   profile); `tap` (internal): the raw JSON rmcp's typed model drops.
//! * [`ledger`]: the task ledger in SQLite (`tasks.db`), shared by every
//!   proxy process and the app.
//! * [`secrets`]: the secret store (system keychain or a 0600 file);
//!   [`oauth`]: signing in to HTTP servers with rmcp's OAuth, the sign-ins
//!   kept in the secret store.
//! * `watch` (internal): live reload of `config.json` and profiles;
//!   `clock` (internal): the one clock; [`import`]: servers from Claude
//!   Desktop, Cursor and VS Code.
//!
//! Which module uses which (no cycles; a module uses only those below it):
//!
//! ```text
//! api      -> engine, store, ledger, import, oauth
//! serve    -> server, engine, store, tap
//! server   -> engine, tasks, upstream, hosts, tap, ledger, store
//! engine   -> tasks, upstream, hosts, watch, store, ledger, clock, oauth
//! tasks    -> upstream, hosts, ledger, clock, tap
//! upstream -> hosts, tap, clock, oauth
//! oauth    -> secrets, home
//! secrets  -> store, home
//! import   -> store
//! watch    -> home
//! store    -> home
//! hosts, tap, ledger, clock, home: none
//! ```
//!
//! The built-in demo server (crate `sieve-demo`) is the upstream when
//! `config.json` lists none: the engine runs it in memory.
//!
//! The filter rules themselves live in `sieve-core`, which does no I/O.

pub mod api;
mod clock;
pub mod engine;
pub mod home;
mod hosts;
pub mod import;
pub mod ledger;
pub mod oauth;
pub mod secrets;
pub mod serve;
mod server;
pub mod store;
mod sync;
mod tap;
mod tasks;
mod upstream;
mod watch;
