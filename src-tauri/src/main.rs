//! The MCP Sieve desktop app. `--home DIR` (or `MCP_SIEVE_HOME`) keeps the
//! user's files in DIR, as for every `mcp-sieve` command.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    sieve_app::run()
}
