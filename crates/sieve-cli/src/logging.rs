//! Logs of the commands that run the proxy or talk to a server.

/// Logs to stderr (stdout may be the MCP channel); `MCP_SIEVE_LOG` sets the
/// filter, e.g. `debug` or `sieve_gateway=debug`.
pub(crate) fn init_logging() {
    use std::io::IsTerminal;
    // rmcp narrates every handshake at info; ours is what a user wants.
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_SIEVE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error,sieve_gateway=info,sieve_store=info,sieve_ledger=info,sieve_api=info"))
        // rmcp's sign-in narrates codes and token responses at debug: never
        // below info there, whatever was asked for.
        .add_directive(
            "rmcp::transport::auth=info"
                .parse()
                .expect("a valid directive"),
        );
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init();
}
