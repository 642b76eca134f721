//! The MCP Sieve engine: the user's files, and the `mcp-sieve` command
//! line.
//!
//! * [`home`]: where a user's files are (`--home`, `MCP_SIEVE_HOME`, or the
//!   platform's folders).
//! * [`store`]: `config.json` and `profiles/*.json`, atomic writes with one
//!   `.bak`, never overwriting a file that does not parse.
//! * [`cli`]: the commands, on top of [`store`] and `sieve-core`.
//! * [`engine`]: one proxy process: config, profiles, upstream pool,
//!   catalog, task ledger, and the changes hosts are told about.
//! * [`upstream`]: one rmcp client per server (stdio, HTTP, built-in),
//!   reconnecting with backoff; [`hosts`]: where upstream traffic goes.
//! * [`server`]: the filtered MCP server a host talks to; [`serve`]: stdio
//!   and streamable HTTP (token, Origin, one endpoint per profile);
//!   [`tap`]: the raw JSON rmcp's typed model drops.
//! * [`ledger`]: the task ledger in SQLite (`tasks.db`), shared by every
//!   proxy process and the app.
//! * [`watch`]: live reload of `config.json` and profiles; [`import`]:
//!   servers from Claude Desktop, Cursor and VS Code.
//! * [`demo`]: the built-in demo MCP server, the embedded default upstream.
//!
//! The filter rules themselves live in `sieve-core`, which does no I/O.

pub mod api;
pub mod engine;
pub mod home;
pub mod hosts;
pub mod import;
pub mod ledger;
pub mod relay;
pub mod serve;
pub mod server;
pub mod store;
pub mod tap;
pub mod upstream;
pub mod watch;
