//! The `mcp-sieve` program, built inside the test package so integration
//! tests can run the real command line through `CARGO_BIN_EXE_*` (cargo
//! only offers that for a package's own binaries). Same code as
//! `crates/sieve-cli/src/main.rs`, its allocator included.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // SAFETY: first thing, before any thread is started.
    unsafe { sieve_api::run_on_one_thread() };
    sieve_cli::main()
}
