//! The MCP Sieve desktop app. `--home DIR` (or `MCP_SIEVE_HOME`) keeps the
//! user's files in DIR, as for every `mcp-sieve` command.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    // SAFETY: first thing, before any thread is started.
    unsafe { sieve_api::run_on_one_thread() };
    sieve_app::run()
}
