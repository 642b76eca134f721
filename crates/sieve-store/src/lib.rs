//! The user's files of MCP Sieve (DESIGN §2): where they are, reading and
//! validating them, changing them under a lock, watching them, and the AI
//! hosts' own config files. Nothing here speaks MCP: this crate does not
//! link rmcp.
//!
//! * [`home`]: where a user's files are (`--home`, `MCP_SIEVE_HOME`, or
//!   the platform's folders).
//! * [`store`]: `config.json`, `profiles/*.json` and `approvals.json`:
//!   every change one read-modify-write under the file's OS lock
//!   ([`store::update_locked`]), atomic writes with one `.bak`, never
//!   overwriting a file that does not parse.
//! * [`secrets`]: the secret store (system keychain, else a 0600 file
//!   changed under the same lock).
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
//! watch   -> home, secrets, store
//! secrets -> home, store
//! hosts   -> home, store
//! store   -> home
//! home: none
//! ```

pub mod home;
pub mod hosts;
pub use hosts::import;
pub mod secrets;
pub mod store;
pub mod watch;
