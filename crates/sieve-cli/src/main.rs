//! `mcp-sieve`: see `mcp-sieve --help` and docs/cli.md.

/// mimalloc, not glibc's `malloc`: a call through `serve` allocates and
/// frees its messages on one thread, and there mimalloc takes about a fifth
/// less of the proxy's CPU a call (docs/benchmarks.md, "mimalloc, now that
/// there is room"). Transparent huge pages are off for its memory (the
/// `no_thp` feature): with them a proxy held twice the memory.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // SAFETY: first thing, before any thread is started.
    unsafe { sieve_api::run_on_one_thread() };
    sieve_cli::main()
}
