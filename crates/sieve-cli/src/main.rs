//! `mcp-sieve`: see `mcp-sieve --help` and the README.

fn main() -> std::process::ExitCode {
    sieve_cli::main()
}
