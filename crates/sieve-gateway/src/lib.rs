//! The engine of one MCP Sieve proxy process: the upstream pool, the
//! filtering MCP server hosts connect to, tasks, and live reload of the
//! user's files. The files themselves are `sieve-store`'s, the task ledger
//! `sieve-ledger`'s, and every view and edit a person makes is
//! `sieve-api`'s, which calls into this crate.
//!
//! * [`engine`]: one proxy process: config, profiles, upstream pool,
//!   catalog, tasks, and the changes hosts are told about.
//! * [`upstream`]: one rmcp client per server (stdio, HTTP, built-in),
//!   reconnecting with backoff; [`hosts`]: where upstream traffic goes
//!   (progress, logs, server-to-client requests).
//! * `tasks` (internal): everything about tasks and failed calls, the only
//!   writer of task state to the ledger: recording, following upstream
//!   tasks, relaying them to hosts of both generations, retry, cancel.
//! * `server` (internal): the filtered MCP server a host talks to;
//!   [`serve`]: stdio and streamable HTTP (token, Origin, one endpoint per
//!   profile); `front` (internal): every host on the proxy's own message
//!   layer (`sieve-wire`: framing, one read per message, errors with
//!   their JSON-RPC code), over stdio and streamable HTTP (its sessions,
//!   streams and 2026-07-28 requests); [`link`]: a host connection as
//!   handlers see it (the way back to the host, one request being
//!   served); [`tap`]: the raw JSON of an upstream that rmcp's client
//!   drops, each line read once by `sieve-wire`, which also reads an HTTP
//!   server's bodies and SSE streams (`upstream::http`); [`lane`]: a
//!   line server's requests from the hosts, written and answered by the
//!   proxy itself beside rmcp's client; [`sent`]: a request on its way to
//!   a server, on a lane or through rmcp.
//! * [`oauth`]: signing in to HTTP servers with rmcp's OAuth, the sign-ins
//!   kept in the secret store; [`identity`]: the other way round, people
//!   signed in to the gateway by their team's identity provider (their
//!   access tokens checked against its keys, a claim choosing the profile).
//! * [`error`]: [`CallError`](error::CallError), why a call, retry or
//!   task request did not go through and whose doing it was; a JSON-RPC
//!   error only where the server answers a host.
//! * `clock` (internal): the one clock; `sync` (internal): locks that
//!   survive a panicking holder.
//!
//! Which module uses which (no circles, checked by
//! `scripts/check-layers.py` in `./test.sh`):
//!
//! ```text
//! serve    -> front, server, engine, identity
//! front    -> server, engine, hosts, link, tap, sync
//! server   -> identity (the signed-in person of a request)
//! server   -> engine, tasks, upstream, hosts, tap, link, error
//! engine   -> tasks, upstream, hosts, clock, oauth, error
//! tasks    -> upstream, hosts, clock, tap, link, error
//! upstream -> hosts, sent, lane, tap, clock, oauth, error
//! hosts    -> link, sent
//! sent     -> lane
//! lane     -> tap, sync
//! tap, link, clock, oauth, sync, error, identity: none of this crate's
//! ```
//!
//! The built-in demo server (crate `sieve-demo`) is the upstream when
//! `config.json` lists none: the engine runs it in memory.

mod clock;
pub mod engine;
pub mod error;
mod front;
pub mod hosts;
pub mod identity;
pub mod lane;
pub mod link;
pub mod oauth;
pub mod sent;
pub mod serve;
mod server;
mod sync;
pub mod tap;
mod tasks;
pub mod upstream;
