//! The JSON-RPC message layer of MCP Sieve, for hosts and upstreams, stdio
//! and streamable HTTP alike: each message read once, passed on as the
//! bytes that came.
//!
//! A proxy reads far more than it changes. [`Message::parse`] reads a
//! message's bytes once into its [`Kind`] (request, notification,
//! response, error response), its [`Id`] and method, and where its params,
//! result or error lie; those parts are JSON text borrowed from the bytes,
//! decoded into a type only when asked ([`Message::params_as`]). What the
//! protocol does not name stays in the bytes. A message passed on changes
//! only where it must: [`Message::with_id`] splices another id into the
//! bytes as they came, every other byte the same; [`write`](mod@write) builds the
//! messages Sieve itself sends from raw parts.
//!
//! * [`message`]: [`Message`] and [`Kind`]; `jsonrpc` must be `"2.0"`; a
//!   batch (a JSON array) is refused, as MCP removed batches in its
//!   2025-06-18 revision; arrays and objects nest at most [`MAX_DEPTH`]
//!   levels, so deep input is an error rather than a stack overflow in
//!   whatever decodes it next.
//! * [`id`]: [`Id`], a number or a string, compared as JSON-RPC does.
//! * [`error`]: [`Error`], one sentence a person reads, with the JSON-RPC
//!   code to answer with (`-32700`, `-32600`) and the id where it could
//!   be read, so a bad request is refused by name.
//! * [`write`](mod@write): responses, error responses, requests and notifications
//!   from raw JSON text.
//! * [`object`]: a member added to an object's text, the rest as it came.
//! * [`lines`]: newline-delimited framing (stdio) over any chunking, a line
//!   over the limit refused without being buffered; with the `tokio`
//!   feature, `AsyncLines` over an `AsyncRead`.
//! * [`sse`]: server-sent events (streamable HTTP): an incremental decoder
//!   and an encoder.
//!
//! It knows nothing of MCP's methods, of rmcp or of the rest of Sieve:
//! serde and serde_json only (tokio behind its feature).

pub mod error;
pub mod id;
pub mod lines;
pub mod message;
pub mod object;
mod scan;
pub mod sse;
pub mod write;

pub use error::{Error, ErrorKind};
pub use id::Id;
#[cfg(feature = "tokio")]
pub use lines::AsyncLines;
pub use lines::{Line, LineReader};
pub use message::{Kind, Message};
pub use scan::{MAX_DEPTH, nests_deeper_than};
pub use sse::{Decoded, Event, SseDecoder};
