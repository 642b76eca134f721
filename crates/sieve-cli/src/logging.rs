//! Logs of the commands that run the proxy or talk to a server.

/// Logs to stderr (stdout may be the MCP channel); `MCP_SIEVE_LOG` sets the
/// filter, e.g. `debug` or `sieve_gateway=debug`.
pub(crate) fn init_logging() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_SIEVE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(sieve_api::DEFAULT_LOG))
        .add_directive(sieve_api::LOG_FLOOR.parse().expect("a valid directive"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init();
}
