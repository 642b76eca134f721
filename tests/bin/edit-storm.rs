//! One process making many changes to one home through the library API,
//! the functions the app and the command line call: the concurrent-edits
//! test runs several of these beside `mcp-sieve` commands and a running
//! proxy, all changing the same files.
//!
//! `edit-storm HOME KIND PREFIX COUNT [ARG]`, where KIND is
//! * `deny`: adds `PREFIX-<i>` to profile ARG's `tools.deny`;
//! * `tag`: excludes tag `PREFIX-<i>` in profile ARG (`tags.none`);
//! * `server`: adds HTTP server `PREFIX-<i>` at URL ARG to config.json;
//! * `secret`: keeps env `PREFIX_<i>` of server ARG in the secret store,
//!   which writes `${secret:...}` into config.json.
//!
//! With `MCP_SIEVE_STATE=postgres://...` the changes go to a team's
//! database instead (HOME then holds only this process's own files).
//!
//! Each change is its own call, as a person's clicks are; any refusal ends
//! the process with the error.

use sieve_api::profiles::{self, PatternList, ProfileEdit, TagState};
use sieve_api::{secrets, servers};
use sieve_store::home::Home;
use sieve_store::secrets::Secrets;
use sieve_store::store::Store;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [home, kind, prefix, count, rest @ ..] = args.as_slice() else {
        eprintln!("usage: edit-storm HOME KIND PREFIX COUNT [ARG]");
        return ExitCode::from(2);
    };
    let count: usize = count.parse().expect("COUNT is a number");
    let arg = rest.first().map(String::as_str).unwrap_or_default();
    // MCP_SIEVE_STATE: a team's database instead of the home's files.
    let state = std::env::var("MCP_SIEVE_STATE").ok();
    let store = Store::open(Home::at(Path::new(home)), state.as_deref()).expect("the store opens");
    for i in 0..count {
        let name = format!("{prefix}-{i}");
        let done = match kind.as_str() {
            "deny" => profiles::edit(
                &store,
                arg,
                &ProfileEdit::AddPattern {
                    section: "tools".into(),
                    list: PatternList::Deny,
                    pattern: name,
                },
            )
            .map(drop),
            "tag" => profiles::edit(
                &store,
                arg,
                &ProfileEdit::SetTag {
                    tag: name,
                    state: TagState::Exclude,
                },
            )
            .map(drop),
            "server" => servers::add(
                &store,
                servers::NewServer::Http {
                    name,
                    url: arg.to_string(),
                    headers: Default::default(),
                    oauth: None,
                },
            )
            .map(drop),
            "secret" => {
                let vault = Secrets::file(store.home());
                let key = format!("{prefix}_{i}");
                secrets::keep_secret(&store, &vault, arg, &key, Some("s3cret")).map(drop)
            }
            other => panic!("no such kind {other:?}"),
        };
        if let Err(error) = done {
            eprintln!("edit-storm {kind} {prefix}: change {i} refused: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
