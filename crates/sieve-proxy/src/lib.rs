//! The MCP Sieve engine: the user's files, and the `mcp-sieve` command
//! line.
//!
//! * [`home`]: where a user's files are (`--home`, `MCP_SIEVE_HOME`, or the
//!   platform's folders).
//! * [`store`]: `config.json` and `profiles/*.json`, atomic writes with one
//!   `.bak`, never overwriting a file that does not parse.
//! * [`cli`]: the commands, on top of [`store`] and `sieve-core`.
//! * [`demo`]: the built-in demo MCP server, the embedded default upstream.
//!
//! The filter rules themselves live in `sieve-core`, which does no I/O.

pub mod cli;
pub mod demo;
pub mod engine;
pub mod home;
pub mod hosts;
pub mod import;
pub mod serve;
pub mod server;
pub mod store;
pub mod tap;
pub mod upstream;
pub mod watch;
