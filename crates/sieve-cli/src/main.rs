//! `mcp-sieve`: see `mcp-sieve --help` and docs/cli.md.

fn main() -> std::process::ExitCode {
    sieve_cli::main()
}
