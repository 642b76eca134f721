//! The user's documents of MCP Sieve (DESIGN §2, §12): where they are
//! (files, or a team's PostgreSQL database), reading and validating them,
//! changing them under a lock, watching them, and the AI hosts' own config
//! files. Nothing here speaks MCP: this crate does not link rmcp.
//!
//! * [`home`]: where a user's files are (`--home`, `MCP_SIEVE_HOME`, or
//!   the platform's folders).
//! * [`store`]: `config.json`, `profiles/*.json`, `approvals.json` and the
//!   HTTP token, parsed and checked: every change one read-modify-write
//!   under the document's lock, never over a document that does not
//!   parse. [`Store::open`](store::Store::open) picks where they live.
//! * [`state`]: the two [`Backend`](state::Backend)s that keep the
//!   documents' text: files (OS locks, atomic writes with one `.bak`) and
//!   PostgreSQL (transactions, LISTEN/NOTIFY), the same rules over both.
//! * [`error`]: what can go wrong with them, in words.
//! * [`secrets`]: the secret store (system keychain, else a 0600 file
//!   changed under the same lock, or a team's database, sealed with the
//!   team's key).
//! * [`watch`]: live reload: which of the user's files changed.
//! * [`hosts`]: fifteen AI hosts' own config files: detect a host, import
//!   its servers ([`import`]), write MCP Sieve's entry into its file
//!   (comments and other settings kept), route it through MCP Sieve and
//!   give it back.
//!
//! Which module uses which (no circles, checked by
//! `scripts/check-layers.py` in `./test.sh`):
//!
//! ```text
//! hosts   -> home, store
//! store   -> atomic, error, home, state
//! state   -> atomic, error, home, watch
//! watch   -> home, secrets
//! secrets -> atomic, error, home
//! atomic  -> error
//! error, home: none
//! ```

mod atomic;
pub mod error;
pub mod home;
pub mod hosts;
pub use hosts::import;
pub mod secrets;
pub mod state;
pub mod store;
pub mod watch;
